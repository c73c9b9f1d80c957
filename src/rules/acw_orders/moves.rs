//! The orders sheet's movement and fire as the table applies them (OR12): the sweep's steps at
//! face value; what a unit may form, and the ground under it read into the movement table's
//! five columns (road, open, broken, woods, rough). The inches themselves come from the
//! movement chart, by the engine ([`super::game::Game::allowance`]), which also prices forming
//! and facing a flank (they depend on quality, which the table's unit does not carry).

use bevy::math::Vec2;

use super::charts::{Ground, Mover};
use crate::picture::inside;
use crate::scenario::model::{Arm, FieldKind, Formation, Terrain, WoodsDensity};
use crate::table::arc::FireMode;
use crate::table::fire::FireRules;
use crate::table::footprint::Footprint;
use crate::table::geom::point_polyline_distance;
use crate::table::movement::{Ask, FormationPrice, MoveCites, MoveRules, Refused, Share, TerrainEffect};
use crate::table::situation::{Situation, UnitInfo};

pub static MOVES: MoveRules = MoveRules {
    cite: MoveCites {
        allowance: "12",
        formation: "12",
        manoeuvre: "12",
        bend: "12",
        interpenetrate: "12",
        double_up: "12",
        ford: "12",
        obstacle: "12",
        road: "12",
        skirmish: "12",
        stand_by_stand: "12",
        basing: "12",
        disorder: "12",
    },
    oblique_max: 45.0,
    side_step_rate: 2.0,
    bend_max: 0.0,
    skirmish_gap: (1.0, 3.0),
    double_up_needs: 1.0,
    road_note: "the orders sheet reads a road from the movement table's road column (OR12)",
    may,
    share,
    form,
    terrain,
    obstacle,
    crossing,
};

/// OR12: whole-unit steps; a column follows a path; no bent line or doubling up (the sheet has
/// neither).
fn may(unit: &UnitInfo, ask: Ask) -> Result<(), Refused> {
    match ask {
        Ask::Wheel | Ask::MoveAfterFormationChange | Ask::Road => Ok(()),
        Ask::Path if unit.in_column() || matches!(unit.formation, Formation::Limbered) => Ok(()),
        Ask::Path => Err(Refused::new("12", "only a column or limbered guns follow a path")),
        Ask::StandByStand if unit.formation == Formation::Skirmish => Ok(()),
        Ask::StandByStand | Ask::Bend => Err(Refused::new("12", "the orders sheet moves a unit whole: no bent line")),
    }
}

/// Facing a flank is priced by the engine by quality (OR12); the table adds nothing.
fn share(_unit: &UnitInfo, _what: Share, _full: f32) -> (f32, &'static str) {
    (0.0, "priced by the engine (OR12)")
}

/// The formations of each arm under the sheet (the rows of its movement and impact tables).
pub fn formations(arm: Arm) -> &'static [Formation] {
    match arm {
        Arm::Infantry => &[Formation::Line, Formation::DoubleLine, Formation::ExtendedLine, Formation::Skirmish, Formation::AttackColumn, Formation::Column],
        Arm::Cavalry => &[Formation::Line, Formation::DoubleLine, Formation::Skirmish, Formation::Column, Formation::Dismounted],
        Arm::Artillery { .. } => &[Formation::Limbered, Formation::Unlimbered],
    }
}

/// OR12: which formations a unit may take; the price is the engine's (form_quick/form_slow).
fn form(unit: &UnitInfo, to: Formation) -> Result<FormationPrice, Refused> {
    if formations(unit.arm).contains(&to) {
        Ok(FormationPrice { share: 0.0, section: "12", words: "priced by the engine" })
    } else {
        Err(Refused::new("12", "not a formation of that arm on the orders sheet"))
    }
}

fn terrain(_terrain: &Terrain, _unit: &UnitInfo) -> TerrainEffect {
    TerrainEffect::None
}

fn obstacle(_terrain: &Terrain) -> bool {
    false
}

fn crossing(_terrain: &Terrain, _unit: &UnitInfo) -> Result<f32, String> {
    Ok(0.0)
}

