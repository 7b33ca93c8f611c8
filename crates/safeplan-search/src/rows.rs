//! Rows of ids in one flat vector (compressed sparse rows).
//!
//! The relaxed estimates keep, per action, its preconditions and adds, and per atom, the
//! actions it is a precondition of or added by. A `Vec<Vec<u32>>` is one allocation per
//! row: on a task of a quarter of a million ground actions (satellite p30), building one
//! took a hundred milliseconds and dropping it seventy, time a cancelled search spent
//! before it could return. Rows are two allocations whatever their number, read as slices.

/// How many rows [`Rows::inverted_unless`] fills between two looks at the stop flag.
const STOP_ROWS: usize = 4096;

/// Rows of `u32` ids: row `r` is `items[start[r]..start[r + 1]]`.
#[derive(Clone, Debug)]
pub(crate) struct Rows {
    start: Vec<usize>,
    items: Vec<u32>,
}

/// No rows, ready for [`Rows::push_row`] (as [`Rows::new`]).
impl Default for Rows {
    fn default() -> Rows {
        Rows::new()
    }
}

impl Rows {
    /// No rows yet; [`Rows::push_row`] adds them in order.
    pub fn new() -> Rows {
        Rows {
            start: vec![0],
            items: Vec::new(),
        }
    }

    /// Add a row at the end.
    pub fn push_row(&mut self, row: &[u32]) {
        self.items.extend_from_slice(row);
        self.start.push(self.items.len());
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Row `r` (empty past the last row).
    #[inline]
    pub fn row(&self, r: usize) -> &[u32] {
        match self.start.get(r..r + 2) {
            Some(&[a, b]) => self.items.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The inverse relation over `targets` rows: row `t` of the result holds, in increasing
    /// order, every `r` whose row holds `t` (as often as it does). Items `>= targets` are
    /// left out. `None` when `stop` (asked every [`STOP_ROWS`] rows) said to stop.
    pub fn inverted_unless(&self, targets: usize, stop: &dyn Fn() -> bool) -> Option<Rows> {
        let mut start = vec![0usize; targets + 1];
        for &t in &self.items {
            if let Some(c) = start.get_mut(t as usize + 1) {
                *c += 1;
            }
        }
        for t in 0..targets {
            start[t + 1] += start[t];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; start[targets]];
        for r in 0..self.len() {
            if r.is_multiple_of(STOP_ROWS) && stop() {
                return None;
            }
            for &t in self.row(r) {
                if let Some(at) = fill.get_mut(t as usize)
                    && (t as usize) < targets
                {
                    items[*at] = r as u32;
                    *at += 1;
                }
            }
        }
        Some(Rows { start, items })
    }

    /// [`Rows::inverted_unless`] to the end.
    #[cfg(test)]
    pub fn inverted(&self, targets: usize) -> Rows {
        self.inverted_unless(targets, &|| false)
            .expect("never asked to stop")
    }

    /// Each row's length.
    /// Every item, rewritten in place by `f`.
    pub fn map_items(&mut self, f: impl Fn(u32) -> u32) {
        self.items.iter_mut().for_each(|x| *x = f(*x));
    }

    pub fn lengths(&self) -> Vec<u32> {
        self.start
            .windows(2)
            .map(|w| (w[1] - w[0]) as u32)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inverting a relation is transposing it: checked against a `Vec<Vec<u32>>` built by
    /// hand, empty rows and a repeated item included.
    #[test]
    fn inverted_is_the_transpose() {
        let mut rows = Rows::new();
        for row in [&[2u32, 0][..], &[], &[1, 2, 2], &[0]] {
            rows.push_row(row);
        }
        assert_eq!(rows.len(), 4);
        assert_eq!(rows.row(2), &[1, 2, 2]);
        assert_eq!(rows.row(9), &[] as &[u32]);
        let inv = rows.inverted(4);
        let expected: [&[u32]; 4] = [&[0, 3], &[2], &[0, 2, 2], &[]];
        for (t, want) in expected.iter().enumerate() {
            assert_eq!(inv.row(t), *want, "row {t}");
        }
        assert_eq!(rows.inverted(1).row(0), &[0, 3]);
    }
}
