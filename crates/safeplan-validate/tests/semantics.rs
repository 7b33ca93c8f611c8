//! Hand-written cases, one per corner of SEMANTICS.md §2 (sequential plan semantics, as VAL
//! executes plans). Each case writes a tiny domain, problem and plan inline and checks the
//! verdict worked out by hand: valid or not, the failure kind and step, the metric, the exact
//! text of every unmet literal, and where it matters the final state.

use safeplan_pddl::{Plan, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{
    CompileOptions, Failure, FailureKind, Monitor, Task, TaskError, ValidateOptions, Verdict,
    Warning,
};

// ===== helpers ============================================================================

/// Parse (no diagnostics allowed) and compile with `options`.
fn compile_with(domain: &str, problem: &str, options: &CompileOptions) -> Task {
    let d = parse_domain(domain);
    assert!(d.diagnostics.is_empty(), "domain: {:?}", d.diagnostics);
    let p = parse_problem(problem);
    assert!(p.diagnostics.is_empty(), "problem: {:?}", p.diagnostics);
    Task::compile_with(
        &d.value.expect("a domain"),
        &p.value.expect("a problem"),
        options,
    )
    .unwrap_or_else(|e| panic!("compile: {e} ({e:?})"))
}

fn compile(domain: &str, problem: &str) -> Task {
    compile_with(domain, problem, &CompileOptions::default())
}

/// Parse a plan (no diagnostics allowed).
fn plan(text: &str) -> Plan {
    let p = parse_plan(text);
    assert!(
        p.diagnostics.is_empty(),
        "plan {text:?}: {:?}",
        p.diagnostics
    );
    p.value.expect("a plan")
}

/// Validate `plan_text` against `task`, keeping the final state.
fn run(task: &Task, plan_text: &str) -> Verdict {
    let options = ValidateOptions {
        keep_final_state: true,
        ..Default::default()
    };
    task.validate_with(&plan(plan_text), &options)
}

/// Parse, compile with default options and validate (final state kept).
fn verdict(domain: &str, problem: &str, plan_text: &str) -> Verdict {
    run(&compile(domain, problem), plan_text)
}

/// The first failure, asserting the plan is invalid with this kind at this step.
fn failure(v: &Verdict, kind: FailureKind, step: Option<usize>) -> &Failure {
    assert!(!v.valid, "expected a failure, got {v:#?}");
    let f = v.failure.as_ref().expect("a failure");
    assert_eq!((f.kind, f.step), (kind, step), "{f:#?}");
    f
}

/// The texts of the unmet literals of the first failure.
fn unmet(v: &Verdict) -> Vec<&str> {
    v.failure
        .as_ref()
        .map(|f| f.unmet.iter().map(|u| u.literal.as_str()).collect())
        .unwrap_or_default()
}

/// The true atoms of the final state.
fn atoms(v: &Verdict) -> Vec<&str> {
    let state = v.final_state.as_ref().expect("keep_final_state");
    state.atoms.iter().map(String::as_str).collect()
}

/// The value of a fluent in the final state (`None`: undefined).
fn fluent(v: &Verdict, name: &str) -> Option<f64> {
    let state = v.final_state.as_ref().expect("keep_final_state");
    state
        .fluents
        .iter()
        .find(|(f, _)| f == name)
        .map(|&(_, x)| x)
}

fn assert_valid(v: &Verdict) {
    assert!(v.valid, "expected a valid plan, got {:#?}", v.failure);
}

// ===== add and delete ======================================================================

const TOGGLE_DOMAIN: &str = "(define (domain toggle) (:requirements :strips)
  (:predicates (p ?x) (q ?x))
  (:action reset :parameters (?x) :precondition (q ?x)
     :effect (and (not (p ?x)) (p ?x)))
  (:action reset-reversed :parameters (?x) :precondition (q ?x)
     :effect (and (p ?x) (not (p ?x)))))";

#[test]
fn an_atom_deleted_and_added_by_one_step_ends_true() {
    let problem = "(define (problem t) (:domain toggle) (:objects a b)
      (:init (q a) (q b) (p a)) (:goal (and (p a) (p b))))";
    let task = compile(TOGGLE_DOMAIN, problem);
    // (p a) was true, (p b) false: both end true, whatever order the effect lists them in.
    for text in [
        "(reset a) (reset b)",
        "(reset-reversed a) (reset-reversed b)",
    ] {
        let v = run(&task, text);
        assert_valid(&v);
        assert_eq!(atoms(&v), ["(p a)", "(p b)", "(q a)", "(q b)"], "{text}");
    }
}

const WHENS_DOMAIN: &str = "(define (domain whens)
  (:requirements :strips :conditional-effects :negative-preconditions)
  (:predicates (p) (c1) (c2) (done) (q) (fired) (wrong) (saw-q) (armed) (safe) (ran))
  (:action del-then-add :parameters ()
     :effect (and (done) (when (c1) (not (p))) (when (c2) (p))))
  (:action add-then-del :parameters ()
     :effect (and (done) (when (c2) (p)) (when (c1) (not (p)))))
  (:action consume :parameters ()
     :effect (and (not (p)) (q)
                  (when (p) (fired))
                  (when (not (p)) (wrong))
                  (when (q) (saw-q))))
  (:action maybe :parameters ()
     :effect (and (ran) (when (armed) (not (safe))) (when (armed) (done)))))";

#[test]
fn two_firing_whens_adding_and_deleting_one_atom_add_wins() {
    for init_p in ["", "(p)"] {
        let problem =
            format!("(define (problem w) (:domain whens) (:init (c1) (c2) {init_p}) (:goal (p)))");
        let task = compile(WHENS_DOMAIN, &problem);
        for text in ["(del-then-add)", "(add-then-del)"] {
            let v = run(&task, text);
            assert_valid(&v);
            assert_eq!(
                atoms(&v),
                ["(c1)", "(c2)", "(done)", "(p)"],
                "{init_p} {text}"
            );
        }
    }
}

