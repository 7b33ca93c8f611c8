//! Interference between the events of one happening, by VAL's ownership rules
//! (`Ownership.cpp`): first every event's conditions (and a start's duration expression)
//! claim what they read, then each event's effects claim what they change, in order. A
//! claim that clashes with another event's is a mutex, naming both events and the atom or
//! fluent. The rules are VAL's, including its corners: two events that both read an atom
//! share it, so either one changing it is a mutex; two events adding the same atom, or
//! increasing the same fluent, are not.

use rustc_hash::FxHashMap;
use safeplan_pddl::FileKind;
use safeplan_pddl::ast::AssignOp;

use super::{Ev, Run, arg, event_verb};
use crate::explain::{Number, round_time};
use crate::state::Key;
use crate::task::{Cond, Eff, NumExpr, ObjId, PredKind, QVar, Task};
use crate::verdict::{Event, Failure, FailureKind, SourceRef, Timing};

impl Run<'_, '_> {
    /// VAL's ownership check over the events of one happening (its `Ownership` class):
    /// first every event's conditions claim what they read, then each event's effects claim
    /// what they change, in order. The first claim that clashes names the event that made
    /// it and the one that held the atom or fluent.
    pub(super) fn interference(&self, group: &[Ev], t: f64, h: usize) -> Option<Failure> {
        let mut owner = Owners::default();
        for (i, e) in group.iter().enumerate() {
            let step = &self.steps[e.step];
            let mut b = step.binding.clone();
            let mut reads = Reads::default();
            self.reads_of(step.conditions(e.event), &mut b, &mut reads);
            if e.event == Event::Start
                && let Some(d) = step.durative()
            {
                for (_, expr) in &d.duration {
                    self.fluents_of(expr, &b, &mut reads.fluents);
                }
            }
            // Only reads have been claimed so far, so these never clash.
            for (key, label) in reads.atoms {
                if let Some(clash) = owner.read_atom(key, label, i) {
                    return Some(self.mutex(group, i, clash, t));
                }
            }
            for (key, label) in reads.fluents {
                if let Some(clash) = owner.read_fluent(key, label, i) {
                    return Some(self.mutex(group, i, clash, t));
                }
            }
        }
        for (i, e) in group.iter().enumerate() {
            let step = &self.steps[e.step];
            let mut b = step.binding.clone();
            let mut claims = Vec::new();
            self.changes_of(step.effects(e.event), &mut b, h, &mut claims);
            for claim in claims {
                let clash = match claim {
                    Claim::Atom(key, label, add) => owner.change_atom(key, label, add, i),
                    Claim::ReadAtom(key, label) => owner.read_atom(key, label, i),
                    Claim::ReadFluent(key, label) => owner.read_fluent(key, label, i),
                    Claim::Fluent(key, label, op) => owner.change_fluent(key, label, op, i),
                };
                if let Some(clash) = clash {
                    return Some(self.mutex(group, i, clash, t));
                }
            }
        }
        None
    }

    fn mutex(&self, group: &[Ev], i: usize, clash: Clash, t: f64) -> Failure {
        let e = group[i];
        let step = &self.steps[e.step];
        let k = e.step + 1;
        let other = clash.other.map(|o| group[o]);
        let contested = clash.label.text(self.task);
        let how = match clash.held {
            Own::Pre => "reads",
            Own::Add | Own::AddPre => "adds",
            Own::Del | Own::DelPre => "deletes",
            Own::Assign => "assigns",
        };
        let with = match other {
            Some(o) if o.step == e.step => format!(
                "which its own {} {how} (the step is shorter than a tenth of the tolerance)",
                o.event.as_str()
            ),
            Some(o) => format!(
                "which step {} {} {how} as it {} in the same happening",
                o.step + 1,
                self.steps[o.step].text,
                event_verb(o.event)
            ),
            None => "which it changes once already".into(),
        };
        Failure {
            kind: FailureKind::Mutex,
            step: Some(k),
            action: Some(step.text.clone()),
            message: format!(
                "step {k} {} {} at time {} and {} {contested}, {with}",
                step.text,
                event_verb(e.event),
                Number(round_time(t)),
                clash.verb,
            ),
            unmet: Vec::new(),
            advice: vec![format!(
                "move one of the two events at least a tenth of the tolerance ({}) away from the other, so that one completes before the other starts",
                Number(self.tolerance / 10.0)
            )],
            source: Some(SourceRef {
                file: FileKind::Plan,
                span: step.span,
            }),
            constraint: None,
            timing: Some(Timing {
                time: round_time(t),
                event: e.event,
                interval: None,
                other_step: other.map(|o| o.step + 1),
                contested: Some(contested),
            }),
        }
    }

