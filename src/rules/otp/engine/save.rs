//! Saved games: the scenario, a digest of it, the seed and the actions, as RON. Loading replays
//! the actions; undo replays all but the last, so the dice come out as they did and a re-roll
//! cannot be fished for.

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Game;
use super::action::Action;
use super::report::Refusal;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{FIRST_SAVE_FORMAT, SAVE_FORMAT, SaveHeader};
pub use crate::rules::engine::{Replay, changed_message};
use crate::rules::otp::charts::Charts;
use crate::scenario::locate::{self, Locus, Spans};
use crate::scenario::{self, Scenario};

/// A saved game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Save {
    /// The save format ([`SAVE_FORMAT`] when written; saves from before it say none: 1).
    #[serde(default = "first_save_format")]
    pub format: u32,
    /// The rule set the game is played under: always On to Philadelphia here (1: unnamed).
    #[serde(default)]
    pub rules: RuleSetId,
    pub scenario: Scenario,
    /// The scenario as the game was played on it; saves from before digests have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<ScenarioDigest>,
    pub seed: u64,
    pub actions: Vec<Action>,
}

/// The largest save file read.
pub const MAX_FILE_BYTES: u64 = crate::rules::engine::MAX_SAVE_BYTES;

fn first_save_format() -> u32 {
    FIRST_SAVE_FORMAT
}

/// A stable digest of a scenario: FNV-1a (64 bits, hex) of its canonical text, ron's compact
/// serialisation of the model, for the whole and for each part (every unit, brigade, side,
/// terrain feature, objective, the table...), so that a replay can say what was edited.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDigest {
    pub whole: String,
    pub parts: BTreeMap<String, String>,
}

fn fnv_hex<T: Serialize>(value: &T) -> String {
    let text = ron::Options::default().to_string(value).expect("scenarios always serialise");
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(text.as_bytes());
    format!("{:016x}", hasher.finish())
}

impl ScenarioDigest {
    pub fn of(s: &Scenario) -> ScenarioDigest {
        let mut parts = BTreeMap::new();
        let mut part = |key: String, digest: String| {
            let mut key_n = key.clone();
            let mut n = 1;
            while parts.contains_key(&key_n) {
                n += 1;
                key_n = format!("{key} #{n}");
            }
            parts.insert(key_n, digest);
        };
        part("name".into(), fnv_hex(&s.name));
        part("description".into(), fnv_hex(&(&s.description, &s.history)));
        part("table".into(), fnv_hex(&s.table));
        part("basing".into(), fnv_hex(&s.basing));
        part("optional_rules".into(), fnv_hex(&s.optional_rules));
        part("turn_limit".into(), fnv_hex(&s.turn_limit));
        // Parts added with other rule sets are digested only when written, so every digest taken
        // before them still matches its scenario.
        if !s.rules.is_otp() {
            part("rules".into(), fnv_hex(&s.rules));
        }
        for t in &s.terrain {
            part(format!("terrain {:?}", t.name()), fnv_hex(t));
        }
        for side in &s.sides {
            part(format!("side {:?}", side.name), fnv_hex(&(&side.name, &side.colour, &side.commander, side.brigades.len())));
            if side.nation.is_some() || side.moves_first {
                part(format!("side {:?} nation", side.name), fnv_hex(&(&side.nation, side.moves_first)));
            }
            for b in &side.brigades {
                part(format!("brigade {:?}", b.name), fnv_hex(&(&side.name, &b.name, b.chit, &b.commander, b.units.len())));
                for u in &b.units {
                    part(format!("unit {:?}", u.name), fnv_hex(&(&b.name, u)));
                }
            }
        }
        for o in &s.objectives {
            part(format!("objective {:?}", o.name), fnv_hex(o));
        }
        ScenarioDigest { whole: fnv_hex(s), parts }
    }

    /// What differs in `now` from the scenario this digest was taken of: nothing when the same.
    pub fn changes(&self, now: &Scenario) -> Vec<String> {
        let now = ScenarioDigest::of(now);
        if now.whole == self.whole {
            return Vec::new();
        }
        let mut changes: Vec<String> = self
            .parts
            .iter()
            .filter_map(|(key, digest)| match now.parts.get(key) {
                None => Some(format!("{key} removed")),
                Some(d) if d != digest => Some(format!("{key} changed")),
                _ => None,
            })
            .collect();
        changes.extend(now.parts.keys().filter(|k| !self.parts.contains_key(*k)).map(|k| format!("{k} added")));
        if changes.is_empty() {
            changes.push("the scenario changed".into());
        }
        changes
    }
}

