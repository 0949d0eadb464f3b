use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    let code = ledgerline::cli::run(&args, &mut out, &mut err);
    ExitCode::from(code)
}
