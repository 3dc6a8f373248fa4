//! [`Json`]: a JSON value that borrows its strings from the text it was
//! read from, what the validators toolgen generates take. A call's arguments
//! are checked in it without building a `serde_json::Value` (one heap block
//! per string and map node); a `Value` converts to it by borrowing
//! ([`Json::from`]).
//!
//! Objects keep their members sorted by name, each name once (the last
//! written wins, as in a `Value`), so [`Object::get`] is a binary search.
//! [`Json::parse`] also says whether the text was [`Parsed::plain`]: no name
//! written twice in an object and no whole number written as a float
//! (`2.0`). The typed call path deserializes a tool's input straight from
//! such text and gets what it would have got from the `Value`.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value, its strings borrowed where the text had no escapes.
#[derive(Clone, Debug, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Object<'a>),
}

/// A JSON object: its members sorted by name, each name once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object<'a> {
    members: Vec<(Cow<'a, str>, Json<'a>)>,
}

/// What [`Json::parse`] read.
#[derive(Debug)]
pub struct Parsed<'a> {
    pub json: Json<'a>,
    /// No object names a member twice, and no number with a fraction or an
    /// exponent has a whole value below 2^53: serde reads the text into a
    /// typed value as it reads the `Value` the general path makes of it.
    pub plain: bool,
}

