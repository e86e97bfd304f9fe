//! Describing a cloth: particles, constraints (already colored) and triangles for drawing.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::coloring::{Coloring, color_constraints};
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
    /// Fraction of the error corrected per solve, in (0, 1].
    pub stiffness: f32,
}

/// The three kinds of grid constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ConstraintKind {
    /// Between horizontal and vertical neighbours (rest = spacing).
    Structural,
    /// Between diagonal neighbours (rest = spacing · √2).
    Shear,
    /// Between particles two apart along a row or column (rest = 2 · spacing).
    Bend,
}

impl ConstraintKind {
    /// All kinds, in the order their constraints are generated.
    pub const ALL: [ConstraintKind; 3] = [
        ConstraintKind::Structural,
        ConstraintKind::Shear,
        ConstraintKind::Bend,
    ];
}

/// How the grid is placed in the world.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Layout {
    /// In the x-y plane, centred on x = 0, top row at `top` (m), rows going down (−y), z = 0.
    Hanging { top: f32 },
    /// In the x-z plane at height `height` (m), centred on the origin; rows go along +z.
    Flat { height: f32 },
}

/// Which particles never move (inverse mass 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    stiffness: [Option<f32>; 3],
}

impl ClothBuilder {
    /// A `columns` × `rows` grid. Defaults: 1 m wide (spacing = 1 / (columns − 1)), 0.2 kg,
    /// hanging with its top row at y = 1 m, at rest, two corners pinned, all three constraint
    /// kinds at stiffness 1.
    pub fn grid(columns: u32, rows: u32) -> Self {
        Self {
            columns,
            rows,
            spacing: None,
            total_mass: 0.2,
            layout: Layout::Hanging { top: 1.0 },
            velocity: Vec3::ZERO,
            pinning: Pinning::Corners,
            stiffness: [Some(1.0); 3],
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

    /// Turns a constraint kind on with `stiffness` in (0, 1], or off with `None`.
    pub fn constraint(mut self, kind: ConstraintKind, stiffness: Option<f32>) -> Self {
        self.stiffness[kind as usize] = stiffness;
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
        for (kind, s) in ConstraintKind::ALL.iter().zip(self.stiffness) {
            if let Some(s) = s {
                check_range(kind_stiffness_name(*kind), s as f64, 0.0, 1.0)?;
                if s <= 0.0 {
                    return Err(ChiffonError::InvalidParameter {
                        name: kind_stiffness_name(*kind),
                        reason: "must be in (0, 1]; turn the kind off instead of using 0".into(),
                    });
                }
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

        let (constraints, kinds) = grid_constraints(w, h, spacing, self.stiffness);
        let pairs: Vec<[u32; 2]> = constraints.iter().map(|c| [c.i, c.j]).collect();
        let coloring = color_constraints(&pairs, n);
        debug_assert!(
            coloring.validate(&pairs, n).is_ok(),
            "invalid grid coloring"
        );
        let constraints = coloring
            .order
            .iter()
            .map(|&k| constraints[k as usize])
            .collect();
        let kinds = coloring.order.iter().map(|&k| kinds[k as usize]).collect();

        Ok(Cloth {
            columns: w,
            rows: h,
            spacing,
            positions,
            inverse_mass,
            velocity: self.velocity,
            constraints,
            kinds,
            colors: coloring.ranges,
            triangles: grid_triangles(w, h),
        })
    }
}

fn kind_stiffness_name(kind: ConstraintKind) -> &'static str {
    match kind {
        ConstraintKind::Structural => "structural stiffness",
        ConstraintKind::Shear => "shear stiffness",
        ConstraintKind::Bend => "bend stiffness",
    }
}

/// Generates the grid's constraints, kind by kind, each kind row-major. This order lets the
/// greedy coloring reach the 12-color optimum of a full grid.
fn grid_constraints(
    w: u32,
    h: u32,
    s: f32,
    stiffness: [Option<f32>; 3],
) -> (Vec<Constraint>, Vec<ConstraintKind>) {
    let idx = |c: u32, r: u32| r * w + c;
    let mut out = Vec::new();
    let mut kinds = Vec::new();
    let mut add = |kind: ConstraintKind, offsets: &[(u32, u32, bool)], rest: f32| {
        let Some(k) = stiffness[kind as usize] else {
            return;
        };
        // (dc, dr, mirrored): mirrored pairs run from (c + dc, r) to (c, r + dr).
        for &(dc, dr, mirrored) in offsets {
            for r in 0..h.saturating_sub(dr) {
                for c in 0..w.saturating_sub(dc) {
                    let (i, j) = if mirrored {
                        (idx(c + dc, r), idx(c, r + dr))
                    } else {
                        (idx(c, r), idx(c + dc, r + dr))
                    };
                    out.push(Constraint {
                        i,
                        j,
                        rest,
                        stiffness: k,
                    });
                    kinds.push(kind);
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
    (out, kinds)
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

/// A built cloth: initial state plus topology. Both solvers are made from it.
#[derive(Clone, Debug)]
pub struct Cloth {
    /// Particles per row.
    pub columns: u32,
    /// Rows of particles.
    pub rows: u32,
    /// Rest distance between neighbours (m).
    pub spacing: f32,
    /// Initial positions (m), row-major.
    pub positions: Vec<Vec3>,
    /// Inverse masses (1/kg); 0 = pinned.
    pub inverse_mass: Vec<f32>,
    /// Initial velocity of unpinned particles (m/s).
    pub velocity: Vec3,
    /// Constraints sorted by color.
    pub constraints: Vec<Constraint>,
    /// The kind of each constraint, parallel to `constraints`.
    pub kinds: Vec<ConstraintKind>,
    /// One contiguous range of `constraints` per color, in solve order.
    pub colors: Vec<std::ops::Range<u32>>,
    /// Triangles for drawing and export (row-major particle indices).
    pub triangles: Vec<[u32; 3]>,
}

impl Cloth {
    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of constraints.
    pub fn constraint_count(&self) -> usize {
        self.constraints.len()
    }

    /// Constraints per color.
    pub fn color_sizes(&self) -> Vec<u32> {
        self.colors.iter().map(|r| r.end - r.start).collect()
    }

    /// Largest extent of the cloth at rest (m); tolerances scale with it.
    pub fn size(&self) -> f32 {
        self.spacing * (self.columns.max(self.rows) - 1) as f32
    }

    /// Checks the stored coloring (see [`Coloring::validate`]); constraints are already sorted,
    /// so the order is the identity.
    pub fn validate_coloring(&self) -> Result<()> {
        let pairs: Vec<[u32; 2]> = self.constraints.iter().map(|c| [c.i, c.j]).collect();
        Coloring {
            order: (0..pairs.len() as u32).collect(),
            ranges: self.colors.clone(),
        }
        .validate(&pairs, self.particle_count())
    }

    /// Indices of structural constraints (for stretch statistics).
    pub fn structural_constraints(&self) -> impl Iterator<Item = &Constraint> {
        self.constraints
            .iter()
            .zip(&self.kinds)
            .filter(|(_, k)| **k == ConstraintKind::Structural)
            .map(|(c, _)| c)
    }
}
