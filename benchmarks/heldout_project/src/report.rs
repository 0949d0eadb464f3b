//! Text reports: balances, registers, monthly totals.

use std::fmt::Write;

use crate::ledger::Ledger;
use crate::money::Amount;

/// Width of the account column.
pub const ACCOUNT_WIDTH: usize = 32;
/// Width of an amount column.
pub const AMOUNT_WIDTH: usize = 12;
/// Width of the payee column of a register.
pub const PAYEE_WIDTH: usize = 24;
/// The line under a report's rows.
pub const RULE: char = '-';

fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}~")
}

/// One line per account (rolled up to `depth` levels when given), then the total.
pub fn balance_report(ledger: &Ledger, depth: Option<usize>) -> String {
    let balances = match depth {
        Some(depth) => ledger.balances_at_depth(depth),
        None => ledger.balances(),
    };
    let mut out = String::new();
    for (account, amount) in &balances {
        if amount.is_zero() {
            continue;
        }
        let _ = writeln!(out, "{:<aw$} {:>w$}", fit(account, ACCOUNT_WIDTH), amount, aw = ACCOUNT_WIDTH, w = AMOUNT_WIDTH);
    }
    let total: Amount = balances.values().copied().sum();
    let width = ACCOUNT_WIDTH + 1 + AMOUNT_WIDTH;
    let _ = writeln!(out, "{}", RULE.to_string().repeat(width));
    let _ = writeln!(out, "{:<aw$} {:>w$}", "total", total, aw = ACCOUNT_WIDTH, w = AMOUNT_WIDTH);
    out
}

/// The postings of `account` (and below), one a line, with a running total.
pub fn register_report(ledger: &Ledger, account: &str) -> String {
    let mut out = String::new();
    for (date, payee, amount, running) in ledger.register(account) {
        let _ = writeln!(
            out,
            "{date} {:<pw$} {:>w$} {:>w$}",
            fit(&payee, PAYEE_WIDTH),
            amount,
            running,
            pw = PAYEE_WIDTH,
            w = AMOUNT_WIDTH
        );
    }
    out
}

/// Totals of `account` per month, oldest first.
pub fn monthly_report(ledger: &Ledger, account: &str) -> String {
    let mut out = String::new();
    for ((year, month), amount) in ledger.monthly(account) {
        let _ = writeln!(out, "{year:04}-{month:02} {amount:>w$}", w = AMOUNT_WIDTH);
    }
    out
}
