//! What a shot reports: each modifier with its rule and provenance, the column, each die with its
//! faces, the chart cell read, and the changes the result makes (architecture: every resolution
//! a report).

use std::fmt;

use serde::{Serialize, Serializer};

use super::FireOccasion;
use super::cover::CoverFound;
use crate::rules::otp::charts::{Ammo, ArtilleryBand, FireChart, FireColumn, FireKind, FireModifierId, FireResult, Source};
use crate::rules::dice::Roll;
use crate::scenario::model::{GunSize, WoodsDensity};

/// Serialises a provenance as `OTP 8.11` or `reconstructed: <why>`.
fn as_text<S: Serializer>(source: &Source, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&source.cited(crate::rules::cite::RuleSetId::Otp))
}

/// One die-roll modifier as applied: `{ rule: "8.11", name: "enfilade", value: -2, … }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Modifier {
    /// The section that gives it.
    pub rule: String,
    /// Its name in snake case (`enfilade`, `close_range`, …).
    pub name: String,
    /// From the chart (low rolls are good for the firer).
    pub value: i32,
    #[serde(skip)]
    pub id: FireModifierId,
    /// The chart's description.
    pub label: String,
    /// What on the table gave it (`behind Churchyard wall`, `range 1.50"`…), if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Where the number comes from: the text, or reconstructed with a reason.
    #[serde(serialize_with = "as_text")]
    pub provenance: Source,
}

/// The section of a modifier the text leaves a number out of (the chart says "reconstructed").
fn section(id: FireModifierId) -> &'static str {
    use FireModifierId::*;
    match id {
        CloseRange => "8.3",
        InitialVolley => "8.5",
        Rest => "8.10",
        BallShortRange | BallLongRange | HeavyGun | LightGun => "8.4",
        LightCover | MediumCover | HeavyCover => "8.6",
        Enfilade | EnfiladeBall => "8.11",
        DisorderedFirer | DisorderedTarget => "8.12",
        ColumnTarget | ColumnTargetBall | SkirmishFirer | SkirmishTarget => "8.13",
        MountedTarget => "8.14",
        EliteFirer | MilitiaFirer | IndianFirer => "8.15",
        LooseOrderTarget => "5.4",
    }
}

/// `EnfiladeBall` → `enfilade_ball`.
fn snake(id: FireModifierId) -> String {
    let mut out = String::new();
    for (i, ch) in format!("{id:?}").chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

impl Modifier {
    /// The chart's entry for `id`, with what on the table gave it.
    pub fn from_chart(chart: &FireChart, id: FireModifierId, detail: Option<String>) -> Modifier {
        let e = chart.modifier_entry(id);
        let rule = match &e.source {
            Source::Text { section } => section.clone(),
            Source::Reconstructed { .. } => section(id).to_string(),
        };
        Modifier { rule, name: snake(id), value: e.value, id, label: e.label.clone(), detail, provenance: e.source.clone() }
    }
}

impl fmt::Display for Modifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:+3}  {} (OTP {})", self.value, self.name.replace('_', " "), self.rule)?;
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        if self.provenance.is_reconstructed() {
            write!(f, " [reconstructed]")?;
        }
        Ok(())
    }
}

/// The chart column read (8.1): figures firing small arms, or guns × ammunition (× gun size for
/// canister).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColumnInfo {
    #[serde(skip)]
    pub column: FireColumn,
    /// `small_arms`, `ball` or `canister`.
    pub family: &'static str,
    /// Figures (small arms) or guns (artillery: crew figures, 7.1) firing.
    pub count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gun: Option<GunSize>,
    /// The columns actually read and added: more than the chart's widest column reads the widest
    /// and the rest (8.1: 28 figures read 20 and 8).
    pub reads: Vec<u32>,
    pub label: String,
}

