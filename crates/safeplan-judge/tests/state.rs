//! The state-tracking and rule judges on hand-written TEACh-style sequences, one rule
//! each, with the flags worked out by hand.

use safeplan_judge::teach::{GoalWords, parse_teach};
use safeplan_judge::{CritiqueKind, RuleJudge, StateJudge};

fn removes(goal: &str, actions: &[&str]) -> Vec<usize> {
    StateJudge::judge(&GoalWords::new(goal), actions)
        .into_iter()
        .filter(|c| c.kind == CritiqueKind::Remove)
        .filter_map(|c| c.index)
        .collect()
}

#[test]
fn a_placement_undone_by_a_pick_up_is_flagged_with_it() {
    let a = [
        "Driver.PickUp('Apple')",
        "Driver.PutAOnB('Apple', 'Chair')",
        "Driver.Move(0.5)",
        "Driver.PickUp('Apple')",
        "Driver.PutAOnB('Apple', 'Fridge')",
    ];
    assert_eq!(removes("Put the apple in the fridge.", &a), vec![1, 3]);
}

#[test]
fn a_placement_with_work_between_is_not_undone() {
    // Putting the mug in the sink and running water over it is washing it.
    let a = [
        "Driver.PickUp('Mug')",
        "Driver.PutAOnB('Mug', 'Sink')",
        "Driver.ToggleOn('Faucet')",
        "Driver.ToggleOff('Faucet')",
        "Driver.PickUp('Mug')",
        "Driver.PutAOnB('Mug', 'CoffeeMachine')",
    ];
    assert!(removes("Make coffee in a clean mug.", &a).is_empty());
}

#[test]
fn a_second_placement_without_a_pick_up_contradicts_the_first() {
    let a = [
        "Driver.PickUp('Book')",
        "Driver.PutAOnB('Book', 'Bed')",
        "Driver.TurnLeft(90.0)",
        "Driver.PutAOnB('Book', 'Desk')",
    ];
    assert_eq!(removes("Put the book on the desk.", &a), vec![1]);
    // Pouring also uses the object in hand.
    let b = [
        "Driver.PickUp('Cup')",
        "Driver.PutAOnB('Cup', 'Shelf')",
        "Driver.PourFromAIntoB('Cup', 'HousePlant')",
    ];
    assert_eq!(removes("Water the plant with the cup.", &b), vec![1]);
}

#[test]
fn an_irrelevant_pick_and_place_needs_a_specific_goal() {
    let a = [
        "Driver.PickUp('Pen')",
        "Driver.PutAOnB('Pen', 'Sofa')",
        "Driver.PickUp('Book')",
        "Driver.PutAOnB('Book', 'Desk')",
    ];
    assert_eq!(removes("Put the book on the desk.", &a), vec![0, 1]);
    // "Tidy up." names nothing the episode handles: nothing can be called irrelevant.
    assert!(removes("Tidy up.", &a).is_empty());
    // A receptacle used later makes the placement count (the pen goes out with the box).
    let b = [
        "Driver.PickUp('Pen')",
        "Driver.PutAOnB('Pen', 'Box')",
        "Driver.PickUp('Box')",
        "Driver.PutAOnB('Box', 'Desk')",
    ];
    assert!(removes("Put the box on the desk.", &b).is_empty());
}

#[test]
fn a_goal_object_left_elsewhere_is_replaced_by_the_placement_the_goal_names() {
    let a = [
        "Driver.PickUp('Watch')",
        "Driver.PutAOnB('Watch', 'Shelf')",
        "Driver.PickUp('Keys')",
        "Driver.PutAOnB('Keys', 'SideTable')",
    ];
    let c = StateJudge::judge(&GoalWords::new("Place the watch on the side table."), &a);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!((c[0].kind, c[0].index), (CritiqueKind::Remove, Some(1)));
    assert_eq!((c[1].kind, c[1].index), (CritiqueKind::Missing, Some(1)));
    assert_eq!(
        c[1].steps,
        vec!["Driver.PutAOnB('Watch', 'SideTable')".to_string()]
    );
}

#[test]
fn repeated_switches_and_idle_doors_are_flagged_but_first_ones_never() {
    let a = [
        "Driver.ToggleOff('Faucet')", // initial state unknown: fine
        "Driver.ToggleOn('Lamp')",
        "Driver.Move(1.0)",
        "Driver.ToggleOn('Lamp')", // already on
        "Driver.Open('Fridge')",
        "Driver.TurnLeft(90.0)",
        "Driver.Close('Fridge')", // opened and closed with nothing taken: both
    ];
    assert_eq!(removes("Turn on the lamp.", &a), vec![3, 4, 6]);
}

#[test]
fn a_filling_poured_away_is_flagged_with_the_pick_up_that_served_it() {
    let a = [
        "Driver.PickUp('Mug')",
        "Driver.PutAOnB('Mug', 'CoffeeMachine')",
        "Driver.ToggleOn('CoffeeMachine')",
        "Driver.PickUp('Mug')",
        "Driver.PourFromAIntoB('Mug', 'Sink')",
    ];
    assert_eq!(removes("Make a mug of coffee.", &a), vec![3, 4]);
    // Emptying before filling is not undoing anything.
    let b = [
        "Driver.PickUp('Mug')",
        "Driver.PourFromAIntoB('Mug', 'Sink')",
        "Driver.PutAOnB('Mug', 'CoffeeMachine')",
        "Driver.ToggleOn('CoffeeMachine')",
    ];
    assert!(removes("Make a mug of coffee.", &b).is_empty());
}

