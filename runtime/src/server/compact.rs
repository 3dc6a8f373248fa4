//! Compact JSON text of a typed output, byte for byte what
//! `serde_json::to_string` writes, written faster: strings are checked for
//! what needs escaping a whole string at a time (most need nothing) instead
//! of byte by byte, and numbers go through serde_json's own formatter. For
//! an MCP call, the same pass also writes the text escaped for the answer's
//! `text` item ([`to_string_and_text`]).
//! Anything it does not write itself (serde_json's private raw-value and
//! number types, a map key that is not a string or an integer) makes it
//! give up, and serde_json writes the value instead, error included.

use serde::ser::{self, Impossible, Serialize};
use serde_json::ser::{CompactFormatter, Formatter};

use super::wire::escaped;

/// Valid JSON `text` without the white space between its tokens (white
/// space inside strings is part of them and stays): one line, members in the
/// order written.
pub(crate) fn minified(text: &str) -> String {
    filled(text, &[])
}

/// [`minified`], with each top-level member named in `slots` whose value is
/// `null` given the value beside its name there instead (JSON text, itself
/// minified): a generated table's `tools/list` entry, whose schemas are the
/// table's constants.
pub(crate) fn filled(text: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped, mut depth) = (false, false, 0usize);
    // Where the current top-level member's name starts in `out`.
    let mut member = None;
    for c in text.chars() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        // A top-level member ends: at a `,` between members, or the last `}`.
        if (depth == 1 && c == ',') || (depth == 0 && c == '}') {
            fill(&mut out, member.take(), slots);
        }
        in_string = c == '"';
        if in_string
            && depth == 1
            && member.is_none()
            && matches!(out.chars().last(), Some('{' | ','))
        {
            member = Some(out.len());
        }
        out.push(c);
    }
    out
}

/// The top-level member written from `start` on in `out` given its slot's
/// value, when it is one of `slots` and `null`.
fn fill(out: &mut String, start: Option<usize>, slots: &[(&str, &str)]) {
    let Some(start) = start else { return };
    for (name, value) in slots {
        if out.get(start..) == Some(format!("\"{name}\":null").as_str()) {
            out.truncate(out.len() - "null".len());
            out.push_str(&minified(value));
            return;
        }
    }
}

/// `value` as compact JSON text, exactly as `serde_json::to_string` writes it.
pub(crate) fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut out = String::with_capacity(256);
    match value.serialize(Writer { out: &mut out }) {
        Ok(()) => Ok(out),
        Err(_) => serde_json::to_string(value),
    }
}

/// `value` as compact JSON text (as [`to_string`] writes it) and that text
/// escaped as the contents of a JSON string (as [`write_escaped`](super::wire::write_escaped) escapes
/// it), both written in one pass: MCP's `text` item without reading the
/// text again. The escaped copy differs only where a string is: its quotes
/// and the backslashes of its escapes get one more backslash each. A value
/// left to serde_json has no copy (`None`): the answer escapes its text.
pub(crate) fn to_string_and_text<T: Serialize + ?Sized>(
    value: &T,
) -> Result<(String, Option<String>)> {
    let mut twin = Twin {
        json: String::with_capacity(256),
        text: String::with_capacity(320),
    };
    match value.serialize(Writer { out: &mut twin }) {
        Ok(()) => Ok((twin.json, Some(twin.text))),
        Err(_) => Ok((serde_json::to_string(value)?, None)),
    }
}

/// Where the writer's JSON goes: one text ([`String`]), or the text and its
/// escaped copy ([`Twin`]). Generic, so that a text alone pays nothing for
/// the copy. Everything is written as `&str` (no check of the finished text
/// for UTF-8).
trait Sink {
    /// Text that reads the same escaped: punctuation, literals, numbers.
    fn plain(&mut self, text: &str);
    /// One such character (ASCII).
    fn byte(&mut self, b: u8);
    /// A quote (around an integer written as a map key).
    fn quote(&mut self);
    /// A string, quoted and escaped.
    fn string(&mut self, s: &str);
}

impl Sink for String {
    #[inline]
    fn plain(&mut self, text: &str) {
        self.push_str(text);
    }
    #[inline]
    fn byte(&mut self, b: u8) {
        self.push(char::from(b));
    }
    #[inline]
    fn quote(&mut self) {
        self.push('"');
    }
    #[inline]
    fn string(&mut self, s: &str) {
        self.reserve(s.len() + 2);
        self.push('"');
        if crate::json::first_special(s.as_bytes()).is_none() {
            self.push_str(s);
        } else {
            self.push_str(&escaped(s));
        }
        self.push('"');
    }
}

