//! The quick ACW rules' movement, fire and cover as the table applies them (QK6–QK8, QK11,
//! QK14): change of formation at half a move, mounting and dismounting at a quarter; rough ground
//! (QK8: woods, swamp, broken ground, fords, towns) marked for the engine, which halves the move;
//! the arcs and reach of fire by arm.

use crate::scenario::model::{Arm, Cover, DisorderType, FieldKind, Formation, StreamKind, Terrain};
use crate::table::arc::FireMode;
use crate::table::cover::CoverRules;
use crate::table::fire::FireRules;
use crate::table::movement::{Ask, FormationPrice, MoveCites, MoveRules, Refused, Share, TerrainEffect};
use crate::table::situation::UnitInfo;

use super::charts::{Charts, FireArm};

/// The quick rules' movement, for every call of `plan_move`.
pub static QK: MoveRules = MoveRules {
    cite: MoveCites {
        allowance: "6",
        formation: "6",
        manoeuvre: "6",
        bend: "6",
        interpenetrate: "6",
        double_up: "6",
        ford: "8",
        obstacle: "8",
        road: "6",
        skirmish: "6",
        stand_by_stand: "6",
        basing: "22",
        disorder: "8",
    },
    oblique_max: 45.0,
    side_step_rate: 2.0,
    bend_max: 0.0,
    skirmish_gap: (1.0, 3.0),
    double_up_needs: 1.0,
    road_note: "the quick rules give no road bonus",
    may,
    share,
    form,
    terrain,
    obstacle,
    crossing,
};

/// QK6: a unit moves whole (forward, oblique, side step, wheel, about face, a column along a
/// path); no stand by stand, no bent line, no road bonus: the sheet has none of them.
fn may(unit: &UnitInfo, ask: Ask) -> Result<(), Refused> {
    match ask {
        Ask::Wheel | Ask::MoveAfterFormationChange => Ok(()),
        Ask::Path if unit.in_column() || unit.formation == Formation::Limbered => Ok(()),
        Ask::Path => Err(Refused::new("6", "only a column or limbered guns follow a path")),
        Ask::StandByStand | Ask::Bend | Ask::Road => Err(Refused::new("6", "the quick rules move a unit whole: no stand by stand, no bent line, no road bonus")),
    }
}

/// QK6: turning about is part of the move (and the one thing a unit with a Morale Marker that
/// stays may do, QK3).
fn share(_unit: &UnitInfo, _what: Share, _full: f32) -> (f32, &'static str) {
    (0.0, "free")
}

/// QK6: the formations of each arm and what changing costs: half a move; mounting or
/// dismounting a quarter.
pub fn form(unit: &UnitInfo, to: Formation) -> Result<FormationPrice, Refused> {
    let c = Charts::embedded();
    let half = FormationPrice { share: c.change_formation.value, section: "6", words: "1/2" };
    let quarter = FormationPrice { share: c.mount.value, section: "6", words: "1/4" };
    match (unit.arm, unit.formation, to) {
        (_, a, b) if a == b => Err(Refused::new("6", "the unit is in that formation already")),
        (Arm::Infantry, Formation::Line | Formation::Column, Formation::Line | Formation::Column) => Ok(half),
        (Arm::Cavalry, Formation::Line | Formation::Column, Formation::Line | Formation::Column) => Ok(half),
        (Arm::Cavalry, Formation::Line | Formation::Column, Formation::Dismounted) | (Arm::Cavalry, Formation::Dismounted, Formation::Line | Formation::Column) => Ok(quarter),
        (Arm::Artillery { .. }, Formation::Limbered | Formation::Unlimbered, Formation::Limbered | Formation::Unlimbered) => Ok(half),
        (Arm::Infantry, _, _) => Err(Refused::new("6", "foot form line or column")),
        (Arm::Cavalry, _, _) => Err(Refused::new("6", "cavalry form line or column mounted, or dismount")),
        (Arm::Artillery { .. }, _, _) => Err(Refused::new("6", "guns are limbered or unlimbered")),
    }
}

/// QK8: rough ground. The table reports it as disordering terrain; the engine halves the move.
pub fn is_rough(t: &Terrain) -> bool {
    match t {
        Terrain::Woods { .. } | Terrain::Town { .. } | Terrain::Building { .. } => true,
        Terrain::Field { kind, .. } => matches!(kind, FieldKind::Swamp | FieldKind::Rocky),
        Terrain::Stream { kind, .. } => matches!(kind, StreamKind::Large | StreamKind::River),
        _ => false,
    }
}

fn terrain(t: &Terrain, _unit: &UnitInfo) -> TerrainEffect {
    match t {
        Terrain::Stream { kind: StreamKind::River, .. } => TerrainEffect::Ford(DisorderType::A),
        _ if is_rough(t) => TerrainEffect::Disorder(DisorderType::A),
        _ => TerrainEffect::None,
    }
}

/// Walls, fences, breastworks and narrow streams lie across a move.
fn obstacle(t: &Terrain) -> bool {
    matches!(t, Terrain::Obstacle { .. } | Terrain::Stream { kind: StreamKind::Narrow, .. })
}

/// QK8: a narrow stream is a ford anywhere (its price is the sheet's reconstruction); walls and
/// fences cost nothing (the sheet is silent), save to guns the scenario bars.
fn crossing(t: &Terrain, unit: &UnitInfo) -> Result<f32, String> {
    match t {
        Terrain::Obstacle { impassable_to_artillery: true, .. } if unit.gun().is_some() => Err(format!("artillery cannot cross {}", t.name())),
        Terrain::Stream { .. } => Ok(Charts::embedded().narrow_stream_crossing.value),
        _ => Ok(0.0),
    }
}

/// QK11, QK14: which row of the FIRE table a unit fires on; `None`: it cannot fire (mounted
/// cavalry, limbered guns).
pub fn fire_arm(arm: Arm, formation: Formation) -> Option<FireArm> {
    match (arm, formation) {
        (Arm::Infantry, _) => Some(FireArm::Foot),
        (Arm::Cavalry, Formation::Dismounted) => Some(FireArm::DismountedCavalry),
        (Arm::Cavalry, _) => None,
        (Arm::Artillery { .. }, Formation::Unlimbered) => Some(FireArm::Artillery),
        (Arm::Artillery { .. }, _) => None,
    }
}

/// QK11: the farthest band in which the unit's row has a number.
pub fn reach_of(arm: FireArm) -> Option<f32> {
    let c = Charts::embedded();
    let row = c.fire_row(arm);
    row.needs.iter().rposition(Option::is_some).map(|i| c.bands[i].value)
}

/// QK14: one arc from the two ends of the unit's front, 45° beyond each end.
pub static FIRE: FireRules = FireRules {
    mode: |u| if fire_arm(u.arm, u.formation).is_some() { FireMode::Unit } else { FireMode::None },
    reach: |u, extra| fire_arm(u.arm, u.formation).and_then(reach_of).map(|r| r + extra),
    measure: |d| d,
};

/// QK12 "target in cover": woods, towns, buildings, and behind walls, fences and works within
/// 1.5" (a reading: the sheet gives no reach; 1.5" lets a line fired on at a slant from 6" keep
/// the cover of the wall at its front).
pub static COVER: CoverRules = CoverRules {
    class: |t| match t {
        Terrain::Woods { .. } | Terrain::Town { .. } | Terrain::Obstacle { .. } => Some(Cover::Light),
        Terrain::Building { .. } => Some(Cover::Light),
        _ => None,
    },
    behind_reach: 1.5,
};
