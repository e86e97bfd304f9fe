//! Every WGSL file in `shaders/` parses and validates with naga (no GPU needed), and every
//! file there is in the registry.

use std::collections::BTreeSet;

use chiffon::gpu::shaders::{ALL, COMMON};

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
