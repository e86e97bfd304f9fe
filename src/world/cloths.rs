//! The cloths of a world: what the world keeps of each (its cloth as placed, anchors and
//! tethers, coarse levels, state before it starts), particle edits, and the layout of the
//! buffers, remade when cloths join or leave.

use glam::{Vec3, Vec4};

use super::layout::{self, Layout, Member};
use super::{ClothHandle, PathChoice, World};
use crate::cloth::Cloth;
use crate::error::{ChiffonError, Result};
use crate::hierarchy::Hierarchy;
use crate::params::Compliance;
use crate::schedule::FramePlan;
use crate::tethers::Tethers;

/// The pinned set of a cloth (its tether anchors) and its tethers. A particle held with inverse
/// mass 0 by [`World::set_particle`] (the demo's grab) is not an anchor; one pinned by
/// [`World::set_inverse_mass`]`(…, 0)` or by the cloth is. Every anchor has inverse mass 0,
/// which is what lets the tether kernel read anchors while it moves the other particles.
pub(super) struct Anchors {
    pub(super) pinned: Vec<bool>,
    /// Inverse mass 0: pinned, or held where [`World::set_particle`] put it (what
    /// [`World::move_pin`] may carry). The kernels never change an inverse mass, so the host
    /// knows it without a readback.
    pub(super) fixed: Vec<bool>,
    pub(super) tethers: Tethers,
    /// The pinned set changed since the tethers were built: rebuild them (once) before the
    /// next step.
    pub(super) stale: bool,
}

impl Anchors {
    pub(super) fn new(cloth: &Cloth) -> Self {
        let pinned: Vec<bool> = (0..cloth.particle_count())
            .map(|i| cloth.is_pinned(i))
            .collect();
        Self {
            tethers: Tethers::build(cloth, &pinned),
            fixed: pinned.clone(),
            pinned,
            stale: false,
        }
    }

    /// Pins or frees particle `i` as an anchor.
    pub(super) fn pin(&mut self, i: usize, pinned: bool) {
        if self.pinned[i] != pinned {
            self.pinned[i] = pinned;
            self.stale = true;
        }
    }
}

/// A cloth in the world.
pub(super) struct Live {
    /// As placed in the world (transformed).
    pub(super) cloth: Cloth,
    pub(super) compliance: Option<Compliance>,
    pub(super) anchors: Anchors,
    /// Its constraints with its coarse levels (solved on the global path).
    pub(super) hierarchy: Hierarchy,
    /// Bounding box of its rest positions (the scene's extent, for the divergence limit).
    pub(super) bounds: (Vec3, Vec3),
    /// Its mean edge ([`Cloth::mean_edge_length`], m), read every frame with a capsule
    /// (whether one is thin for it) and for the self-collision distance.
    pub(super) mean_edge: f32,
    /// True once the engine holds its state (after the first layout that placed it).
    pub(super) placed: bool,
    /// Until its Verlet history starts (the step after it joins or a reset): its positions
    /// (inverse mass in w), edits included, so starting needs no readback.
    pub(super) unstarted: Option<Vec<Vec4>>,
}

pub(super) struct Entry {
    pub(super) generation: u32,
    pub(super) live: Option<Live>,
}

impl World {
    /// Moves particle `index` of a cloth to `position` (m) at rest, with `inverse_mass` (0
    /// holds it there; a held particle is not a tether anchor).
    pub fn set_particle(
        &mut self,
        handle: ClothHandle,
        index: usize,
        position: Vec3,
        inverse_mass: f32,
    ) -> Result<()> {
        self.check_particle(handle, index)?;
        crate::error::check_finite3("particle position", position)?;
        crate::error::check_at_least("inverse mass", inverse_mass as f64, 0.0)?;
        let at = self.place(handle)?.particles.start + index as u32;
        self.wake(handle)?;
        self.cancel_pin_move(handle, index);
        let p = position.extend(inverse_mass);
        self.engine.write_positions(at, &[p]);
        self.engine.write_previous(at, &[position.extend(0.0)]);
        let live = self.live_mut(handle)?;
        if let Some(mirror) = &mut live.unstarted {
            mirror[index] = p;
        }
        if inverse_mass > 0.0 {
            live.anchors.pin(index, false);
        }
        live.anchors.fixed[index] = inverse_mass == 0.0;
        Ok(())
    }

