//! The IR's JSON values and their locations: a schema or example as a `Value`
//! (`JsonValue`) and the source location of each of its nodes (`Locs`).

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
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Locs {
    pub(super) built: LocsData,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct LocsData {
    /// Every pointer, one after another, in sorted order.
    pub(super) text: Box<str>,
    /// `(end of the pointer in text, where it was written)`, sorted by
    /// pointer; each pointer starts where the one before ends.
    pub(super) entries: Box<[(u32, Loc)]>,
}

impl Locs {
    pub(super) fn data(&self) -> &LocsData {
        &self.built
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
}

impl From<LocsData> for Locs {
    fn from(built: LocsData) -> Locs {
        Locs { built }
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

/// A JSON value of a tool: a schema, an example. It reads as the `Value` it
/// is ([`Deref`](std::ops::Deref)); equality, hashing and `Debug` are the value's.
#[derive(Clone, Default)]
pub struct JsonValue {
    pub(super) value: Value,
}

impl JsonValue {
    /// Whether it is an object with a `$defs` member.
    pub fn has_defs(&self) -> bool {
        self.value.get("$defs").is_some()
    }

    /// Its `$defs` member.
    pub fn defs(&self) -> Option<&Value> {
        self.value.get("$defs")
    }
}

impl From<Value> for JsonValue {
    fn from(value: Value) -> JsonValue {
        JsonValue { value }
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
        &self.value
    }
}

impl std::ops::DerefMut for JsonValue {
    fn deref_mut(&mut self) -> &mut Value {
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
