//! Every WGSL file in `shaders/` parses and validates with naga (no GPU needed), and every
//! file there is in the registry.

use std::collections::BTreeSet;

use chiffon::config::GPU_STRUCTS;
use chiffon::gpu::shaders::{ALL, COLLIDERS, COMMON, PARTICLES};

fn validate(name: &str, source: &str) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{name} does not validate:\n{}", e.emit_to_string(source)));
}

#[test]
fn every_registered_shader_validates() {
    validate("common.wgsl", COMMON);
    for file in ALL {
        validate(file.file, &file.source());
        for entry in file.entry_points.split(',') {
            assert!(
                file.text.contains(&format!("fn {}(", entry.trim())),
                "{} does not define entry point {entry}",
                file.file
            );
        }
    }
}

#[test]
fn every_wgsl_file_is_registered() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/shaders");
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    let mut registered: BTreeSet<String> = ALL.iter().map(|f| f.file.to_string()).collect();
    registered.insert("common.wgsl".into());
    registered.insert("colliders.wgsl".into());
    registered.insert("particles.wgsl".into());
    registered.insert("levels.wgsl".into());
    let missing: Vec<_> = on_disk.difference(&registered).collect();
    assert!(
        missing.is_empty(),
        "shaders not in src/gpu/shaders.rs: {missing:?}"
    );
    let gone: Vec<_> = registered.difference(&on_disk).collect();
    assert!(
        gone.is_empty(),
        "registered shaders missing from shaders/: {gone:?}"
    );
}

#[test]
fn a_broken_shader_is_rejected() {
    // The validator must be able to fail, or the tests above prove nothing.
    let broken = format!("{COMMON}\nfn f() -> f32 {{ return vec3<f32>(1.0); }}");
    let module = naga::front::wgsl::parse_str(&broken).unwrap();
    let result = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module);
    assert!(result.is_err());
}

/// A WGSL struct as naga lays it out: name, size, and (field, offset) in order.
type WgslLayout = (String, u32, Vec<(String, u32)>);

/// Every struct of every WGSL file, as naga lays it out.
fn wgsl_layouts() -> Vec<WgslLayout> {
    let mut out = Vec::new();
    for (name, full) in std::iter::once(("common.wgsl".to_string(), COMMON.to_string()))
        .chain(ALL.iter().map(|f| (f.file.to_string(), f.source())))
    {
        // Each kernel with its prelude, so the shared types resolve.
        let module = naga::front::wgsl::parse_str(&full)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&full)));
        for (_, ty) in module.types.iter() {
            if let (Some(name), naga::TypeInner::Struct { members, span }) = (&ty.name, &ty.inner) {
                let fields = members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                    .collect();
                if !out.iter().any(|(n, _, _): &WgslLayout| n == name) {
                    out.push((name.clone(), *span, fields));
                }
            }
        }
    }
    out
}

#[test]
fn shared_structs_match_their_rust_twins() {
    let wgsl = wgsl_layouts();
    for twin in GPU_STRUCTS {
        let (_, size, fields) = wgsl
            .iter()
            .find(|(n, _, _)| n == twin.name)
            .unwrap_or_else(|| panic!("{} is in GPU_STRUCTS but in no WGSL file", twin.name));
        let rust: Vec<(String, u32)> = twin
            .fields
            .iter()
            .map(|(n, o)| (n.to_string(), *o as u32))
            .collect();
        assert_eq!(
            &rust, fields,
            "{}: Rust fields/offsets differ from the WGSL struct",
            twin.name
        );
        assert_eq!(*size as usize, twin.size, "{}: size differs", twin.name);
    }
    // Every struct the solver kernels declare in the shared files has a Rust twin listed
    // (colliders.wgsl reads tables its kernels declare: parse it inside one).
    let collide = ALL.iter().find(|f| f.file == "collide.wgsl").unwrap();
    assert!(collide.source().contains(COLLIDERS));
    let shared = naga::front::wgsl::parse_str(&collide.source()).unwrap();
    // Values the kernels pass between functions, never stored in a buffer.
    let kernel_only = [
        "Pose",
        "Contact",
        "GridCell",
        "Solved",
        "SolvedStencil",
        "SolvedTriangle",
        "TriangleStep",
        "Limited",
    ];
    for (_, ty) in shared.types.iter() {
        if let (Some(name), naga::TypeInner::Struct { members, .. }) = (&ty.name, &ty.inner) {
            // An entry point's builtins (`Thread`) come from the device, never from a buffer.
            let builtins = members
                .iter()
                .all(|m| matches!(m.binding, Some(naga::Binding::BuiltIn(_))));
            if kernel_only.contains(&name.as_str()) || builtins {
                continue;
            }
            assert!(
                GPU_STRUCTS.iter().any(|t| t.name == name),
                "{name} in common.wgsl or colliders.wgsl has no Rust twin in config::GPU_STRUCTS"
            );
        }
    }
}