#[test]
fn when_conditions_read_the_state_before_the_step() {
    // consume deletes (p) and adds (q): `(when (p) ..)` still fires, `(when (not (p)) ..)`
    // and `(when (q) ..)` do not, since they read the state before the step.
    let problem = "(define (problem w) (:domain whens) (:init (p))
      (:goal (and (fired) (q) (not (p)))))";
    let task = compile(WHENS_DOMAIN, problem);
    let v = run(&task, "(consume)");
    assert_valid(&v);
    assert_eq!(atoms(&v), ["(fired)", "(q)"]);
    // A second consume starts from (q), not (p): the other two fire.
    let v = run(&task, "(consume) (consume)");
    assert_valid(&v);
    assert_eq!(atoms(&v), ["(fired)", "(q)", "(saw-q)", "(wrong)"]);
}

#[test]
fn a_when_whose_condition_is_false_does_nothing() {
    let problem = "(define (problem w) (:domain whens) (:init (safe)) (:goal (ran)))";
    let v = verdict(WHENS_DOMAIN, problem, "(maybe)");
    assert_valid(&v);
    assert_eq!(atoms(&v), ["(ran)", "(safe)"]);
    // With the condition true, both conditional effects apply.
    let problem = "(define (problem w) (:domain whens) (:init (safe) (armed)) (:goal (ran)))";
    let v = verdict(WHENS_DOMAIN, problem, "(maybe)");
    assert_valid(&v);
    assert_eq!(atoms(&v), ["(armed)", "(done)", "(ran)"]);
}

// ===== forall effects ======================================================================

const LIGHTS_DOMAIN: &str = "(define (domain lights)
  (:requirements :typing :adl)
  (:types room switch - object kitchen - room)
  (:constants hall - room)
  (:predicates (marked ?x) (lit ?r - room) (power) (dirty ?r - room) (clean ?r - room))
  (:action mark-rooms :parameters ()
     :effect (forall (?r - room) (marked ?r)))
  (:action power-on :parameters () :effect (power))
  (:action sweep :parameters ()
     :effect (and (when (power) (forall (?r - room) (lit ?r)))
                  (forall (?r - room) (when (dirty ?r) (and (clean ?r) (not (dirty ?r)))))))
  (:action flip :parameters ()
     :effect (forall (?r - room) (and (when (lit ?r) (not (lit ?r)))
                                      (when (not (lit ?r)) (lit ?r))))))";

const LIGHTS_PROBLEM: &str = "(define (problem l) (:domain lights)
  (:objects r1 - room k1 - kitchen s1 - switch)
  (:init (dirty hall) (dirty k1))
  (:goal (marked hall)))";

#[test]
fn forall_effects_range_over_typed_objects_subtypes_and_constants() {
    // rooms: the constant hall, r1, and k1 (a kitchen is a room); not the switch s1.
    let v = verdict(LIGHTS_DOMAIN, LIGHTS_PROBLEM, "(mark-rooms)");
    assert_valid(&v);
    assert_eq!(
        atoms(&v),
        [
            "(dirty hall)",
            "(dirty k1)",
            "(marked hall)",
            "(marked k1)",
            "(marked r1)"
        ]
    );
}

#[test]
fn forall_inside_when_and_when_inside_forall() {
    let task = compile(LIGHTS_DOMAIN, LIGHTS_PROBLEM);
    // No power: the forall inside the when does nothing; the when inside the forall cleans
    // exactly the dirty rooms.
    let v = run(&task, "(mark-rooms) (sweep)");
    assert_valid(&v);
    assert_eq!(
        atoms(&v),
        [
            "(clean hall)",
            "(clean k1)",
            "(marked hall)",
            "(marked k1)",
            "(marked r1)"
        ]
    );
    let v = run(&task, "(mark-rooms) (power-on) (sweep)");
    assert_valid(&v);
    let lit: Vec<&str> = atoms(&v)
        .into_iter()
        .filter(|a| a.starts_with("(lit"))
        .collect();
    assert_eq!(lit, ["(lit hall)", "(lit k1)", "(lit r1)"]);
    // flip reads every (lit ?r) before the step: all lit rooms go dark and the others light
    // up, in one step.
    let v = run(&task, "(mark-rooms) (power-on) (sweep) (flip)");
    assert_valid(&v);
    assert!(!atoms(&v).iter().any(|a| a.starts_with("(lit")));
    let v = run(&task, "(mark-rooms) (flip) (flip) (flip)");
    assert_valid(&v);
    let lit: Vec<&str> = atoms(&v)
        .into_iter()
        .filter(|a| a.starts_with("(lit"))
        .collect();
    assert_eq!(lit, ["(lit hall)", "(lit k1)", "(lit r1)"]);
}

// ===== quantified and other preconditions ===================================================

const FLEET_DOMAIN: &str = "(define (domain fleet)
  (:requirements :adl)
  (:types vehicle place ghost - object car truck - vehicle)
  (:constants depot - place)
  (:predicates (ready ?v - vehicle) (fueled ?v - vehicle) (open ?p - place)
               (haunted ?g - ghost) (locked ?p - place) (has-key) (go))
  (:action any-ready :parameters () :precondition (exists (?v - vehicle) (ready ?v)) :effect (go))
  (:action all-fueled :parameters () :precondition (forall (?v - vehicle) (fueled ?v)) :effect (go))
  (:action any-truck-fueled :parameters ()
     :precondition (exists (?t - truck) (fueled ?t)) :effect (go))
  (:action some-open :parameters () :precondition (exists (?p - place) (open ?p)) :effect (go))
  (:action all-open :parameters () :precondition (forall (?p - place) (open ?p)) :effect (go))
  (:action all-ghosts-haunt :parameters ()
     :precondition (forall (?g - ghost) (haunted ?g)) :effect (go))
  (:action some-ghost-haunts :parameters ()
     :precondition (exists (?g - ghost) (haunted ?g)) :effect (go))
  (:action enter :parameters (?p - place) :precondition (imply (locked ?p) (has-key)) :effect (go))
  (:action ready-or-fueled :parameters (?v - vehicle)
     :precondition (or (ready ?v) (fueled ?v)) :effect (go))
  (:action same :parameters (?a ?b - vehicle) :precondition (= ?a ?b) :effect (go))
  (:action differ :parameters (?a ?b - vehicle) :precondition (not (= ?a ?b)) :effect (go))
  (:action idle :parameters (?v - vehicle) :precondition (not (ready ?v)) :effect (go)))";

// Objects in id order: depot (constant), c1, c2, t1, market.
const FLEET_PROBLEM: &str = "(define (problem f) (:domain fleet)
  (:objects c1 c2 - car t1 - truck market - place)
  (:init (ready t1) (fueled c1) (open depot) (locked market))
  (:goal (go)))";

