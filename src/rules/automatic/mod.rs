//! What every rule set's automatic player shares: its levels ([`Level`]), a decision with the
//! one-line reason behind it ([`Decision`], [`Player`]), one player per side ([`BySide`]), and
//! the judgements that need only the engine interface — who holds which objective now, what
//! each side and command is asked to do by the scenario ([`stance`], from the optional
//! `posture` of a side or brigade, or derived from the objectives), how good a piece of ground
//! is to stand on ([`ground`]), and how many enemy muskets and guns bear on a place
//! ([`bearing_on`]). A rule set's own player adds its exact odds (fire and melee previews) on top.

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::action::Action;
use super::engine::{Automatic, Engine};
use crate::picture::inside;
use crate::scenario::model::{Arm, ObstacleKind, Posture, Scenario, Terrain};
use crate::scenario::spawn::{Brigade, Unit};
use crate::table::footprint::{Footprint, vector_bearing};

pub mod route;

/// How well an automatic player plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Level {
    /// The first automatic player, kept as a baseline: every unit at the nearest enemy.
    #[default]
    Novice,
    /// Plays the scenario: objectives, postures, ground, the exact odds; brigades as bodies.
    Standard,
    /// The standard player looking one reply ahead: where it stands weighed against what the
    /// enemy can do to it there next.
    Strong,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Novice, Level::Standard, Level::Strong];

    pub fn key(self) -> &'static str {
        match self {
            Level::Novice => "novice",
            Level::Standard => "standard",
            Level::Strong => "strong",
        }
    }

    /// What the level does, for a tooltip.
    pub fn describe(self) -> &'static str {
        match self {
            Level::Novice => "every unit toward the nearest enemy; fires at the nearest target; charges when the odds favour it",
            Level::Standard => "plays the scenario: takes and holds objectives, keeps good ground and brigades together, fires and charges by the exact odds",
            Level::Strong => "the standard player, rehearsing each brigade's plans to the end of the game with fresh dice",
        }
    }

    pub fn parse(word: &str) -> Result<Level, String> {
        Level::ALL.into_iter().find(|l| l.key().eq_ignore_ascii_case(word.trim())).ok_or_else(|| format!("no automatic player level {word:?}; the levels are novice, standard, strong"))
    }

    /// `strong:novice` (first side : second side, and so on), or one level for every side.
    pub fn parse_sides(text: &str, sides: usize) -> Result<Vec<Level>, String> {
        let levels = text.split(':').map(Level::parse).collect::<Result<Vec<_>, _>>().map_err(|e| format!("--bot {text}: {e}"))?;
        match levels.len() {
            1 => Ok(vec![levels[0]; sides]),
            n if n == sides => Ok(levels),
            n => Err(format!("--bot {text}: {n} levels for {sides} sides (give one, or one a side separated by ':')")),
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

/// An automatic player's next action and, where it has one, why ("fires at the 71st: …").
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub action: Action,
    pub reason: Option<String>,
    /// The way a moving unit means to go where it leaves the straight line (round the enemy's
    /// fire, [`route`]), for the window to draw; `None` for anything else.
    pub way: Option<crate::rules::engine::PlannedPath>,
}

/// An automatic player that can say why it acts. It only reads the game; the caller applies
/// what it chooses.
pub trait Player: Send + Sync {
    fn decide(&mut self, game: &dyn Engine) -> Option<Decision>;
}

/// A rule set's automatic player that gives no reasons.
pub struct Plain(pub Box<dyn Automatic>);

impl Player for Plain {
    fn decide(&mut self, game: &dyn Engine) -> Option<Decision> {
        self.0.next_action(game).map(|action| Decision { action, reason: None, way: None })
    }
}

/// One player a side: the deciding side's plays; when nobody decides (start, draw, end of
/// turn, rebuilds) the first side's.
pub struct BySide(pub Vec<Box<dyn Player>>);

impl Player for BySide {
    fn decide(&mut self, game: &dyn Engine) -> Option<Decision> {
        let side = game.sequence().deciding.unwrap_or(0).min(self.0.len().saturating_sub(1));
        self.0.get_mut(side)?.decide(game)
    }
}

// ---- judgements through the engine interface ----

/// A unit as the automatic players see it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub entity: Entity,
    pub name: String,
    pub side: usize,
    pub brigade: Entity,
    pub arm: Arm,
    pub figures: u32,
    pub stands: Vec<Footprint>,
}

