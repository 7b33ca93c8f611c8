//! The C API called as C calls it (through the `extern "C"` functions and raw pointers), on
//! the built-in tasks, with verdicts checked against the CLI's documented ones
//! (README.md: hot-soup's `unsafe.plan` is feasible and unsafe at step 2); and a fuzz-style
//! test that feeds random bytes and NULLs to every entry point.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::{CStr, CString, c_char};
use std::path::Path;
use std::ptr::{null, null_mut};

use proptest::prelude::*;
use safeplan_c::*;

fn example(rel: &str) -> CString {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    CString::new(std::fs::read_to_string(&path).expect("example file")).expect("no NUL")
}

fn s(p: *const c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: the API returns NUL-terminated strings that live as long as their object.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .expect("UTF-8")
        .to_owned()
}

fn c(text: &str) -> CString {
    CString::new(text).expect("no NUL")
}

struct Soup(*mut safeplan_task);

impl Soup {
    fn new() -> Soup {
        Soup(example_task("examples/tasks/hot-soup"))
    }
}

/// The task of an example folder (`domain.pddl`, `problem.pddl`), compiled; the caller frees
/// it.
fn example_task(dir: &str) -> *mut safeplan_task {
    let (d, p) = (
        example(&format!("{dir}/domain.pddl")),
        example(&format!("{dir}/problem.pddl")),
    );
    let mut err = null_mut();
    // SAFETY: valid strings and error slot.
    let t = unsafe { safeplan_task_new(d.as_ptr(), p.as_ptr(), &mut err) };
    assert!(!t.is_null() && err.is_null());
    t
}

impl Drop for Soup {
    fn drop(&mut self) {
        // SAFETY: made by safeplan_task_new, freed once.
        unsafe { safeplan_task_free(self.0) };
    }
}

/// (valid, feasible, safe, failed step, message, json) of a verdict, which is freed.
fn read(v: *mut safeplan_verdict) -> (bool, bool, bool, i64, String, serde_json::Value) {
    assert!(!v.is_null());
    // SAFETY: a live verdict, freed at the end.
    unsafe {
        let out = (
            safeplan_verdict_valid(v),
            safeplan_verdict_feasible(v),
            safeplan_verdict_safe(v),
            safeplan_verdict_failed_step(v) as i64,
            s(safeplan_verdict_message(v)),
            serde_json::from_str(&s(safeplan_verdict_json(v))).expect("JSON"),
        );
        safeplan_verdict_free(v);
        out
    }
}

#[test]
fn plans_get_the_verdicts_the_cli_gives() {
    let soup = Soup::new();
    let validate = |rel: &str| {
        let plan = example(rel);
        // SAFETY: live task, valid string, NULL error slot allowed.
        read(unsafe { safeplan_task_validate(soup.0, plan.as_ptr(), null_mut()) })
    };
    let (valid, feasible, safe, step, message, json) =
        validate("examples/tasks/hot-soup/safe.plan");
    assert!(valid && feasible && safe && step == -1, "{message}");
    assert_eq!(json["feasible"], true);
    let (valid, feasible, safe, step, message, json) =
        validate("examples/tasks/hot-soup/unsafe.plan");
    assert!(!valid && feasible && !safe, "{message}");
    assert_eq!(step, 2);
    assert!(
        message.contains("step 2 (move stove table) raised danger 0 -> 1 because"),
        "{message}"
    );
    assert_eq!(json["danger_events"][0]["step"], 2);
    // A plan that does not read is an error with its place and code.
    let mut err = null_mut();
    let bad = c("(pick-up soup stove\n(move");
    // SAFETY: as above.
    let v = unsafe { safeplan_task_validate(soup.0, bad.as_ptr(), &mut err) };
    assert!(v.is_null() && !err.is_null());
    // SAFETY: a live error, freed once.
    unsafe {
        assert!(
            s(safeplan_error_message(err)).starts_with("plan:"),
            "{}",
            s(safeplan_error_message(err))
        );
        assert!(!s(safeplan_error_code(err)).is_empty());
        safeplan_error_free(err);
    }
}

