//! *Revolution*'s movement and fire as the table applies them (SG11–SG16, SG21, SG24): columns
//! manoeuvre freely, lines pivot and go straight ahead or take ground to a flank (the order of
//! steps is `Game::check_move`'s), no road bonus, woods, swamps, towns and large streams entered
//! and linear obstacles crossed only after a toss (SG14, SG15), and the stands of a unit laid
//! out three abreast, in column, wedge or reinforced line (SG1–SG5).

use bevy::math::Vec2;

use super::rates::Rates;
use crate::scenario::basing::ranks;
use crate::scenario::model::{Arm, FieldKind, Formation, RevolutionKind, StreamKind, Terrain};
use crate::table::arc::FireMode;
use crate::table::fire::FireRules;
use crate::table::footprint::{Footprint, bearing_vector};
use crate::table::movement::{Ask, FormationPrice, MoveCites, MoveRules, Refused, Share, TerrainEffect};
use crate::table::situation::UnitInfo;

/// The section `MoveRules::cite.obstacle` names: a move's items under it are obstacles crossed.
pub const OBSTACLE: &str = "14";

pub static MOVES: MoveRules = MoveRules {
    cite: MoveCites {
        allowance: "16",
        formation: "17",
        manoeuvre: "12",
        bend: "12",
        interpenetrate: "11",
        double_up: "12",
        ford: "15",
        obstacle: OBSTACLE,
        road: "11",
        skirmish: "5",
        stand_by_stand: "11",
        basing: "2",
        disorder: OBSTACLE,
    },
    oblique_max: 45.0,
    // SG12 "take ground to either flank": inch for inch.
    side_step_rate: 1.0,
    bend_max: 0.0,
    skirmish_gap: (0.5, 1.0),
    double_up_needs: 1.0,
    road_note: "Revolution has no road bonus",
    may,
    share,
    form,
    terrain,
    obstacle,
    crossing,
};

/// SG11: columns (and limbered guns) follow a path; nothing moves stand by stand or bends.
fn may(unit: &UnitInfo, ask: Ask) -> Result<(), Refused> {
    match ask {
        Ask::Wheel | Ask::MoveAfterFormationChange => Ok(()),
        Ask::Path if unit.in_column() => Ok(()),
        Ask::Path => Err(Refused::new("12", "a line moves straight ahead, after an optional pivot, or takes ground to a flank; only a column follows a path (SG11)")),
        Ask::StandByStand | Ask::Bend | Ask::Road => Err(Refused::new("11", "a unit moves whole: no stand by stand, no bent line, no road bonus")),
    }
}

/// SG11: a column turns about freely.
fn share(_unit: &UnitInfo, _what: Share, _full: f32) -> (f32, &'static str) {
    (0.0, "free")
}

/// SG17: a change of formation is its own action, a toss, never a step of a move.
fn form(_unit: &UnitInfo, _to: Formation) -> Result<FormationPrice, Refused> {
    Err(Refused::new("17", "a change of formation is its own action: a toss (SG17), not a step of a move"))
}

/// SG15: what must be tossed for on entering (woods, swamp, a town or building, a large
/// stream, a river's ford); hills and fields are open ground.
fn terrain(t: &Terrain, _unit: &UnitInfo) -> TerrainEffect {
    use crate::scenario::model::DisorderType::A;
    match t {
        Terrain::Woods { .. } | Terrain::Town { .. } | Terrain::Building { .. } => TerrainEffect::Disorder(A),
        Terrain::Field { kind: FieldKind::Swamp, .. } => TerrainEffect::Disorder(A),
        Terrain::Stream { kind: StreamKind::Large, .. } => TerrainEffect::Disorder(A),
        Terrain::Stream { kind: StreamKind::River, .. } => TerrainEffect::Ford(A),
        _ => TerrainEffect::None,
    }
}

/// SG15: linear obstacles: fences, walls, barricades, breastworks and narrow streams.
fn obstacle(t: &Terrain) -> bool {
    matches!(t, Terrain::Obstacle { .. } | Terrain::Stream { kind: StreamKind::Narrow, .. })
}

/// SG14: crossing costs no inches (the toss is the price); guns cannot cross what the scenario
/// says they cannot.
fn crossing(t: &Terrain, unit: &UnitInfo) -> Result<f32, String> {
    match t {
        Terrain::Obstacle { impassable_to_artillery: true, name, .. } if unit.gun().is_some() => Err(format!("{name} cannot be crossed by artillery (the scenario says so)")),
        _ => Ok(0.0),
    }
}

/// SG21, SG24, SG6: deployed foot and unlimbered guns fire from their front, 45° beyond each
/// end; columns, limbered guns and dragoons do not fire (SG25). The reach here is the default
/// mapping's (guns 36", rifles 24", muskets 16"); `Game::check_fire` holds each unit to its own
/// category's range.
pub static FIRE: FireRules = FireRules { mode: fire_mode, reach: fire_reach, measure: |d| d };

fn fire_mode(unit: &UnitInfo) -> FireMode {
    match (unit.arm, unit.formation) {
        (Arm::Cavalry, _) => FireMode::None,
        (_, Formation::Line | Formation::ReinforcedLine | Formation::Unlimbered) => FireMode::Unit,
        _ => FireMode::None,
    }
}

fn fire_reach(unit: &UnitInfo, extra: f32) -> Option<f32> {
    let r = &Rates::embedded().ranges;
    match (unit.arm, unit.weapon) {
        (Arm::Cavalry, _) => None,
        (Arm::Artillery { .. }, _) => Some(r.artillery.get() + extra),
        (_, Some(crate::scenario::model::Weapon::Rifle)) => Some(r.rifles.get() + extra),
        _ => Some(r.musketry.get() + extra),
    }
}

/// SG2: a stand's frontage by kind.
pub fn frontage(kind: RevolutionKind, rates: &Rates) -> f32 {
    match kind {
        RevolutionKind::Dragoons => rates.basing.horse_frontage.get(),
        RevolutionKind::Artillery => rates.basing.gun_frontage.get(),
        _ => rates.basing.foot_frontage.get(),
    }
}

/// SG1–SG5: `n` stands of `kind` in `formation`, the centre of the front edge at `at`, facing
/// `facing`: a column (or a gun) one behind another; a line abreast; a wedge one ahead and two
/// behind; a reinforced line two ahead and one behind. A disordered unit has the gap of SG5
/// between its stands.
#[allow(clippy::too_many_arguments)]
pub fn lay(kind: RevolutionKind, formation: Formation, disordered: bool, n: usize, at: Vec2, facing: f32, depth: f32, rates: &Rates) -> Vec<Footprint> {
    let w = frontage(kind, rates);
    let gap = if disordered { rates.basing.disorder_gap.get() } else { 0.0 };
    let (forward, right) = (bearing_vector(facing), bearing_vector(facing + 90.0));
    let stand = |x: f32, rank: usize| Footprint { centre: at + right * x - forward * ((depth + gap) * rank as f32 + depth / 2.0), facing, frontage: w, depth };
    let row = |k: usize| (0..k).map(move |i| (i as f32 - (k as f32 - 1.0) / 2.0) * (w + gap));
    match formation {
        Formation::Line | Formation::Unlimbered if kind != RevolutionKind::Artillery || n > 1 => row(n).map(|x| stand(x, 0)).collect(),
        Formation::Wedge | Formation::ReinforcedLine => ranks(formation, n).into_iter().enumerate().flat_map(|(r, k)| row(k).map(move |x| (x, r))).map(|(x, r)| stand(x, r)).collect(),
        _ => (0..n).map(|r| stand(0.0, r)).collect(),
    }
}
