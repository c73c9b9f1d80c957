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
use super::report::{ChartRead, Refusal, Report, Summary};
use crate::scenario::Scenario;
use crate::table::fire::FireRules;
use crate::table::footprint::Footprint;
use crate::table::movement::{MoveRules, MoveStep};

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
    /// A command's tag beside its name, where the rule set gives commands one ("chit 3", OTP
    /// 4.3); `None`: the name alone.
    fn brigade_tag(&self, _brigade: Entity) -> Option<String> {
        None
    }
    /// One line under a unit's name in its tooltip: its type and what the rules rate it by
    /// ("Line · CV 5"). By default the sheet's "Type" row.
    fn unit_line(&self, unit: Entity) -> Option<String> {
        self.sheet(unit).into_iter().find(|r| r.label == "Type").map(|r| r.value)
    }
    /// The window's explanation of `topic` (legend, F1, overlay tags) in this rule set's words
    /// and sections; `None`: the rule set has no such thing, and the window leaves it out. By
    /// default [`plain_words`], which cite nothing.
    fn words(&self, topic: Topic) -> Option<String> {
        plain_words(topic)
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

    // ---- fire and charge: targeting, previews, the dice overlay (ui-fire) ----
    /// Which of the window's targeting modes an action of [`Engine::target_choices`] belongs to
    /// (the rule set's own words for a fire or a charge say which they are); `None`: neither.
    fn aim_of(&self, action: &Action) -> Option<Aim> {
        match action {
            Action::Fire { .. } => Some(Aim::Fire),
            Action::Charge { .. } => Some(Aim::Charge),
            _ => None,
        }
    }
    /// Why an action the rules allow can change nothing whatever the dice say (a shot none of
    /// whose results hurts), in the rules' words; `None` when some throw does something.
    fn futile(&self, _action: &Action) -> Option<String> {
        None
    }
    /// The heading of the step of an action that a report line of rule `section` belongs to, for
    /// the dice overlay ("Closure", "Melee"), and whether such a line stays under a step already
    /// begun (OTP's 9.6 CV roll belongs to the reaction or firefight that calls for it). By
    /// default each rule cited heads its own step: "QK12".
    fn step_heading(&self, section: &str) -> (String, bool) {
        (self.rules().cite(section).to_string(), false)
    }
    /// A chart read in `report` as a small table around the cell read, from the rule set's own
    /// charts, for the dice overlay; `None`: the read is shown as one cell.
    fn chart_grid(&self, _report: &Report, _read: &ChartRead) -> Option<ChartGrid> {
        None
    }
    /// What fire at a target's flank or rear (enfilade) adds to `unit`'s fire, as the chart
    /// prints it, for the sight overlay's readout; `ball`: a gun firing solid shot, where the
    /// rule set tells it apart. Empty when the rule set has no such modifier.
    fn enfilade_factors(&self, _unit: Entity, _ball: bool) -> Vec<Factor> {
        Vec::new()
    }
    /// What the sight overlay prints for `firer` looking at the enemy `target` (range and band,
    /// arc, line of sight, woods, enfilade, close range...), each row with its rule; `ball`: a gun
    /// firing solid shot. `None` when the rule set gives no readout (the lines are still drawn).
    fn sight_readout(&self, _firer: Entity, _target: Entity, _ball: bool) -> Option<SightReadout> {
        None
    }

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
    /// Paths the rules have planned on the table and not yet resolved (a charge whose target is
    /// named before it is made), with the points along each where something is due (where the
    /// unit falls into disorder, where the defender volleys), for the window to draw. Empty by
    /// default: a rule set that plans nothing ahead draws nothing.
    fn planned_paths(&self) -> Vec<PlannedPath> {
        Vec::new()
    }
    /// Leaders' command radii, for the window to draw (QK2: inside his radius a unit moves
    /// full). Empty by default: a rule set that measures command otherwise draws none.
    fn command_radii(&self) -> Vec<CommandRadius> {
        Vec::new()
    }
    /// Who sits at the window: the sides played by hand in solo play, or `None` when the sides
    /// take turns at one table (hot-seat). A rule set with hidden information (orders sealed
    /// until revealed) keeps the other sides' out of its views; the game never changes. By
    /// default nothing is hidden.
    fn seat(&mut self, by_hand: Option<Vec<usize>>) {
        let _ = by_hand;
    }
    /// Teaching ("what if he stood here"): put `unit`'s stands at `stands` (as many as it has),
    /// outside the rules — no dice, no turn, nothing added to the actions. The window does this
    /// only to a copy of the game, kept apart from the one played. `false` (nothing changed)
    /// when there is no such unit or the stands do not match. See [`place_stands`].
    fn place(&mut self, unit: Entity, stands: &[Footprint]) -> bool;
    /// How far the unit can go in one move from the formation it is in, by the rule set's
    /// chart (terrain aside), for the movement overlay; `None` if it cannot move at all.
    fn reach(&self, unit: Entity) -> Option<Reach> {
        let _ = unit;
        None
    }

    // ---- the table's numbers (geometry in `table/` asks the rule set for these) ----
    /// How the rule set moves units: costs, permissions and citations for `table::movement`.
    fn move_rules(&self) -> &'static MoveRules;
    /// How the rule set measures fire: arcs by formation, reach, rounding, for `table::fire`.
    fn fire_rules(&self) -> &'static FireRules;
    /// A close-range line the arc overlay draws inside a unit's arc, with its label and rule
    /// (OTP 8.3: 2"); `None` when the rule set has none or the unit does not use it.
    fn close_range(&self, _unit: Entity) -> Option<RangeBand> {
        None
    }
    /// What the arc overlay should say about the unit's arc beyond its bands (a gun that may not
    /// fire canister because friends are in its arc, OTP 8.4).
    fn arc_notes(&self, _unit: Entity) -> Vec<String> {
        Vec::new()
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

impl std::fmt::Display for Preview {
    /// The preview in plain words: its title, then each block's facts, factors and odds.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.title)?;
        for b in &self.blocks {
            if !b.heading.is_empty() {
                writeln!(f, "{}:", b.heading)?;
            }
            for fact in &b.facts {
                writeln!(f, "  {} ({})", fact.text, fact.rule)?;
            }
            for x in &b.factors {
                writeln!(f, "  {} {} ({})", x.value, x.name, x.rule)?;
            }
            for o in &b.odds {
                writeln!(f, "  {:>6.2}%  {}", 100.0 * o.chance, o.outcome)?;
            }
        }
        Ok(())
    }
}

/// The window's targeting modes: fire at an enemy unit, or charge it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Aim {
    Fire,
    Charge,
}

