//! Compiling a checked domain and problem into a [`Task`]: interned symbols, typed objects,
//! an atom layout, lifted action schemas and the initial state.
//!
//! Nothing is grounded here. Actions, goals and derived-predicate bodies become small
//! trees over *slots* (action parameters first, then quantified variables by nesting
//! depth); a plan step fills the parameter slots with object ids and the tree is evaluated
//! against a state. So the cost of a task does not depend on how many ground actions it
//! could have, only on the steps a plan actually takes.
//!
//! This file is the API: the [`Task`] and how to compile one. Beside it, `compiled` is the
//! lifted form plans are executed against (ids, conditions, effects, schemas, the fast
//! path's flat form); `compiler` the translation from the checked syntax tree, with
//! `stratify` (derived predicates), `fast` (building the flat form of STRIPS-like actions)
//! and `constraints` (PDDL3 trajectory constraints, expanded into instances) beside it;
//! `error` why a task cannot be compiled. Everything here sits below execution: no file of
//! this module imports the executor, the explainer or the constraint tracker.

mod compiled;
mod compiler;
pub(crate) mod constraints;
mod error;
mod fast;
mod stratify;

use compact_str::CompactString;
use rustc_hash::FxHashMap;
use safeplan_pddl::ast;
use safeplan_pddl::{CheckOptions, Domain, Problem, Span, check_domain, check_problem, has_errors};
use serde::{Deserialize, Serialize};

use crate::state::{State, StaticSet};

pub use compiled::ObjId;
pub use compiled::{
    Arg, AtomRef, Cond, Durative, Eff, FluentRef, NumExpr, Object, PredKind, QVar, Schema,
};
pub(crate) use compiled::{Fast, FastAtom, Pred, Rule, Symbol, TypeId};
pub(crate) use compiler::Compiler;
pub use error::TaskError;

const OBJECT: TypeId = 0;

/// Options for [`Task::compile_with`]: how states are stored and how strictly numbers
/// and requirements are read. The defaults give VAL's semantics; the safety layer turns
/// [`CompileOptions::static_facts`] off for the relaxed runs of safety intention.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompileOptions {
    /// A predicate or function whose atoms fit in this many slots (objects^arity) gets a
    /// dense bitset or value vector; bigger ones are stored sparsely in hash sets. Dense is
    /// faster; sparse keeps tasks with huge symbol spaces small. `0` makes everything sparse.
    pub dense_limit: u64,
    /// Absolute tolerance of numeric comparisons. VAL uses 0.0001 (`>` holds when the left
    /// side is within the slack below the right, `=` when the difference is below it); `0`
    /// gives exact comparisons.
    pub numeric_slack: f64,
    /// Treat undeclared requirements as errors (the checker's strict mode).
    pub strict: bool,
    /// Keep facts that no action changes out of the state, once in the task (the default).
    /// `false` puts every atom in the state, so that a state may be edited freely — the
    /// relaxed runs of safety intention force arbitrary facts true.
    pub static_facts: bool,
    /// The caller has already run the checker on this domain and problem (with the same
    /// `strict`) and found no error, so compiling does not run it again: the CLI does, to
    /// report every diagnostic, and a task checked twice costs twice on large problems. A
    /// task with errors compiled this way is still refused, by the compiler where it meets
    /// the first one (`TaskError::Unsupported`), with a less helpful message.
    pub already_checked: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            dense_limit: 1 << 24,
            numeric_slack: 1e-4,
            strict: false,
            static_facts: true,
            already_checked: false,
        }
    }
}

/// A compiled planning task: a domain and a problem, ready to execute plans.
///
/// Compile once with [`Task::compile`], then validate any number of plans against it, from
/// any number of threads (`Task` is `Send + Sync` and never changes after compilation).
#[derive(Clone, Debug)]
pub struct Task {
    pub(crate) domain_name: CompactString,
    pub(crate) problem_name: CompactString,
    pub(crate) objects: Vec<Object>,
    pub(crate) object_ids: FxHashMap<CompactString, ObjId>,
    pub(crate) type_names: Vec<CompactString>,
    /// Object lists that parameters and quantified variables range over.
    pub(crate) domains: Vec<Vec<ObjId>>,
    pub(crate) domain_types: Vec<Vec<TypeId>>,
    /// Membership bitsets of `domains`, indexed by object id: the type check of a step.
    pub(crate) domain_bits: Vec<Vec<u64>>,
    pub(crate) preds: Vec<Pred>,
    pub(crate) funcs: Vec<Symbol>,
    pub(crate) schemas: Vec<Schema>,
    pub(crate) schema_ids: FxHashMap<CompactString, u32>,
    pub(crate) rules: Vec<Rule>,
    pub(crate) strata: usize,
    pub(crate) statics: StaticSet,
    pub(crate) init: State,
    pub(crate) goal: Cond,
    /// Binding slots the goal's quantifiers need.
    pub(crate) goal_slots: usize,
    pub(crate) goal_span: Span,
    pub(crate) metric: Option<(ast::Optimization, NumExpr)>,
    /// Trajectory constraints and preferences (PDDL3).
    pub(crate) constraints: constraints::Constraints,
    pub(crate) n_objects: u64,
    pub(crate) slack: f64,
    pub(crate) typed: bool,
    pub(crate) temporal: bool,
}

