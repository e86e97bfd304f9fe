//! One constraint record, as the kernels and the CPU twins read it, and its kinds. Below every
//! module that makes or reads constraints (the cloth, the mesh geometry, the coloring, the coarse
//! levels, the GPU buffers), so each of them imports it and none imports another for it.

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
    /// Two numbers in one word, so the record stays 16 bytes: bits 0–1 are the kind number
    /// ([`ConstraintKind`] as `u32`, or [`LIMIT_KIND`] (3) for a coarse level's
    /// limit), bits 2 and up are the kind's datum: a cloth constraint's material (the row of the
    /// kernels' `materials` table; 0 in a [`crate::Cloth`], one per cloth in a world) or a limit's
    /// mass share. Read it with [`Constraint::kind_number`], [`Constraint::material`] and
    /// [`Constraint::limit_share`].
    pub packed: u32,
}

impl Constraint {
    /// A constraint of `kind` between `i` and `j` with rest length `rest` (m), material 0.
    pub fn new(i: u32, j: u32, rest: f32, kind: ConstraintKind) -> Self {
        Self {
            i,
            j,
            rest,
            packed: kind as u32,
        }
    }

    /// Bits of [`Constraint::packed`] below the datum (the kind number).
    pub const DATUM_SHIFT: u32 = 2;
    /// Set in both records of a bending stencil ([`Constraint::stencil`]).
    pub const STENCIL: u32 = 1 << 31;
    /// Set in a stencil's second record.
    pub const STENCIL_TAIL: u32 = 1 << 30;
    /// The datum's bits (2–29), below the stencil flags.
    const DATUM_MASK: u32 = (1 << 28) - 1;

    /// An isometric bending stencil (Bergou et al. 2006) across one interior edge of a
    /// triangle mesh, as two consecutive records: the edge's ends `p[0]`, `p[1]` and the
    /// vertices `p[2]`, `p[3]` opposite it, and the weights `k` of its curvature vector
    /// κ = Σ k·x (the first three; the fourth is minus their sum). The head holds `p[0]`,
    /// `p[1]`, `k[0]` and the material like any constraint; the tail holds `p[2]`, `p[3]`,
    /// `k[1]`, and `k[2]` in its datum (an f32 without its four lowest mantissa bits, a
    /// relative error below 2·10⁻⁶). Kind [`ConstraintKind::Bend`]; colors hold either
    /// stencils or distance constraints, never both (the kernels read a color's first record to
    /// know which).
    pub fn stencil(p: [u32; 4], k: [f32; 3]) -> [Constraint; 2] {
        let bend = ConstraintKind::Bend as u32;
        [
            Constraint {
                i: p[0],
                j: p[1],
                rest: k[0],
                packed: bend | Self::STENCIL,
            },
            Constraint {
                i: p[2],
                j: p[3],
                rest: k[1],
                packed: bend
                    | Self::STENCIL
                    | Self::STENCIL_TAIL
                    | ((k[2].to_bits() >> 4) << Self::DATUM_SHIFT),
            },
        ]
    }

