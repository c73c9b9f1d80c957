//! A game of the ACW orders sheet saved: `(format: 2, rules: AcwOrders, scenario: ..., seed: ..., actions: [...])` in
//! the common words, read back by replaying every action from the seed; a refused action is
//! shown at its line. The snapshot is the whole state as text, for tests of replay and undo.

use serde::{Deserialize, Serialize};

use super::game::{Game, Phase};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::scenario::locate::{self, Locus, Spans};
use crate::scenario::model::Formation;
use crate::scenario::spawn::Stand;
use crate::scenario::{self, Scenario};
use crate::table::footprint::Footprint;

/// The save format this writes and reads.
pub const FORMAT: u32 = 2;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Save {
    pub format: u32,
    pub rules: RuleSetId,
    pub scenario: Scenario,
    pub seed: u64,
    pub actions: Vec<Action>,
}

impl Save {
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().struct_names(false).indentor("    ".to_string());
        ron::Options::default().to_string_pretty(self, config).expect("saves always serialise")
    }

    /// Parse save text (`file` names it in messages): the format, the rule set and the scenario
    /// are checked before anything is replayed.
    pub fn parse(text: &str, file: &str) -> Result<Save, String> {
        let text = scenario::without_bom(text);
        let save: Save = scenario::from_ron(text, file).map_err(|e| e.to_string())?;
        let spans = Spans::of(text);
        let at = |field: &'static str| {
            let place = spans.as_ref().and_then(|s| locate::locate(text, s, &Locus::top(field)));
            place.map_or(format!("{file}:"), |(line, col)| format!("{file}:{line}:{col}:"))
        };
        if save.format != FORMAT {
            return Err(format!("{} save format {} is not one this version reads (it reads format {FORMAT})", at("format"), save.format));
        }
        if save.rules != RuleSetId::AcwOrders {
            return Err(format!("{} this save is for {}, not {}", at("rules"), save.rules.title(), RuleSetId::AcwOrders.title()));
        }
        let problems = scenario::validate::validate(&save.scenario);
        if !problems.is_empty() {
            let in_scenario = spans.as_ref().and_then(|s| s.field("scenario")).map(|(_, s)| s);
            return Err(scenario::locate_problems(text, in_scenario, file, problems).to_string());
        }
        Ok(save)
    }

    /// The game this save holds, every action replayed; the first refused one is an error at
    /// its place in `text`.
    pub fn replay(&self, text: &str, file: &str) -> Result<Game, String> {
        let mut game = Game::new(self.scenario.clone(), self.seed);
        for (i, action) in self.actions.iter().enumerate() {
            if let Err(refusal) = game.apply(action.clone()) {
                let text = scenario::without_bom(text);
                let place = Spans::of(text).and_then(|s| locate::locate(text, &s, &Locus::top("actions").index(i)));
                let at = place.map_or(String::new(), |(line, col)| format!("{line}:{col}:"));
                return Err(scenario::one_line(&format!("{file}:{at} action {} ({action}): {refusal}", i + 1)).into_owned());
            }
        }
        Ok(game)
    }
}

impl Game {
    pub fn to_save(&self) -> Save {
        Save { format: FORMAT, rules: RuleSetId::AcwOrders, scenario: self.scenario.clone(), seed: self.seed, actions: self.actions.clone() }
    }

    /// The same game with only its first `n` actions taken.
    pub fn replayed_to(&self, n: usize) -> Game {
        let mut game = Game::new(self.scenario.clone(), self.seed);
        for action in self.actions.iter().take(n) {
            game.apply(action.clone()).expect("a prefix of applied actions replays");
        }
        game
    }

    /// Everything the rules keep, as text: two games in the same state give the same text.
    pub fn snapshot(&self) -> String {
        #[derive(Serialize)]
        struct UnitView<'a> {
            name: &'a str,
            formation: Formation,
            sheet: Option<&'a super::game::OrUnit>,
            stands: Vec<(u32, Footprint)>,
        }
        #[derive(Serialize)]
        struct View<'a> {
            turn: u32,
            phase: Phase,
            over: bool,
            declared: &'a [super::game::Declared],
            gone: &'a [(String, usize, u32, String)],
            dice_thrown: u64,
            actions: usize,
            units: Vec<UnitView<'a>>,
            leaders: Vec<(String, [f32; 2], Option<&'a super::game::OrLeader>)>,
            wagons: Vec<(String, [f32; 2], bool)>,
        }
        let units = self
            .live_units()
            .map(|(e, u)| UnitView {
                name: &u.name,
                formation: u.formation,
                sheet: self.or(e),
                stands: u.stands.iter().filter_map(|&s| Some((self.world.get::<Stand>(s)?.figures, *self.world.get::<Footprint>(s)?))).collect(),
            })
            .collect();
        let leaders = self.leaders.iter().filter_map(|&l| self.leader(l).map(|(c, o)| (c.name.clone(), [c.at.x, c.at.y], Some(o)))).collect();
        let wagons = self.wagons().map(|(e, w)| (w.name.clone(), [w.at.x, w.at.y], self.wagons_moved.contains(&e))).collect();
        let view = View { turn: self.turn, phase: self.phase, over: self.over, declared: &self.declared, gone: &self.gone, dice_thrown: self.dice.thrown(), actions: self.actions.len(), units, leaders, wagons };
        serde_json::to_string_pretty(&view).expect("snapshots always serialise")
    }
}
