//! Twins of the functions of `shaders/common.wgsl`, the prelude every kernel is compiled with:
//! same names, same arguments, same order of arithmetic, in the order the WGSL file has them.
//! `thread_index` has none (the CPU loops over its slices instead).

use glam::{Vec3, Vec4, Vec4Swizzles};

use crate::config::{ColorRange, LIMIT_END_RELAX, PIN_MOVING, PIN_TO, StepParams};
use crate::constraint::{Constraint, LIMIT_SHARE_SCALE};
use crate::integrator::verlet_next;

/// Twin of `limit_weights` in `shaders/common.wgsl`: the inverse masses a limit moves its
/// ends with (a pinned or held end, inverse mass 0, stays).
#[inline]
pub(crate) fn limit_weights(packed: u32, wi: f32, wj: f32) -> (f32, f32) {
    let share = (packed >> Constraint::DATUM_SHIFT) as f32 / LIMIT_SHARE_SCALE;
    (
        if wi == 0.0 { 0.0 } else { share },
        if wj == 0.0 { 0.0 } else { 1.0 - share },
    )
}

/// Twin of `unheld` (common.wgsl): the inverse mass a limit sees, 0 for a held particle.
#[inline]
pub(crate) fn unheld(w: f32, held: f32) -> f32 {
    if held > 0.0 { 0.0 } else { w }
}

/// The displacement the substep's acceleration (gravity, wind) gives a particle,
/// `accel · accel_scale`: what static friction holds a stuck particle against (twin of
/// `substep_pull` in `shaders/common.wgsl`).
pub(crate) fn substep_pull(params: &StepParams) -> Vec3 {
    Vec4::from_array(params.accel).xyz() * params.accel_scale
}

/// How far a particle that starts the substep within a collider's thickness is pushed out at
/// most, deeper to shallower than it started: [`crate::config::ESCAPE_SPEED`] × the substep's
/// length (twin of `substep_escape` in `shaders/common.wgsl`).
pub(crate) fn substep_escape(params: &StepParams) -> f32 {
    crate::config::ESCAPE_SPEED * params.h
}

/// Twin of `constraint_alpha` (common.wgsl): a distance constraint's α̃ from its cloth's
/// material row (stretch, shear, bend by its kind bits).
#[inline]
pub(crate) fn constraint_alpha(material: Vec4, packed: u32) -> f32 {
    material[(packed & 3) as usize]
}