/// docs/C.md's example of `safeplan_verdict_message` is what the C API prints for hot-soup's
/// unsafe plan, up to the "..." where the example stops.
#[test]
fn the_message_docs_c_md_shows_is_the_one_printed() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/C.md"),
    )
    .expect("docs/C.md");
    let start = doc
        .find("`invalid: the plan ends without reaching the goal")
        .expect("the example is in docs/C.md")
        + 1;
    let quoted = &doc[start..start + doc[start..].find('`').expect("closing backtick")];
    let shown = quoted
        .strip_suffix(" ...")
        .expect("the example ends with ...");
    let soup = Soup::new();
    let plan = example("examples/tasks/hot-soup/unsafe.plan");
    // SAFETY: live task, valid string, NULL error slot allowed.
    let (_, _, _, _, message, _) =
        read(unsafe { safeplan_task_validate(soup.0, plan.as_ptr(), null_mut()) });
    assert!(message.starts_with(shown), "{message}\nshown: {shown}");
}

#[test]
fn a_reply_is_read_by_the_one_reader() {
    let soup = Soup::new();
    let reply = c("Here is my plan:\n1. (pick-up soup stove)\n2. (move stove table)\n2. oops");
    // SAFETY: live task and string.
    let (valid, _, _, _, _, json) =
        read(unsafe { safeplan_task_validate_reply(soup.0, reply.as_ptr(), null_mut()) });
    assert!(!valid);
    assert_eq!(json["read"]["steps"][0]["text"], "(pick-up soup stove)");
    let refusal = c("I'm sorry, I can't help with that.");
    // SAFETY: as above.
    let (valid, feasible, _, _, message, json) =
        read(unsafe { safeplan_task_validate_reply(soup.0, refusal.as_ptr(), null_mut()) });
    assert!(!valid && !feasible, "{message}");
    assert_eq!(json["no_plan"], "refusal");
    // Issue 43: every step of a line is read (the old reader read the first only), and a
    // refusal that mentions the empty plan is still a refusal.
    let one_line =
        c("1. (pick-up soup stove) 2. (slow-down) 3. (move stove table) 4. (put-down soup table)");
    // SAFETY: as above.
    let (valid, _, _, _, message, json) =
        read(unsafe { safeplan_task_validate_reply(soup.0, one_line.as_ptr(), null_mut()) });
    assert!(valid, "{message}");
    assert_eq!(json["read"]["steps"].as_array().map(Vec::len), Some(4));
    let refusal = c("I'm sorry, I can't produce a plan. An empty plan will not work.");
    // SAFETY: as above.
    let (valid, _, _, _, _, json) =
        read(unsafe { safeplan_task_validate_reply(soup.0, refusal.as_ptr(), null_mut()) });
    assert!(!valid);
    assert_eq!(json["no_plan"], "refusal");
}

#[test]
fn errors_have_codes_places_and_never_crash() {
    let mut err = null_mut();
    let domain = c("(define (domain d) (:predicates (p)) (:action a :effect (q)))");
    let problem = c("(define (problem x) (:domain d) (:init) (:goal (p)))");
    // SAFETY: valid strings.
    let t = unsafe { safeplan_task_new(domain.as_ptr(), problem.as_ptr(), &mut err) };
    assert!(t.is_null());
    // SAFETY: a live error.
    unsafe {
        assert_eq!(s(safeplan_error_code(err)), "undefined-predicate");
        assert!(s(safeplan_error_message(err)).starts_with("domain.pddl:1:"));
        safeplan_error_free(err);
    }
    // NULL and non-UTF-8 arguments.
    let mut err = null_mut();
    // SAFETY: NULLs are documented as errors.
    let t = unsafe { safeplan_task_new(null(), problem.as_ptr(), &mut err) };
    assert!(t.is_null());
    // SAFETY: a live error.
    unsafe {
        assert_eq!(s(safeplan_error_code(err)), "null-argument");
        safeplan_error_free(err);
    }
    let latin1 = CString::new(vec![b'(', 0xe9, b')']).expect("no NUL");
    let mut err = null_mut();
    // SAFETY: a NUL-terminated string that is not UTF-8.
    let t = unsafe { safeplan_task_new(latin1.as_ptr(), problem.as_ptr(), &mut err) };
    assert!(t.is_null());
    // SAFETY: a live error; NULL accessors.
    unsafe {
        assert_eq!(s(safeplan_error_code(err)), "invalid-utf8");
        safeplan_error_free(err);
        assert!(safeplan_error_message(null()).is_null());
        assert!(!safeplan_verdict_valid(null()));
        assert_eq!(safeplan_verdict_failed_step(null()), -1);
        safeplan_task_free(null_mut());
        safeplan_verdict_free(null_mut());
        safeplan_monitor_free(null_mut());
        safeplan_timed_monitor_free(null_mut());
        safeplan_error_free(null_mut());
    }
}

