//! MORALE RESULTS TABLE (10.0): 2D10 read 00–99 by unit class, modified by losses and works.

use serde::{Deserialize, Serialize};

use super::losses::Severity;
use super::movement::ArmClass;
use super::{Check, CheckSource, Source, Sourced, Validate};
use crate::rules::dice::{self, DiceKind};
use crate::scenario::model::UnitType;

/// The columns of the table (2.0: types matter for morale; line infantry, dragoons and artillery
/// crews are treated separately).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoraleClass {
    Militia,
    /// State Line and Loyalist units (2.0).
    StateLine,
    LineInfantry,
    Light,
    Indian,
    Elite,
    Cavalry,
    Artillery,
}

impl MoraleClass {
    pub const ALL: [MoraleClass; 8] = [
        MoraleClass::Militia,
        MoraleClass::StateLine,
        MoraleClass::LineInfantry,
        MoraleClass::Light,
        MoraleClass::Indian,
        MoraleClass::Elite,
        MoraleClass::Cavalry,
        MoraleClass::Artillery,
    ];

    /// The column a unit reads: Militia, Indian, Light and Elite units by their type whatever
    /// their arm; Line and State Line cavalry and artillery by their arm.
    pub fn of(unit_type: UnitType, arm: ArmClass) -> Self {
        match (unit_type, arm) {
            (UnitType::Militia, _) => MoraleClass::Militia,
            (UnitType::Indian, _) => MoraleClass::Indian,
            (UnitType::Light, _) => MoraleClass::Light,
            (UnitType::Elite, _) => MoraleClass::Elite,
            (_, ArmClass::Cavalry) => MoraleClass::Cavalry,
            (_, ArmClass::Artillery) => MoraleClass::Artillery,
            (UnitType::StateLine, ArmClass::Infantry) => MoraleClass::StateLine,
            (UnitType::Line, ArmClass::Infantry) => MoraleClass::LineInfantry,
        }
    }
}

/// A result of the table.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoraleResult {
    /// No effect: the marker comes off and the unit may act (10.2).
    NE,
    /// The marker comes off; the unit's movement is halved this turn (6.6).
    HalfMove,
    /// The marker comes off; the unit may only deploy (7.4).
    Deploy,
    /// The marker comes off; the unit stays in place (9.2).
    Stand,
    /// The unit keeps its marker and retreats full moves (6.11).
    Retreat { moves: u8 },
    /// Mandatory forward movement (7.4).
    Forward,
}

/// The kinds of result, without their distances.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoraleKind {
    NE,
    HalfMove,
    Deploy,
    Stand,
    Retreat,
    Forward,
}

impl MoraleKind {
    pub const ALL: [MoraleKind; 6] = [MoraleKind::NE, MoraleKind::HalfMove, MoraleKind::Deploy, MoraleKind::Stand, MoraleKind::Retreat, MoraleKind::Forward];
}

impl MoraleResult {
    pub fn kind(self) -> MoraleKind {
        match self {
            MoraleResult::NE => MoraleKind::NE,
            MoraleResult::HalfMove => MoraleKind::HalfMove,
            MoraleResult::Deploy => MoraleKind::Deploy,
            MoraleResult::Stand => MoraleKind::Stand,
            MoraleResult::Retreat { .. } => MoraleKind::Retreat,
            MoraleResult::Forward => MoraleKind::Forward,
        }
    }
}

impl std::fmt::Display for MoraleResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoraleResult::NE => write!(f, "NE"),
            MoraleResult::HalfMove => write!(f, "Half move"),
            MoraleResult::Deploy => write!(f, "Deploy"),
            MoraleResult::Stand => write!(f, "Stand"),
            MoraleResult::Retreat { moves } => write!(f, "Retreat {moves}"),
            MoraleResult::Forward => write!(f, "Forward"),
        }
    }
}

/// What a result means, as the printed table explains it (10.2).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    pub kind: MoraleKind,
    pub removes_marker: bool,
    pub text: String,
    pub source: Source,
}

