//! The IR's JSON values and their locations: a schema or example as a `Value`
//! (`JsonValue`) and the source location of each of its nodes (`Locs`), either
//! built as read or kept by the generation cache and decoded when first used.

use crate::source::Loc;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// JSON pointer -> where that part was written, fixed once read.
///
/// Every schema and example of every tool keeps one, and they are most of
/// what the IR holds besides the values themselves: the pointers sit in one
/// text and the entries in one sorted slice (about a third of a `BTreeMap`
/// of `String`s). Readers build a `BTreeMap` and convert it at the end.
/// Taken back from the generation cache ([`Locs::kept`]) they stay as its
/// bytes until first asked for, like a kept [`JsonValue`]: a kept tool's
/// locations matter only when something about it is reported or rendered.
#[derive(Clone, Default)]
pub struct Locs {
    /// The pointers and locations, when they are not held as kept bytes.
    pub(super) built: LocsData,
    pub(super) kept: Option<(KeptLocs, std::sync::OnceLock<LocsData>)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct LocsData {
    /// Every pointer, one after another, in sorted order.
    pub(super) text: Box<str>,
    /// `(end of the pointer in text, where it was written)`, sorted by
    /// pointer; each pointer starts where the one before ends.
    pub(super) entries: Box<[(u32, Loc)]>,
}

/// Bytes of a kept tool: a part of the body the cache gave, shared by every
/// part of the tool kept this way (no copy of each). The body is shared as
/// the buffer it was read into (an `Arc<[u8]>` would copy it: 3% of a run
/// that changed one spec among 1,000).
#[derive(Clone)]
pub struct KeptBytes {
    pub(super) whole: std::sync::Arc<Vec<u8>>,
    pub(super) range: std::ops::Range<usize>,
}

impl KeptBytes {
    /// `range` of `whole`; `None` when it does not lie within.
    pub fn new(whole: std::sync::Arc<Vec<u8>>, range: std::ops::Range<usize>) -> Option<KeptBytes> {
        whole.get(range.clone())?;
        Some(KeptBytes { whole, range })
    }
}

impl std::ops::Deref for KeptBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.whole.get(self.range.clone()).unwrap_or_default()
    }
}

/// Locations as the generation cache keeps them (like [`KeptValue`]): the
/// bytes, checked when taken to decode with every location in `files.0`,
/// and the function that decodes them with those locations moved to
/// `files.1`, the spec's file in this run.
#[derive(Clone)]
pub struct KeptLocs {
    pub bytes: KeptBytes,
    pub decode: fn(&[u8], (crate::source::FileId, crate::source::FileId)) -> Option<Locs>,
    pub files: (crate::source::FileId, crate::source::FileId),
}

impl Locs {
    /// Locations held as the cache's bytes until first asked for.
    pub fn kept(kept: KeptLocs) -> Locs {
        Locs {
            built: LocsData::default(),
            kept: Some((kept, std::sync::OnceLock::new())),
        }
    }

    /// The cache's bytes, while they name the locations as they are (taken
    /// back into the file they were kept from, and not changed since).
    pub fn kept_bytes(&self) -> Option<&[u8]> {
        let (k, _) = self.kept.as_ref()?;
        (k.files.0 == k.files.1).then_some(&*k.bytes)
    }

    pub(super) fn data(&self) -> &LocsData {
        match &self.kept {
            // Checked when taken: empty is never what kept bytes decode to by failing.
            Some((k, built)) => built.get_or_init(|| {
                (k.decode)(&k.bytes, k.files).map_or_else(LocsData::default, |l| l.built)
            }),
            None => &self.built,
        }
    }

    pub(super) fn pointer(&self, i: usize) -> &str {
        let data = self.data();
        let start = if i == 0 {
            0
        } else {
            data.entries[i - 1].0 as usize
        };
        data.text
            .get(start..data.entries[i].0 as usize)
            .unwrap_or_default()
    }