/// The sight overlay's readout for one firer and one target ([`Engine::sight_readout`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SightReadout {
    /// One row a question, in the rule set's words, each ending with its rule ("line of sight
    /// clear (8.8)").
    pub rows: Vec<SightRow>,
    /// The tag on the sight line whose woods decide a visibility roll, when woods are on it
    /// ("⚠ Wheat Field …: visibility roll (8.7)").
    pub woods_tag: Option<String>,
}

/// One row of a [`SightReadout`].
#[derive(Clone, Debug, PartialEq)]
pub struct SightRow {
    pub mark: Mark,
    pub text: String,
    /// The rule the row answers, cited ("OTP 8.8"); `None` for a plain fact.
    pub rule: Option<String>,
}

/// How a readout row is marked: ✔ yes, ✖ no, ⚠ a roll to make, • a plain fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Yes,
    No,
    Warn,
    Info,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Yes => "✔",
            Mark::No => "✖",
            Mark::Warn => "⚠",
            Mark::Info => "•",
        }
    }
}

/// A chart as the dice overlay draws it: the cells around the one a report read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChartGrid {
    /// What the columns and rows count (`figures firing`, `modified D10`).
    pub column_axis: String,
    pub row_axis: String,
    pub columns: Vec<String>,
    /// Row label and its cells.
    pub rows: Vec<(String, Vec<String>)>,
    /// (row, column) of the cell read, indices into `rows` and `columns`.
    pub hit: (usize, usize),
}

impl ChartGrid {
    /// The read alone: one cell, its row and column as read.
    pub fn single(read: &ChartRead) -> ChartGrid {
        ChartGrid { column_axis: String::new(), row_axis: String::new(), columns: vec![read.column.clone()], rows: vec![(read.row.clone(), vec![read.result.clone()])], hit: (0, 0) }
    }
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

/// A path planned on the table ([`Engine::planned_paths`]): what goes where, and its marks.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedPath {
    /// One line: who goes where ("1st Tennessee charges 2nd Wisconsin").
    pub label: String,
    pub cite: String,
    /// The side whose unit goes (an index of the scenario's sides), for its colour.
    pub side: usize,
    /// The path in table inches, from where the unit stands to where it would end.
    pub points: Vec<bevy::math::Vec2>,
    pub marks: Vec<PathMark>,
}

/// A point on a planned path where something is due, or the stretch it may fall in when a roll
/// still to come decides it.
#[derive(Clone, Debug, PartialEq)]
pub struct PathMark {
    pub at: bevy::math::Vec2,
    /// The far end of the stretch, when the point is not yet known.
    pub until: Option<bevy::math::Vec2>,
    /// A short tag on the table ("disorder", "volley").
    pub label: String,
    /// What it means, with its rule, for a tooltip or legend.
    pub detail: String,
    /// `Bad`: harm to the unit that goes (disorder, a volley at it); `Info`: a plain point.
    pub tone: Tone,
}

