//! Stands from the basing rules (OTP 1.1–1.3) and their layout by formation (OTP 5.1–5.4, and
//! the other rule sets' wedge, reinforced, double and extended lines, attack column, square and
//! dismounted line).

use bevy::math::Vec2;

use super::model::{Arm, Basing, Formation, Unit, UnitType, Weapon};
use crate::table::footprint::{Footprint, bearing_vector};

/// Inches of frontage per figure: infantry 1/2" (1.1), cavalry 1" (1.2).
pub const INFANTRY_FIGURE_FRONTAGE: f32 = 0.5;
pub const CAVALRY_FIGURE_FRONTAGE: f32 = 1.0;
/// A gun section (two guns) has a 1" front (1.3).
pub const GUNS_PER_SECTION: u32 = 2;
/// Stand gaps: skirmish 1"–3" (5.3), loose order 1/2"–1" (5.4).
pub const SKIRMISH_GAP: (f32, f32) = (1.0, 3.0);
pub const LOOSE_ORDER_GAP: (f32, f32) = (0.5, 1.0);
pub const DEFAULT_SKIRMISH_GAP: f32 = 2.0;
pub const DEFAULT_LOOSE_ORDER_GAP: f32 = 0.75;
/// An extended (or dismounted) line's stands are 1" apart unless the unit says otherwise.
pub const DEFAULT_EXTENDED_GAP: f32 = 1.0;
/// No unit on any AWI field needs more; guards allocations against absurd files.
pub const MAX_FIGURES: u32 = 120;
pub const MAX_GUNS: u32 = 12;

/// OTP 2.0: combat value by type and arm (Militia dragoons and artillery are 4, militia foot 3).
pub fn combat_value(unit_type: UnitType, arm: Arm) -> u8 {
    match unit_type {
        UnitType::Militia => match arm {
            Arm::Infantry => 3,
            Arm::Cavalry | Arm::Artillery { .. } => 4,
        },
        UnitType::StateLine | UnitType::Indian => 4,
        UnitType::Line | UnitType::Light => 5,
        UnitType::Elite => 6,
    }
}

/// 9.12: muskets carry bayonets except in militia hands; rifles, carbines, fusils and bows do not.
pub fn default_bayonets(unit_type: UnitType, weapon: Option<Weapon>) -> bool {
    matches!(weapon, Some(Weapon::Musket)) && unit_type != UnitType::Militia
}

/// The figures-per-stand choices the basing rules allow for a unit.
pub fn allowed_figures_per_stand(unit: &Unit) -> &'static [u32] {
    match unit.arm {
        // 1.1: 2 for Lights and Indians, 4 for all others; 5.4 lets militia mount 3 on a 2" stand.
        Arm::Infantry => match unit.unit_type {
            UnitType::Light | UnitType::Indian => &[2],
            UnitType::Militia => &[4, 3],
            _ => &[4],
        },
        Arm::Cavalry => &[2, 1],
        // 1.3: an artillery unit is one stand carrying one crew figure a gun.
        Arm::Artillery { .. } => &[],
    }
}

pub fn figures_per_stand(unit: &Unit) -> u32 {
    match unit.arm {
        Arm::Artillery { .. } => unit.figures.max(1),
        _ => unit.figures_per_stand.unwrap_or(allowed_figures_per_stand(unit)[0]),
    }
}

/// Frontage of a stand carrying `figures` figures of this unit.
pub fn stand_frontage(unit: &Unit, figures: u32) -> f32 {
    match unit.arm {
        Arm::Infantry if figures_per_stand(unit) == 3 => 2.0, // 5.4: three militia on a 2" stand
        Arm::Infantry => figures as f32 * INFANTRY_FIGURE_FRONTAGE,
        Arm::Cavalry => figures as f32 * CAVALRY_FIGURE_FRONTAGE,
        Arm::Artillery { .. } => figures.div_ceil(GUNS_PER_SECTION).max(1) as f32,
    }
}

pub fn stand_depth(unit: &Unit, basing: &Basing) -> f32 {
    match unit.arm {
        Arm::Infantry => basing.infantry_depth,
        Arm::Cavalry => basing.cavalry_depth,
        Arm::Artillery { .. } => basing.artillery_depth,
    }
}

