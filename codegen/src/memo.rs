//! A clean spec's tool, kept in the generation cache for the next run.
//!
//! A run that renders from the cache (one spec of a thousand edited) spent
//! most of its loading parsing specs that had not changed and reading them
//! into the IR again. [`load`](crate::load) keeps each clean spec's tool
//! (no diagnostic at all) under a [`key`] of everything reading it depends
//! on, and takes it back instead of parsing the spec the next time.
//!
//! The tool is kept in a compact binary form of its own ([`encode`],
//! [`decode`]): JSON (serde) took longer to read back than the spec took to
//! parse. Invariants:
//! - a key covers the digest of the spec's bytes, its path, its tool set's
//!   format and `--format`; an MCP spec that may `$ref` another document has
//!   no key (its tool depends on that document too). The key needs only the
//!   text's [`TextFacts`], which a run stamp records: a spec unchanged since
//!   by its stamp is not read to find its tool;
//! - every location of a kept tool names the spec's file: a tool is taken
//!   back with them moved to the file's place among this run's files (a
//!   spec added before it shifts that place), and refused if one names
//!   another file;
//! - a kept tool carries its digest as read ([`Tool::digest_as_read`]),
//!   given back only when its locations did not move (the digest covers
//!   them), so that the run's keys need not hash it again;
//! - [`decode`] gives back exactly what [`encode`] was given, moved (a unit
//!   test reads every tool of the repository's specs through both), and
//!   `None`, never a panic, for anything else (the cache checks each piece
//!   against its digest besides).

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use crate::bytes::{Reader, put_len, put_str, put_u32, put_u128, put_var};
use crate::digest::{Digest, Hasher, PieceCache};
use crate::ir::{
    Deprecation, Example, Format, Implied, JsonValue, KeptBytes, KeptLocs, KeptValue, LocatedValue,
    Locs, RFunction, SafetyLevel, Schema, Spanned, Tool,
};
use crate::source::{FileId, Loc, Span};

/// What the memo needs of a spec's text, worked out once as it is read:
/// a run stamp records it, so that a later run that finds the spec
/// unchanged by its stamp need not read it to find its kept tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextFacts {
    /// The digest of the text's bytes.
    pub digest: Digest,
    /// It may `$ref` another document (it says `$ref`, or has an escape
    /// that could spell it).
    pub may_ref: bool,
    /// Nothing but white space (and a byte-order mark).
    pub blank: bool,
}

impl TextFacts {
    pub fn of(text: &str) -> TextFacts {
        TextFacts {
            digest: Digest::of(text.as_bytes()),
            may_ref: text.contains("$ref") || text.contains("\\u"),
            blank: is_blank(text),
        }
    }
}

/// Whether a text is nothing but white space (and a byte-order mark).
pub fn is_blank(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').trim().is_empty()
}

/// What reading a spec into its tool depends on, as the key of its kept
/// tool; `None` for a spec that may be MCP and may `$ref` another document.
pub fn key(
    path: &std::path::Path,
    text: TextFacts,
    set_format: Option<Format>,
    forced: Option<Format>,
    is_yaml: bool,
) -> Option<Digest> {
    // EditorMCP and RAVE specs refer to nothing outside themselves; a loose
    // file's format is known only once it is parsed.
    let may_be_mcp = set_format.or(forced).is_none_or(|f| f == Format::Mcp);
    if text.may_ref && may_be_mcp {
        return None;
    }
    // The path's bytes and the formats' words, not their `Debug` forms:
    // formatting them for every spec of a run showed in profiles.
    let format = |f: Option<Format>| f.map_or("-", Format::as_str);
    Some(
        Hasher::new()
            .str("spec read 3")
            .bytes(path.as_os_str().as_encoded_bytes())
            .str(format(set_format))
            .str(format(forced))
            .str(if is_yaml { "yaml" } else { "json" })
            .digest(text.digest)
            .finish(),
    )
}

/// A tool taken back: its format, the tool, and its digest as read
/// ([`Tool::digest_as_read`]) when its locations did not move (the digest
/// covers them).
pub type Recalled = (Format, Tool, Option<Digest>);

/// The format and tool kept under `key`, if any that reads back, its
/// locations in `file` (the spec's place among this run's files).
pub fn recall(cache: &dyn PieceCache, key: Digest, file: FileId) -> Option<Recalled> {
    decode_shared(std::sync::Arc::new(cache.get(key)?), file)
}

