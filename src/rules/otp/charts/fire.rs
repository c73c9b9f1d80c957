//! FIRE COMBAT (8.0): the chart of modified D10 against figures or guns, ranges, and every
//! die-roll modifier.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Check, CheckSource, Source, Sourced, Validate};
use crate::scenario::model::{GunSize, Weapon, WoodsDensity};

/// One cell of the fire chart. Ordered from least to most harm: `NoEffect < Morale < Kills(1) < …`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(try_from = "String", into = "String")]
pub enum FireResult {
    /// `-`
    NoEffect,
    /// `M`: a morale hit, the target gets a Morale Marker (8.2).
    Morale,
    /// Figures killed; each kill also gives a Morale Marker (8.2).
    Kills(u8),
}

impl FireResult {
    /// Two readings added together, as for more than 20 figures (8.1): kills add; a morale hit
    /// adds nothing to kills; two morale hits are one (a unit has only one marker, 10.2).
    pub fn plus(self, other: FireResult) -> FireResult {
        use FireResult::*;
        match (self, other) {
            (Kills(a), Kills(b)) => Kills(a.saturating_add(b)),
            (Kills(a), _) | (_, Kills(a)) => Kills(a),
            (Morale, _) | (_, Morale) => Morale,
            (NoEffect, NoEffect) => NoEffect,
        }
    }
    pub fn kills(self) -> u32 {
        match self {
            FireResult::Kills(k) => k as u32,
            _ => 0,
        }
    }
    /// Whether the target gets a Morale Marker (any kill or morale hit, 8.2).
    pub fn gives_marker(self) -> bool {
        self != FireResult::NoEffect
    }
}

impl fmt::Display for FireResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FireResult::NoEffect => f.pad("-"),
            FireResult::Morale => f.pad("M"),
            FireResult::Kills(k) => f.pad(&k.to_string()),
        }
    }
}

impl FromStr for FireResult {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "-" => Ok(FireResult::NoEffect),
            "M" => Ok(FireResult::Morale),
            t => match t.parse::<u8>() {
                Ok(0) => Ok(FireResult::NoEffect),
                Ok(k) if k <= 30 => Ok(FireResult::Kills(k)),
                _ => Err(format!("\"{t}\" is not a fire result: use - (no effect), M (morale hit) or a number of kills up to 30")),
            },
        }
    }
}

impl TryFrom<String> for FireResult {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<FireResult> for String {
    fn from(r: FireResult) -> String {
        r.to_string()
    }
}

/// One row's cells for a family of columns, written in the file as space-separated results.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(try_from = "String", into = "String")]
pub struct Cells(pub Vec<FireResult>);

impl TryFrom<String> for Cells {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.split_whitespace()
            .enumerate()
            .map(|(i, t)| t.parse().map_err(|e| format!("column {}: {e}", i + 1)))
            .collect::<Result<Vec<_>, _>>()
            .map(Cells)
    }
}

impl From<Cells> for String {
    fn from(c: Cells) -> String {
        c.0.iter().map(|r| format!("{r:>2}")).collect::<Vec<_>>().join(" ")
    }
}

/// The kinds of fire, for which modifiers apply.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FireKind {
    SmallArms,
    Ball,
    Canister,
}

/// What artillery fires (8.1, 8.4): canister only at short range.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ammo {
    Ball,
    Canister,
}

impl From<Ammo> for FireKind {
    fn from(a: Ammo) -> Self {
        match a {
            Ammo::Ball => FireKind::Ball,
            Ammo::Canister => FireKind::Canister,
        }
    }
}

/// A column of the fire chart.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FireColumn {
    SmallArms { figures: u32 },
    Ball { guns: u32 },
    Canister { gun: GunSize, guns: u32 },
}

/// A cell the rules text fixes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    pub roll: i32,
    pub column: FireColumn,
    pub result: FireResult,
    pub section: String,
}

/// One row of the chart: a modified D10.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FireRow {
    pub roll: i32,
    pub source: Source,
    pub small_arms: Cells,
    pub ball: Cells,
    pub canister_light: Cells,
    pub canister_medium: Cells,
    pub canister_heavy: Cells,
}