impl<'a> Json<'a> {
    /// Reads JSON text (serde_json's grammar and nesting limit): most text
    /// by a reader of its own (`Reader`, crate-private), the rest by serde_json.
    pub fn parse(text: &'a str) -> Result<Parsed<'a>, serde_json::Error> {
        let mut r = Reader::new(text);
        if let Some(json) = r.value().filter(|_| r.at_end()) {
            return Ok(Parsed {
                json,
                plain: r.plain,
            });
        }
        Json::parse_by_serde(text)
    }

    /// [`Json::parse`] by serde_json alone.
    fn parse_by_serde(text: &'a str) -> Result<Parsed<'a>, serde_json::Error> {
        let plain = Cell::new(true);
        let mut de = serde_json::Deserializer::from_str(text);
        let json = Seed { plain: &plain }.deserialize(&mut de)?;
        de.end()?;
        Ok(Parsed {
            json,
            plain: plain.get(),
        })
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Json::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Json::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Json::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value`.
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::String(s) => Value::String(s.as_ref().to_owned()),
            Json::Array(a) => Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Object(o) => Value::Object(o.to_map()),
        }
    }
}

impl<'a> From<&'a Value> for Json<'a> {
    /// `value`, its strings borrowed.
    fn from(value: &'a Value) -> Json<'a> {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.clone()),
            Value::String(s) => Json::String(Cow::Borrowed(s)),
            Value::Array(a) => Json::Array(a.iter().map(Json::from).collect()),
            Value::Object(m) => Json::Object(Object::new(
                m.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Json::from(v)))
                    .collect(),
            )),
        }
    }
}

impl<'a> Object<'a> {
    /// An object of `members` in any order; a name written twice keeps its
    /// last value. Returns whether a name was written twice.
    fn new_counting(mut members: Vec<(Cow<'a, str>, Json<'a>)>) -> (Object<'a>, bool) {
        if members.is_sorted_by(|a, b| a.0 < b.0) {
            return (Object { members }, false);
        }
        // Stable: members of one name stay in the order written.
        members.sort_by(|a, b| a.0.cmp(&b.0));
        let before = members.len();
        let mut kept: Vec<(Cow<'a, str>, Json<'a>)> = Vec::with_capacity(before);
        for m in members {
            match kept.last_mut() {
                Some(last) if last.0 == m.0 => *last = m,
                _ => kept.push(m),
            }
        }
        let twice = kept.len() != before;
        (Object { members: kept }, twice)
    }

    fn new(members: Vec<(Cow<'a, str>, Json<'a>)>) -> Object<'a> {
        Object::new_counting(members).0
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.members
            .binary_search_by(|(k, _)| k.as_ref().cmp(name))
            .ok()
    }

    /// The member called `name`.
    pub fn get(&self, name: &str) -> Option<&Json<'a>> {
        self.index(name).map(|i| &self.members[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.index(name).is_some()
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The names, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|(k, _)| k.as_ref())
    }

    /// The values, in the order of their names.
    pub fn values(&self) -> impl Iterator<Item = &Json<'a>> {
        self.members.iter().map(|(_, v)| v)
    }

    /// The members, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Json<'a>)> {
        self.members.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// The same members as a `serde_json` map.
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_owned(), v.to_value()))
            .collect()
    }
}

/// Where the first byte of `bytes` is that a JSON string cannot hold as it
/// is: `"`, `\\` or a control character. Eight bytes at a time; the last few
/// of a text of eight or more in the word that ends it (the bytes it shares
/// with the word before, already clean, masked off); a text shorter than a
/// word byte by byte.
#[inline]
pub(crate) fn first_special(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(w) = bytes.get(at..at + 8) {
        if let Some(k) = specials(word(w)) {
            return Some(at + k);
        }
        at += 8;
    }
    let len = bytes.len();
    if at == len {
        return None;
    }
    if at == 0 {
        return bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20);
    }
    let last = word(bytes.get(len - 8..)?);
    // Only bytes above a special one can be taken for one ([`special_hits`]), and
    // the masked ones are clean: the lowest hit left is exact.
    let hits = special_hits(last) & (u64::MAX << (8 * (8 - (len - at))));
    (hits != 0).then(|| len - 8 + hits.trailing_zeros() as usize / 8)
}

/// Every byte 1, and every byte's high bit: the masks of the word-at-a-time
/// tests here and in [`crate::server`]'s escaping.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes as a word, the first the lowest (`w` holds eight).
#[inline]
pub(crate) fn word(w: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(w);
    u64::from_le_bytes(b)
}

/// [`first_special`] of one word (eight bytes, the first the lowest): the
/// index of its first `"`, `\\` or control character.
#[inline]
pub(crate) fn specials(x: u64) -> Option<usize> {
    let hits = special_hits(x);
    (hits != 0).then(|| hits.trailing_zeros() as usize / 8)
}

/// The high bit of each byte of `x` that is `"`, `\\` or a control
/// character; exact for the lowest such byte (a byte above one may be
/// marked too, by the borrow), which is all that is asked of it.
#[inline]
fn special_hits(x: u64) -> u64 {
    // The high bit of each byte of `x` that is below `n` (n <= 128).
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    below(x, 0x20)
        | below(x ^ (ONES * u64::from(b'"')), 1)
        | below(x ^ (ONES * u64::from(b'\\')), 1)
}

/// A reader of the JSON text the wire mostly carries, about five times
/// faster than serde_json's generic one: strings without escapes (borrowed),
/// integers of up to 18 digits, `true`, `false`, `null`, arrays, objects,
/// nested up to 100 deep. Anything else (an escape, a float, an error) it
/// leaves to serde_json, by returning `None`, so what it reads is always
/// exactly what serde_json reads.
pub(crate) struct Reader<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    /// As [`Parsed::plain`].
    pub(crate) plain: bool,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text,
            pos: 0,
            depth: 0,
            plain: true,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Skips white space; the next byte.
    pub(crate) fn next(&mut self) -> Option<u8> {
        while let Some(b) = self.peek() {
            // Anything above a space is no white space: one comparison for
            // the bytes most often next.
            if b > b' ' || !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Skips white space and `b`, if it is next.
    pub(crate) fn eat(&mut self, b: u8) -> bool {
        let found = self.next() == Some(b);
        self.pos += usize::from(found);
        found
    }

    /// Only white space left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.next().is_none()
    }

    /// The text from `start` to here.
    fn since(&self, start: usize) -> Option<&'a str> {
        self.text.get(start..self.pos)
    }

    /// A string without escapes or control characters.
    pub(crate) fn string(&mut self) -> Option<&'a str> {
        if !self.eat(b'"') {
            return None;
        }
        let rest = self.text.as_bytes().get(self.pos..)?;
        let len = first_special(rest)?;
        if rest[len] != b'"' {
            return None;
        }
        let s = self.text.get(self.pos..self.pos + len)?;
        self.pos += len + 1;
        Some(s)
    }

    fn literal(&mut self, word: &str, json: Json<'a>) -> Option<Json<'a>> {
        let found = self.text.get(self.pos..)?.starts_with(word);
        found.then(|| {
            self.pos += word.len();
            json
        })
    }

    /// An integer of up to 18 digits (no fraction, no exponent, not `-0`).
    fn integer(&mut self) -> Option<Json<'a>> {
        let negative = self.peek() == Some(b'-');
        let start = self.pos + usize::from(negative);
        let digits = self.text.as_bytes().get(start..)?;
        let len = digits
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(digits.len());
        if len == 0 || len > 18 || (len > 1 && digits[0] == b'0') {
            return None;
        }
        if matches!(digits.get(len), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let n = digits[..len]
            .iter()
            .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        self.pos = start + len;
        match (negative, n) {
            (false, n) => Some(Json::Number(n.into())),
            (true, 0) => None,
            (true, n) => i64::try_from(n).ok().map(|n| Json::Number((-n).into())),
        }
    }

    /// One value and its text, read by this reader or else by serde_json
    /// (a float, an escape); `None` if it is not JSON.
    pub(crate) fn parsed(&mut self) -> Option<(&'a str, Parsed<'a>)> {
        self.next()?;
        let start = self.pos;
        let (outer, depth) = (std::mem::replace(&mut self.plain, true), self.depth);
        let json = self.value();
        let plain = std::mem::replace(&mut self.plain, outer);
        if let Some(json) = json {
            return Some((self.since(start)?, Parsed { json, plain }));
        }
        self.depth = depth;
        let rest = self.text.get(start..)?;
        let mut de = serde_json::Deserializer::from_str(rest);
        let raw: &'a serde_json::value::RawValue = serde::Deserialize::deserialize(&mut de).ok()?;
        let text = raw.get();
        let offset = (text.as_ptr() as usize).checked_sub(rest.as_ptr() as usize)?;
        self.pos = start + offset + text.len();
        Some((text, Json::parse_by_serde(text).ok()?))
    }

    /// One value, or `None` for what serde_json should read.
    pub(crate) fn value(&mut self) -> Option<Json<'a>> {
        match self.next()? {
            b'"' => self.string().map(|s| Json::String(Cow::Borrowed(s))),
            b'{' => self.nested(Reader::object),
            b'[' => self.nested(Reader::array),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'n' => self.literal("null", Json::Null),
            _ => self.integer(),
        }
    }

    fn nested(&mut self, read: fn(&mut Reader<'a>) -> Option<Json<'a>>) -> Option<Json<'a>> {
        if self.depth >= 100 {
            return None;
        }
        self.depth += 1;
        self.pos += 1;
        let json = read(self);
        self.depth -= 1;
        json
    }

    /// An object's members, each read by `member` (which reads the value).
    pub(crate) fn members(
        &mut self,
        member: impl FnMut(&mut Reader<'a>, &'a str) -> Option<()>,
    ) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        self.rest_of_object(member)
    }