/// Twin of `ordered` (common.wgsl): an f32's bits as a u32 that orders as the f32 does.
pub(crate) fn ordered(x: f32) -> u32 {
    let b = x.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// Twin of `unordered` (common.wgsl).
pub(crate) fn unordered(u: u32) -> f32 {
    if u & 0x8000_0000 != 0 {
        f32::from_bits(u & 0x7fff_ffff)
    } else {
        f32::from_bits(!u)
    }
}

/// Twin of `color_walk` (common.wgsl): where thread `t` starts in a color and how far it
/// steps, in records (`width` records a unit, `stride` between a thread's units); a serial
/// color is walked by thread 0 alone, unit after unit.
pub(crate) fn color_walk(range: &ColorRange, t: u32, width: u32, stride: u32) -> (u32, u32) {
    if range.serial != 0 {
        return (if t == 0 { 0 } else { range.count }, width);
    }
    (width * t, stride)
}

/// Twin of `cross3` (common.wgsl).
#[inline]
pub(crate) fn cross3(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(
        a.y * b.z - b.y * a.z,
        a.z * b.x - b.z * a.x,
        a.x * b.y - b.x * a.y,
    )
}

/// Twin of `pin_step` (common.wgsl): where a pinned particle at `x` goes in a substep that
/// ends at frame fraction `t_to`, `q` its previous position ([`PIN_TO`]: a 1/S of the way
/// to the target in its xyz; [`PIN_MOVING`]: the same step again; else nowhere).
#[inline]
pub(crate) fn pin_step(t_to: f32, x: glam::Vec3, q: Vec4) -> glam::Vec3 {
    if q.w == PIN_TO {
        return x + (q.xyz() - x) * t_to;
    }
    if q.w == PIN_MOVING {
        return x + (x - q.xyz());
    }
    x
}

/// Twin of `pin_flag` (common.wgsl): a moving pin's flag for the next substep, 0 after the
/// frame's last.
#[inline]
pub(crate) fn pin_flag(t_to: f32, flag: f32) -> f32 {
    if (flag == PIN_TO || flag == PIN_MOVING) && t_to < 1.0 {
        PIN_MOVING
    } else {
        0.0
    }
}

/// Twin of `verlet` (common.wgsl): a free particle's next position under `params`.
#[inline]
pub(crate) fn verlet(params: &StepParams, x: glam::Vec3, x_prev: glam::Vec3) -> glam::Vec3 {
    verlet_next(
        x,
        x_prev,
        Vec4::from_array(params.accel).xyz(),
        params.ratio,
        params.damping,
        params.accel_scale,
    )
}

/// Twin of `xpbd_step` in `shaders/common.wgsl`: the direction to move along and Δλ of one
/// XPBD step (the kernel packs them in a vec4), Δλ = 0 when nothing can move (or, for a
/// `unilateral` constraint, when it is not stretched).
///   C = |x_i − x_j| − L,  Δλ = ω (−C − α̃ λ) / ((w_i + w_j)(n · dir) + α̃)   (ω: over-relaxation)
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn xpbd_step(
    params: &StepParams,
    rest: f32,
    pi: Vec4,
    pj: Vec4,
    r: glam::Vec3,
    alpha: f32,
    lambda0: f32,
    unilateral: bool,
) -> (glam::Vec3, f32) {
    let w_sum = pi.w + pj.w;
    // Both ends pinned: nothing can move.
    if w_sum == 0.0 {
        return (glam::Vec3::ZERO, 0.0);
    }
    let d = pi.xyz() - pj.xyz();
    let len2 = d.dot(d);
    let len = len2.sqrt();
    // Coincident particles give no direction to push along.
    if len < 1e-9 {
        return (glam::Vec3::ZERO, 0.0);
    }
    let constraint = len - rest;
    // A limit (a coarse level's constraint) only keeps its ends from moving apart.
    if unilateral && constraint <= 0.0 {
        return (glam::Vec3::ZERO, 0.0);
    }
    // SHAKE corrects along the bond at the start of the step, unless the bond turned by more
    // than 30° in the step or the correction along it would carry the bond past half its
    // length; then along the current bond. A limit always uses the current bond (see
    // `xpbd_step` in common.wgsl for why, tested there without roots).
    let numerator = (-constraint - alpha * lambda0) * params.over_relaxation;
    let r2 = r.dot(r);
    let dr = d.dot(r);
    let along_start = r2 > 1e-18
        && dr > 0.0
        && 4.0 * dr * dr > 3.0 * len2 * r2
        && -2.0 * numerator * len * r2 < dr * dr;
    if params.shake == 1 && !unilateral && along_start {
        // Along r/|r| with n·dir = d·r / (|d| |r|), the divisions folded into one.
        let r_len = r2.sqrt();
        let scale = r_len * len;
        let d_lambda = numerator * scale / (w_sum * dr + alpha * scale);
        (r * (1.0 / r_len), d_lambda)
    } else {
        (d * (1.0 / len), numerator / (w_sum + alpha))
    }
}

/// One thread of `solve_color` (and of the fused kernel's solve): `r` is the bond at the start
/// of the step, `held` the ends' contact flags (the previous positions' w: 1 for a particle a
/// collider held by static friction at the end of the last substep), `alpha` the
/// constraint's α̃. The step is [`xpbd_step`].
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn solve_pair(
    params: &StepParams,
    c: &Constraint,
    pi: &mut Vec4,
    pj: &mut Vec4,
    r: glam::Vec3,
    held: (f32, f32),
    alpha: f32,
    lambda: &mut f32,
    first_sweep: bool,
) {
    let lambda0 = if first_sweep { 0.0 } else { *lambda };
    // A coarse level's limit moves its ends by the masses they stand for, and holds an end
    // that contact holds as it holds a pin: the level then carries what hangs from a support
    // to it, as it carries what hangs from a pin (Müller 2008 treats contacts on every level).
    let limit = c.is_limit();
    let (wi, wj) = if limit {
        limit_weights(c.packed, unheld(pi.w, held.0), unheld(pj.w, held.1))
    } else {
        (pi.w, pj.w)
    };
    let (dir, d_lambda) = xpbd_step(
        params,
        c.rest,
        pi.xyz().extend(wi),
        pj.xyz().extend(wj),
        r,
        alpha,
        lambda0,
        limit,
    );
    *lambda = lambda0 + d_lambda;
    *pi = (pi.xyz() + dir * (d_lambda * wi)).extend(pi.w);
    *pj = (pj.xyz() - dir * (d_lambda * wj)).extend(pj.w);
}

/// Twin of `is_structural` (common.wgsl): the strain limit applies to a structural edge
/// (kind 0), not to a stencil's record.
#[inline]
pub(crate) fn is_structural(c: &Constraint) -> bool {
    c.packed & (Constraint::STENCIL | 3) == 0
}

/// Twin of `limit_held` (common.wgsl): what the strain limit reads as held of two particles'
/// previous positions' w: their contact flags in frames where it holds what static friction
/// holds ([`StepParams::limit_holds`]), else nothing.
#[inline]
pub(crate) fn limit_held(params: &StepParams, wi: f32, wj: f32) -> (f32, f32) {
    if params.limit_holds != 0 {
        (wi, wj)
    } else {
        (0.0, 0.0)
    }
}

/// Twin of `limit_sweeps_in` (common.wgsl): how many times the strain limit sweeps in a
/// substep, `end_sweeps` in the frame's last (`last`) when the frame has them.
pub(crate) fn limit_sweeps_in(params: &StepParams, last: bool) -> u32 {
    if last && params.end_sweeps > 0 {
        params.end_sweeps
    } else {
        params.limit_sweeps
    }
}

/// Twin of `limit_relax` (common.wgsl): the factor of the strain limit's corrections,
/// [`LIMIT_END_RELAX`] in the frame-end sweeps, 1 in any other.
pub(crate) fn limit_relax(params: &StepParams, last: bool) -> f32 {
    if last && params.end_sweeps > 0 {
        LIMIT_END_RELAX
    } else {
        1.0
    }
}

/// Twin of `limit_pair` (common.wgsl): one structural edge (kind 0, not a stencil) longer than
/// `limit` × its rest length shortened to it (by `relax` × its excess, [`limit_relax`]), its
/// ends moving along it by their inverse masses; an end that contact holds (`held`,
/// [`limit_held`]) stays. Shared by [`limit_color`] and the fused kernel's twin.
#[inline]
pub(crate) fn limit_pair(
    limit: f32,
    relax: f32,
    c: &Constraint,
    pi: &mut Vec4,
    pj: &mut Vec4,
    held: (f32, f32),
) {
    if !is_structural(c) {
        return;
    }
    let (wi, wj) = (unheld(pi.w, held.0), unheld(pj.w, held.1));
    let w_sum = wi + wj;
    if w_sum == 0.0 {
        return;
    }
    let d = pi.xyz() - pj.xyz();
    let len2 = d.dot(d);
    let longest = limit * c.rest;
    if len2 <= longest * longest {
        return;
    }
    let len = len2.sqrt();
    // Over-relaxed, never shorter than half its rest length: past 1.83 × it (at the aim of
    // 1.09, relaxed by 1.8) an edge shortened by 1.8 × its excess would end shorter, and past
    // 2.45 × inside out, which pumped a sheet without coarse levels to divergence.
    let k = ((len - longest) * relax).min(len - 0.5 * c.rest) / (len * w_sum);
    *pi = (pi.xyz() - d * (k * wi)).extend(pi.w);
    *pj = (pj.xyz() + d * (k * wj)).extend(pj.w);
}

/// Twin of `material_slot`: a constraint's α̃ index in the `materials` table (four floats a
/// material): its kind's, or for a stencil the fourth ([`Constraint::material_slot`]).
#[inline]
pub(crate) fn material_slot(con: &Constraint) -> usize {
    con.material_slot()
}

/// Twin of `stencil_slot`: where a stencil's α̃ is in the `materials` table seen as floats.
#[inline]
pub(crate) fn stencil_slot(head: &Constraint) -> usize {
    head.material_slot()
}

/// Twin of `stencil_weights` (common.wgsl): a bending stencil's four weights, from its two
/// records.
#[inline]
pub(crate) fn stencil_weights(head: &Constraint, tail: &Constraint) -> [f32; 4] {
    Constraint::stencil_parts(head, tail).1
}

/// One thread of `solve_color` on a color of bending stencils (and of the fused kernel's
/// solve), twin of `solve_stencil` in `shaders/common.wgsl`: `k` the stencil's four weights,
/// `x` its four particles (w: inverse mass), `alpha` its α̃.
///   C = |κ|, κ = Σ k_a x_a,  Δλ = ω (−C − α̃ λ) / (Σ w_a k_a² + α̃),  x_a += w_a k_a (κ/|κ|) Δλ
#[inline]
pub(crate) fn solve_stencil(
    params: &StepParams,
    k: [f32; 4],
    x: &mut [Vec4; 4],
    alpha: f32,
    lambda: &mut f32,
    first_sweep: bool,
) {
    let lambda0 = if first_sweep { 0.0 } else { *lambda };
    let kappa = k[0] * x[0].xyz() + k[1] * x[1].xyz() + k[2] * x[2].xyz() + k[3] * x[3].xyz();
    let c = kappa.length();
    let move_by = [0, 1, 2, 3].map(|a| x[a].w * k[a]);
    // In order (glam's Vec4 dot sums in pairs), as the kernel does.
    let denominator =
        move_by[0] * k[0] + move_by[1] * k[1] + move_by[2] * k[2] + move_by[3] * k[3] + alpha;
    *lambda = lambda0;
    if c < 1e-9 || denominator <= 0.0 {
        return;
    }
    let d_lambda = (-c - alpha * lambda0) * params.over_relaxation / denominator;
    let step = kappa * (d_lambda / c);
    for (a, p) in x.iter_mut().enumerate() {
        *p = (p.xyz() + step * move_by[a]).extend(p.w);
    }
    *lambda = lambda0 + d_lambda;
}

/// Twin of `TRIANGLE_COLLAPSED` (common.wgsl): a warp or weft shorter than this (1 at rest)
/// is a triangle collapsed onto a line or a point, which takes no step.
pub(crate) const TRIANGLE_COLLAPSED: f32 = 1e-6;

/// Twin of `is_triangle` (common.wgsl): either record of a membrane triangle.
#[inline]
pub(crate) fn is_triangle(con: &Constraint) -> bool {
    con.is_triangle()
}

/// Twin of `triangle_frame` (common.wgsl): a membrane triangle's warp and weft as weights on
/// its edges e1 = x1 − x0 and e2 = x2 − x0, f_u = e1 g.x + e2 g.y, f_v = e1 g.z + e2 g.w.
#[inline]
pub(crate) fn triangle_frame(head: &Constraint, tail: &Constraint) -> Vec4 {
    let (_, m, [c, s]) = Constraint::triangle_parts(head, tail);
    Vec4::new(m[0] * c + m[1] * s, m[2] * s, m[1] * c - m[0] * s, m[2] * c)
}

/// Twin of `triangle_area_scale` (common.wgsl): 1 / (2 × its rest area), what its α̃ are
/// multiplied by.
#[inline]
pub(crate) fn triangle_area_scale(head: &Constraint, tail: &Constraint) -> f32 {
    head.rest * tail.rest
}

/// Twin of `triangle_slot` (common.wgsl): its stretch α̃'s index in the `materials` table
/// seen as floats (its shear's is the next).
#[inline]
pub(crate) fn triangle_slot(head: &Constraint) -> usize {
    head.material_slot()
}

/// Twin of `triangle_step` (common.wgsl): one XPBD step of one of a triangle's constraints,
/// `c` its value, `du` and `dv` its gradient on f_u and f_v; moves `x` and returns Δλ.
#[inline]
#[allow(clippy::too_many_arguments)]
fn triangle_step(
    params: &StepParams,
    g: Vec4,
    w: Vec3,
    x: &mut [Vec3; 3],
    du: Vec3,
    dv: Vec3,
    c: f32,
    alpha: f32,
    lambda0: f32,
) -> f32 {
    let g0 = du * (-(g.x + g.y)) + dv * (-(g.z + g.w));
    let g1 = du * g.x + dv * g.z;
    let g2 = du * g.y + dv * g.w;
    let denominator = w.x * g0.dot(g0) + w.y * g1.dot(g1) + w.z * g2.dot(g2) + alpha;
    if denominator <= 0.0 {
        return 0.0;
    }
    let d = (-c - alpha * lambda0) * params.over_relaxation / denominator;
    x[0] += g0 * (w.x * d);
    x[1] += g1 * (w.y * d);
    x[2] += g2 * (w.z * d);
    d
}

/// One thread of `solve_color` on a membrane triangle (and of the fused kernel's solve), twin
/// of `solve_triangle` in `shaders/common.wgsl`: `g` its frame ([`triangle_frame`]), `p` its
/// three particles (w: inverse mass), `alpha` the α̃ of its stretch and shear, `lambda` their
/// multipliers. Strain based dynamics (Müller et al. 2014), each constraint a step in turn:
///   stretch C = |(|f_u| − 1, |f_v| − 1)|,  shear C = f_u · f_v
/// (the cosine between warp and weft while they keep their length; the cosine proper has a
/// gradient that vanishes as a triangle shears flat, and its steps threw particles metres).
#[inline]
pub(crate) fn solve_triangle(
    params: &StepParams,
    g: Vec4,
    p: &mut [Vec4; 3],
    alpha: [f32; 2],
    lambda: [&mut f32; 2],
    first_sweep: bool,
) {
    let w = Vec3::new(p[0].w, p[1].w, p[2].w);
    let mut x = p.map(|q| q.xyz());
    let [stretch_lambda, shear_lambda] = lambda;
    let lambda0 = if first_sweep {
        [0.0, 0.0]
    } else {
        [*stretch_lambda, *shear_lambda]
    };
    let mut out = lambda0;
    let frame = |x: &[Vec3; 3]| {
        let (e1, e2) = (x[1] - x[0], x[2] - x[0]);
        (e1 * g.x + e2 * g.y, e1 * g.z + e2 * g.w)
    };
    let (fu, fv) = frame(&x);
    let (lu, lv) = (fu.length(), fv.length());
    let (su, sv) = (lu - 1.0, lv - 1.0);
    let stretch = (su * su + sv * sv).sqrt();
    if stretch > 1e-9 && lu > TRIANGLE_COLLAPSED && lv > TRIANGLE_COLLAPSED {
        let du = fu * (su / (stretch * lu));
        let dv = fv * (sv / (stretch * lv));
        out[0] += triangle_step(params, g, w, &mut x, du, dv, stretch, alpha[0], out[0]);
    }
    // Shear, from where the stretch left them.
    let (fu, fv) = frame(&x);
    let shear = fu.dot(fv);
    out[1] += triangle_step(params, g, w, &mut x, fv, fu, shear, alpha[1], out[1]);
    for (q, y) in p.iter_mut().zip(x) {
        *q = y.extend(q.w);
    }
    [*stretch_lambda, *shear_lambda] = out;
}

/// Three lanes of four: x, y and z of four vectors, one vector a lane.
#[derive(Clone, Copy)]
struct Lanes3 {
    x: Vec4,
    y: Vec4,
    z: Vec4,
}

impl Lanes3 {
    fn of(v: [Vec3; 4]) -> Self {
        Self {
            x: Vec4::new(v[0].x, v[1].x, v[2].x, v[3].x),
            y: Vec4::new(v[0].y, v[1].y, v[2].y, v[3].y),
            z: Vec4::new(v[0].z, v[1].z, v[2].z, v[3].z),
        }
    }

    fn lane(&self, k: usize) -> Vec3 {
        Vec3::new(self.x[k], self.y[k], self.z[k])
    }

    fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }

    fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }

    fn scale(self, s: Vec4) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }

    /// As glam's `Vec3::dot`: (x x') + (y y') + (z z'), in that order.
    fn dot(self, o: Self) -> Vec4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    fn select(mask: glam::BVec4A, a: Self, b: Self) -> Self {
        Self {
            x: Vec4::select(mask, a.x, b.x),
            y: Vec4::select(mask, a.y, b.y),
            z: Vec4::select(mask, a.z, b.z),
        }
    }
}

