//! `fairyzero-torch`: the `fairyzero` command line with libtorch linked in. The lean
//! `fairyzero` runs it, in its own process (`exec`), for every command that needs a network;
//! run directly, it behaves exactly like `fairyzero`.

use std::process::ExitCode;

use fairyzero_torch_cli::TorchRuntime;

fn main() -> ExitCode {
    fairyzero_cli::main(fairyzero_cli::Program::WithLibtorch(&TorchRuntime))
}