    /// The members of an object whose `{` was read, through its `}`.
    fn rest_of_object(
        &mut self,
        mut member: impl FnMut(&mut Reader<'a>, &'a str) -> Option<()>,
    ) -> Option<()> {
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            let name = self.string()?;
            if !self.eat(b':') {
                return None;
            }
            member(self, name)?;
            if self.eat(b'}') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    fn array(&mut self) -> Option<Json<'a>> {
        let mut items = Vec::new();
        if !self.eat(b']') {
            loop {
                items.push(self.value()?);
                if self.eat(b']') {
                    break;
                }
                if !self.eat(b',') {
                    return None;
                }
            }
        }
        Some(Json::Array(items))
    }

    fn object(&mut self) -> Option<Json<'a>> {
        let mut members = Vec::new();
        self.rest_of_object(|r, name| {
            members.push((Cow::Borrowed(name), r.value()?));
            Some(())
        })?;
        let (object, twice) = Object::new_counting(members);
        self.plain &= !twice;
        Some(Json::Object(object))
    }
}

/// Reads one value, clearing `plain` on what a `Value` reads differently
/// from a typed value.
#[derive(Clone, Copy)]
struct Seed<'c> {
    plain: &'c Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Json<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Json<'de>, E> {
        // What `typed::whole_numbers_as_integers` rewrites in a `Value`.
        if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
            self.plain.set(false);
        }
        // JSON text has no infinite or NaN numbers.
        Ok(Number::from_f64(f).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(name) = map.next_key_seed(Name)? {
            let value = map.next_value_seed(self)?;
            members.push((name, value));
        }
        let (object, twice) = Object::new_counting(members);
        if twice {
            self.plain.set(false);
        }
        Ok(Json::Object(object))
    }
}

/// A member name, borrowed when it has no escapes.
struct Name;

impl<'de> DeserializeSeed<'de> for Name {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_a_value_reads() {
        let texts = [
            r#"{"b":[1,-2,3.5,"x\"y",null,true,{}],"a":{"z":1,"y":"\u00e9"}}"#,
            r#"[]"#,
            r#""only""#,
            r#"{"n":18446744073709551615,"m":-9223372036854775808,"f":1e400}"#,
        ];
        for text in texts {
            let value: Result<Value, _> = serde_json::from_str(text);
            let parsed = Json::parse(text);
            match (value, parsed) {
                (Ok(v), Ok(p)) => {
                    assert_eq!(p.json.to_value(), v, "{text}");
                    assert_eq!(Json::from(&v), p.json, "{text}");
                    assert!(p.plain, "{text}");
                }
                (Err(_), Err(_)) => {}
                (v, p) => panic!("{text}: {v:?} against {p:?}"),
            }
        }
    }

