//! `:requirements` flags and what they imply.
//!
//! Declared flags are expanded to the primitive features they allow (`:adl` means typing,
//! negative and disjunctive preconditions, equality, quantifiers and conditional effects), so
//! the checker can ask one question: is feature X allowed?

use serde::{Deserialize, Serialize};

macro_rules! requirements {
    ($($variant:ident => $text:literal, $doc:literal;)*) => {
        /// A PDDL requirement flag, e.g. `:typing`. A domain declares the flags for the
        /// features it uses; [`RequirementSet`] expands composite flags (`:adl`) so the checker
        /// can tell whether a feature was declared.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Requirement {
            $(#[doc = $doc] $variant,)*
        }

        impl Requirement {
            /// Every flag this crate knows.
            pub const ALL: &'static [Requirement] = &[$(Requirement::$variant,)*];

            /// The flag as written in PDDL, with its `:`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Requirement::$variant => $text,)*
                }
            }

            /// The flag for `text` (case-insensitive, with its `:`), if it is one.
            pub fn parse(text: &str) -> Option<Requirement> {
                $(if text.eq_ignore_ascii_case($text) { return Some(Requirement::$variant); })*
                None
            }
        }
    };
}

requirements! {
    Strips => ":strips", "`:strips`: basic add and delete effects.";
    Typing => ":typing", "`:typing`: typed objects and parameters.";
    NegativePreconditions => ":negative-preconditions", "`:negative-preconditions`: `not` in conditions.";
    DisjunctivePreconditions => ":disjunctive-preconditions", "`:disjunctive-preconditions`: `or` and `imply`.";
    Equality => ":equality", "`:equality`: `=` on objects.";
    ExistentialPreconditions => ":existential-preconditions", "`:existential-preconditions`: `exists`.";
    UniversalPreconditions => ":universal-preconditions", "`:universal-preconditions`: `forall` in conditions.";
    QuantifiedPreconditions => ":quantified-preconditions", "`:quantified-preconditions`: both quantifiers.";
    ConditionalEffects => ":conditional-effects", "`:conditional-effects`: `when` and `forall` effects.";
    Fluents => ":fluents", "`:fluents`: numeric and object fluents.";
    NumericFluents => ":numeric-fluents", "`:numeric-fluents`: numeric functions.";
    ObjectFluents => ":object-fluents", "`:object-fluents`: object-valued functions.";
    Adl => ":adl", "`:adl`: the ADL bundle.";
    DurativeActions => ":durative-actions", "`:durative-actions`: `:durative-action`.";
    DurationInequalities => ":duration-inequalities", "`:duration-inequalities`: inequalities on `?duration`.";
    ContinuousEffects => ":continuous-effects", "`:continuous-effects`: effects over time.";
    DerivedPredicates => ":derived-predicates", "`:derived-predicates`: `:derived`.";
    TimedInitialLiterals => ":timed-initial-literals", "`:timed-initial-literals`: `(at t atom)` in `:init`.";
    Preferences => ":preferences", "`:preferences`: soft goals.";
    Constraints => ":constraints", "`:constraints`: trajectory constraints.";
    ActionCosts => ":action-costs", "`:action-costs`: `total-cost`.";
}

impl Requirement {
    /// The flags this one implies directly (not including itself).
    pub fn implies(self) -> &'static [Requirement] {
        use Requirement::*;
        match self {
            Adl => &[
                Strips,
                Typing,
                NegativePreconditions,
                DisjunctivePreconditions,
                Equality,
                QuantifiedPreconditions,
                ConditionalEffects,
            ],
            QuantifiedPreconditions => &[ExistentialPreconditions, UniversalPreconditions],
            Fluents => &[NumericFluents, ObjectFluents],
            _ => &[],
        }
    }
}

/// A set of requirements, closed under [`Requirement::implies`] when built with
/// [`RequirementSet::expanded`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RequirementSet(u32);

impl RequirementSet {
    /// The empty set.
    pub const fn empty() -> RequirementSet {
        RequirementSet(0)
    }

    fn bit(r: Requirement) -> u32 {
        1 << (r as u32)
    }

    /// Whether `r` is in the set.
    pub fn contains(self, r: Requirement) -> bool {
        self.0 & Self::bit(r) != 0
    }

    /// Add `r` and everything it implies.
    pub fn insert_expanded(&mut self, r: Requirement) {
        if self.contains(r) {
            return;
        }
        self.0 |= Self::bit(r);
        for &implied in r.implies() {
            self.insert_expanded(implied);
        }
    }

    /// The closure of `declared` under implication.
    pub fn expanded(declared: impl IntoIterator<Item = Requirement>) -> RequirementSet {
        let mut set = RequirementSet::empty();
        for r in declared {
            set.insert_expanded(r);
        }
        set
    }

    /// The flags in the set, in declaration order of [`Requirement`].
    pub fn iter(self) -> impl Iterator<Item = Requirement> {
        Requirement::ALL
            .iter()
            .copied()
            .filter(move |&r| self.contains(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adl_expands_to_quantifiers_through_quantified_preconditions() {
        let set = RequirementSet::expanded([Requirement::Adl]);
        for r in [
            Requirement::Strips,
            Requirement::Typing,
            Requirement::NegativePreconditions,
            Requirement::DisjunctivePreconditions,
            Requirement::Equality,
            Requirement::ExistentialPreconditions,
            Requirement::UniversalPreconditions,
            Requirement::ConditionalEffects,
        ] {
            assert!(set.contains(r), "{r:?}");
        }
        assert!(!set.contains(Requirement::NumericFluents));
        let fluents = RequirementSet::expanded([Requirement::Fluents]);
        assert!(fluents.contains(Requirement::NumericFluents));
        assert!(fluents.contains(Requirement::ObjectFluents));
    }

    #[test]
    fn parse_is_case_insensitive_and_needs_the_colon() {
        assert_eq!(Requirement::parse(":ADL"), Some(Requirement::Adl));
        assert_eq!(Requirement::parse("adl"), None);
        assert!(Requirement::ALL.len() < 32, "RequirementSet is a u32");
    }
}
