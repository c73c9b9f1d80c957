//! Line-of-sight overlay (L): from the selected firer to the enemy unit under the pointer, one
//! line a firing stand from the stand's centre (8.8), green where clear, red where blocked with
//! the blocker named where it blocks; woods on the line measured (8.7); and the readout of range,
//! arc, enfilade, close range and artillery band.
//!
//! The geometry answers every question (`fire::fire_geometry`, `shot::shot_with`, `sight::sight`);
//! this module only picks which of the lines the rules look along to draw: for each stand the
//! clear line crossing the least woods, or, when none is clear, the shortest.

use bevy::math::Vec2;

use super::scene::{Prim, Scene, Tag, colours};
use crate::rules::engine::Factor;
use crate::scenario::model::{GunSize, Weapon};
use crate::rules::otp::fire::range::{ArtilleryBand, FIRE, artillery_bands, canister_masked_by, fire_mode, measured_inches, small_arms_range};
use crate::rules::otp::fire::shot::{ShotGeometry, shot_with};
use crate::table::arc::FireMode;
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
    pub shot: Result<ShotGeometry, String>,
    pub gun: Option<GunSize>,
    pub weapon: Option<Weapon>,
    pub mode: FireMode,
    pub stands: usize,
    pub masked: Vec<String>,
    pub ball: bool,
    /// What enfilade adds to the firer's fire, as its rule set's chart prints it
    /// (`Engine::enfilade_factors`).
    pub enfilade: Vec<Factor>,
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

/// The sight overlay's answers for `firer` looking at `target`; `enfilade`: what enfilade
/// adds to its fire (`Engine::enfilade_factors`).
pub(crate) fn view(s: &Situation, firer: usize, target: usize, ball: bool, enfilade: Vec<Factor>) -> SightView {
    let (fu, tu) = (s.unit(firer), s.unit(target));
    let opts = FireOptions { ball, ..FireOptions::new(&FIRE) };
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
        shot: shot_with(s, &fu.name, &tu.name, opts),
        gun: fu.gun(),
        weapon: fu.weapon,
        mode: fire_mode(fu),
        stands: fu.stands.len(),
        masked: if fu.gun().is_some() { canister_masked_by(s, firer) } else { Vec::new() },
        ball,
        enfilade,
    }
}

/// How a readout row is marked: ✔ yes, ✖ no, ⚠ a roll to make, · a plain fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    Yes,
    No,
    Warn,
    Info,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Yes => "✔",
            Mark::No => "✖",
            Mark::Warn => "⚠",
            Mark::Info => "•",
        }
    }
}

