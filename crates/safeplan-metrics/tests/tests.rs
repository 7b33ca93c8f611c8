//! The metrics crate's integration tests: every figure against a hand computation.

use safeplan_metrics::Confusion;

#[test]
fn precision_recall_f1_by_hand() {
    // 3 flagged, 2 right; 4 to find.
    let c = Confusion {
        tp: 2,
        fp: 1,
        fn_: 2,
    };
    assert_eq!(c.precision(), 2.0 / 3.0);
    assert_eq!(c.recall(), 0.5);
    // 2PR/(P+R) = 2·(2/3)·(1/2)/(2/3+1/2) = (2/3)/(7/6) = 4/7
    assert!((c.f1() - 4.0 / 7.0).abs() < 1e-12);
}

#[test]
fn undefined_ratios_are_zero() {
    let c = Confusion::default();
    assert_eq!((c.precision(), c.recall(), c.f1()), (0.0, 0.0, 0.0));
    let nothing_flagged = Confusion {
        tp: 0,
        fp: 0,
        fn_: 3,
    };
    assert_eq!(nothing_flagged.precision(), 0.0);
    assert_eq!(nothing_flagged.recall(), 0.0);
}

#[test]
fn micro_average_adds_counts() {
    let a = Confusion::from_sets([0, 1], [1]);
    let b = Confusion::from_sets([4], [4, 5, 6]);
    let total: Confusion = [a, b].into_iter().sum();
    assert_eq!(
        total,
        Confusion {
            tp: 2,
            fp: 1,
            fn_: 2
        }
    );
}

#[test]
fn serialises_false_negatives_as_fn() {
    let json = serde_json::to_string(&Confusion {
        tp: 1,
        fp: 2,
        fn_: 3,
    })
    .unwrap_or_default();
    assert_eq!(json, r#"{"tp":1,"fp":2,"fn":3}"#);
}
