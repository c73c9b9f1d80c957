//! The closing roll (9.1, 9.5) and the CV rolls of firefights and reactions (9.6).

use serde::Serialize;

use super::assess::{cover_bonus, disorder, in_the_open};
use super::{MeleeTable, Modifier, Refused, refused};
use crate::rules::otp::charts::Charts;
use crate::rules::otp::charts::melee::{ClosureModifierId, CvRollModifierId};
use crate::scenario::model::{Arm, Cover, Formation};
use crate::table::aspect::{AttackZone, attack_zone};
use crate::table::contact::ChargePath;

/// 9.1: whether and how likely the attacker closes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClosureCheck {
    pub zone: AttackZone,
    /// A flank or rear attack closes without a roll (9.1).
    pub automatic: bool,
    pub cv: i32,
    pub modifiers: Vec<Modifier>,
    pub total_modifier: i32,
    /// Closes when D10 (0–9) + `total_modifier` ≤ `cv`.
    pub probability: f64,
}

/// 9.6: a CV roll in a firefight or a reaction to closure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvRoll {
    pub cv: i32,
    pub modifiers: Vec<Modifier>,
    pub total_modifier: i32,
    /// Passes when D10 (0–9) + `total_modifier` ≤ `target` (the CV).
    pub target: i32,
    /// The exact chance of passing.
    pub probability: f64,
}

/// What a 9.6 roll needs beyond the table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RollFacts {
    /// The unit defends (its medium or heavy cover counts, 9.6).
    pub defending: bool,
    /// Counts as disordered whatever its marker (9.3: fired before its closure attempt).
    pub counts_disordered: bool,
    /// Cavalry in the open (9.6); None: judged from the unit's own ground.
    pub in_the_open: Option<bool>,
}

/// The chance that D10 (0–9) + `modifier` ≤ `cv`.
pub(crate) fn d10_at_most(cv: i32, modifier: i32) -> f64 {
    (0..10).filter(|d| d + modifier <= cv).count() as f64 / 10.0
}

/// The refusals every closing roll shares: an enemy, not artillery (7.2), not a column without
/// a leader (5.1, 9.1).
fn may_close(table: &MeleeTable, unit: usize, target: usize) -> Result<(), Refused> {
    let s = &table.situation;
    let (u, t) = (s.unit(unit), s.unit(target));
    if unit == target || u.side == t.side {
        return Err(refused("9.0", format!("{} and {} are on the same side: a melee is against an enemy unit", u.name, t.name)));
    }
    if u.gun().is_some() {
        return Err(refused("7.2", format!("{} is artillery: artillery may never initiate a melee (roll for closure), only be its target", u.name)));
    }
    if u.formation == Formation::Column && table.sheet(unit).leaders.is_empty() {
        return Err(refused("5.1", format!("{} is in march column: a column may roll for closure only with a leader attached (5.1, 9.1)", u.name)));
    }
    Ok(())
}

/// The closing die-roll modifiers (9.1) of `unit` against `target` along `path`.
fn closing_modifiers(table: &MeleeTable, charts: &Charts, unit: usize, target: usize, path: &ChargePath) -> Vec<Modifier> {
    let m = &charts.melee;
    let s = &table.situation;
    let u = s.unit(unit);
    let mut out = Vec::new();
    let entry = |id: ClosureModifierId, rule: &str, name: &str, detail: Option<String>| {
        let e = m.closure_entry(id);
        Modifier { rule: rule.into(), name: name.into(), value: e.value, label: e.label.clone(), detail, provenance: e.source.clone() }
    };
    if let Some(why) = disorder(table, unit) {
        out.push(entry(ClosureModifierId::Disordered, "9.1, 5.3", "disordered", Some(why)));
    }
    match cover_bonus(table, target, &[unit]) {
        Some((Cover::Medium, at)) => out.push(entry(ClosureModifierId::TargetMediumCover, "9.1", "target_medium_cover", Some(at))),
        Some((Cover::Heavy, at)) => out.push(entry(ClosureModifierId::TargetHeavyCover, "9.1", "target_heavy_cover", Some(at))),
        _ => {}
    }
    if u.arm == Arm::Cavalry && path.in_the_open {
        out.push(entry(ClosureModifierId::CavalryInOpen, "9.1", "cavalry_in_open", None));
    }
    if table.state(target).morale_marker {
        out.push(entry(ClosureModifierId::TargetDisordered, "9.1", "target_disordered", Some("Morale Marker".into())));
    }
    if u.formation == Formation::Column {
        out.push(entry(ClosureModifierId::AttackerInColumn, "9.1, 5.1", "attacker_in_column", None));
    }
    if let Some((leader, rating)) = table.best_leader(unit, |r| -m.leader_closure(r))
        && m.leader_closure(rating) != 0
    {
        out.push(Modifier {
            rule: "9.1, 9.6".into(),
            name: "leader".into(),
            value: m.leader_closure(rating),
            label: "leader attached, by rating".into(),
            detail: Some(format!("{rating:?} leader {}", leader.name)),
            provenance: m.leader(rating).source.clone(),
        });
    }
    out
}

