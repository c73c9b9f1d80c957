//! MELEE COMBAT (9.0): results by ratio, and the closing (9.1), CV-roll (9.6) and melee CV
//! (9.10–9.14) modifiers and multipliers.

use serde::{Deserialize, Serialize};

use super::commanders::RATINGS;
use super::{Check, CheckSource, Source, Sourced, Validate};
use crate::rules::dice::{self, DiceKind};
use crate::scenario::model::Rating;

/// A number of averaging dice plus a modifier, never below 0: figures lost (9.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdLosses {
    pub dice: u8,
    pub modifier: i32,
}

impl AdLosses {
    /// Figures lost for a throw of the dice totalling `ad_total`.
    pub fn apply(self, ad_total: i32) -> u32 {
        (ad_total + self.modifier).max(0) as u32
    }
    /// The exact chance of each number of figures lost.
    pub fn odds(self) -> Vec<(u32, f64)> {
        let mut out: Vec<(u32, f64)> = Vec::new();
        for (t, p) in dice::distribution(DiceKind::Ad(self.dice)) {
            let n = self.apply(t);
            match out.iter_mut().find(|(x, _)| *x == n) {
                Some((_, q)) => *q += p,
                None => out.push((n, p)),
            }
        }
        out
    }
}

/// A row of MELEE COMBAT.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RatioRow {
    /// The smallest ratio of winner's total to loser's total for this row, as (winner, loser).
    pub at_least: (u32, u32),
    /// Averaging dice the loser rolls for losses (9.8).
    pub loser_dice: u8,
    /// Full moves the loser retreats: one per loser die (9.8).
    pub retreat_moves: u8,
    /// Whether the winner gets a bonus move (6.10: at 2 to 1 or more).
    pub bonus_move: bool,
    pub source: Source,
    pub loser_modifier: i32,
    pub winner_dice: u8,
    pub winner_modifier: i32,
    pub losses_source: Source,
}

impl RatioRow {
    pub fn loser(&self) -> AdLosses {
        AdLosses { dice: self.loser_dice, modifier: self.loser_modifier }
    }
    pub fn winner(&self) -> AdLosses {
        AdLosses { dice: self.winner_dice, modifier: self.winner_modifier }
    }
    /// "1/1", "3/2"…
    pub fn label(&self) -> String {
        format!("{}/{}", self.at_least.0, self.at_least.1)
    }
}

/// A die-roll or CV modifier keyed by `Id`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Modifier<Id> {
    pub id: Id,
    pub value: i32,
    pub label: String,
    pub source: Source,
}

/// Closing die-roll modifiers (9.1).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClosureModifierId {
    Disordered,
    TargetMediumCover,
    TargetHeavyCover,
    CavalryInOpen,
    TargetDisordered,
    AttackerInColumn,
}

impl ClosureModifierId {
    pub const ALL: [ClosureModifierId; 6] = [
        ClosureModifierId::Disordered,
        ClosureModifierId::TargetMediumCover,
        ClosureModifierId::TargetHeavyCover,
        ClosureModifierId::CavalryInOpen,
        ClosureModifierId::TargetDisordered,
        ClosureModifierId::AttackerInColumn,
    ];
}

/// CV die-roll modifiers in firefights and reactions to closure (9.6).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvRollModifierId {
    DefenderMediumCover,
    DefenderHeavyCover,
    Disordered,
    CavalryInOpen,
}

impl CvRollModifierId {
    pub const ALL: [CvRollModifierId; 4] =
        [CvRollModifierId::DefenderMediumCover, CvRollModifierId::DefenderHeavyCover, CvRollModifierId::Disordered, CvRollModifierId::CavalryInOpen];
}

/// Melee CV modifiers (9.12, 9.13, 5.4).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeleeCvModifierId {
    UphillOrFord,
    LightCover,
    MediumCover,
    HeavyCover,
    Downhill,
    CavalryCharge,
    Bayonets,
    Disordered,
    LooseOrder,
}