/// Keeps a clean spec's format and tool under `key` (its locations in
/// `file`, the spec's place among this run's files) with its digest as
/// read, which it returns (the run's keys take it too).
pub fn keep(
    cache: &dyn PieceCache,
    key: Digest,
    file: FileId,
    format: Format,
    tool: &Tool,
) -> Digest {
    let digest = tool.digest_as_read();
    cache.put(key, &encode_with(file, format, tool, digest));
    digest
}

/// Marks the form, so that a change of it is a miss, not a misreading.
const MAGIC: &[u8] = b"toolgen tool 4\n";

/// A format and tool as bytes; `file` is the one its locations name.
#[cfg(test)]
pub fn encode(file: FileId, format: Format, tool: &Tool) -> Vec<u8> {
    encode_with(file, format, tool, tool.digest_as_read())
}

/// [`encode`], the tool's digest as read given.
fn encode_with(file: FileId, format: Format, tool: &Tool, digest: Digest) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(MAGIC);
    file.0.put(&mut out);
    put_u128(&mut out, digest.0);
    format.put(&mut out);
    tool.put(&mut out);
    out
}

/// What [`encode`] wrote, its locations moved to `file` (and its digest
/// given only when they did not move); `None` for anything else, and for a
/// tool with a location in a file other than its own.
#[cfg(test)]
pub fn decode(bytes: &[u8], file: FileId) -> Option<Recalled> {
    decode_shared(std::sync::Arc::new(bytes.to_vec()), file)
}

/// [`decode`] of bytes its kept parts can share.
fn decode_shared(bytes: std::sync::Arc<Vec<u8>>, file: FileId) -> Option<Recalled> {
    let mut r = Reader::new(&bytes);
    r.expect(MAGIC)?;
    let mut input = Input {
        r,
        depth: 0,
        files: (FileId(0), file),
        whole: Some(&bytes),
    };
    input.files.0 = FileId(input.r.u32()?);
    let digest = Digest(input.r.u128()?);
    let format = Format::take(&mut input)?;
    let tool = Tool::take(&mut input)?;
    let digest = (input.files.0 == file).then_some(digest);
    input.r.is_done().then_some((format, tool, digest))
}

/// Bytes being read back.
struct Input<'a> {
    r: Reader<'a>,
    /// How deep in a JSON value: bounded, so that no input overflows the stack.
    depth: usize,
    /// The file the locations name, and the one they are moved to.
    files: (FileId, FileId),
    /// All the bytes, when parts kept as bytes can share them.
    whole: Option<&'a std::sync::Arc<Vec<u8>>>,
}

impl Input<'_> {
    /// The `len` bytes that start where `rest` does, as kept bytes.
    fn kept(&self, rest: &[u8], len: usize) -> Option<KeptBytes> {
        let Some(whole) = self.whole else {
            return KeptBytes::new(std::sync::Arc::new(rest.get(..len)?.to_vec()), 0..len);
        };
        let at = whole.len().checked_sub(rest.len())?;
        KeptBytes::new(whole.clone(), at..at.checked_add(len)?)
    }
}

/// Deeper than any value a reader accepts.
const MAX_DEPTH: usize = 512;

/// A part of a tool, written into bytes and read back.
trait Part: Sized {
    fn put(&self, out: &mut Vec<u8>);
    fn take(input: &mut Input<'_>) -> Option<Self>;
}

impl Part for u32 {
    fn put(&self, out: &mut Vec<u8>) {
        put_u32(out, *self);
    }
    fn take(input: &mut Input<'_>) -> Option<u32> {
        input.r.u32()
    }
}

impl Part for bool {
    fn put(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn take(input: &mut Input<'_>) -> Option<bool> {
        match input.r.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

impl Part for f64 {
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn take(input: &mut Input<'_>) -> Option<f64> {
        Some(f64::from_bits(input.r.u64()?))
    }
}

impl Part for String {
    fn put(&self, out: &mut Vec<u8>) {
        put_str(out, self);
    }
    fn take(input: &mut Input<'_>) -> Option<String> {
        input.r.str().map(str::to_owned)
    }
}

impl<T: Part> Part for Option<T> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.put(out);
            }
        }
    }
    fn take(input: &mut Input<'_>) -> Option<Option<T>> {
        match input.r.byte()? {
            0 => Some(None),
            1 => Some(Some(Part::take(input)?)),
            _ => None,
        }
    }
}

impl<T: Part> Part for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        put_len(out, self.len());
        for v in self {
            v.put(out);
        }
    }
    fn take(input: &mut Input<'_>) -> Option<Vec<T>> {
        let n = input.r.count()?;
        // Sized as written (`count` bounds it by the bytes left): a vector
        // grown from empty holds room for four (a tool's one example, 2 KiB
        // of fresh memory instead of 488 bytes).
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(Part::take(input)?);
        }
        Some(items)
    }
}

