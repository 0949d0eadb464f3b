//! The command line: `ledgerline COMMAND FILE [OPTIONS]`.

mod args;

use std::io::Write;

pub use args::{parse_args, Command, USAGE};

use crate::budget::{check, parse_budget, Status};
use crate::parse::parse_ledger;
use crate::report::{balance_report, monthly_report, register_report};

/// Exit code of a successful run.
pub const EXIT_OK: u8 = 0;
/// Exit code when the arguments are wrong.
pub const EXIT_USAGE: u8 = 64;
/// Exit code when a file cannot be read or parsed.
pub const EXIT_BAD_INPUT: u8 = 65;
/// Exit code when a budget is exceeded.
pub const EXIT_OVER_BUDGET: u8 = 1;

fn read(path: &str, err: &mut dyn Write) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) => {
            let _ = writeln!(err, "ledgerline: {path}: {e}");
            None
        }
    }
}

/// Run one command; returns the exit code.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let command = match parse_args(args) {
        Ok(command) => command,
        Err(message) => {
            let _ = writeln!(err, "ledgerline: {message}\n{USAGE}");
            return EXIT_USAGE;
        }
    };
    let Some(text) = read(command.file(), err) else {
        return EXIT_BAD_INPUT;
    };
    let ledger = match parse_ledger(&text) {
        Ok(ledger) => ledger,
        Err(e) => {
            let _ = writeln!(err, "ledgerline: {}: {e}", command.file());
            return EXIT_BAD_INPUT;
        }
    };
    let text = match &command {
        Command::Balance { depth, .. } => balance_report(&ledger, *depth),
        Command::Register { account, .. } => register_report(&ledger, account),
        Command::Monthly { account, .. } => monthly_report(&ledger, account),
        Command::Check { .. } => format!("{} transactions\n", ledger.transactions.len()),
        Command::Budget { budget, .. } => {
            let Some(source) = read(budget, err) else {
                return EXIT_BAD_INPUT;
            };
            let budget = match parse_budget(&source) {
                Ok(budget) => budget,
                Err(e) => {
                    let _ = writeln!(err, "ledgerline: {}: {e}", command.file());
                    return EXIT_BAD_INPUT;
                }
            };
            let rows = check(&ledger, &budget);
            let mut text = String::new();
            for (account, (year, month), spent, status) in &rows {
                let mark = match status {
                    Status::Under => "",
                    Status::Close => "  close",
                    Status::Over => "  OVER",
                };
                text.push_str(&format!("{year:04}-{month:02} {account} {spent}{mark}\n"));
            }
            if rows.iter().any(|row| row.3 == Status::Over) {
                let _ = out.write_all(text.as_bytes());
                return EXIT_OVER_BUDGET;
            }
            text
        }
    };
    let _ = out.write_all(text.as_bytes());
    EXIT_OK
}