impl MeleeCvModifierId {
    pub const ALL: [MeleeCvModifierId; 9] = [
        MeleeCvModifierId::UphillOrFord,
        MeleeCvModifierId::LightCover,
        MeleeCvModifierId::MediumCover,
        MeleeCvModifierId::HeavyCover,
        MeleeCvModifierId::Downhill,
        MeleeCvModifierId::CavalryCharge,
        MeleeCvModifierId::Bayonets,
        MeleeCvModifierId::Disordered,
        MeleeCvModifierId::LooseOrder,
    ];
}

/// Melee CV multipliers (9.14).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MultiplierId {
    Flank,
    Rear,
    SkirmishVsFormed,
    MountedVsFoot,
}

impl MultiplierId {
    pub const ALL: [MultiplierId; 4] = [MultiplierId::Flank, MultiplierId::Rear, MultiplierId::SkirmishVsFormed, MultiplierId::MountedVsFoot];
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Multiplier {
    pub id: MultiplierId,
    pub factor: f32,
    pub label: String,
    pub source: Source,
}

/// What an attached leader adds, by rating (9.6, 9.10).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LeaderValues {
    pub rating: Rating,
    /// To CV die rolls in firefights and reactions (9.6), low being good.
    pub cv_roll: i32,
    /// To the unit's melee CV when it attacks (9.10).
    pub melee_attacking: i32,
    /// To the unit's melee CV when it defends (9.10).
    pub melee_defending: i32,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MeleeChart {
    pub ratios: Vec<RatioRow>,
    pub closure: Vec<Modifier<ClosureModifierId>>,
    pub closure_leader: Sourced<bool>,
    pub cv_roll: Vec<Modifier<CvRollModifierId>>,
    pub leaders: Vec<LeaderValues>,
    pub cv: Vec<Modifier<MeleeCvModifierId>>,
    pub multipliers: Vec<Multiplier>,
    pub artillery_figures: Sourced<u32>,
    pub firefight_withdraw: Sourced<u8>,
    pub reaction_withdraw: Sourced<u8>,
    pub defensive_fire_range: Sourced<f32>,
}

fn find<Id: PartialEq + Copy>(list: &[Modifier<Id>], id: Id) -> &Modifier<Id> {
    list.iter().find(|m| m.id == id).expect("validated: every modifier is present")
}

impl MeleeChart {
    /// The MELEE COMBAT row for the totals (9.8): the last row whose ratio the winner reaches.
    /// Call with `winner_total > loser_total` (ties are re-rolled).
    pub fn outcome(&self, winner_total: u32, loser_total: u32) -> &RatioRow {
        let (w, l) = (winner_total as u64, loser_total as u64);
        self.ratios.iter().rev().find(|r| w * r.at_least.1 as u64 >= l * r.at_least.0 as u64).unwrap_or(&self.ratios[0])
    }

    pub fn closure_entry(&self, id: ClosureModifierId) -> &Modifier<ClosureModifierId> {
        find(&self.closure, id)
    }
    /// A closing die-roll modifier (9.1).
    pub fn closure(&self, id: ClosureModifierId) -> i32 {
        self.closure_entry(id).value
    }

    pub fn cv_roll_entry(&self, id: CvRollModifierId) -> &Modifier<CvRollModifierId> {
        find(&self.cv_roll, id)
    }
    /// A CV die-roll modifier for firefights and reactions (9.6).
    pub fn cv_roll(&self, id: CvRollModifierId) -> i32 {
        self.cv_roll_entry(id).value
    }

    pub fn cv_entry(&self, id: MeleeCvModifierId) -> &Modifier<MeleeCvModifierId> {
        find(&self.cv, id)
    }
    /// A melee CV modifier (9.12, 9.13, 5.4).
    pub fn cv(&self, id: MeleeCvModifierId) -> i32 {
        self.cv_entry(id).value
    }

    pub fn multiplier_entry(&self, id: MultiplierId) -> &Multiplier {
        self.multipliers.iter().find(|m| m.id == id).expect("validated: every multiplier is present")
    }
    /// A melee CV multiplier (9.14).
    pub fn multiplier(&self, id: MultiplierId) -> f32 {
        self.multiplier_entry(id).factor
    }