/// A JSON text and, beside it, the same text escaped as a string's contents.
struct Twin {
    json: String,
    text: String,
}

impl Sink for Twin {
    #[inline]
    fn plain(&mut self, text: &str) {
        self.json.push_str(text);
        self.text.push_str(text);
    }
    #[inline]
    fn byte(&mut self, b: u8) {
        self.json.push(char::from(b));
        self.text.push(char::from(b));
    }
    #[inline]
    fn quote(&mut self) {
        self.json.push('"');
        self.text.push_str("\\\"");
    }
    #[inline]
    fn string(&mut self, s: &str) {
        self.json.reserve(s.len() + 2);
        self.text.reserve(s.len() + 4);
        self.json.push('"');
        self.text.push_str("\\\"");
        if crate::json::first_special(s.as_bytes()).is_none() {
            // Nothing to escape, once or twice (most strings).
            self.json.push_str(s);
            self.text.push_str(s);
        } else {
            let once = escaped(s);
            self.json.push_str(&once);
            self.text.push_str(&escaped(&once));
        }
        self.json.push('"');
        self.text.push_str("\\\"");
    }
}

/// Gives up: serde_json writes the value instead.
fn unsupported() -> serde_json::Error {
    ser::Error::custom("left to serde_json")
}

type Result<T = ()> = std::result::Result<T, serde_json::Error>;

struct Writer<'o, S: Sink> {
    out: &'o mut S,
}

impl<'o, S: Sink> Writer<'o, S> {
    fn string(&mut self, s: &str) {
        self.out.string(s);
    }

    /// `{"variant":` and `open`: a variant's array or object, which `close` ends.
    fn variant(mut self, variant: &str, open: &str, close: &'static str) -> Compound<'o, S> {
        self.out.byte(b'{');
        self.string(variant);
        self.out.byte(b':');
        self.out.plain(open);
        Compound::new(self.out, close)
    }

    /// A number, by serde_json's formatter, into room for the longest
    /// (an `i128`'s 40 characters; a float's 24).
    fn number(&mut self, write: impl FnOnce(&mut &mut [u8]) -> std::io::Result<()>) -> Result {
        let mut room = [0u8; 48];
        let mut rest = &mut room[..];
        write(&mut rest).map_err(serde_json::Error::io)?;
        let len = 48 - rest.len();
        let digits = room.get(..len).unwrap_or_default();
        // Digits, signs, `.` and `e`: ASCII.
        let text = std::str::from_utf8(digits).map_err(|_| unsupported())?;
        self.out.plain(text);
        Ok(())
    }
}

macro_rules! numbers {
    ($($method:ident: $t:ty => $write:ident),* $(,)?) => {
        $(fn $method(mut self, v: $t) -> Result {
            self.number(|out| CompactFormatter.$write(out, v))
        })*
    };
}

impl<'o, S: Sink> ser::Serializer for Writer<'o, S> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Compound<'o, S>;
    type SerializeTuple = Compound<'o, S>;
    type SerializeTupleStruct = Compound<'o, S>;
    type SerializeTupleVariant = Compound<'o, S>;
    type SerializeMap = Compound<'o, S>;
    type SerializeStruct = Compound<'o, S>;
    type SerializeStructVariant = Compound<'o, S>;

    fn serialize_bool(self, v: bool) -> Result {
        self.out.plain(if v { "true" } else { "false" });
        Ok(())
    }

    numbers!(
        serialize_i8: i8 => write_i8,
        serialize_i16: i16 => write_i16,
        serialize_i32: i32 => write_i32,
        serialize_i64: i64 => write_i64,
        serialize_i128: i128 => write_i128,
        serialize_u8: u8 => write_u8,
        serialize_u16: u16 => write_u16,
        serialize_u32: u32 => write_u32,
        serialize_u64: u64 => write_u64,
        serialize_u128: u128 => write_u128,
    );

    fn serialize_f32(mut self, v: f32) -> Result {
        if !v.is_finite() {
            return self.serialize_unit();
        }
        self.number(|out| CompactFormatter.write_f32(out, v))
    }

    fn serialize_f64(mut self, v: f64) -> Result {
        if !v.is_finite() {
            return self.serialize_unit();
        }
        self.number(|out| CompactFormatter.write_f64(out, v))
    }

