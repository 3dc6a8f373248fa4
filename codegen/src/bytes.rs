//! Compact binary forms of the generation cache's own (a run stamp, its
//! record of output files): little-endian numbers and length-prefixed strings written into a
//! `Vec<u8>`, and a [`Reader`] that takes them back.
//!
//! A leaf: it imports nothing of the crate. Invariant: a reader never takes
//! more than the bytes hold, and never allocates for a count the bytes
//! could not hold (each counted thing takes at least one byte): a damaged
//! or foreign form reads as `None`, never a panic or a huge allocation.

pub fn put_u32(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(&n.to_le_bytes());
}

pub fn put_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(&n.to_le_bytes());
}

pub fn put_u128(out: &mut Vec<u8>, n: u128) {
    out.extend_from_slice(&n.to_le_bytes());
}

/// A length or count. Past `u32::MAX` (more than any input toolgen
/// accepts) it is written as that, and fails to read back.
pub fn put_len(out: &mut Vec<u8>, n: usize) {
    put_u32(out, u32::try_from(n).unwrap_or(u32::MAX));
}

pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// Bytes being read back, front to back.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { rest: bytes }
    }

    /// The bytes not taken yet.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// Whether every byte was taken.
    pub fn is_done(&self) -> bool {
        self.rest.is_empty()
    }

    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.rest.split_at_checked(n)?;
        self.rest = rest;
        Some(head)
    }

    /// The bytes `prefix` at the front, taken; `None` when they are not there.
    pub fn expect(&mut self, prefix: &[u8]) -> Option<()> {
        self.rest = self.rest.strip_prefix(prefix)?;
        Some(())
    }

    pub fn byte(&mut self) -> Option<u8> {
        Some(self.bytes(1)?[0])
    }

    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }

    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }

    pub fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.bytes(16)?.try_into().ok()?))
    }

    /// A count of things that each take at least one byte (so that a
    /// corrupt count cannot ask for more memory than there are bytes).
    pub fn count(&mut self) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= self.rest.len()).then_some(n)
    }

    pub fn str(&mut self) -> Option<&'a str> {
        let n = self.count()?;
        std::str::from_utf8(self.bytes(n)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_put_is_taken_back_and_nothing_more() {
        let mut out = Vec::new();
        put_u32(&mut out, 7);
        put_u64(&mut out, u64::MAX);
        put_u128(&mut out, 1 << 100);
        put_str(&mut out, "héllo");
        out.push(9);
        let mut r = Reader::new(&out);
        assert_eq!(r.u32(), Some(7));
        assert_eq!(r.u64(), Some(u64::MAX));
        assert_eq!(r.u128(), Some(1 << 100));
        assert_eq!(r.str(), Some("héllo"));
        assert_eq!(r.byte(), Some(9));
        assert!(r.is_done());
        assert_eq!(r.byte(), None);
        // Every form cut short reads as `None` at the cut.
        for cut in 0..out.len() {
            let mut r = Reader::new(&out[..cut]);
            let whole = (|| Some((r.u32()?, r.u64()?, r.u128()?, r.str()?, r.byte()?)))();
            assert!(whole.is_none(), "{cut}");
        }
        // A count larger than the bytes left is refused before anything is made.
        let mut big = Vec::new();
        put_u32(&mut big, u32::MAX);
        assert_eq!(Reader::new(&big).count(), None);
        let mut prefixed = Reader::new(b"magic rest");
        assert_eq!(prefixed.expect(b"magic "), Some(()));
        assert_eq!(prefixed.expect(b"x"), None);
        assert_eq!(prefixed.bytes(4), Some(&b"rest"[..]));
    }
}