/// Each lane's square root (IEEE, as `f32::sqrt`).
fn sqrt4(v: Vec4) -> Vec4 {
    Vec4::from_array(v.to_array().map(f32::sqrt))
}

/// [`triangle_step`] in four lanes: where `mask` is false a lane is left as it was.
#[allow(clippy::too_many_arguments)]
fn triangle_step4(
    omega: Vec4,
    g: [Vec4; 4],
    w: [Vec4; 3],
    x: &mut [Lanes3; 3],
    du: Lanes3,
    dv: Lanes3,
    c: Vec4,
    alpha: Vec4,
    lambda: &mut Vec4,
    mask: glam::BVec4A,
) {
    let [gx, gy, gz, gw] = g;
    let g0 = du.scale(-(gx + gy)).add(dv.scale(-(gz + gw)));
    let g1 = du.scale(gx).add(dv.scale(gz));
    let g2 = du.scale(gy).add(dv.scale(gw));
    let denominator = w[0] * g0.dot(g0) + w[1] * g1.dot(g1) + w[2] * g2.dot(g2) + alpha;
    let positive = denominator.cmpgt(Vec4::ZERO);
    let moves = mask & positive;
    let d = (-c - alpha * *lambda) * omega / denominator;
    for (k, grad) in [g0, g1, g2].into_iter().enumerate() {
        let moved = x[k].add(grad.scale(w[k] * d));
        x[k] = Lanes3::select(moves, moved, x[k]);
    }
    // As the twin: Δλ is 0 where the denominator is not positive, and added where `mask`.
    let step = Vec4::select(positive, d, Vec4::ZERO);
    *lambda = Vec4::select(mask, *lambda + step, *lambda);
}

