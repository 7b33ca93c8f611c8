//! The TEACh judges on the labelled dev split, scored as the paper scores them.

use std::sync::Arc;

use safeplan_judge::score::judge_metrics;
use safeplan_judge::{
    ApplyCritiques, Combine, EnsembleJudge, Judge, RefineOptions, Refiner, RuleJudge, StateJudge,
};

use crate::common::{block_on, judge_dev};

fn run(judge: Arc<dyn Judge>) -> Option<safeplan_judge::score::JudgeMetrics> {
    let dev = judge_dev()?;
    let episodes: Vec<_> = dev.iter().map(|l| l.episode.clone()).collect();
    let gold: Vec<_> = dev.iter().map(|l| l.gold.clone()).collect();
    let refiner = Refiner::new(judge, Arc::new(ApplyCritiques), RefineOptions::default());
    let refined = block_on(refiner.refine_all(&episodes, |_, _| {}));
    Some(judge_metrics(&refined, &gold, 5))
}

#[test]
fn state_judge_on_dev() {
    let Some(m) = run(Arc::new(StateJudge)) else {
        return;
    };
    eprintln!(
        "state: P {:.3} R {:.3} F1 {:.3} tp {} fp {} fn {} missing {:?}",
        m.precision, m.recall, m.f1, m.tp, m.fp, m.fn_, m.missing
    );
    for e in &m.per_episode {
        if e.remove.fp + e.remove.fn_ > 0 {
            eprintln!("  {} {:?}", e.id, e.remove);
        }
    }
    eprintln!(
        "  convergence {:?}",
        m.convergence.iter().map(|p| p.share).collect::<Vec<_>>()
    );
}

#[test]
fn rule_judge_on_dev() {
    let Some(m) = run(Arc::new(RuleJudge)) else {
        return;
    };
    eprintln!(
        "rule: P {:.3} R {:.3} F1 {:.3} tp {} fp {} fn {}",
        m.precision, m.recall, m.f1, m.tp, m.fp, m.fn_
    );
    let Some(u) = run(Arc::new(EnsembleJudge::new(
        vec![Arc::new(StateJudge), Arc::new(RuleJudge)],
        Combine::Union,
    ))) else {
        return;
    };
    eprintln!(
        "union: P {:.3} R {:.3} F1 {:.3} tp {} fp {} fn {}",
        u.precision, u.recall, u.f1, u.tp, u.fp, u.fn_
    );
    let Some(u) = run(Arc::new(EnsembleJudge::new(
        vec![Arc::new(StateJudge), Arc::new(RuleJudge)],
        Combine::Intersection,
    ))) else {
        return;
    };
    eprintln!(
        "inter: P {:.3} R {:.3} F1 {:.3} tp {} fp {} fn {}",
        u.precision, u.recall, u.f1, u.tp, u.fp, u.fn_
    );
}
