//! Reading LLM replies (`read_reply`): one hand case per rule of docs/FORMAT.md ("Plans in LLM
//! replies"), each written after a real reply (PlanBench's stored replies, DESPITE's prompts)
//! and checked against the steps a person reads in it.

use safeplan_pddl::{Code, NoPlan, Reply, Severity, Vocabulary, read_reply};

/// Blocksworld's names, as PlanBench's instances spell them.
fn blocks() -> Vocabulary {
    Vocabulary::new(
        ["pick-up", "put-down", "stack", "unstack"],
        ["on", "ontable", "clear", "handempty", "holding"],
        ["a", "b", "c", "d"],
    )
}

/// Mystery blocksworld's names.
fn mystery() -> Vocabulary {
    Vocabulary::new(
        ["attack", "succumb", "overcome", "feast"],
        ["province", "planet", "harmony", "pain", "craves"],
        ["a", "b", "c", "d"],
    )
}

/// The steps read, as `(action arg ...)` lines, or `None` for no plan.
fn steps(reply: &Reply) -> Option<Vec<String>> {
    reply.plan.as_ref().map(|p| {
        p.steps
            .iter()
            .map(|s| s.text().to_ascii_lowercase())
            .collect()
    })
}

fn read(text: &str, v: &Vocabulary) -> (Option<Vec<String>>, Reply) {
    let r = read_reply(text, Some(v));
    (steps(&r), r)
}

fn some(s: &[&str]) -> Option<Vec<String>> {
    Some(s.iter().map(|x| x.to_string()).collect())
}

fn warned(r: &Reply, needle: &str) -> bool {
    r.diagnostics
        .iter()
        .any(|d| d.severity == Severity::Warning && d.message.contains(needle))
}

#[test]
fn a_plan_wrapper_is_read_as_the_steps_inside_it() {
    // PlanBench, blocksworld gpt-4 zero-shot: read as 0 steps before.
    let text = "In PDDL syntax:\n\n(plan\n    (unstack a b)\n    (put-down a)\n)\n";
    assert_eq!(
        read(text, &blocks()).0,
        some(&["(unstack a b)", "(put-down a)"])
    );
    let text = "(:plan\n  (pick-up a)\n  (stack a b))";
    assert_eq!(
        read(text, &blocks()).0,
        some(&["(pick-up a)", "(stack a b)"])
    );
    // `(seq ...)` and `([PLAN] ...)` (mystery blocksworld gpt-4), `(define (plan p) (:steps ...))`.
    let text = "(seq\n  (attack a)\n  (overcome a b)\n)";
    assert_eq!(
        read(text, &mystery()).0,
        some(&["(attack a)", "(overcome a b)"])
    );
    let text = "Here is the plan:\n\n([PLAN]\n(feast a d)\n(succumb a)\n)\n";
    assert_eq!(
        read(text, &mystery()).0,
        some(&["(feast a d)", "(succumb a)"])
    );
    let text = "(define (plan bw-1)\n  (:domain blocksworld)\n  (:steps (pick-up a) (stack a b)))";
    assert_eq!(
        read(text, &blocks()).0,
        some(&["(pick-up a)", "(stack a b)"])
    );
}

#[test]
fn a_plan_definition_header_states_no_empty_plan() {
    // `(define (plan)` names nothing: the steps after it are the plan (PlanBench mystery
    // blocksworld gpt-4 #43 read as the empty plan before).
    let text = "```\n(define (plan)\n  (:steps\n    (pick-up a)\n    (stack a b)))\n```";
    assert_eq!(
        read(text, &blocks()).0,
        some(&["(pick-up a)", "(stack a b)"])
    );
}

#[test]
fn the_empty_wrapper_and_the_empty_block_state_the_empty_plan() {
    for text in [
        "(plan)",
        "(:plan\n)",
        "The goal already holds.\n```pddl\n```",
        "{\"plan\": []}",
    ] {
        let (s, r) = read(text, &blocks());
        assert_eq!(s, some(&[]), "{text}");
        assert!(r.stated_empty && r.no_plan.is_none(), "{text}");
    }
}

