//! Write a judge of your own and run it in the refinement loop: implement [`Judge`] (one
//! `critique` method returning REMOVE / MISSING critiques), pair it with the deterministic
//! [`ApplyCritiques`] reviser, and let [`Refiner`] judge, revise and judge again until the
//! judge is satisfied. Every step keeps its original index, so the loop can say exactly
//! which of the original steps it flagged.
//!
//! `cargo run -q -p safeplan-examples --example custom_judge`

#![allow(clippy::print_stdout)]

use std::sync::Arc;

use async_trait::async_trait;
use safeplan_judge::{
    ApplyCritiques, Critique, Episode, Judge, JudgeError, Judgement, Plan, RefineOptions, Refiner,
};

/// Flags steps that achieve nothing: a step that repeats the step before it, and a step
/// immediately undone by the next one (`Open(X)` then `Close(X)`). It looks only at
/// neighbours, so removing a pair can make a new repeat appear: the next round catches it.
struct NoEffectJudge;

#[async_trait]
impl Judge for NoEffectJudge {
    fn name(&self) -> String {
        "no-effect".into()
    }

    async fn critique(&self, _episode: &Episode, plan: &Plan) -> Result<Judgement, JudgeError> {
        let (steps, mut critiques) = (plan.texts(), Vec::new());
        let mut last: Option<usize> = None; // the last step not flagged yet
        for (i, &step) in steps.iter().enumerate() {
            match last.map(|j| (j, steps[j])) {
                Some((_, prev)) if prev == step => {
                    critiques.push(Critique::remove(i, format!("repeats {prev}")));
                }
                Some((j, prev)) if undoes(prev, step) => {
                    critiques.push(Critique::remove(j, format!("undone by {step}")));
                    critiques.push(Critique::remove(i, format!("undoes {prev}")));
                    last = None;
                }
                _ => last = Some(i),
            }
        }
        Ok(critiques.into()) // no critique: the judge is satisfied and the loop stops
    }
}

/// Whether `next` reverses `step` on the same object, e.g. `ToggleOn(Lamp)`, `ToggleOff(Lamp)`.
fn undoes(step: &str, next: &str) -> bool {
    let inverse = [("Open(", "Close("), ("ToggleOn(", "ToggleOff(")];
    inverse.iter().any(|(a, b)| {
        let (x, y) = (step.strip_prefix(a), next.strip_prefix(b));
        x.is_some() && x == y
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Hand-written episodes, `id: actions`. Only the actions matter to this judge; a real
    // episode also has a goal and dialogue (see `safeplan_judge::read_episodes`).
    let episodes = [
        "coffee: Navigate(Counter) PickUp(Mug) Open(Fridge) Close(Fridge) PickUp(Mug) Place(Mug,Machine) ToggleOn(Machine)",
        "lamp: ToggleOn(Lamp) ToggleOn(Lamp) ToggleOff(Lamp) Navigate(Door)",
        "book: Navigate(Shelf) PickUp(Book) Navigate(Desk) Place(Book,Desk)",
    ];
    let refiner = Refiner::new(
        Arc::new(NoEffectJudge),
        Arc::new(ApplyCritiques),
        RefineOptions::default(),
    );
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    for line in episodes {
        let (id, actions) = line.split_once(": ").unwrap_or_default();
        let actions = actions.split(' ').map(String::from).collect();
        let episode = Episode {
            id: id.into(),
            actions,
            ..Episode::default()
        };
        let result = runtime.block_on(refiner.refine(&episode));
        println!("episode {id}:");
        for round in &result.rounds {
            println!("  round {}: {}", round.round, round.plan.texts().join(" "));
            for c in &round.judgement.critiques {
                let step = c.index.map_or("?".into(), |i| (i + 1).to_string());
                println!("    {} step {step}: {}", c.kind.tag(), c.reason);
            }
        }
        println!("  final:   {}", result.final_plan.texts().join(" "));
        // Provenance: `flagged` are 0-based indices into the *original* actions.
        let flagged: Vec<usize> = result.flagged().iter().map(|i| i + 1).collect();
        println!(
            "  stopped: {:?}; original steps removed: {flagged:?}\n",
            result.stop
        );
    }
    Ok(())
}
