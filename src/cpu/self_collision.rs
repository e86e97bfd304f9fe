//! Twins of the self-collision kernels in `shaders/self_collision.wgsl`, one function per entry
//! point, same tables, same order of arithmetic. The integer passes (count, scan, scatter, sort)
//! give the very same table and buckets as the GPU's, bit for bit: the scatter's order differs
//! (the GPU's atomics race, here particles go in order), and the sort makes it the same.

use glam::{IVec3, Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::StepParams;

/// What one self-collision pass works on (the kernels' bindings 1–6).
pub struct SelfCollisionBuffers<'a> {
    /// Positions, inverse mass in w.
    pub positions: &'a mut [Vec4],
    /// Positions at the substep's start.
    pub previous: &'a [Vec4],
    /// Rest positions, each particle's cloth in w.
    pub rest: &'a [Vec4],
    /// Counts, starts and block sums ([`table_len`]).
    pub table: &'a mut [u32],
    /// Each particle's bucket, then the particles bucket by bucket.
    pub hash: &'a mut [u32],
    /// The positions after the pushes.
    pub moved: &'a mut [Vec4],
    /// The positions in bucket order.
    pub sorted: &'a mut [Vec4],
}

/// Twin of `starts`: where the table's bucket starts begin (after the counts).
fn starts(p: &StepParams) -> usize {
    p.hash_cells as usize
}

/// Twin of `sums`: where the table's block sums begin (after the starts and their end).
fn sums(p: &StepParams) -> usize {
    2 * p.hash_cells as usize + 1
}

/// Entries of the table for `cells` buckets scanned `workgroup` at a time.
pub fn table_len(cells: u32, workgroup: u32) -> usize {
    (2 * cells + 1 + cells / workgroup) as usize
}

fn bucket(p: &StepParams, c: IVec3) -> u32 {
    let h = (c.x as u32).wrapping_mul(73_856_093)
        ^ (c.y as u32).wrapping_mul(19_349_663)
        ^ (c.z as u32).wrapping_mul(83_492_791);
    h & (p.hash_cells - 1)
}

/// Twin of `cell_of`: cells twice the self-collision distance wide.
fn cell_of(p: &StepParams, x: Vec3) -> IVec3 {
    (x / (p.self_distance * 2.0))
        .floor()
        .clamp(Vec3::splat(-1.0e9), Vec3::splat(1.0e9))
        .as_ivec3()
}

/// Twin of `hash_clear`.
pub fn hash_clear(p: &StepParams, b: &mut SelfCollisionBuffers<'_>) {
    b.table[..p.hash_cells as usize].fill(0);
}

/// Twin of `hash_count`.
pub fn hash_count(p: &StepParams, b: &mut SelfCollisionBuffers<'_>) {
    let n = p.particle_count as usize;
    for i in 0..n {
        let k = bucket(p, cell_of(p, b.positions[i].xyz()));
        b.hash[i] = k;
        b.table[k as usize] += 1;
    }
}

/// Twin of `hash_scan_blocks`: exclusive starts within each block of `workgroup` counts, and
/// each block's total.
pub fn hash_scan_blocks(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    let cells = p.hash_cells as usize;
    let (counts, rest) = b.table.split_at_mut(cells);
    let (starts, sums) = rest.split_at_mut(cells + 1);
    let wg = workgroup as usize;
    for (block, counts) in counts.chunks(wg).enumerate() {
        let mut running = 0u32;
        for (k, &v) in counts.iter().enumerate() {
            starts[block * wg + k] = running;
            running += v;
        }
        sums[block] = running;
    }
}

/// Twin of `hash_scan_sums`: the block totals become exclusive block offsets.
pub fn hash_scan_sums(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    let cells = p.hash_cells as usize;
    let blocks = cells / workgroup as usize;
    let mut running = 0u32;
    for v in &mut b.table[sums(p)..][..blocks] {
        let total = *v;
        *v = running;
        running += total;
    }
}