/// Why a unit's figures cannot be based.
#[derive(Debug, Clone, PartialEq)]
pub enum BasingError {
    NoFigures,
    TooMany { max: u32 },
    StandSize { allowed: &'static [u32] },
    Remainder { per_stand: u32, remainder: u32 },
}

impl std::fmt::Display for BasingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BasingError::NoFigures => write!(f, "a unit needs at least one figure"),
            BasingError::TooMany { max } => write!(f, "more than {max} figures is not a unit this table can base"),
            BasingError::StandSize { allowed } => {
                write!(f, "figures_per_stand must be one of {allowed:?} for this unit (OTP 1.1-1.2)")
            }
            BasingError::Remainder { per_stand, remainder } => write!(
                f,
                "{remainder} figure(s) left over after stands of {per_stand}: infantry are based 4 or 2 to a stand (OTP 1.1)"
            ),
        }
    }
}

/// Figures on each stand, front (or right) stand first: full stands, then at most one part stand.
pub fn stand_figures(unit: &Unit) -> Result<Vec<u32>, BasingError> {
    if unit.figures == 0 {
        return Err(BasingError::NoFigures);
    }
    let max = if matches!(unit.arm, Arm::Artillery { .. }) { MAX_GUNS } else { MAX_FIGURES };
    if unit.figures > max {
        return Err(BasingError::TooMany { max });
    }
    if let Arm::Artillery { .. } = unit.arm {
        return Ok(vec![unit.figures]);
    }
    let allowed = allowed_figures_per_stand(unit);
    let per = figures_per_stand(unit);
    if !allowed.contains(&per) {
        return Err(BasingError::StandSize { allowed });
    }
    let mut stands = vec![per; (unit.figures / per) as usize];
    let remainder = unit.figures % per;
    if remainder > 0 {
        // A 4-figure unit may end in a 2-figure stand (1.1); cavalry may have a lone figure (1.2).
        let fits = match unit.arm {
            Arm::Infantry => per == 4 && remainder == 2,
            _ => true,
        };
        if !fits {
            return Err(BasingError::Remainder { per_stand: per, remainder });
        }
        stands.push(remainder);
    }
    Ok(stands)
}

/// The gap between stands for the unit's formation, or 0 where edges touch.
pub fn formation_gap(unit: &Unit) -> f32 {
    match unit.formation {
        Formation::Skirmish => unit.gap.unwrap_or(DEFAULT_SKIRMISH_GAP),
        Formation::LooseOrder => unit.gap.unwrap_or(DEFAULT_LOOSE_ORDER_GAP),
        Formation::ExtendedLine | Formation::Dismounted => unit.gap.unwrap_or(DEFAULT_EXTENDED_GAP),
        _ => 0.0,
    }
}

/// How many stands stand in each rank, front rank first, for the formations in ranks: a wedge
/// 1, 2, 3...; a reinforced line two ahead for each one behind; a double line two ranks; an
/// attack column two abreast.
pub fn ranks(formation: Formation, n: usize) -> Vec<usize> {
    let sizes: Box<dyn Iterator<Item = usize>> = match formation {
        Formation::Wedge => Box::new(1..),
        Formation::ReinforcedLine => Box::new([n - n / 3].into_iter().chain(std::iter::repeat(n))),
        Formation::DoubleLine => Box::new([n.div_ceil(2)].into_iter().chain(std::iter::repeat(n))),
        Formation::AttackColumn => Box::new(std::iter::repeat(2)),
        _ => Box::new(std::iter::repeat(n)),
    };
    let mut left = n;
    let mut out = Vec::new();
    for k in sizes {
        if left == 0 {
            break;
        }
        let k = k.clamp(1, left);
        out.push(k);
        left -= k;
    }
    out
}

