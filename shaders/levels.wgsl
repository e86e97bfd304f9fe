// The bindings of the hierarchy's two kernels, `snapshot_nodes` and `prolong`, which share one
// bind group layout. Prepended after common.wgsl to both.

@group(0) @binding(0) var<uniform> range: ColorRange;                      // prolong: this level's entries; snapshot: slots 0..count
@group(0) @binding(1) var<storage, read> nodes: array<u32>;                 // slot → particle
@group(0) @binding(2) var<storage, read> prolongations: array<Prolongation>;
@group(0) @binding(3) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(4) var<storage, read_write> snapshot: array<vec4<f32>>;
