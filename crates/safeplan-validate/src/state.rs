//! States: which atoms are true and what the numeric fluents are.
//!
//! An atom `(p o1 .. ok)` of a predicate with a dense layout is bit
//! `base(p) + o1 + o2·n + … + ok·n^(k-1)` (n objects) of a bitset; predicates whose
//! `n^k` is too big for a bitset keep their true atoms in a hash set keyed by
//! `[p, o1, .., ok]`. Numeric fluents are laid out the same way in a vector of `f64`, with
//! NaN standing for "undefined": arithmetic that would produce a NaN is reported as a
//! numeric error before it can be stored, so NaN always means "never given a value".

use std::ops::Range;

use rustc_hash::{FxHashMap, FxHashSet};

/// Where one atom or fluent value lives.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Dense(u64),
    Sparse(Box<[u32]>),
}

/// A set of ground atoms of one kind (fluent, static or derived).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AtomSet {
    pub bits: Vec<u64>,
    pub sparse: FxHashSet<Box<[u32]>>,
}

impl AtomSet {
    pub fn with_bits(n: u64) -> AtomSet {
        AtomSet {
            bits: vec![0; n.div_ceil(64) as usize],
            sparse: FxHashSet::default(),
        }
    }

    #[inline]
    pub fn test(&self, i: u64) -> bool {
        bit(&self.bits, i)
    }

    #[inline]
    pub fn set(&mut self, i: u64, on: bool) {
        if let Some(w) = self.bits.get_mut((i / 64) as usize) {
            if on {
                *w |= 1 << (i % 64);
            } else {
                *w &= !(1 << (i % 64));
            }
        }
    }

    pub fn contains(&self, key: &Key) -> bool {
        match key {
            Key::Dense(i) => self.test(*i),
            Key::Sparse(k) => self.sparse.contains(k),
        }
    }

    pub fn insert(&mut self, key: Key) -> bool {
        match key {
            Key::Dense(i) => {
                let was = self.test(i);
                self.set(i, true);
                !was
            }
            Key::Sparse(k) => self.sparse.insert(k),
        }
    }

    pub fn remove(&mut self, key: &Key) {
        match key {
            Key::Dense(i) => self.set(*i, false),
            Key::Sparse(k) => {
                self.sparse.remove(k);
            }
        }
    }

    /// Dense indices of the set bits within `range`, in increasing order.
    pub fn dense_ones(&self, range: Range<u64>) -> Vec<u64> {
        ones(&self.bits, range)
    }

    pub fn clear(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.sparse.clear();
    }
}

/// The static facts of a task: the initial atoms of predicates no action changes.
///
/// They are read far more often than they are written, and a few predicates over many
/// objects (visitall's `connected`: 9,800 facts among 2,500² slots) would make a bitset
/// mostly zeros. A fresh process pays a page fault for every page of it that a fact
/// touches (the pages no fact touches are never written, so never faulted in), so a
/// relation whose facts are spread over many pages keeps its dense indices in a hash set
/// instead; the layout (the index of an atom) is the same either way. A bit test is several
/// times faster than a hash probe, so a large layout whose facts sit on a few pages stays a
/// bitset (airport-adl p15: 221 facts on 15 of the 207 pages of an 844 KB layout; hashed,
/// its quantified preconditions ran a fifth slower).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct StaticSet {
    dense: DenseStatics,
    pub sparse: FxHashSet<Box<[u32]>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum DenseStatics {
    Bits(Vec<u64>),
    Hashed(FxHashSet<u64>),
}

impl Default for DenseStatics {
    fn default() -> DenseStatics {
        DenseStatics::Bits(Vec::new())
    }
}

impl StaticSet {
    /// A bitset is kept whatever its density when its facts touch at most this many bytes
    /// of it (16 pages).
    const SMALL_TOUCHED_BYTES: u64 = 64 * 1024;
    /// Otherwise it is kept when its facts touch at most this many bytes of it per fact (a
    /// hash set takes 9 to 18: the index and a control byte, at most half empty).
    const BYTES_PER_FACT: u64 = 32;
    /// The page size the touched bytes are counted in.
    const PAGE_BYTES: u64 = 4096;

    /// The set of `dense` indices (in a layout of `slots` slots) and `sparse` keys.
    pub fn new(slots: u64, dense: &[u64], sparse: FxHashSet<Box<[u32]>>) -> StaticSet {
        let touched = Self::touched_pages(slots, dense).saturating_mul(Self::PAGE_BYTES);
        let dense = if touched <= Self::SMALL_TOUCHED_BYTES
            || touched <= Self::BYTES_PER_FACT.saturating_mul(dense.len() as u64)
        {
            let mut bits = AtomSet::with_bits(slots);
            for &i in dense {
                bits.set(i, true);
            }
            DenseStatics::Bits(bits.bits)
        } else {
            DenseStatics::Hashed(dense.iter().copied().collect())
        };
        StaticSet { dense, sparse }
    }

