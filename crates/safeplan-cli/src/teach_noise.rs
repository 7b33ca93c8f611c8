//! `safeplan teach-noise`: a labelled synthetic judge set — the paper's four kinds of noise
//! injected into real unlabelled TEACh games at known places (`safeplan_judge::noise`).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use safeplan_judge::noise::{NoiseKind, inject};
use safeplan_judge::priors::Priors;

use crate::judge::{input, load_episodes};
use crate::outcome::Failure;

/// Arguments of `safeplan teach-noise`.
#[derive(Debug, Args)]
pub struct TeachNoiseArgs {
    /// Unlabelled episodes (JSON Lines, optionally gzipped), e.g. teach/episodes.jsonl.gz.
    #[arg(value_name = "EPISODES")]
    pub episodes: PathBuf,

    /// Games used: the shortest ones (by number of steps, then id), as the paper's authors
    /// took the 100 shortest TEACh games.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub games: usize,

    /// Seed of where and what is injected.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// The labelled set to write (JSON Lines in the judge-dev format).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Run `safeplan teach-noise`: one episode per game and kind that fits it.
pub fn run(args: &TeachNoiseArgs) -> Result<(), Failure> {
    let mut games = load_episodes(&args.episodes)?;
    games.sort_by(|a, b| {
        (a.episode.actions.len(), &a.episode.id).cmp(&(b.episode.actions.len(), &b.episode.id))
    });
    games.truncate(args.games);
    let priors = Priors::teach();
    let unwritable = |e: std::io::Error| {
        input(
            format!("cannot write {}: {e}", args.out.display()),
            "choose another --out file",
        )
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args.out).map_err(unwritable)?);
    for (g, game) in games.iter().enumerate() {
        for (k, kind) in NoiseKind::ALL.into_iter().enumerate() {
            let seed = args.seed ^ ((g as u64) << 8 | k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            if let Some(noisy) = inject(&game.episode, kind, &priors, seed) {
                serde_json::to_writer(&mut out, &noisy.to_json())
                    .map_err(|e| unwritable(e.into()))?;
                out.write_all(b"\n").map_err(unwritable)?;
            }
        }
    }
    out.flush().map_err(unwritable)?;
    Ok(())
}