#[test]
fn code_fences_of_any_language_hold_the_plan() {
    for tag in ["", "pddl", "lisp", "scheme", "text", "plaintext", "clojure"] {
        let text = format!(
            "We first free a.\n(on a b) holds.\n```{tag}\n(unstack a b)\n(put-down a)\n```\nDone."
        );
        assert_eq!(
            read(&text, &blocks()).0,
            some(&["(unstack a b)", "(put-down a)"]),
            "fence `{tag}`"
        );
    }
}

#[test]
fn reasoning_blocks_are_not_the_answer() {
    let text = "<think>\nIf I (pick-up a) first then (stack a b)... no: (unstack c a).\n</think>\n\
                (unstack c a)\n(put-down c)";
    let (s, r) = read(text, &blocks());
    assert_eq!(s, some(&["(unstack c a)", "(put-down c)"]));
    assert!(warned(&r, "reasoning block"));
    // DeepSeek-R1 through some APIs: the opening tag is cut, the closing one stays.
    let text = "Let me try (pick-up a).\n(stack a b)\n</think>\n\n(pick-up b)";
    assert_eq!(read(text, &blocks()).0, some(&["(pick-up b)"]));
    // Only reasoning: no plan, not the steps the model was musing over.
    let text = "<thinking>(pick-up a) (stack a b)</thinking>";
    let (s, r) = read(text, &blocks());
    assert_eq!((s, r.no_plan), (None, Some(NoPlan::Empty)));
}

#[test]
fn json_answers_in_every_shape() {
    let v = blocks();
    let list = r#"{"plan": ["(pick-up a)", "(stack a b)"]}"#;
    let bare = r#"{"plan": ["pick-up a", "stack a b"]}"#;
    let objects = r#"{"actions": [{"action": "pick-up", "args": ["a"]}, {"action": "stack", "args": ["a", "b"]}]}"#;
    let one_string = r#"{"plan": "(pick-up a)\n(stack a b)"}"#;
    let fenced = format!("Here it is:\n```json\n{list}\n```\n");
    let dollars = format!("The answer is $${objects}$$ as required.");
    for text in [list, bare, objects, one_string, &fenced, &dollars] {
        assert_eq!(
            read(text, &v).0,
            some(&["(pick-up a)", "(stack a b)"]),
            "{text}"
        );
    }
    // The last JSON answer is the answer.
    let twice = r#"Draft: {"plan": ["(pick-up b)"]} Final: {"plan": ["(pick-up a)"]}"#;
    assert_eq!(read(twice, &v).0, some(&["(pick-up a)"]));
}

#[test]
fn function_call_style() {
    let v = blocks();
    for text in [
        "1. unstack(c, a)\n2. put-down(c)",
        "- `Unstack(C,A)`\n- `Put-down(C)`",
    ] {
        let (s, _) = read(text, &v);
        let s = s.unwrap_or_else(|| panic!("no plan in {text:?}"));
        assert_eq!(s.len(), 2, "{text:?}: {s:?}");
        assert_eq!(s, ["(unstack c a)", "(put-down c)"], "{text:?}");
    }
    // `put_down` is not `put-down`: read as written.
    assert_eq!(
        read("1. unstack(c, a)\n2. put_down(c)", &v).0,
        some(&["(unstack c a)", "(put_down c)"])
    );
    // o1-preview's "Plan Summary" (PlanBench): `PutDown` is read as written; the task has
    // no such action, so the plan fails on it (VAL fails `(PutDown C)` too).
    let (s, _) = read("**Plan Summary**:\n1. `Unstack(C, A)`\n2. `PutDown(C)`", &v);
    assert_eq!(s, some(&["(unstack c a)", "(putdown c)"]));
}

