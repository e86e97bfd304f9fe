//! The library's modules form layers with no cycle, in the order `docs/architecture.md` lists
//! them (bottom first): this test reads every `crate::` and `super::` path in `src/` and fails on
//! an import from a higher layer, on a cycle, or on a module the page does not place.
//!
//! A module is a file: `src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`. A folder's `mod.rs` is its
//! front: what it declares or re-exports of its own files is not an import (its files may still
//! use it, and then it counts). Comments and `#[cfg(test)] mod tests` are not read; a path
//! through the crate root's re-exports (`crate::Cloth`) counts as the module that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Every module under `src/` (not the crate root or the binary) and its source.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_str().unwrap().to_string();
            let join = |n: &str| {
                if prefix.is_empty() {
                    n.to_string()
                } else {
                    format!("{prefix}::{n}")
                }
            };
            if path.is_dir() {
                walk(&path, &join(&name), out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let module = match name.as_str() {
                    "mod" => prefix.to_string(),
                    "lib" | "main" if prefix.is_empty() => continue,
                    _ => join(&name),
                };
                out.insert(module, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Path::new(ROOT).join("src"), "", &mut out);
    out
}

/// The code of a file: comment lines and the unit-test module left out.
fn code(source: &str) -> String {
    let mut kept = String::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod tests"))
        {
            break;
        }
        if !t.starts_with("//") {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

/// The paths of a use tree starting at `text` (after `crate::` or `super::`): `a::b`,
/// `a::{b, c::{d}}`, `a::*`; each as its segments.
fn use_paths(text: &str) -> Vec<Vec<String>> {
    fn tree(s: &[u8], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        loop {
            while *i < s.len() && s[*i].is_ascii_whitespace() {
                *i += 1;
            }
            if *i < s.len() && s[*i] == b'{' {
                *i += 1;
                loop {
                    let at = *i;
                    tree(s, i, &path, out);
                    while *i < s.len() && (s[*i].is_ascii_whitespace() || s[*i] == b',') {
                        *i += 1;
                    }
                    if *i >= s.len() || s[*i] == b'}' {
                        *i += 1;
                        return;
                    }
                    if *i == at {
                        // Something no path starts with (a comment, an `as`): step over it.
                        *i += 1;
                    }
                }
            }
            let start = *i;
            if *i < s.len() && s[*i] == b'*' {
                *i += 1; // a glob: the path so far is what it names
                break;
            }
            while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
                *i += 1;
            }
            if start == *i {
                break;
            }
            path.push(String::from_utf8_lossy(&s[start..*i]).into_owned());
            if s[*i..].starts_with(b"::") {
                *i += 2;
            } else {
                break;
            }
        }
        // `path as name`: the path is what it names.
        let mut k = *i;
        while k < s.len() && s[k].is_ascii_whitespace() {
            k += 1;
        }
        if s[k..].starts_with(b"as ") {
            k += 3;
            while k < s.len() && s[k].is_ascii_whitespace() {
                k += 1;
            }
            while k < s.len() && (s[k].is_ascii_alphanumeric() || s[k] == b'_') {
                k += 1;
            }
            *i = k;
        }
        // Nothing read (a token no path starts with): no path.
        if path.len() > prefix.len() {
            out.push(path);
        }
    }
    let mut out = Vec::new();
    tree(text.as_bytes(), &mut 0, &[], &mut out);
    out
}

/// Re-exports: (module, name) → the module whose item `pub use` (or `pub(crate) use`) in that
/// module names (the crate root is ""). A glob re-export is not followed.
type Reexports = BTreeMap<(String, String), String>;

/// The module a path from `base` names: its longest prefix that is a module (the crate root if
/// none), then through that module's re-export of the next segment, if it has one.
fn resolve(
    path: &[String],
    modules: &BTreeMap<String, String>,
    reexports: &Reexports,
) -> Option<String> {
    let k = (1..=path.len())
        .rev()
        .find(|&k| modules.contains_key(&path[..k].join("::")))
        .unwrap_or(0);
    let module = path[..k].join("::");
    let through = path
        .get(k)
        .and_then(|name| Some((name, reexports.get(&(module.clone(), name.clone()))?)));
    match through {
        // A re-export of a re-export (`crate::Backend` is `solver`'s, which is `backend`'s):
        // followed to the module that defines the item.
        Some((name, target)) => {
            let mut target = target.clone();
            for _ in 0..8 {
                match reexports.get(&(target.clone(), name.clone())) {
                    Some(next) if *next != target => target = next.clone(),
                    _ => break,
                }
            }
            Some(target)
        }
        None => (k > 0).then_some(module),
    }
}

/// The absolute paths a `use` tree written in `module` names, for the relative forms too
/// (`crate::`, `super::`, `self::`, a child's name); paths into other crates are left out.
fn absolute(
    module: &str,
    path: &[String],
    modules: &BTreeMap<String, String>,
) -> Option<Vec<String>> {
    let own: Vec<String> = module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let (base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (vec![], &path[1..]),
        Some("super") => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            (own[..own.len().saturating_sub(ups)].to_vec(), &path[ups..])
        }
        Some("self") => (own.clone(), &path[1..]),
        Some(first) => {
            let child = own
                .iter()
                .cloned()
                .chain([first.to_string()])
                .collect::<Vec<_>>();
            if !modules.contains_key(&child.join("::")) {
                return None;
            }
            (own.clone(), path)
        }
        None => return None,
    };
    Some(base.into_iter().chain(rest.iter().cloned()).collect())
}

/// Every module's `pub use` and `pub(crate) use` items, the crate root's included.
fn reexports(modules: &BTreeMap<String, String>) -> Reexports {
    let lib = std::fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).unwrap();
    let mut found = Vec::new();
    for (module, source) in std::iter::once((&String::new(), &lib)).chain(modules) {
        let text = code(source);
        for keyword in ["pub use ", "pub(crate) use "] {
            for (at, _) in text.match_indices(keyword) {
                for path in use_paths(&text[at + keyword.len()..]) {
                    if let Some(full) = absolute(module, &path, modules) {
                        found.push((module.clone(), full));
                    }
                }
            }
        }
    }
    // Resolve each against the direct ones only (a re-export of a re-export is one more step,
    // which chiffon does not take).
    let mut out = Reexports::new();
    for (module, full) in found {
        let name = full.last().unwrap().clone();
        if name == "*" || name == "self" {
            continue;
        }
        if let Some(target) = resolve(&full, modules, &Reexports::new()) {
            out.insert((module, name), target);
        }
    }
    out
}

