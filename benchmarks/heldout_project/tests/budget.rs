use ledgerline::budget::{check, parse_budget, status, Status};
use ledgerline::{parse_ledger, Amount};

const HOUSEHOLD: &str = include_str!("../examples/household.ledger");
const BUDGET: &str = include_str!("../examples/household.budget");

#[test]
fn reads_the_example_budget() {
    let budget = parse_budget(BUDGET).unwrap();
    assert_eq!(budget.limits.len(), 3);
    assert_eq!(budget.limits["expenses:rent"], Amount::from_cents(95_000));
}

#[test]
fn close_is_from_ninety_percent() {
    let limit = Amount::from_cents(10_000);
    assert_eq!(status(Amount::from_cents(8_999), limit), Status::Under);
    assert_eq!(status(Amount::from_cents(9_000), limit), Status::Close);
    assert_eq!(status(Amount::from_cents(10_001), limit), Status::Over);
}

#[test]
fn food_goes_over_in_february() {
    let ledger = parse_ledger(HOUSEHOLD).unwrap();
    let budget = parse_budget(BUDGET).unwrap();
    let over: Vec<_> = check(&ledger, &budget)
        .into_iter()
        .filter(|row| row.3 == Status::Over)
        .map(|row| (row.0, row.1))
        .collect();
    assert_eq!(over, [("expenses:food".to_string(), (2025, 2))]);
}

#[test]
fn refuses_a_bad_line() {
    let err = parse_budget("budget expenses:food 10\nbudgit x 3\n").unwrap_err();
    assert_eq!(err.line, 2);
}
