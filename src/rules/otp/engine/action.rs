//! Every change to a game is an [`Action`]. Units, brigades and commanders are named as the
//! scenario names them, so a saved game reads like a log of orders.

use std::fmt;

use bevy::math::Vec2;
use serde::{Deserialize, Serialize};

use super::describe;
use crate::rules::refusal::Refusal;
use crate::rules::otp::charts::Ammo;
use crate::scenario::model::{Formation, Table};
use crate::table::movement::MoveStep;

/// The most steps one move, path points one path, or stands one skirmish move may list, and the
/// highest stand index an order may name: far beyond any unit (120 figures is 60 stands at most).
pub const MAX_ITEMS: usize = 100;
/// How far off the table's edge an order may point, inches (a commander beside the cloth).
pub const OFF_TABLE: f32 = 12.0;

/// How a unit tries to shed its Morale Marker (10.2, 10.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Removal {
    /// 2D10 on the MORALE RESULTS TABLE, modified for losses and works (10.2, 10.3).
    Roll,
    /// A commander rides to the unit and spends a morale pass: the marker comes off (10.4).
    Pass { commander: String },
    /// After this turn's roll, a morale pass buys one re-roll, whose result stands (10.2, 10.4).
    RerollWithPass { commander: String },
}

/// One order or step of the sequence of play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Action {
    /// Roll COMMANDER VALUES for every commander without a fixed rating and begin turn 1 (2.0, 4.2).
    StartGame,
    /// Draw a chit from the cup: its brigade is phasing (4.3).
    DrawChit,
    /// Remove a unit's Morale Marker (10.2–10.4).
    RemoveMarker { unit: String, how: Removal },
    /// Move a unit of the phasing brigade (3.x, 6.x). A change of formation may come first.
    Move { unit: String, steps: Vec<MoveStep> },
    /// Change formation (6.2; limber or unlimber for artillery, 3.3).
    ChangeFormation { unit: String, formation: Formation },
    /// Fire at an enemy unit (8.x). Artillery fires `ammo`; without it, canister when the target
    /// is at short range and canister is allowed (8.4), else ball. Small arms ignore it.
    Fire {
        unit: String,
        target: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ammo: Option<Ammo>,
    },
    /// Charge an enemy unit (6.9, 9.0–9.14) with the default choices ([`ChargeOptions`]):
    /// declaration, closure, reaction, countercharge, firefight or melee in one report.
    Charge { unit: String, target: String },
    /// The phasing brigade has finished: its chit is set aside (4.3).
    EndActivation,
    /// A unit in reserve status tries to regain figures after the last chit (4.4, 11.0).
    AttemptRebuild { unit: String },
    /// Check off the turn and refill the cup; at the turn limit the game ends (4.5).
    EndTurn,
    /// A special move (6.8): the full move plus 1AD (cavalry 2AD), rolled once the rest is
    /// judged; the unit goes as far along `steps` as the roll allows. Its whole operation.
    SpecialMove { unit: String, steps: Vec<MoveStep> },
    /// An attached artillery stand detaches itself in its operational phase (7.5).
    Detach { gun: String },
    /// An artillery stand in contact with friendly infantry attaches to it (7.5).
    Attach { gun: String, unit: String },
    /// A commander moves to a point, within his 24" a phase (6.12).
    MoveCommander { commander: String, to: Vec2 },
    /// A commander rides to join a unit of his command, within his 24" a phase (6.12).
    JoinUnit { commander: String, unit: String },
    /// Deploy into a town or building (6.13): a change of formation; the unit then counts as
    /// Line in cover. Leaving is a change of formation to column.
    DeployInto { unit: String, place: String },
    /// A detached crew in contact with its gun remans it (7.4).
    Reman { unit: String },
    /// A charge with the players' choices spelled out (6.8, 9.4, 9.5). Last in the enum: saves
    /// name variants by position, so new ones only ever go at the end.
    ChargeWith { unit: String, target: String, options: ChargeOptions },
}