impl Seen {
    /// The middle of its front.
    pub fn front(&self) -> Vec2 {
        self.stands.iter().map(|f| f.front_centre()).sum::<Vec2>() / self.stands.len().max(1) as f32
    }
    pub fn facing(&self) -> f32 {
        self.stands.first().map_or(0.0, |f| f.facing)
    }
    /// Any of its stands within `radius` of `at` (how the scenarios count an objective held).
    pub fn within(&self, at: Vec2, radius: f32) -> bool {
        self.stands.iter().any(|f| {
            let c = f.corners();
            f.contains(at) || (0..4).any(|i| crate::table::geom::point_segment_distance(at, c[i], c[(i + 1) % 4]) <= radius)
        })
    }
    pub fn distance_to(&self, p: Vec2) -> f32 {
        self.stands.iter().map(|f| f.centre.distance(p)).fold(f32::INFINITY, f32::min)
    }
}

/// Every unit with figures left on the table, in the world's order.
pub fn seen(game: &dyn Engine) -> Vec<Seen> {
    let world = game.world();
    let Some(mut q) = world.try_query::<(Entity, &Unit)>() else { return Vec::new() };
    let mut out: Vec<Seen> = q
        .iter(world)
        .filter(|(_, u)| u.figures > 0)
        .map(|(e, u)| Seen {
            entity: e,
            name: u.name.clone(),
            side: u.side,
            brigade: u.brigade,
            arm: u.arm,
            figures: u.figures,
            stands: u.stands.iter().filter_map(|&s| world.get::<Footprint>(s).copied()).collect(),
        })
        .filter(|s| !s.stands.is_empty())
        .collect();
    out.sort_by_key(|s| s.entity);
    out
}

/// The brigade's name, from its entity.
pub fn brigade_name(game: &dyn Engine, brigade: Entity) -> Option<String> {
    game.world().get::<Brigade>(brigade).map(|b| b.name.clone())
}

/// Who is inside an objective now: `[side] -> units inside`.
pub fn holders(units: &[Seen], at: Vec2, radius: f32, sides: usize) -> Vec<usize> {
    let mut n = vec![0; sides];
    for u in units.iter().filter(|u| u.within(at, radius)) {
        if let Some(c) = n.get_mut(u.side) {
            *c += 1;
        }
    }
    n
}

/// What a side or command is about now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stance {
    Attack,
    Defend,
    Screen,
}

impl Stance {
    pub fn word(self) -> &'static str {
        match self {
            Stance::Attack => "attacking",
            Stance::Defend => "defending",
            Stance::Screen => "screening",
        }
    }
}

/// The posture a scenario gives a side when it says nothing: the side whose units stand nearer
/// the objectives (weighed by their points) at the start defends them; the other attacks.
pub fn derived_posture(scenario: &Scenario, side: usize) -> Posture {
    let reach = |s: usize| -> f32 {
        let units: Vec<Vec2> = scenario.sides.get(s).map(|side| side.brigades.iter().flat_map(|b| &b.units).map(|u| Vec2::from(u.at)).collect()).unwrap_or_default();
        scenario.objectives.iter().map(|o| o.points as f32 * units.iter().map(|&p| p.distance(Vec2::from(o.at))).fold(f32::INFINITY, f32::min)).sum()
    };
    if scenario.objectives.is_empty() || scenario.sides.len() < 2 {
        return Posture::Attack;
    }
    let mine = reach(side);
    let best_other = (0..scenario.sides.len()).filter(|&s| s != side).map(reach).fold(f32::INFINITY, f32::min);
    if mine < best_other { Posture::Defend } else { Posture::Attack }
}

/// The posture of a brigade: its own, else its side's, else derived ([`derived_posture`]); and
/// whether the scenario gave it.
pub fn posture(scenario: &Scenario, side: usize, brigade: &str) -> (Posture, bool) {
    let s = scenario.sides.get(side);
    let given = s.and_then(|s| s.brigades.iter().find(|b| b.name == brigade)).and_then(|b| b.posture).or_else(|| s.and_then(|s| s.posture));
    match given {
        Some(p) => (p, true),
        None => (derived_posture(scenario, side), false),
    }
}

