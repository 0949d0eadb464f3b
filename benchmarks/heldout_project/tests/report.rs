use ledgerline::parse_ledger;
use ledgerline::report::{balance_report, monthly_report, register_report, ACCOUNT_WIDTH};

const HOUSEHOLD: &str = include_str!("../examples/household.ledger");

#[test]
fn balance_lists_accounts_then_the_total() {
    let ledger = parse_ledger(HOUSEHOLD).unwrap();
    let report = balance_report(&ledger, None);
    let lines: Vec<&str> = report.lines().collect();
    assert!(lines[0].starts_with("assets:bank:checking"));
    assert!(lines.last().unwrap().starts_with("total"));
    assert!(lines.last().unwrap().ends_with("0.00"));
}

#[test]
fn balance_rolls_up_to_a_depth() {
    let ledger = parse_ledger(HOUSEHOLD).unwrap();
    let report = balance_report(&ledger, Some(1));
    let accounts: Vec<&str> =
        report.lines().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(accounts, ["assets", "equity", "expenses", "income", &"-".repeat(ACCOUNT_WIDTH + 13), "total"]);
}

#[test]
fn register_keeps_a_running_total() {
    let ledger = parse_ledger(HOUSEHOLD).unwrap();
    let report = register_report(&ledger, "expenses:food");
    let last = report.lines().last().unwrap();
    assert!(last.ends_with("118.35"), "{last}");
}

#[test]
fn monthly_totals() {
    let ledger = parse_ledger(HOUSEHOLD).unwrap();
    assert_eq!(monthly_report(&ledger, "expenses:rent").lines().count(), 2);
}