/// Where paths beginning `marker` start in `text`: not inside a longer path (`foo::crate::`)
/// or a name (`my_crate::`).
fn path_starts<'t>(text: &'t str, marker: &'t str) -> impl Iterator<Item = usize> + 't {
    text.match_indices(marker)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = text[..at].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        })
}

/// What each module imports from the others.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let reexports = reexports(&modules);
    let mut graph = BTreeMap::new();
    for (module, source) in &modules {
        let text = code(source);
        let mut edges = BTreeSet::new();
        // Names a `use` gave a module (`use crate::cpu;`, `use super::passes;`,
        // `use crate::geometry::{self, ..}`): a later `cpu::engine::X` is an import of
        // `cpu::engine`, not of the front it came through.
        let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let add = |full: &[String], edges: &mut BTreeSet<String>| {
            if let Some(target) = resolve(full, &modules, &reexports) {
                let own = target == *module || target.starts_with(&format!("{module}::"));
                if !own {
                    edges.insert(target);
                }
            }
        };
        for marker in ["crate::", "super::"] {
            for at in path_starts(&text, marker) {
                for path in use_paths(&text[at..]) {
                    let Some(mut full) = absolute(module, &path, &modules) else {
                        continue;
                    };
                    add(&full, &mut edges);
                    if full.last().is_some_and(|s| s == "self") {
                        full.pop();
                    }
                    if modules.contains_key(&full.join("::")) {
                        aliases.insert(full.last().unwrap().clone(), full);
                    }
                }
            }
        }
        for (alias, target) in &aliases {
            for at in path_starts(&text, &format!("{alias}::")) {
                for path in use_paths(&text[at..]) {
                    let full: Vec<String> = target
                        .iter()
                        .cloned()
                        .chain(path.into_iter().skip(1))
                        .collect();
                    add(&full, &mut edges);
                }
            }
        }
        graph.insert(module.clone(), edges);
    }
    graph
}

/// The layers `docs/architecture.md` lists, bottom first: the rows `N | modules | what` (a row
/// without `N` goes on with the layer above) of the text block under "## The layers"; `a::*` stands for every module under `a` not placed by
/// name.
fn documented_layers(modules: &BTreeSet<String>) -> BTreeMap<String, u32> {
    let page = std::fs::read_to_string(Path::new(ROOT).join("docs/architecture.md")).unwrap();
    let section = page
        .split("## The layers")
        .nth(1)
        .expect("docs/architecture.md has a section \"## The layers\"");
    let block = section.split("```").nth(1).expect("a text block under it");
    let mut named = BTreeMap::new();
    let mut wildcards = Vec::new();
    let mut current = None;
    for row in block.lines().skip(1) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if cells.len() < 3 {
            continue;
        }
        // A row with no number goes on with the layer above it.
        if !cells[0].is_empty() {
            current = Some(cells[0].parse::<u32>().expect("a layer's number"));
        }
        let Some(layer) = current else {
            continue;
        };
        for m in cells[1].split(',').map(str::trim).filter(|m| !m.is_empty()) {
            if let Some(folder) = m.strip_suffix("::*") {
                wildcards.push((folder.to_string(), layer));
            } else {
                assert!(
                    modules.contains(m),
                    "docs/architecture.md places `{m}`, which is not a module"
                );
                assert!(
                    named.insert(m.to_string(), layer).is_none(),
                    "`{m}` is placed twice"
                );
            }
        }
    }
    let mut layers = named.clone();
    for m in modules {
        if !named.contains_key(m)
            && let Some((_, layer)) = wildcards
                .iter()
                .filter(|(f, _)| m.starts_with(&format!("{f}::")))
                .max_by_key(|(f, _)| f.len())
        {
            layers.insert(m.clone(), *layer);
        }
    }
    layers
}

