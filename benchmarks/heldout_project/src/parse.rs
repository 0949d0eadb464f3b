//! Reading a ledger's text.
//!
//! ```text
//! ; comments start with a semicolon
//! 2025-01-03 Corner Grocer
//!     expenses:food:groceries    42.10
//!     assets:bank:checking
//! ```
//!
//! A transaction starts with a date at the start of a line; its postings follow, indented.
//! One posting may leave its amount out: it balances the transaction.

use std::fmt;

use crate::date::Date;
use crate::ledger::{account_depth, Ledger, Posting, Transaction, MAX_DEPTH};
use crate::money::Amount;

/// Starts a comment, on a line of its own or after a posting.
pub const COMMENT: char = ';';
/// The fewest postings a transaction may have.
pub const MIN_POSTINGS: usize = 2;

/// What went wrong, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

fn error(line: usize, message: impl Into<String>) -> ParseError {
    ParseError { line, message: message.into() }
}

/// A posting line: an account, then (after two spaces or a tab) an optional amount.
fn parse_posting(text: &str, line: usize) -> Result<(String, Option<Amount>), ParseError> {
    let text = text.split(COMMENT).next().unwrap_or("").trim();
    let (account, amount) = match text.find("  ").or_else(|| text.find('\t')) {
        Some(at) => (text[..at].trim(), Some(text[at..].trim())),
        None => (text, None),
    };
    if account.is_empty() || account.contains(' ') {
        return Err(error(line, format!("bad account name {account:?}")));
    }
    if account_depth(account) > MAX_DEPTH {
        return Err(error(line, format!("account {account:?} is deeper than {MAX_DEPTH} levels")));
    }
    let amount = match amount {
        Some(text) => Some(text.parse::<Amount>().map_err(|e| error(line, e.to_string()))?),
        None => None,
    };
    Ok((account.to_string(), amount))
}

/// Close a transaction: fill the elided amount, check the balance.
fn finish(
    date: Date,
    payee: String,
    line: usize,
    postings: Vec<(String, Option<Amount>)>,
) -> Result<Transaction, ParseError> {
    if postings.len() < MIN_POSTINGS {
        return Err(error(line, format!("a transaction needs {MIN_POSTINGS} postings")));
    }
    let missing = postings.iter().filter(|(_, a)| a.is_none()).count();
    if missing > 1 {
        return Err(error(line, "only one posting may leave its amount out"));
    }
    let known: Amount = postings.iter().filter_map(|(_, a)| *a).sum();
    let postings: Vec<Posting> = postings
        .into_iter()
        .map(|(account, amount)| Posting { account, amount: amount.unwrap_or(-known) })
        .collect();
    let transaction = Transaction { date, payee, postings, line };
    if !transaction.imbalance().is_zero() {
        return Err(error(line, format!("transaction is off by {}", transaction.imbalance())));
    }
    Ok(transaction)
}

/// Parse a whole ledger.
pub fn parse_ledger(text: &str) -> Result<Ledger, ParseError> {
    let mut transactions = Vec::new();
    let mut open: Option<(Date, String, usize, Vec<(String, Option<Amount>)>)> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with(COMMENT) {
            continue;
        }
        if raw.starts_with(char::is_whitespace) {
            let Some((_, _, _, postings)) = open.as_mut() else {
                return Err(error(line, "posting outside a transaction"));
            };
            postings.push(parse_posting(trimmed, line)?);
            continue;
        }
        if let Some((date, payee, start, postings)) = open.take() {
            transactions.push(finish(date, payee, start, postings)?);
        }
        let (date, payee) = trimmed.split_once(' ').unwrap_or((trimmed, ""));
        let date: Date = date.parse().map_err(|e: crate::date::DateError| error(line, e.to_string()))?;
        open = Some((date, payee.trim().to_string(), line, Vec::new()));
    }
    if let Some((date, payee, start, postings)) = open.take() {
        transactions.push(finish(date, payee, start, postings)?);
    }
    Ok(Ledger::new(transactions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_account_and_amount() {
        let (account, amount) = parse_posting("expenses:rent  950.00 ; March", 4).unwrap();
        assert_eq!(account, "expenses:rent");
        assert_eq!(amount, Some(Amount::from_cents(95_000)));
        assert_eq!(parse_posting("assets:cash", 5).unwrap().1, None);
    }
}