/// What a light or Indian target that passes its reaction roll does (9.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reaction {
    /// Fire and remain for the melee.
    #[default]
    Stay,
    /// Fire and withdraw one line move in good order: no melee.
    Withdraw,
}

/// The choices a charge leaves to the players. Every field has a default, so a save written
/// before a field existed still loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChargeOptions {
    /// 6.8: the move to contact is a special move (full move + 1AD, cavalry 2AD), rolled after
    /// closure; falling short moves the whole special move and takes a Morale Marker.
    pub special: bool,
    /// 9.4: the target's choice if it is light or Indian infantry and passes its reaction roll.
    pub reaction: Reaction,
    /// 9.5: a mounted cavalry target charged from its front tries to countercharge (default yes).
    pub countercharge: bool,
}

impl Default for ChargeOptions {
    fn default() -> Self {
        ChargeOptions { special: false, reaction: Reaction::Stay, countercharge: true }
    }
}

impl Action {
    /// The unit the order is for, if it is for one unit (a gun for Detach and Attach).
    pub fn unit(&self) -> Option<&str> {
        match self {
            Action::RemoveMarker { unit, .. }
            | Action::Move { unit, .. }
            | Action::ChangeFormation { unit, .. }
            | Action::Fire { unit, .. }
            | Action::Charge { unit, .. }
            | Action::AttemptRebuild { unit }
            | Action::SpecialMove { unit, .. }
            | Action::DeployInto { unit, .. }
            | Action::Reman { unit }
            | Action::ChargeWith { unit, .. } => Some(unit),
            Action::Detach { gun } | Action::Attach { gun, .. } => Some(gun),
            _ => None,
        }
    }

    /// A charge with these choices (the plain `Charge` when they are the defaults).
    pub fn charge(unit: impl Into<String>, target: impl Into<String>, options: ChargeOptions) -> Action {
        let (unit, target) = (unit.into(), target.into());
        if options == ChargeOptions::default() { Action::Charge { unit, target } } else { Action::ChargeWith { unit, target, options } }
    }

    /// A unit's own fire at a target, artillery choosing its ammunition (8.4).
    pub fn fire(unit: impl Into<String>, target: impl Into<String>) -> Action {
        Action::Fire { unit: unit.into(), target: target.into(), ammo: None }
    }
}

/// `Err` naming the number when `v` is not a finite number within `limit` either way.
fn within(v: f32, limit: f32, what: &str, unit: &str) -> Result<(), Refusal> {
    if v.is_finite() && v.abs() <= limit {
        Ok(())
    } else {
        Err(Refusal::otp("", format!("{what} {v}{unit} is not a number the table allows (at most {limit}{unit} either way)")))
    }
}