fn fleet() -> Task {
    compile(FLEET_DOMAIN, FLEET_PROBLEM)
}

/// Bindings of the first unmet literal, as `?var=obj`.
fn bindings(v: &Verdict) -> Vec<String> {
    v.failure.as_ref().expect("a failure").unmet[0]
        .bindings
        .iter()
        .map(|b| format!("{}={}", b.variable, b.object))
        .collect()
}

#[test]
fn quantifiers_over_a_type_range_over_its_subtypes() {
    let task = fleet();
    // (ready t1): t1 is a truck, a subtype of vehicle.
    assert_valid(&run(&task, "(any-ready)"));
    // c1 is fueled, c2 is not: the counterexample is the first vehicle that fails.
    let v = run(&task, "(all-fueled)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(fueled c2)"]);
    assert_eq!(bindings(&v), ["?v=c2"]);
    // Only t1 is a truck, and it is not fueled; the cars do not count.
    let v = run(&task, "(any-truck-fueled)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(exists (?t - truck) (fueled ?t))"]);
}

#[test]
fn quantifiers_range_over_domain_constants() {
    let task = fleet();
    // Only the constant depot is open.
    assert_valid(&run(&task, "(some-open)"));
    let v = run(&task, "(all-open)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(open market)"]);
    assert_eq!(bindings(&v), ["?p=market"]);
}

#[test]
fn quantifiers_over_an_empty_type() {
    let task = fleet();
    // No object is a ghost: forall is vacuously true, exists false.
    assert_valid(&run(&task, "(all-ghosts-haunt)"));
    let v = run(&task, "(some-ghost-haunts)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(exists (?g - ghost) (haunted ?g))"]);
}

#[test]
fn the_advice_for_a_false_exists_names_its_variables() {
    let task = fleet();
    let v = run(&task, "(some-ghost-haunts)");
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(
        f.advice,
        ["make (haunted ?g) true for at least one choice of the variables before step 1"]
    );
    let v = run(&task, "(any-truck-fueled)");
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(
        f.advice,
        ["make (fueled ?t) true for at least one choice of the variables before step 1"]
    );
}

#[test]
fn imply_and_or_preconditions() {
    let task = fleet();
    // depot is not locked: the implication holds whatever (has-key) is.
    assert_valid(&run(&task, "(enter depot)"));
    // market is locked and there is no key: the consequent is what is missing.
    let v = run(&task, "(enter market)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(has-key)"]);
    // c1 is fueled, t1 ready; c2 neither.
    assert_valid(&run(&task, "(ready-or-fueled c1)"));
    assert_valid(&run(&task, "(ready-or-fueled t1)"));
    let v = run(&task, "(ready-or-fueled c2)");
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(or (ready c2) (fueled c2))"]);
    assert_eq!(
        f.advice,
        ["make one of (ready c2), (fueled c2) true before step 1"]
    );
}

#[test]
fn equality_and_inequality_of_parameters() {
    let task = fleet();
    assert_valid(&run(&task, "(same c1 c1)"));
    let v = run(&task, "(same c1 t1)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(= c1 t1)"]);
    assert_valid(&run(&task, "(differ c1 t1)"));
    let v = run(&task, "(differ c2 c2)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(not (= c2 c2))"]);
    // Names are case-insensitive, so these are the same object.
    let v = run(&task, "(differ C1 c1)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(not (= c1 c1))"]);
}

#[test]
fn negative_preconditions_under_the_closed_world() {
    let task = fleet();
    // (ready c1) is not in the initial state, so it is false.
    assert_valid(&run(&task, "(idle c1)"));
    let v = run(&task, "(idle t1)");
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(not (ready t1))"]);
    // No action changes (ready ?v): the advice says to pick other objects.
    assert_eq!(
        f.advice,
        [
            "(ready t1) is a fixed fact of the problem that no action changes: use objects for which it is false"
        ]
    );
}

// ===== numbers =============================================================================

/// Validate the one-step plan `(test)` whose precondition is `pre`, with `(f)` set to
/// `f`, under the given comparison slack.
fn compare_holds(pre: &str, f: f64, slack: f64) -> bool {
    let domain = format!(
        "(define (domain cmp) (:requirements :numeric-fluents) (:predicates (done))
           (:functions (f))
           (:action test :parameters () :precondition {pre} :effect (done)))"
    );
    let problem = format!("(define (problem c) (:domain cmp) (:init (= (f) {f})) (:goal (done)))");
    let options = CompileOptions {
        numeric_slack: slack,
        ..Default::default()
    };
    let task = compile_with(&domain, &problem, &options);
    let v = run(&task, "(test)");
    if !v.valid {
        let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
        assert_eq!(f.unmet.len(), 1);
        assert_eq!(f.unmet[0].literal, pre);
    }
    v.valid
}

#[test]
fn numeric_comparisons_allow_vals_slack_of_0_0001() {
    // (precondition, value of f, holds with the default slack, holds with slack 0)
    let cases: &[(&str, f64, bool, bool)] = &[
        ("(= (f) 1)", 1.0, true, true),
        ("(= (f) 1)", 1.00005, true, false),
        ("(= (f) 1)", 0.99995, true, false),
        ("(= (f) 1)", 1.0002, false, false),
        ("(= (f) 1)", 0.9998, false, false),
        ("(> (f) 0)", 0.0, true, false),
        ("(> (f) 0)", 0.5, true, true),
        ("(> (f) 1)", 0.99995, true, false),
        ("(> (f) 1)", 0.9998, false, false),
        ("(>= (f) 1)", 1.0, true, true),
        ("(>= (f) 1)", 0.99995, true, false),
        ("(>= (f) 1)", 0.9998, false, false),
        ("(< (f) 1)", 0.5, true, true),
        ("(< (f) 1)", 1.0, true, false),
        ("(< (f) 1)", 1.00005, true, false),
        ("(< (f) 1)", 1.0002, false, false),
        ("(<= (f) 1)", 1.0, true, true),
        ("(<= (f) 1)", 1.00005, true, false),
        ("(<= (f) 1)", 1.0002, false, false),
    ];
    for &(pre, f, slack, exact) in cases {
        assert_eq!(compare_holds(pre, f, 1e-4), slack, "{pre} with f = {f}");
        assert_eq!(
            compare_holds(pre, f, 0.0),
            exact,
            "{pre} with f = {f}, exact"
        );
    }
}