#[test]
fn the_modules_form_the_documented_layers_with_no_cycle() {
    let graph = imports();
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    let layers = documented_layers(&modules);
    let unplaced: Vec<&String> = modules
        .iter()
        .filter(|m| !layers.contains_key(*m))
        .collect();
    assert!(
        unplaced.is_empty(),
        "docs/architecture.md's layers do not place {unplaced:?}"
    );
    let mut upward = Vec::new();
    for (module, edges) in &graph {
        for target in edges {
            if layers[target] > layers[module] {
                upward.push(format!(
                    "{module} (layer {}) imports {target} (layer {})",
                    layers[module], layers[target]
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports from a higher layer:\n{}",
        upward.join("\n")
    );
    // Within a layer imports are allowed, so look for a cycle: a depth-first search that meets
    // a module still on its path.
    fn visit<'a>(
        m: &'a String,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a String, bool>,
        path: &mut Vec<&'a String>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(true) => return None,
            Some(false) => {
                let start = path.iter().position(|p| *p == m).unwrap();
                return Some(path[start..].iter().map(|p| p.to_string()).collect());
            }
            None => {}
        }
        state.insert(m, false);
        path.push(m);
        for t in &graph[m] {
            if let Some(cycle) = visit(t, graph, state, path) {
                return Some(cycle);
            }
        }
        path.pop();
        state.insert(m, true);
        None
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if let Some(cycle) = visit(m, &graph, &mut state, &mut Vec::new()) {
            panic!(
                "the modules import each other in a cycle: {}",
                cycle.join(" → ")
            );
        }
    }
}

/// The parser itself: a grouped use, a glob, a re-exported root name and a `super::` path are
/// found; a comment, a test module and a method path are not.
#[test]
fn the_layer_check_reads_the_imports_it_must() {
    // A glob, a rename and a stray token inside a group are read or stepped over, not read
    // forever.
    let glob = use_paths("crate::{a::*, ! b::C as D};");
    let expected = [vec!["crate", "a"], vec!["crate", "b", "C"]];
    assert_eq!(
        glob,
        expected.map(|p| p.into_iter().map(String::from).collect::<Vec<_>>())
    );
    let paths = use_paths("crate::{cloth::{Cloth, self}, config::{A, b::{C}}};");
    let expected = [
        "crate::cloth::Cloth",
        "crate::cloth::self",
        "crate::config::A",
        "crate::config::b::C",
    ];
    let expected: Vec<Vec<String>> = expected
        .iter()
        .map(|p| p.split("::").map(String::from).collect())
        .collect();
    assert_eq!(paths, expected);
    let text = code(
        "use a::b;\n// crate::gpu::x\nfn f() { crate::world::x(); }\n#[cfg(test)]\nmod tests {\n    use crate::tools;\n}\n",
    );
    assert!(
        text.contains("crate::world") && !text.contains("crate::gpu") && !text.contains("tools")
    );
    let graph = imports();
    assert!(
        graph["world"].contains("gpu::engine"),
        "world makes the GPU engine"
    );
    assert!(
        graph["hierarchy::grid"].contains("hierarchy"),
        "`use super::*` is an import"
    );
    assert!(
        !graph["world"].contains("world::engine"),
        "a folder's front does not import its files"
    );
    // `use crate::geometry::{self, ..}` then `geometry::grid::..` is an import of the file.
    assert!(
        graph["builder"].contains("geometry::grid"),
        "a module alias is followed"
    );
    let modules = modules();
    let reexports = reexports(&modules);
    for (path, module) in [
        ("Cloth", "cloth"),
        ("cloth::Constraint", "constraint"),
        ("Constraint", "constraint"),
        ("Backend", "backend"),
        ("gpu::GpuContext", "gpu::context"),
    ] {
        let path: Vec<String> = path.split("::").map(String::from).collect();
        assert_eq!(
            resolve(&path, &modules, &reexports).as_deref(),
            Some(module),
            "{path:?} is {module}'s"
        );
    }
}
