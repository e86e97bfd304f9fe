//! Describing a cloth: particles, constraints (already colored) and triangles for drawing.

use glam::Vec3;

use crate::coloring::ColoredConstraints;
use crate::error::{ChiffonError, Result, check_at_least, check_finite3, check_range};

/// One distance constraint as both the GPU and the CPU store it (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Constraint {
    /// First particle.
    pub i: u32,
    /// Second particle.
    pub j: u32,
    /// Rest length (m).
    pub rest: f32,
    /// Its [`ConstraintKind`] as a number (`kind as u32`), which picks its compliance.
    pub kind: u32,
}

impl Constraint {
    /// A constraint of `kind` between `i` and `j` with rest length `rest` (m).
    pub fn new(i: u32, j: u32, rest: f32, kind: ConstraintKind) -> Self {
        Self {
            i,
            j,
            rest,
            kind: kind as u32,
        }
    }
}

/// The three kinds of grid constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ConstraintKind {
    /// Between horizontal and vertical neighbours (rest = spacing).
    Structural,
    /// Between diagonal neighbours (rest = spacing · √2).
    Shear,
    /// Between particles two apart along a row or column (rest = 2 · spacing).
    Bend,
}

impl ConstraintKind {
    /// All kinds, in the order their constraints are generated (and of their numbers).
    pub const ALL: [ConstraintKind; 3] = [
        ConstraintKind::Structural,
        ConstraintKind::Shear,
        ConstraintKind::Bend,
    ];

    /// The kind numbered `k` (`kind as u32`).
    pub fn from_index(k: u32) -> Option<Self> {
        Self::ALL.get(k as usize).copied()
    }
}

/// How the grid is placed in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Layout {
    /// In the x-y plane, centred on x = 0, top row at `top` (m), rows going down (−y), z = 0.
    Hanging {
        /// Height of the top row (m).
        top: f32,
    },
    /// In the x-z plane at height `height` (m), centred on the origin; rows go along +z.
    Flat {
        /// Height of the sheet (m).
        height: f32,
    },
}

/// Which particles never move (inverse mass 0).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Pinning {
    /// Nothing pinned.
    None,
    /// The two corners of the first row.
    Corners,
    /// The whole first row.
    Edge,
    /// Explicit particle indices (row-major).
    List(Vec<u32>),
}

/// Largest grid the builder accepts, in particles (4096 × 4096); the GPU may allow fewer.
pub const MAX_PARTICLES: u64 = 1 << 24;

/// Builder for a rectangular grid cloth.
///
/// ```
/// use chiffon::{ClothBuilder, Pinning};
/// let cloth = ClothBuilder::grid(32, 32).pinning(Pinning::Corners).build().unwrap();
/// assert_eq!(cloth.particle_count(), 1024);
/// ```
#[derive(Clone, Debug)]
pub struct ClothBuilder {
    columns: u32,
    rows: u32,
    spacing: Option<f32>,
    total_mass: f32,
    layout: Layout,
    velocity: Vec3,
    pinning: Pinning,
    kinds: [bool; 3],
}

impl ClothBuilder {
    /// A `columns` × `rows` grid. Defaults: 1 m wide (spacing = 1 / (columns − 1)), 0.2 kg,
    /// hanging with its top row at y = 1 m, at rest, two corners pinned, all three constraint
    /// kinds on.
    pub fn grid(columns: u32, rows: u32) -> Self {
        Self {
            columns,
            rows,
            spacing: None,
            total_mass: 0.2,
            layout: Layout::Hanging { top: 1.0 },
            velocity: Vec3::ZERO,
            pinning: Pinning::Corners,
            kinds: [true; 3],
        }
    }

    /// Distance between neighbouring particles (m).
    pub fn spacing(mut self, spacing: f32) -> Self {
        self.spacing = Some(spacing);
        self
    }

    /// Mass of the whole cloth (kg), shared equally by the particles.
    pub fn total_mass(mut self, kg: f32) -> Self {
        self.total_mass = kg;
        self
    }

    /// Placement in the world.
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// Initial velocity of every unpinned particle (m/s).
    pub fn velocity(mut self, v: Vec3) -> Self {
        self.velocity = v;
        self
    }

    /// Which particles are pinned.
    pub fn pinning(mut self, pinning: Pinning) -> Self {
        self.pinning = pinning;
        self
    }

    /// Turns a constraint kind on or off (how stiff it is is the solver's
    /// [`crate::params::Compliance`]).
    pub fn constraint(mut self, kind: ConstraintKind, on: bool) -> Self {
        self.kinds[kind as usize] = on;
        self
    }