#[test]
fn a_failed_comparison_reports_the_values_it_read() {
    let v = verdict(
        "(define (domain cmp) (:requirements :numeric-fluents) (:predicates (done))
           (:functions (f) (g))
           (:action test :parameters () :precondition (= (f) (+ (g) 1)) :effect (done)))",
        "(define (problem c) (:domain cmp) (:init (= (f) 1.0002) (= (g) 0)) (:goal (done)))",
        "(test)",
    );
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    let u = &f.unmet[0];
    assert_eq!(u.literal, "(= (f) (+ (g) 1))");
    let values: Vec<(&str, Option<f64>)> = u
        .values
        .iter()
        .map(|x| (x.fluent.as_str(), x.value))
        .collect();
    assert_eq!(values, [("(f)", Some(1.0002)), ("(g)", Some(0.0))]);
    assert_eq!(
        u.advice,
        "make (= (f) (+ (g) 1)) true before step 1; now (f) is 1.0002, (g) is 0 \
         (equality allows a difference below 0.0001)"
    );
}

const NUM_DOMAIN: &str = "(define (domain num)
  (:requirements :numeric-fluents)
  (:predicates (done))
  (:functions (a) (b) (c) (z) (u) (w))
  (:action noop :parameters () :effect (done))
  (:action swap :parameters () :effect (and (assign (a) (b)) (assign (b) (a))))
  (:action double :parameters () :effect (and (increase (a) (a)) (assign (b) (a))))
  (:action add-up :parameters ()
     :effect (and (increase (c) 2) (increase (c) 3) (decrease (c) 0.5)))
  (:action assign-and-increase :parameters () :effect (and (assign (c) 10) (increase (c) 1)))
  (:action two-assigns :parameters () :effect (and (assign (c) 1) (assign (c) 2)))
  (:action divide :parameters () :effect (and (assign (c) (/ (a) (z)))))
  (:action divide-in-pre :parameters () :precondition (> (/ (a) (z)) 0) :effect (done))
  (:action read-undefined :parameters () :precondition (>= (u) 0) :effect (done))
  (:action assign-undefined :parameters () :effect (and (assign (c) (+ (u) 1))))
  (:action bump-undefined :parameters () :effect (and (increase (w) 5)))
  (:action scale :parameters () :effect (and (scale-up (a) 3) (scale-down (b) 4)))
  (:action scale-by-zero :parameters () :effect (and (scale-down (a) (z)))))";

/// a = 1, b = 2, c = 1, z = 0; u and w undefined.
const NUM_PROBLEM: &str = "(define (problem n) (:domain num)
  (:init (= (a) 1) (= (b) 2) (= (c) 1) (= (z) 0))
  (:goal (>= (a) 0)))";

fn num() -> Task {
    compile(NUM_DOMAIN, NUM_PROBLEM)
}

#[test]
fn numeric_effects_read_the_state_before_the_step() {
    let task = num();
    let v = run(&task, "(swap)");
    assert_valid(&v);
    assert_eq!(
        (fluent(&v, "(a)"), fluent(&v, "(b)")),
        (Some(2.0), Some(1.0))
    );
    let v = run(&task, "(swap) (swap)");
    assert_eq!(
        (fluent(&v, "(a)"), fluent(&v, "(b)")),
        (Some(1.0), Some(2.0))
    );
    // (increase (a) (a)) doubles a; (assign (b) (a)) copies the old a.
    let v = run(&task, "(double) (double)");
    assert_valid(&v);
    assert_eq!(
        (fluent(&v, "(a)"), fluent(&v, "(b)")),
        (Some(4.0), Some(2.0))
    );
}

#[test]
fn several_increases_of_one_fluent_in_one_step_add_up() {
    let v = run(&num(), "(add-up)");
    assert_valid(&v);
    assert_eq!(fluent(&v, "(c)"), Some(1.0 + 2.0 + 3.0 - 0.5));
}

#[test]
fn assign_with_another_update_of_the_same_fluent_is_a_numeric_error() {
    let task = num();
    let v = run(&task, "(noop) (assign-and-increase)");
    let f = failure(&v, FailureKind::NumericError, Some(2));
    assert_eq!(f.action.as_deref(), Some("(assign-and-increase)"));
    assert_eq!(
        f.message,
        "(c) is updated twice in one step in ways that do not commute (an assign together with another update)"
    );
    let v = run(&task, "(two-assigns)");
    failure(&v, FailureKind::NumericError, Some(1));
    // The step that failed changed nothing.
    assert_eq!(fluent(&v, "(c)"), Some(1.0));
}

#[test]
fn division_by_zero_is_a_numeric_error_at_its_step() {
    let task = num();
    let v = run(&task, "(noop) (divide)");
    let f = failure(&v, FailureKind::NumericError, Some(2));
    assert_eq!(f.message, "division by zero");
    let v = run(&task, "(noop) (noop) (divide-in-pre)");
    let f = failure(&v, FailureKind::NumericError, Some(3));
    assert_eq!(f.message, "division by zero");
    let v = run(&task, "(scale-by-zero)");
    failure(&v, FailureKind::NumericError, Some(1));
}

#[test]
fn reading_an_undefined_fluent_is_a_numeric_error_at_its_step() {
    let task = num();
    let v = run(&task, "(noop) (read-undefined)");
    let f = failure(&v, FailureKind::NumericError, Some(2));
    assert_eq!(f.message, "(u) is read but has no value");
    assert_eq!(f.action.as_deref(), Some("(read-undefined)"));
    assert_eq!(
        f.advice,
        ["give (u) a value in the problem's :init, e.g. (= (u) 0)"]
    );
    // In the right-hand side of an effect too.
    let v = run(&task, "(assign-undefined)");
    let f = failure(&v, FailureKind::NumericError, Some(1));
    assert_eq!(f.message, "(u) is read but has no value");
}

#[test]
fn increase_of_an_undefined_fluent_counts_from_zero_with_a_warning() {
    let v = run(&num(), "(noop) (bump-undefined) (bump-undefined)");
    assert_valid(&v);
    // The first increase finds (w) undefined and warns; the second one adds to 5.
    assert_eq!(fluent(&v, "(w)"), Some(10.0));
    assert_eq!(
        v.warnings,
        [Warning {
            step: Some(2),
            message: "(w) had no value; `increase`/`decrease` treated it as 0 (as VAL does)".into()
        }]
    );
    let v = run(&num(), "(bump-undefined)");
    assert_eq!(fluent(&v, "(w)"), Some(5.0));
}