#[test]
fn numbered_and_bulleted_steps_with_emphasis() {
    let v = blocks();
    let text = "**Plan:**\n\n1. **(unstack c a)** — free a\n2. *(put-down c)*\n3. `(pick-up a)`";
    assert_eq!(
        read(text, &v).0,
        some(&["(unstack c a)", "(put-down c)", "(pick-up a)"])
    );
    // PlanBench, blocksworld gpt-4 zero-shot #252: `3-` dropped the step before.
    let text = "1. (unstack a b)\n2. (put-down a)\n3- (unstack c d)\n4: (stack c a)";
    assert_eq!(
        read(text, &v).0,
        some(&[
            "(unstack a b)",
            "(put-down a)",
            "(unstack c d)",
            "(stack c a)"
        ])
    );
    let text = "- unstack c a\n- put-down c";
    assert_eq!(read(text, &v).0, some(&["(unstack c a)", "(put-down c)"]));
}

#[test]
fn a_plan_restated_in_function_call_form_is_read_once() {
    // PlanBench, mystery blocksworld: the list, then the same plan as calls.
    // Calls on lines of their own after parenthesised steps are skipped as text.
    let text = "1. (feast d b)\n2. (succumb d)\n\nAs calls:\n\nFeast(d, b)\nSuccumb(d)\n";
    let (s, r) = read(text, &mystery());
    assert_eq!(s, some(&["(feast d b)", "(succumb d)"]));
    assert!(warned(&r, "As calls"), "{:?}", r.diagnostics);
    // Two lists of calls: the plan stated twice.
    let text = "1. feast(d, b)\n2. succumb(d)\n\nOr, in capitals:\n\nFeast(d, b)\nSuccumb(d)\n";
    let (s, r) = read(text, &mystery());
    assert_eq!(s, some(&["(feast d b)", "(succumb d)"]));
    assert!(warned(&r, "states the plan 2 times"), "{:?}", r.diagnostics);
    // The same steps after a label on a line of their own: the plan restated, read once.
    let text = "1. (feast d b)\n2. (succumb d)\n\nIn short: Feast(d, b), Succumb(d).";
    let (s, r) = read(text, &mystery());
    assert_eq!(s, some(&["(feast d b)", "(succumb d)"]));
    assert!(warned(&r, "states the plan 2 times"), "{:?}", r.diagnostics);
}

#[test]
fn a_plan_stated_twice_is_read_once_with_a_warning_naming_the_lines() {
    // PlanBench blocksworld gpt-4 zero-shot #156 (PlanBench reads 16 steps: invalid; VAL
    // calls the 8 stated valid).
    let text = "Based on the domain:\n\n1. (unstack a d)\n2. (put-down a)\n\n\
                To represent the plan in PDDL syntax:\n\n(unstack a d)\n(put-down a)\n";
    let (s, r) = read(text, &blocks());
    assert_eq!(s, some(&["(unstack a d)", "(put-down a)"]));
    let w = r
        .diagnostics
        .iter()
        .find(|d| d.message.contains("states the plan 2 times"))
        .expect("a warning");
    assert_eq!(w.code, Code::AmbiguousReply);
    assert!(w.message.contains("lines 8–9"), "{}", w.message);
}

#[test]
fn two_different_plans_are_both_read_unless_a_final_answer_is_marked() {
    let v = blocks();
    // No mark: the last statement is read, with a warning naming both.
    let text = "(pick-up a)\n\nOr better:\n\n(pick-up b)";
    let (s, r) = read(text, &v);
    assert_eq!(s, some(&["(pick-up b)"]));
    assert!(
        warned(
            &r,
            "2 different plans, at line 1 and line 5; line 5 is read: the last"
        ),
        "{:?}",
        r.diagnostics
    );
    let text = "Draft:\n(pick-up a)\n(stack a c)\n\nFinal plan:\n(pick-up b)\n(stack b c)";
    let (s, r) = read(text, &v);
    assert_eq!(s, some(&["(pick-up b)", "(stack b c)"]));
    assert!(
        warned(&r, "lines 6–7 is read: the one marked as the final answer"),
        "{:?}",
        r.diagnostics
    );
    // PlanBench mystery blocksworld gpt-4 #246: steps quoted in an analysis, then
    // "So, the plan is:" and the plan.
    let text = "The applicable operators are:\n1. Initial state: (pick-up a), (pick-up b)\n\
                \nSo, the plan is:\n\n1. (pick-up b)\n2. (stack b c)";
    assert_eq!(read(text, &v).0, some(&["(pick-up b)", "(stack b c)"]));
}