    /// The atoms (of predicates actions change) and fluents a condition reads, under binding
    /// `b`; quantifiers range over their objects.
    fn reads_of(&self, c: &Cond, b: &mut Vec<ObjId>, out: &mut Reads) {
        let task = self.task;
        match c {
            Cond::True | Cond::Eq(..) => {}
            Cond::Atom(a) => {
                if task.preds[a.pred as usize].kind == PredKind::Fluent {
                    let args: Vec<ObjId> = a.args.iter().map(|&x| arg(x, b)).collect();
                    out.atoms
                        .push((task.atom_key(a.pred, &args), Label::Atom(a.pred, args)));
                }
            }
            Cond::Not(inner, _) => self.reads_of(inner, b, out),
            Cond::And(parts) | Cond::Or(parts, _) => {
                for p in parts {
                    self.reads_of(p, b, out);
                }
            }
            Cond::Imply(x, y) => {
                self.reads_of(x, b, out);
                self.reads_of(y, b, out);
            }
            Cond::Quant { vars, body, .. } => self.reads_quantified(vars, body, b, out),
            Cond::Compare(_, l, r, _) => {
                self.fluents_of(l, b, &mut out.fluents);
                self.fluents_of(r, b, &mut out.fluents);
            }
        }
    }

    fn reads_quantified(&self, vars: &[QVar], body: &Cond, b: &mut Vec<ObjId>, out: &mut Reads) {
        let Some((first, rest)) = vars.split_first() else {
            return self.reads_of(body, b, out);
        };
        if crate::cancel::abandoned() {
            return;
        }
        if b.len() <= first.slot as usize {
            b.resize(first.slot as usize + 1, 0);
        }
        for &o in &self.task.domains[first.domain as usize] {
            b[first.slot as usize] = o;
            self.reads_quantified(rest, body, b, out);
        }
    }

    fn fluents_of(&self, e: &NumExpr, b: &[ObjId], out: &mut Vec<(Key, Label)>) {
        match e {
            NumExpr::Fluent(f) => {
                let args: Vec<ObjId> = f.args.iter().map(|&x| arg(x, b)).collect();
                out.push((
                    self.task.value_key(f.func, &args),
                    Label::Fluent(f.func, args),
                ));
            }
            NumExpr::Arith(_, args) => args.iter().for_each(|a| self.fluents_of(a, b, out)),
            NumExpr::Const(_) | NumExpr::TotalTime | NumExpr::Duration | NumExpr::IsViolated(_) => {
            }
        }
    }

