//! FIRE COMBAT (OTP 8.0–8.16, with 5.3, 5.4, 6.13, 7.1, 7.3, 7.5): who may fire at what, every
//! die-roll modifier with its rule and its chart provenance, the column read, the exact odds,
//! and the resolution as a report.
//!
//! The flow, for the engine and the CLI alike:
//! 1. a [`FireTable`]: the table's geometry ([`Situation`]) and what the unit sheets and markers
//!    say about each unit ([`UnitState`]), from the ECS world or a scenario file;
//! 2. a [`FireContext`]: firer, target, ammunition, and the occasion (8.12: a disordered unit fires
//!    only in a firefight or at a charging unit);
//! 3. [`preview`] (modifiers, column and the exact chance of every result) or [`resolve`] (dice
//!    rolled, chart cell read, the changes it makes as a [`FireReport`]), each refusing an illegal
//!    shot with a [`Refusal`] that names its rule;
//! 4. [`apply_fire`] makes a report's changes to the world. Nothing else here mutates the world.
//!
//! Every number comes from the charts (`assets/rules/otp/fire.ron`, `commanders.ron`) and carries
//! their provenance: fixed by the text, or reconstructed.

mod apply;
pub mod battle;
pub mod cover;
mod odds;
mod plan;
pub mod range;
mod report;
mod resolve;
pub mod shot;
mod state;

use std::fmt;

use serde::Serialize;

pub use apply::{CommanderCasualty, GunHits, apply_fire};
pub use plan::fire_options;
pub use odds::{CasualtyOdds, FirePreview, Outcome, VisibilityOdds, preview};
pub use report::{CellRead, ColumnInfo, CommanderRoll, FireReport, GeometrySummary, MarkerChange, Modifier, ShotHead, UnitEffect, VisibilityReport};
pub use resolve::{resolve, resolve_split, roll_visibility_now};
pub use state::{ATTACH_REACH, FireTable, UnitState};

use crate::rules::otp::charts::Ammo;
use crate::table::situation::Situation;

/// Why a unit fires (8.12: a unit with a Morale Marker may only fire in a firefight or at a
/// charging unit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum FireOccasion {
    /// The unit's own fire operation in its brigade's activation (3.1, 3.3, 8.1): the nearest
    /// target is preferred, and a unit with a Morale Marker may not fire.
    #[default]
    Normal,
    /// A round of a firefight (9.3).
    Firefight,
    /// At a unit that has closed to contact on the firer's front (9.7): "as if at a range of 2"
    /// or less", so small arms always get the close-range modifier.
    AtChargingUnit,
    /// At a unit closing on the firer but not in contact: the target of a failed closure (9.2) or
    /// a light or Indian unit's reaction fire (9.4). Range is measured where the closer stands.
    ClosingFire,
}

impl FireOccasion {
    /// The occasions that name their target: the 8.1 nearest-target preference is for a unit's own
    /// fire only.
    fn chooses_target(self) -> bool {
        self == FireOccasion::Normal
    }
}

/// One shot to judge: who fires at whom, with what, and why.
#[derive(Clone, Copy, Debug)]
pub struct FireContext<'a> {
    pub table: &'a FireTable,
    pub firer: usize,
    pub target: usize,
    /// What artillery fires (8.1, 8.4); ignored for small arms.
    pub ammo: Ammo,
    pub occasion: FireOccasion,
    /// 9.3: an attacker that fired before rolling its closure attempt counts as disordered for its
    /// return fire in the firefight (Morale Marker or not).
    pub counts_disordered: bool,
    /// 8.7: a visibility in woods fixed by the scenario (inches), instead of rolling for it.
    pub visibility: Option<f32>,
}

impl<'a> FireContext<'a> {
    /// A unit's own fire (small arms, or artillery firing ball).
    pub fn new(table: &'a FireTable, firer: usize, target: usize) -> Self {
        FireContext { table, firer, target, ammo: Ammo::Ball, occasion: FireOccasion::Normal, counts_disordered: false, visibility: None }
    }
    pub fn ammo(self, ammo: Ammo) -> Self {
        FireContext { ammo, ..self }
    }
    pub fn occasion(self, occasion: FireOccasion) -> Self {
        FireContext { occasion, ..self }
    }
    pub fn counts_disordered(self, yes: bool) -> Self {
        FireContext { counts_disordered: yes, ..self }
    }
    pub fn visibility(self, inches: Option<f32>) -> Self {
        FireContext { visibility: inches, ..self }
    }
    pub fn situation(&self) -> &'a Situation {
        &self.table.situation
    }
}

/// A shot the rules forbid: the rule and why, and nothing rolled or changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub rule: String,
    pub reason: String,
}

impl Refusal {
    pub(crate) fn new(rule: &str, reason: impl Into<String>) -> Self {
        Refusal { rule: rule.into(), reason: reason.into() }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (OTP {})", self.reason, self.rule)
    }
}

impl std::error::Error for Refusal {}