/// What a brigade is about in `turn` of a game of `limit` turns: its posture, a hold turning
/// into an attack at its turn, and in the last two turns every command goes for the
/// objectives (points are counted at the end, 4.5).
pub fn stance(scenario: &Scenario, side: usize, brigade: &str, turn: u32) -> Stance {
    let limit = scenario.turn_limit.unwrap_or(10);
    match posture(scenario, side, brigade).0 {
        Posture::Attack => Stance::Attack,
        Posture::Defend => Stance::Defend,
        Posture::HoldUntil(t) if turn < t && turn + 1 < limit => Stance::Defend,
        Posture::HoldUntil(_) => Stance::Attack,
        Posture::Screen if turn + 1 >= limit => Stance::Attack,
        Posture::Screen => Stance::Screen,
    }
}


/// What the ground at `p` is worth to a defender, and its words: height (every level), a town
/// or woods, a wall or fence in front within 1.5".
pub fn ground(scenario: &Scenario, p: Vec2) -> (f32, Vec<String>) {
    let mut value = 0.0;
    let mut words = Vec::new();
    let mut height = 0;
    for t in &scenario.terrain {
        match t {
            Terrain::Hill { name, elevation, outline, .. } if *elevation > height && inside(outline, p) => {
                height = *elevation;
                words.retain(|w: &String| !w.starts_with("on "));
                words.push(format!("on {name}"));
            }
            Terrain::Woods { name, outline, .. } if inside(outline, p) => {
                value += 0.6;
                words.push(format!("in {name}"));
            }
            Terrain::Town { name, outline, .. } if inside(outline, p) => {
                value += 1.0;
                words.push(format!("in {name}"));
            }
            Terrain::Obstacle { name, kind, path, .. } => {
                let pts: Vec<Vec2> = path.iter().map(|&q| Vec2::from(q)).collect();
                if crate::table::geom::point_polyline_distance(p, &pts) <= 1.5 {
                    value += if matches!(kind, ObstacleKind::StoneWall) { 1.0 } else { 0.5 };
                    words.push(format!("behind {name}"));
                }
            }
            _ => {}
        }
    }
    (value + height as f32, words)
}

/// The figures of unit `e` that bear on `at`: its figures if the place is in its front arc (45°
/// either side of its facing, a little over for the width of its line) and within its reach
/// `r`, half that at the edge of its range; none otherwise.
pub fn bearing_on(e: &Seen, at: Vec2, r: f32) -> f32 {
    let from = e.front();
    let d = from.distance(at);
    if d > r || d < 1e-3 || angle_between(vector_bearing(at - from), e.facing()) > 50.0 {
        return 0.0;
    }
    e.figures as f32 * (1.0 - 0.5 * d / r)
}

/// The angle between two bearings, 0–180°.
pub fn angle_between(a: f32, b: f32) -> f32 {
    ((a - b + 540.0).rem_euclid(360.0) - 180.0).abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Levels read as the command line writes them, one a side or one for all.
    #[test]
    fn levels_parse_one_a_side_or_one_for_all() {
        assert_eq!(Level::parse_sides("strong:novice", 2), Ok(vec![Level::Strong, Level::Novice]));
        assert_eq!(Level::parse_sides("Standard", 2), Ok(vec![Level::Standard; 2]));
        assert!(Level::parse_sides("strong:novice:standard", 2).unwrap_err().contains("3 levels for 2 sides"));
        assert!(Level::parse_sides("expert", 2).unwrap_err().contains("no automatic player level"));
    }

    // The scenario format's posture, and the one derived from the objectives: at Cowpens the
    // Americans stand nearer the objectives (they defend), the British attack.
    #[test]
    fn postures_come_from_the_file_or_the_objectives() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/cowpens.ron");
        let mut s = crate::scenario::load(&path).unwrap();
        let brit = s.sides.iter().position(|x| x.name == "British").unwrap();
        let amer = 1 - brit;
        assert_eq!(derived_posture(&s, brit), Posture::Attack);
        assert_eq!(derived_posture(&s, amer), Posture::Defend);
        let b = s.sides[amer].brigades[0].name.clone();
        assert_eq!(posture(&s, amer, &b), (Posture::Defend, false));
        s.sides[amer].posture = Some(Posture::HoldUntil(4));
        assert_eq!(posture(&s, amer, &b), (Posture::HoldUntil(4), true));
        assert_eq!(stance(&s, amer, &b, 2), Stance::Defend);
        assert_eq!(stance(&s, amer, &b, 4), Stance::Attack);
        s.sides[amer].brigades[0].posture = Some(Posture::Screen);
        assert_eq!(stance(&s, amer, &b, 2), Stance::Screen);
        // The last turn: every command goes for the objectives.
        assert_eq!(stance(&s, amer, &b, s.turn_limit.unwrap()), Stance::Attack);
    }
}
