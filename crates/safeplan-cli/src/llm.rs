//! `safeplan llm ask`: send one prompt through the same provider stack the benchmark uses,
//! and print the reply and its usage.
//!
//! Exit codes: 0 a reply was printed; 1 the provider failed (after retries: auth, rate
//! limit, quota, invalid request, content filter, timeout, transport, server, malformed
//! response, replay miss); 2 the invocation cannot work (bad spec, missing key, unreadable
//! price table or prompt, a cache or cassette that cannot be opened).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use safeplan_llm::{
    CacheConfig, CassetteConfig, ChatRequest, ChatResponse, LlmError, PriceTable, ProviderSpec,
    ResponseFormat, RetryPolicy, Stack,
};

/// Exit code: the provider failed.
const EXIT_PROVIDER: u8 = 1;
/// Exit code: the invocation cannot work.
const EXIT_CONFIG: u8 = 2;

/// Arguments of `safeplan llm`.
#[derive(Debug, Args)]
pub struct LlmArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: LlmCommand,
}

/// The `llm` subcommands.
#[derive(Debug, Subcommand)]
pub enum LlmCommand {
    /// Send one prompt to a provider and print the reply and its usage.
    #[command(
        long_about = "Send one prompt to a provider, through the same layers the benchmark \
                      uses (retry with backoff, timeout, optional response cache, optional \
                      record/replay), and print the reply, then a usage line (tokens, latency, \
                      cost when --prices lists the model).\n\n\
                      Provider specs: openai:MODEL, gemini:MODEL, ollama:MODEL, \
                      openai-compatible:BASE_URL#MODEL. Keys come from OPENAI_API_KEY, \
                      GEMINI_API_KEY (or GOOGLE_API_KEY) and, for openai-compatible, \
                      OPENAI_COMPATIBLE_API_KEY; base URLs from OPENAI_BASE_URL, \
                      GEMINI_BASE_URL and OLLAMA_HOST. See docs/LLM.md.",
        after_help = "Examples:\n  \
                      safeplan llm ask --provider openai:gpt-4o-mini \"Say hi\"\n  \
                      safeplan llm ask --provider ollama:llama3.2 --temperature 0 --cache llm.sqlite \"Say hi\"\n  \
                      safeplan llm ask --provider openai-compatible:http://127.0.0.1:8000/v1#qwen \"Say hi\"\n  \
                      safeplan llm ask --provider gemini:gemini-2.5-flash --json-mode --json \"List 3 colours as JSON\"\n  \
                      safeplan llm ask --provider openai:gpt-4o-mini --replay run.jsonl --temperature 0 \"Say hi\"\n\n\
                      Exit status: 0 a reply was printed, 1 the provider failed (after retries), \
                      2 unusable invocation (bad spec, missing key, unreadable file)."
    )]
    Ask(AskArgs),
}

/// Arguments of `safeplan llm ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The provider: openai:MODEL, gemini:MODEL, ollama:MODEL or
    /// openai-compatible:BASE_URL#MODEL.
    #[arg(long, value_name = "SPEC")]
    pub provider: String,

    /// The prompt (`-` reads it from standard input).
    #[arg(value_name = "PROMPT")]
    pub prompt: String,

    /// A system prompt.
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,

    /// Sampling temperature (0 makes the request cacheable).
    #[arg(long, value_name = "T")]
    pub temperature: Option<f64>,

    /// The most tokens to generate.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,

    /// A sampling seed (best effort).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Ask for a JSON object (OpenAI json_object, Gemini application/json, Ollama "json").
    #[arg(long)]
    pub json_mode: bool,

    /// A sample id: makes this request its own cache entry, and cacheable at any temperature.
    #[arg(long, value_name = "ID")]
    pub sample_id: Option<String>,

    /// Cache deterministic replies in this SQLite file (created if missing).
    #[arg(long, value_name = "PATH")]
    pub cache: Option<PathBuf>,

    /// With --cache: do not read the cache, ask the provider and store the fresh reply.
    #[arg(long, requires = "cache")]
    pub no_cache: bool,

    /// Append the exchange to this cassette (JSON Lines).
    #[arg(long, value_name = "PATH", conflicts_with = "replay")]
    pub record: Option<PathBuf>,

    /// Answer from this cassette only: no network, no key needed.
    #[arg(long, value_name = "PATH")]
    pub replay: Option<PathBuf>,

    /// Seconds to wait for each attempt.
    #[arg(long, value_name = "S", default_value_t = 120.0)]
    pub timeout: f64,

    /// Retries after the first attempt (rate limits, timeouts, server errors).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub retries: u32,

    /// A price table (JSON: {"MODEL": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}).
    #[arg(long, value_name = "PATH")]
    pub prices: Option<PathBuf>,

    /// Print the response as one JSON document instead of text and a usage line.
    #[arg(long)]
    pub json: bool,
}