/// A leader's command radius on the table ([`Engine::command_radii`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CommandRadius {
    pub leader: Entity,
    /// His side (an index of the scenario's sides), for its colour.
    pub side: usize,
    pub centre: bevy::math::Vec2,
    /// Inches.
    pub radius: f32,
    /// A short tag on the table ("Lacy 7\"").
    pub label: String,
    /// What the circle means, with its rule, for a tooltip.
    pub detail: String,
    /// The units he commands: the window shows the radii of a selected unit's commanders.
    pub units: Vec<Entity>,
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

// ---- files and the command line: which rule set reads a scenario, opening, saves, and the
// commands every rule set answers (`otp simulate`, `replay`, `fire`, `melee`). A new rule set adds
// its arm to each `match rules` below; nothing else outside its folder names it. ----





/// The save format this program writes. Format 1 (On to Philadelphia's first saves) has no
/// header; format 2 begins `format: 2, rules: Otp`.
pub const SAVE_FORMAT: u32 = 2;
/// The format of a save that names none.
pub const FIRST_SAVE_FORMAT: u32 = 1;
/// The largest save file read.
pub const MAX_SAVE_BYTES: u64 = 64 * 1024 * 1024;

/// What every save says first: its format and its rule set (a save that says neither is
/// format 1, On to Philadelphia).
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SaveHeader {
    #[serde(default = "first_save_format")]
    pub format: u32,
    #[serde(default)]
    pub rules: RuleSetId,
}

fn first_save_format() -> u32 {
    FIRST_SAVE_FORMAT
}

/// `file:line:col: message` at a top-level field of save text.
pub(crate) fn at_field(text: &str, file: &str, field: &'static str, message: String) -> String {
    let text = crate::scenario::without_bom(text);
    crate::scenario::locate_problems(text, crate::scenario::locate::Spans::of(text).as_ref(), file, vec![(crate::scenario::locate::Locus::top(field), message)]).to_string()
}

impl SaveHeader {
    /// The header of save text; a format newer than [`SAVE_FORMAT`] is an error at its line.
    /// Text that cannot be read as RON reads as format 1: the rule set's own reader then says
    /// where it breaks, as it always did.
    pub fn read(text: &str, file: &str) -> Result<SaveHeader, String> {
        let header = ron::Options::default().from_str(crate::scenario::without_bom(text)).unwrap_or(SaveHeader { format: FIRST_SAVE_FORMAT, rules: RuleSetId::Otp });
        if !(FIRST_SAVE_FORMAT..=SAVE_FORMAT).contains(&header.format) {
            let why = if header.format > SAVE_FORMAT { "a newer otp wrote it" } else { "no otp writes it" };
            return Err(at_field(text, file, "format", format!("save format {} is not one this otp reads (1 to {SAVE_FORMAT}): {why}", header.format)));
        }
        Ok(header)
    }

    /// The error for a save of a rule set this program cannot replay, at its `rules:` line.
    pub fn unplayable(&self, text: &str, file: &str) -> String {
        at_field(text, file, "rules", format!("rules: {}", self.rules.playable().err().unwrap_or_else(|| format!("this is a game of {:?} ({}), which this reader does not replay", self.rules, self.rules.title()))))
    }
}



/// A replayed save, for `otp replay`: the reports in plain words, and what was edited in its
/// scenario since the game was played (replayed anyway only when forced).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub text: String,
    pub changed: Vec<String>,
}



/// What a command prints: its standard output and error, byte for byte, and whether it exits
/// successfully (a preview the engine refused exits non-zero).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
}

impl Printed {
    /// An error on stderr, exit non-zero.
    pub fn error(message: impl std::fmt::Display) -> Printed {
        Printed { stdout: String::new(), stderr: format!("{message}\n"), success: false }
    }
}

/// A preview from the command line at the scenario's set-up: `otp fire` (artillery firing
/// ball with `ball`) or `otp melee` (a special move to contact with `special`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreviewCommand {
    Fire { ball: bool },
    Melee { special: bool },
}




