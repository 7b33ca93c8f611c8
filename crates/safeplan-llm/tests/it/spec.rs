//! Provider spec strings and environment resolution (with a map, never the real env).

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use safeplan_llm::adapter::{parse_proto_duration, parse_retry_after};
use safeplan_llm::{LlmError, ProviderKind, ProviderSpec};

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn parses_each_form() {
    let s: ProviderSpec = "openai:gpt-4o-mini".parse().unwrap();
    assert_eq!(
        (s.kind, s.model.as_str(), s.base_url.as_deref()),
        (ProviderKind::OpenAi, "gpt-4o-mini", None)
    );
    let s: ProviderSpec = "ollama:llama3.2:3b".parse().unwrap();
    assert_eq!(
        (s.kind, s.model.as_str()),
        (ProviderKind::Ollama, "llama3.2:3b")
    );
    let s: ProviderSpec = "gemini:gemini-2.5-flash".parse().unwrap();
    assert_eq!(s.kind, ProviderKind::Gemini);
    let s: ProviderSpec = "openai-compatible:http://127.0.0.1:8000/v1/#qwen"
        .parse()
        .unwrap();
    assert_eq!(s.kind, ProviderKind::OpenAiCompatible);
    assert_eq!(s.base_url.as_deref(), Some("http://127.0.0.1:8000/v1"));
    assert_eq!(s.model, "qwen");
    assert_eq!(
        s.to_string(),
        "openai-compatible:http://127.0.0.1:8000/v1#qwen"
    );
}

#[test]
fn bad_specs_say_how_to_fix_them() {
    let hint = |spec: &str| match spec.parse::<ProviderSpec>() {
        Err(LlmError::Config { message, hint }) => {
            format!("{message} / {}", hint.unwrap_or_default())
        }
        other => panic!("{spec}: {other:?}"),
    };
    assert!(hint("openai-compatible:http://127.0.0.1:8000/v1").contains("no `#`"));
    assert!(hint("openai-compatible:http://127.0.0.1:8000/v1").contains("BASE_URL#MODEL"));
    assert!(hint("gpt-4o").contains("no `:`"));
    assert!(hint("anthropic:claude").contains("unknown provider"));
    assert!(hint("openai:").contains("names no model"));
    assert!(hint("openai-compatible:127.0.0.1:8000#m").contains("not an http(s) URL"));
    assert!(hint("openai-compatible:http://u:secret@host/v1#m").contains("credentials"));
}

#[test]
fn keys_and_base_urls_come_from_the_environment() {
    let spec: ProviderSpec = "openai:gpt-4o-mini".parse().unwrap();
    let cfg = spec.resolve(&env(&[("OPENAI_API_KEY", "sk-1")])).unwrap();
    assert_eq!(cfg.base_url, "https://api.openai.com/v1");
    assert_eq!(cfg.api_key.unwrap().expose_secret(), "sk-1");
    let cfg = spec
        .resolve(&env(&[
            ("OPENAI_API_KEY", "sk-1"),
            ("OPENAI_BASE_URL", "http://proxy:9/v1/"),
        ]))
        .unwrap();
    assert_eq!(cfg.base_url, "http://proxy:9/v1");
    let with_creds = env(&[
        ("OPENAI_API_KEY", "k"),
        ("OPENAI_BASE_URL", "https://u:p@proxy/v1"),
    ]);
    assert!(matches!(
        spec.resolve(&with_creds),
        Err(LlmError::Config { .. })
    ));
    // An `@` in the path is not userinfo.
    let at_in_path = env(&[
        ("OPENAI_API_KEY", "k"),
        ("OPENAI_BASE_URL", "https://proxy/team@x/v1"),
    ]);
    assert!(spec.resolve(&at_in_path).is_ok());
    match spec.resolve(&env(&[("OPENAI_API_KEY", "")])) {
        Err(LlmError::Config { hint, .. }) => {
            assert_eq!(hint.as_deref(), Some("set OPENAI_API_KEY"))
        }
        other => panic!("{other:?}"),
    }

    let spec: ProviderSpec = "gemini:gemini-2.5-flash".parse().unwrap();
    let cfg = spec.resolve(&env(&[("GOOGLE_API_KEY", "g")])).unwrap();
    assert_eq!(cfg.api_key.unwrap().expose_secret(), "g");
    assert_eq!(cfg.base_url, "https://generativelanguage.googleapis.com");
    let cfg = spec
        .resolve(&env(&[
            ("GOOGLE_API_KEY", "g"),
            ("GEMINI_API_KEY", "m"),
            ("GEMINI_BASE_URL", "http://gw"),
        ]))
        .unwrap();
    assert_eq!(cfg.api_key.unwrap().expose_secret(), "m");
    assert_eq!(cfg.base_url, "http://gw");
    assert!(matches!(
        spec.resolve(&env(&[])),
        Err(LlmError::Config { .. })
    ));

    let spec: ProviderSpec = "ollama:llama3.2".parse().unwrap();
    assert_eq!(
        spec.resolve(&env(&[])).unwrap().base_url,
        "http://localhost:11434"
    );
    assert_eq!(
        spec.resolve(&env(&[("OLLAMA_HOST", "10.0.0.2:11434")]))
            .unwrap()
            .base_url,
        "http://10.0.0.2:11434"
    );

    let spec: ProviderSpec = "openai-compatible:http://127.0.0.1:8000/v1#m"
        .parse()
        .unwrap();
    let cfg = spec
        .resolve(&env(&[("OPENAI_API_KEY", "sk-openai")]))
        .unwrap();
    assert!(
        cfg.api_key.is_none(),
        "an OpenAI key is never sent to another server"
    );
    let cfg = spec
        .resolve(&env(&[("OPENAI_COMPATIBLE_API_KEY", "token-abc")]))
        .unwrap();
    assert_eq!(cfg.api_key.as_ref().unwrap().expose_secret(), "token-abc");
    assert_eq!(cfg.id(), spec.to_string());
}

