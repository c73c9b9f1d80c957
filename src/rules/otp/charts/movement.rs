//! MOVEMENT (6.0): normal moves by arm and formation, disordering-terrain numbers, and the costs
//! of manoeuvre.

use serde::{Deserialize, Serialize};

use super::{Check, CheckSource, Source, Sourced, TypeSet, Validate};
use crate::scenario::model::{Arm, DisorderType, Formation, UnitType};

/// The arm a unit belongs to, as the charts key it (the scenario's [`Arm`] without gun details).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArmClass {
    Infantry,
    Cavalry,
    Artillery,
}

impl ArmClass {
    pub const ALL: [ArmClass; 3] = [ArmClass::Infantry, ArmClass::Cavalry, ArmClass::Artillery];

    /// The formations this arm can be in (5.0–5.4).
    pub fn formations(self) -> &'static [Formation] {
        match self {
            ArmClass::Infantry => &[Formation::Line, Formation::LooseOrder, Formation::Column, Formation::Skirmish],
            ArmClass::Cavalry => &[Formation::Line, Formation::Column],
            ArmClass::Artillery => &[Formation::Limbered, Formation::Unlimbered],
        }
    }
}

impl From<Arm> for ArmClass {
    fn from(arm: Arm) -> Self {
        match arm {
            Arm::Infantry => ArmClass::Infantry,
            Arm::Cavalry => ArmClass::Cavalry,
            Arm::Artillery { .. } => ArmClass::Artillery,
        }
    }
}

/// A normal move (6.1). `types` empty: every unit type of the arm; otherwise an override for those.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Allowance {
    pub arm: ArmClass,
    pub formation: Formation,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<UnitType>,
    pub inches: f32,
    pub source: Source,
}

/// The D10 numbers for disordering terrain types A–D (6.6): at or under passes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DisorderNumbers {
    pub arm: ArmClass,
    pub formation: Formation,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<UnitType>,
    pub a: i8,
    pub b: i8,
    pub c: i8,
    pub d: i8,
    pub source: Source,
}

impl DisorderNumbers {
    pub fn number(&self, terrain: DisorderType) -> i8 {
        match terrain {
            DisorderType::A => self.a,
            DisorderType::B => self.b,
            DisorderType::C => self.c,
            DisorderType::D => self.d,
        }
    }
}

/// Averaging dice added to the normal move in a special move (6.8).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SpecialMove {
    pub arm: ArmClass,
    pub dice: u8,
    pub source: Source,
}

/// Who is crossing a linear obstruction (6.7).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObstacleMover {
    Infantry,
    MountedCavalry,
    LimberedArtillery,
    UnlimberedArtillery,
}

impl ObstacleMover {
    pub const ALL: [ObstacleMover; 4] =
        [ObstacleMover::Infantry, ObstacleMover::MountedCavalry, ObstacleMover::LimberedArtillery, ObstacleMover::UnlimberedArtillery];

