//! What the validators toolgen generates call: the JSON Schema checks that
//! are more than a comparison, with the `jsonschema` crate's own semantics
//! (its `jsonschema-value` crate), so a generated validator and the crate
//! agree on every instance (`1.0` is an integer and equals `1`; bounds and
//! `multipleOf` exact around 2^53; lengths in code points).
//!
//! A generated validator only answers whether an instance is valid; the
//! server asks the `jsonschema` crate for the violations of one that is not.
//! It reads a [`Json`] (its strings borrowed from the request's text), not a
//! `serde_json::Value`; `Json::from(&value)` checks a `Value`.

use std::sync::OnceLock;

use jsonschema_value::JsonNumber as _;
use serde_json::{Number, Value};

pub use crate::json::{Json, Object};

/// JSON Schema's `integer`: a number with no fractional part (`2.0` too).
#[inline]
pub fn is_integer(v: &Json<'_>) -> bool {
    v.as_number().is_some_and(|n| n.is_integer())
}

/// A numeric bound, as a schema writes it: the `jsonschema` crate compares
/// with the limit's own type (unsigned, signed, else float).
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    U64(u64),
    I64(i64),
    F64(f64),
}

macro_rules! bound {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(n: &Number, limit: Limit) -> bool {
            match limit {
                Limit::U64(l) => jsonschema_value::numeric::$name(n, l),
                Limit::I64(l) => jsonschema_value::numeric::$name(n, l),
                Limit::F64(l) => jsonschema_value::numeric::$name(n, l),
            }
        }
    };
}

bound!(
    /// `minimum`: `n >= limit`, exactly.
    ge
);
bound!(
    /// `maximum`: `n <= limit`, exactly.
    le
);
bound!(
    /// `exclusiveMinimum`: `n > limit`, exactly.
    gt
);
bound!(
    /// `exclusiveMaximum`: `n < limit`, exactly.
    lt
);

/// `multipleOf`: whether `n` divided by `multiple` is an integer.
#[inline]
pub fn multiple_of(n: &Number, multiple: f64) -> bool {
    if multiple.fract() == 0.0 {
        jsonschema_value::numeric::is_multiple_of_integer(n, multiple)
    } else {
        jsonschema_value::numeric::is_multiple_of_float(n, multiple)
    }
}

/// `minLength` / `maxLength`: the length in Unicode code points within `min..=max`.
#[inline]
pub fn length_within(s: &str, min: u64, max: u64) -> bool {
    let bytes = s.len() as u64;
    if bytes < min || bytes.div_ceil(4) > max {
        return false;
    }
    if bytes.div_ceil(4) >= min && bytes <= max {
        return true;
    }
    let n = s.chars().count() as u64;
    min <= n && n <= max
}

/// `enum` / `const`: JSON equality with numbers compared by value.
pub fn equal(a: &Json<'_>, b: &Value) -> bool {
    match (a, b) {
        (Json::Null, Value::Null) => true,
        (Json::Bool(a), Value::Bool(b)) => a == b,
        (Json::String(a), Value::String(b)) => a == b,
        (Json::Number(a), Value::Number(b)) => jsonschema_value::cmp::equal_numbers(a, b),
        (Json::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (Json::Object(a), Value::Object(b)) => {
            a.len() == b.len() && b.iter().all(|(k, b)| a.get(k).is_some_and(|a| equal(a, b)))
        }
        _ => false,
    }
}

/// `uniqueItems`: no two items equal (as [`equal`]). The items are copied
/// into `Value`s for the `jsonschema` crate's own check (its hashing of
/// numbers by value), so the two cannot disagree.
pub fn unique(items: &[Json<'_>]) -> bool {
    items.len() <= 1 || {
        let values: Vec<Value> = items.iter().map(Json::to_value).collect();
        jsonschema_value::unique::is_unique(&values)
    }
}

/// A `pattern` (or a `patternProperties` key), translated by toolgen into
/// the `regex` crate's syntax and compiled on first use. toolgen only
/// generates patterns that compile; should one not (another `regex`
/// version), nothing matches it, so the instance is judged invalid and the
/// `jsonschema` crate reports the violations: never a silent pass.
pub struct Pattern {
    source: &'static str,
    regex: OnceLock<Option<regex::Regex>>,
}

impl Pattern {
    pub const fn new(source: &'static str) -> Pattern {
        Pattern {
            source,
            regex: OnceLock::new(),
        }
    }

    /// Whether the pattern matches somewhere in `s` (JSON Schema patterns are not anchored).
    #[inline]
    pub fn is_match(&self, s: &str) -> bool {
        self.regex
            .get_or_init(|| regex::Regex::new(self.source).ok())
            .as_ref()
            .is_some_and(|r| r.is_match(s))
    }
}

/// A constant JSON value of a schema (`enum` or `const` member that is an
/// array or an object), parsed from its text on first use.
pub struct Constant {
    text: &'static str,
    value: OnceLock<Value>,
}

impl Constant {
    pub const fn new(text: &'static str) -> Constant {
        Constant {
            text,
            value: OnceLock::new(),
        }
    }

    /// The value (`null` should the text not parse, which toolgen never writes).
    #[inline]
    pub fn get(&self) -> &Value {
        self.value
            .get_or_init(|| serde_json::from_str(self.text).unwrap_or(Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn semantics_follow_json_schema() {
        let int = |v: Value| is_integer(&Json::from(&v));
        assert!(int(json!(2.0)) && int(json!(-3)) && !int(json!(2.5)));
        let n = |v: Value| v.as_number().cloned().unwrap_or_else(|| Number::from(0));
        assert!(ge(
            &n(json!(9007199254740993u64)),
            Limit::F64(9007199254740992.0)
        ));
        assert!(!lt(&n(json!(1)), Limit::I64(1)) && le(&n(json!(1.0)), Limit::U64(1)));
        assert!(multiple_of(&n(json!(0.3)), 0.1) && !multiple_of(&n(json!(7)), 2.0));
        assert!(length_within("日本", 2, 2) && !length_within("日本", 3, 9));
        let a = json!([1, {"a": 2.0}]);
        assert!(equal(&Json::from(&a), &json!([1.0, {"a": 2}])));
        assert!(!equal(&Json::from(&a), &json!([1.0, {"b": 2}])));
        assert!(!unique(&[Json::Number(1.into()), Json::from(&json!(1.0))]));
        assert!(Pattern::new("^a+$").is_match("aa") && !Pattern::new("(").is_match("("));
        assert_eq!(Constant::new("[1,2]").get(), &json!([1, 2]));
    }
}