impl ColumnInfo {
    pub fn new(chart: &FireChart, column: FireColumn) -> ColumnInfo {
        let split = |count: u32, width: u32| {
            let mut parts = Vec::new();
            let mut left = count;
            while left > 0 {
                let take = left.min(width.max(1));
                parts.push(take);
                left -= take;
            }
            parts
        };
        let guns = |n: u32| if chart.more_guns.value { split(n, chart.gun_columns.value) } else { vec![n.min(chart.gun_columns.value)] };
        let (family, count, gun, reads) = match column {
            FireColumn::SmallArms { figures } => ("small_arms", figures, None, split(figures, chart.small_arms_columns.value)),
            FireColumn::Ball { guns: n } => ("ball", n, None, guns(n)),
            FireColumn::Canister { gun, guns: n } => ("canister", n, Some(gun), guns(n)),
        };
        let parts = reads.iter().map(u32::to_string).collect::<Vec<_>>().join(" + ");
        let label = match column {
            FireColumn::SmallArms { .. } => format!("small arms, {count} figure(s)"),
            FireColumn::Ball { .. } => format!("ball, {count} gun(s)"),
            FireColumn::Canister { gun, .. } => format!("canister, {count} {} gun(s)", format!("{gun:?}").to_lowercase()),
        };
        let label = if reads.len() > 1 { format!("{label}: columns {parts} added (8.1)") } else { label };
        ColumnInfo { column, family, count, gun, reads, label }
    }

    /// The key of one of the columns read.
    pub fn part(&self, count: u32) -> FireColumn {
        match self.column {
            FireColumn::SmallArms { .. } => FireColumn::SmallArms { figures: count },
            FireColumn::Ball { .. } => FireColumn::Ball { guns: count },
            FireColumn::Canister { gun, .. } => FireColumn::Canister { gun, guns: count },
        }
    }
}

/// One chart cell read: the row (the modified roll, held to the chart's first and last rows),
/// the column, what it says and where the row comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellRead {
    pub row: i32,
    pub column: u32,
    pub result: FireResult,
    #[serde(serialize_with = "as_text")]
    pub provenance: Source,
}

/// The geometry behind a shot, as fire used it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GeometrySummary {
    /// Edge to edge from the nearest firing stand, inches.
    pub range: f32,
    /// Stands (indices in the firing unit) that fire on this target (8.1).
    pub stands: Vec<usize>,
    pub figures: u32,
    /// Artillery: the band at that range (8.4), with the elevation bonus (7.3) when the guns
    /// stand higher than the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub band: Option<ArtilleryBand>,
    pub elevated: bool,
    pub close_range: bool,
    pub enfilade: bool,
    /// Woods on the sight line (8.7), the most any firing stand's best line crosses.
    pub woods_in: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cover: Option<CoverFound>,
    /// Figures firing from stands that rest on an obstacle (8.10).
    pub figures_resting: u32,
    /// 6.13: the town or building the target is deployed in (counts as line, no enfilade).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_deployed_in: Option<String>,
}

/// The visibility roll in woods (8.7).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VisibilityReport {
    pub woods: WoodsDensity,
    pub roll: Roll,
    pub plus: i32,
    pub inches: f32,
    #[serde(serialize_with = "as_text")]
    pub provenance: Source,
    /// Firing stands that see the target (within the visibility, or with under 1" of woods).
    pub stands_seeing: Vec<usize>,
}

/// A unit's Morale Marker after the shot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerChange {
    None,
    Gained,
    /// It had one; a unit carries only one (10.2).
    AlreadyHad,
}

/// What the shot does to one unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitEffect {
    pub unit: String,
    #[serde(skip)]
    pub index: usize,
    /// Figures removed (for artillery: crew figures, one a gun, 7.1).
    pub figures_lost: u32,
    pub figures_left: u32,
    pub morale_marker: MarkerChange,
    /// Artillery only: figure losses carried towards the next lost crew figure (7.1), before and
    /// after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gun_hits: Option<(u32, u32)>,
    pub eliminated: bool,
    /// Why, with the rules: `2 kills (8.2)`, `losses of attached guns (7.5)`…
    pub why: String,
}

/// A commander casualty roll (8.16).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommanderRoll {
    pub commander: String,
    pub unit: String,
    pub roll: Roll,
    pub casualty: bool,
    #[serde(serialize_with = "as_text")]
    pub provenance: Source,
}

/// Who fires on whom, with what, and why: the head of a preview and of a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShotHead {
    pub firer: String,
    pub target: String,
    /// Indices of the units in the `FireTable`.
    #[serde(skip)]
    pub firer_index: usize,
    #[serde(skip)]
    pub target_index: usize,
    pub occasion: FireOccasion,
    pub kind: FireKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ammo: Option<Ammo>,
}