    /// Artillery is treated as mounted cavalry when limbered and as infantry when unlimbered (6.7).
    pub fn of(arm: ArmClass, formation: Formation) -> Self {
        match (arm, formation) {
            (ArmClass::Infantry, _) => ObstacleMover::Infantry,
            (ArmClass::Cavalry, _) => ObstacleMover::MountedCavalry,
            (ArmClass::Artillery, Formation::Unlimbered) => ObstacleMover::UnlimberedArtillery,
            (ArmClass::Artillery, _) => ObstacleMover::LimberedArtillery,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ObstacleCost {
    pub mover: ObstacleMover,
    pub per_rank: f32,
    pub source: Source,
}

/// Manoeuvres that cost a fraction of the normal move.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveCostKind {
    /// Change of formation, before moving (6.2).
    ChangeFormation,
    /// The move of a "move 1/2 and fire" or limber/unlimber-and-move operation (3.1, 3.3).
    MoveAndFire,
    /// Side step, keeping the facing (6.3).
    SideStep,
    /// About face in line: free (6.3).
    AboutFaceLine,
    /// About face in column: a countermarch (6.3).
    AboutFaceColumn,
    /// Bending a line to conform to cover (6.4).
    BendLine,
    /// Straightening a bent line (6.4).
    StraightenLine,
    /// Doubling up a stand to let a unit through (6.5).
    DoubleUp,
    /// Restoring the doubled-up stand (6.5).
    RestoreDoubleUp,
    /// A unit may not double up with less than this fraction of its move left (6.5).
    DoubleUpMinimumLeft,
    /// Adopting loose order (optional 5.4).
    AdoptLooseOrder,
}

impl MoveCostKind {
    pub const ALL: [MoveCostKind; 11] = [
        MoveCostKind::ChangeFormation,
        MoveCostKind::MoveAndFire,
        MoveCostKind::SideStep,
        MoveCostKind::AboutFaceLine,
        MoveCostKind::AboutFaceColumn,
        MoveCostKind::BendLine,
        MoveCostKind::StraightenLine,
        MoveCostKind::DoubleUp,
        MoveCostKind::RestoreDoubleUp,
        MoveCostKind::DoubleUpMinimumLeft,
        MoveCostKind::AdoptLooseOrder,
    ];
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoveCost {
    pub action: MoveCostKind,
    pub fraction: f32,
    pub source: Source,
}

/// Galloper guns (optional 7.6): unlimbered moves.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Galloper {
    pub move_only: f32,
    pub move_and_fire: f32,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MovementChart {
    pub allowances: Vec<Allowance>,
    pub disorder: Vec<DisorderNumbers>,
    pub woods_as_type_a: TypeSet,
    pub failed_disorder: Sourced<f32>,
    pub commander: Sourced<f32>,
    pub cavalry_charge: Sourced<f32>,
    pub road_bonus: Sourced<f32>,
    pub special_move: Vec<SpecialMove>,
    pub obstacles: Vec<ObstacleCost>,
    pub costs: Vec<MoveCost>,
    pub galloper: Galloper,
}

/// The row for `unit_type`: its own override if there is one, else the general row.
fn pick<T>(rows: &[T], key: impl Fn(&T) -> (ArmClass, Formation, &[UnitType]), arm: ArmClass, unit_type: UnitType, formation: Formation) -> Option<&T> {
    let mut general = None;
    for row in rows {
        let (a, f, types) = key(row);
        if a != arm || f != formation {
            continue;
        }
        if types.contains(&unit_type) {
            return Some(row);
        }
        if types.is_empty() {
            general = general.or(Some(row));
        }
    }
    general
}

impl MovementChart {
    /// The allowance row (with its source) for a unit.
    pub fn allowance_entry(&self, arm: ArmClass, unit_type: UnitType, formation: Formation) -> Option<&Allowance> {
        pick(&self.allowances, |r| (r.arm, r.formation, &r.types), arm, unit_type, formation)
    }

    /// Normal move in inches for the formation the unit starts in (6.1); None for a formation the
    /// arm cannot take.
    pub fn allowance(&self, arm: ArmClass, unit_type: UnitType, formation: Formation) -> Option<f32> {
        self.allowance_entry(arm, unit_type, formation).map(|r| r.inches)
    }

    pub fn disorder_entry(&self, arm: ArmClass, unit_type: UnitType, formation: Formation) -> Option<&DisorderNumbers> {
        pick(&self.disorder, |r| (r.arm, r.formation, &r.types), arm, unit_type, formation)
    }

    /// The D10 number to roll at or under to move normally through `terrain` (6.6). The caller
    /// passes the terrain type after [`MovementChart::effective_disorder_type`].
    pub fn disorder_number(&self, arm: ArmClass, unit_type: UnitType, formation: Formation, terrain: DisorderType) -> Option<i8> {
        self.disorder_entry(arm, unit_type, formation).map(|r| r.number(terrain))
    }

    /// Infantry militia, lights and Indians treat all woods as type A (6.6).
    pub fn treats_woods_as_type_a(&self, arm: ArmClass, unit_type: UnitType) -> bool {
        arm == ArmClass::Infantry && self.woods_as_type_a.types.contains(&unit_type)
    }

    /// The disordering type a unit dices against: type A for woods if it treats woods as type A.
    pub fn effective_disorder_type(&self, arm: ArmClass, unit_type: UnitType, terrain: DisorderType, is_woods: bool) -> DisorderType {
        if is_woods && self.treats_woods_as_type_a(arm, unit_type) { DisorderType::A } else { terrain }
    }

    /// The fraction of the normal move left after a failed disordering roll (6.6: a half).
    pub fn failed_disorder_factor(&self) -> f32 {
        self.failed_disorder.value
    }

    /// A commander's move, ignoring terrain (6.12).
    pub fn commander(&self) -> f32 {
        self.commander.value
    }

    /// The charge of cavalry in line in open terrain (3.2, 6.9).
    pub fn cavalry_charge(&self) -> f32 {
        self.cavalry_charge.value
    }

    /// Inches a march column adds along a road (5.1).
    pub fn road_bonus(&self) -> f32 {
        self.road_bonus.value
    }

    /// Averaging dice a special move adds (6.8); None if the arm may not make one.
    pub fn special_move_dice(&self, arm: ArmClass) -> Option<u8> {
        self.special_move.iter().find(|s| s.arm == arm).map(|s| s.dice)
    }

    /// Inches spent per rank to cross a linear obstruction (6.7).
    pub fn obstacle_per_rank(&self, arm: ArmClass, formation: Formation) -> f32 {
        let mover = ObstacleMover::of(arm, formation);
        self.obstacles.iter().find(|o| o.mover == mover).map_or(0.0, |o| o.per_rank)
    }

    /// The fraction of the normal move a manoeuvre costs.
    pub fn cost(&self, action: MoveCostKind) -> f32 {
        self.costs.iter().find(|c| c.action == action).map_or(0.0, |c| c.fraction)
    }

    pub fn cost_entry(&self, action: MoveCostKind) -> Option<&MoveCost> {
        self.costs.iter().find(|c| c.action == action)
    }

    /// Galloper guns unlimbered (7.6): inches without firing, and with firing.
    pub fn galloper(&self) -> &Galloper {
        &self.galloper
    }
}

fn check_rows(c: &mut Check, field: &str, rows: &[(ArmClass, Formation, &[UnitType])]) {
    for (i, (arm, formation, types)) in rows.iter().enumerate() {
        if !arm.formations().contains(formation) {
            c.fail(format!("{field}[{i}]"), format!("{arm:?} cannot be in {formation:?}; its formations are {:?}", arm.formations()));
        }
        for t in types.iter() {
            let same = rows[..i].iter().filter(|(a, f, ts)| a == arm && f == formation && ts.contains(t)).count();
            if same > 0 {
                c.fail(format!("{field}[{i}]"), format!("a second {arm:?} {formation:?} row for {t:?}"));
            }
        }
    }
    for arm in ArmClass::ALL {
        for formation in arm.formations() {
            let general = rows.iter().filter(|(a, f, ts)| *a == arm && f == formation && ts.is_empty()).count();
            match general {
                0 => c.fail(field, format!("missing row for {arm:?} in {formation:?}")),
                1 => {}
                n => c.fail(field, format!("{n} rows for {arm:?} in {formation:?}; there must be exactly one (others may name unit types)")),
            }
        }
    }
}

impl Validate for MovementChart {
    fn validate(&self, c: &mut Check) {
        let keys: Vec<_> = self.allowances.iter().map(|r| (r.arm, r.formation, r.types.as_slice())).collect();
        check_rows(c, "allowances", &keys);
        for (i, r) in self.allowances.iter().enumerate() {
            let place = format!("allowances[{i}] ({:?} {:?})", r.arm, r.formation);
            c.range(&place, "inches", r.inches, 0.0, 60.0);
            r.source.check(c, &place);
        }
        let keys: Vec<_> = self.disorder.iter().map(|r| (r.arm, r.formation, r.types.as_slice())).collect();
        check_rows(c, "disorder", &keys);
        for (i, r) in self.disorder.iter().enumerate() {
            let place = format!("disorder[{i}] ({:?} {:?})", r.arm, r.formation);
            for (name, n) in [("a", r.a), ("b", r.b), ("c", r.c), ("d", r.d)] {
                c.range(&place, name, n, -1, 9);
            }
            if !(r.a >= r.b && r.b >= r.c && r.c >= r.d) {
                c.fail(&place, format!("a {} b {} c {} d {}: type A disorders least, so the numbers must not rise from A to D", r.a, r.b, r.c, r.d));
            }
            r.source.check(c, &place);
        }
        self.woods_as_type_a.source.check(c, "woods_as_type_a");
        for (field, s, lo, hi) in [
            ("failed_disorder", &self.failed_disorder, 0.0, 1.0),
            ("commander", &self.commander, 0.0, 60.0),
            ("cavalry_charge", &self.cavalry_charge, 0.0, 60.0),
            ("road_bonus", &self.road_bonus, 0.0, 24.0),
        ] {
            c.range(field, "value", s.value, lo, hi);
            s.source.check(c, field);
        }
        let infantry_and_cavalry = [ArmClass::Infantry, ArmClass::Cavalry];
        c.keyed_rows("special_move", "special move", &infantry_and_cavalry, &self.special_move, |s| s.arm, |s| &s.source, |c, s, place| {
            c.range(place, "dice", s.dice, 1, 4)
        });
        c.keyed_rows("obstacles", "obstacle cost", &ObstacleMover::ALL, &self.obstacles, |o| o.mover, |o| &o.source, |c, o, place| {
            c.range(place, "per_rank", o.per_rank, 0.0, 12.0)
        });
        c.keyed_rows("costs", "cost", &MoveCostKind::ALL, &self.costs, |m| m.action, |m| &m.source, |c, m, place| {
            c.range(place, "fraction", m.fraction, 0.0, 1.0)
        });
        c.range("galloper", "move_only", self.galloper.move_only, 0.0, 24.0);
        c.range("galloper", "move_and_fire", self.galloper.move_and_fire, 0.0, self.galloper.move_only);
        self.galloper.source.check(c, "galloper");
    }
}

#[cfg(test)]
mod tests {
    use super::super::Charts;
    use super::*;

    #[test]
    fn text_fixed_moves() {
        let m = &Charts::embedded().movement;
        // OTP 6.6: "an infantry unit in line … 3" rather than 6"".
        assert_eq!(m.allowance(ArmClass::Infantry, UnitType::Line, Formation::Line), Some(6.0));
        assert_eq!(m.allowance(ArmClass::Infantry, UnitType::Line, Formation::Line).unwrap() * m.failed_disorder_factor(), 3.0);
        // OTP 5.4: loose order uses line movement.
        assert_eq!(m.allowance(ArmClass::Infantry, UnitType::Militia, Formation::LooseOrder), Some(6.0));
        // OTP 6.12, 3.2.
        assert_eq!(m.commander(), 24.0);
        assert_eq!(m.cavalry_charge(), 24.0);
        // OTP 6.8.
        assert_eq!(m.special_move_dice(ArmClass::Infantry), Some(1));
        assert_eq!(m.special_move_dice(ArmClass::Cavalry), Some(2));
        assert_eq!(m.special_move_dice(ArmClass::Artillery), None);
        // OTP 6.7.
        assert_eq!(m.obstacle_per_rank(ArmClass::Infantry, Formation::Column), 1.0);
        assert_eq!(m.obstacle_per_rank(ArmClass::Cavalry, Formation::Line), 2.0);
        assert_eq!(m.obstacle_per_rank(ArmClass::Artillery, Formation::Limbered), 2.0);
        assert_eq!(m.obstacle_per_rank(ArmClass::Artillery, Formation::Unlimbered), 1.0);
        // OTP 6.2–6.5, 5.4.
        assert_eq!(m.cost(MoveCostKind::ChangeFormation), 0.5);
        assert_eq!(m.cost(MoveCostKind::AboutFaceLine), 0.0);
        assert_eq!(m.cost(MoveCostKind::AboutFaceColumn), 0.25);
        assert_eq!(m.cost(MoveCostKind::BendLine), 0.25);
        assert_eq!(m.cost(MoveCostKind::StraightenLine), 0.25);
        assert_eq!(m.cost(MoveCostKind::DoubleUp) + m.cost(MoveCostKind::RestoreDoubleUp), 0.5);
        assert_eq!(m.cost(MoveCostKind::DoubleUpMinimumLeft), 0.5);
        assert_eq!(m.cost(MoveCostKind::SideStep), 0.5);
        assert_eq!(m.cost(MoveCostKind::AdoptLooseOrder), 0.25);
        // OTP 7.6.
        assert_eq!((m.galloper().move_only, m.galloper().move_and_fire), (6.0, 3.0));
        // Cavalry cannot skirmish; artillery has no line.
        assert_eq!(m.allowance(ArmClass::Cavalry, UnitType::Line, Formation::Skirmish), None);
        assert_eq!(m.allowance(ArmClass::Artillery, UnitType::Line, Formation::Line), None);
    }

    // OTP 6.6: "Infantry militia, lights, and Indians treat all woods as Type A".
    #[test]
    fn militia_lights_and_indians_treat_woods_as_type_a() {
        let m = &Charts::embedded().movement;
        for t in [UnitType::Militia, UnitType::Light, UnitType::Indian] {
            assert_eq!(m.effective_disorder_type(ArmClass::Infantry, t, DisorderType::D, true), DisorderType::A);
            assert_eq!(m.effective_disorder_type(ArmClass::Infantry, t, DisorderType::C, false), DisorderType::C, "only woods");
            assert_eq!(m.effective_disorder_type(ArmClass::Cavalry, t, DisorderType::D, true), DisorderType::D, "only infantry");
        }
        for t in [UnitType::Line, UnitType::StateLine, UnitType::Elite] {
            assert_eq!(m.effective_disorder_type(ArmClass::Infantry, t, DisorderType::C, true), DisorderType::C);
        }
    }

    #[test]
    fn disorder_numbers_fall_from_a_to_d() {
        let m = &Charts::embedded().movement;
        for arm in ArmClass::ALL {
            for &f in arm.formations() {
                let n: Vec<i8> = [DisorderType::A, DisorderType::B, DisorderType::C, DisorderType::D]
                    .iter()
                    .map(|&t| m.disorder_number(arm, UnitType::Line, f, t).unwrap())
                    .collect();
                assert!(n.windows(2).all(|w| w[0] >= w[1]), "{arm:?} {f:?}: {n:?}");
            }
        }
    }

    #[test]
    fn a_type_override_beats_the_general_row() {
        let mut m = Charts::embedded().movement.clone();
        m.allowances.push(Allowance {
            arm: ArmClass::Infantry,
            formation: Formation::Skirmish,
            types: vec![UnitType::Indian],
            inches: 9.0,
            source: Source::Reconstructed { why: "test".into() },
        });
        assert_eq!(m.allowance(ArmClass::Infantry, UnitType::Indian, Formation::Skirmish), Some(9.0));
        assert_eq!(m.allowance(ArmClass::Infantry, UnitType::Light, Formation::Skirmish), Some(8.0));
        let mut c = Check::default();
        m.validate(&mut c);
        assert!(c.problems.is_empty(), "{:?}", c.problems);
    }
}
