//! Work spread over the machine's cores, with results in input order.
//!
//! A leaf: it imports nothing of the crate. Scoped threads, no pool: the
//! phases that use it (reading specs, validating tools, building Rust tool
//! files) each run once per generation on hundreds of items.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads [`map_with`] uses at most: the available parallelism.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f(state, i)` for every `i` in `0..n`, on up to [`threads`] threads,
/// each with its own `state` made by `init` (for values that cannot cross
/// threads, such as syntax trees). A thread takes the next index not yet
/// taken as it finishes one, so all end together however the items' costs
/// and the threads' share of the cores vary (the emitters run at the same
/// time and compete for them). The results come back in index order, so
/// the output does not depend on timing; a panic in `f` is resumed on the
/// caller's thread.
pub fn map_with<S, T: Send>(
    n: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize) -> T + Sync,
) -> Vec<T> {
    map_on(threads(), n, init, f)
}

/// Threads for work that mostly waits on the file system (creating files):
/// more than the cores, so that one thread's wait overlaps another's.
pub const IO_THREADS: usize = 8;

/// [`map_with`] on up to `threads` threads.
pub fn map_on<S, T: Send>(
    threads: usize,
    n: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize) -> T + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        let mut state = init();
        return (0..n).map(|i| f(&mut state, i)).collect();
    }
    let next = AtomicUsize::new(0);
    let (init, f, next) = (&init, &f, &next);
    let mut done: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let mut state = init();
                    // Room for twice a fair share (all of them on two
                    // cores): the results (a tool read back is large) are
                    // not moved to grow, and many cores do not each reserve
                    // room for every item.
                    let mut done = Vec::with_capacity(n.div_ceil(threads).saturating_mul(2).min(n));
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break done;
                        }
                        done.push((i, f(&mut state, i)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                let done = w.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                done.into_iter().peekable()
            })
            .collect()
    });
    // Each worker took its items in increasing order, and every item was
    // taken by one worker: the next result is at the head of one of them.
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.extend(
            done.iter_mut()
                .find_map(|w| w.next_if(|(j, _)| *j == i))
                .map(|(_, t)| t),
        );
    }
    out
}

/// [`map_with`] without per-thread state.
pub fn map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    map_with(n, || (), |(), i| f(i))
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_in_order() {
        let squares = super::map(1000, |i| i * i);
        assert_eq!(squares.len(), 1000);
        assert!(squares.iter().enumerate().all(|(i, s)| *s == i * i));
        assert!(super::map(0, |i| i).is_empty());
    }
}