/// Lay a unit's stands out on the table by formation. `at` is the centre of the front edge.
pub fn layout(unit: &Unit, basing: &Basing) -> Result<Vec<(Footprint, u32)>, BasingError> {
    let figures = stand_figures(unit)?;
    let depth = stand_depth(unit, basing);
    let forward = bearing_vector(unit.facing);
    let right = bearing_vector(unit.facing + 90.0);
    let at = Vec2::from(unit.at);
    let stand = |centre: Vec2, f: u32| {
        (Footprint { centre, facing: unit.facing, frontage: stand_frontage(unit, f), depth }, f)
    };
    Ok(match unit.formation {
        // 5.1: one behind the other; limbered and unlimbered guns are a single stand.
        Formation::Column | Formation::Limbered | Formation::Unlimbered => figures
            .iter()
            .enumerate()
            .map(|(i, &f)| stand(at - forward * (depth * (i as f32 + 0.5)), f))
            .collect(),
        // Ranks one behind the other, each centred on the front, edges touching.
        Formation::Wedge | Formation::ReinforcedLine | Formation::DoubleLine | Formation::AttackColumn => {
            let mut out = Vec::with_capacity(figures.len());
            let mut rest = figures.as_slice();
            for (r, k) in ranks(unit.formation, figures.len()).into_iter().enumerate() {
                let (rank, more) = rest.split_at(k);
                rest = more;
                let mut x = -rank.iter().map(|&f| stand_frontage(unit, f)).sum::<f32>() / 2.0;
                for &f in rank {
                    let w = stand_frontage(unit, f);
                    out.push(stand(at + right * (x + w / 2.0) - forward * (depth * (r as f32 + 0.5)), f));
                    x += w;
                }
            }
            out
        }
        // Four faces, each facing out, inside a square whose side leaves room at the corners
        // for the side faces' depth: front, right, rear, left, the front taking any extra stands.
        Formation::Square => {
            let n = figures.len();
            let mut faces: Vec<&[u32]> = Vec::new();
            let mut rest = figures.as_slice();
            for k in 0..4 {
                let (face, more) = rest.split_at(n / 4 + usize::from(k < n % 4));
                faces.push(face);
                rest = more;
            }
            let width = |face: &[u32]| face.iter().map(|&f| stand_frontage(unit, f)).sum::<f32>();
            let side = faces.iter().map(|f| width(f)).fold(0.0, f32::max) + 2.0 * depth;
            let centre = at - forward * (side / 2.0);
            let mut out = Vec::with_capacity(n);
            for (k, face) in faces.iter().enumerate() {
                let facing = (unit.facing + 90.0 * k as f32).rem_euclid(360.0);
                let (out_dir, along) = (bearing_vector(facing), bearing_vector(facing + 90.0));
                let mut x = -width(face) / 2.0;
                for &f in face.iter() {
                    let w = stand_frontage(unit, f);
                    let c = centre + out_dir * (side / 2.0 - depth / 2.0) + along * (x + w / 2.0);
                    out.push((Footprint { centre: c, facing, frontage: w, depth }, f));
                    x += w;
                }
            }
            out
        }
        // 5.2–5.4: abreast in one rank, with the formation's gap (and the extended and
        // dismounted lines, 1" apart).
        Formation::Line | Formation::Skirmish | Formation::LooseOrder | Formation::ExtendedLine | Formation::Dismounted => {
            let gap = formation_gap(unit);
            let widths: Vec<f32> = figures.iter().map(|&f| stand_frontage(unit, f)).collect();
            let total = widths.iter().sum::<f32>() + gap * (widths.len() as f32 - 1.0);
            let mut x = -total / 2.0;
            figures
                .iter()
                .zip(widths)
                .map(|(&f, w)| {
                    let centre = at + right * (x + w / 2.0) - forward * (depth / 2.0);
                    x += w + gap;
                    stand(centre, f)
                })
                .collect()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::Unit;

    fn unit(unit_type: UnitType, arm: Arm, figures: u32, formation: Formation) -> Unit {
        Unit {
            name: "Test".into(),
            unit_type,
            arm,
            weapon: Some(Weapon::Musket),
            bayonets: None,
            figures,
            figures_per_stand: None,
            cv: None,
            can_skirmish: false,
            formation,
            at: [20.0, 10.0],
            facing: 0.0,
            gap: None,
            attached_to: None,
            morale_marker: false,
            men: None,
            purky: None,
            revolution: None,
            acw: None,
        }
    }

    #[test]
    fn infantry_four_to_a_stand_half_inch_a_figure() {
        // OTP 1.1: 1/2" a figure, 4 to a stand; a 2-figure remainder makes a 1" stand.
        let u = unit(UnitType::Line, Arm::Infantry, 18, Formation::Line);
        assert_eq!(stand_figures(&u).unwrap(), vec![4, 4, 4, 4, 2]);
        let stands = layout(&u, &Basing::default()).unwrap();
        let widths: Vec<f32> = stands.iter().map(|(s, _)| s.frontage).collect();
        assert_eq!(widths, vec![2.0, 2.0, 2.0, 2.0, 1.0]);
        // 5.2: edges touching, the whole line 9" wide and centred on `at`.
        let left = stands[0].0.front_left();
        let right = stands[4].0.front_right();
        assert!((left.x - 15.5).abs() < 1e-4 && (right.x - 24.5).abs() < 1e-4, "{left} {right}");
        for pair in stands.windows(2) {
            assert!((pair[0].0.front_right() - pair[1].0.front_left()).length() < 1e-4);
        }
    }

    #[test]
    fn lights_and_indians_two_to_a_stand() {
        // OTP 1.1: 2 figures a stand for Lights and Indians.
        for t in [UnitType::Light, UnitType::Indian] {
            let u = unit(t, Arm::Infantry, 8, Formation::Line);
            assert_eq!(stand_figures(&u).unwrap(), vec![2; 4]);
            assert_eq!(stand_frontage(&u, 2), 1.0);
        }
    }

    #[test]
    fn odd_infantry_figures_do_not_fit() {
        // OTP 1.1: stands of 4 or 2 only.
        let u = unit(UnitType::Line, Arm::Infantry, 13, Formation::Line);
        assert_eq!(stand_figures(&u), Err(BasingError::Remainder { per_stand: 4, remainder: 1 }));
    }

    #[test]
    fn cavalry_one_inch_a_figure_one_or_two_a_stand() {
        // OTP 1.2
        let mut u = unit(UnitType::Line, Arm::Cavalry, 7, Formation::Line);
        assert_eq!(stand_figures(&u).unwrap(), vec![2, 2, 2, 1]);
        assert_eq!(stand_frontage(&u, 2), 2.0);
        u.figures_per_stand = Some(3);
        assert!(matches!(stand_figures(&u), Err(BasingError::StandSize { .. })));
    }

    #[test]
    fn artillery_one_inch_a_section() {
        // OTP 1.3: a 4-gun battery is a 2" stand with 4 crew figures.
        let u = unit(UnitType::Line, Arm::Artillery { gun: super::super::model::GunSize::Medium, galloper: false }, 4, Formation::Unlimbered);
        let stands = layout(&u, &Basing::default()).unwrap();
        assert_eq!(stands.len(), 1);
        assert_eq!((stands[0].0.frontage, stands[0].1), (2.0, 4));
        let one_gun = Unit { figures: 1, ..u };
        assert_eq!(stand_frontage(&one_gun, 1), 1.0);
    }

    #[test]
    fn column_stands_one_behind_another() {
        // OTP 5.1
        let u = unit(UnitType::Line, Arm::Infantry, 12, Formation::Column);
        let stands = layout(&u, &Basing::default()).unwrap();
        assert_eq!(stands.len(), 3);
        assert!((stands[0].0.front_centre() - Vec2::new(20.0, 10.0)).length() < 1e-4);
        for pair in stands.windows(2) {
            let behind = pair[0].0.centre - pair[1].0.centre;
            assert!((behind - Vec2::new(0.0, 0.75)).length() < 1e-4);
        }
    }

    #[test]
    fn skirmish_and_loose_order_gaps() {
        // OTP 5.3: 1"-3" apart; 5.4: 1/2"-1".
        let mut u = unit(UnitType::Light, Arm::Infantry, 6, Formation::Skirmish);
        let s = layout(&u, &Basing::default()).unwrap();
        let gap = s[0].0.front_right().distance(s[1].0.front_left());
        assert!((gap - DEFAULT_SKIRMISH_GAP).abs() < 1e-4);
        u.formation = Formation::LooseOrder;
        u.unit_type = UnitType::Militia;
        u.figures_per_stand = Some(3);
        let s = layout(&u, &Basing::default()).unwrap();
        assert_eq!(s.iter().map(|x| x.0.frontage).collect::<Vec<_>>(), vec![2.0, 2.0]);
        assert!((s[0].0.front_right().distance(s[1].0.front_left()) - DEFAULT_LOOSE_ORDER_GAP).abs() < 1e-4);
    }

    /// The stands' centres relative to the front centre (20, 10), facing up the table.
    fn offsets(formation: Formation, figures: u32) -> Vec<(f32, f32, f32)> {
        let u = unit(UnitType::Line, Arm::Infantry, figures, formation);
        layout(&u, &Basing::default()).unwrap().iter().map(|(f, _)| (f.centre.x - 20.0, f.centre.y - 10.0, f.facing)).collect()
    }

    fn near(a: &[(f32, f32, f32)], b: &[(f32, f32, f32)]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(p, q)| (p.0 - q.0).abs() < 1e-4 && (p.1 - q.1).abs() < 1e-4 && (p.2 - q.2).abs() < 1e-3)
    }

    #[test]
    fn other_rule_sets_formations_in_ranks() {
        // Wedge: one stand ahead, two behind; reinforced line: two ahead, one behind; double
        // line: two ranks; attack column: two stands wide (2" stands, 3/4" deep).
        let (h, d) = (0.375, 0.75);
        assert!(near(&offsets(Formation::Wedge, 12), &[(0.0, -h, 0.0), (-1.0, -h - d, 0.0), (1.0, -h - d, 0.0)]));
        assert!(near(&offsets(Formation::ReinforcedLine, 12), &[(-1.0, -h, 0.0), (1.0, -h, 0.0), (0.0, -h - d, 0.0)]));
        assert!(near(&offsets(Formation::DoubleLine, 16), &[(-1.0, -h, 0.0), (1.0, -h, 0.0), (-1.0, -h - d, 0.0), (1.0, -h - d, 0.0)]));
        let column = offsets(Formation::AttackColumn, 24);
        assert_eq!(column.len(), 6);
        assert!(near(&column[4..], &[(-1.0, -h - 2.0 * d, 0.0), (1.0, -h - 2.0 * d, 0.0)]), "{column:?}");
    }

    #[test]
    fn extended_and_dismounted_lines_one_inch_apart() {
        // One rank, stands 1" apart edge to edge unless the unit gives its gap.
        for f in [Formation::ExtendedLine, Formation::Dismounted] {
            assert!(near(&offsets(f, 12), &[(-3.0, -0.375, 0.0), (0.0, -0.375, 0.0), (3.0, -0.375, 0.0)]), "{f:?}");
        }
    }

    #[test]
    fn square_faces_out_on_four_sides() {
        // Eight stands, two to a face: front, right, rear, left, each facing out; the side is
        // the widest face (4") and a stand's depth at each corner (5.5").
        let s = offsets(Formation::Square, 32);
        let facings: Vec<f32> = s.iter().map(|p| p.2).collect();
        assert_eq!(facings, vec![0.0, 0.0, 90.0, 90.0, 180.0, 180.0, 270.0, 270.0]);
        let centre = (0.0, -2.75);
        for (x, y, facing) in s {
            let out = crate::table::footprint::bearing_vector(facing);
            let from_centre = Vec2::new(x - centre.0, y - centre.1);
            assert!((from_centre.dot(out) - (2.75 - 0.375)).abs() < 1e-4, "each stand against its face, facing out");
        }
    }

    #[test]
    fn combat_values_by_type() {
        // OTP 2.0
        assert_eq!(combat_value(UnitType::Militia, Arm::Infantry), 3);
        assert_eq!(combat_value(UnitType::Militia, Arm::Cavalry), 4);
        assert_eq!(combat_value(UnitType::StateLine, Arm::Infantry), 4);
        assert_eq!(combat_value(UnitType::Line, Arm::Cavalry), 5);
        assert_eq!(combat_value(UnitType::Light, Arm::Infantry), 5);
        assert_eq!(combat_value(UnitType::Indian, Arm::Infantry), 4);
        assert_eq!(combat_value(UnitType::Elite, Arm::Infantry), 6);
    }
}
