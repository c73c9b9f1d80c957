//! OTP's movement rules as the table applies them ([`MoveRules`]): who may do what (5.1, 5.3,
//! 5.4, 6.2–6.4), what each part costs (6.2–6.5, 6.7), what terrain does to whom (6.6, 6.13),
//! with their citations; and the optional 6.12 commanders' ride. The table's `plan_move`
//! supplies the geometry.

use bevy::math::Vec2;

use crate::scenario::model::{Arm, DisorderType, Formation, StreamKind, Terrain, UnitType};
use crate::table::geom::{EPS, polygon_intervals, segment_crossing};
use crate::table::movement::{Ask, FormationPrice, MoveCites, MoveRules, Refused, Share, TerrainEffect};
use crate::table::situation::{Outline, Situation, UnitInfo};
use crate::table::words;

/// OTP's movement rules, for every call of `plan_move` and `charge_path`.
pub static OTP: MoveRules = MoveRules {
    cite: MoveCites {
        allowance: "6.1",
        formation: "6.2",
        manoeuvre: "6.3",
        bend: "6.4",
        interpenetrate: "6.5",
        double_up: "6.5",
        ford: "6.6",
        obstacle: "6.7",
        road: "5.1",
        skirmish: "5.3",
        stand_by_stand: "6.4",
        basing: "1.1",
        disorder: "6.6",
    },
    // 6.3: obliques up to 45° off the facing; side steps at half rate.
    oblique_max: 45.0,
    side_step_rate: 2.0,
    // 6.4: a wing bends through at most 90°.
    bend_max: 90.0,
    // 5.3: skirmishers 1" to 3" apart.
    skirmish_gap: (1.0, 3.0),
    // 6.5: not with less than half the move left.
    double_up_needs: 0.5,
    road_note: "the road bonus needs a march column on the road the whole way",
    may,
    share,
    form,
    terrain,
    obstacle,
    crossing,
};

fn may(unit: &UnitInfo, ask: Ask) -> Result<(), Refused> {
    let column = unit.in_column();
    match ask {
        // 6.2: militia cannot move after changing formation.
        Ask::MoveAfterFormationChange if unit.unit_type == UnitType::Militia => Err(Refused::new("6.2", "militia cannot move after changing formation")),
        // 6.3, 5.1: a march column turns by following its head.
        Ask::Wheel if column && unit.stands.len() > 1 => Err(Refused::new("6.3", "a march column changes direction by following its head (a path), not by wheeling")),
        Ask::Path if !column => Err(Refused::new("5.1", "only a march column follows a path; a line moves forward, obliques or wheels")),
        // 5.3: only a skirmish line moves stand by stand.
        Ask::StandByStand if unit.formation != Formation::Skirmish => {
            Err(Refused::new("5.3", format!("only a unit in skirmish line moves its stands one by one; this one is in {:?}", unit.formation)))
        }
        // 6.4: a line conforms to cover.
        Ask::Bend if !unit.abreast() => Err(Refused::new("6.4", "only a line (or skirmish line) conforms to cover")),
        // 5.1: the road bonus is for a march column.
        Ask::Road if !column => Err(Refused::new("5.1", "only a march column earns the road bonus")),
        _ => Ok(()),
    }
}

fn share(unit: &UnitInfo, what: Share, full: f32) -> (f32, &'static str) {
    match what {
        // 6.3: about face is free in line, 1/4 move in column.
        Share::AboutFace => {
            let cost = if unit.in_column() { full / 4.0 } else { 0.0 };
            (cost, if cost > 0.0 { "about face (column countermarch, 1/4 move)" } else { "about face (free in line)" })
        }
        // 6.4: 1/4 move to bend or straighten; free in skirmish line.
        Share::Bend => (if unit.formation == Formation::Skirmish { 0.0 } else { full / 4.0 }, "1/4 move; free in skirmish line"),
        // 6.5: 1/4 move to double up or restore; for militia the whole move.
        Share::DoubleUp => (if unit.unit_type == UnitType::Militia { full } else { full / 4.0 }, "1/4 move; militia the whole move"),
    }
}

/// 5.0: a formation of another rule set (a wedge, a square...), which OTP does not know.
pub fn unknown_formation(f: Formation) -> Option<Refused> {
    (!Formation::OTP.contains(&f)).then(|| Refused::new("5.0", format!("On to Philadelphia has no {}: its formations are march column, line, skirmish line and loose order, and guns limbered or unlimbered", words::formation(f))))
}

