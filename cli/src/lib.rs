//! The `fairyzero` command line as a library: the clap parser with the global flags, every
//! subcommand (`commands/`, one file each), logging set-up and error reporting.
//!
//! Two programs run it, so that a command which needs no network does not pay for libtorch
//! (about 0.3 s and 500 MiB at start-up for the CUDA build):
//! - `fairyzero` (src/main.rs) links no libtorch. It parses the command line itself (`--help`
//!   and usage errors come from it), and a command that needs a network (see
//!   [`Command::libtorch_use`]) is handed to the helper by `exec`, with the same arguments:
//!   same process, same PID, signals, stdout and exit status;
//! - `fairyzero-torch` (torch-cli/), found next to `fairyzero`, links libtorch, the trainer and
//!   the torch backend, and runs this same command line with its [`NetRuntime`] plugged in.

// The arguments' doc comments are `--help` texts (clap), written for a terminal: their
// `[OPTION]` brackets are not rustdoc links.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod commands;
pub mod engine;
mod helper;
pub mod interrupt;
pub mod limits;
pub mod network;
pub mod viewer;

use std::{io::IsTerminal, process::ExitCode};

use clap::{ArgAction, CommandFactory, Parser};
use tracing_subscriber::EnvFilter;

pub use crate::{
    commands::{Command, LibtorchUse},
    network::{NetRuntime, WithoutLibtorch},
};

#[derive(Debug, Parser)]
#[command(
    name = "fairyzero",
    about = "Learn fairy-chess variants by self-play",
    // Our own --version also reports libtorch and the device, which needs a runtime query.
    disable_version_flag = true
)]
pub struct Cli {
    /// More log output: -v debug, -vv trace (RUST_LOG overrides)
    #[arg(short, long, action = ArgAction::Count, global = true, conflicts_with = "quiet")]
    verbose: u8,

    /// Less log output: -q warnings and errors only, -qq errors only (RUST_LOG overrides)
    #[arg(short, long, action = ArgAction::Count, global = true)]
    quiet: u8,

    /// Print the version, the libtorch version and the device found, then exit
    #[arg(short = 'V', long)]
    version: bool,

    #[command(subcommand)]
    command: Option<Command>,
}

impl Cli {
    /// What the parsed command line needs of libtorch.
    pub fn libtorch_use(&self) -> LibtorchUse {
        if self.version {
            return LibtorchUse::Reports;
        }
        self.command.as_ref().map_or(LibtorchUse::None, Command::libtorch_use)
    }
}

/// Which program runs the command line.
#[derive(Clone, Copy)]
pub enum Program<'a> {
    /// The lean `fairyzero`: commands that need libtorch run in the helper.
    Lean,
    /// The `fairyzero-torch` helper, with its runtime.
    WithLibtorch(&'a dyn NetRuntime),
}

/// Parses the command line and runs it; the exit status: 0 done, 1 error, 2 usage mistake,
/// 130/143 stopped by SIGINT/SIGTERM.
pub fn main(program: Program<'_>) -> ExitCode {
    interrupt::default_sigpipe();
    let cli = Cli::parse();
    let runtime: &dyn NetRuntime = match program {
        Program::WithLibtorch(runtime) => runtime,
        Program::Lean => {
            // Before logging and signal handlers: the helper sets up its own.
            match (cli.libtorch_use(), helper::path()) {
                (LibtorchUse::Needs, path) => {
                    report_error(&helper::exec(path));
                    return ExitCode::FAILURE;
                }
                (LibtorchUse::Reports, Ok(path)) if path.is_file() => {
                    report_error(&helper::exec(Ok(path)));
                    return ExitCode::FAILURE;
                }
                _ => &WithoutLibtorch,
            }
        }
    };
    init_logging(cli.verbose, cli.quiet);

    let result = if cli.version {
        print_version(runtime);
        Ok(())
    } else if let Some(command) = cli.command {
        command.run(runtime)
    } else {
        // No subcommand: show the help, as for any other usage mistake.
        let _ = Cli::command().print_help();
        return ExitCode::from(2);
    };

    // A job stopped by a signal says so in its status, as a shell does: 130 SIGINT, 143 SIGTERM.
    let interrupted = interrupt::exit_status().map(ExitCode::from);
    match result {
        Ok(()) => interrupted.unwrap_or(ExitCode::SUCCESS),
        Err(err) => {
            report_error(&err);
            interrupted.unwrap_or(ExitCode::FAILURE)
        }
    }
}

