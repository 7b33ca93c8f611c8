//! Freeing a search's memory after the search has returned.
//!
//! A search hands back what it stored when it ends: its states, nodes, duplicate table and
//! queues. The system takes that back page by page: on the machine of docs/benchmarks.md a
//! breadth-first search of 90 MB took 3 to 6 ms to drop, and one of gigabytes takes
//! proportionally longer, which a cancelled search made its caller wait after it stopped. Memory past
//! [`LATER_BYTES`] is freed on a short-lived thread of its own instead; the caller has its
//! answer at once and the memory is back a moment later. When no thread can be started, it
//! is freed in place, as before.

use std::ops::{Deref, DerefMut};

/// Below this, freeing costs less than starting a thread (tens of microseconds).
pub(crate) const LATER_BYTES: usize = 8 << 20;

/// Free `value`, which holds about `bytes` bytes: in place when that is little, otherwise on
/// a thread of its own.
pub(crate) fn free_later<T: Send + 'static>(value: T, bytes: usize) {
    if bytes < LATER_BYTES {
        drop(value);
        return;
    }
    // A thread that cannot start drops its closure, and the value with it, right here.
    let _ = std::thread::Builder::new()
        .name("safeplan-free".into())
        .spawn(move || drop(value));
}

/// A search's working memory (a queue, a table by node), freed by [`free_later`] when it
/// goes out of scope, however the search returns.
pub(crate) struct FreedLater<T: Send + Default + 'static> {
    value: T,
    bytes: fn(&T) -> usize,
}

impl<T: Send + Default + 'static> FreedLater<T> {
    /// `value`, whose size `bytes` tells when it is dropped.
    pub fn new(value: T, bytes: fn(&T) -> usize) -> FreedLater<T> {
        FreedLater { value, bytes }
    }
}

impl<T: Send + Default + 'static> Deref for FreedLater<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Send + Default + 'static> DerefMut for FreedLater<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: Send + Default + 'static> Drop for FreedLater<T> {
    fn drop(&mut self) {
        let bytes = (self.bytes)(&self.value);
        free_later(std::mem::take(&mut self.value), bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Tells a channel when it is dropped.
    #[derive(Default)]
    struct Tell(Option<mpsc::Sender<()>>, Vec<u8>);

    impl Drop for Tell {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }

    /// Large or small, what is handed over is freed (not leaked): a small value at once,
    /// a large one on its thread soon after.
    #[test]
    fn everything_handed_over_is_freed() {
        for bytes in [16, LATER_BYTES] {
            let (tx, rx) = mpsc::channel();
            free_later(Tell(Some(tx), vec![0; bytes]), bytes);
            if bytes < LATER_BYTES {
                assert_eq!(rx.try_recv(), Ok(()), "a small value is freed in place");
            } else {
                assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(()));
            }
        }
        let (tx, rx) = mpsc::channel();
        drop(FreedLater::new(Tell(Some(tx), vec![0; LATER_BYTES]), |t| {
            t.1.len()
        }));
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(()));
    }
}