impl FireRow {
    pub fn canister(&self, gun: GunSize) -> &Cells {
        match gun {
            GunSize::Light => &self.canister_light,
            GunSize::Medium => &self.canister_medium,
            GunSize::Heavy => &self.canister_heavy,
        }
    }
    fn families(&self) -> [(&'static str, &Cells); 5] {
        [
            ("small_arms", &self.small_arms),
            ("ball", &self.ball),
            ("canister_light", &self.canister_light),
            ("canister_medium", &self.canister_medium),
            ("canister_heavy", &self.canister_heavy),
        ]
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeaponRange {
    pub weapon: Weapon,
    pub inches: f32,
    pub source: Source,
}

/// The last whole inch of each artillery range band (8.4).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GunRanges {
    pub gun: GunSize,
    pub short: u32,
    pub medium: u32,
    pub long: u32,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArtilleryBand {
    Short,
    Medium,
    Long,
}

/// Visibility into woods (8.7): `dice` AD plus `plus` inches.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Visibility {
    pub woods: WoodsDensity,
    pub dice: u8,
    pub plus: i32,
    pub source: Source,
}

/// Every fire die-roll modifier of 8.3–8.15, 5.3 and 5.4.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FireModifierId {
    CloseRange,
    InitialVolley,
    Rest,
    BallShortRange,
    BallLongRange,
    HeavyGun,
    LightGun,
    LightCover,
    MediumCover,
    HeavyCover,
    Enfilade,
    EnfiladeBall,
    DisorderedFirer,
    DisorderedTarget,
    ColumnTarget,
    ColumnTargetBall,
    SkirmishFirer,
    SkirmishTarget,
    MountedTarget,
    EliteFirer,
    MilitiaFirer,
    IndianFirer,
    LooseOrderTarget,
}

impl FireModifierId {
    pub const ALL: [FireModifierId; 23] = [
        FireModifierId::CloseRange,
        FireModifierId::InitialVolley,
        FireModifierId::Rest,
        FireModifierId::BallShortRange,
        FireModifierId::BallLongRange,
        FireModifierId::HeavyGun,
        FireModifierId::LightGun,
        FireModifierId::LightCover,
        FireModifierId::MediumCover,
        FireModifierId::HeavyCover,
        FireModifierId::Enfilade,
        FireModifierId::EnfiladeBall,
        FireModifierId::DisorderedFirer,
        FireModifierId::DisorderedTarget,
        FireModifierId::ColumnTarget,
        FireModifierId::ColumnTargetBall,
        FireModifierId::SkirmishFirer,
        FireModifierId::SkirmishTarget,
        FireModifierId::MountedTarget,
        FireModifierId::EliteFirer,
        FireModifierId::MilitiaFirer,
        FireModifierId::IndianFirer,
        FireModifierId::LooseOrderTarget,
    ];
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FireModifier {
    pub id: FireModifierId,
    pub value: i32,
    pub applies_to: Vec<FireKind>,
    pub label: String,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FireChart {
    /// Figures firing small arms, 1 to this (20 in OTP, 8.1).
    pub small_arms_columns: Sourced<u32>,
    /// Guns firing, 1 to this.
    pub gun_columns: Sourced<u32>,
    /// Whether more guns than columns read the last column plus the remainder (like 8.1).
    pub more_guns: Sourced<bool>,
    pub anchors: Vec<Anchor>,
    pub rows: Vec<FireRow>,
    pub small_arms_ranges: Vec<WeaponRange>,
    pub close_range: Sourced<f32>,
    pub artillery_ranges: Vec<GunRanges>,
    pub elevation_bonus: Sourced<f32>,
    pub crew_loss_per: Sourced<u32>,
    pub visibility: Vec<Visibility>,
    pub free_woods: Sourced<f32>,
    pub modifiers: Vec<FireModifier>,
}

const GUN_SIZES: [GunSize; 3] = [GunSize::Light, GunSize::Medium, GunSize::Heavy];
const WEAPONS: [Weapon; 5] = [Weapon::Musket, Weapon::Rifle, Weapon::Carbine, Weapon::Fusil, Weapon::Bow];
const DENSITIES: [WoodsDensity; 3] = [WoodsDensity::Light, WoodsDensity::Regular, WoodsDensity::Dense];

impl FireChart {
    /// The lowest and highest rows; rolls beyond them read these rows.
    pub fn roll_range(&self) -> (i32, i32) {
        (self.rows[0].roll, self.rows[self.rows.len() - 1].roll)
    }

    /// The row read for a modified roll (clamped to the first and last rows).
    pub fn row(&self, modified_roll: i32) -> &FireRow {
        let (lo, hi) = self.roll_range();
        let r = modified_roll.clamp(lo, hi);
        self.rows.iter().find(|row| row.roll == r).unwrap_or(&self.rows[0])
    }

    /// Reads `count` (figures or guns) from one family of columns, splitting counts beyond the
    /// last column into the last column plus the rest (8.1).
    fn read(&self, cells: impl Fn(&FireRow) -> &Cells, width: u32, count: u32, modified_roll: i32) -> FireResult {
        let row = cells(self.row(modified_roll));
        let mut left = count;
        let mut total = FireResult::NoEffect;
        while left > 0 {
            let take = left.min(width);
            total = total.plus(row.0[take as usize - 1]);
            left -= take;
        }
        total
    }

    /// Small-arms fire by `figures` firing at a modified D10 (8.1). More than 20 figures read the
    /// 20 column and the (figures − 20) column and add: 28 figures at 5 → 2 + 1 = 3 kills.
    pub fn small_arms(&self, figures: u32, modified_roll: i32) -> FireResult {
        self.read(|r| &r.small_arms, self.small_arms_columns.value, figures, modified_roll)
    }

    /// Artillery fire by `guns` (crew figures able to fire, 7.1) at a modified D10 (8.1). Ball has
    /// one column per number of guns (gun size is a modifier); canister a column by gun size.
    pub fn artillery(&self, guns: u32, ammo: Ammo, gun: GunSize, modified_roll: i32) -> FireResult {
        let width = if self.more_guns.value { self.gun_columns.value } else { u32::MAX };
        let guns = if self.more_guns.value { guns } else { guns.min(self.gun_columns.value) };
        match ammo {
            Ammo::Ball => self.read(|r| &r.ball, width, guns, modified_roll),
            Ammo::Canister => self.read(|r| r.canister(gun), width, guns, modified_roll),
        }
    }

    /// Any column, by its key.
    pub fn column(&self, column: FireColumn, modified_roll: i32) -> FireResult {
        match column {
            FireColumn::SmallArms { figures } => self.small_arms(figures, modified_roll),
            FireColumn::Ball { guns } => self.artillery(guns, Ammo::Ball, GunSize::Medium, modified_roll),
            FireColumn::Canister { gun, guns } => self.artillery(guns, Ammo::Canister, gun, modified_roll),
        }
    }

    pub fn gun_ranges(&self, gun: GunSize) -> &GunRanges {
        self.artillery_ranges.iter().find(|g| g.gun == gun).expect("validated: every gun size has ranges")
    }

    /// The greatest range in inches, with the elevation bonus for guns on higher ground (7.3).
    pub fn max_range(&self, gun: GunSize, elevated: bool) -> f32 {
        self.gun_ranges(gun).long as f32 + if elevated { self.elevation_bonus.value } else { 0.0 }
    }

    /// The range band of a target `inches` away (partial inches round up: 9 1/4" is 10", 8.4);
    /// None beyond long range.
    pub fn band(&self, gun: GunSize, inches: f32) -> Option<ArtilleryBand> {
        self.band_from(gun, inches, false)
    }

    /// As [`FireChart::band`], for guns on higher ground than the target: the elevation bonus
    /// lengthens long range (7.3).
    pub fn band_from(&self, gun: GunSize, inches: f32, elevated: bool) -> Option<ArtilleryBand> {
        let r = self.gun_ranges(gun);
        let whole = inches.max(0.0).ceil();
        if whole <= r.short as f32 {
            Some(ArtilleryBand::Short)
        } else if whole <= r.medium as f32 {
            Some(ArtilleryBand::Medium)
        } else if whole <= self.max_range(gun, elevated).ceil() {
            Some(ArtilleryBand::Long)
        } else {
            None
        }
    }

    /// Canister only at short range (8.4); the caller also checks no friendly unit is in the
    /// gun's arc and short range.
    pub fn canister_allowed(&self, band: ArtilleryBand) -> bool {
        band == ArtilleryBand::Short
    }

    /// The modifier for firing ball in a band (8.4), if any.
    pub fn ball_range_modifier(band: ArtilleryBand) -> Option<FireModifierId> {
        match band {
            ArtilleryBand::Short => Some(FireModifierId::BallShortRange),
            ArtilleryBand::Medium => None,
            ArtilleryBand::Long => Some(FireModifierId::BallLongRange),
        }
    }

    /// The modifier for the weight of ball (8.4), if any.
    pub fn gun_size_modifier(gun: GunSize) -> Option<FireModifierId> {
        match gun {
            GunSize::Light => Some(FireModifierId::LightGun),
            GunSize::Medium => None,
            GunSize::Heavy => Some(FireModifierId::HeavyGun),
        }
    }

    /// Small-arms range in inches (8.3).
    pub fn small_arms_range(&self, weapon: Weapon) -> f32 {
        self.small_arms_ranges.iter().find(|w| w.weapon == weapon).map_or(0.0, |w| w.inches)
    }

    /// The close range of small arms (8.3): 2", or the woods visibility if less.
    pub fn close_range(&self) -> f32 {
        self.close_range.value
    }

    pub fn modifier_entry(&self, id: FireModifierId) -> &FireModifier {
        self.modifiers.iter().find(|m| m.id == id).expect("validated: every fire modifier is present")
    }

    /// The value of a die-roll modifier.
    pub fn modifier(&self, id: FireModifierId) -> i32 {
        self.modifier_entry(id).value
    }

    /// Whether a modifier applies to a kind of fire.
    pub fn applies(&self, id: FireModifierId, kind: FireKind) -> bool {
        self.modifier_entry(id).applies_to.contains(&kind)
    }

    /// Sum of the modifiers that apply to `kind` (those that do not are skipped).
    pub fn total_modifier(&self, kind: FireKind, ids: &[FireModifierId]) -> i32 {
        ids.iter().filter(|&&id| self.applies(id, kind)).map(|&id| self.modifier(id)).sum()
    }

    /// Visibility into woods (8.7): averaging dice and inches added.
    pub fn visibility(&self, woods: WoodsDensity) -> &Visibility {
        self.visibility.iter().find(|v| v.woods == woods).expect("validated: every woods density has a visibility")
    }

    /// Crew figures (guns) lost for the figure losses an artillery stand has taken (7.1).
    pub fn crew_lost(&self, figure_losses: u32) -> u32 {
        figure_losses / self.crew_loss_per.value.max(1)
    }
}

fn check_family(c: &mut Check, rows: &[FireRow], family: usize, name: &str, width: u32) {
    for (i, row) in rows.iter().enumerate() {
        let cells = &row.families()[family].1.0;
        let place = format!("rows[roll {}].{name}", row.roll);
        if cells.len() != width as usize {
            c.fail(&place, format!("{} cells, but the chart has {width} columns", cells.len()));
            continue;
        }
        for k in 1..cells.len() {
            if cells[k] < cells[k - 1] {
                c.fail(&place, format!("column {} ({}) gives less than column {} ({}): more firing must never give fewer losses", k + 1, cells[k], k, cells[k - 1]));
            }
        }
        if i > 0 {
            let above = &rows[i - 1].families()[family].1.0;
            if above.len() == cells.len() {
                for k in 0..cells.len() {
                    if cells[k] > above[k] {
                        c.fail(
                            &place,
                            format!("column {} reads {}, more than {} at roll {}: a higher roll must never give more losses", k + 1, cells[k], above[k], rows[i - 1].roll),
                        );
                    }
                }
            }
        }
    }
}

impl Validate for FireChart {
    fn validate(&self, c: &mut Check) {
        c.range("small_arms_columns", "value", self.small_arms_columns.value, 1, 40);
        self.small_arms_columns.source.check(c, "small_arms_columns");
        c.range("gun_columns", "value", self.gun_columns.value, 1, 20);
        self.gun_columns.source.check(c, "gun_columns");
        self.more_guns.source.check(c, "more_guns");
        if self.rows.is_empty() {
            c.fail("rows", "no rows");
            return;
        }
        for w in self.rows.windows(2) {
            if w[1].roll != w[0].roll + 1 {
                c.fail(format!("rows[roll {}]", w[1].roll), format!("follows roll {}: rows must run one roll apart, lowest first", w[0].roll));
                return;
            }
        }
        let (lo, hi) = (self.rows[0].roll, self.rows[self.rows.len() - 1].roll);
        if lo > 0 || hi < 9 {
            c.fail("rows", format!("run from {lo} to {hi}; they must cover at least the D10's 0 to 9"));
        }
        for row in &self.rows {
            row.source.check(c, &format!("rows[roll {}]", row.roll));
        }
        let widths = [self.small_arms_columns.value, self.gun_columns.value, self.gun_columns.value, self.gun_columns.value, self.gun_columns.value];
        let names = ["small_arms", "ball", "canister_light", "canister_medium", "canister_heavy"];
        for f in 0..5 {
            check_family(c, &self.rows, f, names[f], widths[f]);
        }
        // Heavier canister never does less (8.1: the column goes by gun size).
        for row in &self.rows {
            for (lighter, heavier, ln, hn) in
                [(&row.canister_light, &row.canister_medium, "light", "medium"), (&row.canister_medium, &row.canister_heavy, "medium", "heavy")]
            {
                for (k, (a, b)) in lighter.0.iter().zip(&heavier.0).enumerate() {
                    if b < a {
                        c.fail(format!("rows[roll {}].canister_{hn}", row.roll), format!("{} guns read {b}, less than {ln} guns' {a}: heavier canister must never do less", k + 1));
                    }
                }
            }
        }
        for a in &self.anchors {
            let place = format!("anchors ({:?} at roll {})", a.column, a.roll);
            let (count, width) = match a.column {
                FireColumn::SmallArms { figures } => (figures, self.small_arms_columns.value),
                FireColumn::Ball { guns } | FireColumn::Canister { guns, .. } => (guns, self.gun_columns.value),
            };
            if a.roll < lo || a.roll > hi || count == 0 || count > width {
                c.fail(&place, "is outside the chart");
                continue;
            }
            let got = self.column(a.column, a.roll);
            if got != a.result {
                c.fail(format!("rows[roll {}]", a.roll), format!("{:?} reads {got}, but OTP {} fixes {}", a.column, a.section, a.result));
            }
        }
        c.keyed_rows("small_arms_ranges", "range", &WEAPONS, &self.small_arms_ranges, |w| w.weapon, |w| &w.source, |c, w, place| {
            c.range(place, "inches", w.inches, 0.5, 36.0)
        });
        c.range("close_range", "value", self.close_range.value, 0.0, 12.0);
        self.close_range.source.check(c, "close_range");
        c.keyed_rows("artillery_ranges", "range", &GUN_SIZES, &self.artillery_ranges, |g| g.gun, |g| &g.source, |c, g, place| {
            if !(g.short < g.medium && g.medium < g.long) {
                c.fail(place, format!("short {} medium {} long {}: each band must end beyond the one before", g.short, g.medium, g.long));
            }
            c.range(place, "long", g.long, 1, 120);
        });
        c.range("elevation_bonus", "value", self.elevation_bonus.value, 0.0, 24.0);
        self.elevation_bonus.source.check(c, "elevation_bonus");
        c.range("crew_loss_per", "value", self.crew_loss_per.value, 1, 10);
        self.crew_loss_per.source.check(c, "crew_loss_per");
        c.keyed_rows("visibility", "visibility", &DENSITIES, &self.visibility, |v| v.woods, |v| &v.source, |c, v, place| {
            c.range(place, "dice", v.dice, 0, 4)
        });
        c.range("free_woods", "value", self.free_woods.value, 0.0, 12.0);
        self.free_woods.source.check(c, "free_woods");
        let ids: Vec<_> = self.modifiers.iter().map(|m| m.id).collect();
        c.exactly_once("modifiers", "modifier", &FireModifierId::ALL, &ids);
        for m in &self.modifiers {
            let place = format!("modifiers ({:?})", m.id);
            c.range(&place, "value", m.value, -10, 10);
            if m.applies_to.is_empty() {
                c.fail(&place, "applies_to is empty: name the kinds of fire it modifies (SmallArms, Ball, Canister)");
            }
            m.source.check(c, &place);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Charts;
    use super::*;

    #[test]
    fn cells_parse_and_print() {
        let cells = Cells::try_from(" - M 1 12".to_string()).unwrap();
        assert_eq!(cells.0, vec![FireResult::NoEffect, FireResult::Morale, FireResult::Kills(1), FireResult::Kills(12)]);
        let err = Cells::try_from("- M X".to_string()).unwrap_err();
        assert!(err.starts_with("column 3: \"X\" is not a fire result"), "{err}");
        assert!(FireResult::NoEffect < FireResult::Morale && FireResult::Morale < FireResult::Kills(1));
    }

    // OTP 8.1: results add for more than 20 figures.
    #[test]
    fn results_add() {
        use FireResult::*;
        assert_eq!(Kills(2).plus(Kills(1)), Kills(3));
        assert_eq!(Kills(2).plus(Morale), Kills(2));
        assert_eq!(Morale.plus(NoEffect), Morale);
        assert_eq!(NoEffect.plus(NoEffect), NoEffect);
    }

    // OTP 8.1: "28 figure unit … modified result of 5 … 2 + 1 = 3 losses".
    #[test]
    fn the_8_1_example() {
        let f = &Charts::embedded().fire;
        assert_eq!(f.small_arms(20, 5), FireResult::Kills(2));
        assert_eq!(f.small_arms(8, 5), FireResult::Kills(1));
        assert_eq!(f.small_arms(28, 5), FireResult::Kills(3));
        assert_eq!(f.small_arms(0, -9), FireResult::NoEffect);
    }

    #[test]
    fn rolls_beyond_the_chart_read_its_edges() {
        let f = &Charts::embedded().fire;
        let (lo, hi) = f.roll_range();
        assert_eq!(f.small_arms(12, lo - 5), f.small_arms(12, lo));
        assert_eq!(f.small_arms(12, hi + 5), f.small_arms(12, hi));
    }

    // OTP 7.1: a crew figure is lost per 2 figure losses.
    #[test]
    fn crews() {
        let f = &Charts::embedded().fire;
        assert_eq!((f.crew_lost(1), f.crew_lost(2), f.crew_lost(5)), (0, 1, 2));
    }

    #[test]
    fn modifiers_apply_by_kind() {
        use FireModifierId::*;
        let f = &Charts::embedded().fire;
        // OTP 8.11: enfilade -2 for small arms and canister; ball has its own.
        assert_eq!(f.total_modifier(FireKind::SmallArms, &[Enfilade, EnfiladeBall]), -2);
        assert_eq!(f.total_modifier(FireKind::Canister, &[Enfilade, EnfiladeBall]), -2);
        assert_eq!(f.total_modifier(FireKind::Ball, &[Enfilade, EnfiladeBall]), f.modifier(EnfiladeBall));
        // OTP 8.13 + 8.14: limbered artillery is a column and mounted: ball -2 -1.
        assert_eq!(f.total_modifier(FireKind::Ball, &[ColumnTarget, ColumnTargetBall, MountedTarget]), -3);
    }
}
