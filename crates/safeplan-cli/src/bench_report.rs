//! `safeplan report`: a benchmark results store or a judge run, as Markdown, HTML, JSON or
//! CSV. The numbers are computed by `safeplan_bench::report`; this module only finds the
//! input, picks the renderer and writes the output.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use safeplan_bench::Store;
use safeplan_bench::report::{
    JudgeReport, JudgeRunMetrics, Report, ReportOptions, render_csv, render_html, render_json,
    render_judge_csv, render_judge_html, render_judge_json, render_judge_markdown, render_markdown,
};
use safeplan_metrics::BootstrapOptions;

use crate::outcome::Failure;

/// Arguments of `safeplan report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results store written by `safeplan bench --out RUN.db`, or a judge run: the folder
    /// `safeplan judge --out DIR` wrote (holding metrics.json) or that metrics.json itself.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    /// The output format: md (Markdown tables), html (one self-contained page with SVG
    /// charts), json (the report as data) or csv (long form, one row per planner, table,
    /// group and metric).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ReportFormat::Md)]
    pub format: ReportFormat,

    /// Write the report to FILE instead of standard output. For html without --out the page
    /// is written beside the input (RUN.html, or report.html in a judge folder).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Bootstrap resamples per interval (0: intervals collapse to the point).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub resamples: usize,

    /// Seed of the bootstrap: the same seed gives the same report, byte for byte.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// The report's title (by default it names the ability and the suite).
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
}

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Markdown tables.
    Md,
    /// One self-contained HTML page with charts.
    Html,
    /// The report as JSON data.
    Json,
    /// Long-form CSV.
    Csv,
}

fn input(message: impl Into<String>, hint: impl Into<String>) -> Failure {
    Failure::Input {
        message: message.into(),
        hint: Some(hint.into()),
    }
}

/// What PATH turned out to be.
enum Source {
    Store(PathBuf),
    Judge(PathBuf),
}

const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

fn locate(path: &Path) -> Result<Source, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| {
        input(
            format!("cannot read {}: {e}", path.display()),
            "give a results store written by `safeplan bench --out RUN.db`, or the folder \
             written by `safeplan judge --out DIR`",
        )
    })?;
    if meta.is_dir() {
        let metrics = path.join("metrics.json");
        if metrics.is_file() {
            return Ok(Source::Judge(metrics));
        }
        return Err(input(
            format!("{} is a folder without metrics.json", path.display()),
            "a judge run folder holds metrics.json when its episodes had gold labels; for a \
             benchmark, give the results store file (RUN.db)",
        ));
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| {
            input(
                format!("cannot read {}: {e}", path.display()),
                "check the path and its permissions",
            )
        })?;
    if n == head.len() && head == SQLITE_MAGIC {
        Ok(Source::Store(path.to_path_buf()))
    } else if head[..n].trim_ascii_start().starts_with(b"{") {
        Ok(Source::Judge(path.to_path_buf()))
    } else {
        Err(input(
            format!(
                "{} is neither a results store (SQLite) nor a judge run's metrics.json",
                path.display()
            ),
            "give a results store written by `safeplan bench --out RUN.db`, or the folder \
             written by `safeplan judge --out DIR`",
        ))
    }
}

/// Run `safeplan report`.
pub fn run(args: &ReportArgs) -> Result<(), Failure> {
    let options = ReportOptions {
        bootstrap: BootstrapOptions {
            resamples: args.resamples,
            seed: args.seed,
            ..BootstrapOptions::default()
        },
        title: args.title.clone(),
    };
    let (text, default_html) = match locate(&args.path)? {
        Source::Store(path) => {
            let store = Store::open(&path).map_err(|e| {
                input(
                    e.to_string(),
                    "give a results store written by `safeplan bench --out RUN.db`",
                )
            })?;
            let report = Report::from_store(&store, &options).map_err(|e| {
                input(
                    e.to_string(),
                    "the store may come from another safeplan version or be damaged",
                )
            })?;
            let text = match args.format {
                ReportFormat::Md => render_markdown(&report),
                ReportFormat::Html => render_html(&report),
                ReportFormat::Json => render_json(&report),
                ReportFormat::Csv => render_csv(&report),
            };
            (text, path.with_extension("html"))
        }
        Source::Judge(path) => {
            let raw = std::fs::read_to_string(&path).map_err(|e| {
                input(
                    format!("cannot read {}: {e}", path.display()),
                    "check the path and its permissions",
                )
            })?;
            let metrics: JudgeRunMetrics = serde_json::from_str(&raw).map_err(|e| {
                input(
                    format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()),
                    "a judge run's metrics.json is written by `safeplan judge --out DIR`",
                )
            })?;
            let report = JudgeReport::from_metrics(&metrics, &path.display().to_string(), &options);
            let text = match args.format {
                ReportFormat::Md => render_judge_markdown(&report),
                ReportFormat::Html => render_judge_html(&report),
                ReportFormat::Json => render_judge_json(&report),
                ReportFormat::Csv => render_judge_csv(&report),
            };
            let beside = if path.file_name().is_some_and(|n| n == "metrics.json") {
                path.with_file_name("report.html")
            } else {
                path.with_extension("html")
            };
            (text, beside)
        }
    };
    let target = match (&args.out, args.format) {
        (Some(out), _) => Some(out.clone()),
        (None, ReportFormat::Html) => Some(default_html),
        (None, _) => None,
    };
    match target {
        Some(out) => {
            std::fs::write(&out, text.as_bytes()).map_err(|e| {
                input(
                    format!("cannot write {}: {e}", out.display()),
                    "choose another --out file",
                )
            })?;
            #[allow(clippy::print_stderr)]
            {
                eprintln!("wrote {}", out.display());
            }
            Ok(())
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            match lock.write_all(text.as_bytes()).and_then(|()| lock.flush()) {
                Ok(()) => Ok(()),
                // A reader that went away (`| head`) got what it wanted.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(Failure::Write(e)),
            }
        }
    }
}