    pub fn leader(&self, rating: Rating) -> &LeaderValues {
        self.leaders.iter().find(|l| l.rating == rating).expect("validated: every rating has leader values")
    }

    /// An attached leader's modifier to the unit's melee CV (9.10).
    pub fn leader_melee(&self, rating: Rating, attacking: bool) -> i32 {
        let l = self.leader(rating);
        if attacking { l.melee_attacking } else { l.melee_defending }
    }

    /// An attached leader's modifier to a closing roll (the 9.6 value, if `closure_leader`).
    pub fn leader_closure(&self, rating: Rating) -> i32 {
        if self.closure_leader.value { self.leader(rating).cv_roll } else { 0 }
    }

    /// A unit's melee value (9.8): figures in combat × modified CV (never below 0) × multipliers,
    /// the total rounded up (5.3).
    pub fn melee_value(&self, figures: u32, modified_cv: i32, multipliers: &[MultiplierId]) -> u32 {
        let factor: f64 = multipliers.iter().map(|&m| self.multiplier(m) as f64).product();
        let raw = figures as f64 * modified_cv.max(0) as f64 * factor;
        (raw - 1e-9).ceil().max(0.0) as u32
    }
}

fn check_modifiers<Id: PartialEq + Copy + std::fmt::Debug>(c: &mut Check, field: &str, all: &[Id], list: &[Modifier<Id>]) {
    let ids: Vec<Id> = list.iter().map(|m| m.id).collect();
    c.exactly_once(field, "modifier", all, &ids);
    for m in list {
        let place = format!("{field} ({:?})", m.id);
        c.range(&place, "value", m.value, -10, 10);
        m.source.check(c, &place);
    }
}

impl Validate for MeleeChart {
    fn validate(&self, c: &mut Check) {
        if self.ratios.is_empty() {
            c.fail("ratios", "no rows");
        } else if self.ratios[0].at_least != (1, 1) {
            c.fail("ratios", format!("the first row is {}; it must be 1/1 (the winner's total is at least the loser's)", self.ratios[0].label()));
        }
        for w in self.ratios.windows(2) {
            let (a, b) = (w[0].at_least, w[1].at_least);
            if (b.0 as u64) * (a.1 as u64) <= (a.0 as u64) * (b.1 as u64) {
                c.fail(format!("ratios ({})", w[1].label()), format!("follows {}: ratios must rise", w[0].label()));
            }
        }
        for r in &self.ratios {
            let place = format!("ratios ({})", r.label());
            if r.at_least.1 == 0 {
                c.fail(&place, "a ratio cannot have 0 below the line");
            }
            c.range(&place, "loser_dice", r.loser_dice, 0, 4);
            c.range(&place, "winner_dice", r.winner_dice, 0, 4);
            c.range(&place, "retreat_moves", r.retreat_moves, 0, 4);
            c.range(&place, "loser_modifier", r.loser_modifier, -10, 10);
            c.range(&place, "winner_modifier", r.winner_modifier, -10, 10);
            r.source.check(c, &place);
            r.losses_source.check(c, &place);
        }
        check_modifiers(c, "closure", &ClosureModifierId::ALL, &self.closure);
        self.closure_leader.source.check(c, "closure_leader");
        check_modifiers(c, "cv_roll", &CvRollModifierId::ALL, &self.cv_roll);
        check_modifiers(c, "cv", &MeleeCvModifierId::ALL, &self.cv);
        let ratings: Vec<_> = self.leaders.iter().map(|l| l.rating).collect();
        c.exactly_once("leaders", "row", &RATINGS, &ratings);
        for l in &self.leaders {
            let place = format!("leaders ({:?})", l.rating);
            for (name, v) in [("cv_roll", l.cv_roll), ("melee_attacking", l.melee_attacking), ("melee_defending", l.melee_defending)] {
                c.range(&place, name, v, -5, 5);
            }
            l.source.check(c, &place);
        }
        let ids: Vec<_> = self.multipliers.iter().map(|m| m.id).collect();
        c.exactly_once("multipliers", "multiplier", &MultiplierId::ALL, &ids);
        for m in &self.multipliers {
            let place = format!("multipliers ({:?})", m.id);
            c.range(&place, "factor", m.factor, 0.1, 10.0);
            m.source.check(c, &place);
        }
        c.range("artillery_figures", "value", self.artillery_figures.value, 1, 10);
        self.artillery_figures.source.check(c, "artillery_figures");
        for (field, s) in [("firefight_withdraw", &self.firefight_withdraw), ("reaction_withdraw", &self.reaction_withdraw)] {
            c.range(field, "value", s.value, 0, 4);
            s.source.check(c, field);
        }
        c.range("defensive_fire_range", "value", self.defensive_fire_range.value, 0.0, 12.0);
        self.defensive_fire_range.source.check(c, "defensive_fire_range");
    }
}

#[cfg(test)]
mod tests {
    use super::super::Charts;
    use super::*;

