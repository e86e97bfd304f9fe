//! [`PathChoice::Auto`], measured: after cloths join or leave (the first time, and whenever the
//! particles that could fuse have doubled or halved since the last time), the world runs a few
//! frames on each path, times them (waiting for the device), and keeps the faster.
//!
//! Which path wins depends on the adapter and on the world: on lavapipe the fused kernel is
//! faster for a few capes (one dispatch a frame instead of ~170) and the global path for a
//! hundred (its dispatches fill the SIMD lanes without barriers), and no real GPU has been
//! measured. A rule fixed per adapter picked the slower path on one side of that crossover, so
//! the world measures instead. Both paths give the same cloth to the bit
//! (`both_paths_equal_lone_solvers_bit_for_bit_on_the_cpu`, and GPU = CPU on each), so the
//! choice changes the time a frame takes and never the cloth.

use super::PathChoice;

/// Frames run on one path before its timed frames (they absorb the re-layout and any
/// pipeline compile).
const WARM_FRAMES: u32 = 1;
/// Timed frames per path; the least of them is the path's time.
const TIMED_FRAMES: u32 = 3;
/// Frames of a whole trial: both paths, each warmed and timed.
pub const AUTO_TRIAL_FRAMES: u32 = 2 * (WARM_FRAMES + TIMED_FRAMES);
/// A world whose cloths that could fuse have this many times the particles of the last timed
/// one, or this many times fewer, is timed again.
pub const RETRY_FACTOR: u64 = 2;

/// What [`PathChoice::Auto`] measured: the least frame time (s) of each path in its last trial.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathTimes {
    /// The fused path's least frame, waited for (s).
    pub fused: f64,
    /// The global path's least frame, waited for (s).
    pub global: f64,
}

/// The state of [`PathChoice::Auto`] in one world.
#[derive(Clone, Debug)]
pub(super) struct AutoPath {
    /// The path Auto resolves to outside a trial: the adapter's guess until a trial decides.
    chosen: PathChoice,
    /// The frame of the running trial (`None`: none runs), counting from 0.
    trial: Option<u32>,
    /// The least timed frame of each path in the running trial: fused, global.
    least: [f64; 2],
    /// The last finished trial's times.
    measured: Option<PathTimes>,
    /// Particles of the cloths that could fuse when the last trial started.
    tried_at: Option<u64>,
}

impl AutoPath {
    /// Auto guessing `guess` (the engine's preference) until a trial measures.
    pub fn new(guess: PathChoice) -> Self {
        Self {
            chosen: guess,
            trial: None,
            least: [f64::INFINITY; 2],
            measured: None,
            tried_at: None,
        }
    }

    /// Cloths joined or left, and `fusable` particles could now take either path: a trial
    /// starts at the next frame (one running starts over) unless the last one timed a world
    /// within a factor of [`RETRY_FACTOR`] of it, so a game that adds a cloth now and then does
    /// not wait for its device for eight frames each time.
    pub fn cloths_changed(&mut self, fusable: u64) {
        let near = self.tried_at.is_some_and(|at| {
            let (lo, hi) = (at.min(fusable), at.max(fusable));
            hi < RETRY_FACTOR * lo.max(1)
        });
        if near && self.trial.is_none() {
            return;
        }
        self.tried_at = Some(fusable);
        self.trial = Some(0);
        self.least = [f64::INFINITY; 2];
    }

    /// Cloths joined or left, and none could be timed on both paths (none could fuse, or the
    /// paths would place them differently): a running trial stops, the choice stays.
    pub fn cancel(&mut self) {
        self.trial = None;
    }

    /// The path this frame runs on: the other path first, then the guess, so a trial that
    /// confirms the guess ends without another re-layout.
    pub fn path(&self) -> PathChoice {
        match self.trial {
            Some(k) if k < AUTO_TRIAL_FRAMES / 2 => other(self.chosen),
            _ => self.chosen,
        }
    }

    /// The path chosen (or guessed) outside a trial.
    pub fn chosen(&self) -> PathChoice {
        self.chosen
    }

    /// Whether this frame is a trial frame (the world then waits for it and times it).
    pub fn in_trial(&self) -> bool {
        self.trial.is_some()
    }

