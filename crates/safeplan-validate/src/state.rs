//! States: which atoms are true and what the numeric fluents are.
//!
//! An atom `(p o1 .. ok)` of a predicate with a dense layout is bit
//! `base(p) + o1 + o2·n + … + ok·n^(k-1)` (n objects) of a bitset; predicates whose
//! `n^k` is too big for a bitset keep their true atoms in a hash set keyed by
//! `[p, o1, .., ok]`. Numeric fluents are laid out the same way in a vector of `f64`, with
//! NaN standing for "undefined": arithmetic that would produce a NaN is reported as a
//! numeric error before it can be stored, so NaN always means "never given a value".

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
        self.bits
            .get((i / 64) as usize)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
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

    /// Dense indices of set bits, in increasing order.
    pub fn dense_ones(&self) -> impl Iterator<Item = u64> + '_ {
        self.bits.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as u64;
                w &= w - 1;
                Some(wi as u64 * 64 + b)
            })
        })
    }

    pub fn clear(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.sparse.clear();
    }
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