#[test]
fn increases_inside_a_forall_add_up() {
    let v = verdict(
        "(define (domain load) (:requirements :typing :numeric-fluents :conditional-effects)
           (:types box)
           (:predicates (loaded ?b - box) (heavy ?b - box))
           (:functions (weight ?b - box) (total) (count))
           (:action load-all :parameters ()
              :effect (forall (?b - box) (and (loaded ?b) (increase (total) (weight ?b))
                                              (when (heavy ?b) (increase (count) 1))))))",
        "(define (problem l) (:domain load) (:objects b1 b2 b3 - box)
           (:init (heavy b2) (heavy b3) (= (weight b1) 1.5) (= (weight b2) 2) (= (weight b3) 4)
                  (= (total) 0) (= (count) 0))
           (:goal (loaded b3)))",
        "(load-all)",
    );
    assert_valid(&v);
    assert_eq!(
        (fluent(&v, "(total)"), fluent(&v, "(count)")),
        (Some(7.5), Some(2.0))
    );
}

#[test]
fn scale_up_and_scale_down() {
    let v = run(&num(), "(scale) (scale)");
    assert_valid(&v);
    assert_eq!(
        (fluent(&v, "(a)"), fluent(&v, "(b)")),
        (Some(9.0), Some(0.125))
    );
}

// ===== metric ==============================================================================

const ROADS_DOMAIN: &str = "(define (domain roads)
  (:requirements :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place))
  (:functions (total-cost) - number (dist ?a ?b - place) - number)
  (:action drive :parameters (?a ?b - place)
     :precondition (and (at ?a) (road ?a ?b))
     :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (dist ?a ?b)))))";

fn roads_problem(metric: &str) -> String {
    format!(
        "(define (problem r) (:domain roads) (:objects x y z - place)
           (:init (at x) (road x y) (road y z) (road x z)
                  (= (dist x y) 3) (= (dist y z) 4) (= (dist x z) 10) (= (total-cost) 0))
           (:goal (at z)) {metric})"
    )
}

#[test]
fn metric_total_cost_is_its_final_value() {
    let task = compile(
        ROADS_DOMAIN,
        &roads_problem("(:metric minimize (total-cost))"),
    );
    let v = run(&task, "(drive x y) (drive y z)");
    assert_valid(&v);
    assert_eq!(v.metric, Some(7.0));
    assert_eq!(v.value(), Some(7.0));
    let v = run(&task, "(drive x z)");
    assert_eq!((v.metric, v.value()), (Some(10.0), Some(10.0)));
    // A failed plan has neither.
    let v = run(&task, "(drive x y)");
    failure(&v, FailureKind::UnsatisfiedGoal, None);
    assert_eq!((v.metric, v.value()), (None, None));
}

#[test]
fn metric_expression_and_total_time() {
    let task = compile(
        ROADS_DOMAIN,
        &roads_problem("(:metric minimize (+ (* 2 (total-cost)) 1))"),
    );
    assert_eq!(run(&task, "(drive x y) (drive y z)").metric, Some(15.0));
    // (total-time) of a sequential plan is its number of steps.
    let task = compile(
        ROADS_DOMAIN,
        &roads_problem("(:metric minimize (total-time))"),
    );
    let v = run(&task, "(drive x y) (drive y z)");
    assert_eq!((v.metric, v.value()), (Some(2.0), Some(2.0)));
}

#[test]
fn a_metric_on_a_fluent_without_initial_value_counts_from_zero() {
    let problem =
        roads_problem("(:metric minimize (total-cost))").replace(" (= (total-cost) 0)", "");
    let v = run(&compile(ROADS_DOMAIN, &problem), "(drive x y) (drive y z)");
    assert_valid(&v);
    assert_eq!(v.metric, Some(7.0));
    // Only the first increase found it undefined.
    let steps: Vec<Option<usize>> = v.warnings.iter().map(|w| w.step).collect();
    assert_eq!(steps, [Some(1)]);
}

#[test]
fn without_a_metric_the_value_is_the_number_of_steps() {
    let task = compile(ROADS_DOMAIN, &roads_problem(""));
    assert!(!task.has_metric());
    let v = run(&task, "(drive x y) (drive y z)");
    assert_valid(&v);
    assert_eq!(v.metric, None);
    assert_eq!(v.value(), Some(2.0));
    assert_eq!(v.steps, 2);
}

// ===== malformed steps =====================================================================

const TYPED_DOMAIN: &str = "(define (domain typed)
  (:requirements :typing)
  (:types place vehicle - object car - vehicle)
  (:predicates (at ?v - vehicle ?p - place) (parked ?c - car))
  (:action move :parameters (?v - vehicle ?from ?to - place)
     :precondition (at ?v ?from)
     :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action park :parameters (?c - car ?p - place)
     :precondition (at ?c ?p)
     :effect (parked ?c)))";

const TYPED_PROBLEM: &str = "(define (problem t) (:domain typed)
  (:objects home work - place c1 - car v1 - vehicle)
  (:init (at c1 home) (at v1 home))
  (:goal (at c1 work)))";

fn typed() -> Task {
    compile(TYPED_DOMAIN, TYPED_PROBLEM)
}

#[test]
fn unknown_action() {
    let v = run(&typed(), "(move c1 home work) (fly c1 work)");
    let f = failure(&v, FailureKind::UnknownAction, Some(2));
    assert_eq!(f.action.as_deref(), Some("(fly c1 work)"));
    assert_eq!(f.message, "the domain has no action `fly`");
    assert_eq!(
        f.advice.last().unwrap(),
        "the domain's actions are `move`, `park`"
    );
    // The steps before it were executed.
    assert!(atoms(&v).contains(&"(at c1 work)"));
}

#[test]
fn wrong_number_of_arguments() {
    let task = typed();
    for (text, given) in [("(move c1 home)", 2), ("(move c1 home work work)", 4)] {
        let v = run(&task, text);
        let f = failure(&v, FailureKind::ArityMismatch, Some(1));
        assert_eq!(
            f.message,
            format!("`move` takes 3 arguments, the step gives {given}")
        );
        assert_eq!(
            f.advice,
            ["write it as (move ?v - vehicle ?from - place ?to - place)"]
        );
    }
}

