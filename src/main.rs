//! The command line: parses arguments, calls the library, prints results.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "wavetrace",
    version,
    about = "A Vulkan wavefront path tracer with hardware ray tracing"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List Vulkan devices, their trace backends and the limits that matter to wavetrace.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { json } => info(json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("wavetrace: {message}");
            ExitCode::FAILURE
        }
    }
}

fn info(json: bool) -> Result<(), String> {
    let report = wavetrace::info::system_report().map_err(|e| e.to_string())?;
    if json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print!("{report}");
    }
    Ok(())
}