    /// What effects claim, in order, under binding `b`: the atoms they add or delete, the
    /// fluents they update and the fluents their values read, and the condition of each
    /// `when` that fires (VAL claims it as read when it holds).
    fn changes_of(&self, effs: &[Eff], b: &mut Vec<ObjId>, h: usize, out: &mut Vec<Claim>) {
        let task = self.task;
        // VAL claims in this order (`Action::handleEffects`): adds, deletes, conditional
        // effects, numeric effects, `forall` effects. The order decides corner cases, such
        // as an event that adds and deletes one atom beside another event that adds it.
        let rank = |e: &Eff| match e {
            Eff::Add(_) => 0,
            Eff::Del(_) => 1,
            Eff::When { .. } => 2,
            Eff::Num { .. } => 3,
            Eff::Forall { .. } => 4,
        };
        let mut ordered: Vec<&Eff> = effs.iter().collect();
        ordered.sort_by_key(|e| rank(e));
        for e in ordered {
            match e {
                Eff::Add(a) | Eff::Del(a) => {
                    let args: Vec<ObjId> = a.args.iter().map(|&x| arg(x, b)).collect();
                    out.push(Claim::Atom(
                        task.atom_key(a.pred, &args),
                        Label::Atom(a.pred, args),
                        matches!(e, Eff::Add(_)),
                    ));
                }
                Eff::Num {
                    op, target, value, ..
                } => {
                    let args: Vec<ObjId> = target.args.iter().map(|&x| arg(x, b)).collect();
                    let mut reads = Vec::new();
                    self.fluents_of(value, b, &mut reads);
                    out.extend(reads.into_iter().map(|(k, l)| Claim::ReadFluent(k, l)));
                    out.push(Claim::Fluent(
                        task.value_key(target.func, &args),
                        Label::Fluent(target.func, args),
                        *op,
                    ));
                }
                Eff::When { cond, body } => {
                    if matches!(task.eval(&self.state, cond, b, h), Ok(true)) {
                        let mut reads = Reads::default();
                        self.reads_of(cond, b, &mut reads);
                        out.extend(reads.atoms.into_iter().map(|(k, l)| Claim::ReadAtom(k, l)));
                        out.extend(
                            reads
                                .fluents
                                .into_iter()
                                .map(|(k, l)| Claim::ReadFluent(k, l)),
                        );
                        self.changes_of(body, b, h, out);
                    }
                }
                Eff::Forall { vars, body } => self.changes_forall(vars, body, b, h, out),
            }
        }
    }

    fn changes_forall(
        &self,
        vars: &[QVar],
        body: &[Eff],
        b: &mut Vec<ObjId>,
        h: usize,
        out: &mut Vec<Claim>,
    ) {
        let Some((first, rest)) = vars.split_first() else {
            return self.changes_of(body, b, h, out);
        };
        if crate::cancel::abandoned() {
            return;
        }
        let task = self.task;
        if b.len() <= first.slot as usize {
            b.resize(first.slot as usize + 1, 0);
        }
        for &o in &task.domains[first.domain as usize] {
            b[first.slot as usize] = o;
            self.changes_forall(rest, body, b, h, out);
        }
    }
}

/// A ground atom or fluent, to name it in a message.
#[derive(Clone, Debug)]
enum Label {
    Atom(u32, Vec<ObjId>),
    Fluent(u32, Vec<ObjId>),
}

impl Label {
    fn text(&self, task: &Task) -> String {
        match self {
            Label::Atom(p, args) => {
                task.ground_text(&task.preds[*p as usize].sym.name.to_lowercase(), args)
            }
            Label::Fluent(f, args) => task.fluent_text(*f, args),
        }
    }
}

#[derive(Default)]
struct Reads {
    atoms: Vec<(Key, Label)>,
    fluents: Vec<(Key, Label)>,
}

/// One claim an event's effects make, in the order VAL makes them.
enum Claim {
    /// Adds (`true`) or deletes an atom.
    Atom(Key, Label, bool),
    /// Reads an atom (the condition of a `when` that fires).
    ReadAtom(Key, Label),
    /// Reads a fluent (a numeric effect's value, a `when` condition).
    ReadFluent(Key, Label),
    /// Updates a fluent.
    Fluent(Key, Label, AssignOp),
}

/// How an atom or fluent is held in a happening (VAL's `ownership`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Own {
    /// Read by a condition.
    Pre,
    /// Added (atoms) or increased/decreased (fluents).
    Add,
    /// Deleted.
    Del,
    /// Read by the event's own condition, then added.
    AddPre,
    /// Read by the event's own condition, then deleted.
    DelPre,
    /// Assigned, scaled (fluents).
    Assign,
}

/// A clash: the other event (`None` when there is no other, e.g. an event that assigns a
/// fluent twice), how it held the atom or fluent, what this event did to it, and which.
struct Clash {
    other: Option<usize>,
    held: Own,
    verb: &'static str,
    label: Label,
}

/// How one atom or fluent is held in a happening: by one event, or shared by several
/// readers (`owner: None`), and every event that claimed it, in order.
struct Hold {
    owner: Option<usize>,
    own: Own,
    holders: Vec<usize>,
}

