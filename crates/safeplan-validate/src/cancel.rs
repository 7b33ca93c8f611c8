//! Giving up on an evaluation whose caller stopped waiting.
//!
//! A quantifier is evaluated by trying every binding, so a task well under any size cap can
//! ask for billions of them (`(forall (?a ?b ?c ?d - obj) ...)` over 300 objects is 8·10⁹).
//! A server that answers "timed out" after its limit must also stop that work, or repeated
//! calls pile up busy threads. Threading a flag through every evaluation would cost the hot
//! path of validation an argument everywhere; instead the thread that does a call's work
//! sets a flag for the duration ([`abandon_when`]), and the quantifier and `forall`-effect
//! loops look at it once per nested call.
//!
//! Once the flag is set the evaluation is **abandoned, not answered**: quantifiers end at
//! once with an arbitrary value, so whatever the call returns afterwards is meaningless.
//! That is sound only because the flag is set after the caller has stopped waiting for the
//! result (the MCP server sets it when it answers "timed out") and the result is dropped.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Guards alive in the process: while there are none (the CLI, Python, a library user),
/// [`abandoned`] is one load of this counter and never touches the thread-local.
static GUARDS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static ABANDON: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Until the returned guard is dropped, evaluations on this thread are abandoned as soon as
/// `flag` is set. Set it only once nobody will read the result.
pub fn abandon_when(flag: Arc<AtomicBool>) -> AbandonGuard {
    let previous = ABANDON.with(|a| a.replace(Some(flag)));
    GUARDS.fetch_add(1, Ordering::Relaxed);
    AbandonGuard {
        previous,
        not_send: std::marker::PhantomData,
    }
}

/// Restores the thread's previous flag (none, usually) when dropped. Not `Send`: it must be
/// dropped on the thread whose flag it set (held across an `.await` and dropped on another
/// worker, it would reset that thread's flag and leave a stale one here).
#[must_use = "the flag applies only while the guard lives"]
pub struct AbandonGuard {
    previous: Option<Arc<AtomicBool>>,
    not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for AbandonGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        ABANDON.with(|a| *a.borrow_mut() = previous);
        GUARDS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether this thread's evaluation has been abandoned.
#[inline]
pub(crate) fn abandoned() -> bool {
    if GUARDS.load(Ordering::Relaxed) == 0 {
        return false;
    }
    ABANDON.with(|a| {
        a.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    })
}
