//! Judges and revisers named by a short spec string (`state`, `llm:openai:gpt-4o-mini`,
//! `ensemble:union:state,rule`), and episodes read from a file, so that the CLI, the
//! Python binding and any other front end build the same loop from the same words.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use safeplan_llm::{LlmProvider, ProviderSpec, Stack};

use crate::episode::{LabelledEpisode, read_episodes};
use crate::error::JudgeError;
use crate::{
    ApplyCritiques, AutoReviser, Combine, EnsembleJudge, Judge, LlmJudge, LlmJudgeOptions,
    LlmReviser, LlmReviserOptions, Reviser, RuleJudge, StateJudge, StateRules, SymbolicJudge,
    SymbolicReviser,
};

/// What `judge_from_spec` accepts, for error messages and help texts.
pub const JUDGE_SPECS: &str = "rule, state, state:all, state:RULE,RULE,..., symbolic, \
     llm:PROVIDER_SPEC, llm-json:PROVIDER_SPEC (or a bare llm, llm-json where the front end \
     gives a model) or ensemble:union|intersection|majority:A,B,...";

/// What `reviser_from_spec` accepts.
pub const REVISER_SPECS: &str =
    "auto, apply, symbolic or llm:PROVIDER_SPEC (or a bare llm where the front end gives a model)";

fn spec_error(spec: &str, message: impl Into<String>, hint: impl Into<String>) -> JudgeError {
    JudgeError::Spec {
        spec: spec.to_string(),
        message: message.into(),
        hint: hint.into(),
    }
}

/// A provider behind `stack`'s layers (retry, timeout, cache, cassette), keys from the
/// process environment. A spec that does not read is a [`JudgeError::Spec`]; a key or base
/// URL that is missing, or a cache or cassette that cannot be opened, is the provider
/// stack's [`JudgeError::Llm`].
fn provider(spec: &str, stack: &Stack) -> Result<Arc<dyn LlmProvider>, JudgeError> {
    let parsed: ProviderSpec = spec.parse().map_err(|e: safeplan_llm::LlmError| {
        spec_error(
            spec,
            e.to_string(),
            "write e.g. llm:openai:gpt-4o-mini or llm:ollama:llama3.2 (see docs/LLM.md)",
        )
    })?;
    Ok(stack.build_from_env(&parsed)?.provider)
}

/// Build a judge from its spec (one of [`JUDGE_SPECS`]); LLM judges get `stack`'s layers.
///
/// ```
/// let judge = safeplan_judge::judge_from_spec("ensemble:union:state,rule", &Default::default())
///     .expect("a valid spec");
/// assert!(judge.name().contains("state"));
/// assert!(safeplan_judge::judge_from_spec("oracle", &Default::default()).is_err());
/// ```
pub fn judge_from_spec(spec: &str, stack: &Stack) -> Result<Arc<dyn Judge>, JudgeError> {
    judge_from_spec_with(spec, stack, None)
}

/// The hint of a bare `llm` with no model given.
const BARE_LLM_HINT: &str = "name a provider (llm:openai:gpt-4o-mini), or give the front end's \
     own model (Python: refine(..., chat=...); MCP: start the server with --llm)";