    /// Builds the particles, the constraints (colored and sorted by color) and the triangles.
    pub fn build(self) -> Result<Cloth> {
        let (w, h) = (self.columns, self.rows);
        if w < 2 || h < 2 {
            return Err(ChiffonError::InvalidCloth(format!(
                "a grid needs at least 2 × 2 particles, got {w} × {h}"
            )));
        }
        let n = w as u64 * h as u64;
        if n > MAX_PARTICLES {
            return Err(ChiffonError::InvalidCloth(format!(
                "{w} × {h} = {n} particles is more than the {MAX_PARTICLES} chiffon supports"
            )));
        }
        let spacing = self.spacing.unwrap_or(1.0 / (w - 1) as f32);
        check_range("spacing (m)", spacing as f64, 1.0e-5, 1.0e3)?;
        check_range("total mass (kg)", self.total_mass as f64, 1.0e-9, 1.0e9)?;
        check_finite3("initial velocity", self.velocity)?;
        match self.layout {
            Layout::Hanging { top: y } | Layout::Flat { height: y } => {
                check_at_least("layout height (m)", y as f64, -1.0e6)?
            }
        }
        let n = n as usize;
        let width = spacing * (w - 1) as f32;
        let height = spacing * (h - 1) as f32;
        let mut positions = Vec::with_capacity(n);
        for r in 0..h {
            for c in 0..w {
                let u = c as f32 * spacing - 0.5 * width;
                let v = r as f32 * spacing;
                positions.push(match self.layout {
                    Layout::Hanging { top } => Vec3::new(u, top - v, 0.0),
                    Layout::Flat { height: y } => Vec3::new(u, y, v - 0.5 * height),
                });
            }
        }

        let mut pinned = vec![false; n];
        match &self.pinning {
            Pinning::None => {}
            Pinning::Corners => {
                pinned[0] = true;
                pinned[w as usize - 1] = true;
            }
            Pinning::Edge => pinned[..w as usize].fill(true),
            Pinning::List(list) => {
                for &p in list {
                    let slot = pinned.get_mut(p as usize).ok_or_else(|| {
                        ChiffonError::InvalidCloth(format!(
                            "pinned particle {p} does not exist (the grid has {n})"
                        ))
                    })?;
                    *slot = true;
                }
            }
        }
        let w_free = n as f32 / self.total_mass;
        let inverse_mass = pinned
            .iter()
            .map(|&p| if p { 0.0 } else { w_free })
            .collect();

        let constraints = grid_constraints(w, h, spacing, self.kinds);
        Cloth::build(
            ClothDesc {
                positions,
                inverse_mass,
                velocity: self.velocity,
                constraints,
                triangles: grid_triangles(w, h),
            },
            Some(GridShape {
                columns: w,
                rows: h,
                spacing,
            }),
        )
    }
}

/// Generates the grid's constraints, kind by kind, each kind row-major. This order lets the
/// greedy coloring reach the 12-color optimum of a full grid.
fn grid_constraints(w: u32, h: u32, s: f32, kinds: [bool; 3]) -> Vec<Constraint> {
    let idx = |c: u32, r: u32| r * w + c;
    let mut out = Vec::new();
    let mut add = |kind: ConstraintKind, offsets: &[(u32, u32, bool)], rest: f32| {
        if !kinds[kind as usize] {
            return;
        }
        // (dc, dr, mirrored): mirrored pairs run from (c + dc, r) to (c, r + dr).
        for &(dc, dr, mirrored) in offsets {
            for r in 0..h.saturating_sub(dr) {
                for c in 0..w.saturating_sub(dc) {
                    let (i, j) = if mirrored {
                        (idx(c + dc, r), idx(c, r + dr))
                    } else {
                        (idx(c, r), idx(c + dc, r + dr))
                    };
                    out.push(Constraint::new(i, j, rest, kind));
                }
            }
        }
    };
    add(
        ConstraintKind::Structural,
        &[(1, 0, false), (0, 1, false)],
        s,
    );
    add(
        ConstraintKind::Shear,
        &[(1, 1, false), (1, 1, true)],
        s * std::f32::consts::SQRT_2,
    );
    add(
        ConstraintKind::Bend,
        &[(2, 0, false), (0, 2, false)],
        2.0 * s,
    );
    out
}

/// Two triangles per grid cell, counter-clockwise seen from +z (hanging) / −y (flat).
fn grid_triangles(w: u32, h: u32) -> Vec<[u32; 3]> {
    let mut t = Vec::with_capacity(2 * (w as usize - 1) * (h as usize - 1));
    for r in 0..h - 1 {
        for c in 0..w - 1 {
            let a = r * w + c;
            let (b, d, e) = (a + 1, a + w, a + w + 1);
            t.push([a, d, b]);
            t.push([b, d, e]);
        }
    }
    t
}

/// The shape of a grid cloth, for grid-only consumers (the demo's normals and texture).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridShape {
    /// Particles per row.
    pub columns: u32,
    /// Rows of particles.
    pub rows: u32,
    /// Rest distance between neighbours (m).
    pub spacing: f32,
}

/// Everything a cloth is made of, in any order: [`Cloth::new`] checks it, colors the
/// constraints and sorts them by color. Ropes and other non-grid shapes are built this way.
#[derive(Clone, Debug, Default)]
pub struct ClothDesc {
    /// Initial positions (m).
    pub positions: Vec<Vec3>,
    /// Inverse masses (1/kg), one per particle; 0 pins a particle.
    pub inverse_mass: Vec<f32>,
    /// Initial velocity of every free particle (m/s).
    pub velocity: Vec3,
    /// Distance constraints (rest length in m, and kind).
    pub constraints: Vec<Constraint>,
    /// Triangles for drawing and export (may be empty, e.g. for a rope).
    pub triangles: Vec<[u32; 3]>,
}

