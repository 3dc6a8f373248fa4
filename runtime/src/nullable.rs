//! [`Nullable`]: an optional property that may also be `null`, with the three
//! meanings its schema gives it kept apart: absent (leave it as it is),
//! `null` (clear it), or a value (set it). `Option<T>` would make absent and
//! `null` the same, so a client could not send the clear and a server could
//! not see it. Generated types use it for every optional property whose
//! schema allows `null` (`"type": ["string", "null"]`, `anyOf` with
//! `{"type": "null"}`), with
//! `#[serde(default, skip_serializing_if = "Nullable::is_absent")]`, so that
//! each of the three reads back exactly as it was written.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An optional, nullable value: absent, `null`, or a value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Nullable<T> {
    /// Not given: leave it as it is.
    #[default]
    Absent,
    /// Given as `null`: clear it.
    Null,
    /// Given: set it.
    Value(T),
}

impl<T> Nullable<T> {
    /// Whether it was not given (what `skip_serializing_if` asks).
    pub fn is_absent(&self) -> bool {
        matches!(self, Nullable::Absent)
    }

    /// Whether it was given as `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Nullable::Null)
    }

    /// The value, if one was given.
    pub fn value(&self) -> Option<&T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }

    /// `None` when absent, `Some(None)` when `null`, `Some(Some(v))` for a value.
    pub fn into_option(self) -> Option<Option<T>> {
        match self {
            Nullable::Absent => None,
            Nullable::Null => Some(None),
            Nullable::Value(v) => Some(Some(v)),
        }
    }
}

impl<T> From<Option<T>> for Nullable<T> {
    /// `None` is `null` (given, and cleared), `Some(v)` a value.
    fn from(v: Option<T>) -> Self {
        v.map_or(Nullable::Null, Nullable::Value)
    }
}

impl<T: Serialize> Serialize for Nullable<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            // Skipped by `skip_serializing_if`; elsewhere (in a list) it is `null`.
            Nullable::Absent | Nullable::Null => s.serialize_none(),
            Nullable::Value(v) => v.serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Nullable<T> {
    /// Called only for a member that is there (an absent one is
    /// `#[serde(default)]`): `null` or a value.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(d).map(Nullable::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Patch {
        #[serde(default, skip_serializing_if = "Nullable::is_absent")]
        name: Nullable<String>,
        #[serde(default, skip_serializing_if = "Nullable::is_absent")]
        count: Nullable<i64>,
    }

    #[test]
    fn absent_null_and_value_round_trip_exactly() {
        for text in [
            r#"{}"#,
            r#"{"name":null}"#,
            r#"{"name":"a"}"#,
            r#"{"name":null,"count":3}"#,
        ] {
            let p: Patch = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(serde_json::to_string(&p).unwrap_or_default(), text);
        }
        let p: Patch =
            serde_json::from_value(json!({"name": null})).unwrap_or_else(|e| panic!("{e}"));
        assert!(p.name.is_null() && p.count.is_absent());
        assert!(serde_json::from_value::<Patch>(json!({"other": 1})).is_err());
    }
}