    /// Carries pinned particle `index` of a cloth from where it is to `target` (m) over the
    /// next frame, in equal steps, one each substep, as a collider is carried between its
    /// poses ([`World::set_collider_pose`]): cloth held by an animated hand or collar follows
    /// it smoothly, where [`World::set_particle`] moves the pin the whole way at the frame's
    /// first substep and the cloth beside it takes the jerk. It stops at `target` at the
    /// frame's end unless moved again; the last call before a step wins, and
    /// [`World::set_particle`] or [`World::set_inverse_mass`] on the particle cancels it.
    /// Fails when the particle is not pinned or held (inverse mass 0), or `target` is not
    /// finite.
    pub fn move_pin(&mut self, handle: ClothHandle, index: usize, target: Vec3) -> Result<()> {
        self.check_particle(handle, index)?;
        crate::error::check_finite3("pin target", target)?;
        if !self.entry(handle)?.anchors.fixed[index] {
            return Err(ChiffonError::InvalidParameter {
                name: "particle index",
                reason: format!(
                    "particle {index} is not pinned: move_pin carries a particle of inverse \
                     mass 0; pin it first with set_inverse_mass or set_particle"
                ),
            });
        }
        self.wake(handle)?;
        self.pin_moves.insert((handle, index), target);
        Ok(())
    }

    fn cancel_pin_move(&mut self, handle: ClothHandle, index: usize) {
        self.pin_moves.remove(&(handle, index));
    }

    /// Hands the engine the pins [`World::move_pin`] carries this frame: each one's target in
    /// its previous position, flagged [`crate::config::PIN_TO`] (the integrate kernels take
    /// it from there). Called after the cloths that joined have started their history.
    pub(super) fn write_pin_moves(&mut self) -> Result<()> {
        // Each write is its own particle's, so their order does not matter.
        for ((handle, index), target) in std::mem::take(&mut self.pin_moves) {
            let at = self.place_synced(handle)?.particles.start + index as u32;
            let flagged = target.extend(crate::config::PIN_TO);
            self.engine.write_previous(at, &[flagged]);
        }
        Ok(())
    }

    /// Changes only the inverse mass of particle `index` of a cloth. 0 pins it where it is and
    /// makes it a tether anchor; a positive value frees it. The tethers are rebuilt once,
    /// before the next step.
    pub fn set_inverse_mass(
        &mut self,
        handle: ClothHandle,
        index: usize,
        inverse_mass: f32,
    ) -> Result<()> {
        self.check_particle(handle, index)?;
        crate::error::check_at_least("inverse mass", inverse_mass as f64, 0.0)?;
        let at = self.place(handle)?.particles.start + index as u32;
        self.wake(handle)?;
        self.cancel_pin_move(handle, index);
        self.engine.write_inverse_mass(at, inverse_mass);
        let live = self.live_mut(handle)?;
        if let Some(mirror) = &mut live.unstarted {
            mirror[index].w = inverse_mass;
        }
        live.anchors.pin(index, inverse_mass == 0.0);
        live.anchors.fixed[index] = inverse_mass == 0.0;
        Ok(())
    }

    /// The cloth's tethers in force (rebuilt first if its pinned set changed).
    pub fn tethers(&mut self, handle: ClothHandle) -> Result<&Tethers> {
        self.entry(handle)?;
        self.refresh_tethers()?;
        Ok(&self.entry(handle)?.anchors.tethers)
    }

    /// Rebuilds, once, the tethers of every cloth whose pinned set changed, and uploads them.
    pub(super) fn refresh_tethers(&mut self) -> Result<()> {
        self.sync()?;
        for slot in 0..self.entries.len() {
            let Some(live) = self.entries[slot].live.as_mut() else {
                continue;
            };
            if !live.anchors.stale {
                continue;
            }
            live.anchors.tethers = Tethers::build(&live.cloth, &live.anchors.pinned);
            live.anchors.stale = false;
            let (_, place) = self
                .layout
                .find(slot as u32)
                .expect("synced cloths are placed");
            let start = place.particles.start;
            let slots = live.anchors.tethers.shifted_slots(start);
            self.layout.tethers.write_slots(start, &slots);
            self.engine.write_tethers(start, &slots);
        }
        Ok(())
    }