impl Hold {
    fn new(i: usize, own: Own) -> Hold {
        Hold {
            owner: Some(i),
            own,
            holders: vec![i],
        }
    }

    fn clash(&self, i: usize, verb: &'static str, label: Label) -> Option<Clash> {
        Some(Clash {
            other: self.holders.iter().copied().find(|&h| h != i),
            held: self.own,
            verb,
            label,
        })
    }

    fn claim(&mut self, i: usize) {
        if !self.holders.contains(&i) {
            self.holders.push(i);
        }
    }
}

/// Who holds which atom and fluent in one happening, by event index in the group.
#[derive(Default)]
struct Owners {
    atoms: FxHashMap<Key, Hold>,
    fluents: FxHashMap<Key, Hold>,
}

impl Owners {
    /// A condition of event `i` reads atom `key` (VAL's `markOwnedPrecondition`): a second
    /// reader shares it; an atom another event adds or deletes is a clash.
    fn read_atom(&mut self, key: Key, label: Label, i: usize) -> Option<Clash> {
        match self.atoms.get_mut(&key) {
            Some(hold) if hold.own == Own::Pre => {
                if hold.owner != Some(i) {
                    hold.owner = None;
                }
                hold.claim(i);
                None
            }
            Some(hold) if hold.owner == Some(i) => None,
            Some(hold) => hold.clash(i, "reads", label),
            None => {
                self.atoms.insert(key, Hold::new(i, Own::Pre));
                None
            }
        }
    }

    /// A condition or a numeric right-hand side of event `i` reads fluent `key`.
    fn read_fluent(&mut self, key: Key, label: Label, i: usize) -> Option<Clash> {
        match self.fluents.get_mut(&key) {
            None => {
                self.fluents.insert(key, Hold::new(i, Own::Pre));
                None
            }
            Some(hold) if hold.owner == Some(i) => None,
            Some(hold) if hold.own == Own::Pre => {
                hold.owner = None;
                hold.claim(i);
                None
            }
            Some(hold) => hold.clash(i, "reads", label),
        }
    }

    /// Event `i` adds (`add`) or deletes atom `key` (VAL's `ownsForAdd`/`ownsForDel`).
    fn change_atom(&mut self, key: Key, label: Label, add: bool, i: usize) -> Option<Clash> {
        let mine = if add { Own::Add } else { Own::Del };
        let verb = if add { "adds" } else { "deletes" };
        match self.atoms.get_mut(&key) {
            None => {
                self.atoms.insert(key, Hold::new(i, mine));
                None
            }
            // Another event holds it in any other way (even both adding after one of them
            // read it): VAL's `po->second.first != a && po->second.second != E_ADD`.
            Some(hold) if hold.owner != Some(i) && hold.own != mine => hold.clash(i, verb, label),
            Some(hold) => {
                if hold.owner == Some(i) && hold.own == Own::Pre {
                    hold.own = if add { Own::AddPre } else { Own::DelPre };
                }
                hold.claim(i);
                None
            }
        }
    }

    /// Event `i` updates fluent `key` with `op` (VAL's `markOwnedEffectFE`).
    fn change_fluent(&mut self, key: Key, label: Label, op: AssignOp, i: usize) -> Option<Clash> {
        let additive = matches!(op, AssignOp::Increase | AssignOp::Decrease);
        let mine = if additive { Own::Add } else { Own::Assign };
        match self.fluents.get_mut(&key) {
            None => {
                self.fluents.insert(key, Hold::new(i, mine));
                None
            }
            Some(hold) if hold.owner != Some(i) => {
                if hold.own == Own::Add && additive {
                    // Increases and decreases by several events commute.
                    hold.owner = None;
                    hold.claim(i);
                    None
                } else {
                    hold.clash(i, "updates", label)
                }
            }
            Some(hold) => match hold.own {
                Own::Pre => {
                    hold.own = mine;
                    None
                }
                Own::Add if additive => None,
                Own::Add | Own::Assign | Own::Del | Own::AddPre | Own::DelPre => {
                    hold.clash(i, "updates", label)
                }
            },
        }
    }
}
