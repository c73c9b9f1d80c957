//! `otp`: the table in a window, and the same rules and geometry from the command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use otp::scenario::{self, Scenario};

#[derive(Parser)]
#[command(name = "otp", version, about = "On to Philadelphia on a digital table")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open a scenario in the window (the embedded teaching battle if none is named).
    Play {
        file: Option<PathBuf>,
        /// Save a screenshot of the first drawn table to this PNG and exit (tests, docs, timing).
        #[arg(long)]
        screenshot: Option<PathBuf>,
    },
    /// Validate scenario files: every problem as file:line:col: message.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Draw a scenario's set-up to .svg or .png, in the window's colours.
    Render {
        file: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Pixels per inch for PNG output.
        #[arg(long, default_value_t = otp::render::DEFAULT_PNG_SCALE)]
        scale: f32,
    },
    /// A shot at set-up: its geometry, every modifier with its rule, the chart column and the exact odds.
    Fire {
        scenario: PathBuf,
        firer: String,
        target: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Artillery firing ball, which may fire over lower units (OTP 8.9).
        #[arg(long)]
        ball: bool,
    },
    /// Print the reports of a saved game: every die, modifier and chart cell, replayed.
    Replay { save: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Play { file: None, screenshot: None }) {
        Command::Play { file, screenshot } => play(file, screenshot),
        Command::Check { files } => check(&files),
        Command::Render { file, output, scale } => render(&file, &output, scale),
        Command::Fire { scenario, firer, target, json, ball } => fire(&scenario, &firer, &target, json, ball),
        Command::Replay { save } => match otp::rules::otp::engine::save::replay_report_text(&save) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn load(file: &PathBuf) -> Result<Scenario, ExitCode> {
    scenario::load(file).map_err(|e| {
        eprintln!("{e}");
        ExitCode::FAILURE
    })
}

fn check(files: &[PathBuf]) -> ExitCode {
    let mut ok = true;
    for file in files {
        match scenario::load(file) {
            Ok(s) => {
                let units: usize = s.sides.iter().flat_map(|x| &x.brigades).map(|b| b.units.len()).sum();
                println!("{}: ok — {}, {} sides, {units} units, {}\" x {}\"", file.display(), s.name, s.sides.len(), s.table.width, s.table.depth);
            }
            Err(e) => {
                eprintln!("{e}");
                ok = false;
            }
        }
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn render(file: &PathBuf, output: &PathBuf, scale: f32) -> ExitCode {
    let s = match load(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if !scale.is_finite() || !(1.0..=200.0).contains(&scale) {
        eprintln!("--scale must be 1 to 200 pixels an inch");
        return ExitCode::FAILURE;
    }
    match otp::render::write(&otp::picture::setup(&s), &s.name, output, scale) {
        Ok(()) => {
            println!("wrote {}", output.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn fire(file: &PathBuf, firer: &str, target: &str, json: bool, ball: bool) -> ExitCode {
    use otp::rules::otp::fire::{fire_command_json, fire_command_text};
    let s = match load(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let out = if json {
        fire_command_json(&s, firer, target, ball).map(|v| serde_json::to_string_pretty(&v).expect("JSON values print"))
    } else {
        fire_command_text(&s, firer, target, ball)
    };
    match out {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "window")]
fn play(file: Option<PathBuf>, screenshot: Option<PathBuf>) -> ExitCode {
    let (scenario, source) = match &file {
        None => (scenario::default_scenario(), scenario::DEFAULT_SCENARIO_NAME.to_string()),
        Some(f) => match load(f) {
            Ok(s) => (s, f.display().to_string()),
            Err(code) => return code,
        },
    };
    otp::ui::run(scenario, source, otp::ui::RunOptions { screenshot });
    ExitCode::SUCCESS
}

#[cfg(not(feature = "window"))]
fn play(_file: Option<PathBuf>, _screenshot: Option<PathBuf>) -> ExitCode {
    eprintln!("this otp was built without the window (cargo feature \"window\")");
    ExitCode::FAILURE
}
