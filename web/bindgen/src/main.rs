//! `chiffon-web-bindgen IN.wasm OUT_DIR`: what `wasm-bindgen --target web --no-typescript
//! --remove-name-section --remove-producers-section --out-dir OUT_DIR IN.wasm` does, for
//! web/build on machines without wasm-bindgen-cli.
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir] = args.as_slice() else {
        eprintln!("usage: chiffon-web-bindgen IN.wasm OUT_DIR");
        return ExitCode::from(2);
    };
    let mut bindgen = wasm_bindgen_cli_support::Bindgen::new();
    let generated = bindgen.input_path(input).web(true).and_then(|b| {
        // As the CLI: the page may call init() without naming the .wasm file.
        // No function names in the module: 0.7 MB less to download (a panic's message still
        // reaches the page, through `last_panic`). Here rather than cargo's `strip`, which also
        // drops the section that tells wasm-bindgen which wasm features the module uses.
        b.typescript(false)
            .omit_default_module_path(false)
            .remove_name_section(true)
            .remove_producers_section(true)
            .generate(out_dir)
    });
    match generated {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("chiffon-web-bindgen: {error:#}");
            ExitCode::FAILURE
        }
    }
}
