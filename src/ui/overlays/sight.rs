//! Line-of-sight overlay (L): from the selected firer to the enemy unit under the pointer, one
//! line a firing stand from the stand's centre (8.8), green where clear, red where blocked with
//! the blocker named where it blocks; woods on the line measured (8.7); and the readout of range,
//! arc, enfilade, close range and artillery band.
//!
//! The geometry is the table's (`fire::fire_geometry`, `sight::sight`) measured by the rule set's
//! `FireRules`; this module only picks which of the lines the rules look along to draw: for each
//! stand the clear line crossing the least woods, or, when none is clear, the shortest. What the
//! rules make of the shot, the readout and the woods tag, is the engine's
//! (`Engine::sight_readout`).

use bevy::math::Vec2;

use super::scene::{Prim, Scene, Tag, colours};
use bevy::ecs::entity::Entity;

pub(crate) use crate::rules::engine::Mark;
use crate::rules::engine::{Engine, SightReadout};
use crate::table::fire::{FireOptions, fire_geometry};
use crate::table::footprint::Footprint;
use crate::table::geom::{EPS, footprint_interval, polygon_intervals};
use crate::table::sight::{SightOptions, WoodsOnLine, sight};
use crate::table::situation::{Outline, Situation, UnitInfo};

/// One firing stand's line (dashed when the stand does not bear: out of arc or range).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StandLine {
    pub stand: usize,
    pub from: Vec2,
    pub to: Vec2,
    /// The stand bears: the target is in its arc and range (8.1).
    pub bears: bool,
    pub clear: bool,
    /// What blocks first, and where the line meets it.
    pub block: Option<(String, Vec2)>,
    /// Stretches of woods (and tall crops) on the line.
    pub woods: Vec<(Vec2, Vec2)>,
    /// Inches of woods on it, as `sight` measures them (8.7).
    pub woods_in: f32,
    /// Those woods by name and kind (`sight::WoodsOnLine`).
    pub woods_on_line: Vec<WoodsOnLine>,
}

/// Everything the sight overlay shows for one firer and one target.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SightView {
    pub firer: String,
    pub target: String,
    pub lines: Vec<StandLine>,
    /// The engine's readout (empty when its rule set gives none).
    pub readout: SightReadout,
}

/// Points on the target a sight line may reach: the corners, and along every edge at most 1"
/// apart (as `sight` samples them).
fn target_points(u: &UnitInfo) -> Vec<Vec2> {
    let mut out = Vec::new();
    for st in &u.stands {
        let c = st.footprint.corners();
        for i in 0..4 {
            let (a, b) = (c[i], c[(i + 1) % 4]);
            let n = (a.distance(b) - EPS).ceil().max(1.0) as usize;
            out.extend((0..n).map(|k| a.lerp(b, k as f32 / n as f32)));
        }
    }
    out
}

/// Where the segment ab first enters what is named (a unit's stands, or a terrain feature).
fn entry(s: &Situation, name: &str, a: Vec2, b: Vec2) -> Option<Vec2> {
    let mut best: Option<f32> = None;
    let keep = |best: &mut Option<f32>, t: f32| *best = Some(best.map_or(t, |b: f32| b.min(t)));
    if let Some(u) = s.units().iter().find(|u| u.name == name) {
        for st in &u.stands {
            let f = st.footprint;
            if let Some((t0, t1)) = footprint_interval(&f, f.right(), f.forward(), a, b)
                && t1 > t0
            {
                keep(&mut best, t0);
            }
        }
    }
    if best.is_none() {
        let (mut cuts, mut spans) = (Vec::new(), Vec::new());
        for f in s.features() {
            if s.terrain()[f.index].name() != name {
                continue;
            }
            if let Outline::Area(poly) = &f.outline {
                polygon_intervals(poly, a, b, &mut cuts, &mut spans);
                if let Some(&(t0, _)) = spans.first() {
                    keep(&mut best, t0);
                }
            }
        }
    }
    best.map(|t| a.lerp(b, t))
}