#[test]
fn facts_in_prose_and_blocks_of_facts_are_not_steps() {
    let v = blocks();
    // Facts quoted in a sentence are prose; a block of facts is not the plan.
    let text = "Initially (on a b) and (clear a) hold.\nState:\n(on a b)\n(clear a)\n\nPlan:\n\
                (unstack a b)\n(put-down a)";
    let (s, r) = read(text, &v);
    assert_eq!(s, some(&["(unstack a b)", "(put-down a)"]));
    assert!(warned(&r, "a block of facts"), "{:?}", r.diagnostics);
    // A fact written among the steps of the plan is one of its steps: it fails there.
    let text = "Plan:\n(on a b)\n(unstack a b)\n(put-down a)";
    assert_eq!(
        read(text, &v).0,
        some(&["(on a b)", "(unstack a b)", "(put-down a)"])
    );
}

#[test]
fn a_hallucinated_action_in_the_step_list_stays_a_step() {
    // PlanBench reads `(pickle-up a)` away; the plan must fail on it, not pass without it.
    let text = "1. (unstack c a)\n2. (put-down c)\n3. (pickle-up a)\n4. (stack a b)";
    assert_eq!(
        read(text, &blocks()).0,
        some(&[
            "(unstack c a)",
            "(put-down c)",
            "(pickle-up a)",
            "(stack a b)"
        ])
    );
    // Alone, a step-shaped line over the task's objects is still a step.
    let text = "(teleport a b)";
    assert_eq!(read(text, &blocks()).0, some(&["(teleport a b)"]));
    // Written as PDDL, `(putdown a)` names an action the domain lacks (as VAL reads it);
    // PlanBench drops such a step, we keep it.
    let (s, _) = read("(pick-up a)\n(putdown a)", &blocks());
    assert_eq!(s, some(&["(pick-up a)", "(putdown a)"]));
    // In function-call style the spelling is the model's own too: `PickUp(a)` is the
    // action `PickUp`, which blocksworld lacks (VAL reads `(PickUp a)` so); never respelled.
    let (s, r) = read("1. PickUp(a)\n2. pickle_up(b)", &blocks());
    assert_eq!(s, some(&["(pickup a)", "(pickle_up b)"]));
    assert!(r.diagnostics.iter().all(|d| d.code != Code::MalformedStep));
}

#[test]
fn a_step_with_broken_parentheses_in_the_step_list_is_a_step_that_fails() {
    // PlanBench logistics gpt-4 #87 and #88: dropped, the plan would lose a step; repaired,
    // it would pass where VAL, given the plan as written, fails.
    let v = Vocabulary::new(
        ["load-truck", "unload-truck", "drive-truck"],
        ["at", "in"],
        ["p3", "t1", "t2", "l1-0", "l1-1", "l2-0", "l2-1", "c1", "c2"],
    );
    let text = "(load-truck p3 t1 l1-1)\nUnload-truck p3 t1 l1-0)\n(drive-truck t2(l2-0 l2-1 c2)\n\
                (load-truck p3 t2 l2-1)";
    let (s, r) = read(text, &v);
    assert_eq!(
        s,
        some(&[
            "(load-truck p3 t1 l1-1)",
            "(unload-truck p3 t1 l1-0))",
            "((drive-truck t2(l2-0 l2-1 c2))",
            "(load-truck p3 t2 l2-1)"
        ])
    );
    assert_eq!(
        r.diagnostics
            .iter()
            .filter(|d| d.code == Code::MalformedStep)
            .count(),
        2,
        "{:?}",
        r.diagnostics
    );
    // The last step cut off by the output limit (PlanBench sokoban llama #25, held out).
    let text = "(load-truck p3 t1 l1-1)\n(drive-truck t2 l2-0 l2-1 c2";
    assert_eq!(
        read(text, &v).0,
        some(&["(load-truck p3 t1 l1-1)", "((drive-truck t2 l2-0 l2-1 c2)"])
    );
    // Prose between steps stays prose, even with an action's name in it.
    let text = "(load-truck p3 t1 l1-1)\nThen unload it (carefully).\n(load-truck p3 t2 l2-1)";
    assert_eq!(read(text, &v).0.map(|s| s.len()), Some(2));
}