/// [`solve_triangle`] for four triangles at once, one a SIMD lane, with the same arithmetic
/// in the same order, so each lane's result is the one-at-a-time twin's to the bit
/// (`four_triangles_at_once_are_each_the_one_at_a_time_twin`): the CPU reference's membrane
/// was 1.6–1.8× the edges' frame one at a time, a chain of square roots and divisions.
pub(crate) fn solve_triangles4(
    params: &StepParams,
    g: [Vec4; 4],
    p: &mut [[Vec4; 3]; 4],
    alpha: [[f32; 2]; 4],
    lambda: &mut [[f32; 2]; 4],
    first_sweep: bool,
) {
    // Transposed: lane k is triangle k.
    let gl = [0, 1, 2, 3].map(|c| Vec4::new(g[0][c], g[1][c], g[2][c], g[3][c]));
    let [gx, gy, gz, gw] = gl;
    let w = [0, 1, 2].map(|v| Vec4::new(p[0][v].w, p[1][v].w, p[2][v].w, p[3][v].w));
    let mut x = [0, 1, 2].map(|v| Lanes3::of([0, 1, 2, 3].map(|t| p[t][v].xyz())));
    let omega = Vec4::splat(params.over_relaxation);
    let lanes = |f: &dyn Fn(usize) -> f32| Vec4::new(f(0), f(1), f(2), f(3));
    let alpha_stretch = lanes(&|t| alpha[t][0]);
    let alpha_shear = lanes(&|t| alpha[t][1]);
    let (mut stretch_lambda, mut shear_lambda) = if first_sweep {
        (Vec4::ZERO, Vec4::ZERO)
    } else {
        (lanes(&|t| lambda[t][0]), lanes(&|t| lambda[t][1]))
    };
    let frame = |x: &[Lanes3; 3]| {
        let (e1, e2) = (x[1].sub(x[0]), x[2].sub(x[0]));
        (
            e1.scale(gx).add(e2.scale(gy)),
            e1.scale(gz).add(e2.scale(gw)),
        )
    };
    let (fu, fv) = frame(&x);
    let (lu, lv) = (sqrt4(fu.dot(fu)), sqrt4(fv.dot(fv)));
    let (su, sv) = (lu - Vec4::ONE, lv - Vec4::ONE);
    let stretch = sqrt4(su * su + sv * sv);
    let both =
        lu.cmpgt(Vec4::splat(TRIANGLE_COLLAPSED)) & lv.cmpgt(Vec4::splat(TRIANGLE_COLLAPSED));
    let du = fu.scale(su / (stretch * lu));
    let dv = fv.scale(sv / (stretch * lv));
    let mask = stretch.cmpgt(Vec4::splat(1e-9)) & both;
    triangle_step4(
        omega,
        gl,
        w,
        &mut x,
        du,
        dv,
        stretch,
        alpha_stretch,
        &mut stretch_lambda,
        mask,
    );
    // Shear, from where the stretch left them.
    let (fu, fv) = frame(&x);
    let shear = fu.dot(fv);
    let all = glam::BVec4A::new(true, true, true, true);
    triangle_step4(
        omega,
        gl,
        w,
        &mut x,
        fv,
        fu,
        shear,
        alpha_shear,
        &mut shear_lambda,
        all,
    );
    for (t, (q, l)) in p.iter_mut().zip(lambda.iter_mut()).enumerate() {
        for (v, point) in q.iter_mut().enumerate() {
            *point = x[v].lane(t).extend(point.w);
        }
        *l = [stretch_lambda[t], shear_lambda[t]];
    }
}

