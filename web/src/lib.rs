//! chiffon in the browser, one wasm module for two pages: the demo ([`demo`], `index.html`)
//! and the conformance page ([`conformance`], `test.html`), which steps scenes on the
//! browser's WebGPU and on the CPU reference compiled to wasm and compares them; `web/test`
//! runs it in headless Chromium.

use std::sync::{Arc, Mutex};

use wasm_bindgen::prelude::*;

pub mod conformance;
pub mod demo;

/// The last panic's message, for the page to report (a panic in wasm reaches JavaScript only
/// as "unreachable executed").
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Routes panics to the console and keeps the message for [`last_panic`].
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&message.as_str().into());
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
    }));
}

/// The message of the last panic, if any.
#[wasm_bindgen]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The WebGPU validation errors `device` reports from now on. A browser reports them as events
/// (to the console), not as return values: both pages keep them and fail on the first.
pub(crate) fn keep_errors(device: &wgpu::Device) -> Arc<Mutex<Vec<String>>> {
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = errors.clone();
    device.on_uncaptured_error(Arc::new(move |e| {
        sink.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(e.to_string());
    }));
    errors
}

/// The adapter as both pages name it: what the page read from `GPUAdapter.info` (`page`; wgpu's
/// `AdapterInfo` leaves the name empty on the web), then wgpu's backend and device type.
pub(crate) fn adapter_name(page: &str, ctx: &chiffon::GpuContext) -> String {
    let i = ctx.info();
    format!("{page} ({:?}, {:?})", i.backend, i.device_type)
}