impl Task {
    /// Check and compile a domain and problem with default options.
    pub fn compile(domain: &Domain, problem: &Problem) -> Result<Task, TaskError> {
        Task::compile_with(domain, problem, &CompileOptions::default())
    }

    /// Check and compile a domain and problem.
    ///
    /// The checker runs first (unless [`CompileOptions::already_checked`]): a task with
    /// errors (undefined names, arity or type errors) is refused with all its diagnostics,
    /// so everything after can rely on a well-formed task.
    pub fn compile_with(
        domain: &Domain,
        problem: &Problem,
        options: &CompileOptions,
    ) -> Result<Task, TaskError> {
        if !options.already_checked {
            let check = CheckOptions {
                strict: options.strict,
            };
            let mut diagnostics = check_domain(domain, &check);
            diagnostics.extend(check_problem(domain, problem, &check));
            if has_errors(&diagnostics) {
                return Err(TaskError::Invalid(diagnostics));
            }
        }
        Compiler::new(domain, problem, options).run()
    }

    /// The domain's name.
    pub fn domain_name(&self) -> &str {
        &self.domain_name
    }

    /// The problem's name.
    pub fn problem_name(&self) -> &str {
        &self.problem_name
    }

    /// All objects: domain constants first, then problem objects, in declaration order.
    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// The names of the domain's actions, in declaration order.
    pub fn action_names(&self) -> impl Iterator<Item = &str> {
        self.schemas.iter().map(|s| s.name.as_str())
    }

    /// The task's names (actions, predicates, objects) for reading an LLM reply
    /// ([`safeplan_pddl::read_reply`]): what tells its steps from facts and prose.
    pub fn vocabulary(&self) -> safeplan_pddl::Vocabulary {
        safeplan_pddl::Vocabulary::new(
            self.action_names(),
            self.preds.iter().map(|p| p.sym.name.as_str()),
            self.objects.iter().map(|o| o.name.as_str()),
        )
        .with_arities(
            self.schemas
                .iter()
                .map(|s| (s.name.as_str(), s.params.len())),
        )
    }

    /// The state before the first step.
    pub fn initial_state(&self) -> State {
        self.init.clone()
    }

    /// Whether the domain has durative actions, so that plans are timed and run as
    /// happenings (SEMANTICS.md §2b) rather than one step after another.
    pub fn is_temporal(&self) -> bool {
        self.temporal
    }

    /// Whether the problem has a `:metric`.
    pub fn has_metric(&self) -> bool {
        self.metric.is_some()
    }

    /// The object with this name (case-insensitive).
    pub fn object_id(&self, name: &str) -> Option<ObjId> {
        lookup(&self.object_ids, name)
    }

    /// Whether `obj` may fill a parameter ranging over `domain`.
    #[inline]
    pub(crate) fn fits(&self, obj: ObjId, domain: u32) -> bool {
        self.domain_bits
            .get(domain as usize)
            .and_then(|bits| bits.get(obj as usize / 64))
            .is_some_and(|w| w & (1 << (obj % 64)) != 0)
    }

    pub(crate) fn describe_types(&self, types: &[TypeId]) -> String {
        match types {
            [one] => self.type_names[*one as usize].to_string(),
            many => format!(
                "(either {})",
                many.iter()
                    .map(|&t| self.type_names[t as usize].as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

/// Case-insensitive lookup in a map with lowercase keys ([`ast::get_ignore_case`]).
#[inline]
pub(crate) fn lookup<V: Copy>(map: &FxHashMap<CompactString, V>, name: &str) -> Option<V> {
    ast::get_ignore_case(map, name).copied()
}