/// Twin of `into_ball` in `shaders/common.wgsl`: the point nearest `x` within `r` of `c`.
#[inline]
pub(crate) fn into_ball(x: Vec3, c: Vec3, r: f32) -> Vec3 {
    let d = x - c;
    let len2 = d.dot(d);
    if len2 > r * r {
        c + d * (r / len2.sqrt())
    } else {
        x
    }
}

/// Twin of `tether_pull` in `shaders/common.wgsl`: `x` moved, by the tether stiffness, to the
/// nearest point within `tether_scale × rest` of both anchors `a` and `b`, found in closed form
/// (see the kernel for why not by pulls in turn).
#[inline]
pub(crate) fn tether_pull(
    params: &StepParams,
    x: Vec3,
    a: Vec3,
    rest_a: f32,
    b: Vec3,
    rest_b: f32,
) -> Vec3 {
    let ra = params.tether_scale * rest_a;
    let rb = params.tether_scale * rest_b;
    // Unilateral: a point already within both is left alone (pa == x).
    let pa = into_ball(x, a, ra);
    let mut nearest = pa;
    if (pa - b).dot(pa - b) > rb * rb {
        let pb = into_ball(x, b, rb);
        nearest = pb;
        if (pb - a).dot(pb - a) > ra * ra {
            nearest = lens_rim(x, a, ra, b, rb);
        }
    }
    x + (nearest - x) * params.tether_stiffness
}

