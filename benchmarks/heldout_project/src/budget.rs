//! Monthly budgets and how the ledger keeps to them.
//!
//! A budget file has one line per account: `budget expenses:food 400.00`.

use std::collections::BTreeMap;

use crate::ledger::Ledger;
use crate::money::Amount;
use crate::parse::ParseError;

/// The share of a budget past which a month is reported as close to it.
pub const WARN_RATIO: f64 = 0.9;
/// The keyword that starts a budget line.
pub const KEYWORD: &str = "budget";

/// How one month of one account compares with its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Under,
    Close,
    Over,
}

/// Budgets by account.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budget {
    pub limits: BTreeMap<String, Amount>,
}

/// Read a budget file.
pub fn parse_budget(text: &str) -> Result<Budget, ParseError> {
    let mut limits = BTreeMap::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let words: Vec<&str> = raw.split_whitespace().collect();
        match words.as_slice() {
            [] => continue,
            [first, ..] if first.starts_with(';') => continue,
            [keyword, account, amount] if *keyword == KEYWORD => {
                let amount = amount
                    .parse::<Amount>()
                    .map_err(|e| ParseError { line, message: e.to_string() })?;
                limits.insert(account.to_string(), amount);
            }
            _ => {
                let message = format!("expected `{KEYWORD} ACCOUNT AMOUNT`, found {raw:?}");
                return Err(ParseError { line, message });
            }
        }
    }
    Ok(Budget { limits })
}

/// Compare `spent` with `limit`.
pub fn status(spent: Amount, limit: Amount) -> Status {
    if spent > limit {
        Status::Over
    } else if spent >= limit.scale(WARN_RATIO) {
        Status::Close
    } else {
        Status::Under
    }
}

/// Every month of every budgeted account, with its status.
pub fn check(ledger: &Ledger, budget: &Budget) -> Vec<(String, (u16, u8), Amount, Status)> {
    let mut rows = Vec::new();
    for (account, limit) in &budget.limits {
        for (month, spent) in ledger.monthly(account) {
            rows.push((account.clone(), month, spent, status(spent, *limit)));
        }
    }
    rows
}
