//! The engine interface: what the window, the command line and the automatic players ask of a
//! rule set, and all they may ask. A rule set implements [`Engine`] in its own folder; nothing
//! outside that folder names it, beyond [`open`] choosing one for a scenario.
//!
//! Every change is an [`Action`]: [`Engine::apply`] returns its [`Report`] or the [`Refusal`]
//! that forbids it (and then nothing changed, not even the dice). [`Engine::check`] is the same
//! verdict without dice, so a greyed button, a preview and the engine can never disagree. The
//! views ([`SequenceView`], [`Choice`], [`Preview`], [`SheetRow`], [`Badge`], [`RangeBand`],
//! [`Movement`]) are plain data the window draws as they come.

use std::any::Any;

use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use serde::{Deserialize, Serialize};

use super::action::Action;
use super::cite::{Cite, RuleSetId, Source};
use super::report::{Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::movement::MoveStep;

/// A game of one rule set.
pub trait Engine: Send + Sync + 'static {
    // ---- the game ----
    fn rules(&self) -> RuleSetId;
    fn scenario(&self) -> &Scenario;
    fn seed(&self) -> u64;
    /// The table as it stands: sides, commands, leaders, units and stands as entities with the
    /// components of `scenario::spawn` (and the rule set's own, which only it reads).
    fn world(&self) -> &World;
    /// Apply an action: its report, or the rule that refuses it (and then nothing has changed).
    fn apply(&mut self, action: Action) -> Result<Report, Refusal>;
    /// Would `apply` take it? The same verdict, without dice and without change.
    fn check(&self, action: &Action) -> Result<(), Refusal>;
    /// The exact odds of what the action may bring, before any die is thrown; refused as
    /// `apply` would refuse it. Actions without dice have no preview (`Ok(None)`).
    fn preview(&self, action: &Action) -> Result<Option<Preview>, Refusal>;
    /// The actions taken so far, in the rule set's own words.
    fn actions(&self) -> Vec<Action>;
    fn action_count(&self) -> usize;
    fn reports(&self) -> &[Report];
    /// The end-of-game summary, once the game is over.
    fn summary(&self) -> Option<Summary>;

    // ---- the sequence of play ----
    fn sequence(&self) -> SequenceView;
    /// What the sequence offers now that is not one unit's order (start, draw, go on, a step's
    /// rolls), each greyed with its refusal.
    fn choices(&self) -> Vec<Choice>;

    // ---- the sequence of play, continued: the turn panel, the roster, solo play ----
    /// What `unit` has done this turn and what holds it, in the rules' words.
    fn unit_status(&self, _unit: Entity) -> UnitStatus {
        UnitStatus::default()
    }
    /// A leader as the sequence shows him: his name, and what the rules keep for him now
    /// ("Lt Col Webster — Good, 2 passes left").
    fn leader_line(&self, leader: Entity) -> String {
        self.world().get::<crate::scenario::spawn::Commander>(leader).map(|c| c.name.clone()).unwrap_or_default()
    }
    /// What [`SequenceView::track`] is, as a heading ("The chit cup (4.3)").
    fn track_heading(&self) -> String {
        "The order of play".into()
    }
    /// The step the units' choices among [`Engine::choices`] belong to (a morale step, the
    /// rebuilds): its heading, and what to say when no unit has one. `None` outside such a step.
    fn unit_step(&self) -> Option<UnitStep> {
        None
    }
    /// Solo play: may the automatic player go on ([`Action::Next`]) for its sides while the
    /// others are played by hand? Yes where going on takes nothing from anyone (drawing a chit);
    /// no where it closes a step a person may still act in (starting the game, ending the turn).
    fn next_is_mechanical(&self) -> bool {
        false
    }

    // ---- one unit ----
    /// What a unit may do now besides moving, firing and charging (form, deploy, rally, rebuild…),
    /// each greyed with its refusal; empty when it may do nothing.
    fn unit_choices(&self, unit: Entity) -> Vec<Choice>;
    /// What `unit` may do to the enemy `target` (fire, with each ammunition; charge, with each of
    /// the players' choices), each greyed with its refusal.
    fn target_choices(&self, unit: Entity, target: Entity) -> Vec<Choice>;
    /// How the unit may move now: the allowance, what is spent and the kinds of move; `None`
    /// when it may not move.
    fn movement(&self, unit: Entity) -> Option<Movement>;
    /// The action that moves `unit` by `steps` as move kind `kind` (an index of
    /// [`Movement::kinds`]).
    fn move_action(&self, unit: Entity, kind: usize, steps: Vec<MoveStep>) -> Action;
    /// The unit's sheet: every number the rules keep for it, with its rule.
    fn sheet(&self, unit: Entity) -> Vec<SheetRow>;
    /// Markers and states shown on the table beside the unit.
    fn badges(&self, unit: Entity) -> Vec<Badge>;
    /// The unit's fire ranges, nearest first, for the arc overlay; empty if it cannot fire.
    fn fire_bands(&self, unit: Entity) -> Vec<RangeBand>;

    // ---- files and players ----
    /// The saved game as text: the rule set, the scenario, the seed and the actions.
    fn save_text(&self) -> String;
    /// The whole state as text: two games in the same state give the same text.
    fn snapshot(&self) -> String;
    /// The same game with only its first `actions` actions taken (undo replays, so a re-roll
    /// cannot be fished for).
    fn replayed(&self, actions: usize) -> Box<dyn Engine>;
    /// An automatic player for this rule set.
    fn automatic(&self) -> Box<dyn Automatic>;
    /// The concrete game, for the rule set's own corner of the window and its tests.
    fn as_any(&self) -> &dyn Any;
}