    /// How many pages of a bitset of `slots` slots the facts `dense` fall on.
    fn touched_pages(slots: u64, dense: &[u64]) -> u64 {
        let bits_per_page = Self::PAGE_BYTES * 8;
        // A flag a page: 1/32,768 of the bitset it decides on (4,096 flags for the compiler's
        // limit of 2^27 slots of a kind).
        let mut seen = vec![false; slots.div_ceil(bits_per_page) as usize];
        let mut touched = 0;
        for &i in dense {
            if let Some(flag) = usize::try_from(i / bits_per_page)
                .ok()
                .and_then(|page| seen.get_mut(page))
                && !std::mem::replace(flag, true)
            {
                touched += 1;
            }
        }
        touched
    }

    /// Whether the atom at dense index `i` holds.
    #[inline]
    pub fn test(&self, i: u64) -> bool {
        match &self.dense {
            DenseStatics::Bits(bits) => bit(bits, i),
            DenseStatics::Hashed(set) => set.contains(&i),
        }
    }

    pub fn contains(&self, key: &Key) -> bool {
        match key {
            Key::Dense(i) => self.test(*i),
            Key::Sparse(k) => self.sparse.contains(k),
        }
    }

    /// Dense indices of the facts within `range`, in increasing order.
    pub fn dense_ones(&self, range: Range<u64>) -> Vec<u64> {
        match &self.dense {
            DenseStatics::Bits(bits) => ones(bits, range),
            DenseStatics::Hashed(set) => {
                let mut ones: Vec<u64> =
                    set.iter().copied().filter(|i| range.contains(i)).collect();
                ones.sort_unstable();
                ones
            }
        }
    }
}

