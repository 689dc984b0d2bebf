//! `fairyzero`: learn fairy-chess variants by self-play.
//!
//! The lean program: it links no libtorch, so the rules commands, matches between baselines,
//! ratings and self-play with the mock start in milliseconds. A command that needs a network
//! re-runs in `fairyzero-torch`, next to this executable, in this same process (see the
//! library's documentation).

use std::process::ExitCode;

fn main() -> ExitCode {
    fairyzero_cli::main(fairyzero_cli::Program::Lean)
}