/// Run `safeplan llm`; returns the exit code.
pub fn run(args: &LlmArgs) -> u8 {
    match &args.command {
        LlmCommand::Ask(ask) => match run_ask(ask) {
            Ok(()) => 0,
            Err(e) => {
                let kind = ask.provider.parse::<ProviderSpec>().ok().map(|s| s.kind);
                report(&e, kind);
                match e {
                    LlmError::Config { .. } => EXIT_CONFIG,
                    _ => EXIT_PROVIDER,
                }
            }
        },
    }
}

fn run_ask(args: &AskArgs) -> Result<(), LlmError> {
    let spec: ProviderSpec = args.provider.parse()?;
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| {
            LlmError::config(
                format!(
                    "--timeout {:?} is not a usable number of seconds",
                    args.timeout
                ),
                "write e.g. --timeout 60",
            )
        })?;
    let prompt = if args.prompt == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            LlmError::config(
                format!("cannot read the prompt from standard input: {e}"),
                "pipe UTF-8 text in",
            )
        })?;
        text
    } else {
        args.prompt.clone()
    };
    let prices = match &args.prices {
        None => PriceTable::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                LlmError::config(
                    format!("cannot read the price table {}: {e}", path.display()),
                    "check the path",
                )
            })?;
            PriceTable::from_json(&text)?
        }
    };
    let cassette = CassetteConfig::from_paths(args.record.as_deref(), args.replay.as_deref());
    let stack = Stack {
        retry: Some(RetryPolicy {
            max_attempts: args.retries.saturating_add(1),
            ..RetryPolicy::default()
        }),
        timeout: Some(timeout),
        cache: args.cache.as_ref().map(|path| CacheConfig {
            path: path.clone(),
            bypass: args.no_cache,
        }),
        cassette,
        prices,
        ..Stack::default()
    };
    let mut request = ChatRequest::user(prompt);
    request.system = args.system.clone();
    request.temperature = args.temperature;
    request.max_output_tokens = args.max_tokens;
    request.seed = args.seed;
    request.sample_id = args.sample_id.clone();
    if args.json_mode {
        request.response_format = ResponseFormat::JsonObject;
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            LlmError::config(
                format!("cannot start the async runtime: {e}"),
                "this is a bug; please report it",
            )
        })?;
    let (response, cost) = runtime.block_on(async {
        let built = stack.build_from_env(&spec)?;
        let response = built.provider.chat(&request).await?;
        let cost = built.usage.cost_of(&response);
        Ok::<_, LlmError>((response, cost))
    })?;
    print_response(args, &spec, &response, cost);
    Ok(())
}

fn print_response(args: &AskArgs, spec: &ProviderSpec, r: &ChatResponse, cost: Option<f64>) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // A reader that went away (`| head`) ends the output quietly.
    let _ = if args.json {
        match serde_json::to_string_pretty(r) {
            Ok(json) => writeln!(out, "{json}"),
            Err(_) => Ok(()),
        }
    } else {
        writeln!(out, "{}", r.text.trim_end())
            .and_then(|()| writeln!(out, "{}", usage_line(spec, r, cost)))
    };
    let _ = out.flush();
}