impl<T: Part> Part for BTreeMap<String, T> {
    fn put(&self, out: &mut Vec<u8>) {
        put_len(out, self.len());
        for (k, v) in self {
            put_str(out, k);
            v.put(out);
        }
    }
    fn take(input: &mut Input<'_>) -> Option<BTreeMap<String, T>> {
        let n = input.r.count()?;
        (0..n)
            .map(|_| Some((Part::take(input)?, Part::take(input)?)))
            .collect()
    }
}

impl Part for Loc {
    fn put(&self, out: &mut Vec<u8>) {
        for n in [self.file.0, self.span.start, self.span.end] {
            put_u32(out, n);
        }
    }
    fn take(input: &mut Input<'_>) -> Option<Loc> {
        let (file, start, end) = (FileId(input.r.u32()?), input.r.u32()?, input.r.u32()?);
        (file == input.files.0).then_some(Loc::new(input.files.1, Span { start, end }))
    }
}

impl<T: Part> Part for Spanned<T> {
    fn put(&self, out: &mut Vec<u8>) {
        self.value.put(out);
        self.loc.put(out);
    }
    fn take(input: &mut Input<'_>) -> Option<Spanned<T>> {
        Some(Spanned::new(Part::take(input)?, Part::take(input)?))
    }
}

/// A word enum as its place among its variants.
macro_rules! word_part {
    ($($t:ty),*) => {$(
        impl Part for $t {
            fn put(&self, out: &mut Vec<u8>) {
                let at = <$t>::ALL.iter().position(|v| v == self).unwrap_or(0);
                out.push(at as u8);
            }
            fn take(input: &mut Input<'_>) -> Option<$t> {
                <$t>::ALL.get(usize::from(input.r.byte()?)).copied()
            }
        }
    )*};
}
word_part!(Format, SafetyLevel);

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UNSIGNED: u8 = 3;
const SIGNED: u8 = 4;
const FLOAT: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

impl Part for Value {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Value::Null => out.push(NULL),
            Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    out.push(UNSIGNED);
                    out.extend_from_slice(&u.to_le_bytes());
                } else if let Some(i) = n.as_i64() {
                    out.push(SIGNED);
                    out.extend_from_slice(&i.to_le_bytes());
                } else {
                    out.push(FLOAT);
                    n.as_f64().unwrap_or(f64::NAN).put(out);
                }
            }
            Value::String(s) => {
                out.push(STRING);
                put_str(out, s);
            }
            Value::Array(a) => {
                out.push(ARRAY);
                put_len(out, a.len());
                for v in a {
                    v.put(out);
                }
            }
            Value::Object(m) => {
                out.push(OBJECT);
                put_len(out, m.len());
                for (k, v) in m {
                    put_str(out, k);
                    v.put(out);
                }
            }
        }
    }

    fn take(input: &mut Input<'_>) -> Option<Value> {
        Some(match input.r.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UNSIGNED => Value::Number(input.r.u64()?.into()),
            SIGNED => Value::Number((input.r.u64()? as i64).into()),
            // NaN and infinities are no JSON number: not what was written.
            FLOAT => Value::Number(Number::from_f64(Part::take(input)?)?),
            STRING => Value::String(Part::take(input)?),
            tag @ (ARRAY | OBJECT) => {
                input.depth += 1;
                if input.depth > MAX_DEPTH {
                    return None;
                }
                let n = input.r.count()?;
                let v = if tag == ARRAY {
                    Value::Array((0..n).map(|_| Part::take(input)).collect::<Option<_>>()?)
                } else {
                    // Inserted as read (in key order, each at the end): no
                    // buffer of members to sort and build from.
                    let mut members = Map::new();
                    for _ in 0..n {
                        let key: String = Part::take(input)?;
                        members.insert(key, Part::take(input)?);
                    }
                    Value::Object(members)
                };
                input.depth -= 1;
                v
            }
            _ => return None,
        })
    }
}

/// Locations' bytes (all of them) as locations, moved from `files.0` to
/// `files.1`.
fn decode_locs(bytes: &[u8], files: (FileId, FileId)) -> Option<Locs> {
    let mut input = Input {
        r: Reader::new(bytes),
        depth: 0,
        files,
        whole: None,
    };
    let locs = take_locs(&mut input)?;
    input.r.is_done().then_some(locs)
}

fn take_locs(input: &mut Input<'_>) -> Option<Locs> {
    let mut text = String::new();
    let mut entries = Vec::new();
    walk_locs(input, |pointer, loc| {
        text.push_str(pointer);
        // Within `u32` (the walk bounds the text by its bytes).
        entries.push((text.len() as u32, loc));
    })?;
    Locs::from_parts(&text, entries)
}