#[test]
fn retry_after_values() {
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
    assert_eq!(parse_retry_after("20", now), Some(Duration::from_secs(20)));
    assert_eq!(
        parse_retry_after(" 1.5 ", now),
        Some(Duration::from_millis(1500))
    );
    // 21 Oct 2015 07:28:00 GMT is 1445412480; ten seconds later:
    assert_eq!(
        parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now),
        Some(Duration::from_secs(10))
    );
    assert_eq!(
        parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now),
        Some(Duration::ZERO)
    );
    assert_eq!(parse_retry_after("soon", now), None);
    assert_eq!(parse_retry_after("-3", now), None);
    assert_eq!(
        parse_retry_after("1e300", now),
        None,
        "too large: no delay, no panic"
    );
    assert_eq!(parse_retry_after("NaN", now), None);
    assert_eq!(parse_proto_duration("1e300s"), None);
    assert_eq!(parse_proto_duration("37s"), Some(Duration::from_secs(37)));
    assert_eq!(
        parse_proto_duration("0.250s"),
        Some(Duration::from_millis(250))
    );
    assert_eq!(parse_proto_duration("37"), None);
}

#[test]
fn a_base_url_without_its_scheme_is_refused_before_any_request() {
    let spec: ProviderSpec = "openai:gpt-4o-mini".parse().unwrap();
    let env = |name: &str| match name {
        "OPENAI_API_KEY" => Some("sk-x".to_string()),
        "OPENAI_BASE_URL" => Some("127.0.0.1:4000/v1".to_string()),
        _ => None,
    };
    let e = spec.resolve(&env).unwrap_err();
    assert!(matches!(e, LlmError::Config { .. }), "{e:?}");
    assert!(e.to_string().contains("OPENAI_BASE_URL"), "{e}");
}

#[test]
fn the_fix_of_a_fatal_error_names_the_variables_the_spec_reads() {
    let auth = LlmError::Auth {
        status: 401,
        message: "bad key".into(),
    };
    let fix = ProviderKind::OpenAiCompatible.fix_for(&auth);
    assert!(fix.contains("OPENAI_COMPATIBLE_API_KEY"), "{fix}");
    assert!(!fix.contains("GEMINI"), "{fix}");
    let fix = ProviderKind::OpenAi.fix_for(&auth);
    assert!(
        fix.contains("OPENAI_API_KEY") && fix.contains("OPENAI_BASE_URL"),
        "{fix}"
    );
    let fix = ProviderKind::Gemini.fix_for(&auth);
    assert!(fix.contains("GEMINI_API_KEY (or GOOGLE_API_KEY)"), "{fix}");
    assert_eq!(
        ProviderKind::of_id("openai-compatible:http://h/v1#m"),
        Some(ProviderKind::OpenAiCompatible)
    );
}