#[test]
fn a_field_added_on_one_side_is_caught() {
    // The comparison above must be able to fail: add a field to the WGSL StepParams only.
    let grown = COMMON.replace(
        "    particle_count: u32,\n",
        "    particle_count: u32,\n    extra: f32,\n",
    );
    assert_ne!(grown, COMMON, "the edit did not apply");
    let module = naga::front::wgsl::parse_str(&grown).unwrap();
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("StepParams"))
        .unwrap();
    let naga::TypeInner::Struct { members, .. } = &ty.inner else {
        panic!("StepParams is not a struct");
    };
    let twin = GPU_STRUCTS.iter().find(|t| t.name == "StepParams").unwrap();
    assert_ne!(members.len(), twin.fields.len());
}

/// The value of `const NAME: TYPE = VALUE;` in `text`, the shader file `file` (without a `u`
/// suffix).
fn const_in(file: &str, text: &str, name: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("const {name}:")))
        .unwrap_or_else(|| panic!("{file} has no const {name}"));
    let value = line.split('=').nth(1).unwrap().trim().trim_end_matches(';');
    value.trim_end_matches('u').to_string()
}

/// The value of `const NAME: TYPE = VALUE;` in common.wgsl.
fn wgsl_const(name: &str) -> String {
    const_in("common.wgsl", COMMON, name)
}

/// Fails the test unless common.wgsl's `const NAME` is `value`.
#[track_caller]
fn assert_wgsl_const<T>(name: &str, value: T)
where
    T: std::str::FromStr + PartialEq + std::fmt::Debug,
    T::Err: std::fmt::Debug,
{
    assert_eq!(wgsl_const(name).parse::<T>().unwrap(), value, "{name}");
}

#[test]
fn the_shaders_constants_are_the_librarys() {
    assert_wgsl_const("LIMIT_KIND", chiffon::constraint::LIMIT_KIND);
    assert_wgsl_const("TETHER_SLOTS", chiffon::config::TETHER_SLOTS);
    assert_wgsl_const("CLOTH_RECORD_ROWS", chiffon::config::CLOTH_RECORD_ROWS);
    assert_wgsl_const("PROLONG_ROWS", chiffon::config::PROLONG_ROWS);
    assert_wgsl_const("STOPPED_EARLY", chiffon::config::Health::STOPPED_EARLY);
    assert_wgsl_const("PIN_TO", chiffon::config::PIN_TO);
    assert_wgsl_const("PIN_MOVING", chiffon::config::PIN_MOVING);
    assert_wgsl_const("LIMIT_END_RELAX", chiffon::config::LIMIT_END_RELAX);
    assert_wgsl_const("ESCAPE_SPEED", chiffon::config::ESCAPE_SPEED);
    // The gusts' lattice mask, declared in the air kernels' own file.
    let gust = chiffon::gpu::shaders::AIR
        .text
        .lines()
        .find_map(|l| l.strip_prefix("const GUST_CELLS: u32 = "))
        .expect("air.wgsl declares GUST_CELLS");
    assert_eq!(
        gust.trim_end_matches(';')
            .trim_end_matches('u')
            .parse::<u32>()
            .unwrap(),
        chiffon::config::GUST_CELLS
    );
    // The collider table's rows: a record's, and those of the fields the culling reads.
    assert_eq!(
        colliders_const("COLLIDER_ROWS"),
        chiffon::config::COLLIDER_ROWS as usize
    );
    use chiffon::config::ColliderRecord;
    for (name, offset) in [
        (
            "ROW_MATERIAL",
            std::mem::offset_of!(ColliderRecord, material),
        ),
        (
            "ROW_BOUND_FROM_A",
            std::mem::offset_of!(ColliderRecord, bound_from_a),
        ),
        (
            "ROW_BOUND_FROM_B",
            std::mem::offset_of!(ColliderRecord, bound_from_b),
        ),
        (
            "ROW_BOUND_TO_A",
            std::mem::offset_of!(ColliderRecord, bound_to_a),
        ),
        (
            "ROW_BOUND_TO_B",
            std::mem::offset_of!(ColliderRecord, bound_to_b),
        ),
    ] {
        assert_eq!(colliders_const(name), offset / 16, "{name}");
    }
    assert_eq!(
        const_in("colliders.wgsl", COLLIDERS, "DISTANCE_SLOPE_BOUND")
            .parse::<f32>()
            .unwrap(),
        chiffon::config::DISTANCE_SLOPE_BOUND
    );
    // The edge contacts' triangle table and pushes.
    let edges = |name| {
        const_in(
            "collide_edges.wgsl",
            chiffon::gpu::shaders::COLLIDE_EDGES.text,
            name,
        )
        .parse::<usize>()
        .unwrap()
    };
    assert_eq!(
        edges("TRIANGLE_HEADER"),
        chiffon::config::EDGE_TABLE_HEADER_WORDS
    );
    assert_eq!(edges("EDGE_PUSH_ROWS"), chiffon::config::EDGE_PUSH_ROWS);
}

