//! Canonical JSON and sha256 helpers: the same bytes for the same meaning.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Serializes a JSON value with object keys sorted at every level and no insignificant space.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(*key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `sha256:<hex>` of the UTF-8 bytes of `text`.
pub fn sha256_tagged(text: &str) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}

/// `sha256:<hex>` of the canonical JSON form of `value`.
pub fn hash_json(value: &Value) -> String {
    sha256_tagged(&canonical_json(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_does_not_matter() {
        let a: Value =
            serde_json::from_str(r#"{"b":1,"a":{"d":[1,2],"c":null}}"#).unwrap_or_default();
        let b: Value =
            serde_json::from_str(r#"{"a":{"c":null,"d":[1,2]},"b":1}"#).unwrap_or_default();
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(canonical_json(&a), r#"{"a":{"c":null,"d":[1,2]},"b":1}"#);
    }
}