/// Twin of `hash_scan_add`.
pub fn hash_scan_add(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    let cells = p.hash_cells as usize;
    for c in 0..cells {
        let offset = b.table[sums(p) + c / workgroup as usize];
        b.table[starts(p) + c] += offset;
        b.table[c] = 0;
    }
    b.table[starts(p) + cells] = p.particle_count;
}

/// Twin of `hash_scatter` (particles in order; the GPU's race, and `hash_sort` evens it out).
pub fn hash_scatter(p: &StepParams, b: &mut SelfCollisionBuffers<'_>) {
    let n = p.particle_count as usize;
    for i in 0..n {
        let k = b.hash[i] as usize;
        let slot = b.table[k];
        b.table[k] += 1;
        b.hash[n + (b.table[starts(p) + k] + slot) as usize] = i as u32;
    }
}

/// Twin of `hash_sort`.
pub fn hash_sort(p: &StepParams, b: &mut SelfCollisionBuffers<'_>) {
    let (n, cells) = (p.particle_count as usize, p.hash_cells as usize);
    for c in 0..cells {
        let (s, e) = (b.table[cells + c] as usize, b.table[cells + c + 1] as usize);
        b.hash[n + s..n + e].sort_unstable();
        for k in s..e {
            b.sorted[k] = b.positions[b.hash[n + k] as usize];
        }
    }
}

/// Twin of `pair_push`.
fn pair_push(p: &StepParams, previous: &[Vec4], i: usize, j: usize, pi: Vec4, pj: Vec4) -> Vec4 {
    let d = p.self_distance;
    let w_sum = pi.w + pj.w;
    if w_sum == 0.0 {
        return Vec4::ZERO;
    }
    let delta = pi.xyz() - pj.xyz();
    let dist2 = delta.dot(delta);
    if dist2 >= d * d {
        return Vec4::ZERO;
    }
    let start = previous[i].xyz() - previous[j].xyz();
    let mut n = Vec3::Y;
    let mut gap = dist2.sqrt();
    if delta.dot(start) < 0.0 && start.dot(start) > 1e-24 {
        n = start / start.length();
        gap = delta.dot(n);
    } else if gap > 1e-12 {
        n = delta / gap;
    } else if start.dot(start) > 1e-24 {
        n = start / start.length();
    }
    let depth = d - gap;
    let share = pi.w / w_sum;
    let mut push = n * (depth * share);
    let sliding = (pi.xyz() - previous[i].xyz()) - (pj.xyz() - previous[j].xyz());
    let tangential = sliding - n * sliding.dot(n);
    let slide = tangential.length();
    let grip = p.self_friction * depth;
    if slide > 0.0 {
        push -= tangential * ((grip / slide).min(1.0) * share);
    }
    push.extend(1.0)
}

/// Twin of `self_collide`, one particle per rayon item.
pub fn self_collide(p: &StepParams, b: &mut SelfCollisionBuffers<'_>) {
    let (n, cells) = (p.particle_count as usize, p.hash_cells as usize);
    let (positions, previous, rest, table, hash, sorted) = (
        &*b.positions,
        b.previous,
        b.rest,
        &*b.table,
        &*b.hash,
        &*b.sorted,
    );
    b.moved[..n]
        .par_iter_mut()
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(i, out)| {
            let pi = positions[i];
            *out = pi;
            if pi.w == 0.0 {
                return;
            }
            let d = p.self_distance;
            let h = d * 2.0;
            let home = cell_of(p, pi.xyz());
            let inside = pi.xyz() - home.as_vec3() * h;
            // A ball of radius d reaches, along each axis, the particle's own cell (2d wide)
            // and the one beside its nearer half: 8 cells.
            let side = IVec3::new(
                if inside.x < d { -1 } else { 0 },
                if inside.y < d { -1 } else { 0 },
                if inside.z < d { -1 } else { 0 },
            );
            let mut total = Vec3::ZERO;
            let mut touching = 0.0f32;
            for k in 0..8i32 {
                let o = side + IVec3::new(k % 2, (k / 2) % 2, k / 4);
                let gap = (o.as_vec3() * h - inside)
                    .max(inside - (o + IVec3::ONE).as_vec3() * h)
                    .max(Vec3::ZERO);
                if gap.dot(gap) >= d * d {
                    continue;
                }
                let c = home + o;
                let bk = bucket(p, c) as usize;
                let (s, e) = (table[cells + bk] as usize, table[cells + bk + 1] as usize);
                for (&j, &pj) in hash[n + s..n + e].iter().zip(&sorted[s..e]) {
                    let j = j as usize;
                    if j == i {
                        continue;
                    }
                    let delta = pi.xyz() - pj.xyz();
                    if delta.dot(delta) >= d * d {
                        continue;
                    }
                    let (ri, rj) = (rest[i], rest[j]);
                    if ri.w == rj.w && ri.xyz().distance(rj.xyz()) < d {
                        continue;
                    }
                    let push = pair_push(p, previous, i, j, pi, pj);
                    total += push.xyz();
                    touching += push.w;
                }
            }
            if touching > 0.0 {
                *out = (pi.xyz() + total / touching).extend(pi.w);
            }
        });
}

