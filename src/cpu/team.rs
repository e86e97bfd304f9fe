//! A team of threads for a run of dispatches: the CPU's stand-in for a GPU that keeps its
//! cores busy from one dispatch to the next. Each member takes its share of a dispatch, then
//! all meet at a barrier before the next, as a workgroup does at `storageBarrier`. A rayon call
//! per dispatch instead let the pool's threads fall asleep between dispatches and paid the
//! wake-up every time (a third of the CPU's time in the kernel's scheduler, under `perf`, for a
//! frame of 200 short dispatches).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Units of work (records) a run needs before a second thread pays for itself: a thread's
/// start and a barrier per dispatch cost about what a few thousand records do.
const MIN_UNITS_PER_THREAD: usize = 4096;

/// How many threads a run of `units` records takes: rayon's count (so `RAYON_NUM_THREADS`
/// rules both) but no more than the machine's cores (members spin at the barrier), fewer for
/// a small run, at least 1; 1 in a browser.
pub(crate) fn threads_for(units: usize) -> usize {
    // A browser's page has one thread (no `std::thread::spawn`).
    if cfg!(target_arch = "wasm32") {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::current_num_threads()
        .min(cores)
        .min(units / MIN_UNITS_PER_THREAD)
        .max(1)
}

/// Runs `member(t, barrier)` on `threads` threads at once, and returns when all have. The
/// members are rayon's threads ([`rayon::broadcast`]), which then do the work the caller
/// would otherwise hand them pass by pass: no thread is started, and no third thread competes
/// for the cores (threads started for each run cost the 48² towel a tenth of its frame, and
/// the pool's threads, idling meanwhile, spun against them: docs/performance.md). One team
/// at a time: while another team has the pool (two worlds stepping at once, tests side by
/// side), the run starts threads of its own, with the caller as member 0. Two teams on the
/// pool at once could each hold a thread the other's barrier waits for, for good.
pub(crate) fn run<F>(threads: usize, member: F)
where
    F: Fn(usize, &Barrier) + Sync,
{
    static POOL_TEAM: Mutex<()> = Mutex::new(());
    if threads <= rayon::current_num_threads()
        && let Ok(_held) = POOL_TEAM.try_lock()
    {
        let barrier = Barrier::new(threads);
        rayon::broadcast(|thread| {
            if thread.index() < threads {
                let _poison = Poison(&barrier);
                member(thread.index(), &barrier);
            }
        });
        return;
    }
    let barrier = Barrier::new(threads);
    std::thread::scope(|scope| {
        // Before the spawns: a spawn that fails unwinds this thread, and the members already
        // started must not wait for it at the barrier.
        let _poison = Poison(&barrier);
        for t in 1..threads {
            let (member, barrier) = (&member, &barrier);
            scope.spawn(move || {
                let _poison = Poison(barrier);
                member(t, barrier)
            });
        }
        member(0, &barrier);
    });
}

/// Where the members of a team wait for each other: a counter and a generation, spun on
/// briefly, then with the thread yielding (the machine may have fewer cores than members).
pub(crate) struct Barrier {
    members: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// A member panicked: the others must not wait for it.
    poisoned: AtomicBool,
}

impl Barrier {
    fn new(members: usize) -> Self {
        Self {
            members,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Returns once every member has called it: what each wrote before is then visible to
    /// all (the last to arrive releases, the others acquire).
    pub(crate) fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.members {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            assert!(
                !self.poisoned.load(Ordering::Relaxed),
                "a member of the team panicked"
            );
            if spins < 256 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Poisons the barrier if its member unwinds, so the others stop waiting and unwind too.
struct Poison<'a>(&'a Barrier);

impl Drop for Poison<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member sees what every other wrote before the barrier, round after round.
    #[test]
    fn the_members_see_each_others_writes_after_each_barrier() {
        let threads = 3;
        let slots: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
        run(threads, |t, barrier| {
            for round in 1..=200 {
                slots[t].store(round, Ordering::Relaxed);
                barrier.wait();
                for s in &slots {
                    assert_eq!(s.load(Ordering::Relaxed), round);
                }
                barrier.wait();
            }
        });
    }

    /// A member that panics does not leave the others waiting: the panic reaches the caller.
    #[test]
    fn a_member_that_panics_ends_the_run() {
        let result = std::panic::catch_unwind(|| {
            run(2, |t, barrier| {
                if t == 1 {
                    panic!("member 1 fails");
                }
                barrier.wait();
            })
        });
        assert!(result.is_err());
    }
}