/// [`judge_from_spec`], where a bare `llm` or `llm-json` (also inside an ensemble) is the LLM
/// judge asking `model`: a provider the front end already has — an MCP server's `--llm`, a
/// Python `chat` function. Without one, a bare `llm` is a [`JudgeError::Spec`] saying how to
/// give it.
///
/// ```
/// let err = safeplan_judge::judge_from_spec_with("llm", &Default::default(), None).err().unwrap();
/// assert!(err.to_string().contains("names no model"));
/// ```
pub fn judge_from_spec_with(
    spec: &str,
    stack: &Stack,
    model: Option<&Arc<dyn LlmProvider>>,
) -> Result<Arc<dyn Judge>, JudgeError> {
    if let bare @ ("llm" | "llm-json") = spec {
        let model = model.ok_or_else(|| {
            spec_error(
                spec,
                format!("judge `{bare}` names no model"),
                BARE_LLM_HINT,
            )
        })?;
        let options = LlmJudgeOptions {
            json: bare == "llm-json",
            ..LlmJudgeOptions::default()
        };
        return Ok(Arc::new(LlmJudge::new(model.clone(), options)));
    }
    if let Some(rest) = spec.strip_prefix("llm:") {
        return Ok(Arc::new(LlmJudge::new(
            provider(rest, stack)?,
            LlmJudgeOptions::default(),
        )));
    }
    if let Some(rest) = spec.strip_prefix("llm-json:") {
        let options = LlmJudgeOptions {
            json: true,
            ..LlmJudgeOptions::default()
        };
        return Ok(Arc::new(LlmJudge::new(provider(rest, stack)?, options)));
    }
    match spec {
        "rule" => return Ok(Arc::new(RuleJudge)),
        "state" => return Ok(Arc::new(StateJudge::default())),
        _ if spec.starts_with("state:") => {
            let rules = StateRules::parse(&spec["state:".len()..]).map_err(|e| {
                spec_error(
                    spec,
                    e,
                    "write state, state:all or state:undone-placement,still-in-hand,...",
                )
            })?;
            return Ok(Arc::new(StateJudge::with_rules(rules)));
        }
        "symbolic" => return Ok(Arc::new(SymbolicJudge)),
        _ => {}
    }
    if let Some(rest) = spec.strip_prefix("ensemble:") {
        let hint = "write ensemble:union:state,rule (union, intersection or majority)";
        let (rule, members) = rest
            .split_once(':')
            .ok_or_else(|| spec_error(spec, "the ensemble names no members", hint))?;
        let combine: Combine = rule
            .parse()
            .map_err(|e: String| spec_error(spec, e, hint))?;
        let members = members
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(|m| judge_from_spec_with(m, stack, model))
            .collect::<Result<Vec<_>, _>>()?;
        if members.is_empty() {
            return Err(spec_error(spec, "an ensemble needs judges", hint));
        }
        return Ok(Arc::new(EnsembleJudge::new(members, combine)));
    }
    Err(spec_error(
        spec,
        format!("unknown judge `{spec}`"),
        format!("use {JUDGE_SPECS}"),
    ))
}

/// Build a reviser from its spec (one of [`REVISER_SPECS`]).
pub fn reviser_from_spec(spec: &str, stack: &Stack) -> Result<Arc<dyn Reviser>, JudgeError> {
    reviser_from_spec_with(spec, stack, None)
}

/// [`reviser_from_spec`], where a bare `llm` is the LLM reviser asking `model` (see
/// [`judge_from_spec_with`]).
pub fn reviser_from_spec_with(
    spec: &str,
    stack: &Stack,
    model: Option<&Arc<dyn LlmProvider>>,
) -> Result<Arc<dyn Reviser>, JudgeError> {
    if spec == "llm" {
        let model =
            model.ok_or_else(|| spec_error(spec, "reviser `llm` names no model", BARE_LLM_HINT))?;
        return Ok(Arc::new(LlmReviser::new(
            model.clone(),
            LlmReviserOptions::default(),
        )));
    }
    if let Some(rest) = spec.strip_prefix("llm:") {
        return Ok(Arc::new(LlmReviser::new(
            provider(rest, stack)?,
            LlmReviserOptions::default(),
        )));
    }
    match spec {
        "auto" => Ok(Arc::new(AutoReviser::default())),
        "apply" => Ok(Arc::new(ApplyCritiques)),
        "symbolic" => Ok(Arc::new(SymbolicReviser::default())),
        other => Err(spec_error(
            spec,
            format!("unknown reviser `{other}`"),
            format!("use {REVISER_SPECS}"),
        )),
    }
}

/// Read an episodes file (JSON Lines, gunzipped when its name ends in `.gz`), as
/// [`read_episodes`] reads its text. An empty file is an error: a run over no episode is
/// a mistake in the path, not a result.
pub fn load_episodes(path: &Path) -> Result<Vec<LabelledEpisode>, JudgeError> {
    let read = |message: String| JudgeError::Read {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| read(e.to_string()))?;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .map_err(|e| {
                read(format!(
                    "not gzipped UTF-8 text ({e}); gzip a JSON Lines file, or drop the .gz extension"
                ))
            })?;
        text
    } else {
        String::from_utf8(bytes).map_err(|e| {
            read(format!(
                "not UTF-8 text ({e}); save the episodes file as UTF-8 JSON Lines"
            ))
        })?
    };
    let episodes = read_episodes(&text, Some(path))?;
    if episodes.is_empty() {
        return Err(read(
            "no episodes in it; write one JSON object per line".into(),
        ));
    }
    Ok(episodes)
}
