//! Confusion counts, micro and macro precision / recall / F1, by hand.

use safeplan_metrics::{Confusion, Prf, macro_prf, micro_prf};

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

#[test]
fn prf_bundles_the_three_ratios() {
    // tp 3, fp 1, fn 3: P = 3/4, R = 3/6 = 1/2, F1 = 2·3/(2·3 + 1 + 3) = 6/10.
    let c = Confusion {
        tp: 3,
        fp: 1,
        fn_: 3,
    };
    assert_eq!(
        c.prf(),
        Prf {
            precision: 0.75,
            recall: 0.5,
            f1: 0.6
        }
    );
}

/// Three episodes with very different sizes, so micro and macro differ.
fn episodes() -> [Confusion; 3] {
    [
        // P = 8/10, R = 8/9, F1 = 16/19
        Confusion {
            tp: 8,
            fp: 2,
            fn_: 1,
        },
        // P = 0/1 = 0, R = 0/1 = 0, F1 = 0
        Confusion {
            tp: 0,
            fp: 1,
            fn_: 1,
        },
        // P = 1/1, R = 1/3, F1 = 2/(2 + 0 + 2) = 1/2
        Confusion {
            tp: 1,
            fp: 0,
            fn_: 2,
        },
    ]
}

#[test]
fn micro_prf_divides_summed_counts() {
    // Sum: tp 9, fp 3, fn 4 → P = 9/12 = 3/4, R = 9/13, F1 = 18/(18 + 7) = 18/25.
    let m = micro_prf(&episodes());
    assert_eq!(m.precision, 0.75);
    assert_eq!(m.recall, 9.0 / 13.0);
    assert_eq!(m.f1, 18.0 / 25.0);
}

#[test]
fn macro_prf_averages_per_item_ratios() {
    // P = (4/5 + 0 + 1)/3 = 3/5; R = (8/9 + 0 + 1/3)/3 = (11/9)/3 = 11/27;
    // F1 = (16/19 + 0 + 1/2)/3 = (51/38)/3 = 17/38 (the mean of per-item F1, not the
    // harmonic mean of 3/5 and 11/27).
    let m = macro_prf(&episodes());
    crate::assert_close(m.precision, 3.0 / 5.0, 1e-15);
    crate::assert_close(m.recall, 11.0 / 27.0, 1e-15);
    crate::assert_close(m.f1, 17.0 / 38.0, 1e-15);
}

#[test]
fn no_items_give_zeros() {
    assert_eq!(micro_prf(&[]), Prf::default());
    assert_eq!(macro_prf(&[]), Prf::default());
}

#[test]
fn prf_serialises_with_plain_names() -> Result<(), serde_json::Error> {
    let json = serde_json::to_string(&Prf {
        precision: 0.5,
        recall: 0.25,
        f1: 1.0,
    })?;
    assert_eq!(json, r#"{"precision":0.5,"recall":0.25,"f1":1.0}"#);
    Ok(())
}
