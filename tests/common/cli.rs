//! Running the `chiffon` binary, for the tests of the command line (cli, bench, study, demo).

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `chiffon` binary, as a command to give arguments and an environment.
pub fn command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_chiffon"))
}

/// Runs `chiffon ARGS` to its end.
pub fn chiffon(args: &[&str]) -> Output {
    command().args(args).output().expect("run chiffon")
}

/// Runs `chiffon ARGS` and fails the test, showing chiffon's stderr, unless it succeeded.
#[track_caller]
pub fn succeeds(args: &[&str]) -> Output {
    let out = chiffon(args);
    assert_success(&out);
    out
}

/// stderr of `out`, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Fails the test, showing chiffon's stderr, unless the run succeeded.
#[track_caller]
pub fn assert_success(out: &Output) {
    assert!(out.status.success(), "{}", stderr(out));
}

/// Fails the test unless the run failed; returns its stderr.
#[track_caller]
pub fn failed(out: &Output) -> String {
    assert!(!out.status.success());
    stderr(out)
}

/// Runs `command` with its output captured and waits for it at most `limit`: `None` (the
/// process killed) when it has not exited by then, so that the test fails instead of hanging.
pub fn output_within(command: &mut Command, limit: Duration, poll: Duration) -> Option<Output> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chiffon");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(poll);
    }
    Some(child.wait_with_output().unwrap())
}