/// A built cloth: initial state plus topology, checked and colored. Both solvers are made from
/// it; every way to make one validates it, so an invalid cloth cannot reach a solver.
#[derive(Clone, Debug)]
pub struct Cloth {
    positions: Vec<Vec3>,
    inverse_mass: Vec<f32>,
    velocity: Vec3,
    constraints: ColoredConstraints,
    triangles: Vec<[u32; 3]>,
    grid: Option<GridShape>,
}

impl Cloth {
    /// Checks `desc` (finite positions and velocity, non-negative finite inverse masses,
    /// indices in range, finite non-negative rest lengths, known kinds), colors its
    /// constraints and sorts them by color.
    pub fn new(desc: ClothDesc) -> Result<Self> {
        Self::build(desc, None)
    }

    fn build(desc: ClothDesc, grid: Option<GridShape>) -> Result<Self> {
        let n = desc.positions.len();
        let bad = |msg: String| Err(ChiffonError::InvalidCloth(msg));
        if n == 0 {
            return bad("a cloth needs at least one particle".into());
        }
        if n as u64 > MAX_PARTICLES {
            return bad(format!(
                "{n} particles is more than the {MAX_PARTICLES} chiffon supports"
            ));
        }
        if desc.inverse_mass.len() != n {
            return bad(format!(
                "{} inverse masses for {n} particles",
                desc.inverse_mass.len()
            ));
        }
        if let Some(p) = desc.positions.iter().position(|p| !p.is_finite()) {
            return bad(format!("particle {p} has a non-finite position"));
        }
        if let Some(p) = desc
            .inverse_mass
            .iter()
            .position(|w| !(w.is_finite() && *w >= 0.0))
        {
            return bad(format!(
                "particle {p} has inverse mass {}; it must be finite and at least 0",
                desc.inverse_mass[p]
            ));
        }
        check_finite3("initial velocity", desc.velocity)?;
        for (k, c) in desc.constraints.iter().enumerate() {
            if !(c.rest.is_finite() && c.rest >= 0.0) {
                return bad(format!("constraint {k} has rest length {}", c.rest));
            }
            if ConstraintKind::from_index(c.kind).is_none() {
                return bad(format!("constraint {k} has unknown kind {}", c.kind));
            }
        }
        if let Some(t) = desc
            .triangles
            .iter()
            .find(|t| t.iter().any(|&v| v as usize >= n))
        {
            return bad(format!("triangle {t:?} names a particle beyond {n}"));
        }
        let (constraints, _) = ColoredConstraints::new(&desc.constraints, n)?;
        Ok(Cloth {
            positions: desc.positions,
            inverse_mass: desc.inverse_mass,
            velocity: desc.velocity,
            constraints,
            triangles: desc.triangles,
            grid,
        })
    }

    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.positions.len()
    }

    /// Initial positions (m).
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Inverse masses (1/kg); 0 = pinned.
    pub fn inverse_masses(&self) -> &[f32] {
        &self.inverse_mass
    }

    /// Initial velocity of free particles (m/s).
    pub fn velocity(&self) -> Vec3 {
        self.velocity
    }

    /// The grid's shape, for a cloth made by [`ClothBuilder::grid`].
    pub fn grid(&self) -> Option<GridShape> {
        self.grid
    }

    /// Triangles for drawing and export.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The constraints, sorted by color.
    pub fn constraints(&self) -> &[Constraint] {
        self.constraints.constraints()
    }

    /// The constraints with their checked coloring.
    pub fn colored(&self) -> &ColoredConstraints {
        &self.constraints
    }

    /// Whether particle `i` is pinned in the initial state (inverse mass 0).
    pub fn is_pinned(&self, i: usize) -> bool {
        self.inverse_mass[i] == 0.0
    }

    /// One contiguous range of [`Self::constraints`] per color, in solve order.
    pub fn colors(&self) -> &[std::ops::Range<u32>] {
        self.constraints.colors()
    }

    /// Number of constraints.
    pub fn constraint_count(&self) -> usize {
        self.constraints.constraints().len()
    }

    /// Constraints per color.
    pub fn color_sizes(&self) -> Vec<u32> {
        self.constraints.color_sizes()
    }

    /// Largest extent of the cloth at rest (m); tolerances scale with it.
    pub fn size(&self) -> f32 {
        if let Some(g) = self.grid {
            return g.spacing * (g.columns.max(g.rows) - 1) as f32;
        }
        let (lo, hi) = self.positions.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        (hi - lo).max_element()
    }

    /// Structural constraints (for stretch statistics).
    pub fn structural_constraints(&self) -> impl Iterator<Item = &Constraint> {
        self.constraints()
            .iter()
            .filter(|c| c.kind == ConstraintKind::Structural as u32)
    }
}
