//! Transactions, postings and the balances they add up to.

use std::collections::BTreeMap;

use crate::date::Date;
use crate::money::Amount;

/// Separates the levels of an account name.
pub const ACCOUNT_SEPARATOR: char = ':';
/// Deeper account names than this are refused.
pub const MAX_DEPTH: usize = 6;

/// Money moved into (positive) or out of (negative) one account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posting {
    pub account: String,
    pub amount: Amount,
}

/// A dated, balanced set of postings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transaction {
    pub date: Date,
    pub payee: String,
    pub postings: Vec<Posting>,
    /// Line of the transaction's header in its file (1-based).
    pub line: usize,
}

impl Transaction {
    /// The sum of all postings: zero for a balanced transaction.
    pub fn imbalance(&self) -> Amount {
        self.postings.iter().map(|p| p.amount).sum()
    }
}

/// Every transaction of a ledger, in date order (stable for equal dates).
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub transactions: Vec<Transaction>,
}

/// The first `depth` levels of an account name.
pub fn truncate_account(account: &str, depth: usize) -> &str {
    match account.match_indices(ACCOUNT_SEPARATOR).nth(depth.saturating_sub(1)) {
        Some((index, _)) if depth > 0 => &account[..index],
        _ => account,
    }
}

/// How many levels an account name has.
pub fn account_depth(account: &str) -> usize {
    account.split(ACCOUNT_SEPARATOR).count()
}

impl Ledger {
    pub fn new(mut transactions: Vec<Transaction>) -> Self {
        transactions.sort_by_key(|t| t.date);
        Ledger { transactions }
    }

    /// Transactions dated from `from` to `to`, both included.
    pub fn between(&self, from: Date, to: Date) -> Ledger {
        let transactions =
            self.transactions.iter().filter(|t| t.date >= from && t.date <= to).cloned().collect();
        Ledger { transactions }
    }

    /// Balance of every account that has a posting, by full name.
    pub fn balances(&self) -> BTreeMap<String, Amount> {
        let mut totals = BTreeMap::new();
        for posting in self.transactions.iter().flat_map(|t| &t.postings) {
            *totals.entry(posting.account.clone()).or_insert(Amount::ZERO) += posting.amount;
        }
        totals
    }

    /// Balances rolled up to the first `depth` levels of each account name.
    pub fn balances_at_depth(&self, depth: usize) -> BTreeMap<String, Amount> {
        let mut totals = BTreeMap::new();
        for (account, amount) in self.balances() {
            let key = truncate_account(&account, depth).to_string();
            *totals.entry(key).or_insert(Amount::ZERO) += amount;
        }
        totals
    }

    /// Postings to `account` or its sub-accounts, with the running total after each.
    pub fn register(&self, account: &str) -> Vec<(Date, String, Amount, Amount)> {
        let prefix = format!("{account}{ACCOUNT_SEPARATOR}");
        let mut running = Amount::ZERO;
        let mut rows = Vec::new();
        for t in &self.transactions {
            for p in &t.postings {
                if p.account == account || p.account.starts_with(&prefix) {
                    running += p.amount;
                    rows.push((t.date, t.payee.clone(), p.amount, running));
                }
            }
        }
        rows
    }

    /// Total of the postings to `account` (and below) in each month.
    pub fn monthly(&self, account: &str) -> BTreeMap<(u16, u8), Amount> {
        let mut months = BTreeMap::new();
        for (date, _, amount, _) in self.register(account) {
            *months.entry(date.month_key()).or_insert(Amount::ZERO) += amount;
        }
        months
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_account_names() {
        assert_eq!(truncate_account("expenses:food:groceries", 1), "expenses");
        assert_eq!(truncate_account("expenses:food:groceries", 2), "expenses:food");
        assert_eq!(truncate_account("expenses:food", 5), "expenses:food");
        assert_eq!(account_depth("assets:bank:checking"), 3);
    }
}
