//! Growable storage that never moves what it already holds: the search's states, its
//! per-node tables and its queues.
//!
//! A `Vec` grows by doubling, and doubling moves everything: the allocator copies the old
//! block whenever it cannot grow it in place, which glibc does for blocks under its
//! (moving) mmap threshold of up to 32 MB. One push then copies tens of megabytes, and a
//! search could not see its cancellation flag for up to ten milliseconds (measured on the
//! state arena and on LAMA's queues, docs/benchmarks.md). Here storage grows one chunk at
//! a time: a push copies at most one chunk (the first, while it doubles up to its size),
//! so no step of a search costs more than a fixed amount however large the search has
//! grown.

use std::collections::{BTreeMap, VecDeque};
use std::ops::{Index, IndexMut};

/// Elements per chunk of a [`Chunked`]: 2^16 (a power of two: an index is split by
/// shifting).
const SHIFT: u32 = 16;
/// Bytes aimed at per chunk of [`Records`].
const RECORD_CHUNK_BYTES: usize = 1 << 20;
/// Elements per chunk of a [`Fifo`].
const FIFO_CHUNK: usize = 1 << 12;

/// A vector of `T` in chunks of 2^16 elements.
#[derive(Debug)]
pub(crate) struct Chunked<T> {
    /// Elements per chunk: 2^shift.
    shift: u32,
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Chunked<T> {
        Chunked {
            shift: SHIFT,
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> Chunked<T> {
    /// Empty.
    pub fn new() -> Chunked<T> {
        Chunked::default()
    }

    /// Empty, with 2^shift elements per chunk (tests cross chunks with small ones).
    #[cfg(test)]
    fn with_shift(shift: u32) -> Chunked<T> {
        Chunked {
            shift,
            ..Chunked::default()
        }
    }

    /// Append `value`.
    pub fn push(&mut self, value: T) {
        if self.len >> self.shift == self.chunks.len() {
            // The first chunk grows by doubling (a small search holds little), the others
            // are made whole.
            let capacity = if self.chunks.is_empty() {
                0
            } else {
                1 << self.shift
            };
            self.chunks.push(Vec::with_capacity(capacity));
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(value);
        }
        self.len += 1;
    }

    /// How many elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        let elements = match self.chunks.as_slice() {
            [only] => only.capacity(),
            all => all.len() << self.shift,
        };
        elements * std::mem::size_of::<T>()
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> self.shift][i & ((1 << self.shift) - 1)]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> self.shift][i & ((1 << self.shift) - 1)]
    }
}

/// Records of a fixed number of words (states, accepted landmark sets), numbered in the
/// order they are pushed, in chunks of about a megabyte.
#[derive(Debug, Default)]
pub(crate) struct Records {
    width: usize,
    /// Records per chunk: 2^shift.
    shift: u32,
    chunks: Vec<Vec<u64>>,
    len: usize,
}

impl Records {
    /// Empty, for records of `width` words.
    pub fn new(width: usize) -> Records {
        let per_chunk = (RECORD_CHUNK_BYTES / (width.max(1) * 8)).max(1);
        Records::with_shift(width, per_chunk.ilog2())
    }

    /// Empty, with 2^shift records per chunk.
    fn with_shift(width: usize, shift: u32) -> Records {
        Records {
            width,
            shift,
            chunks: Vec::new(),
            len: 0,
        }
    }

    /// Append `record` (`width` words; a longer one is cut, a shorter one padded with
    /// zeros); its number.
    pub fn push(&mut self, record: &[u64]) -> usize {
        let whole = self.width << self.shift;
        if self.len >> self.shift == self.chunks.len() {
            // As in `Chunked`: the first chunk grows, the others are made whole.
            let capacity = if self.chunks.is_empty() { 0 } else { whole };
            self.chunks.push(Vec::with_capacity(capacity));
        }
        let id = self.len;
        if let Some(last) = self.chunks.last_mut() {
            if last.len() + self.width > last.capacity() {
                // Doubling, but never past a whole chunk.
                let to = (last.capacity() * 2).max(self.width * 4).min(whole);
                last.reserve_exact(to.saturating_sub(last.len()));
            }
            let take = record.len().min(self.width);
            last.extend_from_slice(&record[..take]);
            last.resize(last.len() + self.width - take, 0);
        }
        self.len += 1;
        id
    }