/// 5.0, 5.3, 5.4: who may form what; 6.2 a change costs half the move, 5.4 loose order a quarter.
fn form(unit: &UnitInfo, to: Formation) -> Result<FormationPrice, Refused> {
    if let Some(r) = unknown_formation(to) {
        return Err(r);
    }
    let t = unit.unit_type;
    let allowed = match unit.arm {
        Arm::Artillery { .. } => matches!(to, Formation::Limbered | Formation::Unlimbered),
        Arm::Cavalry => matches!(to, Formation::Column | Formation::Line),
        Arm::Infantry => match to {
            Formation::Column | Formation::Line => true,
            Formation::Skirmish => matches!(t, UnitType::Light | UnitType::Indian) || (t == UnitType::Militia && unit.can_skirmish),
            Formation::LooseOrder => matches!(t, UnitType::Militia | UnitType::Indian),
            _ => false,
        },
    };
    if !allowed {
        let section = match to {
            Formation::Skirmish => "5.3",
            Formation::LooseOrder => "5.4",
            _ => "5.0",
        };
        return Err(Refused::new(section, format!("{:?} {:?} cannot form {to:?}", t, unit.arm).to_lowercase()));
    }
    Ok(if to == Formation::LooseOrder { FormationPrice { share: 0.25, section: "5.4", words: "1/4" } } else { FormationPrice { share: 0.5, section: "6.2", words: "1/2" } })
}

fn terrain(t: &Terrain, unit: &UnitInfo) -> TerrainEffect {
    let infantry = matches!(unit.arm, Arm::Infantry);
    let skirmish = unit.formation == Formation::Skirmish;
    match t {
        // 6.6: militia, lights and Indians on foot treat all woods as type A.
        Terrain::Woods { .. } if infantry && matches!(unit.unit_type, UnitType::Militia | UnitType::Light | UnitType::Indian) => TerrainEffect::Disorder(DisorderType::A),
        Terrain::Hill { slope: Some(d), .. } => TerrainEffect::Slope(*d),
        // 6.13: skirmishers move through towns and buildings as type D.
        Terrain::Town { .. } | Terrain::Building { .. } if skirmish => TerrainEffect::Disorder(DisorderType::D),
        Terrain::Town { .. } if unit.in_column() => TerrainEffect::None,
        Terrain::Town { .. } => TerrainEffect::Forbidden("6.13", "movement through towns is by march column only"),
        Terrain::Building { .. } => TerrainEffect::Forbidden("6.13", "units enter a building only by deploying into it (a change of formation)"),
        // 6.6: a river is crossed at its fords, type B.
        Terrain::Stream { kind: StreamKind::River, .. } => TerrainEffect::Ford(DisorderType::B),
        _ => t.disorder().map_or(TerrainEffect::None, TerrainEffect::Disorder),
    }
}

/// 6.7: walls, fences, breastworks and narrow streams.
fn obstacle(t: &Terrain) -> bool {
    matches!(t, Terrain::Obstacle { .. } | Terrain::Stream { kind: StreamKind::Narrow, .. })
}

/// 6.7: 1" a rank for infantry (and unlimbered guns), 2" for mounted cavalry and limbered guns;
/// the scenario names obstacles artillery cannot cross.
fn crossing(t: &Terrain, unit: &UnitInfo) -> Result<f32, String> {
    if let Terrain::Obstacle { impassable_to_artillery: true, .. } = t
        && unit.gun().is_some()
    {
        return Err(format!("artillery cannot cross {}", t.name()));
    }
    Ok(if unit.mounted() { 2.0 } else { 1.0 })
}

/// OTP 6.12 (optional "commanders as skirmishers"): the inches a commander's straight ride from
/// `a` to `b` costs when he treats terrain as infantry in skirmish line. A deterministic
/// approximation (no dice, so a refused ride rolls nothing): 1" for every linear obstruction
/// crossed (6.7: 1" a rank, a skirmish line being one rank; small streams count as linear
/// obstructions), and every inch ridden through disordering terrain (6.6: woods, crops, rough
/// fields, sloped hills, fords, and towns and buildings, type D for skirmishers, 6.13) counts
/// double, as if the disorder roll had halved his move there.
pub fn commander_ride_cost(s: &Situation, a: Vec2, b: Vec2) -> f32 {
    let len = a.distance(b);
    if len <= EPS {
        return 0.0;
    }
    let (mut cuts, mut spans) = (Vec::new(), Vec::new());
    let mut cost = len;
    for f in &s.features {
        let t = &s.terrain()[f.index];
        match (&f.outline, t) {
            (Outline::Line(path), Terrain::Obstacle { .. }) => {
                cost += path.windows(2).filter(|w| segment_crossing(a, b, w[0], w[1]).is_some()).count() as f32;
            }
            (Outline::Ribbon { path, half_width }, Terrain::Stream { .. }) => {
                let crossings = path.windows(2).filter(|w| segment_crossing(a, b, w[0], w[1]).is_some()).count() as f32;
                cost += crossings * if t.disorder().is_some() { 2.0 * half_width } else { 1.0 };
            }
            (Outline::Area(poly), _) if t.disorder().is_some() || matches!(t, Terrain::Town { .. } | Terrain::Building { .. }) => {
                polygon_intervals(poly, a, b, &mut cuts, &mut spans);
                cost += spans.iter().map(|(t0, t1)| (t1 - t0) * len).sum::<f32>();
            }
            _ => {}
        }
    }
    cost
}