/// Twin of `lens_rim` in `shaders/common.wgsl`: the point nearest `x` on the circle where the
/// spheres of radius `ra` about `a` and `rb` about `b` meet (where they do not, the point
/// between them on the line of centres).
#[inline]
pub(crate) fn lens_rim(x: Vec3, a: Vec3, ra: f32, b: Vec3, rb: f32) -> Vec3 {
    let ab = b - a;
    let d = ab.length();
    if d < 1e-9 {
        return into_ball(x, a, ra.min(rb));
    }
    let u = ab / d;
    // From the overlap, not from differences of squares (see the kernel).
    let overlap = ra + rb - d;
    let mut h = 0.5 * (d + ra - rb);
    let mut rho = 0.0;
    if overlap > 0.0 {
        let ra_minus_h = overlap * (rb + d - ra) / (2.0 * d);
        h = ra - ra_minus_h;
        rho = (ra_minus_h * (ra + h)).max(0.0).sqrt();
    }
    let xa = x - a;
    let off_axis = xa - u * xa.dot(u);
    let off_len = off_axis.length();
    let mut rim = a + u * h;
    if off_len > 1e-12 {
        rim += off_axis * (rho / off_len);
    }
    rim
}

/// Twin of `non_finite`: an infinity or a NaN, told from the exponent bits.
#[inline]
pub(crate) fn non_finite(v: f32) -> bool {
    v.to_bits() & 0x7f80_0000 == 0x7f80_0000
}