    fn serialize_char(mut self, v: char) -> Result {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(mut self, v: &str) -> Result {
        self.string(v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }

    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result {
        self.out.plain("null");
        Ok(())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.out.byte(b'{');
        self.string(variant);
        self.out.byte(b':');
        value.serialize(Writer { out: self.out })?;
        self.out.byte(b'}');
        Ok(())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'o, S>> {
        self.out.byte(b'[');
        Ok(Compound::new(self.out, "]"))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'o, S>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'o, S>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'o, S>> {
        Ok(self.variant(variant, "[", "]}"))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'o, S>> {
        self.out.byte(b'{');
        Ok(Compound::new(self.out, "}"))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'o, S>> {
        // serde_json's raw values and exact numbers serialize as structs of
        // its own, which only its serializer understands.
        if name.starts_with("$serde_json::") {
            return Err(unsupported());
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'o, S>> {
        Ok(self.variant(variant, "{", "}}"))
    }
}

/// An array or object being written: a comma before every member but the first.
struct Compound<'o, S: Sink> {
    out: &'o mut S,
    first: bool,
    close: &'static str,
}

impl<'o, S: Sink> Compound<'o, S> {
    fn new(out: &'o mut S, close: &'static str) -> Compound<'o, S> {
        Compound {
            out,
            first: true,
            close,
        }
    }

    fn comma(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.out.byte(b',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.comma();
        value.serialize(Writer { out: self.out })
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        self.comma();
        Writer { out: self.out }.string(key);
        self.out.byte(b':');
        value.serialize(Writer { out: self.out })
    }

    fn end(self) -> Result {
        self.out.plain(self.close);
        Ok(())
    }
}

macro_rules! sequence {
    ($($trait:ident: $method:ident),* $(,)?) => {
        $(impl<S: Sink> ser::$trait for Compound<'_, S> {
            type Ok = ();
            type Error = serde_json::Error;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
                self.element(value)
            }

            fn end(self) -> Result {
                Compound::end(self)
            }
        })*
    };
}

sequence!(
    SerializeSeq: serialize_element,
    SerializeTuple: serialize_element,
    SerializeTupleStruct: serialize_field,
    SerializeTupleVariant: serialize_field,
);

macro_rules! fields {
    ($($trait:ident),* $(,)?) => {
        $(impl<S: Sink> ser::$trait for Compound<'_, S> {
            type Ok = ();
            type Error = serde_json::Error;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result {
                self.field(key, value)
            }

            fn end(self) -> Result {
                Compound::end(self)
            }
        })*
    };
}

fields!(SerializeStruct, SerializeStructVariant);

impl<S: Sink> ser::SerializeMap for Compound<'_, S> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.comma();
        key.serialize(Key { out: self.out })?;
        self.out.byte(b':');
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        value.serialize(Writer { out: self.out })
    }

    fn end(self) -> Result {
        Compound::end(self)
    }
}

/// A map key: a string, or an integer written as one; anything else is left
/// to serde_json.
struct Key<'o, S: Sink> {
    out: &'o mut S,
}

macro_rules! integer_keys {
    ($($method:ident: $t:ty),* $(,)?) => {
        $(fn $method(self, v: $t) -> Result {
            self.out.quote();
            Writer { out: self.out }.$method(v)?;
            self.out.quote();
            Ok(())
        })*
    };
}

macro_rules! refused_keys {
    ($($method:ident: $t:ty),* $(,)?) => {
        $(fn $method(self, _: $t) -> Result {
            Err(unsupported())
        })*
    };
}

