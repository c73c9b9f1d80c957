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

    // ---- a unit's turn and reach (orders, the unit sheet, the movement overlay) ----
    // A leader (a commander's entity) is asked the same way: `movement` is his ride,
    // `unit_choices` the units he may join.
    /// What the unit may do in its turn as the rules list it (OTP's operations 3.1–3.3; a
    /// rule set's orders or card actions), each with how far the unit has got with it; `None`
    /// when the rule set keeps no such list.
    fn unit_plan(&self, unit: Entity) -> Option<UnitPlan> {
        let _ = unit;
        None
    }
    /// How far the unit can go in one move from the formation it is in, by the rule set's
    /// chart (terrain aside), for the movement overlay; `None` if it cannot move at all.
    fn reach(&self, unit: Entity) -> Option<Reach> {
        let _ = unit;
        None
    }

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
    /// What it does, with its rule, for a tooltip ("Form line (6.2): half the normal move").
    pub detail: Option<String>,
}

impl Choice {
    /// A choice judged by the engine's own check.
    pub fn judged(engine: &dyn Engine, label: impl Into<String>, action: Action, rolls: bool) -> Choice {
        let verdict = engine.check(&action);
        Choice { label: label.into(), about: None, action, verdict, rolls, detail: None }
    }

    pub fn detail(mut self, text: impl Into<String>) -> Choice {
        self.detail = Some(text.into());
        self
    }

    pub fn about(mut self, what: impl Into<String>) -> Choice {
        self.about = Some(what.into());
        self
    }

    pub fn allowed(&self) -> bool {
        self.verdict.is_ok()
    }
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
    /// Inches more on a road (a march column staying on it, OTP 5.1), if any.
    pub road: Option<f32>,
    /// The kinds of move it may make ("move", "special move (6.8)"); the first is the default.
    pub kinds: Vec<MoveKind>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveKind {
    pub label: String,
    pub cite: String,
    /// What it is, for a tooltip ("the full move + 1AD, rolled when ordered…").
    pub detail: String,
    /// The most its dice may add to the allowance (0 for none).
    pub extra: f32,
    /// The dice it throws when ordered ("1AD"), if any.
    pub dice: Option<String>,
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
    /// Drawn stronger: `Info` a number that counts most, `Bad` a loss or a marker.
    pub tone: Option<Tone>,
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

// ---- a unit's turn and reach (orders, the unit sheet, the movement overlay) ----

/// What a unit may do in its turn as the rules list it, and how far it has got.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitPlan {
    /// The list's heading ("Operations (3.1)").
    pub title: String,
    pub items: Vec<PlanItem>,
    /// What it has done so far, in one line ("Done: move · 3\" spent"), if anything.
    pub done: Option<String>,
    /// Lines worth knowing beside the list ("6.10: a bonus move is owed…").
    pub notes: Vec<String>,
}

/// One thing of a unit's plan (an operation, an order).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanItem {
    /// "2. move 1/2 and fire".
    pub label: String,
    /// A short note after it (" ·½ move").
    pub note: String,
    pub cite: String,
    pub state: PlanState,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlanState {
    /// It may be done.
    Open,
    /// Begun, and more of it may still be done.
    Going,
    /// What the unit did is this, and nothing more may be added.
    Done,
    /// Not now: the rule and reason.
    Barred(Refusal),
}

impl PlanState {
    pub fn refusal(&self) -> Option<&Refusal> {
        if let PlanState::Barred(r) = self { Some(r) } else { None }
    }
}

/// How far a unit can go in one move, for the geometry of the movement overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct Reach {
    /// The inches, and a march column's on a road.
    pub allowance: crate::table::movement::Allowance,
    /// The chart's line for it ("infantry in line: 6\"").
    pub what: String,
    /// Where the number comes from.
    pub source: Source,
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