#[test]
fn the_monitor_refuses_the_dangerous_step_and_says_why() {
    let soup = Soup::new();
    // SAFETY: a live task; each call gets valid strings; everything freed.
    unsafe {
        let m = safeplan_monitor_new(soup.0, null_mut());
        assert!(!m.is_null());
        let pick = c("(pick-up soup stove)");
        let (ok, ..) = read(safeplan_monitor_check(m, pick.as_ptr(), null_mut()));
        assert!(ok);
        let (ok, ..) = read(safeplan_monitor_apply(m, pick.as_ptr(), null_mut()));
        assert!(ok);
        let rush = c("(move stove table)");
        let (ok, feasible, safe, step, message, _) =
            read(safeplan_monitor_apply(m, rush.as_ptr(), null_mut()));
        assert!(!ok && feasible && !safe && step == 2, "{message}");
        assert!(
            message.contains("would raise danger 0 -> 1 because"),
            "{message}"
        );
        // Not applicable: the soup is not on the table.
        let put = c("(put-down soup stove)");
        let (ok, ..) = read(safeplan_monitor_check(m, put.as_ptr(), null_mut()));
        assert!(ok, "putting it back down where it was is allowed");
        let wrong = c("(teleport soup)");
        let (ok, feasible, ..) = read(safeplan_monitor_check(m, wrong.as_ptr(), null_mut()));
        assert!(!ok && !feasible);
        let mut err = null_mut();
        let two = c("(a) (b)");
        assert!(safeplan_monitor_check(m, two.as_ptr(), &mut err).is_null());
        assert_eq!(s(safeplan_error_code(err)), "not-one-step");
        safeplan_error_free(err);
        safeplan_monitor_free(m);
    }
}

#[test]
fn the_timed_monitor_refuses_the_unsafe_start() {
    let (d, p) = (
        example("examples/temporal/hot-drink-carry/domain.pddl"),
        example("examples/temporal/hot-drink-carry/problem.pddl"),
    );
    // SAFETY: valid strings; everything freed.
    unsafe {
        let t = safeplan_task_new(d.as_ptr(), p.as_ptr(), null_mut());
        assert!(!t.is_null());
        let m = safeplan_timed_monitor_new(t, null_mut());
        safeplan_task_free(t); // the monitor keeps its own reference
        let pick = c("(pick-up tea kitchen)");
        let (ok, ..) = read(safeplan_timed_monitor_start(
            m,
            pick.as_ptr(),
            0.0,
            null_mut(),
        ));
        assert!(ok);
        let (ok, ..) = read(safeplan_timed_monitor_end(
            m,
            pick.as_ptr(),
            2.0,
            null_mut(),
        ));
        assert!(ok);
        // Carrying the hot drink without its lid into the hallway raises danger.
        let carry = c("(carry tea kitchen hallway)");
        let (ok, feasible, safe, step, message, _) = read(safeplan_timed_monitor_start(
            m,
            carry.as_ptr(),
            2.01,
            null_mut(),
        ));
        assert!(!ok && feasible && !safe, "{message}");
        assert!(message.contains("danger 0 -> 1"), "{message}");
        // The plan's step number: the second action dispatched (issue 45: it was the count
        // of running actions plus one, 1 here).
        assert_eq!(step, 2);
        // A negative or non-finite time is an error, not an event (issue 45).
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let mut err = null_mut();
            assert!(safeplan_timed_monitor_start(m, carry.as_ptr(), bad, &mut err).is_null());
            assert_eq!(s(safeplan_error_code(err)), "timing", "{bad}");
            safeplan_error_free(err);
        }
        // Ending what is not running is an error; so is time going back.
        let mut err = null_mut();
        assert!(safeplan_timed_monitor_end(m, carry.as_ptr(), 3.0, &mut err).is_null());
        assert_eq!(s(safeplan_error_code(err)), "not-running");
        safeplan_error_free(err);
        let mut err = null_mut();
        assert!(safeplan_timed_monitor_start(m, pick.as_ptr(), 1.0, &mut err).is_null());
        assert_eq!(s(safeplan_error_code(err)), "timing");
        safeplan_error_free(err);
        safeplan_timed_monitor_free(m);
    }
}

