//! `safeplan judge --cv K`: the judge's figures cross-validated by game, so that no figure
//! is measured on the episodes its settings were chosen on (docs/JUDGE.md, "Figures").

use std::io::Write;
use std::sync::Arc;

use safeplan_judge::cv::{CrossValidation, CvOptions, Fitted, cross_validate};
use safeplan_judge::{Judge, LabelledEpisode, RefineOptions, Reviser, StateJudge, StateRules};
use safeplan_metrics::{BootstrapOptions, Rate};

use crate::judge::{JudgeArgs, Status, input};
use crate::outcome::Failure;

/// Run the cross-validation and write `cv.json` into `--out`.
pub fn run(
    args: &JudgeArgs,
    folds: usize,
    judge: Arc<dyn Judge>,
    reviser: Arc<dyn Reviser>,
    labelled: &[LabelledEpisode],
) -> Result<Status, Failure> {
    // A state judge chooses which of its rules apply; other judges have no settings.
    let base: Option<StateJudge> = match args.judge.as_str() {
        "state" => Some(StateJudge::default()),
        spec => spec
            .strip_prefix("state:")
            .and_then(|rules| StateRules::parse(rules).ok())
            .map(StateJudge::with_rules),
    };
    let fit = |training: &[&LabelledEpisode]| {
        if let Some(base) = &base {
            let fitted = base.fit(training);
            Fitted {
                settings: fitted
                    .rules
                    .iter()
                    .map(|r| {
                        serde_json::to_value(r)
                            .ok()
                            .and_then(|v| v.as_str().map(String::from))
                            .unwrap_or_default()
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                judge: Arc::new(fitted),
            }
        } else {
            Fitted {
                judge: judge.clone(),
                settings: String::new(),
            }
        }
    };
    let options = CvOptions {
        folds,
        seed: args.cv_seed,
        bootstrap: BootstrapOptions {
            seed: args.cv_seed,
            ..BootstrapOptions::default()
        },
    };
    let refine = RefineOptions {
        max_rounds: args.max_rounds,
        concurrency: args.concurrency.max(1),
    };
    let runtime = crate::judge::runtime()?;
    let cv = runtime
        .block_on(cross_validate(labelled, fit, reviser, refine, options))
        .map_err(|e| {
            input(
                e.to_string(),
                "label more games, or ask for fewer folds (--cv 5 is usual)",
            )
        })?;
    let unwritable = |e: std::io::Error| {
        input(
            format!("cannot write {}: {e}", args.out.display()),
            "choose another --out folder",
        )
    };
    std::fs::create_dir_all(&args.out).map_err(unwritable)?;
    let path = args.out.join("cv.json");
    let json = serde_json::to_string_pretty(&cv).map_err(|e| {
        input(
            format!("cannot encode the cross-validation: {e}"),
            "this is a bug; please report it",
        )
    })?;
    std::fs::write(&path, json.clone() + "\n").map_err(unwritable)?;
    let text = if args.json {
        json + "\n"
    } else {
        summary(&cv, &path.display().to_string())
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // A reader that went away (`| head`) is not an error of the run.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(Status::Done)
}

fn ci(rate: &Rate) -> String {
    format!("[{:.3}, {:.3}]", rate.ci_low, rate.ci_high)
}

fn summary(cv: &CrossValidation, written: &str) -> String {
    let mut s = format!(
        "cross-validated {} over {} labelled episodes of {} games, {} folds by game (seed {}); \
         each fold scored by the judge fitted on the others\n\n\
         | fold | games | episodes | settings fitted on the other folds | precision | recall | F1 | tp | fp | fn |\n\
         |---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n",
        cv.judge, cv.episodes, cv.games, cv.options.folds, cv.options.seed
    );
    for f in &cv.folds {
        let settings = if f.settings.is_empty() {
            "(none)"
        } else {
            &f.settings
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {} | {} |\n",
            f.fold + 1,
            f.games,
            f.episodes,
            settings,
            f.figures.precision,
            f.figures.recall,
            f.figures.f1,
            f.figures.tp,
            f.figures.fp,
            f.figures.fn_
        ));
    }
    let p = &cv.pooled;
    s.push_str(&format!(
        "\npooled (held-out): P {:.3} {}  R {:.3} {}  F1 {:.3} {}  (95% bootstrap over games, {} resamples)\n",
        p.precision.rate,
        ci(&p.precision),
        p.recall.rate,
        ci(&p.recall),
        p.f1.rate,
        ci(&p.f1),
        cv.options.bootstrap.resamples
    ));
    s.push_str(&format!("\nwrote {written}\n"));
    s
}