/// Modified rolls up to `to` (and above the band before) give `result`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Band {
    pub to: i32,
    pub result: MoraleResult,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoraleColumn {
    pub class: MoraleClass,
    pub bands: Vec<Band>,
    pub source: Source,
}

impl MoraleColumn {
    pub fn read(&self, modified_roll: i32) -> MoraleResult {
        self.bands.iter().find(|b| modified_roll <= b.to).or(self.bands.last()).map(|b| b.result).unwrap_or(MoraleResult::NE)
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SeverityModifier {
    pub severity: Severity,
    pub value: i32,
    pub source: Source,
}

/// The situation a morale roll is modified for (10.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoraleModifiers {
    pub severity: Severity,
    /// All the unit's stands and figures in or behind works.
    pub in_works: bool,
}

impl Default for MoraleModifiers {
    fn default() -> Self {
        MoraleModifiers { severity: Severity::NoLoss, in_works: false }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoraleChart {
    pub results: Vec<Explanation>,
    pub columns: Vec<MoraleColumn>,
    pub losses: Vec<SeverityModifier>,
    pub works: Sourced<i32>,
}

impl MoraleChart {
    pub fn column(&self, class: MoraleClass) -> &MoraleColumn {
        self.columns.iter().find(|c| c.class == class).expect("validated: every class has a column")
    }

    /// The modifier for loss severity (none without losses, 10.3).
    pub fn severity_modifier(&self, severity: Severity) -> i32 {
        self.losses.iter().find(|m| m.severity == severity).map_or(0, |m| m.value)
    }

    /// The total modifier for a situation (10.3).
    pub fn modifier(&self, m: &MoraleModifiers) -> i32 {
        self.severity_modifier(m.severity) + if m.in_works { self.works.value } else { 0 }
    }

    /// The result for an already modified roll. Artillery ignores mandatory forward movement and
    /// treats it as Deploy (7.4).
    pub fn read(&self, class: MoraleClass, modified_roll: i32) -> MoraleResult {
        let r = self.column(class).read(modified_roll);
        if class == MoraleClass::Artillery && r == MoraleResult::Forward { MoraleResult::Deploy } else { r }
    }

    /// The result of a 2D10 roll (00–99) for a unit of `class` in situation `m`.
    pub fn result(&self, class: MoraleClass, roll: i32, m: &MoraleModifiers) -> MoraleResult {
        self.read(class, roll + self.modifier(m))
    }

    /// The exact chance of each result, for odds previews (in the column's order).
    pub fn odds(&self, class: MoraleClass, m: &MoraleModifiers) -> Vec<(MoraleResult, f64)> {
        let mut out: Vec<(MoraleResult, f64)> = Vec::new();
        for (roll, p) in dice::distribution(DiceKind::TwoD10) {
            let r = self.result(class, roll, m);
            match out.iter_mut().find(|(x, _)| *x == r) {
                Some((_, q)) => *q += p,
                None => out.push((r, p)),
            }
        }
        out
    }

    pub fn explain(&self, kind: MoraleKind) -> &Explanation {
        self.results.iter().find(|e| e.kind == kind).expect("validated: every result is explained")
    }
}

impl Validate for MoraleChart {
    fn validate(&self, c: &mut Check) {
        let kinds: Vec<_> = self.results.iter().map(|e| e.kind).collect();
        c.exactly_once("results", "explanation", &MoraleKind::ALL, &kinds);
        for e in &self.results {
            let place = format!("results ({:?})", e.kind);
            if e.text.trim().is_empty() {
                c.fail(&place, "text is empty: say what the result does");
            }
            e.source.check(c, &place);
        }
        let classes: Vec<_> = self.columns.iter().map(|col| col.class).collect();
        c.exactly_once("columns", "column", &MoraleClass::ALL, &classes);
        for col in &self.columns {
            let place = format!("columns ({:?})", col.class);
            let tos: Vec<i32> = col.bands.iter().map(|b| b.to).collect();
            if !c.rising_bands(&place, &tos, 99) {
                continue;
            }
            for b in &col.bands {
                if let MoraleResult::Retreat { moves } = b.result {
                    c.range(&place, "Retreat moves", moves, 1, 4);
                }
            }
            col.source.check(c, &place);
        }
        let sev: Vec<_> = self.losses.iter().map(|m| m.severity).collect();
        c.exactly_once("losses", "modifier", &Severity::LOSSES, &sev);
        for m in &self.losses {
            let place = format!("losses ({:?})", m.severity);
            if m.severity == Severity::NoLoss {
                c.fail(&place, "NoLoss has no modifier");
            }
            c.range(&place, "value", m.value, -99, 0);
            m.source.check(c, &place);
        }
        let mut by_severity: Vec<&SeverityModifier> = self.losses.iter().collect();
        by_severity.sort_by_key(|m| m.severity);
        for w in by_severity.windows(2) {
            if w[1].value > w[0].value {
                c.fail(format!("losses ({:?})", w[1].severity), format!("{} is kinder than {:?}'s {}: worse losses must never help", w[1].value, w[0].severity, w[0].value));
            }
        }
        c.range("works", "value", self.works.value, 0, 99);
        self.works.source.check(c, "works");
    }
}

#[cfg(test)]
mod tests {
    use super::super::Charts;
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(MoraleClass::of(UnitType::Line, ArmClass::Infantry), MoraleClass::LineInfantry);
        assert_eq!(MoraleClass::of(UnitType::Line, ArmClass::Cavalry), MoraleClass::Cavalry);
        assert_eq!(MoraleClass::of(UnitType::StateLine, ArmClass::Artillery), MoraleClass::Artillery);
        assert_eq!(MoraleClass::of(UnitType::Militia, ArmClass::Cavalry), MoraleClass::Militia);
    }

    // OTP 10.3: losses lower the roll, works raise it; 10.2: NE removes the marker.
    #[test]
    fn losses_hurt_and_works_help() {
        let m = &Charts::embedded().morale;
        for class in MoraleClass::ALL {
            let p_ne = |mods: MoraleModifiers| m.odds(class, &mods).iter().filter(|(r, _)| *r == MoraleResult::NE).map(|(_, p)| p).sum::<f64>();
            let mut last = p_ne(MoraleModifiers::default());
            for s in Severity::LOSSES {
                let now = p_ne(MoraleModifiers { severity: s, in_works: false });
                assert!(now <= last, "{class:?} {s:?}");
                last = now;
            }
            assert!(p_ne(MoraleModifiers { severity: Severity::Moderate, in_works: true }) >= p_ne(MoraleModifiers { severity: Severity::Moderate, in_works: false }));
            let total: f64 = m.odds(class, &MoraleModifiers::default()).iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-9);
        }
        assert!(m.explain(MoraleKind::NE).removes_marker);
        assert!(!m.explain(MoraleKind::Retreat).removes_marker);
    }

    // OTP 7.4: artillery ignores mandatory forward movement (treat as Deploy).
    #[test]
    fn artillery_never_goes_forward() {
        let mut m = Charts::embedded().morale.clone();
        let art = m.columns.iter_mut().find(|c| c.class == MoraleClass::Artillery).unwrap();
        art.bands.last_mut().unwrap().result = MoraleResult::Forward;
        assert_eq!(m.read(MoraleClass::Artillery, 99), MoraleResult::Deploy);
        assert_eq!(m.read(MoraleClass::Cavalry, 99), MoraleResult::Forward);
    }

    #[test]
    fn rolls_beyond_00_99_read_the_edges() {
        let m = &Charts::embedded().morale;
        assert_eq!(m.read(MoraleClass::Militia, -30), m.read(MoraleClass::Militia, 0));
        assert_eq!(m.read(MoraleClass::Elite, 130), m.read(MoraleClass::Elite, 99));
    }
}
