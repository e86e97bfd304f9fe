//! Helpers shared by the integration tests.
#![allow(dead_code)]

use chiffon::GpuContext;

/// A GPU context, or `None` when no adapter exists. With `CHIFFON_REQUIRE_GPU=1` (as in CI) a
/// missing adapter fails the test instead; elsewhere the skip is announced loudly.
pub fn gpu(test: &str) -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            if std::env::var("CHIFFON_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: CHIFFON_REQUIRE_GPU=1 but no GPU adapter: {e}");
            }
            eprintln!(
                "\n!!!!!!!! SKIPPED {test}: no GPU adapter ({e}).\n\
                 !!!!!!!! Install mesa-vulkan-drivers or set CHIFFON_REQUIRE_GPU=1 to make this a failure.\n"
            );
            None
        }
    }
}