#[test]
fn unknown_object() {
    let v = run(&typed(), "(move c1 home mars)");
    let f = failure(&v, FailureKind::UnknownObject, Some(1));
    assert_eq!(
        f.message,
        "`mars` is not an object of the problem or a constant of the domain"
    );
}

#[test]
fn unknown_object_in_an_untyped_domain_is_reported_at_its_step() {
    // VAL lets it through in untyped domains; SEMANTICS.md §2 reports it at the same step.
    let v = verdict(
        "(define (domain u) (:predicates (p ?x)) (:action a :parameters (?x) :effect (p ?x)))",
        "(define (problem u) (:domain u) (:objects o) (:init) (:goal (p o)))",
        "(a o) (a nowhere)",
    );
    failure(&v, FailureKind::UnknownObject, Some(2));
}

#[test]
fn types_subtypes_fit_supertypes_do_not() {
    let task = typed();
    // c1 is a car, and a car is a vehicle.
    assert_valid(&run(&task, "(move c1 home work)"));
    // v1 is a vehicle, not necessarily a car.
    let v = run(&task, "(park v1 home)");
    let f = failure(&v, FailureKind::TypeMismatch, Some(1));
    assert_eq!(
        f.message,
        "`v1` is of type vehicle, but parameter ?c of `park` needs car"
    );
    assert_eq!(f.advice, ["objects that fit: `c1`"]);
    let v = run(&task, "(move home home work)");
    failure(&v, FailureKind::TypeMismatch, Some(1));
}

#[test]
fn an_unknown_object_is_reported_before_an_earlier_type_mismatch() {
    // `home` does not fit ?c (first argument), `mars` does not exist (second): the unknown
    // object wins, as in VAL.
    let v = run(&typed(), "(park home mars)");
    let f = failure(&v, FailureKind::UnknownObject, Some(1));
    assert!(f.message.starts_with("`mars`"), "{}", f.message);
    // Checks come in order: action, arity, objects, types.
    let v = run(&typed(), "(park mars)");
    failure(&v, FailureKind::ArityMismatch, Some(1));
    let v = run(&typed(), "(fly mars)");
    failure(&v, FailureKind::UnknownAction, Some(1));
}

#[test]
fn names_in_plans_are_case_insensitive() {
    let task = typed();
    for text in ["(MOVE C1 HOME WORK)", "(Move c1 Home wORK)"] {
        let v = run(&task, text);
        assert_valid(&v);
        assert!(atoms(&v).contains(&"(at c1 work)"), "{text}");
    }
}

// ===== failure reports =====================================================================

const ROBOT_DOMAIN: &str = "(define (domain robot)
  (:requirements :typing :negative-preconditions :numeric-fluents :universal-preconditions)
  (:types robot room door)
  (:predicates (at ?r - robot ?p - room) (by ?d - door ?p - room) (door-open ?d - door)
               (locked ?d - door) (done))
  (:functions (battery ?r - robot))
  (:action go :parameters (?r - robot ?from ?to - room)
     :precondition (and (at ?r ?from) (>= (battery ?r) 5))
     :effect (and (not (at ?r ?from)) (at ?r ?to) (decrease (battery ?r) 5)))
  (:action lock :parameters (?r - robot ?d - door ?p - room)
     :precondition (and (at ?r ?p) (by ?d ?p) (not (door-open ?d)) (>= (battery ?r) 10))
     :effect (and (locked ?d) (decrease (battery ?r) 2)))
  (:action close-door :parameters (?d - door)
     :precondition (door-open ?d)
     :effect (not (door-open ?d)))
  (:action leave :parameters (?r - robot)
     :precondition (forall (?d - door) (locked ?d))
     :effect (done)))";

const ROBOT_PROBLEM: &str = "(define (problem rp) (:domain robot)
  (:objects r - robot hall kitchen garage - room d1 d2 - door)
  (:init (at r hall) (by d1 kitchen) (by d2 hall) (door-open d1) (= (battery r) 13))
  (:goal (and (at r kitchen) (locked d1) (locked d2) (not (door-open d1)) (>= (battery r) 1))))";

fn robot() -> Task {
    compile(ROBOT_DOMAIN, ROBOT_PROBLEM)
}

#[test]
fn an_unsatisfied_precondition_lists_every_false_literal() {
    // After (go r hall garage): r in the garage, battery 8. (by d1 kitchen) holds; the other
    // three literals of lock's precondition are false.
    let v = run(&robot(), "(go r hall garage) (lock r d1 kitchen)");
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(2));
    assert_eq!(f.action.as_deref(), Some("(lock r d1 kitchen)"));
    assert_eq!(
        unmet(&v),
        [
            "(at r kitchen)",
            "(not (door-open d1))",
            "(>= (battery r) 10)"
        ]
    );
    assert_eq!(
        f.message,
        "step 2 (lock r d1 kitchen) is not applicable: (at r kitchen), (not (door-open d1)), \
         (>= (battery r) 10) are false"
    );
    let battery = &f.unmet[2].values;
    assert_eq!(battery.len(), 1);
    assert_eq!(
        (battery[0].fluent.as_str(), battery[0].value),
        ("(battery r)", Some(8.0))
    );
    assert!(f.unmet[0].values.is_empty() && f.unmet[0].bindings.is_empty());
    assert_eq!(
        f.advice,
        [
            "set (at r kitchen) to true before step 2",
            "set (door-open d1) to false before step 2",
            "make (>= (battery r) 10) true before step 2; now (battery r) is 8",
        ]
    );
    // The advice of each literal is the failure's advice, in order.
    let per_literal: Vec<&str> = f.unmet.iter().map(|u| u.advice.as_str()).collect();
    assert_eq!(per_literal, f.advice);
}

#[test]
fn a_failed_forall_reports_its_counterexample() {
    let v = run(&robot(), "(leave r)");
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(locked d1)"]);
    assert_eq!(bindings(&v), ["?d=d1"]);
    assert_eq!(f.advice, ["set (locked d1) to true before step 1"]);
}

