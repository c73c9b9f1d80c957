//! Melee numbers (QK15–QK18), no dice: each side's stands fighting and modifiers, and the exact
//! odds of every row of the result table over the 36 × 36 throws of both sides.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::charts::{MeleeModifier, MeleeRow};
use super::game::{Game, centre};
use crate::scenario::model::{Arm, Formation, Nation, Terrain};
use crate::table::contact::stands_in_contact;
use crate::table::geom::crosses_polyline;

/// One side of a melee.
#[derive(Clone, Debug, PartialEq)]
pub struct MeleeSide {
    /// QK18: stands touching the enemy.
    pub stands: u32,
    /// QK17: an attacker that started behind the enemy's flank or rear counts them double.
    pub doubled: bool,
    pub modifiers: Vec<(MeleeModifier, i32)>,
    /// QK16: the attached leader's bonus.
    pub leader: i32,
}

impl MeleeSide {
    /// What is added to the 2d6.
    pub fn total(&self) -> i32 {
        let stands = self.stands as i32 * if self.doubled { 2 } else { 1 };
        stands + self.modifiers.iter().map(|m| m.1).sum::<i32>() + self.leader
    }
}

/// A melee between the phasing `attacker` and the `defender` it touches.
#[derive(Clone, Debug, PartialEq)]
pub struct Fight {
    pub attacker: MeleeSide,
    pub defender: MeleeSide,
}

/// QK15–QK18: both sides' numbers.
pub fn fight(game: &Game, attacker: Entity, defender: Entity) -> Fight {
    fight_on(game, &game.situation(), attacker, defender, game.state(attacker).behind == Some(defender))
}

/// `fight` on the table `s` (the charger where its charge would put it, for the automatic
/// player's weighing), the attacker's stands counting double if it came from behind (QK17).
pub fn fight_on(game: &Game, s: &crate::table::situation::Situation, attacker: Entity, defender: Entity, from_behind: bool) -> Fight {
    let (an, dn) = (game.name(attacker), game.name(defender));
    let (Ok(a), Ok(d)) = (s.find(&an), s.find(&dn)) else {
        let none = MeleeSide { stands: 0, doubled: false, modifiers: Vec::new(), leader: 0 };
        return Fight { attacker: none.clone(), defender: none };
    };
    let across = wall_or_stream_between(s, a, d);
    let side = |me: Entity, i: usize, other: usize, attacking: bool| {
        let unit = game.unit(me).expect("in the melee");
        let c = game.charts;
        let mut mods = Vec::new();
        let mut add = |m: MeleeModifier| mods.push((m, c.melee_modifier(m).value));
        if attacking && Game::is_mounted(unit) {
            add(MeleeModifier::MountedAttacking);
        }
        if !attacking && across {
            add(MeleeModifier::WallOrStream);
        }
        if unit.arm == Arm::Infantry && unit.formation == Formation::Column {
            add(MeleeModifier::InfantryColumn);
        }
        if s.unit_elevation(i) > s.unit_elevation(other) {
            add(MeleeModifier::Uphill);
        }
        if attacking && game.nation(unit.side) == Nation::Confederate {
            add(MeleeModifier::ConfederatesAttacking);
        }
        if game.state(me).marker {
            add(MeleeModifier::Marked);
        }
        let stands = stands_in_contact(s, i, &[other]).len().max(1) as u32;
        let stands = if matches!(unit.arm, Arm::Artillery { .. }) { game.state(me).stands.max(1) } else { stands };
        let doubled = attacking && from_behind;
        MeleeSide { stands, doubled, modifiers: mods, leader: game.attached_leader(me).map_or(0, |l| l.bonus) }
    };
    Fight { attacker: side(attacker, a, d, true), defender: side(defender, d, a, false) }
}

/// QK16: a wall, fence, breastwork or stream lies between the two units' centres.
fn wall_or_stream_between(s: &crate::table::situation::Situation, a: usize, d: usize) -> bool {
    let (ca, cd) = (centre(&s.unit(a).footprints()), centre(&s.unit(d).footprints()));
    s.terrain().iter().any(|t| match t {
        Terrain::Obstacle { path, .. } | Terrain::Stream { path, .. } => crosses_polyline(ca, cd, &path.iter().map(|&p| Vec2::from(p)).collect::<Vec<_>>()),
        _ => false,
    })
}

/// The exact chance of each outcome of a melee over the 36 × 36 throws: (attacker's margin row or
/// tie or defender's, chance). Margins are the attacker's total minus the defender's.
pub fn odds(f: &Fight, rows: &[MeleeRow]) -> Vec<(String, f64)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut bump = |label: String| match out.iter_mut().find(|(l, _)| *l == label) {
        Some((_, n)) => *n += 1,
        None => out.push((label, 1)),
    };
    for a1 in 1..=6 {
        for a2 in 1..=6 {
            for d1 in 1..=6 {
                for d2 in 1..=6 {
                    let diff = (a1 + a2 + f.attacker.total()) - (d1 + d2 + f.defender.total());
                    let row = rows.iter().find(|r| r.holds(diff.abs())).expect("the rows cover every difference");
                    let label = match diff.signum() {
                        0 => format!("a tie: both lose {} and retreat ({})", row.winner, row.cell()),
                        1 => format!("attacker wins by {}: {}", row.label(), row.cell()),
                        _ => format!("defender wins by {}: {}", row.label(), row.cell()),
                    };
                    bump(label);
                }
            }
        }
    }
    out.into_iter().map(|(l, n)| (l, n as f64 / 1296.0)).collect()
}