/// Logs go to stderr so that a command's stdout stays machine-readable.
fn init_logging(verbose: u8, quiet: u8) {
    let level = match (verbose, quiet) {
        (0, 0) => "info",
        (0, 1) => "warn",
        (0, _) => "error",
        (1, _) => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(colour_on_stderr())
        .init();
}

/// Colour codes only for a person at a terminal: a log file or a pipe gets plain text, and
/// `NO_COLOR` (set and not empty, https://no-color.org) turns them off everywhere.
fn colour_on_stderr() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn report_error(err: &anyhow::Error) {
    eprint!("{}", error_report(err));
}

/// `error: <what failed>` followed by one line per cause, innermost last.
fn error_report(err: &anyhow::Error) -> String {
    let mut report = format!("error: {err}\n");
    for cause in err.chain().skip(1) {
        report.push_str(&format!("  caused by: {cause}\n"));
    }
    report
}

fn print_version(runtime: &dyn NetRuntime) {
    println!("fairyzero {}", env!("CARGO_PKG_VERSION"));
    for line in runtime.version_lines() {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn error_report_lists_every_cause() {
        let err = std::fs::read("/nonexistent/variant.toml")
            .context("cannot read /nonexistent/variant.toml")
            .context("cannot load variant `chess`")
            .unwrap_err();
        let report = error_report(&err);
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(lines[0], "error: cannot load variant `chess`");
        assert_eq!(lines[1], "  caused by: cannot read /nonexistent/variant.toml");
        assert!(lines[2].starts_with("  caused by: No such file"), "{report}");
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn parser_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every numeric flag of every subcommand states its maximum in `--help` as `at most N`, and
    /// its parser accepts `N` and refuses `N + 1` (for seconds: refuses the non-finite too).
    /// Seeds take any value and `--game` is an index checked against the file.
    #[test]
    fn every_numeric_flag_has_its_maximum_in_the_help() {
        use std::any::TypeId;
        fn walk(cmd: &clap::Command, path: &str, checked: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_value_parser().type_id();
                let integer =
                    [TypeId::of::<u32>(), TypeId::of::<u64>(), TypeId::of::<usize>()].iter().any(|t| id == *t);
                let float = id == TypeId::of::<f64>();
                let name = arg.get_id().as_str();
                if !(integer || float) || ["seed", "game"].contains(&name) {
                    continue;
                }
                let flag = format!("{path} --{name}");
                let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default().replace('\n', " ");
                let max: String = help
                    .split("at most ")
                    .nth(1)
                    .unwrap_or_else(|| panic!("{flag}: no `at most N` in its help {help:?}"))
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == ',')
                    .filter(|c| *c != ',')
                    .collect();
                let max: u64 = max.parse().unwrap_or_else(|_| panic!("{flag}: bad maximum in {help:?}"));
                // The flag alone in a command of its own: the subcommand's other required
                // arguments do not get in the way.
                let long = arg.get_long().unwrap_or_else(|| panic!("{flag}: not a --flag"));
                let alone = clap::Command::new("alone")
                    .arg(arg.clone().required(false).requires(clap::builder::Resettable::<clap::Id>::Reset));
                let parse = |value: &str| alone.clone().try_get_matches_from(["alone", &format!("--{long}={value}")]);
                assert!(parse(&max.to_string()).is_ok(), "{flag}: its maximum {max} is refused");
                let too_big = if float { format!("{max}.5") } else { (max + 1).to_string() };
                let refused = parse(&too_big).expect_err(&format!("{flag}: {too_big} accepted"));
                assert!(refused.to_string().contains(&max.to_string()), "{flag}: error does not name {max}: {refused}");
                if float {
                    for bad in ["inf", "NaN", "-1", "0"] {
                        assert!(parse(bad).is_err(), "{flag}: {bad} accepted");
                    }
                }
                checked.push(flag);
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), checked);
            }
        }
        let mut cmd = Cli::command();
        cmd.build();
        let mut checked = Vec::new();
        walk(&cmd, "fairyzero", &mut checked);
        // Not vacuous: the walk reaches the flags of the issue.
        for flag in ["match --games", "rank --bootstrap", "perft --depth", "bench net --batches", "analyse --time"] {
            assert!(checked.iter().any(|c| c.ends_with(flag)), "{flag} not checked: {checked:?}");
        }
    }

    /// The lean program hands exactly the commands that load or build a network to the helper.
    #[test]
    fn commands_say_whether_they_need_libtorch() {
        let dir = std::env::temp_dir();
        let ckpt = dir.to_str().unwrap();
        let cases: &[(&[&str], LibtorchUse)] = &[
            (&["--version"], LibtorchUse::Reports),
            (&["info"], LibtorchUse::Reports),
            (&["variants"], LibtorchUse::None),
            (&["perft", "--variant", "chess", "--depth", "1"], LibtorchUse::None),
            (&["moves", "--variant", "chess"], LibtorchUse::None),
            (&["rank", "--run", ckpt], LibtorchUse::None),
            (&["selfplay", "--config", "c.toml", "--games", "1", "--out", "o"], LibtorchUse::None),
            (
                &["selfplay", "--config", "c.toml", "--games", "1", "--out", "o", "--net", "random:tiny"],
                LibtorchUse::Needs,
            ),
            (&["analyse", "--variant", "chess", "--nodes", "1"], LibtorchUse::None),
            (&["analyse", "--variant", "chess", "--nodes", "1", "--net", ckpt], LibtorchUse::Needs),
            (&["match", "greedy", "random", "--variant", "chess"], LibtorchUse::None),
            (&["match", "greedy", ckpt, "--variant", "chess"], LibtorchUse::Needs),
            (
                &["ladder", "--player", "greedy", "--engine", "uci:fsf", "--variant", "chess", "--out", "o"],
                LibtorchUse::None,
            ),
            (
                &["ladder", "--player", ckpt, "--engine", "uci:fsf", "--variant", "chess", "--out", "o"],
                LibtorchUse::Needs,
            ),
            (&["balance", "--variant", "chess", "--player", "random", "--out", "o"], LibtorchUse::None),
            (&["balance", "--variant", "chess", "--player", ckpt, "--out", "o"], LibtorchUse::Needs),
            (&["piece-values", "--variant", "chess", "--player", "random", "--out", "o"], LibtorchUse::None),
            (
                &["piece-values", "--variant", "chess", "--method", "fit", "--records", "r", "--out", "o"],
                LibtorchUse::None,
            ),
            (
                &["piece-values", "--variant", "chess", "--method", "probe", "--records", "r", "--out", "o"],
                LibtorchUse::Needs,
            ),
            (&["bench", "net"], LibtorchUse::Needs),
            (&["bench", "selfplay", "--net", "latency:20ms+10us"], LibtorchUse::None),
            (&["train", "--config", "c.toml", "--print-config"], LibtorchUse::Needs),
            (&["uci", "--player", "alphabeta:2"], LibtorchUse::None),
            (&["uci", "--net", "random:tiny"], LibtorchUse::Needs),
            (&["export-model", "--run", ckpt, "--out", "o"], LibtorchUse::None),
            (&["compare", "--run", &format!("a={ckpt}"), "--out", "o"], LibtorchUse::None),
            (&["play", "--variant", "chess", "--engine", "alphabeta:1"], LibtorchUse::None),
            (&["play", "--variant", "chess", "--net", &format!("{ckpt}@8")], LibtorchUse::Needs),
        ];
        for (args, expected) in cases {
            let cli = Cli::try_parse_from(std::iter::once(&"fairyzero").chain(args.iter()))
                .unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert_eq!(cli.libtorch_use(), *expected, "{args:?}");
        }
    }

    #[test]
    fn verbosity_flags_are_counted() {
        let cli = Cli::try_parse_from(["fairyzero", "-vv", "info"]).unwrap();
        assert_eq!((cli.verbose, cli.quiet), (2, 0));
        let cli = Cli::try_parse_from(["fairyzero", "info", "-qq"]).unwrap();
        assert_eq!((cli.verbose, cli.quiet), (0, 2));
        assert!(Cli::try_parse_from(["fairyzero", "-v", "-q", "info"]).is_err());
    }
}