/// Twin of `is_bad` (`shaders/common.wgsl`): true when `x` is non-finite or farther than the
/// divergence limit from the scene's centre. Non-finite is told from the exponent bits, as the
/// kernel must (WGSL may assume floats are finite).
#[inline]
pub(crate) fn is_bad(params: &StepParams, x: glam::Vec3) -> bool {
    let center = Vec4::from_array(params.center);
    let d = x - center.xyz();
    non_finite(x.x) || non_finite(x.y) || non_finite(x.z) || d.dot(d) > center.w * center.w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frame-end sweeps' over-relaxed limit ([`LIMIT_END_RELAX`]) shortens an edge past the
    /// aim by 1.8 × its excess, but never below half its rest length: an edge at 3 × came out
    /// at −0.44 × (inside out), and a sheet without coarse levels diverged on them
    /// (`a_sheet_without_coarse_levels_lands_on_a_ball_without_diverging`). An edge up to 1.8 ×
    /// still takes the whole over-relaxed step.
    #[test]
    fn the_over_relaxed_limit_never_turns_an_edge_inside_out() {
        let (rest, aim) = (0.01f32, 1.09f32);
        let con = Constraint::new(0, 1, rest, crate::constraint::ConstraintKind::Structural);
        for stretch in [1.1f32, 1.15, 1.2, 1.5, 2.0, 3.0, 10.0] {
            let mut pi = Vec4::new(0.0, 0.0, 0.0, 1.0);
            let mut pj = Vec4::new(stretch * rest, 0.0, 0.0, 1.0);
            limit_pair(aim, LIMIT_END_RELAX, &con, &mut pi, &mut pj, (0.0, 0.0));
            let after = (pj.x - pi.x) / rest;
            let relaxed = aim - (LIMIT_END_RELAX - 1.0) * (stretch - aim);
            let want = relaxed.max(0.5);
            assert!(
                (after - want).abs() < 1e-4,
                "{stretch} × rest: {after} × after, not {want}"
            );
        }
    }

    /// [`solve_triangles4`] is four [`solve_triangle`]s to the bit, for triangles stretched,
    /// sheared, pinned (one corner, or all three: no step), collapsed (a warp of zero length:
    /// no shear step) and already at rest, with multipliers carried over or not.
    #[test]
    fn four_triangles_at_once_are_each_the_one_at_a_time_twin() {
        let rest = [
            Vec3::new(0.1, 1.0, 0.0),
            Vec3::new(1.2, 1.0, 0.3),
            Vec3::new(0.4, 1.0, 1.1),
        ];
        let layer = crate::geometry::UvLayer {
            uvs: rest.iter().map(|p| glam::Vec2::new(p.x, p.z)).collect(),
            triangles: vec![[0, 1, 2]],
        };
        let records = crate::geometry::membrane_triangles(&rest, &[[0, 1, 2]], Some(&layer)).0;
        let g = triangle_frame(&records[0], &records[1]);
        let mut seed = 0x1234_5678_u32;
        let mut noise = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32 - 0.5
        };
        for (round, first_sweep) in [(0, true), (1, false), (2, false)] {
            let mut p = [[Vec4::ZERO; 3]; 4];
            for (t, tri) in p.iter_mut().enumerate() {
                for (v, q) in tri.iter_mut().enumerate() {
                    let wobble = Vec3::new(noise(), noise(), noise()) * (0.3 * t as f32);
                    *q = (rest[v] + wobble).extend(0.5 + v as f32);
                }
            }
            if round == 1 {
                p[1][0].w = 0.0;
                p[2] = [p[2][0].with_w(0.0); 3].map(|q| q.with_w(0.0));
                p[3][1] = p[3][0];
            }
            let params = StepParams {
                over_relaxation: 1.0 + 0.2 * round as f32,
                ..Default::default()
            };
            let g4 = [g, g * 1.1, g, g * 0.9];
            let alpha = [[0.0, 0.0], [1e-3, 5.0], [0.0, 1e9], [2e-4, 0.0]];
            let mut lambda = [[0.1, -0.2], [0.0, 0.3], [0.05, 0.0], [-0.4, 0.2]];
            let mut one = p;
            let mut one_lambda = lambda;
            for t in 0..4 {
                let [a, b] = &mut one_lambda[t];
                solve_triangle(&params, g4[t], &mut one[t], alpha[t], [a, b], first_sweep);
            }
            solve_triangles4(&params, g4, &mut p, alpha, &mut lambda, first_sweep);
            for t in 0..4 {
                for v in 0..3 {
                    assert_eq!(
                        p[t][v].to_array().map(f32::to_bits),
                        one[t][v].to_array().map(f32::to_bits),
                        "round {round}, triangle {t}, vertex {v}"
                    );
                }
                assert_eq!(
                    lambda[t].map(f32::to_bits),
                    one_lambda[t].map(f32::to_bits),
                    "round {round}, triangle {t}"
                );
            }
        }
    }
}
