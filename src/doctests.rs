//! The Markdown documentation's Rust code blocks, as doc tests: `cargo test --doc` compiles and
//! runs every ```` ```rust ```` block (and every unlabelled or indented one) of the files below,
//! so an example a reader copies builds and runs as written; a failure names the Markdown file
//! and line (`src/../README.md - doctests::Readme (line 258)`). Blocks labelled `sh`,
//! `console`, `toml` or `text` are not Rust and are left alone.
//!
//! A block is the body of a `fn main()` unless it writes its own; one that uses `?` writes
//! `fn main() -> chiffon::Result<()>` out, or ends with `Ok::<(), chiffon::ChiffonError>(())`.
//! `rust,no_run` compiles without running (for blocks that open a window or run long).
//!
//! Every Markdown file in `docs/` is listed, with Rust blocks or not (`tests/docs.rs` checks
//! that none is missing). Compiled only for doc tests (`cfg(doctest)`): nothing here is part of the library.

/// `README.md`.
#[doc = include_str!("../README.md")]
pub struct Readme;

/// `docs/air.md`.
#[doc = include_str!("../docs/air.md")]
pub struct Air;

/// `docs/architecture.md`.
#[doc = include_str!("../docs/architecture.md")]
pub struct Architecture;

/// `docs/cli.md`.
#[doc = include_str!("../docs/cli.md")]
pub struct Cli;

/// `docs/contact.md`.
#[doc = include_str!("../docs/contact.md")]
pub struct Contact;

/// `docs/demo.md`.
#[doc = include_str!("../docs/demo.md")]
pub struct Demo;

/// `docs/many-cloths.md`.
#[doc = include_str!("../docs/many-cloths.md")]
pub struct ManyCloths;

/// `docs/meshes.md`.
#[doc = include_str!("../docs/meshes.md")]
pub struct Meshes;

/// `docs/performance.md`.
#[doc = include_str!("../docs/performance.md")]
pub struct Performance;

/// `docs/python.md`.
#[doc = include_str!("../docs/python.md")]
pub struct Python;

/// `docs/quality.md`.
#[doc = include_str!("../docs/quality.md")]
pub struct Quality;

/// `docs/web.md`.
#[doc = include_str!("../docs/web.md")]
pub struct Web;