/// What the window explains in the rule set's words ([`Engine::words`]): rows of the legend and
/// of F1, the keys that go on with the sequence, and the overlays' headings and tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topic {
    /// The badge behind a unit in a bad morale state (OTP's Morale Marker, QK's marker).
    MoraleBadge,
    /// The glow round the units that act now.
    ActingGlow,
    /// The heading over the units that act now, in the turn panel.
    ActingHeading,
    /// How a turn goes, one line each (`\n` between lines), for F1; its heading is the first line.
    HowATurnGoes,
    /// The key that goes on with a roll (D) and the one that ends an activation or a turn (End).
    DrawKey,
    EndKey,
    /// The arcs overlay: its heading, the guns' bands nearest first (0, 1, 2), small arms' arc,
    /// the note under it, why a unit in this formation has no arc, and why each stand has its
    /// own arc (a skirmish line, or a bent line).
    ArcsHeading,
    GunBand(u8),
    SmallArmsArc,
    SmallArmsNote,
    CannotFire(crate::scenario::model::Formation),
    OwnArcs { skirmish: bool },
    /// The flanks overlay: its heading and legend rows, and its tags on the table.
    FlanksHeading,
    FrontLine,
    FlankZone,
    RearZone,
    FlankTag,
    FlankTagShort,
    RearTag,
    FrontTag,
    LineTag,
    /// Cited after "⚑ 2nd Maryland is on my flank".
    EnemyInZone,
    /// The sight overlay: its heading, and the ball checkbox for guns.
    SightHeading,
    Ball,
    SightClear,
    SightBlocked,
    SightWoods,
    /// The movement overlay's heading; where a unit may move; a disordering-terrain roll on a move.
    MoveHeading,
    MoveArea,
    DisorderRoll,
    /// What a D10 reads, under each die where it is rolled (OTP 1.0: 0–9). `None`: no caption.
    D10Face,
    /// Clicking a leader's figure in a game.
    LeaderClick,
}

/// The words a rule set that says nothing of its own gets: plain, citing no section, and
/// `None` for what only some rule sets have (enfilade lines, a ball checkbox).
pub fn plain_words(topic: Topic) -> Option<String> {
    use crate::scenario::model::Formation;
    let words = match topic {
        Topic::MoraleBadge => "a unit's morale state: the badge behind the unit",
        Topic::ActingGlow => "the units that act now: a glow in their side's colour round each",
        Topic::ActingHeading => "Acting now",
        Topic::HowATurnGoes | Topic::FrontLine | Topic::FlankTag | Topic::FlankTagShort | Topic::RearTag | Topic::FrontTag | Topic::LineTag | Topic::Ball | Topic::DisorderRoll | Topic::D10Face => return None,
        Topic::DrawKey => "go on with the sequence when it rolls (the turn panel's main button)",
        Topic::EndKey => "end the activation or the player-turn (the turn panel's main button)",
        Topic::ArcsHeading => "Arcs (A)",
        Topic::GunBand(0) => "guns' short range band: darkest amber",
        Topic::GunBand(1) => "guns' medium range band",
        Topic::GunBand(_) => "guns' long range band",
        Topic::SmallArmsArc => "small arms' firing arc and range",
        Topic::SmallArmsNote => "A skirmish line fires stand by stand: darker where arcs overlap.",
        Topic::CannotFire(Formation::Limbered) => "limbered guns cannot fire",
        Topic::CannotFire(_) => "this formation cannot fire",
        Topic::OwnArcs { skirmish: true } => "skirmish line: each stand its own 45° arc",
        Topic::OwnArcs { skirmish: false } => "bent line: each stand its own 45° arc",
        Topic::FlanksHeading => "Flanks (E)",
        Topic::FlankZone => "flank zone, hatched",
        Topic::RearZone => "rear zone, hatched darker",
        Topic::EnemyInZone => "",
        Topic::SightHeading => "Line of sight (L)",
        Topic::SightClear => "line of sight clear",
        Topic::SightBlocked => "line of sight blocked",
        Topic::SightWoods => "the part of a sight line through woods",
        Topic::MoveHeading => "Movement (M)",
        Topic::MoveArea => "where the unit may move",
        Topic::LeaderClick => "in a game: pick him up; then click the table to ride there, or a unit of his command to join it",
    };
    Some(words.to_string())
}

/// [`Engine::place`] on a world whose stands carry their `Footprint`s (every rule set's): the
/// unit's stands set to `stands`, front first, if the count matches.
pub fn place_stands(world: &mut World, unit: Entity, stands: &[Footprint]) -> bool {
    let Some(own) = world.get::<crate::scenario::spawn::Unit>(unit).map(|u| u.stands.clone()) else { return false };
    if own.len() != stands.len() || own.iter().any(|&s| world.get::<Footprint>(s).is_none()) {
        return false;
    }
    for (&s, f) in own.iter().zip(stands) {
        if let Some(mut at) = world.get_mut::<Footprint>(s) {
            *at = *f;
        }
    }
    true
}