impl<S: Sink> ser::Serializer for Key<'_, S> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Impossible<(), serde_json::Error>;
    type SerializeTuple = Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = Impossible<(), serde_json::Error>;
    type SerializeMap = Impossible<(), serde_json::Error>;
    type SerializeStruct = Impossible<(), serde_json::Error>;
    type SerializeStructVariant = Impossible<(), serde_json::Error>;

    fn serialize_str(self, v: &str) -> Result {
        Writer { out: self.out }.serialize_str(v)
    }

    fn serialize_char(self, v: char) -> Result {
        Writer { out: self.out }.serialize_char(v)
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }

    integer_keys!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128,
    );

    refused_keys!(
        serialize_bool: bool,
        serialize_f32: f32,
        serialize_f64: f64,
        serialize_bytes: &[u8],
        serialize_unit_struct: &'static str,
    );

    fn serialize_none(self) -> Result {
        Err(unsupported())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result {
        Err(unsupported())
    }

    fn serialize_unit(self) -> Result {
        Err(unsupported())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(unsupported())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(unsupported())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(unsupported())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(unsupported())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(unsupported())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(unsupported())
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(unsupported())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(unsupported())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::super::wire::write_escaped;
    use super::*;

    #[derive(serde::Serialize)]
    enum E {
        Unit,
        New(u8),
        Tuple(u8, &'static str),
        Struct { a: Option<f64> },
    }

    #[derive(serde::Serialize)]
    struct S {
        #[serde(rename = "q\"k")]
        quoted: &'static str,
        chars: [char; 2],
        ints: (i8, i128, u128, u64),
        floats: [f64; 5],
        small: f32,
        es: [E; 4],
        keys: BTreeMap<i32, bool>,
        value: serde_json::Value,
        bytes: &'static [u8],
        unit: (),
        none: Option<u8>,
    }

    /// A value of every kind, with something to escape in strings of every place.
    fn every_kind() -> S {
        S {
            quoted: "tab\there \u{1} \"q\" \\ é \u{7f} 𝄞",
            chars: ['"', '\\'],
            ints: (-8, i128::MIN, u128::MAX, u64::MAX),
            floats: [0.1, -0.0, 1e300, f64::NAN, f64::INFINITY],
            small: 1.5,
            es: [
                E::Unit,
                E::New(3),
                E::Tuple(1, "\"t\""),
                E::Struct { a: Some(2.0) },
            ],
            keys: BTreeMap::from([(-1, true), (2, false)]),
            value: json!({"b\"": [1, 2.5, null, "s\n\\"], "a": {"\u{1f}": "\u{1f}"}}),
            bytes: b"ab",
            unit: (),
            none: None,
        }
    }

    #[test]
    fn slots_are_filled_at_the_top_level_only() {
        let entry = "{\"name\": \"a\", \"inputSchema\": null, \"x\": {\"inputSchema\": null},\n \"outputSchema\": null}";
        let slots = [
            ("inputSchema", "{\"type\": \"object\"}"),
            ("outputSchema", "{}"),
        ];
        assert_eq!(
            filled(entry, &slots),
            r#"{"name":"a","inputSchema":{"type":"object"},"x":{"inputSchema":null},"outputSchema":{}}"#
        );
        // A slot with a value of its own keeps it.
        assert_eq!(
            filled(r#"{"outputSchema": {"a": 1}}"#, &slots),
            r#"{"outputSchema":{"a":1}}"#
        );
    }

    #[test]
    fn minified_json_keeps_strings_and_order() {
        let text = "{\n  \"b\": \"a \\\" b\",\n  \"a\": [1, 2]\n}";
        assert_eq!(minified(text), r#"{"b":"a \" b","a":[1,2]}"#);
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let s = every_kind();
        let theirs = serde_json::to_string(&s).unwrap_or_default();
        assert_eq!(to_string(&s).ok(), Some(theirs));
        // What it leaves to serde_json comes out the same, errors included.
        let raw = serde_json::value::RawValue::from_string("{\"r\": 1}".into()).ok();
        assert_eq!(to_string(&raw).ok(), serde_json::to_string(&raw).ok());
        let float_keys = BTreeMap::from([(vec![1], 1)]);
        assert!(to_string(&float_keys).is_err() && serde_json::to_string(&float_keys).is_err());
        let bool_keys = BTreeMap::from([(true, 1)]);
        assert_eq!(
            to_string(&bool_keys).ok(),
            serde_json::to_string(&bool_keys).ok()
        );
    }

    /// The text and its escaped copy written in one pass: the text is what
    /// [`to_string`] writes, the copy what escaping the text gives.
    fn written_twice<T: Serialize + ?Sized>(value: &T) -> Option<String> {
        let (json, text) = to_string_and_text(value).ok()?;
        assert_eq!(Some(&json), to_string(value).ok().as_ref());
        let mut escaped = Vec::new();
        write_escaped(&mut escaped, &json);
        if let Some(text) = &text {
            assert_eq!(text.as_bytes(), escaped, "{json}");
        }
        text
    }

    #[test]
    fn the_escaped_copy_is_the_text_escaped() {
        assert!(written_twice(&every_kind()).is_some());
        // Every string of up to four characters from a plain letter, the two
        // that take a backslash, a wide one and a control character, as a
        // key and as a value.
        let strings = super::super::every_text(&['a', '"', '\\', 'é', '\u{8}'], 4);
        assert_eq!(strings.len(), 1 + 5 + 25 + 125 + 625);
        for s in &strings {
            assert!(written_twice(&BTreeMap::from([(s.as_str(), s.as_str())])).is_some());
        }
        // What serde_json writes has no copy: the answer escapes its text.
        let raw = serde_json::value::RawValue::from_string("{\"r\": \"\\\"\"}".into()).ok();
        assert_eq!(written_twice(&raw), None);
    }
}