impl Action {
    /// Every number in the action is finite and within what the table allows, before anything
    /// is computed from it: a distance at most the table's diagonal, an angle at most a full
    /// turn, a point on the table or within [`OFF_TABLE`] of it, lists and stand indices at most
    /// [`MAX_ITEMS`]. The engine's first check, and the save loader's, so a file or a caller
    /// cannot send a unit to infinity (a sweep sampled every 1/4" never ends).
    pub fn check_numbers(&self, table: &Table) -> Result<(), Refusal> {
        let diagonal = table.width.hypot(table.depth);
        let distance = |d: f32, what: &str| within(d, diagonal, what, "\"");
        let angle = |a: f32, what: &str| within(a, 360.0, what, "°");
        let count = |n: usize, what: &str| within(n as f32, MAX_ITEMS as f32, what, "");
        let point = |p: Vec2, what: &str| {
            let centre = Vec2::new(table.width, table.depth) / 2.0;
            within(p.x - centre.x, centre.x + OFF_TABLE, &format!("{what} x (from the table's centre)"), "\"")?;
            within(p.y - centre.y, centre.y + OFF_TABLE, &format!("{what} y (from the table's centre)"), "\"")
        };
        let steps = match self {
            Action::Move { steps, .. } | Action::SpecialMove { steps, .. } => steps,
            Action::MoveCommander { to, .. } => return point(*to, "the commander's destination"),
            _ => return Ok(()),
        };
        count(steps.len(), "the number of steps")?;
        for step in steps {
            match step {
                MoveStep::Forward(d) => distance(*d, "Forward")?,
                MoveStep::SideStep(d) => distance(*d, "SideStep")?,
                MoveStep::Oblique { angle: a, distance: d } => {
                    angle(*a, "Oblique angle")?;
                    distance(*d, "Oblique distance")?;
                }
                MoveStep::Wheel { angle: a, .. } => angle(*a, "Wheel angle")?,
                MoveStep::Bend { stands, angle: a, .. } => {
                    count(*stands, "Bend stands")?;
                    angle(*a, "Bend angle")?;
                }
                MoveStep::DoubleUp { stand, behind } => {
                    count(*stand, "DoubleUp stand")?;
                    count(*behind, "DoubleUp behind")?;
                }
                MoveStep::Path(points) => {
                    count(points.len(), "the number of Path points")?;
                    for p in points {
                        point(*p, "a Path point")?;
                    }
                    let length: f32 = points.windows(2).map(|w| w[0].distance(w[1])).sum();
                    distance(length, "the Path's length")?;
                }
                MoveStep::Stands(moves) => {
                    count(moves.len(), "the number of Stands moved")?;
                    for m in moves {
                        count(m.stand, "a Stands index")?;
                        point(m.to, "a stand's destination")?;
                        angle(m.facing, "a stand's facing")?;
                    }
                }
                MoveStep::AboutFace | MoveStep::ChangeFormation(_) | MoveStep::Straighten | MoveStep::Undouble => {}
            }
        }
        Ok(())
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::StartGame => write!(f, "start the game"),
            Action::DrawChit => write!(f, "draw a chit"),
            Action::RemoveMarker { unit, how: Removal::Roll } => write!(f, "{unit} rolls to remove its Morale Marker"),
            Action::RemoveMarker { unit, how: Removal::Pass { commander } } => write!(f, "{commander} uses a morale pass on {unit}"),
            Action::RemoveMarker { unit, how: Removal::RerollWithPass { commander } } => write!(f, "{commander} spends a morale pass for {unit} to re-roll"),
            Action::Move { unit, steps } => write!(f, "move {unit}: {}", describe::steps(steps)),
            Action::ChangeFormation { unit, formation } => write!(f, "{unit} forms {}", describe::formation(*formation)),
            Action::Fire { unit, target, ammo: None } => write!(f, "{unit} fires at {target}"),
            Action::Fire { unit, target, ammo: Some(a) } => write!(f, "{unit} fires {} at {target}", describe::ammo(*a)),
            Action::Charge { unit, target } => write!(f, "{unit} charges {target}"),
            Action::EndActivation => write!(f, "end the activation"),
            Action::AttemptRebuild { unit } => write!(f, "{unit} tries to rebuild"),
            Action::EndTurn => write!(f, "end the turn"),
            Action::SpecialMove { unit, steps } => write!(f, "special move {unit}: {}", describe::steps(steps)),
            Action::Detach { gun } => write!(f, "{gun} detaches"),
            Action::Attach { gun, unit } => write!(f, "{gun} attaches to {unit}"),
            Action::MoveCommander { commander, to } => write!(f, "{commander} moves to ({:.2}, {:.2})", to.x, to.y),
            Action::JoinUnit { commander, unit } => write!(f, "{commander} joins {unit}"),
            Action::DeployInto { unit, place } => write!(f, "{unit} deploys into {place}"),
            Action::Reman { unit } => write!(f, "{unit} remans its guns"),
            Action::ChargeWith { unit, target, options } => {
                let how = if options.special { "special move to contact" } else { "charge" };
                let reaction = match options.reaction {
                    Reaction::Stay => "a light target that passes stays",
                    Reaction::Withdraw => "a light target that passes withdraws",
                };
                write!(f, "{unit}: {how} on {target} ({reaction}, countercharge {})", if options.countercharge { "allowed" } else { "declined" })
            }
        }
    }
}