/// Whether bit `i` of `bits` is set (a bit past the end is not).
#[inline]
fn bit(bits: &[u64], i: u64) -> bool {
    bits.get((i / 64) as usize)
        .is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// Indices of the set bits of `bits` within `range`, in increasing order; the words
/// before the range are not read.
fn ones(bits: &[u64], range: Range<u64>) -> Vec<u64> {
    let first = usize::try_from(range.start / 64).unwrap_or(usize::MAX);
    let words = bits.get(first..).unwrap_or_default();
    words
        .iter()
        .zip((first as u64)..)
        .flat_map(|(&w, wi)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as u64;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
        .skip_while(|&i| i < range.start)
        .take_while(|&i| i < range.end)
        .collect()
}

/// A state of a task: the true atoms (those actions can change, and derived ones) and the
/// values of the numeric fluents. Static facts live in the [`Task`](crate::Task).
///
/// Read it through the task: [`Task::holds`](crate::Task::holds),
/// [`Task::value`](crate::Task::value) and [`Task::describe_state`](crate::Task::describe_state).
#[derive(Clone, Debug, Default)]
pub struct State {
    pub(crate) atoms: AtomSet,
    pub(crate) derived: AtomSet,
    pub(crate) values: Vec<f64>,
    pub(crate) sparse_values: FxHashMap<Box<[u32]>, f64>,
}

impl State {
    pub(crate) fn empty(atom_bits: u64, derived_bits: u64, values: u64) -> State {
        State {
            atoms: AtomSet::with_bits(atom_bits),
            derived: AtomSet::with_bits(derived_bits),
            values: vec![f64::NAN; values as usize],
            sparse_values: FxHashMap::default(),
        }
    }

    /// The value at `key`, `None` when undefined.
    #[inline]
    pub(crate) fn value(&self, key: &Key) -> Option<f64> {
        let v = match key {
            Key::Dense(i) => self.values.get(*i as usize).copied(),
            Key::Sparse(k) => self.sparse_values.get(k).copied(),
        };
        v.filter(|x| !x.is_nan())
    }

    pub(crate) fn set_value(&mut self, key: &Key, v: f64) {
        match key {
            Key::Dense(i) => {
                if let Some(slot) = self.values.get_mut(*i as usize) {
                    *slot = v;
                }
            }
            Key::Sparse(k) => {
                self.sparse_values.insert(k.clone(), v);
            }
        }
    }

    /// Copy `other` into `self`, reusing allocations.
    pub(crate) fn copy_from(&mut self, other: &State) {
        self.atoms.bits.clone_from(&other.atoms.bits);
        self.atoms.sparse.clone_from(&other.atoms.sparse);
        self.derived.bits.clone_from(&other.derived.bits);
        self.derived.sparse.clone_from(&other.derived.sparse);
        self.values.clone_from(&other.values);
        self.sparse_values.clone_from(&other.sparse_values);
    }
}

impl PartialEq for State {
    /// Two states are equal when the same atoms hold and the same fluents have the same
    /// values (undefined equals undefined).
    fn eq(&self, other: &State) -> bool {
        self.atoms == other.atoms
            && self.derived == other.derived
            && self.values.len() == other.values.len()
            && self
                .values
                .iter()
                .zip(&other.values)
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
            && self.sparse_values.len() == other.sparse_values.len()
            && self.sparse_values.iter().all(|(k, v)| {
                other
                    .sparse_values
                    .get(k)
                    .is_some_and(|w| w.to_bits() == v.to_bits())
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// visitall's shape: a 50×50 grid, `connected` between neighbours, 2,500² slots.
    fn grid_facts(side: u64) -> (u64, Vec<u64>) {
        let n = side * side;
        let mut facts = Vec::new();
        for x in 0..side {
            for y in 0..side {
                let a = x * side + y;
                let mut link = |b: u64| facts.push(a + b * n);
                if x > 0 {
                    link(a - side);
                }
                if x + 1 < side {
                    link(a + side);
                }
                if y > 0 {
                    link(a - 1);
                }
                if y + 1 < side {
                    link(a + 1);
                }
            }
        }
        (n * n, facts)
    }

    fn check(set: &StaticSet, slots: u64, facts: &[u64]) {
        let mut expected = facts.to_vec();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(set.dense_ones(0..slots), expected);
        // A range that starts and ends inside a word, as a predicate's slots do.
        let (from, to) = (slots / 3 + 5, 2 * slots / 3 + 7);
        let inside: Vec<u64> = expected
            .iter()
            .copied()
            .filter(|i| (from..to).contains(i))
            .collect();
        assert_eq!(set.dense_ones(from..to), inside);
        for &i in facts {
            assert!(set.test(i), "fact {i} is missing");
            assert!(set.contains(&Key::Dense(i)));
        }
        // Every slot next to a fact that is not one itself, and the ends of the layout.
        for i in facts.iter().flat_map(|&i| [i.saturating_sub(1), i + 1]) {
            assert_eq!(set.test(i), expected.binary_search(&i).is_ok(), "slot {i}");
        }
        assert!(!set.test(slots));
        assert!(!set.test(u64::MAX));
    }

    #[test]
    fn a_sparse_relation_is_hashed_and_answers_like_a_bitset() {
        let (slots, facts) = grid_facts(50);
        assert_eq!(facts.len(), 9_800); // as in visitall problem50
        let set = StaticSet::new(slots, &facts, FxHashSet::default());
        assert!(matches!(set.dense, DenseStatics::Hashed(_)));
        check(&set, slots, &facts);
    }

    #[test]
    fn small_or_dense_relations_stay_bitsets() {
        let (slots, facts) = grid_facts(10); // 10,000 slots: 1,250 bytes
        let set = StaticSet::new(slots, &facts, FxHashSet::default());
        assert!(matches!(set.dense, DenseStatics::Bits(_)));
        check(&set, slots, &facts);

        // 2^20 slots (128 KiB) with a fact every 64 slots: 8 bytes of bitset per fact.
        let slots = 1 << 20;
        let facts: Vec<u64> = (0..slots).step_by(64).collect();
        let set = StaticSet::new(slots, &facts, FxHashSet::default());
        assert!(matches!(set.dense, DenseStatics::Bits(_)));
        check(&set, slots, &facts);

        // The same layout with a fact every 4,096 slots: 512 bytes each, hashed.
        let facts: Vec<u64> = (0..slots).step_by(4096).collect();
        let set = StaticSet::new(slots, &facts, FxHashSet::default());
        assert!(matches!(set.dense, DenseStatics::Hashed(_)));
        check(&set, slots, &facts);
    }

    /// A large layout whose few facts fall on a few pages: a bitset faults in only those
    /// pages, and tests faster than a hash set (airport-adl p15: 221 facts on 15 pages).
    #[test]
    fn a_large_layout_with_its_facts_on_few_pages_stays_a_bitset() {
        let slots = 6_755_000; // airport-adl p15's static layout, 844 KB as a bitset
        let facts: Vec<u64> = (0..15u64)
            .flat_map(|page| (0..15).map(move |k| page * 400_000 + k * 97))
            .collect();
        assert_eq!(StaticSet::touched_pages(slots, &facts), 15);
        let set = StaticSet::new(slots, &facts, FxHashSet::default());
        assert!(matches!(set.dense, DenseStatics::Bits(_)));
        check(&set, slots, &facts);

        // The same number of facts, one per page over 17 pages: past 64 KiB and 32 bytes
        // a fact, hashed.
        let facts: Vec<u64> = (0..17u64).map(|page| page * 32_768 * 3 + 5).collect();
        assert_eq!(StaticSet::touched_pages(slots, &facts), 17);
        let set = StaticSet::new(slots, &facts, FxHashSet::default());
        assert!(matches!(set.dense, DenseStatics::Hashed(_)));
        check(&set, slots, &facts);
    }

    #[test]
    fn sparse_keys_are_kept_beside_either_form() {
        let key: Box<[u32]> = vec![3, 1, 4].into_boxed_slice();
        let set = StaticSet::new(1 << 24, &[7], FxHashSet::from_iter([key.clone()]));
        assert!(set.contains(&Key::Sparse(key)));
        assert!(!set.contains(&Key::Sparse(vec![3, 1, 5].into_boxed_slice())));
        assert!(set.contains(&Key::Dense(7)));
        assert!(!set.contains(&Key::Dense(8)));
    }
}