/// The readout beside the pointer: one row a question, each with its rule.
pub(crate) fn readout(v: &SightView) -> Vec<(Mark, String)> {
    let g = match &v.shot {
        Ok(g) => g,
        Err(e) => return vec![(Mark::Info, e.clone())],
    };
    let mut rows = Vec::new();
    if v.mode == FireMode::None {
        let what = if v.gun.is_some() { "limbered guns" } else { "a march column" };
        rows.push((Mark::No, format!("{what} cannot fire (8.13)")));
    }
    let counts = measured_inches(g.range_in);
    let range = format!("range {:.1}\" (counts as {counts}\")", g.range_in);
    match (v.gun, v.weapon) {
        (Some(gun), _) => {
            let [s, m, l] = artillery_bands(gun);
            match g.artillery_band {
                Some(band) => {
                    let (lo, hi) = match band {
                        ArtilleryBand::Short => (0, s),
                        ArtilleryBand::Medium => (s + 1, m),
                        ArtilleryBand::Long => (m + 1, l),
                    };
                    rows.push((Mark::Yes, format!("{range}: {band} range {lo}–{hi}\" (8.4)")));
                }
                None => rows.push((Mark::No, format!("{range}: beyond long range {l}\" (8.4)"))),
            }
        }
        (None, Some(w)) => {
            let r = small_arms_range(w);
            let mark = if g.in_range { Mark::Yes } else { Mark::No };
            let within = if g.in_range { "within" } else { "beyond" };
            rows.push((mark, format!("{range}: {within} {r}\" {} range (8.3)", w.name())));
        }
        (None, None) => rows.push((Mark::No, format!("{range}: no firearms"))),
    }
    if !g.in_arc {
        rows.push((Mark::No, "not in the firing arc (8.1)".into()));
    } else if g.stands_bearing == 0 {
        rows.push((Mark::No, "in arc, but no stand has it within range (8.1)".into()));
    } else {
        rows.push((Mark::Yes, format!("in arc: {} of {} stands bear, {} figures (8.1)", g.stands_bearing, v.stands, g.figures_bearing)));
    }
    if g.los_clear {
        rows.push((Mark::Yes, "line of sight clear (8.8)".into()));
    } else if g.blocked_by.is_empty() {
        rows.push((Mark::No, "line of sight blocked (8.8)".into()));
    } else {
        rows.push((Mark::No, format!("blocked by {} (8.8)", g.blocked_by.join(", "))));
    }
    let named: Vec<String> = g.woods_on_line.iter().map(|w| w.to_string()).collect();
    if g.woods_in >= 1.0 - EPS {
        rows.push((Mark::Warn, format!("{:.1}\" of woods on the line ({}): visibility roll needed (8.7)", g.woods_in, named.join("; "))));
    } else if g.woods_in > EPS {
        rows.push((Mark::Info, format!("{:.1}\" of woods ({}): under 1\", no visibility roll (8.7)", g.woods_in, named.join("; "))));
    }
    if g.enfilade {
        // The values are the engine's chart's (8.11), so a player's own charts show here too.
        let what: Vec<String> = v.enfilade.iter().map(|f| format!("{} {}", f.value, f.name)).collect();
        rows.push((Mark::Yes, if what.is_empty() { "enfilade (8.11)".to_string() } else { format!("enfilade: {} (8.11)", what.join(", ")) }));
    } else {
        rows.push((Mark::No, "no enfilade: in front of the target's front line (8.11)".into()));
    }
    if v.gun.is_none() && v.weapon.is_some() {
        if g.close_range {
            rows.push((Mark::Yes, "close range: 2\" or less (8.3)".into()));
        } else {
            rows.push((Mark::No, "not close range (over 2\", 8.3)".into()));
        }
    }
    if let (Some(ArtilleryBand::Short), false) = (g.artillery_band, v.masked.is_empty()) {
        rows.push((Mark::No, format!("no canister: {} in the arc at short range (8.4)", v.masked.join(", "))));
    }
    rows
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
                if woodiest == Some(l.stand) && let Some(&(a, b)) = l.woods.first() {
                    let names: Vec<String> = l.woods_on_line.iter().map(|w| w.to_string()).collect();
                    let text = if l.woods_in >= 1.0 - EPS {
                        format!("⚠ {}: visibility roll (8.7)", names.join("; "))
                    } else {
                        format!("{}: under 1\", no roll (8.7)", names.join("; "))
                    };
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
    use crate::scenario::model::Formation;
    use crate::ui::overlays::testing::{table, v as p};

    #[test]
    fn a_blocked_line_is_named_where_it_meets_the_blocker() {
        // OTP 8.8: any other unit blocks. A firer at y = 10, a blocking line across y = 12.6 to
        // 13.4, the target at y = 15: every stand's line is red from the first edge of the blocker.
        let firer = UnitInfo::foot("Firer", 0, 8, Formation::Line, p(20.0, 10.0), 0.0);
        let target = UnitInfo::foot("Target", 1, 8, Formation::Line, p(20.0, 15.0), 180.0);
        let blocker = UnitInfo::foot("Blocker", 0, 24, Formation::Line, p(20.0, 13.375), 0.0);
        let s = table(vec![firer, target, blocker]);
        let v = view(&s, 0, 1, false, Vec::new());
        assert_eq!(v.lines.len(), 2);
        for l in &v.lines {
            assert!(!l.clear && l.bears);
            let (name, at) = l.block.clone().unwrap();
            assert_eq!(name, "Blocker");
            assert!((at.y - 12.625).abs() < 0.01, "the blocker's rear edge: {at:?}");
        }
        let rows = readout(&v);
        assert!(rows.iter().any(|(m, t)| *m == Mark::No && t.contains("blocked by Blocker (8.8)")), "{rows:?}");
        let sc = scene(&v);
        assert_eq!(sc.tags.iter().filter(|t| t.text.contains("blocked by Blocker")).count(), 1, "named once");
    }

    #[test]
    fn clear_lines_and_the_readout_agree_with_the_shot() {
        // OTP 8.3, 8.11: a target 1.5" away facing west, its front edge off the firer's flank:
        // close range and enfilade.
        let firer = UnitInfo::foot("Firer", 0, 8, Formation::Line, p(20.0, 10.0), 0.0);
        let target = UnitInfo::foot("Target", 1, 8, Formation::Line, p(17.5, 14.0), 270.0);
        let s = table(vec![firer, target]);
        // What enfilade adds is the engine's (its FIRE chart's) for a musket-armed unit.
        let engine = crate::rules::engine::open(crate::rules::cite::RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap();
        let world = engine.world();
        let musket = world.try_query::<(bevy::ecs::entity::Entity, &crate::scenario::spawn::Unit)>().unwrap().iter(world).find(|(_, u)| u.name == "1st Maryland").unwrap().0;
        let factors = engine.enfilade_factors(musket, false);
        assert_eq!(factors.len(), 2, "small arms and canister; ball");
        let v = view(&s, 0, 1, false, factors.clone());
        assert!(v.lines.iter().all(|l| l.clear && l.block.is_none()));
        let rows = readout(&v);
        let has = |m: Mark, s: &str| rows.iter().any(|(k, t)| *k == m && t.contains(s));
        let enfilade = format!("enfilade: {} {}, {} {} (8.11)", factors[0].value, factors[0].name, factors[1].value, factors[1].name);
        assert!(has(Mark::Yes, &enfilade) && has(Mark::Yes, "close range") && has(Mark::Yes, "line of sight clear"), "{rows:?}");
        assert!(has(Mark::Yes, "within 6\" musket range (8.3)"), "{rows:?}");
    }

    #[test]
    fn woods_on_the_line_call_for_a_visibility_roll() {
        // OTP 8.7: 1" or more of woods on the line: a roll. The teaching battle's guns on the
        // ridge look at the 23rd Foot across the Wheat Field (crops count as light woods).
        let s = Situation::from_scenario(&crate::scenario::default_scenario());
        let f = s.find("Continental Artillery").unwrap();
        let t = s.find("23rd Foot").unwrap();
        let v = view(&s, f, t, false, Vec::new());
        let rows = readout(&v);
        assert!(rows.iter().any(|(m, t)| *m == Mark::Warn && t.contains("visibility roll needed (8.7)")), "{rows:?}");
        assert!(rows.iter().any(|(m, t)| *m == Mark::Yes && t.contains("medium range 10–18\" (8.4)")), "{rows:?}");
        let l = &v.lines[0];
        assert!(l.clear && l.woods_in >= 1.0 && !l.woods.is_empty());
        let drawn: f32 = l.woods.iter().map(|(a, b)| a.distance(*b)).sum();
        assert!((drawn - l.woods_in).abs() < 0.05, "the drawn woods are the measured woods: {drawn} vs {}", l.woods_in);
        // #13 item 11: one figure and one name everywhere: the readout, the tag on the line and
        // `otp fire`'s geometry give the Wheat Field as tall crops and the same inches.
        let shot = v.shot.as_ref().unwrap();
        let woodiest = v.lines.iter().filter(|l| l.clear).map(|l| l.woods_in).fold(0.0, f32::max);
        assert!((shot.woods_in - woodiest).abs() < 1e-4, "readout {} vs lines {woodiest}", shot.woods_in);
        let label = format!("Wheat Field — tall crops, seen as light woods, {:.2}\"", shot.woods_in);
        assert!(rows.iter().any(|(m, t)| *m == Mark::Warn && t.contains(&label)), "{rows:?}");
        let sc = scene(&v);
        assert!(sc.tags.iter().any(|t| t.text.contains(&label)), "the tag names the field");
        assert!(!rows.iter().chain(sc.tags.iter().map(|t| (Mark::Info, t.text.clone())).collect::<Vec<_>>().iter()).any(|(_, t)| t.contains("Light woods")), "no woods named that are not there");
        let cli = crate::rules::otp::cli::fire_command_text(&crate::scenario::default_scenario(), "Continental Artillery", "23rd Foot", false).unwrap().answer;
        assert!(cli.contains(&label), "{cli}");
    }
}