/// The value of `const NAME: u32 = VALUE;` in colliders.wgsl.
fn colliders_const(name: &str) -> usize {
    const_in("colliders.wgsl", COLLIDERS, name).parse().unwrap()
}

/// The fused kernel's workgroup variables besides its cloth's particles fit what the host
/// reserves for them. Chromium refused the pipeline when the sleep reduction's variables took
/// 64 bytes past the adapter's limit (native drivers did not check).
#[test]
fn the_fused_kernels_other_workgroup_memory_fits_what_the_host_reserves() {
    let source = chiffon::gpu::shaders::SOLVE_CLOTHS.source();
    let module = naga::front::wgsl::parse_str(&source).unwrap();
    let mut bytes = 0u64;
    let mut names = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let name = var.name.clone().unwrap_or_default();
        if var.space != naga::AddressSpace::WorkGroup || name == "cloth_x" {
            continue;
        }
        // WebGPU counts each variable rounded up to 16 bytes.
        let size = module.types[var.ty].inner.size(module.to_ctx()) as u64;
        bytes += size.next_multiple_of(16);
        names.push(name);
    }
    assert!(
        !names.is_empty(),
        "the fused kernel has no other workgroup variables"
    );
    assert!(
        bytes <= chiffon::config::FUSED_WORKGROUP_RESERVED,
        "{names:?} take {bytes} bytes; FUSED_WORKGROUP_RESERVED is {}",
        chiffon::config::FUSED_WORKGROUP_RESERVED
    );
}

/// The `fn` names a text defines (WGSL or Rust: both spell a function `fn name(`, or
/// `fn name<` for a generic Rust one).
fn functions(text: &str) -> BTreeSet<String> {
    text.split("fn ")
        .skip(1)
        .filter_map(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let after = rest[name.len()..].chars().next();
            (!name.is_empty() && matches!(after, Some('(') | Some('<'))).then_some(name)
        })
        .collect()
}

/// The fused kernel's functions that only read its table's rows, its storage or workgroup
/// memory, or wait at a barrier: the CPU twin indexes its slices instead, so they have no twin.
const FUSED_ACCESSORS: &[&str] = &[
    "cloth_record",
    "fused_level",
    "fused_node",
    "fused_prolongation",
    "snapshot_index",
    "tether_slots",
    "fused_color",
    "load_x",
    "store_x",
    "sync",
];

/// Self-collision's functions that only work in workgroup memory between barriers: the CPU twin
/// sums in a loop instead, so they have no twin.
const SELF_COLLISION_ACCESSORS: &[&str] = &["scan_workgroup"];