    /// A membrane triangle (strain based dynamics, Müller et al. 2014) as two consecutive
    /// records: the head holds `p[0]`, `p[1]`, `m[0]` and the material, with the warp's
    /// direction in the datum's top [`Self::TRIANGLE_ANGLE_BITS`] bits; the tail holds `p[2]`,
    /// `p[0]` again (so both of its indices are particles), `m[2]`, and `m[1]` in its datum (an
    /// f32 without its four lowest mantissa bits). `m` is the inverse of the triangle's rest
    /// edges in a frame along its first edge, which is upper triangular:
    /// `[[m[0], m[1]], [0, m[2]]]`. The warp is at `theta` radians from edge p0→p1 towards p2
    /// (a direction, so taken modulo π), kept as the tangent of its half angle in steps of
    /// 1/512, so that both backends turn the frame by the same arithmetic (no sine): within
    /// 0.22° of `theta`. Kind [`ConstraintKind::Structural`] (a bending stencil's is
    /// [`ConstraintKind::Bend`]); both records carry [`Self::STENCIL`], so every path that
    /// handles a two-record group handles it.
    pub fn triangle(p: [u32; 3], m: [f32; 3], theta: f32) -> [Constraint; 2] {
        use std::f32::consts::{FRAC_PI_2, PI};
        let half_steps = (1u32 << (Self::TRIANGLE_ANGLE_BITS - 1)) as f32;
        // θ in [−π/2, π/2), so t = tan(θ / 2) in [−1, 1).
        let wrapped = (theta + FRAC_PI_2).rem_euclid(PI) - FRAC_PI_2;
        let t = (0.5 * wrapped).tan();
        let q = ((t * half_steps).round() + half_steps).clamp(0.0, 2.0 * half_steps - 1.0) as u32;
        [
            Constraint {
                i: p[0],
                j: p[1],
                rest: m[0],
                packed: Self::STENCIL | ((q << Self::TRIANGLE_MATERIAL_BITS) << Self::DATUM_SHIFT),
            },
            Constraint {
                i: p[2],
                j: p[0],
                rest: m[2],
                packed: Self::STENCIL
                    | Self::STENCIL_TAIL
                    | ((m[1].to_bits() >> 4) << Self::DATUM_SHIFT),
            },
        ]
    }

    /// Bits of a membrane triangle's head datum that hold its material; the warp's direction
    /// takes the rest ([`Constraint::triangle`]).
    pub const TRIANGLE_MATERIAL_BITS: u32 = 18;
    /// Bits of a membrane triangle's warp direction.
    pub const TRIANGLE_ANGLE_BITS: u32 = 28 - Self::TRIANGLE_MATERIAL_BITS;

    /// True for either record of a membrane triangle ([`Constraint::triangle`]).
    pub fn is_triangle(&self) -> bool {
        self.packed & (Self::STENCIL | 3) == Self::STENCIL
    }

    /// A membrane triangle's particles, its inverse rest matrix's three entries and the
    /// cosine and sine of its warp's angle, from its head and tail (twin of `triangle_frame`
    /// in `shaders/common.wgsl`, same arithmetic).
    pub fn triangle_parts(head: &Constraint, tail: &Constraint) -> ([u32; 3], [f32; 3], [f32; 2]) {
        let m1 = f32::from_bits(((tail.packed >> Self::DATUM_SHIFT) & Self::DATUM_MASK) << 4);
        let half_steps = (1u32 << (Self::TRIANGLE_ANGLE_BITS - 1)) as f32;
        let q = head.datum() >> Self::TRIANGLE_MATERIAL_BITS;
        let t = (q as f32 - half_steps) / half_steps;
        let t2 = t * t;
        let turn = [(1.0 - t2) / (1.0 + t2), (2.0 * t) / (1.0 + t2)];
        ([head.i, head.j, tail.i], [head.rest, m1, tail.rest], turn)
    }

    /// True for either record of a bending stencil or a membrane triangle (a two-record
    /// group).
    pub fn is_stencil(&self) -> bool {
        self.packed & Self::STENCIL != 0
    }

    /// True for a stencil's second record.
    pub fn is_stencil_tail(&self) -> bool {
        self.packed & (Self::STENCIL | Self::STENCIL_TAIL) == Self::STENCIL | Self::STENCIL_TAIL
    }

    /// True for a distance constraint between `i` and `j` (a cloth's, or a limit), false for a
    /// stencil's records: what code that reads constraints as edges keeps.
    pub fn is_distance(&self) -> bool {
        !self.is_stencil()
    }

    /// A stencil's four particles and four weights from its head and tail (twin of
    /// `stencil_weights` in `shaders/common.wgsl`).
    pub fn stencil_parts(head: &Constraint, tail: &Constraint) -> ([u32; 4], [f32; 4]) {
        let k2 = f32::from_bits(((tail.packed >> Self::DATUM_SHIFT) & Self::DATUM_MASK) << 4);
        let k = [head.rest, tail.rest, k2, -(head.rest + tail.rest + k2)];
        ([head.i, head.j, tail.i, tail.j], k)
    }