/// Writes locations (`text` and `entries` as [`Locs::parts`] gives them):
/// their count, then per pointer (in order) how many of its first bytes it
/// shares with the one before, the rest of it, and its place (file, start,
/// end), every number as [`put_var`] writes it. A tool's pointers share most
/// of their text (`/properties/a/description`, `/properties/a/type`): this
/// form is a third of the one with every pointer and number whole.
fn put_locs(out: &mut Vec<u8>, text: &str, entries: &[(u32, Loc)]) {
    put_var(out, u32::try_from(entries.len()).unwrap_or(u32::MAX));
    let (mut before, mut start) = ("", 0);
    for (end, loc) in entries {
        let pointer = text.get(start..*end as usize).unwrap_or_default();
        let mut shared = (before.bytes().zip(pointer.bytes()))
            .take_while(|(a, b)| a == b)
            .count();
        while !pointer.is_char_boundary(shared) {
            shared -= 1;
        }
        let rest = &pointer[shared..];
        for n in [shared, rest.len()] {
            put_var(out, u32::try_from(n).unwrap_or(u32::MAX));
        }
        out.extend_from_slice(rest.as_bytes());
        for n in [loc.file.0, loc.span.start, loc.span.end] {
            put_var(out, n);
        }
        (before, start) = (pointer, *end as usize);
    }
}

/// Reads what [`put_locs`] wrote, handing `each` every pointer (built in a
/// buffer used again for the next) and its location, moved to `files.1`;
/// `None` when the bytes do not read, a location names another file than
/// `files.0`, or the pointers so far are more than [`MAX_LOCS_GROWTH`]
/// times the bytes taken (a damaged form must not make a huge text).
fn walk_locs(input: &mut Input<'_>, mut each: impl FnMut(&str, Loc)) -> Option<()> {
    let start = input.r.rest().len();
    let n = input.r.var()? as usize;
    if n > input.r.rest().len() {
        return None;
    }
    let mut pointer = String::new();
    let mut total = 0usize;
    for _ in 0..n {
        let shared = input.r.var()? as usize;
        let len = input.r.var()? as usize;
        if shared > pointer.len() || !pointer.is_char_boundary(shared) {
            return None;
        }
        let rest = std::str::from_utf8(input.r.bytes(len)?).ok()?;
        pointer.truncate(shared);
        pointer.push_str(rest);
        let (file, from, to) = (input.r.var()?, input.r.var()?, input.r.var()?);
        // Bounded by the bytes taken so far: the same for a check of the
        // whole tool's bytes and for a decoding of these alone.
        total = total.saturating_add(pointer.len());
        let taken = start - input.r.rest().len();
        if FileId(file) != input.files.0 || total > MAX_LOCS_GROWTH.saturating_mul(taken) {
            return None;
        }
        each(
            &pointer,
            Loc::new(
                input.files.1,
                Span {
                    start: from,
                    end: to,
                },
            ),
        );
    }
    Some(())
}

/// How many times their bytes the pointers of kept locations may be
/// together (real ones are about three).
const MAX_LOCS_GROWTH: usize = 64;

impl Part for Locs {
    fn put(&self, out: &mut Vec<u8>) {
        if let Some(bytes) = self.kept_bytes() {
            // Taken back where they were kept, and not changed since.
            out.extend_from_slice(bytes);
            return;
        }
        let (text, entries) = self.parts();
        put_locs(out, text, entries);
    }
    /// Checked as [`take_locs`] would take them, without building them:
    /// kept as their bytes ([`Locs::kept`]), built when first asked for.
    fn take(input: &mut Input<'_>) -> Option<Locs> {
        let start = input.r.rest();
        // Walked as `take_locs` walks them, nothing kept.
        walk_locs(input, |_, _| ())?;
        let len = start.len() - input.r.rest().len();
        Some(Locs::kept(KeptLocs {
            bytes: input.kept(start, len)?,
            decode: decode_locs,
            files: input.files,
        }))
    }
}

/// `Part` for a struct, field by field in declaration order: destructured
/// without `..`, so that a field added to the struct does not compile until
/// it is kept here too (a field left out would be lost between runs).
macro_rules! struct_part {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Part for $t {
            fn put(&self, out: &mut Vec<u8>) {
                let $t { $($f),* } = self;
                $($f.put(out);)*
            }
            fn take(input: &mut Input<'_>) -> Option<$t> {
                Some($t { $($f: Part::take(input)?),* })
            }
        }
    };
}

