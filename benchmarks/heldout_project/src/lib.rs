//! ledgerline: balances, registers and budgets from plain-text ledgers.
//!
//! A ledger is a text file of dated transactions, each with two or more postings to
//! colon-separated accounts (`expenses:food:groceries`). At most one posting of a
//! transaction may leave its amount out; it takes whatever balances the others.

pub mod budget;
pub mod cli;
pub mod date;
pub mod ledger;
pub mod money;
pub mod parse;
pub mod report;

pub use date::Date;
pub use ledger::{Ledger, Posting, Transaction};
pub use money::Amount;
pub use parse::{parse_ledger, ParseError};
