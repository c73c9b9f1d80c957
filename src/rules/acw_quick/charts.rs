//! The quick ACW sheet as data (`assets/rules/acw-quick/charts.ron`): every number with its
//! [`Source`], read and checked once. A syntax or type error reads `file:line:col: message`; a
//! chart that parses but misses a row or breaks a rule reads `file: in <field>: message`.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::rules::cite::Source;
use crate::scenario::model::Nation;

pub const FILE: &str = "assets/rules/acw-quick/charts.ron";

/// A number with where it comes from.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoraleRow {
    pub nation: Nation,
    pub number: i32,
    pub source: Source,
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LeaderRow {
    pub nation: Nation,
    pub bonus: i32,
    pub radius: f32,
    pub source: Source,
}

/// QK6: the rows of the MOVEMENT table.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    FootLine,
    FootColumn,
    CavalryLine,
    CavalryColumn,
    Limbered,
    Unlimbered,
    Leader,
}

impl Mover {
    pub const ALL: [Mover; 7] = [Mover::FootLine, Mover::FootColumn, Mover::CavalryLine, Mover::CavalryColumn, Mover::Limbered, Mover::Unlimbered, Mover::Leader];
    pub fn words(self) -> &'static str {
        match self {
            Mover::FootLine => "foot in line",
            Mover::FootColumn => "foot in column",
            Mover::CavalryLine => "cavalry in line",
            Mover::CavalryColumn => "cavalry in column",
            Mover::Limbered => "artillery limbered",
            Mover::Unlimbered => "artillery unlimbered",
            Mover::Leader => "a leader",
        }
    }
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoveRow {
    pub mover: Mover,
    pub inches: f32,
    pub rout: f32,
    pub source: Source,
}

/// QK11: the rows of the FIRE table.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireArm {
    Foot,
    DismountedCavalry,
    Artillery,
}

impl FireArm {
    pub const ALL: [FireArm; 3] = [FireArm::Foot, FireArm::DismountedCavalry, FireArm::Artillery];
    pub fn words(self) -> &'static str {
        match self {
            FireArm::Foot => "Foot",
            FireArm::DismountedCavalry => "Dismounted cavalry",
            FireArm::Artillery => "Artillery",
        }
    }
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FireRow {
    pub arm: FireArm,
    /// The 2d6 score needed in each band, nearest first; `None`: no fire.
    pub needs: Vec<Option<i32>>,
    pub source: Source,
}

/// QK12: the fire modifiers.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireModifier {
    TargetInCover,
    TargetArtillery,
    TargetDismounted,
    FirerMarked,
    UnionFiring,
    TargetFootColumn,
    TargetMounted,
    FirerInLine,
}

impl FireModifier {
    pub const ALL: [FireModifier; 8] = [
        FireModifier::TargetInCover,
        FireModifier::TargetArtillery,
        FireModifier::TargetDismounted,
        FireModifier::FirerMarked,
        FireModifier::UnionFiring,
        FireModifier::TargetFootColumn,
        FireModifier::TargetMounted,
        FireModifier::FirerInLine,
    ];
    pub fn words(self) -> &'static str {
        match self {
            FireModifier::TargetInCover => "target in cover",
            FireModifier::TargetArtillery => "target is artillery",
            FireModifier::TargetDismounted => "target is dismounted cavalry",
            FireModifier::FirerMarked => "firing unit has a Morale Marker",
            FireModifier::UnionFiring => "Union firing",
            FireModifier::TargetFootColumn => "target is foot in column",
            FireModifier::TargetMounted => "target is mounted cavalry",
            FireModifier::FirerInLine => "firing unit is in line",
        }
    }
}

/// QK16: the melee modifiers besides the leader's bonus and the flank or rear doubling.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeleeModifier {
    MountedAttacking,
    WallOrStream,
    InfantryColumn,
    Uphill,
    ConfederatesAttacking,
    Marked,
}

impl MeleeModifier {
    pub const ALL: [MeleeModifier; 6] = [MeleeModifier::MountedAttacking, MeleeModifier::WallOrStream, MeleeModifier::InfantryColumn, MeleeModifier::Uphill, MeleeModifier::ConfederatesAttacking, MeleeModifier::Marked];
    pub fn words(self) -> &'static str {
        match self {
            MeleeModifier::MountedAttacking => "mounted cavalry attacking",
            MeleeModifier::WallOrStream => "defending a wall or stream",
            MeleeModifier::InfantryColumn => "infantry in column",
            MeleeModifier::Uphill => "uphill of the enemy",
            MeleeModifier::ConfederatesAttacking => "Confederates attacking",
            MeleeModifier::Marked => "unit has a Morale Marker",
        }
    }
}

#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModifierRow<Id> {
    pub id: Id,
    pub value: i32,
    pub source: Source,
}

/// QK15: one row of the MELEE result table, by the difference of the totals.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MeleeRow {
    pub from: i32,
    /// `None`: and more.
    pub to: Option<i32>,
    /// Stands the winner loses, and whether it retreats too (a tie: both "1#").
    pub winner: u32,
    pub winner_retreats: bool,
    /// Stands the loser loses; the loser always retreats (#).
    pub loser: u32,
    pub source: Source,
}