#[test]
fn prose_steps_and_prose_in_parentheses_are_no_plan() {
    let v = blocks();
    for text in [
        "1. Unstack block C from block D\n2. Put down block C",
        "(No plan exists for this one, sorry about that)",
        "First free the red block, then stack it on the blue one.",
    ] {
        let (s, r) = read(text, &v);
        assert_eq!(s, None, "{text}");
        assert!(r.no_plan.is_some(), "{text}");
    }
}

#[test]
fn refusals_empty_replies_and_unsolvability_claims_are_told_apart() {
    let v = blocks();
    let cases = [
        (
            "I'm sorry, but I can't help with planning this task.",
            NoPlan::Refusal,
        ),
        ("", NoPlan::Empty),
        ("   \n\t ", NoPlan::Empty),
        ("(No plan possible)", NoPlan::ClaimsUnsolvable),
        (
            "The goal is impossible to achieve from this state.",
            NoPlan::ClaimsUnsolvable,
        ),
        (
            "The robot should be careful around the stove.",
            NoPlan::Unreadable,
        ),
    ];
    for (text, why) in cases {
        let r = read_reply(text, Some(&v));
        assert_eq!((r.plan.is_none(), r.no_plan), (true, Some(why)), "{text:?}");
    }
}

#[test]
fn saying_nothing_is_left_to_do_states_the_empty_plan() {
    // PlanBench replanning (gpt-4): valid wherever the goal holds.
    for text in [
        "No further actions are needed as the goal has been achieved.",
        "[PLAN]\n[PLAN END]",
        "The goal is already satisfied in the initial state, so the plan is empty.",
    ] {
        let r = read_reply(text, Some(&blocks()));
        assert_eq!(steps(&r), some(&[]), "{text}");
        assert!(r.stated_empty, "{text}");
    }
}

#[test]
fn without_a_vocabulary_the_shape_decides() {
    let r = read_reply("(plan\n (pick-up a)\n (stack a b))", None);
    assert_eq!(steps(&r), some(&["(pick-up a)", "(stack a b)"]));
    let r = read_reply("I'm sorry, I cannot help with that.", None);
    assert_eq!(r.no_plan, Some(NoPlan::Refusal));
}

#[test]
fn spans_point_into_the_reply() {
    let text = "<think>hmm</think>\n```\n(pick-up a)\n```";
    let r = read_reply(text, Some(&blocks()));
    let plan = r.plan.expect("a plan");
    assert_eq!(&text[plan.steps[0].span.range()], "(pick-up a)");
}

/// Found by the C API's fuzz harness: a timed line whose text before the step is
/// `2.010:effect:` is a labelled note for the reader (its label's last `:`), and the coverage
/// check took the label to end at the first `:` and called the step dropped (a panic in
/// debug builds, an `internal-panic` error through C). The step is skipped with a warning.
#[test]
fn a_note_label_after_a_timestamp_is_the_readers_label_in_the_coverage_check() {
    let text = "0.000: (pick-up tea kitchen) [2.000]\n2.010:effect: (carry tea kitchen hallway) [4.000]\n6.020: (carry tea hallway office) [3.000]\n";
    let r = read_reply(text, None);
    assert_eq!(
        steps(&r),
        some(&["(pick-up tea kitchen)", "(carry tea hallway office)"])
    );
    assert!(warned(&r, "2.010:effect: (carry tea kitchen hallway"));
}
