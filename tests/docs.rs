//! The Markdown documentation stays compiled: every page of `docs/` is one of the doc-test
//! items of `src/doctests.rs`, so `cargo test --doc` builds and runs its Rust blocks.

use std::path::Path;

#[test]
fn every_docs_page_is_doc_tested() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = std::fs::read_to_string(root.join("src/doctests.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && !listed.contains(&format!("include_str!(\"../docs/{name}\")")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "docs pages missing from src/doctests.rs (add an item for each): {missing:?}"
    );
    assert!(listed.contains("include_str!(\"../README.md\")"));
}
