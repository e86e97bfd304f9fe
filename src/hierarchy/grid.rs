//! A grid cloth's coarse levels: subgrids, every [`FIRST_STRIDE`]th column and row, then every
//! other one, each particle a level drops following its cell bilinearly.

use super::*;

/// The coarse levels of a grid cloth, finest first.
///
/// The first level keeps every [`FIRST_STRIDE`]th column and row of the cloth, each further
/// level every other one of the level below, always with the first and the last (so the
/// cloth's edges and corner pins are on every level), until fewer than
/// [`MIN_LEVEL_PARTICLES`] would remain. A level's limits join neighbouring columns and
/// rows (not diagonals) at their distance over the grid; a dropped particle follows the (up
/// to four) particles of the cell around it bilinearly.
pub(super) fn grid_levels(
    cloth: &Cloth,
    grid: crate::cloth::GridShape,
    max_levels: usize,
) -> Vec<Built> {
    let columns = grid.columns as usize;
    let index = |x: u32, y: u32| y as usize * columns + x as usize;
    // The mass each particle stands for: its own, then at each level its own plus its
    // share of the particles it drops (their prolongation weights), as HPBD has it. A
    // limit splits its correction in that ratio.
    let mut mass: Vec<f64> = cloth
        .free_inverse_masses()
        .iter()
        .map(|&w| 1.0 / w as f64)
        .collect();
    let mut xs: Vec<u32> = (0..grid.columns).collect();
    let mut ys: Vec<u32> = (0..grid.rows).collect();
    let grids = level_grids(grid, max_levels);
    // Per level, finest first: its particles, its limits, and the prolongation (particle,
    // parents as particles with weights) of the particles it drops.
    let mut built: Vec<Built> = Vec::new();
    for (cx, cy) in grids {
        // Dropped particles of the finer level: bilinear in the cell around them.
        let mut follows = Vec::new();
        for &y in &ys {
            for &x in &xs {
                let (fx, fy) = (bracket(&cx, x), bracket(&cy, y));
                if fx.len() == 1 && fy.len() == 1 {
                    continue;
                }
                let mut parents = Vec::with_capacity(PARENTS);
                for &(px, wx) in &fx {
                    for &(py, wy) in &fy {
                        parents.push((index(px, py) as u32, wx * wy));
                    }
                }
                let k = index(x, y);
                for &(p, w) in &parents {
                    mass[p as usize] += w as f64 * mass[k];
                }
                follows.push((k as u32, parents));
            }
        }
        // Limits to the next column and the next row. Not the cells' diagonals: rigid
        // diagonal limits lock a coarse cell against the shear a hanging cloth folds into,
        // and measured on the standard scene (600 Hz) they made the stretch worse (256²:
        // mean 1.0026 → 1.0015, p99 1.029 → 1.012 without them) while doubling the colors.
        let mut limits = Vec::new();
        let mut join = |(ax, ay): (u32, u32), (bx, by): (u32, u32)| {
            let (a, b) = (index(ax, ay), index(bx, by));
            let (dx, dy) = (bx.abs_diff(ax) as f32, by.abs_diff(ay) as f32);
            let (ma, mb) = (mass[a], mass[b]);
            limits.push(limit(
                a as u32,
                b as u32,
                grid.spacing * (dx * dx + dy * dy).sqrt(),
                (mb / (ma + mb)) as f32,
            ));
        };
        for (r, &y) in cy.iter().enumerate() {
            for (c, &x) in cx.iter().enumerate() {
                if let Some(&x1) = cx.get(c + 1) {
                    join((x, y), (x1, y));
                }
                if let Some(&y1) = cy.get(r + 1) {
                    join((x, y), (x, y1));
                }
            }
        }
        let particles = cy
            .iter()
            .flat_map(|&y| cx.iter().map(move |&x| index(x, y) as u32))
            .collect();
        built.push((particles, limits, follows));
        (xs, ys) = (cx, cy);
    }
    built
}

/// The columns and rows each coarse level of `grid` keeps, finest first (at most `max_levels`,
/// capped at [`MAX_LEVELS`]): every [`FIRST_STRIDE`]th, then every other one, with the first
/// and the last, until fewer than [`MIN_LEVEL_PARTICLES`] would remain.
pub(super) fn level_grids(
    grid: crate::cloth::GridShape,
    max_levels: usize,
) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut xs: Vec<u32> = (0..grid.columns).collect();
    let mut ys: Vec<u32> = (0..grid.rows).collect();
    let mut out: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    while out.len() < max_levels.min(MAX_LEVELS) {
        let stride = if out.is_empty() { FIRST_STRIDE } else { 2 };
        let (cx, cy) = (every_nth(&xs, stride), every_nth(&ys, stride));
        if cx.len() * cy.len() < MIN_LEVEL_PARTICLES || (cx == xs && cy == ys) {
            break;
        }
        (xs, ys) = (cx.clone(), cy.clone());
        out.push((cx, cy));
    }
    out
}

/// The limits of a grid's levels: along each level's columns and rows.
pub(crate) fn grid_limit_count(grid: crate::cloth::GridShape) -> usize {
    level_grids(grid, MAX_LEVELS)
        .iter()
        .map(|(cx, cy)| (cx.len() - 1) * cy.len() + cx.len() * (cy.len() - 1))
        .sum()
}

/// Every `stride`th entry of a sorted line of columns (or rows), always with the last.
pub(super) fn every_nth(line: &[u32], stride: usize) -> Vec<u32> {
    let mut out: Vec<u32> = line.iter().copied().step_by(stride).collect();
    if let Some(&last) = line.last()
        && out.last() != Some(&last)
    {
        out.push(last);
    }
    out
}

/// Where `x` falls among the coarse columns `coarse`: itself with weight 1 when it is one,
/// else the two around it, weighted linearly by distance.
pub(super) fn bracket(coarse: &[u32], x: u32) -> Vec<(u32, f32)> {
    match coarse.binary_search(&x) {
        Ok(_) => vec![(x, 1.0)],
        Err(k) => {
            let (a, b) = (coarse[k - 1], coarse[k]);
            let t = (x - a) as f32 / (b - a) as f32;
            vec![(a, 1.0 - t), (b, t)]
        }
    }
}
