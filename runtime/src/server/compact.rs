//! Compact JSON text of a typed output, byte for byte what
//! `serde_json::to_string` writes, written faster: strings are checked for
//! what needs escaping a whole string at a time (most need nothing) instead
//! of byte by byte, and numbers go through serde_json's own formatter.
//! Anything it does not write itself (serde_json's private raw-value and
//! number types, a map key that is not a string or an integer) makes it
//! give up, and serde_json writes the value instead, error included.

use serde::ser::{self, Impossible, Serialize};
use serde_json::ser::{CompactFormatter, Formatter};

use super::wire::write_escaped;

/// `value` as compact JSON text, exactly as `serde_json::to_string` writes it.
pub(crate) fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut out = Vec::with_capacity(256);
    match value.serialize(Writer { out: &mut out }) {
        // Only valid UTF-8 is written: text from `&str`s and ASCII.
        Ok(()) => String::from_utf8(out).or_else(|_| serde_json::to_string(value)),
        Err(_) => serde_json::to_string(value),
    }
}

/// Gives up: serde_json writes the value instead.
fn unsupported() -> serde_json::Error {
    ser::Error::custom("left to serde_json")
}

type Result<T = ()> = std::result::Result<T, serde_json::Error>;

struct Writer<'o> {
    out: &'o mut Vec<u8>,
}

impl<'o> Writer<'o> {
    fn string(&mut self, s: &str) {
        self.out.push(b'"');
        write_escaped(self.out, s);
        self.out.push(b'"');
    }

    /// `{"variant":` and `open`: a variant's array or object, which `close` ends.
    fn variant(mut self, variant: &str, open: &[u8], close: &'static [u8]) -> Compound<'o> {
        self.out.push(b'{');
        self.string(variant);
        self.out.push(b':');
        self.out.extend_from_slice(open);
        Compound::new(self.out, close)
    }

    /// A number, by serde_json's formatter (writing to a `Vec` cannot fail).
    fn number(&mut self, write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> Result {
        write(self.out).map_err(serde_json::Error::io)
    }
}

macro_rules! numbers {
    ($($method:ident: $t:ty => $write:ident),* $(,)?) => {
        $(fn $method(mut self, v: $t) -> Result {
            self.number(|out| CompactFormatter.$write(out, v))
        })*
    };
}

impl<'o> ser::Serializer for Writer<'o> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Compound<'o>;
    type SerializeTuple = Compound<'o>;
    type SerializeTupleStruct = Compound<'o>;
    type SerializeTupleVariant = Compound<'o>;
    type SerializeMap = Compound<'o>;
    type SerializeStruct = Compound<'o>;
    type SerializeStructVariant = Compound<'o>;

    fn serialize_bool(self, v: bool) -> Result {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
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
        self.out.extend_from_slice(b"null");
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
        self.out.push(b'{');
        self.string(variant);
        self.out.push(b':');
        value.serialize(Writer { out: self.out })?;
        self.out.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'o>> {
        self.out.push(b'[');
        Ok(Compound::new(self.out, b"]"))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'o>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'o>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'o>> {
        Ok(self.variant(variant, b"[", b"]}"))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'o>> {
        self.out.push(b'{');
        Ok(Compound::new(self.out, b"}"))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'o>> {
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
    ) -> Result<Compound<'o>> {
        Ok(self.variant(variant, b"{", b"}}"))
    }
}

/// An array or object being written: a comma before every member but the first.
struct Compound<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
    close: &'static [u8],
}

impl<'o> Compound<'o> {
    fn new(out: &'o mut Vec<u8>, close: &'static [u8]) -> Compound<'o> {
        Compound {
            out,
            first: true,
            close,
        }
    }

    fn comma(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.out.push(b',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.comma();
        value.serialize(Writer { out: self.out })
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        self.comma();
        Writer { out: self.out }.string(key);
        self.out.push(b':');
        value.serialize(Writer { out: self.out })
    }

    fn end(self) -> Result {
        self.out.extend_from_slice(self.close);
        Ok(())
    }
}

macro_rules! sequence {
    ($($trait:ident: $method:ident),* $(,)?) => {
        $(impl ser::$trait for Compound<'_> {
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
        $(impl ser::$trait for Compound<'_> {
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

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.comma();
        key.serialize(Key { out: self.out })?;
        self.out.push(b':');
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
struct Key<'o> {
    out: &'o mut Vec<u8>,
}

macro_rules! integer_keys {
    ($($method:ident: $t:ty),* $(,)?) => {
        $(fn $method(self, v: $t) -> Result {
            self.out.push(b'"');
            Writer { out: self.out }.$method(v)?;
            self.out.push(b'"');
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

impl ser::Serializer for Key<'_> {
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

    #[test]
    fn writes_what_serde_json_writes() {
        let s = S {
            quoted: "tab\there \u{1} \"q\" \\ é \u{7f} 𝄞",
            chars: ['"', 'x'],
            ints: (-8, i128::MIN, u128::MAX, u64::MAX),
            floats: [0.1, -0.0, 1e300, f64::NAN, f64::INFINITY],
            small: 1.5,
            es: [
                E::Unit,
                E::New(3),
                E::Tuple(1, "t"),
                E::Struct { a: Some(2.0) },
            ],
            keys: BTreeMap::from([(-1, true), (2, false)]),
            value: json!({"b": [1, 2.5, null, "s\n"], "a": {}}),
            bytes: b"ab",
            unit: (),
            none: None,
        };
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
}