/// The sight overlay's answers for `firer` looking at `target` (their indices in `s`), as
/// `engine` measures and reads them; `unit` and `at`: the two as the engine's entities.
pub(crate) fn view(s: &Situation, firer: usize, target: usize, ball: bool, engine: &dyn Engine, unit: Entity, at: Entity) -> SightView {
    let (fu, tu) = (s.unit(firer), s.unit(target));
    let opts = FireOptions { ball, ..FireOptions::new(engine.fire_rules()) };
    let g = fire_geometry(s, firer, target, opts);
    let points = target_points(tu);
    let mut lines = Vec::new();
    for (i, st) in fu.stands.iter().enumerate() {
        let from = st.footprint.centre;
        let bears = g.stands.get(i).is_some_and(|f| f.bears);
        let Some(seen) = g.stands.get(i).and_then(|f| f.sight.as_ref()) else { continue };
        // A clear stand: the very line `sight` chose, and its woods by name (8.7).
        if let (true, Some(to)) = (seen.clear, seen.to) {
            let woods = seen.woods_on_line.iter().flat_map(|w| w.spans.iter().copied()).collect();
            lines.push(StandLine { stand: i, from, to, bears, clear: true, block: None, woods, woods_in: seen.woods.total(), woods_on_line: seen.woods_on_line.clone() });
            continue;
        }
        // Blocked: the line to the nearest point of the target, and what blocks that one line.
        let Some(to) = points.iter().copied().min_by(|a, b| from.distance(*a).total_cmp(&from.distance(*b))) else { continue };
        let dot = Footprint { centre: to, facing: 0.0, frontage: 0.01, depth: 0.01 };
        let one = s.with_stands(target, &[dot], tu.formation);
        let blocked_by = sight(&one, firer, target, SightOptions { ball, ..SightOptions::default() }).get(i).map(|v| v.blocked_by.clone()).unwrap_or_default();
        let block = blocked_by.first().map(|name| (name.clone(), entry(s, name, from, to).unwrap_or(from.lerp(to, 0.5))));
        lines.push(StandLine { stand: i, from, to, bears, clear: false, block, woods: Vec::new(), woods_in: 0.0, woods_on_line: Vec::new() });
    }
    SightView {
        firer: fu.name.clone(),
        target: tu.name.clone(),
        lines,
        readout: engine.sight_readout(unit, at, ball).unwrap_or_default(),
    }
}

/// The readout beside the pointer: one row a question, each with its rule (the engine's).
pub(crate) fn readout(v: &SightView) -> Vec<(Mark, String)> {
    v.readout.rows.iter().map(|r| (r.mark, r.text.clone())).collect()
}