/// `usage: 1117 input (1024 cached) + 46 output (10 reasoning) tokens · 843 ms · ...`
fn usage_line(spec: &ProviderSpec, r: &ChatResponse, cost: Option<f64>) -> String {
    let u = &r.usage;
    let mut line = format!("usage: {} input", u.input_tokens);
    if u.cached_tokens > 0 {
        line.push_str(&format!(" ({} cached)", u.cached_tokens));
    }
    line.push_str(&format!(" + {} output", u.output_tokens));
    if u.reasoning_tokens > 0 {
        line.push_str(&format!(" ({} reasoning)", u.reasoning_tokens));
    }
    line.push_str(&format!(
        " tokens · {} ms · finish {}",
        r.latency_ms,
        finish_name(&r.finish_reason)
    ));
    line.push_str(&format!(" · {spec}"));
    match r.origin {
        safeplan_llm::Origin::Network => {}
        safeplan_llm::Origin::Cache => line.push_str(" · from cache"),
        safeplan_llm::Origin::Replay => line.push_str(" · replayed"),
    }
    if let Some(id) = &r.request_id {
        line.push_str(&format!(" · request {id}"));
    }
    if let Some(cost) = cost {
        line.push_str(&format!(" · ${cost:.6}"));
    }
    line
}

fn finish_name(f: &safeplan_llm::FinishReason) -> String {
    use safeplan_llm::FinishReason;
    match f {
        FinishReason::Stop => "stop".into(),
        FinishReason::Length => "length".into(),
        FinishReason::ContentFilter => "content_filter".into(),
        FinishReason::Other(s) => s.clone(),
        FinishReason::Unknown => "unknown".into(),
    }
}

/// The error and a hint, on stderr; the hint of a fatal error names the variables the spec
/// of `kind` reads.
fn report(e: &LlmError, kind: Option<safeplan_llm::ProviderKind>) {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let _ = writeln!(err, "error: {e}");
    let hint: Option<String> = match (e, kind) {
        (LlmError::Config { hint, .. }, _) => hint.clone(),
        (e, Some(kind)) if e.is_fatal() => Some(kind.fix_for(e)),
        (e, _) => hint_of(e),
    };
    if let Some(hint) = hint {
        let _ = writeln!(err, "  hint: {hint}");
    }
    let _ = err.flush();
}

/// The general hint for an error, when the spec is unknown.
fn hint_of(e: &LlmError) -> Option<String> {
    match e {
        LlmError::Auth { .. } => Some("check the API key of the provider and its permissions".into()),
        LlmError::RateLimited { .. } => Some("wait and try again, or raise --retries".into()),
        LlmError::QuotaExhausted { .. } => Some("the account's quota or credit is used up; check billing or the daily limit".into()),
        LlmError::Timeout { .. } => Some("raise --timeout, or check that the server is up".into()),
        LlmError::Transport { .. } => Some("check the base URL and that the server is reachable".into()),
        LlmError::Malformed { .. } => Some("check the base URL: it must point at the provider's API (with /v1 for OpenAI-compatible servers)".into()),
        LlmError::ReplayMiss { .. } => Some("record the request first with --record PATH, with the same options".into()),
        _ => None,
    }
}

/// The LLM reproducibility options of `bench` and `judge`: a response cache and a cassette
/// to record to or replay from.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// LLM response cache (SQLite) shared across runs.
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,

    /// Answer LLM calls from a recorded cassette (no network, no key).
    #[arg(long, value_name = "FILE", conflicts_with = "record")]
    pub replay: Option<PathBuf>,

    /// Record every LLM exchange to a cassette.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

impl ReplayArgs {
    /// The provider layers: the defaults, with the cache and cassette asked for.
    pub fn stack(&self) -> Stack {
        Stack::with_files(
            self.cache.as_deref(),
            self.record.as_deref(),
            self.replay.as_deref(),
        )
    }
}