/// `shaders/NAME.wgsl` ↔ `src/cpu/NAME.rs`: every function of every kernel file (but the fused
/// kernel's accessors above) has a Rust function of its name in its twin's file, so the two
/// read side by side. `render.wgsl` draws, and has no CPU twin.
#[test]
fn every_kernel_function_has_a_twin_of_its_name() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut missing = Vec::new();
    for file in ALL {
        let name = file.file.trim_end_matches(".wgsl");
        if name == "render" {
            continue;
        }
        let twin_path = format!("{root}/src/cpu/{name}.rs");
        let twin = std::fs::read_to_string(&twin_path)
            .unwrap_or_else(|e| panic!("{}: no twin at {twin_path}: {e}", file.file));
        let twins = functions(&twin);
        let accessors = match name {
            "solve_cloths" => FUSED_ACCESSORS,
            "self_collision" => SELF_COLLISION_ACCESSORS,
            _ => &[],
        };
        for f in functions(file.text) {
            if !accessors.contains(&f.as_str()) && !twins.contains(&f) {
                missing.push(format!(
                    "{}: fn {f} has no twin in src/cpu/{name}.rs",
                    file.file
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    // And the accessors are still there: an entry for a function that is gone is stale.
    for (list, file) in [
        (FUSED_ACCESSORS, chiffon::gpu::shaders::SOLVE_CLOTHS),
        (
            SELF_COLLISION_ACCESSORS,
            chiffon::gpu::shaders::SELF_COLLISION,
        ),
    ] {
        let defined = functions(file.text);
        for a in list {
            assert!(
                defined.contains(*a),
                "an accessor list names {a}, which {} does not define",
                file.file
            );
        }
    }
}

#[test]
fn the_twin_check_sees_a_function_without_a_twin() {
    // The check must be able to fail: a WGSL helper the Rust text does not define is found.
    let wgsl = functions("fn a(x: f32) -> f32 { return x; }\nfn b_c(y: u32) {}");
    let rust = functions("pub fn a(x: f32) -> f32 { x }\nfn generic<T>(t: T) {}");
    assert_eq!(wgsl, ["a", "b_c"].map(String::from).into());
    assert_eq!(rust, ["a", "generic"].map(String::from).into());
    assert!(!rust.contains("b_c"));
}

/// The preludes' functions that only reach into a kernel's storage or its thread grid: the
/// CPU indexes its slices and loops instead, so they have no twin.
const PRELUDE_ACCESSORS: &[&str] = &[
    "thread_index",
    "free_particle",
    "collider",
    "collider_row",
    "cell_word",
];

/// The preludes' functions of pipeline constants alone, which choose what a pipeline is
/// compiled with (`kind_compiled`: the shape kinds of a frame's colliders): the CPU twin takes
/// every arm there is, so they have no twin.
const PRELUDE_SPECIALIZATIONS: &[&str] = &["kind_compiled"];

/// `shaders/common.wgsl`, `shaders/particles.wgsl` and `shaders/colliders.wgsl`, prepended to
/// the kernels, are twinned like the kernels: every one of their functions but the accessors
/// and specializations above has a Rust function of its name in the same-named file under `src/cpu/`
/// (`particles.wgsl` has only accessors, and so no twin file; `levels.wgsl` only bindings).
#[test]
fn every_prelude_function_has_a_twin_of_its_name() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut missing = Vec::new();
    for (file, text) in [
        ("common", COMMON),
        ("particles", PARTICLES),
        ("colliders", COLLIDERS),
    ] {
        let rust = std::fs::read_to_string(format!("{root}/src/cpu/{file}.rs")).unwrap_or_default();
        let twins = functions(&rust);
        for f in functions(text) {
            let mut exempt = PRELUDE_ACCESSORS.iter().chain(PRELUDE_SPECIALIZATIONS);
            if !exempt.any(|a| *a == f) && !twins.contains(&f) {
                missing.push(format!(
                    "{file}.wgsl: fn {f} has no twin in src/cpu/{file}.rs"
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    // And the accessors are still there: an entry for a function that is gone is stale.
    let preludes = functions(&format!("{COMMON}\n{PARTICLES}\n{COLLIDERS}"));
    for a in PRELUDE_ACCESSORS.iter().chain(PRELUDE_SPECIALIZATIONS) {
        assert!(
            preludes.contains(*a),
            "{a} is exempt from a twin, but no prelude defines it"
        );
    }
}
