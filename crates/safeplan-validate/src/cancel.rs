//! Giving up on an evaluation whose caller stopped waiting.
//!
//! A quantifier is evaluated by trying every binding, so a task well under any size cap can
//! ask for billions of them (`(forall (?a ?b ?c ?d - obj) ...)` over 300 objects is 8·10⁹).
//! A server that answers "timed out" after its limit must also stop that work, or repeated
//! calls pile up busy threads. Threading a flag through every evaluation would cost the hot
//! path of validation an argument everywhere; instead the thread that does a call's work
//! sets a flag for the duration ([`abandon_when`]), and the quantifier and `forall`-effect
//! loops call [`abandoned`] once per nested call, which looks at the flag once in 256 calls
//! (microseconds apart) and at every call once it is set.
//!
//! A caller that cannot set a flag from elsewhere — the Python binding, whose Ctrl-C is a
//! Python signal handler that runs only when that same thread asks for it — gives a question
//! instead ([`abandon_when_asked`]): the same loops ask it, at most once per interval, and
//! abandon the evaluation when it says so. Other crates' long loops (grounding, the search)
//! look at the same state through [`abandoned`] and [`abandoned_now`].
//!
//! Once the flag is set the evaluation is **abandoned, not answered**: quantifiers end at
//! once with an arbitrary value, so whatever the call returns afterwards is meaningless.
//! That is sound only because the flag is set after the caller has stopped waiting for the
//! result (the MCP server sets it when it answers "timed out"; the Python binding raises the
//! interrupt instead of returning) and the result is dropped.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Guards alive in the process: while there are none (the CLI, a library user),
/// [`abandoned`] is one load of this counter and never touches the thread-local.
static GUARDS: AtomicUsize = AtomicUsize::new(0);

/// Calls of [`abandoned`] between two looks at the thread's watch (its flag; for an asked
/// watch, the clock): the loops call it once per quantifier binding tried, so a watch is
/// looked at every few microseconds, and the calls between cost a thread-local counter.
const CALLS_PER_LOOK: u32 = 256;

/// What a thread's evaluations are abandoned on.
struct Watch {
    flag: Arc<AtomicBool>,
    ask: Option<Ask>,
}

/// A question asked at most once per `every`.
struct Ask {
    /// Taken out while it runs: it may run code that evaluates (a Python signal handler that
    /// validates), which must find the thread's state free.
    question: Option<Box<dyn FnMut() -> bool>>,
    every: Duration,
    last: Instant,
}

thread_local! {
    static ABANDON: RefCell<Option<Watch>> = const { RefCell::new(None) };
    /// Calls of [`abandoned`] left before the next look at the watch; 0: look at the next.
    static COUNTDOWN: Cell<u32> = const { Cell::new(0) };
}

/// Until the returned guard is dropped, evaluations on this thread are abandoned as soon as
/// `flag` is set. Set it only once nobody will read the result.
pub fn abandon_when(flag: Arc<AtomicBool>) -> AbandonGuard {
    watch(Watch { flag, ask: None })
}

/// Until the returned guard is dropped, evaluations on this thread ask `question` at most once
/// per `every` (from the same loops that look at [`abandon_when`]'s flag), and are abandoned
/// once it has answered `true`; [`AbandonGuard::abandoned`] then says so, and the caller must
/// drop what the evaluation returned. The question runs on this thread, between two steps of
/// the evaluation.
pub fn abandon_when_asked(
    every: Duration,
    question: impl FnMut() -> bool + 'static,
) -> AbandonGuard {
    watch(Watch {
        flag: Arc::new(AtomicBool::new(false)),
        ask: Some(Ask {
            question: Some(Box::new(question)),
            every,
            last: Instant::now(),
        }),
    })
}

fn watch(watch: Watch) -> AbandonGuard {
    let flag = watch.flag.clone();
    let previous = ABANDON.with(|a| a.replace(Some(watch)));
    COUNTDOWN.with(|c| c.set(0));
    GUARDS.fetch_add(1, Ordering::Relaxed);
    AbandonGuard {
        previous,
        flag,
        not_send: std::marker::PhantomData,
    }
}

/// Restores the thread's previous watch (none, usually) when dropped. Not `Send`: it must be
/// dropped on the thread whose watch it set (held across an `.await` and dropped on another
/// worker, it would reset that thread's watch and leave a stale one here).
#[must_use = "the flag applies only while the guard lives"]
pub struct AbandonGuard {
    previous: Option<Watch>,
    flag: Arc<AtomicBool>,
    not_send: std::marker::PhantomData<*const ()>,
}

impl AbandonGuard {
    /// Whether the evaluations under this guard were abandoned (its flag set, or its question
    /// answered `true`): what they returned is then meaningless.
    pub fn abandoned(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

impl Drop for AbandonGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        // Dropped outside the borrow: the question's captures may set up a guard of their own.
        let ours = ABANDON.with(|a| a.replace(previous));
        drop(ours);
        COUNTDOWN.with(|c| c.set(0));
        GUARDS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether this thread's evaluation has been abandoned; for an asked watch, asks the question
/// when its interval has passed. Looks at the watch once in 256 calls, so it
/// suits a loop that calls it for every item (a quantifier's bindings); a loop that looks only
/// now and then uses [`abandoned_now`]. A loop that sees `true` should stop (another crate's:
/// and report that it was cancelled).
#[inline]
pub fn abandoned() -> bool {
    if GUARDS.load(Ordering::Relaxed) == 0 {
        return false;
    }
    let left = COUNTDOWN.with(Cell::get);
    if left > 0 {
        COUNTDOWN.with(|c| c.set(left - 1));
        return false;
    }
    let abandoned = watched();
    // Once abandoned, every call looks (the loops must all end); until then, one in so many.
    COUNTDOWN.with(|c| c.set(if abandoned { 0 } else { CALLS_PER_LOOK }));
    abandoned
}

/// [`abandoned`] without the countdown: looks at the watch now (an asked watch's question is
/// still asked at most once per its interval). For loops that already look only now and then
/// (grounding every few thousand facts, the search every 16 expansions), where the countdown
/// would make the looks too rare.
pub fn abandoned_now() -> bool {
    if GUARDS.load(Ordering::Relaxed) == 0 {
        return false;
    }
    watched()
}

#[cold]
fn watched() -> bool {
    let question = ABANDON.with(|a| {
        // Busy: a question is running code that evaluates; that code is not abandoned.
        let Ok(mut slot) = a.try_borrow_mut() else {
            return None;
        };
        let watch = slot.as_mut()?;
        if watch.flag.load(Ordering::Relaxed) {
            return None;
        }
        let ask = watch.ask.as_mut()?;
        if ask.last.elapsed() < ask.every {
            return None;
        }
        ask.last = Instant::now();
        ask.question.take().map(|q| (q, watch.flag.clone()))
    });
    if let Some((mut question, flag)) = question {
        if question() {
            flag.store(true, Ordering::Relaxed);
        }
        // Put it back in the watch it came from (a nested guard has been dropped by now).
        ABANDON.with(|a| {
            if let Ok(mut slot) = a.try_borrow_mut()
                && let Some(watch) = slot.as_mut()
                && Arc::ptr_eq(&watch.flag, &flag)
                && let Some(ask) = watch.ask.as_mut()
            {
                ask.question = Some(question);
            }
        });
    }
    ABANDON.with(|a| {
        a.try_borrow()
            .ok()
            .and_then(|slot| slot.as_ref().map(|w| w.flag.load(Ordering::Relaxed)))
            .unwrap_or(false)
    })
}