/// An action as messages quote it, cut short if a file made it enormous.
fn quoted(action: &Action) -> String {
    let text = action.to_string();
    match text.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// `file:line:col: action n (...): refusal`, at the action's place in the save's text.
fn action_error(text: &str, spans: Option<&Spans>, file: &str, index: usize, action: &Action, refusal: &Refusal) -> String {
    let place = spans.and_then(|s| locate::locate(text, s, &Locus::top("actions").index(index)));
    let at = place.map_or(String::new(), |(line, col)| format!("{line}:{col}:"));
    scenario::one_line(&format!("{file}:{at} action {} ({}): {refusal}", index + 1, quoted(action))).into_owned()
}

impl Save {
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().struct_names(false).indentor("    ".to_string());
        ron::Options::default().to_string_pretty(self, config).expect("saves always serialise")
    }

    /// Parse save text; `file` names it in messages (`file:line:col: message`). The scenario is
    /// validated and every action's numbers checked ([`Action::check_numbers`]) before anything
    /// is replayed.
    pub fn parse(text: &str, file: &str) -> Result<Save, String> {
        let header = SaveHeader::read(text, file)?;
        if header.rules != RuleSetId::Otp {
            return Err(header.unplayable(text, file));
        }
        let text = scenario::without_bom(text);
        let save: Save = scenario::from_ron(text, file).map_err(|e| e.to_string())?;
        let problems = scenario::validate::validate(&save.scenario);
        if !problems.is_empty() {
            let spans = Spans::of(text);
            let in_scenario = spans.as_ref().and_then(|s| s.field("scenario")).map(|(_, s)| s);
            return Err(scenario::locate_problems(text, in_scenario, file, problems).to_string());
        }
        let table = save.scenario.table;
        let bad: Vec<(usize, Refusal)> = save.actions.iter().enumerate().filter_map(|(i, a)| a.check_numbers(&table).err().map(|r| (i, r))).collect();
        if !bad.is_empty() {
            let spans = Spans::of(text);
            let lines: Vec<String> = bad.iter().map(|(i, r)| action_error(text, spans.as_ref(), file, *i, &save.actions[*i], r)).collect();
            return Err(lines.join("\n"));
        }
        Ok(save)
    }

    /// Read and parse a save file; its text too, to place a refused action.
    pub fn read(path: &Path) -> Result<(Save, String), String> {
        let file = path.display().to_string();
        let text = scenario::read_text(path, MAX_FILE_BYTES).map_err(|e| e.to_string())?;
        Ok((Save::parse(&text, &file)?, text))
    }

    /// What was edited in the scenario since the game was played on it (empty when nothing was,
    /// or the save is from before digests).
    pub fn scenario_changes(&self) -> Vec<String> {
        self.digest.as_ref().map_or_else(Vec::new, |d| d.changes(&self.scenario))
    }
}

impl Game {
    pub fn to_save(&self) -> Save {
        Save { format: SAVE_FORMAT, rules: RuleSetId::Otp, scenario: self.scenario.clone(), digest: Some(ScenarioDigest::of(&self.scenario)), seed: self.seed, actions: self.actions.clone() }
    }

    /// Write the game (scenario + seed + actions) atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        scenario::write_atomically(path, &self.to_save().to_ron())
    }

    /// Replay the actions; the first refused one and its refusal.
    fn replay(save: &Save, charts: Charts) -> Result<Game, (usize, Refusal)> {
        Game::replaying(save.scenario.clone(), save.seed, &save.actions, charts)
    }

    fn replaying(scenario: Scenario, seed: u64, actions: &[Action], charts: Charts) -> Result<Game, (usize, Refusal)> {
        let mut game = Game::new(scenario, seed, charts);
        for (i, action) in actions.iter().enumerate() {
            game.apply(action.clone()).map_err(|r| (i, r))?;
        }
        Ok(game)
    }

    /// The game as it stands, copied, with its dice from here on a fresh stream from `seed`
    /// rather than the game's own: the strong automatic player rehearses its plans in such
    /// copies, and one that threw the game's own dice would see the real game's coming rolls.
    /// A rehearsal is never saved (its later rolls are not the seed's, so they would not replay).
    pub fn rehearsal(&self, seed: u64) -> Game {
        let mut game = Game::replaying(self.scenario.clone(), self.seed, &self.actions, self.charts.clone()).expect("the game's own actions replay");
        game.dice = game.dice.reseeded(seed);
        game
    }

    /// Replay a save with these charts. Every action must still be legal: a refusal means the
    /// save does not belong to these charts or this version, and is an error naming the action.
    pub fn from_save(save: &Save, charts: Charts) -> Result<Game, String> {
        Game::replay(save, charts).map_err(|(i, r)| scenario::one_line(&format!("action {} ({}): {r}", i + 1, quoted(&save.actions[i]))).into_owned())
    }

    /// Replay a save read from `text` (see [`Save::read`]): a refused action is shown at its line.
    pub fn from_save_text(save: &Save, text: &str, file: &str, charts: Charts) -> Result<Game, String> {
        Game::replay(save, charts).map_err(|(i, r)| {
            let text = scenario::without_bom(text);
            action_error(text, Spans::of(text).as_ref(), file, i, &save.actions[i], &r)
        })
    }

    /// Load and replay a saved game with the embedded charts.
    pub fn load(path: &Path) -> Result<Game, String> {
        Game::load_with(path, Charts::embedded().clone())
    }

    /// Load and replay a saved game with these charts (a player's own, `Charts::load_dir`).
    pub fn load_with(path: &Path, charts: Charts) -> Result<Game, String> {
        let (save, text) = Save::read(path)?;
        Game::from_save_text(&save, &text, &path.display().to_string(), charts)
    }

    /// Take back the last action: the game is rebuilt from the scenario, the seed and the others.
    pub fn undo(&mut self) -> Option<Action> {
        let mut save = self.to_save();
        let last = save.actions.pop()?;
        *self = Game::from_save(&save, self.charts.clone()).expect("a prefix of legal actions replays");
        Some(last)
    }
}

