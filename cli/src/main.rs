//! `fairyzero`: learn fairy-chess variants by self-play.
//!
//! This file holds what every subcommand shares: the clap parser with the global flags, logging
//! set-up and error reporting. Subcommands live in `commands/`, one file each (see
//! `commands/mod.rs` for how to add one).

mod commands;
mod interrupt;

use std::process::ExitCode;

use clap::{ArgAction, CommandFactory, Parser};
use tracing_subscriber::EnvFilter;

use crate::commands::Command;

#[derive(Debug, Parser)]
#[command(
    name = "fairyzero",
    about = "Learn fairy-chess variants by self-play",
    // Our own --version also reports libtorch and the device, which needs a runtime query.
    disable_version_flag = true
)]
struct Cli {
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

fn main() -> ExitCode {
    interrupt::default_sigpipe();
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.quiet);

    let result = if cli.version {
        print_version();
        Ok(())
    } else if let Some(command) = cli.command {
        command.run()
    } else {
        // No subcommand: show the help, as for any other usage mistake.
        let _ = Cli::command().print_help();
        return ExitCode::from(2);
    };

    match result {
    // A job stopped by a signal says so in its status, as a shell does: 130 SIGINT, 143 SIGTERM.
    let interrupted = interrupt::exit_status().map(ExitCode::from);
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
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).init();
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

fn print_version() {
    let info = fairyzero_model::runtime_info();
    println!("fairyzero {}", env!("CARGO_PKG_VERSION"));
    println!("libtorch {}", info.torch_summary());
    println!("device: {}", info.device_summary());
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

    #[test]
    fn verbosity_flags_are_counted() {
        let cli = Cli::try_parse_from(["fairyzero", "-vv", "info"]).unwrap();
        assert_eq!((cli.verbose, cli.quiet), (2, 0));
        let cli = Cli::try_parse_from(["fairyzero", "info", "-qq"]).unwrap();
        assert_eq!((cli.verbose, cli.quiet), (0, 2));
        assert!(Cli::try_parse_from(["fairyzero", "-v", "-q", "info"]).is_err());
    }
}