    /// Where the part at exactly `pointer` was written.
    pub fn get(&self, pointer: &str) -> Option<&Loc> {
        let entries = &self.data().entries;
        let (mut lo, mut hi) = (0, entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.pointer(mid).cmp(pointer) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(&entries[mid].1),
            }
        }
        None
    }

    /// Every pointer and its location, in pointer order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Loc)> {
        let entries = &self.data().entries;
        (0..entries.len()).map(|i| (self.pointer(i), &entries[i].1))
    }

    /// Every location, in pointer order.
    pub fn values(&self) -> impl Iterator<Item = &Loc> {
        self.data().entries.iter().map(|(_, l)| l)
    }

    /// Every location, to move them all (a test shifting spans).
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Loc> {
        if let Some((k, built)) = self.kept.take() {
            self.built = built.into_inner().unwrap_or_else(|| {
                (k.decode)(&k.bytes, k.files).map_or_else(LocsData::default, |l| l.built)
            });
        }
        self.built.entries.iter_mut().map(|(_, l)| l)
    }

    pub fn len(&self) -> usize {
        self.data().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The map again, for a stage that adds to it (bundling).
    pub fn to_map(&self) -> BTreeMap<String, Loc> {
        self.iter().map(|(p, l)| (p.to_owned(), *l)).collect()
    }

    /// The pointers' text and the entries, as kept between runs ([`crate::memo`]).
    pub fn parts(&self) -> (&str, &[(u32, Loc)]) {
        let data = self.data();
        (&data.text, &data.entries)
    }

    /// Whether `entries` could be [`Locs::parts`]' with `text`: every pointer
    /// ends after the one before, within the text, on a character boundary.
    pub fn parts_fit(text: &str, ends: impl IntoIterator<Item = u32>) -> bool {
        let mut start = 0;
        for end in ends {
            let end = end as usize;
            if end < start || !text.is_char_boundary(end) {
                return false;
            }
            start = end;
        }
        true
    }

    /// What [`Locs::parts`] gave; `None` unless they fit ([`Locs::parts_fit`]).
    pub fn from_parts(text: &str, entries: Vec<(u32, Loc)>) -> Option<Locs> {
        if !Locs::parts_fit(text, entries.iter().map(|(end, _)| *end)) {
            return None;
        }
        Some(Locs::from(LocsData {
            text: text.into(),
            entries: entries.into_boxed_slice(),
        }))
    }
}

impl From<LocsData> for Locs {
    fn from(built: LocsData) -> Locs {
        Locs { built, kept: None }
    }
}

impl PartialEq for Locs {
    fn eq(&self, other: &Locs) -> bool {
        self.data() == other.data()
    }
}

impl Eq for Locs {}

impl std::hash::Hash for Locs {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.data().hash(h);
    }
}

impl fmt::Debug for Locs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Locs")
            .field("text", &self.data().text)
            .field("entries", &self.data().entries)
            .finish()
    }
}

impl From<BTreeMap<String, Loc>> for Locs {
    fn from(map: BTreeMap<String, Loc>) -> Self {
        let mut text = String::with_capacity(map.keys().map(String::len).sum());
        let mut entries = Vec::with_capacity(map.len());
        for (p, l) in map {
            // Offsets are u32, like spans. Past 4 GiB of pointers (never in a
            // spec a reader accepts), the rest go unlocated: a part without
            // a location is placed at its nearest located ancestor.
            let Ok(end) = u32::try_from(text.len() + p.len()) else {
                break;
            };
            text.push_str(&p);
            entries.push((end, l));
        }
        Locs::from(LocsData {
            text: text.into_boxed_str(),
            entries: entries.into_boxed_slice(),
        })
    }
}

impl FromIterator<(String, Loc)> for Locs {
    fn from_iter<I: IntoIterator<Item = (String, Loc)>>(iter: I) -> Self {
        iter.into_iter().collect::<BTreeMap<_, _>>().into()
    }
}