/// Twin of `self_apply`.
pub fn self_apply(p: &StepParams, b: &mut SelfCollisionBuffers<'_>) {
    let n = p.particle_count as usize;
    b.positions[..n].copy_from_slice(&b.moved[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells' gap test skipped cells below a particle that its ball reaches (it measured
    /// the gap to a lower cell from the wrong face): with cells twice the distance wide, every
    /// neighbour in the lower cell on any axis went unseen. Every particle's pushes must be
    /// those of every particle within the distance, found by testing all pairs.
    #[test]
    fn the_hash_finds_every_pair_within_the_distance() {
        let n = 3000usize;
        let d = 0.02f32;
        // A deterministic scatter in a 0.25 m box: about 6 particles within d of each.
        let mut seed = 12345u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        let positions: Vec<Vec4> = (0..n)
            .map(|_| Vec4::new(next() * 0.25 - 0.1, next() * 0.25, next() * 0.25 - 0.3, 1.0))
            .collect();
        // Each particle its own cloth: no pair is excluded as neighbours at rest.
        let rest: Vec<Vec4> = (0..n).map(|i| Vec4::new(0.0, 0.0, 0.0, i as f32)).collect();
        let previous = positions.clone();
        let cells = crate::world::hash_cells(n as u32);
        let wg = 64;
        let p = StepParams {
            particle_count: n as u32,
            self_distance: d,
            hash_cells: cells,
            ..StepParams::default()
        };
        let (mut pos, mut table, mut hash) = (
            positions.clone(),
            vec![0u32; table_len(cells, wg)],
            vec![0u32; 2 * n],
        );
        let (mut moved, mut sorted) = (vec![Vec4::ZERO; n], vec![Vec4::ZERO; n]);
        let mut b = SelfCollisionBuffers {
            positions: &mut pos,
            previous: &previous,
            rest: &rest,
            table: &mut table,
            hash: &mut hash,
            moved: &mut moved,
            sorted: &mut sorted,
        };
        hash_clear(&p, &mut b);
        hash_count(&p, &mut b);
        hash_scan_blocks(&p, wg, &mut b);
        hash_scan_sums(&p, wg, &mut b);
        hash_scan_add(&p, wg, &mut b);
        hash_scatter(&p, &mut b);
        hash_sort(&p, &mut b);
        self_collide(&p, &mut b);
        let mut pairs = 0;
        for i in 0..n {
            let (mut total, mut touching) = (Vec3::ZERO, 0.0f32);
            for j in (0..n).filter(|&j| j != i) {
                let push = pair_push(&p, &previous, i, j, positions[i], positions[j]);
                total += push.xyz();
                touching += push.w;
            }
            pairs += touching as usize;
            let want = if touching > 0.0 {
                positions[i].xyz() + total / touching
            } else {
                positions[i].xyz()
            };
            let got = moved[i].xyz();
            assert!(
                got.distance(want) < 1e-6,
                "particle {i}: pushed to {got}, its {touching} neighbours push it to {want}"
            );
        }
        assert!(pairs > 5 * n, "only {pairs} pairs: the test scatters too thinly");
    }
}
