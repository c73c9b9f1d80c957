//! `otp`: the table in a window, and the same rules and geometry from the command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use otp::rules::cite::RuleSetId;
use otp::rules::engine::{self, PreviewCommand};
use otp::rules::registry;
use otp::scenario::{self, Scenario};

#[derive(Parser)]
#[command(name = "otp", version, about = "On to Philadelphia on a digital table")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// `--rules ID`, on every command that plays a scenario.
#[derive(clap::Args)]
struct RulesArg {
    /// Play under this rule set instead of the one the scenario names (otp, revolution,
    /// acw-orders, acw-quick, purky, tiny).
    #[arg(long = "rules", value_name = "ID")]
    rules: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Play a scenario or a saved game in the window (the embedded teaching battle if none is named).
    Play {
        file: Option<PathBuf>,
        /// Save a screenshot of the first drawn table to this PNG and exit (tests, docs, timing).
        #[arg(long)]
        screenshot: Option<PathBuf>,
        /// Go on with a save whose scenario was edited after the game was played.
        #[arg(long)]
        force: bool,
        /// Open a saved game as a replay: step through it action by action (nothing changes
        /// until "Play on from here").
        #[arg(long)]
        replay: bool,
        /// Take a lesson: a shipped one by name (otp-the-turn, otp-arc, purky-fire…: docs/lessons.md lists them) or a lesson file.
        #[arg(long, value_name = "NAME", conflicts_with_all = ["file", "replay"])]
        lesson: Option<String>,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Lay out a scenario in the window's set-up editor: terrain and troops by mouse, forms,
    /// undo, live checks, Save (comments kept) and Play this. Without a file, a new table.
    Edit {
        file: Option<PathBuf>,
        /// Save a screenshot of the first drawn editor to this PNG and exit.
        #[arg(long)]
        screenshot: Option<PathBuf>,
    },
    /// Validate scenario files: every problem as file:line:col: message.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Draw a scenario's set-up to .svg or .png, in the window's colours; or with --print, at true
    /// scale to a .pdf tiled over pages, with a page map and a set-up sheet.
    Render {
        file: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Pixels per inch for PNG output (default 20); with --print, the print scale (default 1,
        /// true size; 2 prints the table twice as large).
        #[arg(long)]
        scale: Option<f32>,
        /// Print the table at true scale over pages of this paper (A4 or Letter) into a .pdf.
        #[arg(long, value_enum, ignore_case = true, value_name = "PAPER")]
        print: Option<otp::render::print::Paper>,
    },
    /// A shot at set-up: its geometry, every modifier with its rule, the chart column and the exact odds
    /// (`--rules all`: judged by every rule set that can read the scenario, side by side).
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
        #[command(flatten)]
        rules: RulesArg,
    },
    /// A charge at set-up: attack zone, the closing roll, both sides' melee values with every factor and rule, and the exact outcomes
    /// (`--rules all`: judged by every rule set that can read the scenario, side by side).
    Melee {
        scenario: PathBuf,
        attacker: String,
        defender: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// A special move to contact: the full move plus the averaging dice (OTP 6.8).
        #[arg(long)]
        special: bool,
        #[command(flatten)]
        rules: RulesArg,
    },
    /// Print the reports of a saved game: every die, modifier and chart cell, replayed.
    Replay {
        save: PathBuf,
        /// Replay a save whose scenario was edited after the game (the reports will differ).
        #[arg(long)]
        force: bool,
        /// The rule set the save must name (a save replays under its own).
        #[arg(long = "rules", value_name = "ID")]
        rules: Option<String>,
    },
    /// Automatic players on both sides: a summary per game and, for several games, the spread.
    Simulate {
        scenario: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Turns to play (default: the scenario's turn limit).
        #[arg(long)]
        turns: Option<u32>,
        /// Games to play, with seeds seed, seed+1, ...
        #[arg(long, default_value_t = 1)]
        games: usize,
        /// JSON lines: every report of the game (one game), or each game's outcome (several).
        #[arg(long)]
        log: Option<PathBuf>,
        /// Print the scenario's balance table in Markdown instead: each side's wins, draws, mean
        /// losses, how often the historical winner won, the mean turn decided.
        #[arg(long, conflicts_with = "log")]
        balance: bool,
        /// The automatic players' levels: novice, standard or strong for every side, or one a
        /// side separated by ':' (first side : second side, e.g. `strong:novice`). Default: novice.
        #[arg(long, value_name = "LEVELS")]
        bot: Option<String>,
        #[command(flatten)]
        rules: RulesArg,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Play { file: None, screenshot: None, force: false, replay: false, lesson: None, rules: RulesArg { rules: None } }) {
        Command::Play { screenshot, lesson: Some(name), .. } => take_lesson(&name, screenshot),
        Command::Play { file, screenshot, force, replay, rules, .. } => play(file, screenshot, force, replay, rules.rules.as_deref()),
        Command::Edit { file, screenshot } => edit(file, screenshot),
        Command::Check { files } => check(&files),
        Command::Render { file, output, scale, print: None } => render(&file, &output, scale.unwrap_or(otp::render::DEFAULT_PNG_SCALE)),
        Command::Render { file, output, scale, print: Some(paper) } => print(&file, &output, paper, scale.unwrap_or(1.0)),
        Command::Fire { scenario, firer, target, json, ball, rules } => preview(&scenario, PreviewCommand::Fire { ball }, &firer, &target, json, rules.rules.as_deref()),
        Command::Melee { scenario, attacker, defender, json, special, rules } => preview(&scenario, PreviewCommand::Melee { special }, &attacker, &defender, json, rules.rules.as_deref()),
        Command::Simulate { scenario, seed, turns, games, balance: true, bot, rules, .. } => balance(&scenario, seed, turns, games, bot.as_deref(), rules.rules.as_deref()),
        Command::Simulate { scenario, seed, turns, games, log, bot, rules, .. } => simulate(&scenario, seed, turns, games, log.as_deref(), bot.as_deref(), rules.rules.as_deref()),
        Command::Replay { save, force, rules } => replay(&save, force, rules.as_deref()),
    }
}

/// The rule set `--rules` names, if any; an unknown or unplayable one is an error on stderr.
fn rules_asked(key: Option<&str>) -> Result<Option<RuleSetId>, ExitCode> {
    key.map(registry::parse_rules).transpose().map_err(|e| {
        eprintln!("{e}");
        ExitCode::FAILURE
    })
}

fn replay(save: &Path, force: bool, rules: Option<&str>) -> ExitCode {
    let rules = match rules_asked(rules) {
        Ok(r) => r,
        Err(code) => return code,
    };
    match registry::replay_file(save, force, rules) {
        Ok(replay) => {
            if !replay.changed.is_empty() {
                eprintln!("warning: {}", engine::changed_message(&save.display().to_string(), &replay.changed));
            }
            print!("{}", replay.text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Whether two paths name one file (the same inode, however spelt: links, `..`, symlinks).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// Refuse an output path that is one of the inputs: nothing the user wrote is overwritten.
fn refuse_overwriting_input(output: &Path, inputs: &[&Path]) -> Result<(), ExitCode> {
    match inputs.iter().find(|input| same_file(output, input) || output == **input) {
        Some(input) => {
            eprintln!("{}: that is the input file {}; it is not written over: name another output", output.display(), input.display());
            Err(ExitCode::FAILURE)
        }
        None => Ok(()),
    }
}

fn load(file: &Path) -> Result<Scenario, ExitCode> {
    load_under(file, None)
}

/// A scenario file, under the rule set `--rules` names when given (then validated for it).
fn load_under(file: &Path, rules: Option<&str>) -> Result<Scenario, ExitCode> {
    scenario::load_under(file, rules_asked(rules)?).map_err(|e| {
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

fn render(file: &Path, output: &Path, scale: f32) -> ExitCode {
    let s = match load(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Err(code) = refuse_overwriting_input(output, &[file]) {
        return code;
    }
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

fn print(file: &Path, output: &Path, paper: otp::render::print::Paper, scale: f32) -> ExitCode {
    let s = match load(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Err(code) = refuse_overwriting_input(output, &[file]) {
        return code;
    }
    match otp::render::print::write(&s, paper, scale, output) {
        Ok((layout, pages)) => {
            println!(
                "wrote {}: {pages} pages of {} {} (map, {} tiles in {} rows of {}, set-up sheet)",
                output.display(),
                paper.name(),
                if layout.landscape { "landscape" } else { "portrait" },
                layout.tiles(),
                layout.rows,
                layout.cols
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// `otp fire` and `otp melee`: the preview the scenario's rule set prints; with `--rules all`,
/// every rule set's side by side.
fn preview(file: &Path, command: PreviewCommand, unit: &str, target: &str, json: bool, rules: Option<&str>) -> ExitCode {
    if rules == Some("all") {
        let text = match scenario::read_text(file, scenario::MAX_FILE_BYTES) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        let name = file.display().to_string();
        let read = |r: RuleSetId| scenario::parse_under(&text, &name, Some(r)).map_err(|e| e.to_string());
        return emit(registry::print_judgements(&registry::judge_everywhere(read, command, unit, target, json), unit, target, json));
    }
    match load_under(file, rules) {
        Ok(s) => emit(registry::preview_command(s.rules, command, &s, unit, target, json)),
        Err(code) => code,
    }
}

/// Print what a command printed; its exit code.
fn emit(p: engine::Printed) -> ExitCode {
    print!("{}", p.stdout);
    eprint!("{}", p.stderr);
    if p.success { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// The levels `--bot` asks for, one a side (`None`: the rule set's own player, the novice).
fn bot_levels(s: &Scenario, bot: Option<&str>) -> Result<Option<Vec<otp::rules::automatic::Level>>, ExitCode> {
    bot.map(|text| registry::parse_bots(s.rules, text, s.sides.len())).transpose().map_err(|e| {
        eprintln!("{e}");
        ExitCode::FAILURE
    })
}

/// The progress bar of many games on standard error, on a line of its own: on a terminal it is
/// redrawn in place and wiped before each game's line is printed; otherwise a line every tenth.
struct Progress {
    games: usize,
    terminal: bool,
    shown: bool,
}

impl Progress {
    fn new(games: usize) -> Self {
        use std::io::IsTerminal;
        Progress { games, terminal: std::io::stderr().is_terminal(), shown: false }
    }
    /// Before anything is printed on standard output: the bar off its line.
    fn clear(&mut self) {
        if self.terminal && self.shown {
            eprint!("\r\x1b[2K");
            self.shown = false;
        }
    }
    fn show(&mut self, done: usize) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if self.terminal {
            let filled = done * 30 / self.games.max(1);
            eprint!("\r[{}{}] {done}/{}", "#".repeat(filled), " ".repeat(30 - filled), self.games);
            self.shown = true;
        } else if done == self.games || (done * 10 / self.games.max(1)) != ((done - 1) * 10 / self.games.max(1)) {
            eprintln!("[{done}/{} games]", self.games);
        }
    }
    fn finish(&mut self) {
        if self.terminal && self.shown {
            eprintln!();
            self.shown = false;
        }
    }
}

fn simulate(file: &Path, seed: u64, turns: Option<u32>, games: usize, log: Option<&Path>, bot_arg: Option<&str>, rules: Option<&str>) -> ExitCode {
    use otp::rules::registry as bot;
    use std::io::Write;
    let s = match load_for_games(file, games, turns, rules) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let levels = match bot_levels(&s, bot_arg) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if let Some(log) = log
        && let Err(code) = refuse_overwriting_input(log, &[file])
    {
        return code;
    }
    let log_failed = |e: &dyn std::fmt::Display| {
        eprintln!("{}: could not write the log: {e}", log.map_or(String::new(), |l| l.display().to_string()));
        ExitCode::FAILURE
    };
    let mut sink = match log.map(std::fs::File::create).transpose() {
        Ok(f) => f.map(std::io::BufWriter::new),
        Err(e) => return log_failed(&e),
    };
    if games == 1 {
        let out = sink.as_mut().map(|w| w as &mut dyn Write);
        let played = match &levels {
            Some(l) => bot::simulate_levels(s.rules, l.clone(), &s, seed, turns, out),
            None => bot::simulate(s.rules, &s, seed, turns, out),
        };
        let o = match played {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        println!("{}", o.line());
        let flushed = sink.as_mut().map_or(Ok(()), |w| w.flush());
        if let Some(e) = &o.log_error {
            return log_failed(e);
        }
        if let Err(e) = flushed {
            return log_failed(&e);
        }
        return if o.refusals == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    let mut write_error: Option<std::io::Error> = None;
    let mut bar = Progress::new(games);
    let each = |done: usize, o: &otp::rules::simulate::GameOutcome| {
        bar.clear();
        println!("{}", o.line());
        if let Some(w) = sink.as_mut()
            && write_error.is_none()
            && let Err(e) = writeln!(w, "{}", serde_json::to_string(o).expect("outcomes serialise"))
        {
            write_error = Some(e);
        }
        bar.show(done);
    };
    let spread = match &levels {
        Some(l) => bot::simulate_many_levels(s.rules, l.clone(), &s, seed, games, turns, each),
        None => bot::simulate_many(s.rules, &s, seed, games, turns, each),
    };
    bar.finish();
    let spread = match spread {
        Ok(spread) => spread,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    println!("\n{} games from seed {}:", spread.games, spread.first_seed);
    for side in &spread.sides {
        println!(
            "  {:<12} figures lost mean {:.1} (min {}, max {}), units broken mean {:.2}, wins {}",
            side.side, side.mean_figures_lost, side.min_figures_lost, side.max_figures_lost, side.mean_units_broken, side.wins
        );
    }
    println!("  draws {}, refusals {}", spread.draws, spread.refusals);
    if let Some(e) = write_error {
        return log_failed(&e);
    }
    if let Some(mut w) = sink
        && let Err(e) = w.flush()
    {
        return log_failed(&e);
    }
    if spread.refusals == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// The scenario for `simulate`, with at least one game of at least one turn asked for.
fn load_for_games(file: &Path, games: usize, turns: Option<u32>, rules: Option<&str>) -> Result<Scenario, ExitCode> {
    if games == 0 || turns == Some(0) {
        eprintln!("--games and --turns must be at least 1");
        return Err(ExitCode::FAILURE);
    }
    load_under(file, rules)
}

/// `otp simulate --balance`: the balance table of `games` automatic games, in Markdown.
fn balance(file: &Path, seed: u64, turns: Option<u32>, games: usize, bot: Option<&str>, rules: Option<&str>) -> ExitCode {
    let s = match load_for_games(file, games, turns, rules) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let levels = match bot_levels(&s, bot) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut bar = Progress::new(games);
    let table = match levels {
        Some(l) => registry::balance_table_levels(s.rules, l, &s, seed, games, turns, |done| bar.show(done)),
        None => registry::balance_table(s.rules, &s, seed, games, turns, |done| bar.show(done)),
    };
    bar.finish();
    match table {
        Ok((markdown, refusals)) => {
            print!("{markdown}");
            if refusals == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "window")]
fn play(file: Option<PathBuf>, screenshot: Option<PathBuf>, force: bool, replay: bool, rules: Option<&str>) -> ExitCode {
    use otp::ui::session::Opening;
    let rules = match rules_asked(rules) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let opening = match &file {
        None => Opening::Scenario { scenario: Box::new(scenario::default_scenario()), source: scenario::DEFAULT_SCENARIO_NAME.to_string() },
        Some(f) => match Opening::read(f) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let opening = match (opening, rules) {
        (o, None) => o,
        // The scenario, read again under the rule set asked for, so it is validated for it.
        (Opening::Scenario { scenario: _, source }, Some(r)) => match file.as_deref().map_or_else(|| scenario::parse_under(scenario::DEFAULT_SCENARIO, &source, Some(r)), |f| scenario::load_under(f, Some(r))) {
            Ok(s) => Opening::Scenario { scenario: Box::new(s), source },
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        },
        (Opening::Saved { text, source, .. }, Some(r)) if engine::SaveHeader::read(&text, &source).is_ok_and(|h| h.rules != r) => {
            let played = engine::SaveHeader::read(&text, &source).map(|h| h.rules).unwrap_or_default();
            eprintln!("{source}: this game was played under {played:?} ({}), not {r:?}: a save is played under the rule set it names", played.title());
            return ExitCode::FAILURE;
        }
        (o, Some(_)) => o,
    };
    if let Opening::Saved { source, changed, .. } = &opening {
        if !changed.is_empty() {
            let message = engine::changed_message(source, changed);
            if !force {
                eprintln!("{message}; --force plays it anyway");
                return ExitCode::FAILURE;
            }
            eprintln!("warning: {message}");
        }
    }
    if replay && !matches!(opening, Opening::Saved { .. }) {
        eprintln!("--replay: {} is a scenario, not a saved game; there is nothing to replay", file.as_ref().map_or(scenario::DEFAULT_SCENARIO_NAME.to_string(), |f| f.display().to_string()));
        return ExitCode::FAILURE;
    }
    otp::ui::run(opening, otp::ui::RunOptions { screenshot, replay, lesson: None, edit: None });
    ExitCode::SUCCESS
}

/// `otp edit [FILE]`: a scenario file (it must parse; its problems are shown in the editor to
/// be mended) or a new 6' x 4' table with two sides.
#[cfg(feature = "window")]
fn edit(file: Option<PathBuf>, screenshot: Option<PathBuf>) -> ExitCode {
    use otp::editor::Editor;
    let editor = match &file {
        None => Editor::blank(72.0, 48.0, otp::scenario::RuleSetId::Otp, &["British", "Americans"]),
        Some(f) => match scenario::read_text(f, scenario::MAX_FILE_BYTES).map_err(|e| e.to_string()).and_then(|t| Editor::open(&t, &f.display().to_string()).map_err(|e| e.to_string())) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let source = file.as_ref().map_or("new scenario".to_string(), |f| f.display().to_string());
    let opening = otp::ui::session::Opening::Scenario { scenario: Box::new(editor.scenario.clone()), source };
    otp::ui::run(opening, otp::ui::RunOptions { screenshot, replay: false, lesson: None, edit: Some((editor, file)) });
    ExitCode::SUCCESS
}

#[cfg(feature = "window")]
fn take_lesson(name: &str, screenshot: Option<PathBuf>) -> ExitCode {
    match otp::ui::lesson::opening(name) {
        Ok((opening, lesson)) => {
            otp::ui::run(opening, otp::ui::RunOptions { screenshot, replay: false, lesson: Some((name.to_string(), lesson)), edit: None });
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(not(feature = "window"))]
fn take_lesson(name: &str, _screenshot: Option<PathBuf>) -> ExitCode {
    match otp::lessons::Lesson::find(name) {
        Ok(_) => eprintln!("this otp was built without the window (cargo feature \"window\")"),
        Err(e) => eprintln!("{e}"),
    }
    ExitCode::FAILURE
}

#[cfg(not(feature = "window"))]
fn edit(_file: Option<PathBuf>, _screenshot: Option<PathBuf>) -> ExitCode {
    eprintln!("this otp was built without the window (cargo feature \"window\")");
    ExitCode::FAILURE
}

#[cfg(not(feature = "window"))]
fn play(_file: Option<PathBuf>, _screenshot: Option<PathBuf>, _force: bool, _replay: bool, rules: Option<&str>) -> ExitCode {
    if let Err(code) = rules_asked(rules) {
        return code;
    }
    eprintln!("this otp was built without the window (cargo feature \"window\")");
    ExitCode::FAILURE
}