struct_part!(Schema {
    value,
    locs,
    written
});

/// A schema's value is kept as its bytes ([`JsonValue::kept`]): checked
/// here to decode, without building it; decoded when something reads it.
impl Part for JsonValue {
    fn put(&self, out: &mut Vec<u8>) {
        match self.kept_bytes() {
            // A value taken back and not changed since: its bytes as they were.
            Some(bytes) => out.extend_from_slice(bytes),
            None => <Value as Part>::put(self, out),
        }
    }
    fn take(input: &mut Input<'_>) -> Option<JsonValue> {
        let start = input.r.rest();
        let tag = start.first().copied();
        let defs = check_value(input, Some(start))?;
        let len = start.len() - input.r.rest().len();
        Some(JsonValue::kept(KeptValue {
            bytes: input.kept(start, len)?,
            decode: decode_value,
            is_null: tag == Some(NULL),
            defs,
        }))
    }
}

/// A value's bytes (all of them) as a value.
fn decode_value(bytes: &[u8]) -> Option<Value> {
    let mut input = Input {
        r: Reader::new(bytes),
        depth: 0,
        files: (FileId(0), FileId(0)),
        whole: None,
    };
    let value = <Value as Part>::take(&mut input)?;
    input.r.is_done().then_some(value)
}

/// Takes the bytes of one value, `None` unless [`Value::take`] would take
/// them as they are (the same checks, nothing built). With `top` (the
/// bytes, from the value's start), where the value's `$defs` member lies in
/// them (`Some(None)`: the value has none).
fn check_value(
    input: &mut Input<'_>,
    top: Option<&[u8]>,
) -> Option<Option<std::ops::Range<usize>>> {
    match input.r.byte()? {
        NULL | FALSE | TRUE => {}
        UNSIGNED | SIGNED => {
            input.r.u64()?;
        }
        FLOAT => {
            Number::from_f64(f64::take(input)?)?;
        }
        STRING => {
            input.r.str_bytes()?;
        }
        tag @ (ARRAY | OBJECT) => {
            input.depth += 1;
            if input.depth > MAX_DEPTH {
                return None;
            }
            let n = input.r.count()?;
            let mut defs = None;
            for _ in 0..n {
                let at_defs = tag == OBJECT && input.r.str_bytes()? == b"$defs";
                let from = input.r.rest().len();
                check_value(input, None)?;
                if let Some(start) = top.filter(|_| at_defs) {
                    let len = start.len();
                    defs = Some(len - from..len - input.r.rest().len());
                }
            }
            input.depth -= 1;
            return Some(defs);
        }
        _ => return None,
    }
    Some(None)
}
struct_part!(LocatedValue { value, locs });
struct_part!(Example {
    description,
    input,
    output,
    loc
});
struct_part!(Deprecation { sunset, message });
struct_part!(Implied {
    name,
    description,
    category,
    tier,
    safety
});
struct_part!(RFunction { package, function });
struct_part!(Tool {
    id,
    name,
    description,
    category,
    safety,
    tier,
    input,
    output,
    notes,
    examples,
    timeout_seconds,
    requires_approval,
    annotations,
    hints,
    passthrough,
    implied,
    model_description,
    deprecated,
    r_function,
    loc,
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool of the repository's specs (all three formats), and the
    /// bytes of each cut short or changed, read back.
    #[test]
    fn tools_read_back_as_they_were_and_nothing_else_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-specs");
        let loaded = crate::load::load(&[root], &crate::load::LoadOptions::default());
        let tools: Vec<&Tool> = loaded.project.tools().collect();
        assert!(tools.len() > 20, "{} tools", tools.len());
        let formats: std::collections::BTreeSet<Format> =
            loaded.project.tool_sets.iter().map(|s| s.format).collect();
        assert_eq!(formats.len(), 3, "{formats:?}");
        let mut kept = 0;
        for (i, tool) in tools.into_iter().enumerate() {
            let format = Format::ALL[i % 3];
            let file = tool.loc.file;
            let bytes = encode(file, format, tool);
            let Some((back_format, back_tool, digest)) = decode(&bytes, file) else {
                // Only a tool with locations in other files is refused: an
                // MCP tool whose `$ref`s were bundled (never kept).
                assert!(
                    loaded.db.get(file).text().contains("$ref"),
                    "{}",
                    tool.id.value
                );
                continue;
            };
            kept += 1;
            assert!(
                (back_format, &back_tool) == (format, tool),
                "{}",
                tool.id.value
            );
            // Its digest as read comes along, and is its own.
            assert_eq!(digest, Some(tool.digest_as_read()), "{}", tool.id.value);
            // Taken back elsewhere among the files: every location moved,
            // nothing else changed.
            let elsewhere = FileId(file.0 + 1000);
            let moved = decode(&bytes, elsewhere);
            // Moved, the digest (which covers locations) does not come along.
            assert!(moved.as_ref().is_some_and(|(_, t, d)| d.is_none()
                && t.id.loc.file == elsewhere
                && t.input.locs.values().all(|l| l.file == elsewhere)));
            // And moved back: the tool as it was.
            let back = moved.and_then(|(_, t, _)| decode(&encode(elsewhere, format, &t), file));
            assert!(
                back.is_some_and(|(f, t, _)| (f, &t) == (format, tool)),
                "{}",
                tool.id.value
            );
            // A location in another file: refused.
            let mut foreign = tool.clone();
            foreign.description.loc.file = elsewhere;
            assert!(decode(&encode(file, format, &foreign), file).is_none());
            for cut in [1, bytes.len() / 3, bytes.len() - 1] {
                assert!(
                    decode(&bytes[..cut], file).is_none(),
                    "{} cut at {cut}",
                    tool.id.value
                );
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(decode(&longer, file).is_none());
            // Any byte changed: read back as something, or refused; never a
            // panic. What reads back has schemas whose kept bytes decode.
            for at in (MAGIC.len()..bytes.len()).step_by(bytes.len() / 64 + 1) {
                let mut changed = bytes.clone();
                changed[at] ^= 0xa5;
                if let Some((_, t, _)) = decode(&changed, file) {
                    for s in [&t.input, &t.output] {
                        assert!(
                            s.value
                                .kept_bytes()
                                .is_some_and(|b| decode_value(b).is_some())
                        );
                    }
                }
            }
        }
        assert!(kept > 20, "{kept} tools read back");
    }

    /// Locations are written with each pointer's shared start left out,
    /// numbers as few bytes as they need: they read back the same, also
    /// pointers that differ inside a character of more than one byte; a
    /// form whose pointers would grow past their bound is refused.
    #[test]
    fn locations_read_back_from_their_short_form() {
        let file = FileId(3);
        let at = |start| {
            Loc::new(
                file,
                Span {
                    start,
                    end: start + 2,
                },
            )
        };
        let locs: Locs = [
            ("", at(0)),
            ("/properties/a", at(10)),
            ("/properties/a/description", at(200)),
            ("/properties/a/type", at(70_000)),
            ("/properties/é", at(5)),
            ("/properties/ê/x", at(6)),
        ]
        .into_iter()
        .map(|(p, l)| (p.to_owned(), l))
        .collect();
        let mut out = Vec::new();
        locs.put(&mut out);
        let (text, entries) = locs.parts();
        assert!(
            out.len() * 2 < text.len() + 16 * entries.len(),
            "{} bytes",
            out.len()
        );
        let back = decode_locs(&out, (file, FileId(4))).unwrap_or_default();
        let moved: Vec<_> = entries
            .iter()
            .map(|(e, l)| (*e, Loc::new(FileId(4), l.span)))
            .collect();
        assert_eq!(back.parts(), (text, &moved[..]));
        // Checked as taken: the same bytes pass, another file's do not.
        let mut input = Input {
            r: Reader::new(&out),
            depth: 0,
            files: (file, file),
            whole: None,
        };
        assert!(<Locs as Part>::take(&mut input).is_some() && input.r.is_done());
        assert!(decode_locs(&out, (FileId(9), file)).is_none());
        // One long pointer, then many sharing all of it: refused, not built.
        let mut bomb = Vec::new();
        put_var(&mut bomb, 1000);
        let long = "x".repeat(4000);
        for (i, n) in std::iter::repeat_n(0, 1000).enumerate() {
            let (shared, rest) = if i == 0 {
                (0, long.as_str())
            } else {
                (long.len(), "")
            };
            put_var(&mut bomb, shared as u32);
            put_var(&mut bomb, rest.len() as u32);
            bomb.extend_from_slice(rest.as_bytes());
            for m in [file.0, n, n] {
                put_var(&mut bomb, m);
            }
        }
        assert!(decode_locs(&bomb, (file, file)).is_none());
    }

    /// A kept schema stays as its bytes (its value and its locations): what
    /// a run asks of it without reading it (null? definitions?) is told from
    /// them, encoding it again gives the same bytes, and changing it decodes
    /// it for good.
    #[test]
    fn kept_schemas_are_read_only_when_asked_for() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-specs");
        let loaded = crate::load::load(&[root], &crate::load::LoadOptions::default());
        let (mut nulls, mut defs) = (0, 0);
        // The specs' tools all have an output: one without, besides.
        let mut no_output: Vec<Tool> = loaded.project.tools().take(1).cloned().collect();
        for t in &mut no_output {
            *t.output.value = Value::Null;
        }
        for tool in loaded.project.tools().chain(&no_output) {
            let file = tool.loc.file;
            let bytes = encode(file, Format::Mcp, tool);
            let Some((_, back, _)) = decode(&bytes, file) else {
                continue;
            };
            for (fresh, kept) in [(&tool.input, &back.input), (&tool.output, &back.output)] {
                assert!(kept.value.kept_bytes().is_some());
                assert_eq!(kept.value.is_null(), fresh.value.is_null());
                assert_eq!(kept.value.has_defs(), fresh.value.get("$defs").is_some());
                assert_eq!(kept.value.has_defs(), fresh.value.has_defs());
                // The definitions alone, decoded from their own bytes.
                assert_eq!(kept.value.defs().as_deref(), fresh.value.get("$defs"));
                nulls += usize::from(kept.value.is_null());
                defs += usize::from(kept.value.has_defs());
            }
            // Read (not changed), it is still held as its bytes; so are the
            // locations, unless they moved to another file.
            assert_eq!(*back.input.value, *tool.input.value);
            assert!(back.input.value.kept_bytes().is_some());
            assert_eq!(back.input.locs, tool.input.locs);
            assert!(back.input.locs.kept_bytes().is_some());
            let moved = decode(&bytes, FileId(file.0 + 1));
            assert!(
                moved.is_some_and(|(_, t, _)| t.input.locs.kept_bytes().is_none()
                    && t.input.locs.len() == tool.input.locs.len())
            );
            assert_eq!(encode(file, Format::Mcp, &back), bytes, "{}", tool.id.value);
            let mut changed = back.clone();
            changed.input.value["$comment"] = Value::from("changed");
            assert!(changed.input.value.kept_bytes().is_none());
            assert_ne!(changed.input.value, tool.input.value);
            let again = decode(&encode(file, Format::Mcp, &changed), file);
            assert!(again.is_some_and(|(_, t, _)| t.input.value == changed.input.value));
        }
        assert!(
            nulls > 0 && defs > 0,
            "{nulls} null schemas, {defs} with definitions"
        );
    }

    /// Loading with kept tools gives what loading without them gives: the
    /// same project and the same diagnostics, over every format, over specs
    /// with problems, and after a spec changed.
    #[test]
    fn a_load_from_kept_tools_is_a_load_from_the_specs() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let scratch = std::env::temp_dir().join(format!("toolgen-memo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&scratch);
        let copy = scratch.join("editormcp");
        let copied = std::fs::create_dir_all(&copy).and_then(|()| {
            for e in std::fs::read_dir(repo.join("tool-specs/editormcp"))? {
                let p = e?.path();
                std::fs::copy(&p, copy.join(p.file_name().unwrap_or_default()))?;
            }
            Ok(())
        });
        assert!(copied.is_ok(), "{copied:?}");
        let inputs = [
            copy.clone(),
            repo.join("tool-specs/rave"),
            repo.join("tool-specs/toolvault"),
            repo.join("tests/fixtures/rules"),
        ];
        let options = crate::load::LoadOptions::default();
        let shown = |l: &crate::load::Loaded| {
            let diags: Vec<String> = l.diagnostics.iter().map(|d| format!("{d:?}")).collect();
            (l.project.clone(), diags)
        };
        let cache = crate::digest::MemoryCache::default();
        let kept = |cache: &crate::digest::MemoryCache| {
            let pieces = cache.pieces.lock().map(|p| p.clone()).unwrap_or_default();
            pieces.values().filter(|p| p.starts_with(MAGIC)).count()
        };
        let counted =
            |n: &std::sync::atomic::AtomicUsize| n.load(std::sync::atomic::Ordering::Relaxed);
        let plain = shown(&crate::load::load(&inputs, &options));
        assert!(!plain.1.is_empty(), "the fixtures have problems");
        let first = shown(&crate::load::load_cached(&inputs, &options, Some(&cache)).0);
        assert!(kept(&cache) > 20, "{} tools kept", kept(&cache));
        let (puts, hits) = (counted(&cache.puts), counted(&cache.hits));
        let again = shown(&crate::load::load_cached(&inputs, &options, Some(&cache)).0);
        // Every kept tool taken back (and nothing kept again).
        assert_eq!(counted(&cache.puts), puts);
        assert!(counted(&cache.hits) - hits >= kept(&cache));
        assert!(first == plain && again == plain);
        // A spec edited: its kept tool is not the one read.
        let spec = copy.join("asset.info.json");
        let text = std::fs::read_to_string(&spec).unwrap_or_default();
        let edited = text.replacen("\"description\": \"", "\"description\": \"Edited. ", 1);
        assert_ne!(text, edited);
        assert!(std::fs::write(&spec, edited).is_ok());
        let plain = shown(&crate::load::load(&inputs, &options));
        let changed = shown(&crate::load::load_cached(&inputs, &options, Some(&cache)).0);
        assert!(changed == plain);
        let described = |p: &crate::ir::Project| {
            p.tools()
                .any(|t| t.description.value.starts_with("Edited. "))
        };
        assert!(described(&changed.0));
        // A spec added before the others (every later file's place among
        // the files read moves): the others' kept tools are still taken
        // back, their locations moved, and only the new one is kept.
        let added = text.replacen("\"asset.info\"", "\"aaa.info\"", 1);
        assert_ne!(text, added);
        assert!(std::fs::write(copy.join("aaa.info.json"), added).is_ok());
        let tools_kept = |cache: &crate::digest::MemoryCache| {
            let kept = cache.kept.lock().map(|k| k.clone()).unwrap_or_default();
            kept.iter().filter(|p| p.starts_with(MAGIC)).count()
        };
        let before = tools_kept(&cache);
        let plain = shown(&crate::load::load(&inputs, &options));
        let moved = shown(&crate::load::load_cached(&inputs, &options, Some(&cache)).0);
        assert!(moved == plain);
        assert_eq!(
            tools_kept(&cache) - before,
            1,
            "only the new spec's tool kept"
        );
        let _ = std::fs::remove_dir_all(&scratch);
    }

    #[test]
    fn values_of_every_kind_read_back() {
        let v = serde_json::json!({
            "n": null, "t": true, "f": false, "u": u64::MAX, "i": i64::MIN, "x": -1.5e300,
            "s": "é\u{0}\"", "a": [[], {}, [1, [2, [3]]]], "o": {"": {"k": "v"}}
        });
        let mut out = Vec::new();
        v.put(&mut out);
        let mut input = Input {
            r: Reader::new(&out),
            depth: 0,
            files: (FileId(0), FileId(0)),
            whole: None,
        };
        assert_eq!(<Value as Part>::take(&mut input).as_ref(), Some(&v));
        assert!(input.r.is_done());
        // Checked without being built, it takes the same bytes.
        let mut input = Input {
            r: Reader::new(&out),
            depth: 0,
            files: (FileId(0), FileId(0)),
            whole: None,
        };
        assert_eq!(check_value(&mut input, Some(&out)), Some(None));
        assert!(input.r.is_done());
        assert_eq!(decode_value(&out).as_ref(), Some(&v));
        assert_eq!(decode_value(&out[..out.len() - 1]), None);
        // Nested past the bound: refused, not a stack overflow.
        let mut deep = [ARRAY, 1, 0, 0, 0].repeat(MAX_DEPTH + 1);
        deep.push(NULL);
        let mut input = Input {
            r: Reader::new(&deep),
            depth: 0,
            files: (FileId(0), FileId(0)),
            whole: None,
        };
        assert_eq!(<Value as Part>::take(&mut input), None);
        let mut input = Input {
            r: Reader::new(&deep),
            depth: 0,
            files: (FileId(0), FileId(0)),
            whole: None,
        };
        assert_eq!(check_value(&mut input, Some(&deep)), None);
    }

    #[test]
    fn a_spec_that_may_refer_elsewhere_has_no_key() {
        let p = std::path::Path::new("t.json");
        let plain = r#"{"name": "x"}"#;
        let refers = r#"{"inputSchema": {"$ref": "other.json"}}"#;
        let key = |text, set, forced| key(p, TextFacts::of(text), set, forced, false);
        assert!(key(plain, None, None).is_some());
        assert!(key(refers, None, None).is_none(), "a loose file may be MCP");
        assert!(key(refers, Some(Format::Mcp), None).is_none());
        assert!(key(refers, None, Some(Format::Mcp)).is_none());
        assert!(
            key(r#"{"\u0024ref": 1}"#, None, None).is_none(),
            "spelled with an escape"
        );
        assert!(key(refers, Some(Format::EditorMcp), None).is_some());
        assert_ne!(
            key(plain, None, None),
            key(plain, None, Some(Format::Mcp)),
            "read as another format"
        );
        assert_ne!(
            key(plain, None, None),
            crate::memo::key(
                std::path::Path::new("u.json"),
                TextFacts::of(plain),
                None,
                None,
                false
            ),
            "another path"
        );
    }
}