#[test]
fn idle_motion_is_flagged_by_both_judges() {
    let a = [
        "Driver.Move(0.0)",
        "Driver.TurnLeft(360.0)",
        "Driver.TurnLeft(90.0)",
        "Driver.TurnRight(90.0)",
        "Driver.TurnLeft(90.0)",
        "Driver.TurnLeft(180.0)",
    ];
    assert_eq!(removes("Go.", &a), vec![0, 1, 2, 3]);
    let rule: Vec<usize> = RuleJudge::judge(&GoalWords::new("Go."), &a)
        .iter()
        .filter_map(|c| c.index)
        .collect();
    assert_eq!(rule, vec![0, 1, 2, 3]);
}

#[test]
fn the_rule_baseline_flags_early_toggle_offs_and_unnamed_pick_ups() {
    let a = [
        "Driver.ToggleOff('Faucet')",
        "Driver.PickUp('Bowl')",
        "Driver.PutAOnB('Bowl', 'Sink')",
        "Driver.ToggleOn('Faucet')",
        "Driver.ToggleOff('Faucet')",
    ];
    let flagged: Vec<usize> = RuleJudge::judge(&GoalWords::new("Rinse the dish."), &a)
        .iter()
        .filter_map(|c| c.index)
        .collect();
    assert_eq!(flagged, vec![0, 1, 2]);
}

#[test]
fn teach_steps_parse_and_goal_words_match_camel_case_names() {
    let a = parse_teach("Driver.PutAOnB('RemoteControl', 'CoffeeTable')").expect("parses");
    assert_eq!(a.objects, vec!["RemoteControl", "CoffeeTable"]);
    assert_eq!(
        parse_teach("Driver.TurnRight(90.0)").and_then(|a| a.amount),
        Some(-90.0)
    );
    assert!(parse_teach("not a step").is_none());
    assert!(parse_teach("Driver.PickUp('unterminated)").is_none());
    let g = GoalWords::new("Place all remotes on the coffee table.");
    assert!(g.mentions("RemoteControl") && g.mentions("CoffeeTable") && g.mentions("Table"));
    assert!(!g.mentions("Shelf"));
    assert_eq!(g.match_len("CoffeeTable"), 2);
    let p = GoalWords::new("Boil the potatoes and wash the dishes.");
    assert!(p.mentions("Potato") && p.mentions("Dish"));
}

proptest::proptest! {
    #[test]
    fn judges_never_panic_and_stay_in_range(actions in proptest::collection::vec("[A-Za-z.()'0-9, ]{0,30}", 0..12), goal in "[a-z ]{0,30}") {
        let refs: Vec<&str> = actions.iter().map(String::as_str).collect();
        for c in StateJudge::judge(&GoalWords::new(&goal), &refs).into_iter().chain(RuleJudge::judge(&GoalWords::new(&goal), &refs)) {
            proptest::prop_assert!(c.index.is_none_or(|i| i <= refs.len()));
        }
    }
}

#[test]
fn a_placement_on_an_appliance_is_a_use_not_a_detour() {
    // Real players switch toasters on (the shipped priors): bread put in one and taken out
    // was toasted, even when this sequence never switches it on.
    let toast = [
        "Driver.PickUp('Bread')",
        "Driver.PutAOnB('Bread', 'Toaster')",
        "Driver.TurnLeft(90.0)",
        "Driver.PickUp('Bread')",
        "Driver.PutAOnB('Bread', 'Plate')",
    ];
    assert_eq!(
        removes("Make a plate of toast.", &toast),
        Vec::<usize>::new()
    );
    // The same detour over a shelf is one.
    let shelf = toast.map(|a| a.replace("Toaster", "Shelf"));
    let shelf: Vec<&str> = shelf.iter().map(String::as_str).collect();
    assert_eq!(removes("Make a plate of toast.", &shelf), vec![1, 3]);
}

#[test]
fn rule_lists_parse_and_unknown_names_say_what_is_known() {
    use safeplan_judge::{StateRule, StateRules};
    assert_eq!(StateRules::parse("all"), Ok(StateRules::all()));
    assert_eq!(
        StateRules::parse("undone-placement, idle-motion"),
        Ok(StateRules::none()
            .with(StateRule::UndonePlacement)
            .with(StateRule::IdleMotion))
    );
    assert!(!StateRules::default().contains(StateRule::IdleMotion));
    let e = StateRules::parse("telepathy").expect_err("unknown");
    assert!(
        e.contains("unknown state rule `telepathy`") && e.contains("unseen-use"),
        "{e}"
    );
}

#[test]
fn a_put_of_an_object_never_picked_up_flags_the_pick_up_in_its_place() {
    // The cup is picked up, never put down, and the mug is put: one hand cannot hold both,
    // so the cup's pick-up stands where the mug's should be.
    let a = [
        "Driver.Move(1.0)",
        "Driver.PickUp('Cup')",
        "Driver.TurnLeft(90.0)",
        "Driver.PutAOnB('Mug', 'Sink')",
    ];
    let c = StateJudge::judge(&GoalWords::new("Put the mug in the sink."), &a);
    assert_eq!(
        c.iter()
            .map(|c| (c.kind, c.index, c.steps.clone()))
            .collect::<Vec<_>>(),
        vec![
            (CritiqueKind::Remove, Some(1), vec![]),
            (
                CritiqueKind::Missing,
                Some(1),
                vec!["Driver.PickUp('Mug')".to_string()]
            ),
        ]
    );
    // Holding the mug itself, nothing is wrong.
    let ok = a.map(|s| s.replace("Cup", "Mug"));
    let ok: Vec<&str> = ok.iter().map(String::as_str).collect();
    assert!(StateJudge::judge(&GoalWords::new("Put the mug in the sink."), &ok).is_empty());
}