    /// Counts a trial frame that took `seconds`, waited for; the trial's last frame decides.
    pub fn record(&mut self, seconds: f64) {
        let Some(k) = self.trial else {
            return;
        };
        let path = self.path();
        if k % (AUTO_TRIAL_FRAMES / 2) >= WARM_FRAMES {
            let slot = &mut self.least[(path == PathChoice::Global) as usize];
            *slot = slot.min(seconds);
        }
        if k + 1 < AUTO_TRIAL_FRAMES {
            self.trial = Some(k + 1);
            return;
        }
        let times = PathTimes {
            fused: self.least[0],
            global: self.least[1],
        };
        // A tie (or an unmeasurable frame) keeps the guess.
        self.chosen = match self.chosen {
            PathChoice::Global if times.fused < times.global => PathChoice::Fused,
            PathChoice::Fused if times.global < times.fused => PathChoice::Global,
            guess => guess,
        };
        self.measured = Some(times);
        self.trial = None;
    }

    /// The last finished trial's times.
    pub fn measured(&self) -> Option<PathTimes> {
        self.measured
    }
}

fn other(path: PathChoice) -> PathChoice {
    match path {
        PathChoice::Fused => PathChoice::Global,
        _ => PathChoice::Fused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a whole trial with `fused` and `global` seconds a frame; returns the paths it ran.
    fn trial(auto: &mut AutoPath, fused: f64, global: f64) -> Vec<PathChoice> {
        auto.tried_at = None;
        auto.cloths_changed(1000);
        let mut ran = Vec::new();
        while auto.in_trial() {
            let p = auto.path();
            ran.push(p);
            auto.record(if p == PathChoice::Fused {
                fused
            } else {
                global
            });
        }
        ran
    }

    #[test]
    fn a_trial_runs_the_other_path_first_and_keeps_the_faster() {
        let mut auto = AutoPath::new(PathChoice::Global);
        assert_eq!(auto.path(), PathChoice::Global);
        let ran = trial(&mut auto, 0.005, 0.008);
        let half = (AUTO_TRIAL_FRAMES / 2) as usize;
        assert_eq!(ran.len(), AUTO_TRIAL_FRAMES as usize);
        assert!(ran[..half].iter().all(|&p| p == PathChoice::Fused));
        assert!(ran[half..].iter().all(|&p| p == PathChoice::Global));
        assert_eq!(auto.path(), PathChoice::Fused);
        assert_eq!(
            auto.measured(),
            Some(PathTimes {
                fused: 0.005,
                global: 0.008
            })
        );
        // The next trial starts from the new choice and can go back.
        let ran = trial(&mut auto, 0.2, 0.1);
        assert_eq!(ran[0], PathChoice::Global);
        assert_eq!(auto.path(), PathChoice::Global);
    }

    #[test]
    fn a_world_timed_at_about_its_size_is_not_timed_again() {
        let mut auto = AutoPath::new(PathChoice::Global);
        auto.cloths_changed(1000);
        while auto.in_trial() {
            auto.record(0.01);
        }
        // Within a factor of two either way: no trial.
        for n in [1001, 1999, 501] {
            auto.cloths_changed(n);
            assert!(!auto.in_trial(), "{n}");
        }
        // Twice (or half) the particles of the last trial: a new one.
        auto.cloths_changed(2000);
        assert!(auto.in_trial());
        // A change while one runs starts it over, whatever its size.
        auto.record(0.01);
        auto.cloths_changed(2001);
        assert!(auto.in_trial() && auto.path() == PathChoice::Fused);
        while auto.in_trial() {
            auto.record(0.01);
        }
        auto.cloths_changed(1000);
        assert!(auto.in_trial());
    }

    #[test]
    fn warm_frames_are_not_timed_and_a_tie_keeps_the_guess() {
        let mut auto = AutoPath::new(PathChoice::Fused);
        auto.cloths_changed(1000);
        // The global path's warm frame is slow (its re-layout); its timed frames tie.
        let mut k = 0;
        while auto.in_trial() {
            let warm = k % (AUTO_TRIAL_FRAMES / 2) < WARM_FRAMES;
            auto.record(if warm { 9.0 } else { 0.01 });
            k += 1;
        }
        assert_eq!(auto.path(), PathChoice::Fused);
        assert_eq!(auto.measured().map(|t| t.global), Some(0.01));
    }
}