impl MeleeRow {
    pub fn holds(&self, difference: i32) -> bool {
        difference >= self.from && self.to.is_none_or(|t| difference <= t)
    }
    pub fn label(&self) -> String {
        match self.to {
            Some(t) if t == self.from => format!("{}", self.from),
            Some(t) => format!("{}-{t}", self.from),
            None => format!("{}+", self.from),
        }
    }
    /// "1 / 2#": the sheet's cell.
    pub fn cell(&self) -> String {
        format!("{}{} / {}#", self.winner, if self.winner_retreats { "#" } else { "" }, self.loser)
    }
}

/// The whole sheet.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Charts {
    pub morale: Vec<MoraleRow>,
    pub leaders: Vec<LeaderRow>,
    pub moves: Vec<MoveRow>,
    pub rough: Sourced<f32>,
    pub rough_limbered: Sourced<f32>,
    pub change_formation: Sourced<f32>,
    pub mount: Sourced<f32>,
    pub no_leader: Sourced<f32>,
    pub bands: Vec<Sourced<f32>>,
    pub fire: Vec<FireRow>,
    pub fire_modifiers: Vec<ModifierRow<FireModifier>>,
    pub two_stands_over: Sourced<i32>,
    pub melee_modifiers: Vec<ModifierRow<MeleeModifier>>,
    pub melee_results: Vec<MeleeRow>,
    pub retreat_dice: Sourced<u32>,
    pub retreat_dice_mounted: Sourced<u32>,
    pub leader_lost_on: Sourced<i32>,
    pub men_a_stand: Sourced<u32>,
    pub narrow_stream_crossing: Sourced<f32>,
}

