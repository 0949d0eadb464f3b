use ledgerline::{parse_ledger, Amount};

const HOUSEHOLD: &str = include_str!("../examples/household.ledger");

#[test]
fn reads_the_example() {
    let ledger = parse_ledger(HOUSEHOLD).unwrap();
    assert_eq!(ledger.transactions.len(), 9);
    assert_eq!(ledger.transactions[0].payee, "Opening balance");
}

#[test]
fn fills_the_elided_amount() {
    let ledger = parse_ledger("2025-01-02 Bakery\n    expenses:food  4.20\n    assets:cash\n").unwrap();
    let postings = &ledger.transactions[0].postings;
    assert_eq!(postings[1].amount, Amount::from_cents(-420));
}

#[test]
fn names_the_line_of_an_unbalanced_transaction() {
    let text = "; two transactions\n2025-01-02 A\n    x:a  1\n    x:b  -1\n\n2025-01-03 B\n    x:a  1\n    x:b  -2\n";
    let err = parse_ledger(text).unwrap_err();
    assert_eq!(err.line, 6);
    assert!(err.message.contains("off by"), "{}", err.message);
}

#[test]
fn refuses_two_elided_amounts() {
    let err = parse_ledger("2025-01-02 A\n    x:a\n    x:b\n").unwrap_err();
    assert_eq!(err.line, 1);
}

#[test]
fn refuses_a_posting_before_any_transaction() {
    let err = parse_ledger("    x:a  1\n").unwrap_err();
    assert_eq!((err.line, err.message.as_str()), (1, "posting outside a transaction"));
}

#[test]
fn refuses_bad_dates() {
    assert!(parse_ledger("2025-02-30 A\n    x:a  1\n    x:b\n").is_err());
    assert!(parse_ledger("25-02-03 A\n    x:a  1\n    x:b\n").is_err());
}
