//! The table the box-edge contact kernels read (`shaders/collide_edges.wgsl`, CPU twin
//! `src/cpu/collide_edges.rs`): the triangles of a world's global cloths and, for each
//! particle, the triangles it is a corner of (a CSR list), in one `u32` array.
//!
//! | words | what |
//! | --- | --- |
//! | 0 | triangles T |
//! | 1 | particles N |
//! | 2 … 2 + N | particle p's triangles are `incident[offsets[p]..offsets[p + 1]]` |
//! | then 3T | `incident`: triangle indices |
//! | then 3T | the triangles: three particle indices each |
//!
//! Particles alone cannot keep a box's corner or edge out of the cloth: one sharper than the
//! spacing slips between them and pokes through a triangle; nor a capsule thinner than about
//! the spacing. So each substep, after the particles collide, every triangle finds the
//! deepest point of any box edge (its ends are the corners) or thin capsule's axis on its
//! wrong side, and its three particles move it out (`edge_contacts`, one thread per
//! triangle); then each particle takes the largest of its triangles' pushes
//! (`apply_edge_contacts`, one thread per particle, so no two threads write one particle).

use crate::config::EDGE_TABLE_HEADER_WORDS as HEADER_WORDS;

/// The table for `particles` particles and the triangles of `cloths` (each its triangles and
/// the index of its first particle).
pub(crate) fn triangle_table<'a>(
    particles: usize,
    cloths: impl IntoIterator<Item = (u32, &'a [[u32; 3]])>,
) -> Vec<u32> {
    let triangles: Vec<[u32; 3]> = cloths
        .into_iter()
        .flat_map(|(offset, t)| t.iter().map(move |t| t.map(|i| i + offset)))
        .collect();
    let mut counts = vec![0u32; particles + 1];
    for t in &triangles {
        for &i in t {
            counts[i as usize + 1] += 1;
        }
    }
    for p in 0..particles {
        counts[p + 1] += counts[p];
    }
    let offsets = counts;
    let mut cursor = offsets.clone();
    let mut incident = vec![0u32; 3 * triangles.len()];
    for (k, t) in triangles.iter().enumerate() {
        for &i in t {
            incident[cursor[i as usize] as usize] = k as u32;
            cursor[i as usize] += 1;
        }
    }
    let mut table = Vec::with_capacity(HEADER_WORDS + offsets.len() + 6 * triangles.len());
    table.push(triangles.len() as u32);
    table.push(particles as u32);
    table.extend_from_slice(&offsets);
    table.extend_from_slice(&incident);
    table.extend(triangles.iter().flatten());
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_particle_lists_the_triangles_it_is_a_corner_of() {
        let a: &[[u32; 3]] = &[[0, 1, 2], [1, 3, 2]];
        let b: &[[u32; 3]] = &[[0, 1, 2]];
        let table = triangle_table(7, [(0, a), (4, b)]);
        assert_eq!(&table[..2], &[3, 7]);
        let offsets = &table[2..10];
        let incident = &table[10..19];
        let triangles = &table[19..];
        assert_eq!(triangles, &[0, 1, 2, 1, 3, 2, 4, 5, 6]);
        let of = |p: usize| &incident[offsets[p] as usize..offsets[p + 1] as usize];
        assert_eq!(of(0), &[0]);
        assert_eq!(of(1), &[0, 1]);
        assert_eq!(of(2), &[0, 1]);
        assert_eq!(of(3), &[1]);
        assert_eq!(of(5), &[2]);
    }
}