/// OR13: every unit fires from its front (one 45° arc); the longest reach on the sheet (the
/// Whitworth's 62") bounds the table's search, the engine reads each arm's own.
pub static FIRE: FireRules = FireRules {
    mode: |u| if u.in_column() || u.formation == Formation::Limbered { FireMode::None } else { FireMode::Unit },
    reach: |_, extra| Some(62.0 + extra),
    measure: |d| d,
};

/// The ground at a point, by the movement table's columns: woods (dense woods: rough), rocky
/// ground and swamp rough, crops and plough broken, a town rough; else open.
pub fn ground_at(s: &Situation, p: Vec2) -> Ground {
    let mut worst = Ground::Open;
    let rank = |g: Ground| match g {
        Ground::Road => 0,
        Ground::Open => 1,
        Ground::Broken => 2,
        Ground::Woods => 3,
        Ground::Rough => 4,
    };
    for t in s.terrain() {
        let (poly, g) = match t {
            Terrain::Woods { outline, density, .. } => (outline, if *density == WoodsDensity::Dense { Ground::Rough } else { Ground::Woods }),
            Terrain::Field { outline, kind: FieldKind::Rocky | FieldKind::Swamp, .. } => (outline, Ground::Rough),
            Terrain::Field { outline, kind: FieldKind::TallCrops | FieldKind::Plowed, .. } => (outline, Ground::Broken),
            Terrain::Town { outline, .. } => (outline, Ground::Rough),
            _ => continue,
        };
        let poly: Vec<Vec2> = poly.iter().map(|&q| Vec2::from(q)).collect();
        if rank(g) > rank(worst) && inside(&poly, p) {
            worst = g;
        }
    }
    worst
}

/// The worst ground under any of the stands; a road when every stand's centre is on a road.
pub fn ground_of(s: &Situation, stands: &[Footprint]) -> Ground {
    let on_road = !stands.is_empty()
        && stands.iter().all(|f| {
            s.terrain().iter().any(|t| matches!(t, Terrain::Road { path, width, .. } if point_polyline_distance(f.centre, &path.iter().map(|&q| Vec2::from(q)).collect::<Vec<_>>()) <= width / 2.0 + 0.25))
        });
    let worst = stands.iter().map(|f| ground_at(s, f.centre)).max_by_key(|g| Ground::ALL.iter().position(|x| x == g)).unwrap_or(Ground::Open);
    if on_road && worst == Ground::Open { Ground::Road } else { worst }
}

/// The movement table's row for a unit in `formation`, disordered or routed (OR12, 2a).
pub fn mover(arm: Arm, formation: Formation, disordered: bool, routed: bool, horses_lost: bool) -> Mover {
    match arm {
        Arm::Infantry if routed => Mover::InfRouted,
        Arm::Infantry if disordered => Mover::InfDisordered,
        Arm::Infantry => match formation {
            Formation::DoubleLine => Mover::InfDoubleLine,
            Formation::ExtendedLine => Mover::InfExtendedLine,
            Formation::Skirmish => Mover::InfSkirmish,
            Formation::AttackColumn => Mover::InfAttackColumn,
            Formation::Column => Mover::InfMarchColumn,
            _ => Mover::InfSingleLine,
        },
        Arm::Cavalry if routed => Mover::CavRouted,
        Arm::Cavalry if disordered => Mover::CavDisordered,
        Arm::Cavalry => match formation {
            Formation::DoubleLine => Mover::CavDoubleLine,
            Formation::Column => Mover::CavColumn,
            Formation::Skirmish => Mover::CavSkirmish,
            Formation::Dismounted => Mover::CavDismounted,
            _ => Mover::CavSingleLine,
        },
        Arm::Artillery { .. } if routed => Mover::GunsRouted,
        Arm::Artillery { .. } if formation == Formation::Unlimbered => Mover::GunsUnlimbered,
        Arm::Artillery { .. } if horses_lost => Mover::GunsDeadHorse,
        Arm::Artillery { .. } => Mover::GunsLimbered,
    }
}