    /// Record `id`.
    pub fn get(&self, id: usize) -> &[u64] {
        let at = (id & ((1 << self.shift) - 1)) * self.width;
        &self.chunks[id >> self.shift][at..at + self.width]
    }

    /// How many records.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        match self.chunks.as_slice() {
            [only] => only.capacity() * 8,
            all => all.len() * (self.width << self.shift) * 8,
        }
    }
}

/// A first-in first-out queue in chunks of 4,096 elements.
#[derive(Debug)]
pub(crate) struct Fifo<T> {
    chunks: VecDeque<Vec<T>>,
    /// Where the front chunk's first element still queued is.
    head: usize,
    len: usize,
}

impl<T> Default for Fifo<T> {
    fn default() -> Fifo<T> {
        Fifo {
            chunks: VecDeque::new(),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Fifo<T> {
    /// Queue `value` at the back.
    pub fn push_back(&mut self, value: T) {
        match self.chunks.back_mut() {
            // A chunk grows by doubling up to its size (a queue of three entries holds
            // three), then the next one starts.
            Some(last) if last.len() < FIFO_CHUNK => last.push(value),
            _ => {
                let mut chunk = Vec::with_capacity(if self.chunks.is_empty() {
                    4
                } else {
                    FIFO_CHUNK
                });
                chunk.push(value);
                self.chunks.push_back(chunk);
            }
        }
        self.len += 1;
    }

    /// Take the front.
    pub fn pop_front(&mut self) -> Option<T> {
        let only = self.chunks.len() == 1;
        let front = self.chunks.front_mut()?;
        let value = *front.get(self.head)?;
        self.head += 1;
        self.len -= 1;
        if self.head == front.len() {
            if front.len() < FIFO_CHUNK && only {
                // The only chunk, not full: reuse it.
                front.clear();
            } else {
                self.chunks.pop_front();
            }
            self.head = 0;
        }
        Some(value)
    }

    /// How many queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        // Only a queue's first chunk grows; once there are two, every chunk is whole.
        let elements = match self.chunks.len() {
            0 => 0,
            1 => self.chunks.front().map_or(0, Vec::capacity),
            n => n * FIFO_CHUNK,
        };
        elements * std::mem::size_of::<T>()
    }
}

/// A priority queue: the entry of least key first, entries of one key first in, first out
/// (as a binary heap ordered by key and then by insertion order, without its doubling).
#[derive(Debug)]
pub(crate) struct OpenList<K, V> {
    buckets: BTreeMap<K, Fifo<V>>,
    len: usize,
    /// Bytes held by the buckets' chunks, kept as they change (a search asks every step).
    bytes: usize,
}

impl<K, V> Default for OpenList<K, V> {
    fn default() -> OpenList<K, V> {
        OpenList {
            buckets: BTreeMap::new(),
            len: 0,
            bytes: 0,
        }
    }
}

impl<K: Ord + Copy, V: Copy> OpenList<K, V> {
    /// Queue `value` under `key`.
    pub fn push(&mut self, key: K, value: V) {
        let bucket = self.buckets.entry(key).or_default();
        let before = bucket.bytes();
        bucket.push_back(value);
        self.bytes = self.bytes + bucket.bytes() - before;
        self.len += 1;
    }

    /// Take an entry of least key: `(key, value)`.
    pub fn pop(&mut self) -> Option<(K, V)> {
        let mut first = self.buckets.first_entry()?;
        let key = *first.key();
        let bucket = first.get_mut();
        let before = bucket.bytes();
        let value = bucket.pop_front();
        self.bytes = self.bytes + bucket.bytes() - before;
        if bucket.len() == 0 {
            self.bytes -= bucket.bytes();
            first.remove();
        }
        let value = value?;
        self.len -= 1;
        Some((key, value))
    }

    /// Whether nothing is queued.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held (the queued entries' chunks; the few keys' tree nodes aside).
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// A priority queue of small integer keys (heuristic values): one [`Fifo`] per key, taken
/// from the least key first, as [`OpenList`] orders them. A push is an index and an append,
/// where the tree of an `OpenList` is a search per push: LAMA pushes every successor of
/// every expansion into two to four queues, and takes few of them.
#[derive(Debug)]
pub(crate) struct BucketQueue<V> {
    buckets: Vec<Fifo<V>>,
    /// No bucket below this holds anything.
    min: usize,
    len: usize,
    bytes: usize,
}

impl<V> Default for BucketQueue<V> {
    fn default() -> BucketQueue<V> {
        BucketQueue {
            buckets: Vec::new(),
            min: 0,
            len: 0,
            bytes: 0,
        }
    }
}

impl<V: Copy> BucketQueue<V> {
    /// Queue `value` under `key`.
    pub fn push(&mut self, key: u32, value: V) {
        let k = key as usize;
        if k >= self.buckets.len() {
            self.buckets.resize_with(k + 1, Fifo::default);
        }
        let bucket = &mut self.buckets[k];
        let before = bucket.bytes();
        bucket.push_back(value);
        self.bytes = self.bytes + bucket.bytes() - before;
        self.len += 1;
        self.min = self.min.min(k);
    }

    /// Take an entry of least key: `(key, value)`.
    pub fn pop(&mut self) -> Option<(u32, V)> {
        if self.len == 0 {
            return None;
        }
        while self.buckets.get(self.min).is_some_and(|b| b.len() == 0) {
            self.min += 1;
        }
        let bucket = self.buckets.get_mut(self.min)?;
        let before = bucket.bytes();
        let value = bucket.pop_front()?;
        self.bytes = self.bytes + bucket.bytes() - before;
        self.len -= 1;
        Some((self.min as u32, value))
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held (the queued entries' chunks and the buckets).
    pub fn bytes(&self) -> usize {
        self.bytes + self.buckets.capacity() * std::mem::size_of::<Fifo<V>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    proptest! {
        /// An open list (and a bucket queue) takes entries out in the order of a binary heap keyed by (key,
        /// insertion order), whatever the interleaving of pushes and pops; a FIFO in the
        /// order of a `VecDeque`; records and chunked vectors read back what was pushed.
        /// Chunks are made small here so that the lengths drawn cross many of them.
        #[test]
        fn chunked_stores_keep_order_and_content(
            ops in proptest::collection::vec((0u8..4, 0u32..6), 0..20_000),
        ) {
            let mut open = OpenList::default();
            let mut buckets = BucketQueue::default();
            let mut heap = BinaryHeap::new();
            let mut fifo = Fifo::default();
            let mut deque = VecDeque::new();
            let mut chunked = Chunked::with_shift(5);
            let mut records = Records::with_shift(3, 4);
            let mut plain = Vec::new();
            for (n, &(op, key)) in ops.iter().enumerate() {
                let n = n as u32;
                if op == 0 {
                    let want = heap.pop().map(|Reverse((k, _, v))| (k, v));
                    prop_assert_eq!(buckets.pop(), want);
                    prop_assert_eq!(open.pop(), want);
                    prop_assert_eq!(fifo.pop_front(), deque.pop_front());
                } else {
                    open.push(key, n);
                    buckets.push(key, n);
                    heap.push(Reverse((key, n, n)));
                    fifo.push_back(n);
                    deque.push_back(n);
                }
                chunked.push(n);
                let id = records.push(&[u64::from(n), u64::from(key), 7]);
                prop_assert_eq!(id, plain.len());
                plain.push([u64::from(n), u64::from(key), 7]);
                prop_assert_eq!(fifo.len(), deque.len());
                prop_assert_eq!(open.is_empty(), heap.is_empty());
            }
            while let Some(Reverse((k, _, v))) = heap.pop() {
                prop_assert_eq!(open.pop(), Some((k, v)));
                prop_assert_eq!(buckets.pop(), Some((k, v)));
            }
            prop_assert_eq!(open.pop(), None);
            prop_assert_eq!(buckets.pop(), None);
            prop_assert!(buckets.is_empty());
            prop_assert_eq!(open.bytes(), 0);
            prop_assert_eq!(chunked.len(), ops.len());
            prop_assert_eq!(records.len(), ops.len());
            for (i, want) in plain.iter().enumerate() {
                prop_assert_eq!(chunked[i], i as u32);
                prop_assert_eq!(records.get(i), &want[..]);
            }
        }
    }
}