/// An automatic player: the next action it would take, or `None` when it has nothing to do
/// (the game is over). It only reads the game; the caller applies what it chooses.
pub trait Automatic: Send + Sync {
    fn next_action(&mut self, game: &dyn Engine) -> Option<Action>;
}

/// Where the game is in its sequence of play.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SequenceView {
    /// 0 before the game starts.
    pub turn: u32,
    pub limit: Option<u32>,
    /// The steps of a turn as the rules list them.
    pub steps: Vec<SequenceStep>,
    /// The step the game is in (an index of `steps`).
    pub current: Option<usize>,
    /// One line: what is happening ("Webster's Brigade (chit 3) is phasing").
    pub headline: String,
    /// What the turn works through, in order (OTP's chit cup, a side's activations…).
    pub track: Vec<TrackItem>,
    /// The side whose decision it is (an index of the scenario's sides); `None` when the step is
    /// nobody's choice (start, draw, end of turn).
    pub deciding: Option<usize>,
    /// The units that may act now (the window lights them).
    #[serde(skip)]
    pub acting: Vec<Entity>,
    /// A question a rule asked after a roll, answered by `Action::Answer`.
    pub prompt: Option<Prompt>,
    pub started: bool,
    pub over: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SequenceStep {
    pub label: String,
    pub cite: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrackItem {
    pub label: String,
    /// A longer line for a tooltip (whose brigade, its commander).
    pub detail: String,
    pub state: TrackState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TrackState {
    Done,
    Current,
    Waiting,
}

/// A question a rule asks after a roll (a re-roll, an evade, rout or stand).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prompt {
    pub id: u32,
    pub question: String,
    pub options: Vec<String>,
    pub cite: String,
}

/// Something a player may do now: a button, greyed with its refusal when the engine would
/// refuse it.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The button's words ("Roll to remove the Morale Marker").
    pub label: String,
    /// What it is for, when a list of choices covers several units or things ("2nd Maryland").
    pub about: Option<String>,
    pub action: Action,
    /// `Engine::check` of the action.
    pub verdict: Result<(), Refusal>,
    /// It throws dice: `Engine::preview` gives its odds.
    pub rolls: bool,
}

impl Choice {
    /// A choice judged by the engine's own check.
    pub fn judged(engine: &dyn Engine, label: impl Into<String>, action: Action, rolls: bool) -> Choice {
        let verdict = engine.check(&action);
        Choice { label: label.into(), about: None, action, verdict, rolls }
    }

    pub fn about(mut self, what: impl Into<String>) -> Choice {
        self.about = Some(what.into());
        self
    }

    pub fn allowed(&self) -> bool {
        self.verdict.is_ok()
    }
}

/// What a unit has done this turn, for the roster and the turn panel.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UnitStatus {
    /// In the rules' words, a part each ("Morale Marker: remove it first (10.2)", "moved").
    pub parts: Vec<String>,
    /// A marker or state the player must deal with first: the window marks the unit.
    pub marked: bool,
    /// It has left the table: it takes no more part.
    pub gone: bool,
}

