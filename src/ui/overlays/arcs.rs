//! Arcs overlay (A): the ground a unit can fire on (8.1), shaded out to its weapon's range (8.3)
//! or, for guns, in the three range bands (8.4); each stand's own arc for a skirmish line (5.3)
//! and a bent line (8.1, 6.4).

use bevy_egui::egui::Color32;

use super::scene::{Prim, Scene, Tag, colours};
use super::shapes::{fan, fan_band, fan_edge};
use crate::rules::engine::{RangeBand, Topic};
use crate::scenario::model::Formation;
use crate::table::arc::{Arc, FireMode};
use crate::table::fire::FireRules;
use crate::table::situation::{Situation, UnitInfo};

/// What the rule set says of a unit's fire, for the overlay: its fire bands, how arcs are
/// measured, a close-range line and notes (`Engine::fire_bands`, `fire_rules`, `close_range`,
/// `arc_notes`).
#[derive(Clone, Copy)]
pub(crate) struct ArcRules<'a> {
    pub bands: &'a [RangeBand],
    pub fire: &'a FireRules,
    pub close: Option<&'a RangeBand>,
    pub notes: &'a [String],
    /// The rule set's words for the tags (`Engine::words`).
    pub words: &'a dyn Fn(Topic) -> Option<String>,
}

/// The arcs a unit fires through, as its rule set measures them: its own, or one a stand.
pub(crate) fn arcs_of(unit: &UnitInfo, rules: &FireRules) -> Vec<Arc> {
    match (rules.mode)(unit) {
        FireMode::Unit => Arc::of_unit(unit).into_iter().collect(),
        FireMode::PerStand => unit.stands.iter().map(|s| Arc::of_stand(&s.footprint)).collect(),
        FireMode::None => Vec::new(),
    }
}

/// The bands drawn for a unit, from its fire bands (`Engine::fire_bands`, nearest first):
/// (from, to, fill, label), each band starting where the last ends (guns: partial inches round
/// up, 8.4). Guns' bands shade from near to far; small arms have one colour.
pub(crate) fn bands(unit: &UnitInfo, fire: &[RangeBand]) -> Vec<(f32, f32, Color32, String)> {
    let mut from = 0.0;
    fire.iter()
        .enumerate()
        .map(|(i, b)| {
            let fill = if unit.gun().is_some() { colours::ARC_FILL[i.min(colours::ARC_FILL.len() - 1)] } else { colours::ARC_SMALL_ARMS };
            let band = (from, b.reach, fill, b.label.clone());
            from = b.reach;
            band
        })
        .collect()
}