#[test]
fn an_unsatisfied_goal_lists_every_unmet_literal() {
    let v = run(&robot(), "");
    let f = failure(&v, FailureKind::UnsatisfiedGoal, None);
    assert_eq!(v.steps, 0);
    assert_eq!(f.action, None);
    assert_eq!(
        unmet(&v),
        [
            "(at r kitchen)",
            "(locked d1)",
            "(locked d2)",
            "(not (door-open d1))"
        ]
    );
    assert_eq!(
        f.message,
        "the plan ends without reaching the goal: (at r kitchen), (locked d1), (locked d2), \
         (not (door-open d1)) are false"
    );
    assert_eq!(
        f.advice[0],
        "set (at r kitchen) to true by the end of the plan"
    );
}

#[test]
fn keep_going_reports_every_failure_in_plan_order() {
    let task = robot();
    let text = "(go r hall garage)      ; battery 13 -> 8
                (fly r)                 ; unknown action: skipped
                (lock r d1 kitchen)     ; precondition false: applied anyway, battery 8 -> 6
                (go r garage kitchen)   ; fine: battery 6 -> 1";
    let options = ValidateOptions {
        keep_going: true,
        keep_final_state: true,
        tolerance: None,
    };
    let v = task.validate_with(&plan(text), &options);
    assert!(!v.valid);
    let kinds: Vec<(FailureKind, Option<usize>)> =
        v.failures.iter().map(|f| (f.kind, f.step)).collect();
    assert_eq!(
        kinds,
        [
            (FailureKind::UnknownAction, Some(2)),
            (FailureKind::UnsatisfiedPrecondition, Some(3)),
            (FailureKind::UnsatisfiedGoal, None),
        ]
    );
    assert_eq!(v.failure.as_ref(), Some(&v.failures[0]));
    // The forced lock made (locked d1) true; what is left of the goal:
    let goal: Vec<&str> = v.failures[2]
        .unmet
        .iter()
        .map(|u| u.literal.as_str())
        .collect();
    assert_eq!(goal, ["(locked d2)", "(not (door-open d1))"]);
    assert_eq!(fluent(&v, "(battery r)"), Some(1.0));
    assert!(atoms(&v).contains(&"(locked d1)"));
    // Without keep_going: only the first failure, and `failures` stays empty.
    let v = task.validate(&plan(text));
    failure(&v, FailureKind::UnknownAction, Some(2));
    assert!(v.failures.is_empty());
}

// ===== derived predicates ==================================================================

const TOWER_DOMAIN: &str = "(define (domain tower)
  (:requirements :adl :derived-predicates)
  (:predicates (on ?x ?y) (clear ?x) (above ?x ?y) (covered ?x) (free ?x) (painted ?x))
  (:derived (above ?x ?y) (or (on ?x ?y) (exists (?z) (and (on ?x ?z) (above ?z ?y)))))
  (:derived (covered ?x) (exists (?y) (above ?y ?x)))
  (:derived (free ?x) (not (covered ?x)))
  (:action unstack :parameters (?x ?y)
     :precondition (and (on ?x ?y) (clear ?x))
     :effect (and (not (on ?x ?y)) (clear ?y)))
  (:action paint :parameters (?x)
     :precondition (not (covered ?x))
     :effect (painted ?x))
  (:action paint-free :parameters (?x)
     :precondition (free ?x)
     :effect (painted ?x)))";

/// a on b on c on d.
const TOWER_PROBLEM: &str = "(define (problem t) (:domain tower) (:objects a b c d)
  (:init (on a b) (on b c) (on c d) (clear a))
  (:goal (and (painted c) (not (above a d)))))";

#[test]
fn a_recursive_derived_predicate_is_the_transitive_closure() {
    let task = compile(TOWER_DOMAIN, TOWER_PROBLEM);
    let init = task.initial_state();
    let above = |x: &str, y: &str| task.holds(&init, "above", &[x, y]).unwrap();
    for (x, y) in [
        ("a", "b"),
        ("a", "c"),
        ("a", "d"),
        ("b", "c"),
        ("b", "d"),
        ("c", "d"),
    ] {
        assert!(above(x, y), "(above {x} {y})");
    }
    for (x, y) in [("b", "a"), ("d", "a"), ("a", "a"), ("d", "c")] {
        assert!(!above(x, y), "(above {x} {y})");
    }
    // After (unstack a b) a is above nothing; b still above c and d.
    let (v, state) = task.execute(&plan("(unstack a b)"), &ValidateOptions::default());
    assert_eq!(v.failure.unwrap().kind, FailureKind::UnsatisfiedGoal);
    assert_eq!(task.holds(&state, "above", &["a", "d"]), Some(false));
    assert_eq!(task.holds(&state, "above", &["b", "d"]), Some(true));
    assert_eq!(task.holds(&state, "covered", &["b"]), Some(false));
}

