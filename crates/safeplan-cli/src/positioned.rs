//! The library's JSON, positioned: a verdict, an assessment or a failure exactly as
//! `safeplan_validate` serialises it (the object the C API, MCP and Python write), with a
//! `location` (path, line, column) added beside every source reference (`{"file", "span"}`,
//! a [`SourceRef`]) whose file the CLI read. Nothing here names a verdict's field, so the
//! CLI's JSON cannot drift from the library's: a field the library adds appears here too.
//!
//! Keys keep the library's order (its structs' field order). `serde_json::Value` would sort
//! them, and its `preserve_order` feature would change the order of every JSON map in every
//! crate linked with the CLI (the LLM cache keys among them), so the document goes through
//! [`OrderedJson`], which keeps objects as lists of entries.

use std::fmt;

use safeplan_validate::SourceRef;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::outcome::FileResult;

/// `value` serialised by the library, with a `location` beside each source in `files`.
pub fn positioned(
    files: &[&FileResult],
    value: &impl Serialize,
) -> serde_json::Result<OrderedJson> {
    let mut json = serde_json::from_str(&serde_json::to_string(value)?)?;
    locate(files, &mut json);
    Ok(json)
}

/// JSON whose objects keep their keys in document order.
#[derive(Clone, Debug, PartialEq)]
pub enum OrderedJson {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<OrderedJson>),
    Object(Vec<(String, OrderedJson)>),
}

fn locate(files: &[&FileResult], json: &mut OrderedJson) {
    match json {
        OrderedJson::Object(entries) => {
            let is_source = entries.len() == 2
                && entries.iter().any(|(k, _)| k == "file")
                && entries.iter().any(|(k, _)| k == "span");
            if is_source {
                let source = serde_json::to_value(OrderedJson::Object(entries.clone()))
                    .ok()
                    .and_then(|v| SourceRef::deserialize(v).ok());
                if let Some(source) = source {
                    if let Some(at) = location(files, source) {
                        entries.push(("location".into(), at));
                    }
                    return;
                }
            }
            for (_, v) in entries {
                locate(files, v);
            }
        }
        OrderedJson::Array(items) => {
            for v in items {
                locate(files, v);
            }
        }
        _ => {}
    }
}

/// Where `source` is as `{file, line, col, end_line, end_col}` (1-based, columns in
/// characters, the end exclusive), when its file is among `files`.
fn location(files: &[&FileResult], source: SourceRef) -> Option<OrderedJson> {
    let f = files.iter().find(|f| f.kind == source.file)?;
    let range = f.range(source.span);
    let (start, end) = (f.line_col(range.start), f.line_col(range.end));
    let number = |n: u32| OrderedJson::Number(n.into());
    Some(OrderedJson::Object(vec![
        ("file".into(), OrderedJson::String(f.path.clone())),
        ("line".into(), number(start.line)),
        ("col".into(), number(start.col)),
        ("end_line".into(), number(end.line)),
        ("end_col".into(), number(end.col)),
    ]))
}

impl Serialize for OrderedJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            OrderedJson::Null => s.serialize_unit(),
            OrderedJson::Bool(b) => s.serialize_bool(*b),
            OrderedJson::Number(n) => n.serialize(s),
            OrderedJson::String(t) => s.serialize_str(t),
            OrderedJson::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for v in items {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            OrderedJson::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for OrderedJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<OrderedJson, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = OrderedJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_unit<E: de::Error>(self) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Null)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(n.into()))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<OrderedJson, E> {
        serde_json::Number::from_f64(n)
            .map(OrderedJson::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E: de::Error>(self, t: &str) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(t.to_string()))
    }

    fn visit_string<E: de::Error>(self, t: String) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(t))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OrderedJson, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(OrderedJson::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedJson, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, OrderedJson>()? {
            entries.push((k, v));
        }
        Ok(OrderedJson::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Document order survives the round trip (`Value` would sort `b` before `z`), and so
    /// do numbers' forms (`1.0` stays a float).
    #[test]
    fn keys_keep_their_order_and_numbers_their_form() {
        let text = r#"{"z":1,"b":[{"y":1.0,"a":null}],"m":"x","t":true,"n":-3}"#;
        let json: OrderedJson = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&json).unwrap(), text);
    }
}