    // OTP 9.8: 1/1 and 3/2 → 1 AD and 1 full move; 2/1, 3/1, 4/1 → 2 AD and 2 full moves.
    // OTP 6.10: a bonus move at 2 to 1 or better.
    #[test]
    fn ratios() {
        let m = &Charts::embedded().melee;
        for (w, l, label, dice, bonus) in [
            (10, 10, "1/1", 1, false),
            (14, 10, "1/1", 1, false),
            (15, 10, "3/2", 1, false),
            (19, 10, "3/2", 1, false),
            (20, 10, "2/1", 2, true),
            (30, 10, "3/1", 2, true),
            (39, 10, "3/1", 2, true),
            (40, 10, "4/1", 2, true),
            (400, 10, "4/1", 2, true),
            (5, 0, "4/1", 2, true),
        ] {
            let r = m.outcome(w, l);
            assert_eq!((r.label().as_str(), r.loser_dice, r.retreat_moves, r.bonus_move), (label, dice, dice, bonus), "{w}:{l}");
        }
    }

    // OTP 9.14 and 5.3: skirmishers x1/2, total rounded up; flank x2, rear x3.
    #[test]
    fn melee_values() {
        let m = &Charts::embedded().melee;
        assert_eq!(m.melee_value(7, 3, &[MultiplierId::SkirmishVsFormed]), 11); // 10.5 → 11
        assert_eq!(m.melee_value(8, 5, &[MultiplierId::Flank]), 80);
        assert_eq!(m.melee_value(8, 5, &[MultiplierId::Rear, MultiplierId::MountedVsFoot]), 240);
        assert_eq!(m.melee_value(8, -1, &[]), 0);
    }

    // OTP 9.6 and 9.10.
    #[test]
    fn leaders() {
        let m = &Charts::embedded().melee;
        assert_eq!(
            [Rating::Exceptional, Rating::Firebrand, Rating::Aggressive, Rating::Cautious, Rating::Poltroon].map(|r| m.leader(r).cv_roll),
            [-2, -1, 0, 0, 1]
        );
        assert_eq!(m.leader_melee(Rating::Cautious, false), 1);
        assert_eq!(m.leader_melee(Rating::Cautious, true), 0);
        assert_eq!(m.leader_melee(Rating::Firebrand, true), 1);
        assert_eq!(m.leader_melee(Rating::Firebrand, false), 0);
        assert_eq!(m.leader_melee(Rating::Exceptional, false), 1);
        assert_eq!(m.leader_melee(Rating::Poltroon, true), -1);
    }

    #[test]
    fn losses_never_negative() {
        let m = &Charts::embedded().melee;
        for r in &m.ratios {
            for side in [r.loser(), r.winner()] {
                let total: f64 = side.odds().iter().map(|(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-9);
            }
            assert!(r.loser().odds().iter().map(|&(n, p)| n as f64 * p).sum::<f64>() >= r.winner().odds().iter().map(|&(n, p)| n as f64 * p).sum::<f64>());
        }
    }
}