fn check(table: &MeleeTable, unit: usize, zone: AttackZone, modifiers: Vec<Modifier>) -> ClosureCheck {
    let cv = table.sheet(unit).cv as i32;
    let automatic = zone != AttackZone::Front;
    let total_modifier = modifiers.iter().map(|m| m.value).sum();
    let probability = if automatic { 1.0 } else { d10_at_most(cv, total_modifier) };
    ClosureCheck { zone, automatic, cv, modifiers: if automatic { Vec::new() } else { modifiers }, total_modifier: if automatic { 0 } else { total_modifier }, probability }
}

/// 9.1 (with 5.1, 5.3, 7.2): the closing roll of `attacker` on `target` along `path`.
pub fn closure(table: &MeleeTable, charts: &Charts, attacker: usize, target: usize, path: &ChargePath) -> Result<ClosureCheck, Refused> {
    may_close(table, attacker, target)?;
    let modifiers = closing_modifiers(table, charts, attacker, target, path);
    Ok(check(table, attacker, path.zone, modifiers))
}

/// 9.5: mounted cavalry charged from its front countercharges `charger` if it passes the
/// closure check; a Morale Marker counts as disordered for it. `path` is the countercharge's.
pub fn countercharge(table: &MeleeTable, charts: &Charts, cavalry: usize, charger: usize, path: &ChargePath) -> Result<ClosureCheck, Refused> {
    let s = &table.situation;
    let c = s.unit(cavalry);
    if c.arm != Arm::Cavalry {
        return Err(refused("9.5", format!("{} is not mounted cavalry: only mounted cavalry countercharges", c.name)));
    }
    may_close(table, cavalry, charger)?;
    if attack_zone(s, charger, cavalry) != AttackZone::Front {
        return Err(refused("9.5", format!("{} is charged in flank or rear: only cavalry charged from its front countercharges", c.name)));
    }
    // Head-on: the countercharge always rolls, whatever its own path's zone.
    let modifiers = closing_modifiers(table, charts, cavalry, charger, path);
    Ok(check(table, cavalry, AttackZone::Front, modifiers))
}

/// 9.6: `unit`'s CV roll facing `enemy`.
pub fn cv_roll(table: &MeleeTable, charts: &Charts, unit: usize, enemy: usize, facts: RollFacts) -> CvRoll {
    let m = &charts.melee;
    let s = &table.situation;
    let u = s.unit(unit);
    let entry = |id: CvRollModifierId, name: &str, detail: Option<String>| {
        let e = m.cv_roll_entry(id);
        Modifier { rule: "9.6".into(), name: name.into(), value: e.value, label: e.label.clone(), detail, provenance: e.source.clone() }
    };
    let mut modifiers = Vec::new();
    if facts.defending {
        match cover_bonus(table, unit, &[enemy]) {
            Some((Cover::Medium, at)) => modifiers.push(entry(CvRollModifierId::DefenderMediumCover, "defender_medium_cover", Some(at))),
            Some((Cover::Heavy, at)) => modifiers.push(entry(CvRollModifierId::DefenderHeavyCover, "defender_heavy_cover", Some(at))),
            _ => {}
        }
    }
    if let Some((leader, rating)) = table.best_leader(unit, |r| -m.leader(r).cv_roll)
        && m.leader(rating).cv_roll != 0
    {
        let l = m.leader(rating);
        modifiers.push(Modifier {
            rule: "9.6".into(),
            name: "leader".into(),
            value: l.cv_roll,
            label: "leader attached, by rating".into(),
            detail: Some(format!("{rating:?} leader {}", leader.name)),
            provenance: l.source.clone(),
        });
    }
    let why = if facts.counts_disordered { Some("fired before its closure attempt (9.3)".to_string()) } else { disorder(table, unit) };
    if let Some(why) = why {
        modifiers.push(entry(CvRollModifierId::Disordered, "disordered", Some(why)));
    }
    if u.arm == Arm::Cavalry && facts.in_the_open.unwrap_or_else(|| in_the_open(s, unit)) {
        modifiers.push(entry(CvRollModifierId::CavalryInOpen, "cavalry_in_open", None));
    }
    let cv = table.sheet(unit).cv as i32;
    let total_modifier = modifiers.iter().map(|m| m.value).sum();
    CvRoll { cv, modifiers, total_modifier, target: cv, probability: d10_at_most(cv, total_modifier) }
}