    #[test]
    fn the_own_reader_reads_what_serde_json_reads_or_leaves_it() {
        let texts = [
            r#"{"a":[1,-2,0,-0,true,false,null,"s",{"b":{}}],"c":[]}"#,
            " { \"x\" : [ 1 , 2 ] , \"y\" : \"\" } ",
            "[123456789012345678, 1234567890123456789, -123456789012345678]",
            "[01]",
            "[1.5]",
            "[1e3]",
            "[-]",
            "[tru]",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "\"a\\nb\"",
            "[\"\u{1}\"]",
            "{\"b\":1,\"b\":2}",
            "[2.0]",
            "nul",
            "[\"é\"]",
        ];
        for text in texts {
            let mut r = Reader::new(text);
            let own = r.value().filter(|_| r.at_end());
            let serde = Json::parse_by_serde(text);
            if let Some(own) = own {
                let by_serde = serde.unwrap_or_else(|e| panic!("{text}: serde_json refuses: {e}"));
                assert_eq!(own, by_serde.json, "{text}");
                assert_eq!(r.plain, by_serde.plain, "{text}");
            }
            let parsed = Json::parse(text).map(|p| (p.json, p.plain));
            let by_serde = Json::parse_by_serde(text).map(|p| (p.json, p.plain));
            assert_eq!(parsed.ok(), by_serde.ok(), "{text}");
        }
        let deep = format!("{}{}", "[".repeat(150), "]".repeat(150));
        assert!(Reader::new(&deep).value().is_none() && Json::parse(&deep).is_err());
    }

    #[test]
    fn first_special_finds_the_first_byte_to_escape() {
        let naive = |b: &[u8]| b.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
        let mut text = b"abcdefghijklmnopqrstuvwxyz0123456789".to_vec();
        assert_eq!(first_special(&text), None);
        // Every length (shorter than a word, words and a tail), every place.
        for len in 0..=text.len() {
            assert_eq!(first_special(&text[..len]), None);
            for at in 0..len {
                for special in [b'"', b'\\', 0, 0x1f, b'\n'] {
                    let mut t = text[..len].to_vec();
                    t[at] = special;
                    // A byte just above a special one must not be taken for it.
                    if at + 1 < t.len() {
                        t[at + 1] = 0x20;
                    }
                    assert_eq!(first_special(&t), naive(&t), "{t:?}");
                    // Nor one two above, another special after it.
                    if at + 3 < t.len() {
                        t[at + 3] = b'"';
                        assert_eq!(first_special(&t), naive(&t), "{t:?}");
                    }
                }
            }
        }
        text.extend_from_slice("é 𝄞 \u{7f} !#[]".as_bytes());
        assert_eq!(first_special(&text), None);
    }

    #[test]
    fn objects_are_sorted_and_keep_the_last_of_a_name() {
        let p = Json::parse(r#"{"b":1,"a":2,"b":3}"#).unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.plain);
        let o = p.json.as_object().unwrap_or_else(|| panic!("an object"));
        assert_eq!(o.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(o.get("b"), Some(&Json::Number(3.into())));
        assert_eq!(o.get("c"), None);
        assert_eq!(p.json.to_value(), json!({"a": 2, "b": 3}));
    }

    #[test]
    fn whole_floats_are_not_plain() {
        for (text, plain) in [
            ("[2.0]", false),
            ("[2.5]", true),
            ("[1e2]", false),
            ("[2]", true),
            ("[1e300]", true),
        ] {
            let p = Json::parse(text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(p.plain, plain, "{text}");
        }
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let p = Json::parse(r#"{"k":"plain","e":"a\nb"}"#).unwrap_or_else(|e| panic!("{e}"));
        let o = p.json.as_object().unwrap_or_else(|| panic!("an object"));
        assert!(matches!(
            o.get("k"),
            Some(Json::String(Cow::Borrowed("plain")))
        ));
        assert!(matches!(o.get("e"), Some(Json::String(Cow::Owned(s))) if s == "a\nb"));
        assert!(Json::parse("{} x").is_err() && Json::parse(&"[".repeat(200)).is_err());
    }
}
