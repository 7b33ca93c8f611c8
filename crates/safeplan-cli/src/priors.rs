//! `safeplan priors`: learn the state judge's priors from unlabelled episodes
//! (`safeplan_judge::priors`).

use std::path::PathBuf;

use clap::Args;
use safeplan_judge::priors::Priors;

use crate::judge::{input, load_episodes};
use crate::outcome::Failure;

/// Arguments of `safeplan priors`.
#[derive(Debug, Args)]
pub struct PriorsArgs {
    /// The episodes: JSON Lines (optionally gzipped), one episode per line; gold labels,
    /// if any, are not read.
    #[arg(value_name = "EPISODES")]
    pub episodes: PathBuf,

    /// Where to write the counts (JSON).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Run `safeplan priors`.
pub fn run(args: &PriorsArgs) -> Result<(), Failure> {
    let episodes = load_episodes(&args.episodes)?;
    let priors = Priors::learn(episodes.iter().map(|l| l.episode.actions.as_slice()));
    let json = serde_json::to_string_pretty(&priors).map_err(|e| {
        input(
            format!("cannot encode the priors: {e}"),
            "this is a bug; please report it",
        )
    })?;
    std::fs::write(&args.out, json + "\n").map_err(|e| {
        input(
            format!("cannot write {}: {e}", args.out.display()),
            "choose another --out file",
        )
    })?;
    Ok(())
}
