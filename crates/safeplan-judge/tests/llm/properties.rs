//! No reply can panic the parsers or bind out of range.

use proptest::prelude::*;

use super::*;

const POOL: &[&str] = &[
    "Driver.Move(0.5)",
    "Driver.PickUp('Mug')",
    "Driver.PutAOnB('Mug', 'Sink')",
    "Driver.Say('#REMOVE: all #MISSING: x')",
    "#REMOVE",
    "(pick robot cup table)",
    "pick up the cup",
    "Driver.PickUp('Ñandú')",
    "",
];

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "ACTION: ",
            "ANNOTATION: ",
            "#REMOVE: ",
            "#MISSING: ",
            "#remove",
            "\n",
            "\n\n",
            "```",
            "```json\n",
            "{\"steps\": [",
            "{\"index\": ",
            "\"action\": ",
            "\"verdict\": \"remove\"",
            "\"missing\": [{\"after\": ",
            "\"actions\": [",
            "}",
            "]",
            ", ",
            "after step ",
            "before step ",
            "at the end",
            "no ",
            "| ",
            "**",
            "- ",
            "Step ",
            "'",
            "`",
            "(",
            ")",
            "Driver.",
            "Driver.PickUp('Mug')",
            "Driver.Move(0.5)",
            "(pick robot cup table)",
            "Ñ",
            "\u{200b}",
            "💥",
        ])
        .prop_map(str::to_string),
        (0usize..20).prop_map(|n| format!("{n}. ")),
        any::<i64>().prop_map(|n| n.to_string()),
        "[a-zA-Z0-9 #:()'.,\\-]{0,16}",
    ]
}

fn reply() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(fragment(), 0..60).prop_map(|f| f.concat()),
        any::<String>(),
    ]
}

fn json_reply() -> impl Strategy<Value = String> {
    let index = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| if f.is_finite() {
            f.to_string()
        } else {
            "1e400".into()
        }),
        "\"[0-9a-z]{0,4}\"",
        Just("null".to_string()),
    ];
    (
        prop::collection::vec((index.clone(), prop::sample::select(POOL.to_vec()), any::<bool>()), 0..8),
        prop::collection::vec((index, prop::collection::vec(prop::sample::select(POOL.to_vec()), 0..3)), 0..3),
    )
        .prop_map(|(steps, missing)| {
            let steps: Vec<String> = steps
                .iter()
                .map(|(i, a, r)| {
                    format!(
                        "{{\"index\": {i}, \"action\": {}, \"verdict\": \"{}\", \"reason\": \"r\"}}",
                        serde_json::to_string(a).expect("JSON text"),
                        if *r { "remove" } else { "keep" }
                    )
                })
                .collect();
            let missing: Vec<String> = missing
                .iter()
                .map(|(i, a)| {
                    format!(
                        "{{\"after\": {i}, \"description\": \"d\", \"actions\": {}}}",
                        serde_json::to_string(a).expect("JSON text")
                    )
                })
                .collect();
            format!("{{\"steps\": [{}], \"missing\": [{}]}}", steps.join(","), missing.join(","))
        })
}

fn plan_strategy() -> impl Strategy<Value = Plan> {
    prop::collection::vec(prop::sample::select(POOL.to_vec()), 0..9)
        .prop_map(|steps| Plan::from_actions(&steps))
}

fn in_range(j: &Judgement, len: usize) -> Result<(), TestCaseError> {
    for c in &j.critiques {
        match c.kind {
            CritiqueKind::Remove => prop_assert!(c.index.is_some_and(|i| i < len), "{c:?}"),
            CritiqueKind::Missing => prop_assert!(c.index.is_none_or(|i| i <= len), "{c:?}"),
        }
    }
    Ok(())
}

fn checked(reply: &str, p: &Plan, critiques: &[Critique]) -> Result<(), TestCaseError> {
    let flagged: Vec<usize> = critiques
        .iter()
        .filter(|c| c.kind == CritiqueKind::Remove)
        .filter_map(|c| c.index)
        .collect();
    let r = check_revision(reply, p, critiques, 1, true);
    let kept = r.plan.original_indices();
    // Every unflagged step survives, in order, once; every flagged one is gone.
    let want: Vec<usize> = (0..p.len()).filter(|i| !flagged.contains(i)).collect();
    prop_assert_eq!(kept, want);
    prop_assert!(
        r.plan
            .inserted()
            .iter()
            .all(|s| s.origin == Origin::Inserted(1))
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_text_reply_is_safe(reply in reply(), p in plan_strategy()) {
        let j = parse_judge_text(&reply, &p);
        in_range(&j, p.len())?;
        if let Ok(j) = parse_judge_json(&reply, &p, "x") {
            in_range(&j, p.len())?;
        }
        checked(&reply, &p, &j.critiques)?;
    }

    #[test]
    fn any_json_reply_is_safe(reply in json_reply(), p in plan_strategy()) {
        let j = parse_judge_json(&reply, &p, "x").unwrap();
        in_range(&j, p.len())?;
        checked(&reply, &p, &j.critiques)?;
    }
}