impl Charts {
    /// The embedded sheet, read once.
    pub fn embedded() -> &'static Charts {
        static CHARTS: OnceLock<Charts> = OnceLock::new();
        CHARTS.get_or_init(|| Charts::parse(include_str!("../../../assets/rules/acw-quick/charts.ron"), FILE).unwrap_or_else(|e| panic!("{e}")))
    }

    /// Read and check a sheet; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Charts, String> {
        let charts: Charts = crate::scenario::from_ron(text, file).map_err(|e| e.to_string())?;
        charts.check().map_err(|(field, why)| format!("{file}: in {field}: {why}"))?;
        Ok(charts)
    }

    fn check(&self) -> Result<(), (&'static str, String)> {
        let sources = self
            .morale
            .iter()
            .map(|r| ("morale", &r.source))
            .chain(self.leaders.iter().map(|r| ("leaders", &r.source)))
            .chain(self.moves.iter().map(|r| ("moves", &r.source)))
            .chain(self.fire.iter().map(|r| ("fire", &r.source)))
            .chain(self.fire_modifiers.iter().map(|r| ("fire_modifiers", &r.source)))
            .chain(self.melee_modifiers.iter().map(|r| ("melee_modifiers", &r.source)))
            .chain(self.melee_results.iter().map(|r| ("melee_results", &r.source)))
            .chain(self.bands.iter().map(|r| ("bands", &r.source)));
        for (field, source) in sources {
            match source {
                Source::Text { section } if section.trim().is_empty() => return Err((field, "Text(section: ...) must cite a section".into())),
                Source::Reconstructed { why } if why.trim().is_empty() => return Err((field, "Reconstructed(why: ...) must give a reason".into())),
                _ => {}
            }
        }
        for nation in [Nation::Union, Nation::Confederate] {
            if !self.morale.iter().any(|r| r.nation == nation) {
                return Err(("morale", format!("no morale number for {nation:?}")));
            }
            if !self.leaders.iter().any(|r| r.nation == nation) {
                return Err(("leaders", format!("no leader bonus and radius for {nation:?}")));
            }
        }
        if let Some(m) = Mover::ALL.iter().find(|m| !self.moves.iter().any(|r| r.mover == **m)) {
            return Err(("moves", format!("no row for {}", m.words())));
        }
        if self.moves.iter().any(|r| !(0.0..=100.0).contains(&r.inches) || !(0.0..=100.0).contains(&r.rout)) {
            return Err(("moves", "a rate is not between 0\" and 100\"".into()));
        }
        if self.bands.is_empty() || self.bands.windows(2).any(|w| w[0].value >= w[1].value) || self.bands[0].value <= 0.0 {
            return Err(("bands", "the bands must be positive and increasing".into()));
        }
        for arm in FireArm::ALL {
            let Some(row) = self.fire.iter().find(|r| r.arm == arm) else { return Err(("fire", format!("no row for {}", arm.words()))) };
            if row.needs.len() != self.bands.len() {
                return Err(("fire", format!("{} has {} numbers for {} bands", arm.words(), row.needs.len(), self.bands.len())));
            }
        }
        if let Some(m) = FireModifier::ALL.iter().find(|m| !self.fire_modifiers.iter().any(|r| r.id == **m)) {
            return Err(("fire_modifiers", format!("no value for \"{}\"", m.words())));
        }
        if let Some(m) = MeleeModifier::ALL.iter().find(|m| !self.melee_modifiers.iter().any(|r| r.id == **m)) {
            return Err(("melee_modifiers", format!("no value for \"{}\"", m.words())));
        }
        // Every difference 0.. must fall in exactly one row.
        let mut next = 0;
        for row in &self.melee_results {
            if row.from != next {
                return Err(("melee_results", format!("the rows must run on from a difference of 0 without gaps; a row starts at {} where {next} was due", row.from)));
            }
            match row.to {
                Some(t) if t < row.from => return Err(("melee_results", format!("the row {}-{t} runs backwards", row.from))),
                Some(t) => next = t + 1,
                None => next = i32::MAX,
            }
        }
        if next != i32::MAX {
            return Err(("melee_results", "the last row must be open-ended (to: None)".into()));
        }
        if !(1..=6).contains(&self.leader_lost_on.value) || self.men_a_stand.value == 0 || !(1..=6).contains(&self.retreat_dice.value) || !(1..=6).contains(&self.retreat_dice_mounted.value) {
            return Err(("leader_lost_on", "a die number, dice count or men a stand is out of range".into()));
        }
        Ok(())
    }

    pub fn morale(&self, nation: Nation) -> &MoraleRow {
        self.morale.iter().find(|r| r.nation == nation).unwrap_or(&self.morale[0])
    }
    pub fn leader(&self, nation: Nation) -> &LeaderRow {
        self.leaders.iter().find(|r| r.nation == nation).unwrap_or(&self.leaders[0])
    }
    pub fn moves(&self, mover: Mover) -> &MoveRow {
        self.moves.iter().find(|r| r.mover == mover).expect("checked: every mover has a row")
    }
    pub fn fire_row(&self, arm: FireArm) -> &FireRow {
        self.fire.iter().find(|r| r.arm == arm).expect("checked: every arm has a row")
    }
    pub fn fire_modifier(&self, id: FireModifier) -> &ModifierRow<FireModifier> {
        self.fire_modifiers.iter().find(|r| r.id == id).expect("checked: every modifier has a value")
    }
    pub fn melee_modifier(&self, id: MeleeModifier) -> &ModifierRow<MeleeModifier> {
        self.melee_modifiers.iter().find(|r| r.id == id).expect("checked: every modifier has a value")
    }
    pub fn melee_row(&self, difference: i32) -> &MeleeRow {
        self.melee_results.iter().find(|r| r.holds(difference.abs())).expect("checked: the rows cover every difference")
    }
    /// The band a distance falls in (index), if any.
    pub fn band(&self, distance: f32) -> Option<usize> {
        self.bands.iter().position(|b| distance <= b.value + crate::table::geom::EPS)
    }
    pub fn band_label(&self, band: usize) -> String {
        format!("{}\"", self.bands[band].value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // QK11, QK12, QK15: the embedded sheet reads and holds the seed's numbers.
    #[test]
    fn the_embedded_sheet_holds_the_seeds_numbers() {
        let c = Charts::embedded();
        assert_eq!(c.fire_row(FireArm::Foot).needs, vec![Some(4), Some(8), None, None]);
        assert_eq!(c.fire_row(FireArm::DismountedCavalry).needs, vec![Some(3), Some(7), None, None]);
        assert_eq!(c.fire_row(FireArm::Artillery).needs, vec![Some(2), Some(4), Some(9), Some(11)]);
        assert_eq!(c.morale(Nation::Union).number, 8);
        assert_eq!(c.morale(Nation::Confederate).number, 7);
        assert_eq!(c.melee_row(4).cell(), "1 / 2#");
        assert_eq!(c.melee_row(0).cell(), "1# / 1#");
        assert_eq!(c.melee_row(12).cell(), "0 / 3#");
        assert_eq!(c.band(6.0), Some(1));
        assert_eq!(c.band(30.5), None);
    }

    // Charts as data: a broken sheet is refused with its place.
    #[test]
    fn a_broken_sheet_is_refused_with_its_place() {
        let text = include_str!("../../../assets/rules/acw-quick/charts.ron");
        let gap = text.replace("(from: 3, to: Some(5)", "(from: 4, to: Some(5)");
        let e = Charts::parse(&gap, "x.ron").unwrap_err();
        assert!(e.starts_with("x.ron: in melee_results:"), "{e}");
        let bad = text.replace("rough: (value: 0.5,", "rough: (value: \"half\",");
        let e = Charts::parse(&bad, "x.ron").unwrap_err();
        assert!(e.starts_with("x.ron:") && e.split(':').nth(1).is_some_and(|l| l.parse::<u32>().is_ok()), "a type error has its line: {e}");
        let no_row = text.replace("(arm: DismountedCavalry, needs: [Some(3), Some(7), None, None], source: Text(section: \"11\")),", "");
        assert!(Charts::parse(&no_row, "x.ron").unwrap_err().contains("Dismounted cavalry"));
    }
}