/// One resolved shot: every die, modifier and cell, and the changes to make (`apply_fire`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FireReport {
    #[serde(flatten)]
    pub shot: ShotHead,
    pub geometry: GeometrySummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<VisibilityReport>,
    /// False when no firing stand sees the target through the woods (8.7): no fire die is rolled.
    pub visible: bool,
    pub modifiers: Vec<Modifier>,
    pub total_modifier: i32,
    pub column: ColumnInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roll: Option<Roll>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_roll: Option<i32>,
    pub cells: Vec<CellRead>,
    pub result: FireResult,
    pub effects: Vec<UnitEffect>,
    /// The firer's initial volley is now used (8.5), with or without its modifier.
    pub initial_volley_expended: bool,
    pub commander_rolls: Vec<CommanderRoll>,
}

/// `2 kills`, `morale hit`, `no effect`.
pub(crate) fn describe(result: FireResult) -> String {
    match result {
        FireResult::NoEffect => "no effect".into(),
        FireResult::Morale => "morale hit".into(),
        FireResult::Kills(1) => "1 kill".into(),
        FireResult::Kills(k) => format!("{k} kills"),
    }
}

/// The modifiers, their total and the column, a line each (shared by the report and the preview).
pub(crate) fn write_modifiers(f: &mut fmt::Formatter<'_>, modifiers: &[Modifier], total: i32, column: &ColumnInfo) -> fmt::Result {
    if modifiers.is_empty() {
        writeln!(f, "modifiers:      none")?;
    } else {
        writeln!(f, "modifiers:")?;
        for m in modifiers {
            writeln!(f, "  {m}")?;
        }
    }
    writeln!(f, "total modifier: {total:+}")?;
    writeln!(f, "column:         {}", column.label)
}

impl fmt::Display for FireReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} fires on {} ({:?})", self.shot.firer, self.shot.target, self.shot.occasion)?;
        if let Some(v) = &self.visibility {
            writeln!(f, "visibility:     {:?} woods, {} {:+} = {:.0}\" (OTP 8.7)", v.woods, v.roll, v.plus, v.inches)?;
        }
        if !self.visible {
            return write!(f, "not visible through the woods: no fire (OTP 8.7)");
        }
        write_modifiers(f, &self.modifiers, self.total_modifier, &self.column)?;
        if let (Some(r), Some(m)) = (&self.roll, self.modified_roll) {
            writeln!(f, "roll:           {r}, modified {m}")?;
        }
        for c in &self.cells {
            writeln!(f, "chart:          row {} column {}: {}", c.row, c.column, c.result)?;
        }
        write!(f, "result:         {} (OTP 8.2)", describe(self.result))?;
        for e in &self.effects {
            write!(f, "\n  {}: {}", e.unit, e.why)?;
        }
        if self.initial_volley_expended {
            write!(f, "\n  {}: initial volley expended (OTP 8.5)", self.shot.firer)?;
        }
        for c in &self.commander_rolls {
            let fate = if c.casualty { "a casualty (OTP 8.16, 10.5)" } else { "unhurt" };
            write!(f, "\n  {} with {}: {}, {fate}", c.commander, c.unit, c.roll)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::charts::Charts;

    #[test]
    fn names_and_rules_from_the_chart() {
        let chart = &Charts::embedded().fire;
        let m = Modifier::from_chart(chart, FireModifierId::Enfilade, None);
        assert_eq!((m.rule.as_str(), m.name.as_str(), m.value), ("8.11", "enfilade", -2));
        let r = Modifier::from_chart(chart, FireModifierId::EnfiladeBall, None);
        assert_eq!((r.rule.as_str(), r.name.as_str()), ("8.11", "enfilade_ball"));
        assert!(r.provenance.is_reconstructed());
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["provenance"], "OTP 8.11");
        assert_eq!(json["rule"], "8.11");
    }

    #[test]
    fn columns_split_past_the_widest() {
        // OTP 8.1: 28 figures read the 20 column and the 8 column.
        let chart = &Charts::embedded().fire;
        let c = ColumnInfo::new(chart, FireColumn::SmallArms { figures: 28 });
        assert_eq!(c.reads, vec![20, 8]);
        assert!(c.label.contains("20 + 8"), "{}", c.label);
        assert_eq!(ColumnInfo::new(chart, FireColumn::Ball { guns: 2 }).reads, vec![2]);
    }
}