    /// The kind number: [`ConstraintKind`] as `u32` (0–2), or 3 for a limit.
    pub fn kind_number(&self) -> u32 {
        self.packed & ((1 << Self::DATUM_SHIFT) - 1)
    }

    /// True for a structural edge: a distance constraint of kind 0 (not a stencil's record),
    /// what the strain limit after contact shortens (`is_structural` in `shaders/common.wgsl`).
    pub fn is_structural(&self) -> bool {
        self.packed & (Self::STENCIL | 3) == 0
    }

    /// True for a coarse level's limit (hierarchical PBD, `src/hierarchy/`).
    pub fn is_limit(&self) -> bool {
        self.kind_number() == LIMIT_KIND
    }

    /// The datum in bits 2 and up: the material, or a limit's share (a membrane triangle's
    /// head: its material and warp angle).
    fn datum(&self) -> u32 {
        (self.packed >> Self::DATUM_SHIFT) & Self::DATUM_MASK
    }

    /// The material bits of the datum: all of them, or a membrane triangle's low ones.
    fn material_bits(&self) -> u32 {
        if self.is_triangle() {
            (1 << Self::TRIANGLE_MATERIAL_BITS) - 1
        } else {
            Self::DATUM_MASK
        }
    }

    /// The same constraint reading material `material` (a limit has no material and is
    /// returned unchanged).
    pub fn with_material(self, material: u32) -> Self {
        if self.is_limit() || self.is_stencil_tail() {
            return self;
        }
        let bits = self.material_bits();
        Self {
            packed: self.kind_number()
                | (self.packed & Self::STENCIL)
                | (((self.datum() & !bits) | (material & bits)) << Self::DATUM_SHIFT),
            ..self
        }
    }

    /// Its material (the row of the `materials` table); `None` for a limit.
    pub fn material(&self) -> Option<u32> {
        (!self.is_limit() && !self.is_stencil_tail()).then(|| self.datum() & self.material_bits())
    }

    /// A limit's share of the correction that its first end takes, in 1/65536; `None` for a
    /// cloth constraint.
    pub fn limit_share(&self) -> Option<u32> {
        self.is_limit().then(|| self.datum())
    }

    /// The same constraint with both particle indices moved up by `base` (a cloth placed at
    /// particle `base` of a world's buffers).
    pub fn shifted(self, base: u32) -> Self {
        Self {
            i: self.i + base,
            j: self.j + base,
            ..self
        }
    }

    /// Its α̃ out of a material's row (twin of `constraint_alpha` in `shaders/common.wgsl`).
    pub fn alpha(&self, material: glam::Vec4) -> f32 {
        material[self.material_column()]
    }

    /// Which of a material's four α̃ it reads: its kind's, or the last (the curvature
    /// compliance) for a stencil.
    pub fn material_column(&self) -> usize {
        if self.is_triangle() {
            0
        } else if self.is_stencil() {
            3
        } else {
            self.kind_number() as usize
        }
    }

    /// Its α̃'s index in the `materials` table seen as floats (four a material); a membrane
    /// triangle's stretch (its shear is the next).
    pub fn material_slot(&self) -> usize {
        (self.datum() & self.material_bits()) as usize * 4 + self.material_column()
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
    /// Bending: an isometric stencil across each interior edge of a sheet (grid or mesh,
    /// [`Constraint::stencil`]), or a distance between particles two apart along a rope (and
    /// across a mesh's edge folded at rest).
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

/// The kind number of a limit ([`Constraint::kind_number`]): unilateral (only a stretched limit
/// is corrected) and rigid (it reads no material).
pub const LIMIT_KIND: u32 = 3;

/// A limit's datum ([`Constraint::limit_share`]): the share of the correction its first end
/// takes, in 1/65536 (the ratio of the masses its two coarse particles stand for).
pub(crate) const LIMIT_SHARE_SCALE: f32 = 65536.0;