#[test]
fn a_derived_predicate_used_negatively_by_an_action() {
    let task = compile(TOWER_DOMAIN, TOWER_PROBLEM);
    // c is covered (b is on it) until b is taken off; the goal's (not (above a d)) needs a
    // off b as well.
    let v = run(&task, "(paint c)");
    let f = failure(&v, FailureKind::UnsatisfiedPrecondition, Some(1));
    assert_eq!(unmet(&v), ["(not (covered c))"]);
    assert_eq!(f.advice, ["set (covered c) to false before step 1"]);
    let v = run(&task, "(unstack a b) (paint c)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(2));
    let v = run(&task, "(unstack a b) (unstack b c) (paint c)");
    assert_valid(&v);
    assert_valid(&run(&task, "(unstack a b) (unstack b c) (paint-free c)"));
    // Derived atoms are not listed in the final state.
    assert_eq!(
        atoms(&v),
        [
            "(clear a)",
            "(clear b)",
            "(clear c)",
            "(on c d)",
            "(painted c)"
        ]
    );
    // The goal reads the derived (above a d).
    let v = run(&task, "");
    failure(&v, FailureKind::UnsatisfiedGoal, None);
    assert_eq!(unmet(&v), ["(painted c)", "(not (above a d))"]);
}

#[test]
fn a_derived_predicate_defined_by_the_negation_of_another() {
    // (free ?x) = (not (covered ?x)): a higher stratum, computed after (covered ?x).
    let task = compile(TOWER_DOMAIN, TOWER_PROBLEM);
    let free = |state: &safeplan_validate::State| -> Vec<bool> {
        ["a", "b", "c", "d"]
            .iter()
            .map(|x| task.holds(state, "free", &[x]).unwrap())
            .collect()
    };
    assert_eq!(free(&task.initial_state()), [true, false, false, false]);
    let (_, state) = task.execute(&plan("(unstack a b)"), &ValidateOptions::default());
    assert_eq!(free(&state), [true, true, false, false]);
    let v = run(&task, "(unstack a b) (paint-free c)");
    failure(&v, FailureKind::UnsatisfiedPrecondition, Some(2));
    assert_eq!(unmet(&v), ["(free c)"]);
}

// ===== representations, batches, monitor (in their own file) ==============================

mod representations;

// ===== snapshots ===========================================================================

#[test]
fn snapshot_failed_precondition_with_numeric_and_negative_literals() {
    let v = robot().validate(&plan("(go r hall garage)\n(lock r d1 kitchen)\n"));
    insta::assert_json_snapshot!("precondition_numeric_negative", v);
}

#[test]
fn snapshot_failed_goal() {
    let v = robot().validate(&plan("(go r hall kitchen)\n"));
    insta::assert_json_snapshot!("goal_unmet", v);
}

#[test]
fn snapshot_type_mismatch() {
    let v = typed().validate(&plan("(move c1 home work)\n(park v1 home)\n"));
    insta::assert_json_snapshot!("type_mismatch", v);
}

#[test]
fn a_monitor_taken_apart_and_resumed_goes_on_where_it_was() {
    let task = robot();
    let go = task.ground("go", &["r", "hall", "kitchen"]).unwrap();
    let mut straight = Monitor::new(&task);
    straight.apply(&go).unwrap();
    let mut first = Monitor::new(&task);
    first.apply(&go).unwrap();
    let parts = first.into_parts();
    assert_eq!(parts.steps(), 1);
    let resumed = Monitor::from_parts(&task, parts);
    assert_eq!(
        task.describe_state(resumed.state()),
        task.describe_state(straight.state())
    );
    assert_eq!(resumed.steps(), straight.steps());
    // The same next action fails the same way, with the same step number.
    assert_eq!(
        resumed.check(&go).map_err(|f| (f.kind, f.step)),
        straight.check(&go).map_err(|f| (f.kind, f.step))
    );
}

/// A problem compiled `already_checked` that never passed the checker (a caller that trusts
/// a check it did not run, or ran and ignored) is refused, never laid out with a fact or goal
/// atom of the wrong arity, nor does it panic: each case is an error the checker reports, and
/// the compiler refuses it at the name.
#[test]
fn an_unchecked_problem_with_wrong_arities_or_names_is_refused_not_compiled() {
    let domain = parse_domain(
        "(define (domain d) (:requirements :fluents)
           (:predicates (p ?x) (e ?x ?y)) (:functions (f ?x))
           (:action a :parameters (?x) :precondition (p ?x) :effect (increase (f ?x) 1)))",
    )
    .value
    .expect("a domain");
    let skip = CompileOptions {
        already_checked: true,
        ..CompileOptions::default()
    };
    let cases = [
        (
            "(e o o o)",
            "(p o)",
            "`e` applied to 3 arguments (it takes 2)",
        ),
        ("(e o)", "(p o)", "`e` applied to 1 arguments (it takes 2)"),
        (
            "(p o) (= (f o o) 1)",
            "(p o)",
            "`f` applied to 2 arguments (it takes 1)",
        ),
        (
            "(p o)",
            "(e o o o o)",
            "`e` applied to 4 arguments (it takes 2)",
        ),
        (
            "(p o)",
            "(> (f) 1)",
            "`f` applied to 0 arguments (it takes 1)",
        ),
        ("(q o)", "(p o)", "the undeclared predicate `q`"),
        ("(p nobody)", "(p o)", "the unbound name `nobody`"),
        ("(= (g o) 1)", "(p o)", "the undeclared function `g`"),
    ];
    for (init, goal, expected) in cases {
        let text =
            format!("(define (problem t) (:domain d) (:objects o) (:init {init}) (:goal {goal}))");
        let problem = parse_problem(&text).value.expect("a problem");
        assert!(
            Task::compile(&domain, &problem).is_err(),
            "the checker refuses {init} / {goal}"
        );
        match Task::compile_with(&domain, &problem, &skip) {
            Err(TaskError::Unsupported { what, .. }) => {
                assert!(what.contains(expected), "{init} / {goal}: {what}")
            }
            other => panic!("{init} / {goal}: refused as {expected}, got {other:?}"),
        }
    }
}

/// `already_checked` skips only the checker: a task the checker would refuse is still
/// refused (by the compiler, where it meets the undeclared predicate), and a clean task
/// compiles to the same verdicts.
#[test]
fn an_already_checked_task_skips_the_checker_but_never_compiles_an_error() {
    let domain = parse_domain(
        "(define (domain d) (:predicates (p ?x) (q ?x))
           (:action a :parameters (?x) :precondition (p ?x) :effect (and (q ?x) (not (r ?x)))))",
    )
    .value
    .expect("a domain");
    let problem =
        parse_problem("(define (problem t) (:domain d) (:objects o) (:init (p o)) (:goal (q o)))")
            .value
            .expect("a problem");
    let skip = CompileOptions {
        already_checked: true,
        ..CompileOptions::default()
    };
    match Task::compile(&domain, &problem) {
        Err(TaskError::Invalid(diagnostics)) => {
            assert!(
                diagnostics.iter().any(|d| d.message.contains("`r`")),
                "{diagnostics:?}"
            );
        }
        other => panic!("the checker refuses the undeclared `r`: {other:?}"),
    }
    match Task::compile_with(&domain, &problem, &skip) {
        Err(TaskError::Unsupported { .. }) => {}
        other => panic!("the compiler refuses the undeclared `r`: {other:?}"),
    }
    let clean = "(define (domain d) (:predicates (p ?x) (q ?x))
       (:action a :parameters (?x) :precondition (p ?x) :effect (and (q ?x) (not (p ?x)))))";
    let problem = "(define (problem t) (:domain d) (:objects o) (:init (p o)) (:goal (q o)))";
    for options in [CompileOptions::default(), skip] {
        let task = compile_with(clean, problem, &options);
        assert!(task.validate(&plan("(a o)")).valid);
        assert!(!task.validate(&plan("(a o)\n(a o)")).valid);
    }
}