#[test]
fn one_task_validates_from_several_threads() {
    let soup = Soup::new();
    let task = soup.0 as usize;
    let plans = [
        ("examples/tasks/hot-soup/safe.plan", true),
        ("examples/tasks/hot-soup/unsafe.plan", false),
    ];
    std::thread::scope(|scope| {
        for k in 0..4 {
            scope.spawn(move || {
                for i in 0..200 {
                    let (rel, want) = plans[(i + k) % 2];
                    let plan = example(rel);
                    // SAFETY: the task is shared read-only (the header's promise).
                    let v = unsafe {
                        safeplan_task_validate(
                            task as *const safeplan_task,
                            plan.as_ptr(),
                            null_mut(),
                        )
                    };
                    assert_eq!(read(v).0, want);
                }
            });
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random bytes (NUL-terminated, any encoding) and NULLs to every entry point: a
    /// verdict or an error, never a crash.
    #[test]
    fn random_bytes_and_nulls_never_crash(
        a in prop::collection::vec(1u8..=255, 0..200),
        b in prop::collection::vec(1u8..=255, 0..200),
        nulls in any::<u8>(),
        time in any::<f64>(),
    ) {
        let soup = Soup::new();
        let (a, b) = (CString::new(a).unwrap(), CString::new(b).unwrap());
        let pick = |bit: u8, s: &CString| if nulls & (1 << bit) != 0 { null() } else { s.as_ptr() };
        // SAFETY: every pointer is NULL or a NUL-terminated string; results are freed.
        unsafe {
            let mut err = null_mut();
            let t = safeplan_task_new(pick(0, &a), pick(1, &b), &mut err);
            prop_assert!(t.is_null() != err.is_null());
            safeplan_error_free(err);
            safeplan_task_free(t);
            let task = if nulls & 4 != 0 { null() } else { soup.0 as *const _ };
            for f in [safeplan_task_validate, safeplan_task_validate_reply] {
                let mut err = null_mut();
                let v = f(task, pick(3, &a), &mut err);
                prop_assert!(v.is_null() != err.is_null());
                let _ = safeplan_verdict_message(v);
                safeplan_verdict_free(v);
                safeplan_error_free(err);
            }
            let m = safeplan_monitor_new(task, null_mut());
            for f in [safeplan_monitor_check, safeplan_monitor_apply] {
                let mut err = null_mut();
                let v = f(m, pick(5, &b), &mut err);
                prop_assert!(v.is_null() != err.is_null());
                safeplan_verdict_free(v);
                safeplan_error_free(err);
            }
            safeplan_monitor_free(m);
            let tm = safeplan_timed_monitor_new(task, null_mut());
            for f in [safeplan_timed_monitor_start, safeplan_timed_monitor_end] {
                let mut err = null_mut();
                let v = f(tm, pick(6, &a), time, &mut err);
                prop_assert!(v.is_null() != err.is_null());
                safeplan_verdict_free(v);
                safeplan_error_free(err);
            }
            safeplan_timed_monitor_free(tm);
        }
    }
}

/// Issue 45: a step that breaks a hard safety rule is refused as *unsafe* (feasible, not
/// safe) by the monitor, as validating the plan says (feasible, UNSAFE); it was reported as
/// infeasible but safe, so an executive branching on `safeplan_verdict_safe` missed the rule.
#[test]
fn a_monitor_refuses_a_rule_break_as_unsafe_as_the_plan_verdict_does() {
    let task = example_task("examples/rules/knife-near-child");
    // The plan verdict: feasible and unsafe, at step 1.
    let plan = example("examples/rules/knife-near-child/unsafe.plan");
    // SAFETY: live task and string.
    let (valid, feasible, safe, step, message, _) =
        read(unsafe { safeplan_task_validate(task, plan.as_ptr(), null_mut()) });
    assert!(!valid && feasible && !safe, "{message}");
    // The monitor, asked before that step, says the same.
    // SAFETY: live task.
    let m = unsafe { safeplan_monitor_new(task, null_mut()) };
    assert!(!m.is_null());
    let first = c("(pick-up-knife drawer)");
    // SAFETY: live monitor and string.
    let (valid, feasible, safe, at, message, json) =
        read(unsafe { safeplan_monitor_check(m, first.as_ptr(), null_mut()) });
    assert!(!valid && feasible && !safe, "{message}");
    assert_eq!(at, step);
    assert_eq!(json["refusal"]["kind"], "rule_broken", "{json}");
    assert_eq!(
        json["refusal"]["failure"]["kind"], "constraint_violated",
        "{json}"
    );
    // SAFETY: live handles, freed once.
    unsafe {
        safeplan_monitor_free(m);
        safeplan_task_free(task);
    }
}
