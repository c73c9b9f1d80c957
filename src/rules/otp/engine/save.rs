//! Saved games: the scenario, the seed and the actions, as RON. Loading replays the actions;
//! undo replays all but the last, so the dice come out as they did and a re-roll cannot be
//! fished for.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::action::Action;
use super::Game;
use crate::rules::otp::charts::Charts;
use crate::scenario::{self, Scenario};

/// A saved game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Save {
    pub scenario: Scenario,
    pub seed: u64,
    pub actions: Vec<Action>,
}

/// The largest save file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

impl Save {
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().struct_names(false).indentor("    ".to_string());
        ron::Options::default().to_string_pretty(self, config).expect("saves always serialise")
    }

    /// Parse save text; `file` names it in messages (`file:line:col: message`).
    pub fn parse(text: &str, file: &str) -> Result<Save, String> {
        let save: Save = ron::Options::default().from_str(text).map_err(|e| format!("{file}:{}:{}: {}", e.span.start.line, e.span.start.col, e.code))?;
        let problems = scenario::validate::validate(&save.scenario);
        if !problems.is_empty() {
            let lines: Vec<String> = problems.iter().map(|(locus, m)| format!("{file}: in the scenario, {}: {m}", locus.describe())).collect();
            return Err(lines.join("\n"));
        }
        Ok(save)
    }
}

impl Game {
    pub fn to_save(&self) -> Save {
        Save { scenario: self.scenario.clone(), seed: self.seed, actions: self.actions.clone() }
    }

    /// Write the game (scenario + seed + actions) atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        scenario::write_atomically(path, &self.to_save().to_ron())
    }

    /// Replay a save with these charts. Every action must still be legal: a refusal means the
    /// save does not belong to these charts or this version, and is an error naming the action.
    pub fn from_save(save: &Save, charts: Charts) -> Result<Game, String> {
        let mut game = Game::new(save.scenario.clone(), save.seed, charts);
        for (i, action) in save.actions.iter().enumerate() {
            game.apply(action.clone()).map_err(|r| format!("action {} ({action}): {r}", i + 1))?;
        }
        Ok(game)
    }

    /// Load and replay a saved game with the embedded charts.
    pub fn load(path: &Path) -> Result<Game, String> {
        Game::load_with(path, Charts::embedded().clone())
    }

    /// Load and replay a saved game with these charts (a player's own, `Charts::load_dir`).
    pub fn load_with(path: &Path, charts: Charts) -> Result<Game, String> {
        let file = path.display().to_string();
        let meta = std::fs::metadata(path).map_err(|e| format!("{file}: {e}"))?;
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!("{file}: {} bytes; a save is at most {MAX_FILE_BYTES}", meta.len()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
        let save = Save::parse(&text, &file)?;
        Game::from_save(&save, charts).map_err(|e| format!("{file}: {e}"))
    }

    /// Take back the last action: the game is rebuilt from the scenario, the seed and the others.
    pub fn undo(&mut self) -> Option<Action> {
        let mut save = self.to_save();
        let last = save.actions.pop()?;
        *self = Game::from_save(&save, self.charts.clone()).expect("a prefix of legal actions replays");
        Some(last)
    }
}

/// The reports of a saved game in plain words, for `otp replay SAVE`.
pub fn replay_report_text(save_path: &Path) -> Result<String, String> {
    let game = Game::load(save_path)?;
    let mut text = format!("{} (seed {}): {} actions\n", game.scenario().name, game.seed(), game.actions().len());
    for r in game.reports() {
        text.push_str(&r.to_string());
    }
    Ok(text)
}
