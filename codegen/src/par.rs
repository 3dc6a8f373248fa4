//! Work spread over the machine's cores (rayon), with results in input
//! order, so that the output does not depend on timing; a panic in `f` is
//! resumed on the caller's thread.
//!
//! A leaf: it imports nothing of the crate.

use rayon::prelude::*;

/// `f(i)` for every `i` in `0..n`, on rayon's threads (one per core).
pub fn map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    (0..n).into_par_iter().map(f).collect()
}

/// Threads for work that mostly waits on the file system (creating files):
/// more than the cores, so that one thread's wait overlaps another's.
pub const IO_THREADS: usize = 8;

/// [`map`] on a pool of `threads` threads of its own (on the caller's
/// thread alone when `threads` is 1, or when no pool can be made).
pub fn map_on<T: Send>(threads: usize, n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    let pool = (threads > 1).then(|| rayon::ThreadPoolBuilder::new().num_threads(threads).build());
    match pool {
        Some(Ok(pool)) => pool.install(|| map(n, f)),
        _ => (0..n).map(f).collect(),
    }
}