    /// Repacks the buffers after cloths were added or removed, keeping every remaining
    /// cloth's state.
    pub(super) fn sync(&mut self) -> Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let keep = self.live().iter().any(|l| l.placed);
        let (old_positions, old_previous) = if keep {
            self.engine.state()?
        } else {
            (Vec::new(), Vec::new())
        };
        let members: Vec<Member> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                e.live.as_ref().map(|l| Member {
                    slot: i as u32,
                    cloth: &l.cloth,
                    hierarchy: &l.hierarchy,
                    tethers: &l.anchors.tethers,
                })
            })
            .collect();
        let capacity = if self.config.fused_workgroup_memory {
            self.engine.workgroup_capacity()
        } else {
            0
        };
        // Self-collision and the edge colliders (boxes, thin capsules: contact.rs) run in the
        // per-pass stages: every cloth takes the global path; so does every cloth of a device
        // that cannot bind the fused kernel's buffers. `Auto` takes the path its trial runs or chose (auto_path.rs).
        let paths = match self.config.paths {
            _ if self.contact_needs_global() || !self.engine.fuses() => PathChoice::Global,
            PathChoice::Auto => {
                self.laid_out_auto = self.auto_path();
                self.laid_out_auto
            }
            chosen => chosen,
        };
        let layout = Layout::build(&members, paths, self.config.fused_max_particles, capacity)?;
        self.laid_out_global_only = self.contact_needs_global();
        let n = layout.particle_count as usize;
        let (mut positions, mut previous) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for p in &layout.placed {
            let live = self.placed_live(p.slot);
            match self.layout.find(p.slot).filter(|_| live.placed) {
                Some((_, old)) => {
                    let r = old.particles.start as usize..old.particles.end as usize;
                    positions.extend_from_slice(&old_positions[r.clone()]);
                    previous.extend_from_slice(&old_previous[r]);
                }
                None => {
                    let now = live
                        .unstarted
                        .clone()
                        .unwrap_or_else(|| initial_positions(&live.cloth));
                    previous.extend(now.iter().map(|p| p.truncate().extend(0.0)));
                    positions.extend(now);
                }
            }
        }
        self.engine.load(&layout, &positions, &previous)?;
        for p in &layout.placed {
            if let Some(live) = self.entries[p.slot as usize].live.as_mut() {
                live.placed = true;
            }
        }
        self.layout = layout;
        self.dirty = false;
        Ok(())
    }

    /// Starts the Verlet history of cloths that joined since the last step: `x₋₁ = x₀ − v₀h +
    /// ½ah²` with the h the frame's first dt ratio divides by, from where the cloth is now.
    pub(super) fn start_new_cloths(&mut self, plan: &FramePlan) {
        let accel = self.params.gravity;
        for p in &self.layout.placed {
            let Some(live) = self.entries[p.slot as usize].live.as_mut() else {
                continue;
            };
            let Some(now) = live.unstarted.take() else {
                continue;
            };
            let velocity = live.cloth.velocity();
            let previous: Vec<Vec4> = now
                .iter()
                .map(|x| {
                    crate::integrator::start_particle(*x, velocity, accel, plan.h_previous as f32)
                })
                .collect();
            self.engine.write_previous(p.particles.start, &previous);
        }
    }

    pub(super) fn live(&self) -> Vec<&Live> {
        self.entries
            .iter()
            .filter_map(|e| e.live.as_ref())
            .collect()
    }

    pub(super) fn entry(&self, handle: ClothHandle) -> Result<&Live> {
        self.entries
            .get(handle.index as usize)
            .filter(|e| e.generation == handle.generation)
            .and_then(|e| e.live.as_ref())
            .ok_or(stale(handle))
    }

    pub(super) fn live_mut(&mut self, handle: ClothHandle) -> Result<&mut Live> {
        self.entries
            .get_mut(handle.index as usize)
            .filter(|e| e.generation == handle.generation)
            .and_then(|e| e.live.as_mut())
            .ok_or(stale(handle))
    }

    /// The live cloth of a slot the layout placed.
    pub(super) fn placed_live(&self, slot: u32) -> &Live {
        self.entries[slot as usize]
            .live
            .as_ref()
            .expect("placed cloths are live")
    }

    pub(super) fn check_particle(&self, handle: ClothHandle, index: usize) -> Result<()> {
        let n = self.entry(handle)?.cloth.particle_count();
        if index >= n {
            return Err(ChiffonError::InvalidParameter {
                name: "particle index",
                reason: format!("{index} is out of range (the cloth has {n})"),
            });
        }
        Ok(())
    }

    /// The cloth's place in the buffers, laying them out first if cloths changed.
    pub(super) fn place(&mut self, handle: ClothHandle) -> Result<&layout::Placed> {
        self.entry(handle)?;
        self.sync()?;
        self.place_synced(handle)
    }

    pub(super) fn place_synced(&self, handle: ClothHandle) -> Result<&layout::Placed> {
        self.layout
            .find(handle.index)
            .map(|(_, p)| p)
            .ok_or(stale(handle))
    }
}

/// The error for a handle that names no live cloth (removed, or never this world's).
fn stale(handle: ClothHandle) -> ChiffonError {
    ChiffonError::StaleHandle {
        index: handle.index,
        generation: handle.generation,
    }
}

impl Live {
    pub(super) fn tethers_empty(&self) -> bool {
        self.anchors.tethers.is_empty()
    }
}

/// Packs positions with inverse masses into the kernels' vec4 layout.
pub(crate) fn initial_positions(cloth: &Cloth) -> Vec<Vec4> {
    cloth
        .positions()
        .iter()
        .zip(cloth.inverse_masses())
        .map(|(x, &w)| x.extend(w))
        .collect()
}