/// The lines, block points and woods stretches, drawn over the troops.
pub(crate) fn scene(v: &SightView) -> Scene {
    let mut out = Scene::default();
    let mut named: Vec<String> = Vec::new();
    // The woods are tagged on the line that decides the visibility roll (`sight::woodiest`),
    // the one the readout's figure is.
    let woodiest = v.lines.iter().filter(|l| l.clear && l.woods_in > EPS).max_by(|a, b| a.woods_in.total_cmp(&b.woods_in)).map(|l| l.stand);
    for l in &v.lines {
        let idle = !l.bears;
        match (&l.block, l.clear) {
            (_, true) => {
                out.over.push(Prim::Line { points: vec![l.from, l.to], colour: colours::SIGHT_CLEAR, width: if idle { 2.0 } else { 3.0 }, dash: idle.then_some(7.0), closed: false, casing: true });
                for &(a, b) in &l.woods {
                    out.over.push(Prim::Line { points: vec![a, b], colour: colours::SIGHT_WOODS, width: 3.0, dash: Some(4.0), closed: false, casing: false });
                }
                if woodiest == Some(l.stand)
                    && let (Some(&(a, b)), Some(text)) = (l.woods.first(), v.readout.woods_tag.clone())
                {
                    let across = (b - a).normalize_or_zero().perp();
                    out.tags.push(Tag::new((a + b) / 2.0, text, colours::WARNING_TAG, colours::SIGHT_WOODS).towards(&[across, -across]));
                }
            }
            (Some((name, at)), false) => {
                let colour = colours::SIGHT_BLOCKED;
                out.over.push(Prim::Line { points: vec![l.from, *at], colour, width: if idle { 2.0 } else { 3.0 }, dash: idle.then_some(7.0), closed: false, casing: true });
                out.over.push(Prim::Line { points: vec![*at, l.to], colour: colour.gamma_multiply(0.85), width: 1.5, dash: Some(3.0), closed: false, casing: false });
                out.over.push(Prim::Badge { at: *at, text: "✖", fill: colours::SIGHT_BLOCKED_TAG, ink: colours::GHOST_BAD_EDGE });
                if !named.contains(name) {
                    named.push(name.clone());
                    let back = (l.from - *at).normalize_or_zero();
                    let across = back.perp();
                    out.tags.push(Tag::new(*at, format!("✖ blocked by {name}"), colours::SIGHT_BLOCKED_TAG, colours::GHOST_BAD_EDGE).bold().towards(&[across, -across, back]));
                }
            }
            (None, false) => {
                out.over.push(Prim::Line { points: vec![l.from, l.to], colour: colours::SIGHT_BLOCKED, width: 1.5, dash: Some(3.0), closed: false, casing: true });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cite::RuleSetId;
    use crate::rules::registry::open;
    use crate::scenario::default_scenario;
    use crate::scenario::spawn::Unit;

    /// A game of the teaching battle's troops, only those named, each at its (front centre,
    /// facing), on a bare table; and the table as the overlay measures it.
    fn placed(units: &[(&str, (f32, f32), f32)]) -> (Box<dyn Engine>, Situation) {
        let mut sc = default_scenario();
        sc.terrain.clear();
        for side in &mut sc.sides {
            for b in &mut side.brigades {
                b.units.retain(|u| units.iter().any(|(n, _, _)| *n == u.name));
                for u in &mut b.units {
                    let &(_, (x, y), facing) = units.iter().find(|(n, _, _)| *n == u.name).unwrap();
                    (u.at, u.facing, u.attached_to) = ([x, y], facing, None);
                }
            }
            side.brigades.retain(|b| !b.units.is_empty());
        }
        let engine = open(RuleSetId::Otp, sc, 1).unwrap();
        let s = Situation::from_world(engine.world());
        (engine, s)
    }

    fn entity(engine: &dyn Engine, name: &str) -> Entity {
        let world = engine.world();
        world.try_query::<(Entity, &Unit)>().unwrap().iter(world).find(|(_, u)| u.name == name).unwrap().0
    }

    /// The overlay's view of `firer` at `target`, through the engine.
    fn seen(engine: &dyn Engine, s: &Situation, firer: &str, target: &str, ball: bool) -> SightView {
        view(s, s.find(firer).unwrap(), s.find(target).unwrap(), ball, engine, entity(engine, firer), entity(engine, target))
    }

    #[test]
    fn a_blocked_line_is_named_where_it_meets_the_blocker() {
        // OTP 8.8: any other unit blocks. A firer facing up the table with its front at y = 10,
        // a wider line with its front at y = 13.375, the target's front at y = 15: every stand's
        // line is red from the blocker's rear edge.
        let (engine, s) = placed(&[("Virginia State Regiment", (20.0, 10.0), 0.0), ("1st Maryland", (20.0, 13.375), 0.0), ("23rd Foot", (20.0, 15.0), 180.0)]);
        let v = seen(engine.as_ref(), &s, "Virginia State Regiment", "23rd Foot", false);
        let rear = 13.375 - s.unit(s.find("1st Maryland").unwrap()).stands[0].footprint.depth;
        assert_eq!(v.lines.len(), s.unit(s.find("Virginia State Regiment").unwrap()).stands.len(), "a line a stand");
        for l in &v.lines {
            assert!(!l.clear && l.bears);
            let (name, at) = l.block.clone().unwrap();
            assert_eq!(name, "1st Maryland");
            assert!((at.y - rear).abs() < 0.01, "the blocker's rear edge {rear}: {at:?}");
        }
        let rows = readout(&v);
        assert!(rows.iter().any(|(m, t)| *m == Mark::No && t.contains("blocked by 1st Maryland (8.8)")), "{rows:?}");
        let sc = scene(&v);
        assert_eq!(sc.tags.iter().filter(|t| t.text.contains("blocked by 1st Maryland")).count(), 1, "named once");
    }

    #[test]
    fn clear_lines_and_the_readout_agree_with_the_shot() {
        // OTP 8.3, 8.11: a target 1.5" beyond the firer's front facing west, its front edge off
        // the firer's flank: close range and enfilade.
        let (engine, s) = placed(&[("Virginia State Regiment", (20.0, 10.0), 0.0), ("Loyalist Militia", (17.5, 14.0), 270.0)]);
        let v = seen(engine.as_ref(), &s, "Virginia State Regiment", "Loyalist Militia", false);
        assert!(!v.lines.is_empty() && v.lines.iter().all(|l| l.clear && l.block.is_none()));
        let rows = readout(&v);
        let has = |m: Mark, s: &str| rows.iter().any(|(k, t)| *k == m && t.contains(s));
        // What enfilade adds is the engine's (its FIRE chart's) for a musket-armed unit.
        let factors = engine.enfilade_factors(entity(engine.as_ref(), "Virginia State Regiment"), false);
        assert_eq!(factors.len(), 2, "small arms and canister; ball");
        let enfilade = format!("enfilade: {} {}, {} {} (8.11)", factors[0].value, factors[0].name, factors[1].value, factors[1].name);
        assert!(has(Mark::Yes, &enfilade) && has(Mark::Yes, "close range") && has(Mark::Yes, "line of sight clear"), "{rows:?}");
        assert!(has(Mark::Yes, "within 6\" musket range (8.3)"), "{rows:?}");
    }

    #[test]
    fn woods_on_the_line_call_for_a_visibility_roll() {
        // OTP 8.7: 1" or more of woods on the line: a roll. The teaching battle's guns on the
        // ridge look at the 23rd Foot across the Wheat Field (crops count as light woods).
        let engine = open(RuleSetId::Otp, default_scenario(), 1).unwrap();
        let s = Situation::from_world(engine.world());
        let v = seen(engine.as_ref(), &s, "Continental Artillery", "23rd Foot", false);
        let rows = readout(&v);
        assert!(rows.iter().any(|(m, t)| *m == Mark::Warn && t.contains("visibility roll needed (8.7)")), "{rows:?}");
        assert!(rows.iter().any(|(m, t)| *m == Mark::Yes && t.contains("medium range 10–18\" (8.4)")), "{rows:?}");
        let l = &v.lines[0];
        assert!(l.clear && l.woods_in >= 1.0 && !l.woods.is_empty());
        let drawn: f32 = l.woods.iter().map(|(a, b)| a.distance(*b)).sum();
        assert!((drawn - l.woods_in).abs() < 0.05, "the drawn woods are the measured woods: {drawn} vs {}", l.woods_in);
        // #13 item 11: one figure and one name everywhere: the readout and the tag on the line
        // give the Wheat Field as tall crops and the woodiest line's inches.
        let woodiest = v.lines.iter().filter(|l| l.clear).map(|l| l.woods_in).fold(0.0, f32::max);
        let label = format!("Wheat Field — tall crops, seen as light woods, {woodiest:.2}\"");
        assert!(rows.iter().any(|(m, t)| *m == Mark::Warn && t.contains(&label)), "{rows:?}");
        let sc = scene(&v);
        assert!(sc.tags.iter().any(|t| t.text.contains(&label)), "the tag names the field");
        assert!(!rows.iter().chain(sc.tags.iter().map(|t| (Mark::Info, t.text.clone())).collect::<Vec<_>>().iter()).any(|(_, t)| t.contains("Light woods")), "no woods named that are not there");
    }

    #[test]
    fn the_readout_and_the_woods_tag_are_the_engines() {
        // The overlay prints the engine's readout as it comes (OTP 8.1–8.11 for the teaching
        // battle's guns at the 23rd Foot), with ball and without, and tags the woods with its words.
        let engine = open(RuleSetId::Otp, default_scenario(), 1).unwrap();
        let s = Situation::from_world(engine.world());
        let (guns, foot) = (entity(engine.as_ref(), "Continental Artillery"), entity(engine.as_ref(), "23rd Foot"));
        for ball in [false, true] {
            let v = seen(engine.as_ref(), &s, "Continental Artillery", "23rd Foot", ball);
            let expected = engine.sight_readout(guns, foot, ball).unwrap();
            assert!(expected.rows.len() >= 4 && expected.rows.iter().all(|r| r.rule.is_some()), "{expected:?}");
            assert_eq!(readout(&v), expected.rows.iter().map(|r| (r.mark, r.text.clone())).collect::<Vec<_>>());
            let tag = expected.woods_tag.unwrap();
            assert_eq!(scene(&v).tags.iter().filter(|t| t.text == tag).count(), 1, "{tag}");
        }
    }
}