/// A JSON value of a tool: a schema, an example. Made by a reader it is a
/// plain [`Value`]; taken back from the generation cache ([`JsonValue::kept`])
/// it stays in the cache's bytes until something reads it (most of a run's
/// kept tools are never looked into: their outputs come from the cache
/// too), then is decoded once. It reads as the `Value` it is ([`Deref`](std::ops::Deref));
/// changing it ([`DerefMut`](std::ops::DerefMut)) decodes it for good.
/// Equality, hashing and `Debug` are the value's, however it is held.
#[derive(Clone, Default)]
pub struct JsonValue {
    /// The value, when it is not held as kept bytes.
    pub(super) value: Value,
    pub(super) kept: Option<(KeptValue, std::sync::OnceLock<Value>)>,
}

/// A value's bytes as the generation cache keeps them, the function that
/// decodes them (the cache's own; the bytes were checked to decode when
/// they were taken), and what can be told without decoding them.
#[derive(Clone)]
pub struct KeptValue {
    pub bytes: KeptBytes,
    pub decode: fn(&[u8]) -> Option<Value>,
    /// Whether the value is `null` (a tool without an output schema).
    pub is_null: bool,
    /// Where in `bytes` the value's `$defs` member lies (its value's
    /// bytes, which `decode` takes alone), when it is an object with one.
    pub defs: Option<std::ops::Range<usize>>,
}

impl JsonValue {
    /// A value held as the cache's bytes until it is first read.
    pub fn kept(kept: KeptValue) -> JsonValue {
        JsonValue {
            value: Value::Null,
            kept: Some((kept, std::sync::OnceLock::new())),
        }
    }

    /// The cache's bytes, while the value has not been changed since it was
    /// taken back (then they are what encoding it would give).
    pub fn kept_bytes(&self) -> Option<&[u8]> {
        self.kept.as_ref().map(|(k, _)| &*k.bytes)
    }

    /// Whether it is `null`, told without decoding a kept value.
    pub fn is_null(&self) -> bool {
        match &self.kept {
            Some((k, _)) => k.is_null,
            None => self.value.is_null(),
        }
    }

    /// Whether it is an object with a `$defs` member, told without decoding
    /// a kept value.
    pub fn has_defs(&self) -> bool {
        match &self.kept {
            Some((k, _)) => k.defs.is_some(),
            None => self.value.get("$defs").is_some(),
        }
    }

    /// Its `$defs` member: of a kept value not read yet, that member alone
    /// is decoded (a tool set's shared definitions are looked for in every
    /// schema, most of which are otherwise never read).
    pub fn defs(&self) -> Option<std::borrow::Cow<'_, Value>> {
        use std::borrow::Cow;
        if let Some((k, decoded)) = &self.kept {
            if decoded.get().is_none() {
                let bytes = k.bytes.get(k.defs.clone()?)?;
                return (k.decode)(bytes).map(Cow::Owned);
            }
        }
        self.get("$defs").map(Cow::Borrowed)
    }
}

impl From<Value> for JsonValue {
    fn from(value: Value) -> JsonValue {
        JsonValue { value, kept: None }
    }
}

impl From<JsonValue> for Value {
    fn from(mut value: JsonValue) -> Value {
        std::mem::take(&mut *value)
    }
}

impl std::ops::Deref for JsonValue {
    type Target = Value;
    fn deref(&self) -> &Value {
        match &self.kept {
            // The bytes were checked when they were taken: `null` is never
            // what a kept value decodes to by failing.
            Some((k, decoded)) => decoded.get_or_init(|| (k.decode)(&k.bytes).unwrap_or_default()),
            None => &self.value,
        }
    }
}

impl std::ops::DerefMut for JsonValue {
    fn deref_mut(&mut self) -> &mut Value {
        if let Some((k, decoded)) = self.kept.take() {
            self.value = decoded
                .into_inner()
                .unwrap_or_else(|| (k.decode)(&k.bytes).unwrap_or_default());
        }
        &mut self.value
    }
}

impl PartialEq for JsonValue {
    fn eq(&self, other: &JsonValue) -> bool {
        **self == **other
    }
}

impl PartialEq<Value> for JsonValue {
    fn eq(&self, other: &Value) -> bool {
        **self == *other
    }
}

impl std::hash::Hash for JsonValue {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (**self).hash(h);
    }
}

impl serde::Serialize for JsonValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Value::serialize(self, s)
    }
}

impl fmt::Display for JsonValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl fmt::Debug for JsonValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
