//! `chiffon-web-bindgen IN.wasm OUT_DIR`: what `wasm-bindgen --target web --no-typescript
//! --out-dir OUT_DIR IN.wasm` does, for web/build on machines without wasm-bindgen-cli.
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
        b.typescript(false)
            .omit_default_module_path(false)
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
