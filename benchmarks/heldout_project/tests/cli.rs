use ledgerline::cli::{run, EXIT_BAD_INPUT, EXIT_OK, EXIT_OVER_BUDGET, EXIT_USAGE};

fn ledgerline(words: &[&str]) -> (u8, String, String) {
    let args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(&args, &mut out, &mut err);
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[test]
fn check_counts_transactions() {
    let (code, out, _) = ledgerline(&["check", "examples/household.ledger"]);
    assert_eq!((code, out.as_str()), (EXIT_OK, "9 transactions\n"));
}

#[test]
fn a_missing_file_is_bad_input() {
    let (code, _, err) = ledgerline(&["check", "examples/nothing.ledger"]);
    assert_eq!(code, EXIT_BAD_INPUT);
    assert!(err.starts_with("ledgerline: examples/nothing.ledger:"));
}

#[test]
fn no_command_prints_the_usage() {
    let (code, _, err) = ledgerline(&[]);
    assert_eq!(code, EXIT_USAGE);
    assert!(err.contains("usage: ledgerline balance"));
}

#[test]
fn over_budget_exits_one() {
    let (code, out, _) =
        ledgerline(&["budget", "examples/household.ledger", "examples/household.budget"]);
    assert_eq!(code, EXIT_OVER_BUDGET);
    assert!(out.contains("2025-02 expenses:food 73.15  OVER"), "{out}");
}
