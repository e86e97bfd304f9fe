//! Twin of `snapshot_nodes` in `shaders/snapshot.wgsl`.

use glam::Vec4;
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::ColorRange;

/// Copies the position of every coarse-level particle (`nodes`, the hierarchy's snapshot
/// slots) into `snapshot`, before the coarsest level is solved: prolongation moves the other
/// particles by how far these move from here.
///
/// # Panics
/// When `range` is not `0..nodes.len()` of `snapshot`'s length.
pub fn snapshot_nodes(
    range: &ColorRange,
    nodes: &[u32],
    positions: &[Vec4],
    snapshot: &mut [Vec4],
) {
    let n = range.count as usize;
    assert!(
        range.start == 0 && n <= nodes.len() && n <= snapshot.len(),
        "snapshot: range {range:?} for {} nodes",
        nodes.len()
    );
    snapshot[..n]
        .par_iter_mut()
        .zip(&nodes[..n])
        .with_min_len(MIN_PER_TASK)
        .for_each(|(s, &p)| *s = positions[p as usize]);
}
