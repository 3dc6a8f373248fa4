//! Files put together from pieces the store holds: a part is text made by
//! this run or a piece read straight into its place; a file whose piece the
//! output already holds is added by its digest, unread.

use super::keys::PieceCache;
use crate::digest::Digest;
use crate::files::GeneratedFiles;

/// A part of a file put together from pieces: text made by this run, or a
/// piece the cache holds (its key and length), read into its place.
pub enum Part<'a> {
    Text(std::borrow::Cow<'a, [u8]>),
    Kept(Digest, usize),
}

impl Part<'_> {
    /// The piece `key` of `cache` when the cache can tell its length, else
    /// the text `make` gives (kept in the cache when made).
    pub fn of<E>(
        piece: Option<(&dyn PieceCache, Digest)>,
        make: impl FnOnce() -> Result<String, E>,
    ) -> Result<Part<'static>, E> {
        let kept = piece.and_then(|(c, key)| Some(Part::Kept(key, c.body_len(key)?)));
        if let Some(kept) = kept {
            return Ok(kept);
        }
        cached_text(piece, make).map(|t| Part::Text(t.into_bytes().into()))
    }

    fn len(&self) -> usize {
        match self {
            Part::Text(t) => t.len(),
            Part::Kept(_, len) => *len,
        }
    }
}

/// The file `parts` make, the kept ones read from `cache` straight into
/// their place on every core (no buffer of each, no copy of them all: the
/// files that list every tool are megabytes); `None` when one cannot be
/// read after all (damaged since it was looked up, or no cache).
pub fn assemble(cache: Option<&dyn PieceCache>, parts: &[Part<'_>]) -> Option<Vec<u8>> {
    let mut text = Vec::with_capacity(parts.iter().map(Part::len).sum());
    let mut holes = Vec::new();
    for part in parts {
        match part {
            Part::Text(t) => text.extend_from_slice(t),
            Part::Kept(key, len) => {
                holes.push((text.len(), *len, *key));
                text.resize(text.len() + len, 0);
            }
        }
    }
    let mut slots = Vec::with_capacity(holes.len());
    let (mut rest, mut at): (&mut [u8], usize) = (&mut text, 0);
    for (offset, len, key) in holes {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(offset - at);
        let (slot, tail) = tail.split_at_mut(len);
        (rest, at) = (tail, offset + len);
        slots.push((slot, key));
    }
    if slots.is_empty() {
        return Some(text);
    }
    let cache = cache?;
    let read = crate::par::map_mut(&mut slots, |(slot, key)| cache.get_into(*key, slot));
    read.into_iter().all(|ok| ok).then_some(text)
}

/// [`cached_text`] of a text that is always made.
pub(crate) fn cached_or_made(
    piece: Option<(&dyn PieceCache, Digest)>,
    make: impl FnOnce() -> String,
) -> String {
    let made: Result<String, std::convert::Infallible> = cached_text(piece, || Ok(make()));
    made.unwrap_or_else(|never| match never {})
}

/// Adds the file at `path` whose contents are what `piece` (a cache and a
/// key) holds, without reading them, when the sink of `files` holds them
/// already (the last run wrote them and the file is as it left it); `false`
/// when the contents are still to be added.
pub fn add_held(
    files: &mut GeneratedFiles,
    piece: Option<(&dyn PieceCache, Digest)>,
    path: &str,
) -> bool {
    piece.is_some_and(|(cache, key)| files.add_if_held(path, || cache.body_digest(key)))
}

/// The text `piece` (a cache and a key) holds, else what `make` gives, kept
/// in the cache when it is made without error.
pub(crate) fn cached_text<E>(
    piece: Option<(&dyn PieceCache, Digest)>,
    make: impl FnOnce() -> Result<String, E>,
) -> Result<String, E> {
    if let Some(text) = piece.and_then(|(c, k)| String::from_utf8(c.get(k)?).ok()) {
        return Ok(text);
    }
    let text = make()?;
    if let Some((cache, key)) = piece {
        cache.put(key, text.as_bytes());
    }
    Ok(text)
}
