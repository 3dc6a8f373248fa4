//! Content digests: 128-bit xxh3 hashes of what a generation reads, the keys
//! of the generation cache.
//!
//! A leaf: it imports nothing of the crate. Not a cryptographic hash: the
//! cache it keys lives in the user's own build directory, and every entry
//! repeats its key and the digest of its contents, so a corrupt or foreign
//! entry is recognised and ignored (see `cache`).

use xxhash_rust::xxh3::Xxh3;

/// The hasher of a run's large maps (thousands of output paths, digests):
/// foldhash, seeded per process as std's is. std's SipHash took 3% of a run
/// that changed one spec among 1,000; nothing here depends on map order.
pub type FastHash = foldhash::fast::RandomState;
/// A hash map with [`FastHash`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, FastHash>;
/// A hash set with [`FastHash`].
pub type FastSet<K> = std::collections::HashSet<K, FastHash>;

/// A 128-bit digest.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Digest(pub u128);

impl Digest {
    /// The digest of one byte string.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(xxhash_rust::xxh3::xxh3_128(bytes))
    }

    /// The digest of two digests, the same as
    /// `Hasher::new().digest(a).digest(b).finish()` in one call (a cache
    /// lookup makes one of the run's key and the build's identity).
    pub fn pair(a: Digest, b: Digest) -> Digest {
        let mut bytes = [0; 32];
        bytes[..16].copy_from_slice(&a.0.to_le_bytes());
        bytes[16..].copy_from_slice(&b.0.to_le_bytes());
        Digest::of(&bytes)
    }

    /// 32 lowercase hex digits.
    pub fn hex(self) -> String {
        format!("{:032x}", self.0)
    }
}

/// Builds a digest of several parts. Every part is length-prefixed, so
/// `("ab", "c")` and `("a", "bc")` differ.
pub struct Hasher(Xxh3);

impl Default for Hasher {
    fn default() -> Self {
        Hasher::new()
    }
}

impl Hasher {
    pub fn new() -> Hasher {
        Hasher(Xxh3::new())
    }

    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }

    /// A value by its `Debug` form: complete by construction for types that
    /// derive it (every field takes part), so a key built this way changes
    /// whenever anything a renderer can read changes.
    pub fn debug(&mut self, value: &impl std::fmt::Debug) -> &mut Self {
        use std::fmt::Write as _;
        let mut w = Feed(Std {
            hasher: &mut self.0,
            buffer: [0; STD_BUFFER],
            len: 0,
        });
        // Writing into a hasher cannot fail.
        let _ = write!(w, "{value:?}");
        w.0.flush();
        self.0.update(&[0xff]);
        self
    }

    /// A value by its `Hash`: for types whose every field takes part (derived,
    /// or destructured without `..`); much cheaper than [`Hasher::debug`].
    pub fn hash(&mut self, value: &impl std::hash::Hash) -> &mut Self {
        let mut std = Std {
            hasher: &mut self.0,
            buffer: [0; STD_BUFFER],
            len: 0,
        };
        value.hash(&mut std);
        std.flush();
        self.0.update(&[0xff]);
        self
    }

    pub fn digest(&mut self, d: Digest) -> &mut Self {
        self.0.update(&d.0.to_le_bytes());
        self
    }

    pub fn finish(&self) -> Digest {
        Digest(self.0.digest128())
    }
}

/// [`std::hash::Hasher`] over the digest's state (what `Hash` impls write
/// is fed as it is: they delimit their own parts). `Hash` impls write a few
/// bytes at a time (a discriminant, a length, a short key): they are
/// gathered in a buffer and fed to the state in large parts, which gives
/// the same digest (xxh3 streams) for a fraction of the calls.
struct Std<'a> {
    hasher: &'a mut Xxh3,
    buffer: [u8; STD_BUFFER],
    len: usize,
}

const STD_BUFFER: usize = 1024;

impl Std<'_> {
    fn flush(&mut self) {
        self.hasher.update(&self.buffer[..self.len]);
        self.len = 0;
    }
}

impl std::hash::Hasher for Std<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        if let Some(free) = self.buffer.get_mut(self.len..self.len + bytes.len()) {
            free.copy_from_slice(bytes);
            self.len += bytes.len();
            return;
        }
        self.flush();
        if bytes.len() > STD_BUFFER {
            self.hasher.update(bytes);
        } else {
            self.buffer[..bytes.len()].copy_from_slice(bytes);
            self.len = bytes.len();
        }
    }

    fn finish(&self) -> u64 {
        let mut state = self.hasher.clone();
        state.update(&self.buffer[..self.len]);
        state.digest()
    }
}

/// Streams formatted text into the hasher through a small buffer (`Debug`
/// writes a few bytes at a time), never building the whole string.
struct Feed<'a>(Std<'a>);

impl std::fmt::Write for Feed<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        std::hash::Hasher::write(&mut self.0, s.as_bytes());
        Ok(())
    }
}

/// What identifies the running toolgen: its version and the size and
/// modification time of its executable (the `toolgen` binary, or the build
/// script toolgen is linked into), so that a rebuilt toolgen, even of the
/// same version, never reuses what an older build rendered.
pub fn build_identity() -> Digest {
    let mut h = Hasher::new();
    h.str(env!("CARGO_PKG_VERSION"));
    if let Ok(exe) = std::env::current_exe() {
        if let Ok(meta) = std::fs::metadata(&exe) {
            h.str(&format!("{}", meta.len()));
            if let Ok(t) = meta.modified() {
                h.debug(&t);
            }
        } else {
            // Unknown executable: a fresh identity, nothing is reused.
            h.debug(&std::time::SystemTime::now());
        }
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_delimited_and_hex_is_32_digits() {
        let a = Hasher::new().str("ab").str("c").finish();
        let b = Hasher::new().str("a").str("bc").finish();
        assert_ne!(a, b);
        assert_eq!(a.hex().len(), 32);
        assert_eq!(Digest(0xab).hex(), format!("{:030}ab", 0));
        assert_eq!(Digest::of(b"x"), Digest::of(b"x"));
    }

    #[test]
    fn a_pair_is_the_digest_of_both_fed_in_turn() {
        for (a, b) in [(0, 0), (1, u128::MAX), (0x1234 << 70, 99)] {
            let (a, b) = (Digest(a), Digest(b));
            assert_eq!(
                Digest::pair(a, b),
                Hasher::new().digest(a).digest(b).finish()
            );
        }
        assert_ne!(
            Digest::pair(Digest(1), Digest(2)),
            Digest::pair(Digest(2), Digest(1))
        );
    }

    /// The buffer changes how often the state is fed, not the digest: the
    /// same as every write fed as it comes, for small writes and for
    /// writes larger than the buffer.
    #[test]
    fn a_hash_is_the_same_buffered_or_not() {
        struct Unbuffered(Xxh3);
        impl std::hash::Hasher for Unbuffered {
            fn write(&mut self, bytes: &[u8]) {
                self.0.update(bytes);
            }
            fn finish(&self) -> u64 {
                self.0.digest()
            }
        }
        let values: Vec<Vec<String>> = vec![
            vec![],
            vec!["a".into()],
            (0..500).map(|i| format!("item {i}")).collect(),
            vec![
                "x".repeat(STD_BUFFER - 9),
                "y".repeat(3 * STD_BUFFER),
                "z".into(),
            ],
        ];
        for v in values {
            let mut plain = Unbuffered(Xxh3::new());
            std::hash::Hash::hash(&v, &mut plain);
            plain.0.update(&[0xff]);
            assert_eq!(Hasher::new().hash(&v).finish(), Digest(plain.0.digest128()));
        }
    }
}