/// The arcs overlay for one unit. `main`: the selected unit (labelled in full); otherwise a
/// lighter drawing for the unit under the pointer, to compare. `fire`: its fire bands
/// (`Engine::fire_bands`).
pub(crate) fn scene(s: &Situation, unit: usize, main: bool, rules: ArcRules) -> Scene {
    let mut out = Scene::default();
    let u = s.unit(unit);
    let Some(head) = u.stands.first() else { return out };
    let arcs = arcs_of(u, rules.fire);
    let fire = rules.bands;
    let border = colours::ARC_OUTLINE;
    if arcs.is_empty() {
        if main && let Some(why) = (rules.words)(Topic::CannotFire(u.formation)) {
            out.tags.push(Tag::new(head.footprint.front_centre(), why, colours::ARC_TAG, border).towards(&[head.footprint.forward()]));
        }
        return out;
    }
    let list = bands(u, fire);
    if list.is_empty() {
        return out;
    }
    let fade = |c: Color32| if main { c } else { c.gamma_multiply(0.6) };
    let per_stand = arcs.len() > 1;
    for arc in &arcs {
        for (r0, r1, fill, _) in &list {
            out.under.push(Prim::Fill { points: fan_band(arc.front_left, arc.front_right, arc.facing, *r0, *r1), colour: fade(*fill) });
        }
        let outer = list.last().map(|b| b.1).unwrap_or(0.0);
        out.under.push(Prim::Line {
            points: fan(arc.front_left, arc.front_right, arc.facing, outer),
            colour: fade(border),
            width: if main { 1.5 } else { 1.0 },
            dash: None,
            closed: true,
            casing: false,
        });
        for (r0, ..) in list.iter().skip(1) {
            out.under.push(Prim::Line { points: fan_edge(arc.front_left, arc.front_right, arc.facing, *r0), colour: fade(border), width: 1.0, dash: None, closed: false, casing: false });
        }
        if let (Some(close), true) = (rules.close, main) {
            out.under.push(Prim::Line { points: fan_edge(arc.front_left, arc.front_right, arc.facing, close.reach), colour: border, width: 1.0, dash: Some(4.0), closed: false, casing: false });
        }
    }
    // Labels on the middle arc's centre line: a ladder of bands, nearest first.
    let arc = arcs[arcs.len() / 2];
    let mid = (arc.front_left + arc.front_right) / 2.0;
    let fwd = crate::table::footprint::bearing_vector(arc.facing);
    let side = crate::table::footprint::bearing_vector(arc.facing + 90.0);
    if main {
        for (r0, r1, _, text) in &list {
            let at = if u.gun().is_some() { mid + fwd * ((r0 + r1) / 2.0) } else { mid + fwd * *r1 };
            out.tags.push(Tag::new(at, text.clone(), colours::ARC_TAG, border).bold().towards(&[fwd, -fwd, side, -side]));
        }
        if let Some(close) = rules.close {
            out.tags.push(Tag::new(mid + fwd * close.reach, close.label.clone(), colours::ARC_TAG, border).towards(&[side, -side, fwd]));
        }
        let why = if u.formation == Formation::Skirmish || u.is_bent() { (rules.words)(Topic::OwnArcs { skirmish: u.formation == Formation::Skirmish }) } else { None };
        if let (true, Some(why)) = (per_stand, why) {
            out.tags.push(Tag::new(arc.front_left, why, colours::ARC_TAG, border).towards(&[-fwd, -side]));
        }
        for note in rules.notes {
            out.tags.push(Tag::new(mid, note.clone(), colours::ARC_TAG, border).towards(&[-fwd, side]));
        }
    } else {
        let (_, r1, _, text) = &list[list.len() - 1];
        out.tags.push(Tag::new(mid + fwd * *r1, format!("{}: {text}", u.name), colours::ARC_TAG, border).towards(&[fwd, side]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cite::RuleSetId;
    use crate::scenario::model::{Arm, GunSize, UnitType, Weapon};
    use crate::ui::overlays::testing::{table, v};

    /// The fire bands the engine gives a unit of the teaching battle.
    fn fire_bands(unit: &str) -> Vec<RangeBand> {
        let engine = crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap();
        let world = engine.world();
        let e = world.try_query::<(bevy::ecs::entity::Entity, &crate::scenario::spawn::Unit)>().unwrap().iter(world).find(|(_, u)| u.name == unit).unwrap().0;
        engine.fire_bands(e)
    }

    #[test]
    fn artillery_bands_meet_where_the_rules_change_band() {
        // OTP 8.4, medium guns: short 0-9", medium 10-18", long 19-24"; 9 1/4" is medium range.
        let guns = UnitInfo::battery("Guns", 0, GunSize::Medium, 2, Formation::Unlimbered, v(20.0, 10.0), 0.0);
        let b = bands(&guns, &fire_bands("Continental Artillery"));
        let edges: Vec<(f32, f32)> = b.iter().map(|x| (x.0, x.1)).collect();
        assert_eq!(edges, vec![(0.0, 9.0), (9.0, 18.0), (18.0, 24.0)]);
        assert_eq!(b.iter().map(|x| x.3.as_str()).collect::<Vec<_>>(), ["short 0–9\"", "medium 10–18\"", "long 19–24\""]);
        assert_eq!(b.iter().map(|x| x.2).collect::<Vec<_>>(), colours::ARC_FILL.to_vec(), "near to far");
    }

    /// The rule set's fire rules and a unit's close range, as the engine gives them.
    fn rules_of(unit: &str) -> (&'static FireRules, Option<RangeBand>) {
        let engine = crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap();
        let world = engine.world();
        let e = world.try_query::<(bevy::ecs::entity::Entity, &crate::scenario::spawn::Unit)>().unwrap().iter(world).find(|(_, u)| u.name == unit).unwrap().0;
        (engine.fire_rules(), engine.close_range(e))
    }

    #[test]
    fn skirmishers_get_an_arc_a_stand_and_columns_none() {
        // OTP 5.3, 8.1: each skirmisher stand its own arc; 8.13: a march column none.
        let (fire, close) = rules_of("1st Maryland");
        let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, Some(Weapon::Rifle), 6, Formation::Skirmish, v(20.0, 10.0), 0.0);
        assert_eq!(arcs_of(&lights, fire).len(), lights.stands.len());
        assert_eq!(bands(&lights, &fire_bands("Virginia Riflemen"))[0].1, 9.0, "rifles 9\" (8.3)");
        let musket = fire_bands("1st Maryland");
        let engine = crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap();
        let words = |t| engine.words(t);
        let rules = ArcRules { bands: &musket, fire, close: close.as_ref(), notes: &[], words: &words };
        let column = UnitInfo::foot("Column", 0, 16, Formation::Column, v(20.0, 10.0), 0.0);
        assert!(arcs_of(&column, fire).is_empty());
        let s = table(vec![column]);
        let sc = scene(&s, 0, true, rules);
        assert!(sc.under.is_empty() && sc.tags[0].text.contains("8.13"));
        let line = UnitInfo::foot("Line", 0, 16, Formation::Line, v(20.0, 10.0), 0.0);
        let s = table(vec![line]);
        let sc = scene(&s, 0, true, rules);
        assert!(sc.tags.iter().any(|t| t.text == "6\" musket"));
        assert!(sc.tags.iter().any(|t| t.text == "close ≤ 2\" (8.3)"), "OTP 8.3: the engine's close range is drawn");
        assert!(scene(&s, 0, true, ArcRules { bands: &[], ..rules }).under.is_empty(), "no fire bands: nothing shaded");
    }
}