/// A step whose choices are one unit's each (a morale step, the rebuilds).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitStep {
    /// "Morale markers (OTP 10.1–10.5)".
    pub heading: String,
    /// What to say when no unit has a choice in it.
    pub none: String,
}

/// The message for a saved game whose scenario was edited after it was played: a replay would
/// not be that game.
pub fn changed_message(file: &str, changes: &[String]) -> String {
    format!("{file}: the scenario in this save is not the one the game was played on ({}); a replay would not be that game", changes.join(", "))
}

/// The exact odds of an action before its dice are thrown, in blocks a panel shows in order
/// (the firer's modifiers and the chart column; the closure roll; each side's melee value; the
/// outcomes).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Preview {
    pub title: String,
    pub blocks: Vec<PreviewBlock>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PreviewBlock {
    pub heading: String,
    /// Measured facts ("range 6.3\" (medium)", "cover: light"), each with its rule.
    pub facts: Vec<Fact>,
    /// Modifiers and factors, each with its rule and where its number comes from.
    pub factors: Vec<Factor>,
    /// Outcomes and their exact chances, summing to 1 within a block that has any.
    pub odds: Vec<Odds>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fact {
    pub text: String,
    pub rule: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Factor {
    pub name: String,
    /// As the chart prints it: "+1", "−2", "×2".
    pub value: String,
    pub rule: String,
    /// A longer explanation (the measurement behind it).
    pub detail: Option<String>,
    pub source: Option<Source>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Odds {
    pub outcome: String,
    pub chance: f64,
}

/// How a unit may move now.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Movement {
    /// Inches it may move in this order (or operation), terrain aside.
    pub allowance: f32,
    /// Inches already spent in this operation.
    pub spent: f32,
    /// The kinds of move it may make ("move", "special move (6.8)"); the first is the default.
    pub kinds: Vec<MoveKind>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveKind {
    pub label: String,
    pub cite: String,
    /// `Err` when this kind is not open to it now.
    #[serde(skip)]
    pub verdict: Result<(), Refusal>,
}

/// One line of a unit's sheet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SheetRow {
    pub label: String,
    pub value: String,
    pub cite: Option<String>,
}

/// A marker or state drawn beside a unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Badge {
    /// What the table shows ("MM", "shaken", "H").
    pub text: String,
    /// What it means, for the tooltip.
    pub meaning: String,
    pub cite: Option<String>,
    pub tone: Tone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tone {
    /// A state that limits the unit (a morale marker, shaken, routed).
    Bad,
    /// A state worth knowing (an order, attached guns).
    Info,
}

/// A fire range band, measured from the firing stand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RangeBand {
    pub label: String,
    /// The band's far edge, inches.
    pub reach: f32,
    pub cite: String,
}

/// A citation as views print it.
pub fn cited(set: RuleSetId, section: &str) -> String {
    Cite { set, section: section.into() }.to_string()
}

/// A new game of `scenario` under `rules`, before its first action.
pub fn open(rules: RuleSetId, scenario: Scenario, seed: u64) -> Result<Box<dyn Engine>, String> {
    match rules {
        RuleSetId::Otp => Ok(Box::new(super::otp::engine::Game::new(scenario, seed, super::otp::charts::Charts::embedded().clone()))),
        other => Err(format!("{} ({}) is not built yet: only {} plays today", other.title(), other.key(), RuleSetId::Otp.title())),
    }
}

/// A saved game read from `text` (`file` names it in messages), replayed under the rule set it
/// names; every problem as `file:line:col: message`.
pub fn load_save(text: &str, file: &str) -> Result<Box<dyn Engine>, String> {
    let save = super::otp::engine::Save::parse(text, file)?;
    let game = super::otp::engine::Game::from_save_text(&save, text, file, super::otp::charts::Charts::embedded().clone())?;
    Ok(Box::new(game))
}

/// The scenario of a saved game's text, and what was edited in it since the game was played
/// (empty when nothing was), without replaying it.
pub fn save_scenario(text: &str, file: &str) -> Result<(Scenario, Vec<String>), String> {
    let save = super::otp::engine::Save::parse(text, file)?;
    let changed = save.scenario_changes();
    Ok((save.scenario, changed))
}
