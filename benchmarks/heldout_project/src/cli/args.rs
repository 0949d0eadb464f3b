//! Arguments of the command line.

/// What `ledgerline --help` prints.
pub const USAGE: &str = "usage: ledgerline balance FILE [--depth N]
       ledgerline register FILE ACCOUNT
       ledgerline monthly FILE ACCOUNT
       ledgerline budget FILE BUDGET_FILE
       ledgerline check FILE";

/// One command and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Balance { file: String, depth: Option<usize> },
    Register { file: String, account: String },
    Monthly { file: String, account: String },
    Budget { file: String, budget: String },
    Check { file: String },
}

impl Command {
    /// The ledger the command reads.
    pub fn file(&self) -> &str {
        match self {
            Command::Balance { file, .. }
            | Command::Register { file, .. }
            | Command::Monthly { file, .. }
            | Command::Budget { file, .. }
            | Command::Check { file } => file,
        }
    }
}

/// Parse the arguments after the program's name.
pub fn parse_args(args: &[String]) -> Result<Command, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["balance", file] => Ok(Command::Balance { file: file.to_string(), depth: None }),
        ["balance", file, "--depth", n] => {
            let depth = n.parse().map_err(|_| format!("--depth takes a number, not {n:?}"))?;
            Ok(Command::Balance { file: file.to_string(), depth: Some(depth) })
        }
        ["register", file, account] => {
            Ok(Command::Register { file: file.to_string(), account: account.to_string() })
        }
        ["monthly", file, account] => {
            Ok(Command::Monthly { file: file.to_string(), account: account.to_string() })
        }
        ["budget", file, budget] => {
            Ok(Command::Budget { file: file.to_string(), budget: budget.to_string() })
        }
        ["check", file] => Ok(Command::Check { file: file.to_string() }),
        [] => Err("no command given".to_string()),
        [command, ..] => Err(format!("unknown command or arguments: {command}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn reads_depth() {
        let command = parse_args(&strings(&["balance", "a.ledger", "--depth", "2"])).unwrap();
        assert_eq!(command, Command::Balance { file: "a.ledger".into(), depth: Some(2) });
        assert!(parse_args(&strings(&["balance", "a.ledger", "--depth", "x"])).is_err());
    }
}
