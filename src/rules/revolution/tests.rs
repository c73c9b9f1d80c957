//! *Revolution*, rule by rule (each test cites its SG rule), on a small fixture and on every AWI
//! scenario: the tosses and combat rolls against a direct count of the die's faces, the morale
//! ladder, the leader's re-roll, rallies, saves, replay and undo, and invariants over seeded
//! automatic games.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{ACCEPT, Attack, Category, Done, Game, SgAction, Step};
use super::rates::Rates;
use super::save::Save;
use crate::rules::action::Action;
use crate::rules::dice::{Dice, DiceKind};
use crate::rules::engine::{Engine, Preview};
use crate::rules::report::{Refusal, Report};
use crate::scenario::model::{Formation, RevolutionKind, Scenario};
use crate::scenario::spawn::{self, Commander};
use crate::table::movement::{End, MoveStep};

/// Americans listed first, British second: SG9 still has the British begin.
const FIXTURE: &str = r#"(
    name: "Revolution proving ground",
    rules: Revolution,
    table: (width: 48.0, depth: 60.0),
    sides: [
        (
            name: "Americans",
            brigades: [(
                name: "Blue", chit: 1,
                commander: (name: "Col. Blue", kind: Continental, at: Some((4.0, 14.0))),
                units: [
                    (name: "Continentals", type: Line, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (20.0, 20.0), facing: 0.0),
                    (name: "Militia", type: Militia, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (30.0, 20.0), facing: 0.0),
                    (name: "Riflemen", type: Militia, arm: Infantry, weapon: Some(Rifle), figures: 8, formation: Line, at: (40.0, 20.0), facing: 0.0),
                    (name: "Guns", type: Line, arm: Artillery(gun: Light, galloper: false), figures: 2, formation: Unlimbered, at: (8.0, 20.0), facing: 0.0),
                ],
            )],
        ),
        (
            name: "British",
            brigades: [(
                name: "Red", chit: 2,
                commander: (name: "Col. Red", kind: British, at: Some((44.0, 50.0))),
                units: [
                    (name: "Guards", type: Elite, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (20.0, 34.0), facing: 180.0),
                    (name: "Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Column, at: (30.0, 40.0), facing: 180.0),
                    (name: "Dragoons", type: Line, arm: Cavalry, weapon: Some(Carbine), figures: 6, figures_per_stand: Some(2), formation: Line, at: (40.0, 30.0), facing: 180.0),
                    (name: "Royal Artillery", type: Line, arm: Artillery(gun: Light, galloper: false), figures: 2, formation: Limbered, at: (8.0, 40.0), facing: 180.0),
                ],
            )],
        ),
    ],
    turn_limit: Some(4),
)"#;

fn scenario() -> Scenario {
    crate::scenario::parse(FIXTURE, "fixture").unwrap_or_else(|e| panic!("{e}"))
}

fn game_with(seed: u64, edit: impl FnOnce(&mut Scenario)) -> Game {
    let mut s = scenario();
    edit(&mut s);
    assert!(crate::scenario::validate::validate(&s).is_empty());
    Game::new(s, seed)
}

fn game() -> Game {
    game_with(1, |_| {})
}

fn put(s: &mut Scenario, name: &str, at: [f32; 2], facing: f32) {
    let u = s.sides.iter_mut().flat_map(|s| &mut s.brigades).flat_map(|b| &mut b.units).find(|u| u.name == name).unwrap();
    u.at = at;
    u.facing = facing;
}

/// The citation that refused it ("SG12").
fn refused<T: std::fmt::Debug>(r: Result<T, Refusal>) -> String {
    r.expect_err("refused").cite().to_string()
}

fn ok(g: &mut Game, a: Action) -> Report {
    assert_eq!(g.check(&a), Ok(()), "{a}");
    g.apply(a.clone()).unwrap_or_else(|r| panic!("{a}: {r}"))
}

fn e(g: &Game, name: &str) -> Entity {
    g.find(name).unwrap()
}

/// The first seed whose first d6 shows `face`.
fn seed_with_first(face: i32) -> u64 {
    (0..).find(|&s| Dice::new(s).roll(DiceKind::D6).total == face).unwrap()
}

/// Every face of a d6 that fails (`fails_at_most` or less after `modifier`), counted.
fn counted_fail(fails_at_most: i32, modifier: i32) -> f64 {
    (1..=6).filter(|f| f + modifier <= fails_at_most).count() as f64 / 6.0
}

fn odds(p: &Preview) -> Vec<f64> {
    p.blocks.iter().flat_map(|b| b.odds.iter().map(|o| o.chance)).collect()
}

/// Goes on to the combat of `c` (or the activation's end) for the side whose turn it is.
fn to_step(g: &mut Game, step: Step) {
    while g.step() != step {
        ok(g, Action::Next);
    }
}

fn withdraw(unit: &str, inches: f32) -> Action {
    Action::Revolution(SgAction::Withdraw { unit: unit.into(), inches })
}

// ---- the numbers ----

// SG16: the rates are data; the lost ones say why they are what they are.
#[test]
fn rates_are_data_each_with_its_source_and_bad_rates_are_refused_at_their_place() {
    let r = Rates::embedded();
    assert_eq!(r.moves.foot_deployed.get(), 8.0);
    assert!(r.moves.foot_deployed.source.is_text(), "SG16: \"deployed infantry & artillery = 8\\\"\" survives");
    for lost in [&r.moves.foot_column, &r.moves.dragoons_column, &r.moves.dragoons_deployed, &r.moves.guns_limbered, &r.moves.leader] {
        assert!(lost.source.is_reconstructed(), "SG16: the other rates are lost: {lost:?}");
        assert!(lost.cited().starts_with("reconstructed: SG16"), "{}", lost.cited());
    }
    assert_eq!((r.ranges.artillery.get(), r.ranges.rifles.get(), r.ranges.musketry.get()), (36.0, 24.0, 16.0), "SG21");
    assert_eq!(r.tosses.fails_at_most.get(), 2, "SG14");
    assert!(r.sources().iter().all(|(_, _, s)| s.is_text() || matches!(s, crate::rules::cite::Source::Reconstructed { why } if !why.is_empty())));
    let text = include_str!("../../../assets/rules/revolution/rates.ron");
    let broken = text.replacen("foot_deployed: (value: 8.0", "foot_deployed: (value: 8.0, extra: 1", 1);
    let err = Rates::parse(&broken, "rates.ron").unwrap_err();
    assert!(err.starts_with("rates.ron:"), "located: {err}");
    assert!(err.split(':').nth(1).is_some_and(|l| l.parse::<u32>().is_ok()), "with a line: {err}");
    let silly = text.replacen("fails_at_most: (value: 2", "fails_at_most: (value: 9", 1);
    assert!(Rates::parse(&silly, "rates.ron").unwrap_err().contains("tosses.fails_at_most: 9 is not a face of a d6"));
}

// ---- units and formations (SG1–SG8) ----

// SG1, SG2, SG3, SG4, SG5: three stands of two figures (a gun one stand); the elite in reinforced line or
// wedge; militia always disordered with gaps between its stands; guns as the scenario has them.
#[test]
fn units_are_three_stands_of_two_in_their_revolution_formations() {
    let g = game();
    let stands = |n: &str| g.unit(e(&g, n)).unwrap().stands.len();
    for n in ["Continentals", "Militia", "Riflemen", "Guards", "Foot", "Dragoons"] {
        assert_eq!(stands(n), 3, "SG1, SG2: {n}");
        assert_eq!(g.unit(e(&g, n)).unwrap().figures, 6, "{n}");
    }
    assert_eq!(stands("Guns"), 1, "SG2: one gun stand");
    let f = |n: &str| g.unit(e(&g, n)).unwrap().formation;
    assert_eq!(f("Guards"), Formation::ReinforcedLine, "SG4: the elite's line");
    assert_eq!(f("Foot"), Formation::Column);
    assert_eq!((f("Guns"), f("Royal Artillery")), (Formation::Unlimbered, Formation::Limbered), "SG3");
    assert!(g.sg(e(&g, "Militia")).unwrap().disordered, "SG5");
    let gap = |n: &str| {
        let fp = spawn::unit_footprints(&g.world, g.unit(e(&g, n)).unwrap());
        fp[0].distance(&fp[1])
    };
    assert!((0.5..=1.0).contains(&gap("Militia")), "SG5: ½–1\" between stands, got {}", gap("Militia"));
    assert!(gap("Continentals") < 0.01, "formed stands touch");
    assert_eq!(g.sg(e(&g, "Riflemen")).unwrap().kind, RevolutionKind::Rifles);
    assert_eq!(g.sg(e(&g, "Dragoons")).unwrap().kind, RevolutionKind::Dragoons);
}

// SG1, SG8: every AWI scenario opens under these rules; Cowpens has five leaders on a side
// (SG8's "1 to 3" is a warning, not a bar).
#[test]
fn every_awi_scenario_opens_and_its_units_are_re_laid() {
    for file in ["cowpens", "brandywine", "camden", "germantown", "guilford", "monmouth", "princeton", "teaching"] {
        let s = crate::scenario::load(std::path::Path::new(&format!("scenarios/{file}.ron"))).unwrap_or_else(|e| panic!("{e}"));
        let game = crate::rules::registry::open(crate::rules::cite::RuleSetId::Revolution, s, 1).unwrap();
        let g = game.as_any().downcast_ref::<Game>().unwrap();
        assert!(g.live_units().count() > 3, "{file}");
        for (u, unit) in g.live_units() {
            let n = if g.sg(u).unwrap().kind == RevolutionKind::Artillery { 1 } else { 3 };
            assert_eq!(unit.stands.len(), n, "{file}: {}", unit.name);
        }
        assert!(g.sequence().headline.contains("British"), "SG9: the British begin at {file}: {}", g.sequence().headline);
    }
}

// ---- the sequence (SG9, SG10, SG21, SG36) ----

// SG9, SG10, SG21: the British activate and fight their four combats, then the Rebels.
#[test]
fn british_take_the_first_player_turn_then_the_rebels() {
    let mut g = game();
    assert_eq!(g.side_name(g.phasing()), "British", "SG9");
    assert_eq!(g.step(), Step::Activation);
    let mut steps = vec![g.step()];
    for _ in 0..5 {
        ok(&mut g, Action::Next);
        steps.push(g.step());
    }
    assert_eq!(steps, vec![Step::Activation, Step::Combat(Category::Artillery), Step::Combat(Category::Rifles), Step::Combat(Category::Musketry), Step::Combat(Category::Melee), Step::Activation], "SG10, SG21");
    assert_eq!(g.side_name(g.phasing()), "Americans");
    assert_eq!(refused(g.check_move("Guards", &[MoveStep::Forward(1.0)])), "SG9", "not the British player-turn now");
}

// ---- movement (SG11–SG16) ----

// SG16: the normal move by kind and formation.
#[test]
fn each_unit_moves_at_its_rate() {
    let g = game();
    let a = |n: &str| g.allowance(e(&g, n)).unwrap().0;
    assert_eq!((a("Guards"), a("Foot"), a("Dragoons"), a("Royal Artillery"), a("Guns")), (8.0, 12.0, 12.0, 12.0, 8.0));
}

// SG11, SG12: a column manoeuvres freely; a line pivots only first, then goes straight ahead
// or to a flank, never along a path nor about.
#[test]
fn a_line_pivots_then_goes_straight_a_column_manoeuvres_freely() {
    let g = game();
    assert!(g.check_move("Foot", &[MoveStep::Path(vec![Vec2::new(33.0, 36.0)])]).is_ok(), "SG11");
    assert!(g.check_move("Foot", &[MoveStep::Forward(2.0), MoveStep::Wheel { pivot: End::Left, angle: 30.0 }, MoveStep::Forward(2.0)]).is_ok(), "SG11");
    assert_eq!(refused(g.check_move("Guards", &[MoveStep::Path(vec![Vec2::new(20.0, 30.0)])])), "SG12");
    assert_eq!(refused(g.check_move("Guards", &[MoveStep::Forward(1.0), MoveStep::Wheel { pivot: End::Left, angle: 20.0 }])), "SG12");
    assert_eq!(refused(g.check_move("Guards", &[MoveStep::AboutFace])), "SG12");
    assert!(g.check_move("Guards", &[MoveStep::Wheel { pivot: End::Left, angle: 20.0 }, MoveStep::Forward(3.0), MoveStep::SideStep(1.0)]).is_ok(), "SG12");
    assert_eq!(refused(g.check_move("Guards", &[MoveStep::Forward(9.0)])), "SG16", "8\" a line");
    assert_eq!(refused(g.check_move("Foot", &[MoveStep::ChangeFormation(Formation::Line)])), "SG17");
}

// SG13: a line withdraws straight back at 2/3 of its move, without a toss out of melee.
#[test]
fn a_line_withdraws_straight_back_at_two_thirds() {
    let mut g = game();
    assert_eq!(refused(g.check_withdraw("Guards", 6.0)), "SG13", "2/3 of 8\" is 5.33\"");
    let before = spawn::unit_footprints(&g.world, g.unit(e(&g, "Guards")).unwrap());
    let r = ok(&mut g, withdraw("Guards", 5.0));
    assert!(r.dice.is_empty(), "SG13: no toss out of a melee");
    let after = spawn::unit_footprints(&g.world, g.unit(e(&g, "Guards")).unwrap());
    for (a, b) in before.iter().zip(&after) {
        assert!((b.centre - a.centre - Vec2::new(0.0, 5.0)).length() < 1e-3, "straight back (the Guards face down the table)");
        assert_eq!(a.facing, b.facing);
    }
    assert_eq!(g.sg(e(&g, "Guards")).unwrap().done, Done::Withdrew);
    assert_eq!(refused(g.check_move("Guards", &[MoveStep::Forward(1.0)])), "SG16", "one action a player-turn");
}

// SG14, SG15: crossing an obstacle needs a toss; 1–2 no movement, 3–6 the move.
#[test]
fn crossing_an_obstacle_is_a_toss() {
    let fence = |s: &mut Scenario| {
        s.terrain.push(crate::scenario::model::Terrain::Obstacle { name: "Rail fence".into(), kind: crate::scenario::model::ObstacleKind::Fence, path: vec![[24.0, 37.0], [36.0, 37.0]], impassable_to_artillery: false });
    };
    let steps = vec![MoveStep::Forward(6.0)];
    for face in 1..=6 {
        let mut g = game_with(seed_with_first(face), fence);
        let before = spawn::unit_footprints(&g.world, g.unit(e(&g, "Foot")).unwrap());
        let p = g.preview(&Action::Move { unit: "Foot".into(), steps: steps.clone() }).unwrap().expect("a toss to preview");
        assert_eq!(odds(&p), vec![1.0 - counted_fail(2, 0), counted_fail(2, 0)], "SG14: 4 faces of 6 succeed");
        let r = ok(&mut g, Action::Move { unit: "Foot".into(), steps: steps.clone() });
        assert_eq!(r.dice[0].roll.total, face);
        let after = spawn::unit_footprints(&g.world, g.unit(e(&g, "Foot")).unwrap());
        assert_eq!(before == after, face <= 2, "SG14: face {face}");
    }
    // Without the fence, no toss.
    let mut g = game();
    assert!(ok(&mut g, Action::Move { unit: "Foot".into(), steps }).dice.is_empty());
}

// SG33: a unit that moves off the table is lost.
#[test]
fn a_unit_that_leaves_the_table_is_lost() {
    let mut g = game_with(1, |s| put(s, "Foot", [30.0, 6.0], 180.0));
    ok(&mut g, Action::Move { unit: "Foot".into(), steps: vec![MoveStep::Forward(10.0)] });
    assert_eq!(refused(g.find("Foot")), "SG33");
    assert!(g.lost.iter().any(|l| l.name == "Foot" && l.why.contains("SG33")));
}

// ---- actions (SG17–SG20) ----

// SG17, SG18: the toss to change formation: +1 column, +2 wedge, −1 disordered; failure is no
// movement, success forms and still moves; exact odds against a count.
#[test]
fn changing_formation_is_a_toss_with_its_modifiers() {
    let g = game();
    let modifiers = |n: &str, f| g.check_formation(n, f).unwrap().modifiers.iter().map(|m| m.2).sum::<i32>();
    assert_eq!(modifiers("Foot", Formation::Line), 1, "SG18: column +1");
    assert_eq!(modifiers("Guards", Formation::Wedge), 1, "SG18: reinforced line +1");
    assert_eq!(refused(g.check_formation("Guards", Formation::Column)), "SG17", "the elite's column is the wedge");
    for m in -4..=4 {
        assert!((Game::fail_chance(2, m) - counted_fail(2, m)).abs() < 1e-12, "modifier {m}");
    }
    let p = g.preview(&Action::ChangeFormation { unit: "Foot".into(), formation: Formation::Line }).unwrap().unwrap();
    assert_eq!(odds(&p), vec![1.0 - counted_fail(2, 1), counted_fail(2, 1)]);
    // A 1 + 1 = 2 fails; a 2 + 1 = 3 forms.
    let mut g = game_with(seed_with_first(1), |_| {});
    ok(&mut g, Action::ChangeFormation { unit: "Foot".into(), formation: Formation::Line });
    assert_eq!(g.unit(e(&g, "Foot")).unwrap().formation, Formation::Column);
    assert_eq!(refused(g.check_move("Foot", &[MoveStep::Forward(1.0)])), "SG16", "SG17: failure is no movement");
    let mut g = game_with(seed_with_first(2), |_| {});
    ok(&mut g, Action::ChangeFormation { unit: "Foot".into(), formation: Formation::Line });
    assert_eq!(g.unit(e(&g, "Foot")).unwrap().formation, Formation::Line);
    assert!(g.check_move("Foot", &[MoveStep::Forward(8.0)]).is_ok(), "SG17: success is move at normal speed");
    assert_eq!(refused(g.check_move("Foot", &[MoveStep::Forward(8.5)])), "SG16", "a line's 8\" now");
}

// SG6, SG17, SG19, SG34: only deployed units charge, within their normal move; success is
// contact and the unit attacks in the melee combat; the melee lasts.
#[test]
fn a_charge_is_a_toss_then_contact_and_the_melee_lasts() {
    let close = |s: &mut Scenario| put(s, "Dragoons", [40.0, 28.0], 180.0);
    let g = game_with(1, close);
    assert_eq!(refused(g.check_charge("Foot", "Militia")), "SG6", "a column does not charge");
    assert_eq!(refused(g.check_charge("Guards", "Militia")), "SG19", "out of reach");
    assert!(g.check_charge("Dragoons", "Riflemen").is_ok());
    let mut g = game_with(seed_with_first(4), close);
    let r = ok(&mut g, Action::Charge { unit: "Dragoons".into(), target: "Riflemen".into() });
    assert!(r.outcome.contains("in contact"), "{}", r.outcome);
    let s = g.situation();
    assert_eq!(g.in_melee_with(&s, e(&g, "Dragoons")), vec![e(&g, "Riflemen")], "SG19: contact");
    // SG23: the target's toss in the melee: charged −1, foot against dragoons −1.
    let toss = g.morale_toss(e(&g, "Riflemen"), Category::Melee, None);
    let names: Vec<&str> = toss.modifiers.iter().map(|m| m.1.as_str()).collect();
    assert_eq!(names, vec!["charged (first round)", "in melee with dragoons"]);
    assert_eq!(toss.total(), -2);
    // A failed charge is no movement.
    let mut g = game_with(seed_with_first(2), close);
    let before = spawn::unit_footprints(&g.world, g.unit(e(&g, "Dragoons")).unwrap());
    ok(&mut g, Action::Charge { unit: "Dragoons".into(), target: "Riflemen".into() });
    assert_eq!(before, spawn::unit_footprints(&g.world, g.unit(e(&g, "Dragoons")).unwrap()), "SG17");
}

// SG34, SG17, SG20: units in contact stay in melee: they may not move or fire, they charge
// again (no move) or withdraw after a toss.
#[test]
fn in_melee_a_unit_fights_on_or_withdraws_after_a_toss() {
    let mut g = game_with(seed_with_first(4), |s| put(s, "Dragoons", [40.0, 28.0], 180.0));
    ok(&mut g, Action::Charge { unit: "Dragoons".into(), target: "Riflemen".into() });
    // Through the British combats to the Americans' activation, then to the British again.
    to_step(&mut g, Step::Combat(Category::Melee));
    ok(&mut g, Action::Next);
    while g.pending.is_some() || g.side_name(g.phasing()) != "British" || g.step() != Step::Activation {
        if let Some(p) = &g.pending {
            let a = Action::Answer { prompt: p.id, option: ACCEPT };
            ok(&mut g, a);
        } else {
            ok(&mut g, Action::Next);
        }
    }
    if g.find("Riflemen").is_err() || g.sg(e(&g, "Riflemen")).unwrap().routing {
        return; // the melee ended with the riflemen's rout: nothing more to see here
    }
    assert_eq!(refused(g.check_move("Dragoons", &[MoveStep::Forward(1.0)])), "SG34");
    let again = g.check_charge("Dragoons", "Riflemen").unwrap();
    assert!(again.path.is_none(), "SG34: the melee goes on without a move");
    let (toss, melee) = g.check_withdraw("Dragoons", 4.0).unwrap();
    assert!(melee, "SG20: out of a melee");
    assert!(toss.placed.is_some());
    let p = g.preview(&withdraw("Dragoons", 4.0)).unwrap().expect("a toss");
    assert_eq!(odds(&p), vec![1.0 - counted_fail(2, 0), counted_fail(2, 0)], "SG17");
}

// ---- combat (SG21–SG26) ----

// SG21, SG6, SG7, SG24, SG25: who fires, in which step, at what reach (SG24: the 45° arc).
#[test]
fn each_category_fires_in_its_own_step_and_reach() {
    let mut g = game();
    assert_eq!(refused(g.check_fire("Guards", "Continentals")), "SG10", "fire comes after the activation");
    ok(&mut g, Action::Next);
    assert_eq!(refused(g.check_fire("Guards", "Continentals")), "SG21", "musketry waits for its step");
    assert_eq!(refused(g.check_fire("Dragoons", "Riflemen")), "SG25", "dragoons do not fire");
    assert_eq!(refused(g.check_fire("Royal Artillery", "Guns")), "SG6", "limbered guns do not fire");
    to_step(&mut g, Step::Combat(Category::Musketry));
    assert_eq!(refused(g.check_fire("Foot", "Militia")), "SG6", "a column does not fire");
    assert!(g.check_fire("Guards", "Continentals").is_ok(), "14\" apart, within 16\"");
    assert_eq!(refused(g.check_fire("Guards", "Riflemen")), "SG24", "outside the arc");
    let far = game_with(1, |s| put(s, "Guards", [20.0, 38.0], 180.0));
    let mut far = far;
    to_step(&mut far, Step::Combat(Category::Musketry));
    assert_eq!(refused(far.check_fire("Guards", "Continentals")), "SG21", "18\" is beyond musketry");
    // SG7: guns that moved do not fire.
    let mut g = game_with(1, |s| {
        put(s, "Guns", [8.0, 20.0], 0.0);
        put(s, "Royal Artillery", [8.0, 40.0], 180.0);
    });
    ok(&mut g, Action::Next);
    ok(&mut g, Action::Next);
    ok(&mut g, Action::Next);
    ok(&mut g, Action::Next);
    ok(&mut g, Action::Next); // the Americans' activation
    ok(&mut g, Action::Move { unit: "Guns".into(), steps: vec![MoveStep::Forward(1.0)] });
    ok(&mut g, Action::Next);
    assert_eq!(refused(g.check_fire("Guns", "Royal Artillery")), "SG7");
}

// SG22, SG23: the attackers on a target are counted (−1 each over one); the target's toss and
// its exact odds against a count of the faces.
#[test]
fn attackers_are_counted_and_the_odds_are_exact() {
    let mut g = game_with(1, |s| {
        put(s, "Foot", [30.0, 34.0], 180.0);
        s.sides[1].brigades[0].units[1].formation = Formation::Line;
    });
    to_step(&mut g, Step::Combat(Category::Musketry));
    let first = g.preview(&Action::Fire { unit: "Guards".into(), target: "Continentals".into() }).unwrap().unwrap();
    assert_eq!(odds(&first), vec![1.0 - counted_fail(2, 0), counted_fail(2, 0)], "SG22: one attacker, 2 or less fails");
    ok(&mut g, Action::Fire { unit: "Guards".into(), target: "Continentals".into() });
    let second = g.preview(&Action::Fire { unit: "Foot".into(), target: "Continentals".into() }).unwrap().unwrap();
    assert_eq!(second.blocks[0].factors.iter().map(|f| f.value.as_str()).collect::<Vec<_>>(), vec!["-1"], "SG23: one attacker over one");
    assert_eq!(odds(&second), vec![1.0 - counted_fail(2, -1), counted_fail(2, -1)]);
    ok(&mut g, Action::Fire { unit: "Foot".into(), target: "Continentals".into() });
    assert_eq!(refused(g.check_fire("Foot", "Continentals")), "SG22", "one attack a unit");
    let r = ok(&mut g, Action::Next);
    let die = r.dice.iter().find(|d| d.rule == "22").expect("the target tossed");
    let fails = die.roll.total - 1 <= 2;
    assert_eq!(r.modifiers.iter().map(|m| m.value).sum::<i32>(), -1);
    let ladder = g.sg(e(&g, "Continentals")).unwrap();
    assert_eq!(ladder.disordered, fails, "SG28: a formed line failing falls into disordered line (no leader near)");
}

// SG35: a leader within 8" may re-roll; the odds of the re-roll against a count of the 36
// outcomes of two tosses; a failed re-roll loses him too.
#[test]
fn a_leader_near_may_re_roll_and_is_lost_if_it_fails() {
    // Col. Blue stands behind the Continentals; two British attacks make a failure likely.
    for seed in 0..40 {
        let mut g = game_with(seed, |s| {
            s.sides[0].brigades[0].commander.at = Some([20.0, 17.0]);
        });
        to_step(&mut g, Step::Combat(Category::Musketry));
        ok(&mut g, Action::Fire { unit: "Guards".into(), target: "Continentals".into() });
        let p = g.preview(&Action::Fire { unit: "Guards".into(), target: "Continentals".into() });
        assert!(p.is_err(), "the preview refuses what the check refuses");
        ok(&mut g, Action::Next);
        let Some(pending) = g.pending.clone() else { continue };
        let (fail, m) = (counted_fail(2, pending.modifier), pending.modifier);
        let both: f64 = (1..=6).flat_map(|a| (1..=6).map(move |b| (a, b))).filter(|&(a, b)| a + m <= 2 && b + m <= 2).count() as f64 / 36.0;
        assert!((fail * fail - both).abs() < 1e-12);
        assert_eq!(refused(g.check(&Action::Next)), "SG35", "nothing else while the question is open");
        let reroll = Action::Answer { prompt: pending.id, option: 1 };
        let preview = g.preview(&reroll).unwrap().unwrap();
        assert_eq!(odds(&preview), vec![1.0 - fail, fail]);
        let r = ok(&mut g, reroll);
        let die = r.dice.iter().find(|d| d.rule == "35").unwrap();
        let lost = die.roll.total + m <= 2;
        assert_eq!(g.find_leader("Col. Blue").is_err(), lost, "SG35");
        assert_eq!(g.sg(e(&g, "Continentals")).unwrap().disordered, lost, "SG35: the unit fails with him");
        if lost {
            assert_eq!(refused(g.find_leader("Col. Blue")), "SG35");
            return;
        }
    }
    panic!("no seed in 0..40 lost a leader: the test proves nothing");
}

// SG26, SG27, SG28, SG29, SG30, SG32: the morale ladder, rung by rung.
#[test]
fn the_morale_ladder_strips_stands_and_formations() {
    let mut g = game();
    let mut r = Report::new(super::game::SG, 1, Action::Next, "test");
    let guards = e(&g, "Guards");
    g.fail(&mut r, guards, Category::Musketry);
    assert_eq!((g.unit(guards).unwrap().stands.len(), g.unit(guards).unwrap().formation), (2, Formation::Line), "SG28: loses the rear stand, a formed line");
    assert_eq!(g.unit(guards).unwrap().figures, 4);
    g.fail(&mut r, guards, Category::Musketry);
    assert!(g.sg(guards).unwrap().disordered, "SG28: disordered line");
    g.fail(&mut r, guards, Category::Musketry);
    assert!(g.sg(guards).unwrap().routing, "SG28: a disordered line routs");
    let facing = spawn::unit_footprints(&g.world, g.unit(guards).unwrap())[0].facing;
    assert!((facing - 0.0).abs() < 1e-3 || (facing - 360.0).abs() < 1e-3, "SG28: backs to the enemy, got {facing}");
    // SG27: the wedge loses a stand and is a 2-stand close column.
    let mut g = game_with(1, |s| s.sides[1].brigades[0].units[0].formation = Formation::Column);
    let guards = e(&g, "Guards");
    assert_eq!(g.unit(guards).unwrap().formation, Formation::Wedge);
    g.fail(&mut r, guards, Category::Musketry);
    assert_eq!((g.unit(guards).unwrap().stands.len(), g.unit(guards).unwrap().formation), (2, Formation::Column), "SG27");
    assert!(!g.sg(guards).unwrap().disordered);
    g.fail(&mut r, guards, Category::Musketry);
    assert!(g.sg(guards).unwrap().disordered, "SG28: disordered column");
    g.fail(&mut r, guards, Category::Musketry);
    assert!(g.sg(guards).unwrap().routing, "SG29: a disordered column routs");
    // SG30: militia routs at the first failure.
    let militia = e(&g, "Militia");
    g.fail(&mut r, militia, Category::Musketry);
    assert!(g.sg(militia).unwrap().routing, "SG30");
    // SG26: guns: the crew falls back under fire, the gun is lost in melee.
    let guns = e(&g, "Guns");
    g.fail(&mut r, guns, Category::Artillery);
    assert!(g.sg(guns).unwrap().crew_off, "SG26");
    assert!(g.formations_open(guns) == vec![Formation::Unlimbered], "SG26: re-man by a formation-change toss");
    g.fail(&mut r, guns, Category::Melee);
    assert_eq!(refused(g.find("Guns")), "SG33");
}

// SG31: disordered units act normally (they move, fire and change between column and line)
// but never reform: a disordered elite may not form wedge or reinforced line again, and the
// disorder stays through a formation change and the turns after.
#[test]
fn a_disordered_unit_acts_normally_and_never_reforms() {
    let disorder = |g: &mut Game| {
        let mut r = Report::new(super::game::SG, 1, Action::Next, "test");
        let guards = e(g, "Guards");
        g.fail(&mut r, guards, Category::Musketry); // SG28: a 2-stand formed line
        g.fail(&mut r, guards, Category::Musketry); // SG28: a disordered line
        assert!(g.sg(guards).unwrap().disordered && !g.sg(guards).unwrap().routing);
    };
    let mut g = game_with(seed_with_first(4), |_| {});
    disorder(&mut g);
    let guards = e(&g, "Guards");
    assert_eq!(g.formations_open(guards), vec![Formation::Column], "SG31: no wedge, no reinforced line");
    for to in [Formation::Wedge, Formation::ReinforcedLine] {
        let why = g.check_formation("Guards", to).expect_err("refused");
        assert_eq!(why.cite().to_string(), "SG17");
        assert!(why.to_string().contains("SG31"), "{why}");
    }
    // It may still change formation, with the −1 of SG18; a 4 − 1 = 3 forms.
    let toss = g.check_formation("Guards", Formation::Column).unwrap();
    assert_eq!(toss.modifiers.iter().map(|m| m.2).sum::<i32>(), -1, "SG18: disordered");
    let r = ok(&mut g, Action::ChangeFormation { unit: "Guards".into(), formation: Formation::Column });
    assert_eq!(r.dice[0].roll.total, 4);
    assert_eq!(g.unit(guards).unwrap().formation, Formation::Column);
    assert!(g.sg(guards).unwrap().disordered, "SG31: still disordered in its new formation");
    // Through the rest of this turn and the next, it stays disordered.
    for _ in 0..12 {
        ok(&mut g, Action::Next);
        if g.pending.is_some() {
            break;
        }
    }
    assert!(g.sg(guards).is_none_or(|s| s.disordered), "SG31: never reforms");
    // A disordered line fires like any other.
    let mut g = game();
    disorder(&mut g);
    to_step(&mut g, Step::Combat(Category::Musketry));
    assert!(g.check_fire("Guards", "Continentals").is_ok(), "SG31: disordered units act normally");
}

// SG37 (reconstructed): at the turn limit the side with more objective points wins (held by a
// steady unit within the radius, no enemy there), then the side that lost fewer figures; even in
// both, a draw; a side with nothing but routers left loses at once. Without a turn limit in the
// scenario, the rates' default (10, reconstructed).
#[test]
fn victory_by_objectives_then_losses_at_the_turn_limit() {
    use crate::scenario::model::Objective;
    let objective = |name: &str, at: [f32; 2], radius: f32, points: u32| Objective { name: name.into(), at, radius, points };
    let to_the_end = |g: &mut Game| {
        for _ in 0..200 {
            if g.over {
                return;
            }
            let a = match &g.pending {
                Some(p) => Action::Answer { prompt: p.id, option: ACCEPT },
                None => Action::Next,
            };
            ok(g, a);
        }
        panic!("the game did not end");
    };
    // The Americans hold the ridge (2 points) with the Continentals; the far wood is nobody's.
    let mut g = game_with(1, |s| s.objectives = vec![objective("Ridge", [20.0, 18.0], 3.0, 2), objective("Far wood", [4.0, 56.0], 3.0, 1)]);
    to_the_end(&mut g);
    assert_eq!(g.turn, 4, "SG37: the scenario's turn limit");
    let s = g.summary().expect("over");
    assert_eq!(s.winner, Some(0), "{:?}", s.result);
    assert_eq!((s.sides[0].points, s.sides[0].objectives_held.clone()), (2, vec!["Ridge".to_string()]));
    assert_eq!(s.objectives_unheld, vec!["Far wood".to_string()]);
    assert!(s.result.as_deref().is_some_and(|r| r.contains("SG37")));
    // An enemy within the radius too: nobody holds it.
    let mut g = game_with(1, |s| s.objectives = vec![objective("Between", [20.0, 27.0], 7.5, 2)]);
    to_the_end(&mut g);
    let s = g.summary().unwrap();
    assert!(s.sides.iter().all(|x| x.points == 0) && s.objectives_unheld == vec!["Between".to_string()], "{s:?}");
    // No objectives, no losses: even, a draw.
    let mut g = game();
    to_the_end(&mut g);
    let s = g.summary().unwrap();
    assert!(s.sides.iter().all(|x| x.figures_lost == 0));
    assert_eq!(s.winner, None, "{:?}", s.result);
    // Fewer figures lost wins when the points are even.
    let mut g = game();
    let mut r = Report::new(super::game::SG, 1, Action::Next, "test");
    let foot = e(&g, "Foot");
    g.fail(&mut r, foot, Category::Musketry); // a disordered column, no stand lost
    let guards = e(&g, "Guards");
    g.fail(&mut r, guards, Category::Musketry); // the reinforced line loses its rear stand
    to_the_end(&mut g);
    let s = g.summary().unwrap();
    assert_eq!((s.sides[1].figures_lost, s.winner), (2, Some(0)), "{:?}", s.result);
    // A side with nothing but routers loses at the end of the player-turn, before the limit.
    let mut g = game();
    for name in ["Guards", "Foot", "Dragoons", "Royal Artillery"] {
        let u = e(&g, name);
        g.mark(u, |m| m.routing = true);
    }
    to_step(&mut g, Step::Combat(Category::Melee));
    ok(&mut g, Action::Next);
    assert!(g.over && g.turn == 1, "SG37: over at once");
    let s = g.summary().unwrap();
    assert_eq!(s.winner, Some(0));
    assert!(s.result.as_deref().is_some_and(|r| r.contains("nothing left but routers")), "{:?}", s.result);
    // No turn limit in the file: the reconstructed default.
    let g = game_with(1, |s| s.turn_limit = None);
    assert_eq!(g.turn_limit(), 10);
    assert!(matches!(g.rates.turns.default_limit.source, crate::rules::cite::Source::Reconstructed { .. }));
}

// SG14, SG17, SG18, SG22, SG23, SG35, SG36: every toss and combat roll the rules can make,
// against a direct count of the die's faces: the action toss (SG17) with every combination of
// SG18's modifiers, the morale toss (SG22) with every combination of SG23's (charged, dragoons,
// uphill, cover, 1–6 attackers), each with and without a leader's re-roll (SG35, over the 36
// outcomes of two tosses), and the rally (SG36).
#[test]
fn every_toss_and_combat_roll_against_a_direct_count() {
    let rates = Rates::embedded();
    let m = &rates.modifiers;
    let at_most = rates.tosses.fails_at_most.get();
    let faces = |modifier: i32, fails_at_most: i32| (1..=6).filter(|f| f + modifier <= fails_at_most).count() as f64 / 6.0;
    // SG18: disordered or not × no formation bonus, column or reinforced line (+1), wedge (+2).
    let mut tosses = 0;
    for disordered in [0, m.disordered.get()] {
        for formation in [0, m.column_or_reinforced.get(), m.wedge.get()] {
            let modifiers: Vec<(String, String, i32)> = [disordered, formation].iter().filter(|&&v| v != 0).map(|&v| ("18".to_string(), "m".to_string(), v)).collect();
            let total = disordered + formation;
            let p = super::views::toss_preview("toss", &modifiers, at_most, "succeeds", "fails");
            assert_eq!(odds(&p), vec![1.0 - faces(total, at_most), faces(total, at_most)], "SG17 toss with {total:+}");
            tosses += 1;
        }
    }
    assert_eq!(tosses, 6);
    // SG22, SG23: the morale toss in the game, the target's modifiers from the table's state.
    let fails = rates.tosses.morale_fails_at_most.get();
    let mut rolls = 0;
    for cover in [false, true] {
        let mut g = game_with(1, |s| {
            if cover {
                let c = [20.0, 19.5];
                s.terrain.push(crate::scenario::model::Terrain::Woods { name: "Copse".into(), density: crate::scenario::model::WoodsDensity::Light, outline: vec![[c[0] - 5.0, c[1] - 2.0], [c[0] + 5.0, c[1] - 2.0], [c[0] + 5.0, c[1] + 2.0], [c[0] - 5.0, c[1] + 2.0]], disorder: None });
            }
        });
        let target = e(&g, "Continentals");
        let attackers: Vec<Entity> = ["Guards", "Foot", "Royal Artillery", "Dragoons"].iter().map(|n| e(&g, n)).collect();
        g.step = Step::Combat(Category::Melee);
        for n in 1..=4usize {
            for dragoons in [false, true] {
                // The dragoons are the last of the four: with them, n attackers end with them.
                let mut who: Vec<Entity> = attackers[..3].iter().copied().take(if dragoons { n - 1 } else { n.min(3) }).collect();
                if dragoons {
                    who.push(attackers[3]);
                }
                if who.len() != n {
                    continue;
                }
                for first_round in [false, true] {
                    for uphill in [false, true] {
                        g.attacks = who.iter().map(|&a| Attack { attacker: a, target, category: Category::Melee, first_round, uphill }).collect();
                        let toss = g.morale_toss(target, Category::Melee, None);
                        let mut want = 0;
                        if first_round && !cover {
                            want += m.charged_first_round.get();
                        }
                        if dragoons {
                            want += m.dragoons_against_foot.get();
                        }
                        if uphill {
                            want += m.charged_uphill.get();
                        }
                        want += m.each_attacker_over_one.get() * (n as i32 - 1);
                        if cover {
                            want += m.cover.get();
                        }
                        assert_eq!(toss.total(), want, "SG23: cover {cover}, {n} attackers, dragoons {dragoons}, first round {first_round}, uphill {uphill}: {:?}", toss.modifiers);
                        let fail = Game::fail_chance(fails, toss.total());
                        assert!((fail - faces(toss.total(), fails)).abs() < 1e-12, "SG22");
                        // SG35: with a re-roll, over the 36 outcomes of two tosses.
                        let two: Vec<(i32, i32)> = (1..=6).flat_map(|a| (1..=6).map(move |b| (a, b))).collect();
                        let count = |f: &dyn Fn(&(i32, i32)) -> bool| two.iter().filter(|x| f(x)).count() as f64 / 36.0;
                        let t = toss.total();
                        assert!((fail * (1.0 - fail) - count(&|&(a, b)| a + t <= fails && b + t > fails)).abs() < 1e-12);
                        assert!((fail * fail - count(&|&(a, b)| a + t <= fails && b + t <= fails)).abs() < 1e-12);
                        rolls += 1;
                    }
                }
            }
        }
        // The musketry toss: no charge, no dragoons' melee; still counted attackers and cover.
        g.step = Step::Combat(Category::Musketry);
        g.attacks = attackers[..2].iter().map(|&a| Attack { attacker: a, target, category: Category::Musketry, first_round: false, uphill: false }).collect();
        let toss = g.morale_toss(target, Category::Musketry, None);
        assert_eq!(toss.total(), m.each_attacker_over_one.get() + if cover { m.cover.get() } else { 0 }, "{:?}", toss.modifiers);
    }
    assert_eq!(rolls, 2 * (4 + 3) * 4);
    // The preview in the game is those odds: one attacker in the open, then with a leader near.
    for leader in [false, true] {
        let mut g = game_with(1, |s| {
            if leader {
                s.sides[0].brigades[0].commander.at = Some([20.0, 17.0]);
            }
        });
        to_step(&mut g, Step::Combat(Category::Musketry));
        let p = g.preview(&Action::Fire { unit: "Guards".into(), target: "Continentals".into() }).unwrap().unwrap();
        let f = faces(0, fails);
        let want = if leader { vec![1.0 - f, f * (1.0 - f), f * f] } else { vec![1.0 - f, f] };
        let got = odds(&p);
        assert_eq!(got.len(), want.len());
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-12), "{got:?} against {want:?}");
    }
    // SG36: the rally, 6 alone, 5–6 with a leader.
    assert_eq!((1..=6).filter(|&f| f >= rates.tosses.rally.get()).count(), 1);
    assert_eq!((1..=6).filter(|&f| f >= rates.tosses.rally_with_leader.get()).count(), 2);
}

// SG32: a router attacked is removed, no toss.
#[test]
fn a_router_attacked_is_removed() {
    let mut g = game();
    let c = e(&g, "Continentals");
    g.mark(c, |m| m.routing = true);
    to_step(&mut g, Step::Combat(Category::Musketry));
    let p = g.preview(&Action::Fire { unit: "Guards".into(), target: "Continentals".into() }).unwrap().unwrap();
    assert_eq!(odds(&p), vec![1.0], "SG32: removed for certain");
    ok(&mut g, Action::Fire { unit: "Guards".into(), target: "Continentals".into() });
    let thrown = g.dice.thrown();
    ok(&mut g, Action::Next);
    assert_eq!(g.dice.thrown(), thrown, "no toss");
    assert!(g.find("Continentals").is_err(), "SG32");
}

// SG36: routers rally at their player-turn's start on a 6 (5–6 with a leader) into a
// disordered column facing the enemy, else rout 16" more; routers take no orders.
#[test]
fn routers_rally_at_the_start_of_their_player_turn() {
    let mut rallied = 0;
    for seed in 0..30 {
        let mut g = game_with(seed, |_| {});
        let c = e(&g, "Continentals");
        g.mark(c, |m| {
            m.routing = true;
            m.disordered = true;
        });
        to_step(&mut g, Step::Combat(Category::Melee));
        let r = ok(&mut g, Action::Next);
        let die = r.dice.iter().find(|d| d.rule == "36").expect("SG36: a rally toss");
        let sg = g.sg(c);
        match die.roll.total {
            6 => {
                rallied += 1;
                let (sg, u) = (sg.unwrap(), g.unit(c).unwrap());
                assert!(!sg.routing && sg.disordered, "SG36");
                assert_eq!(u.formation, Formation::Column, "SG36: disordered column");
            }
            _ => assert!(sg.is_none_or(|s| s.routing), "SG36: failure routs on"),
        }
    }
    assert!(rallied > 0, "some seed rallies");
    // The sheet gives the exact odds: one face of six alone, two with a leader.
    let mut g = game();
    let c = e(&g, "Continentals");
    g.mark(c, |m| m.routing = true);
    let rally = g.sheet_rows(c).into_iter().find(|r| r.label == "Rally").expect("a router's sheet gives its rally");
    let counted = |at_least: i32| 100.0 * (1..=6).filter(|&f| f >= at_least).count() as f64 / 6.0;
    assert_eq!(rally.value, format!("{:.2}% (6+), {:.2}% with a leader within 2\" (5+)", counted(6), counted(5)));
    let mut g = game();
    let c = e(&g, "Continentals");
    g.mark(c, |m| m.routing = true);
    to_step(&mut g, Step::Combat(Category::Melee));
    ok(&mut g, Action::Next);
    if g.sg(c).is_some_and(|s| s.routing) {
        assert_eq!(refused(g.check_move("Continentals", &[MoveStep::Forward(1.0)])), "SG36");
    }
}

// SG26: an unmanned gun touched by the enemy in melee is taken, no toss.
#[test]
fn an_unmanned_gun_charged_is_taken() {
    let mut g = game();
    let (guns, guards) = (e(&g, "Guns"), e(&g, "Guards"));
    g.mark(guns, |m| m.crew_off = true);
    assert_eq!(refused(g.check_fire("Guards", "Guns")), "SG10");
    g.step = Step::Combat(Category::Melee);
    g.attacks.push(Attack { attacker: guards, target: guns, category: Category::Melee, first_round: true, uphill: false });
    let thrown = g.dice.thrown();
    let r = ok(&mut g, Action::Next);
    assert_eq!(g.dice.thrown(), thrown, "no toss");
    assert!(r.changes.iter().any(|c| c.rule == "26"), "{:?}", r.changes);
    assert!(g.find("Guns").is_err(), "SG26");
}

// SG8: Cowpens gives the Americans five leaders: played, with a warning on each.
#[test]
fn more_than_three_leaders_a_side_are_played_with_a_warning() {
    let s = crate::scenario::load(std::path::Path::new("scenarios/cowpens.ron")).unwrap();
    let g = Game::new(s, 1);
    let lines: Vec<(usize, String)> = g.live_leaders().map(|(l, c)| (c.side, g.leader_line(l))).collect();
    let sides: Vec<usize> = (0..2).filter(|&side| lines.iter().filter(|l| l.0 == side).count() > 3).collect();
    assert!(!sides.is_empty(), "Cowpens has a side with more than 3 leaders");
    for (side, line) in &lines {
        assert_eq!(line.contains("SG8"), sides.contains(side), "{line}");
    }
}

// `otp fire` and `otp melee` at set-up: each side in its own step, the engine's own odds.
#[test]
fn the_command_line_previews_at_set_up() {
    use crate::rules::cite::RuleSetId;
    use crate::rules::engine::PreviewCommand;
    let s = scenario();
    let fire = crate::rules::registry::preview_command(RuleSetId::Revolution, PreviewCommand::Fire { ball: false }, &s, "Continentals", "Guards", false);
    assert!(fire.success && fire.stdout.contains("33.33%"), "SG22: one attacker fails 2 in 6: {fire:?}");
    let charge = crate::rules::registry::preview_command(RuleSetId::Revolution, PreviewCommand::Melee { special: false }, &s, "Dragoons", "Riflemen", false);
    assert!(charge.success && charge.stdout.contains("66.67%"), "SG17: {charge:?}");
    let far = crate::rules::registry::preview_command(RuleSetId::Revolution, PreviewCommand::Fire { ball: false }, &s, "Guards", "Riflemen", true);
    assert!(!far.success && far.stdout.contains("\"SG24\""), "{far:?}");
}

// `otp simulate --balance --rules revolution`: the games' spread as a table.
#[test]
fn the_balance_table_sums_up_automatic_games() {
    use crate::rules::cite::RuleSetId;
    let s = crate::scenario::load(std::path::Path::new("scenarios/princeton.ron")).unwrap();
    let (table, refusals) = crate::rules::registry::balance_table(RuleSetId::Revolution, &s, 1, 4, None, |_| {}).unwrap();
    assert_eq!(refusals, 0);
    assert!(table.contains("4 automatic games") && table.lines().filter(|l| l.starts_with("| ")).count() == 1 + s.sides.len(), "{table}");
    let wins: usize = table.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| side")).filter_map(|l| l.split('|').nth(2)?.split_whitespace().next()?.parse::<usize>().ok()).sum();
    let draws: usize = table.split("Draws: ").nth(1).and_then(|t| t.split('.').next()).and_then(|d| d.parse().ok()).unwrap();
    assert_eq!(wins + draws, 4, "{table}");
}

// Every button's verdict is the check's, and a preview is refused exactly when the check is.
#[test]
fn choices_previews_and_checks_agree() {
    let s = crate::scenario::load(std::path::Path::new("scenarios/cowpens.ron")).unwrap();
    let mut g = Game::new(s, 5);
    let mut bot = g.automatic();
    let mut seen = 0;
    let centre = |g: &Game, u: Entity| spawn::unit_footprints(&g.world, g.unit(u).unwrap())[0].centre;
    for i in 0..400 {
        let mut choices = g.sequence_choices();
        for &u in g.sequence_view().acting.iter().filter(|_| i % 8 == 0) {
            choices.extend(g.unit_choices_now(u));
            // The three nearest enemies' buttons.
            let mut foes: Vec<(f32, Entity)> = g.live_units().filter(|(_, o)| o.side != g.unit(u).unwrap().side).map(|(t, _)| (centre(&g, t).distance(centre(&g, u)), t)).collect();
            foes.sort_by(|a, b| a.0.total_cmp(&b.0));
            for &(_, t) in foes.iter().take(3) {
                choices.extend(g.target_choices_now(u, t));
            }
        }
        for c in &choices {
            assert_eq!(c.verdict, g.check(&c.action), "{}", c.action);
            assert_eq!(g.preview(&c.action).is_err(), c.verdict.is_err(), "{}", c.action);
            seen += 1;
        }
        let Some(a) = bot.next_action(&g) else { break };
        g.apply(a).unwrap();
    }
    assert!(seen > 300, "{seen} choices looked at");
}

// SG16: a leader rides 24" once a player-turn; joining a unit is his ride.
#[test]
fn leaders_ride_once_a_player_turn() {
    let mut g = game();
    assert_eq!(refused(g.check_leader("Col. Red", Vec2::new(44.0, 10.0))), "SG16", "28\" is too far");
    ok(&mut g, Action::JoinUnit { leader: "Col. Red".into(), unit: "Dragoons".into() });
    assert_eq!(refused(g.check_leader("Col. Red", Vec2::new(40.0, 30.0))), "SG16", "once");
    let at = g.live_leaders().find(|(_, c)| c.name == "Col. Red").unwrap().1.at;
    assert!(g.leaders_near(e(&g, "Dragoons"), 1, 2.0).iter().any(|&l| g.world.get::<Commander>(l).unwrap().at == at), "SG36: with the unit");
    assert_eq!(refused(g.check_leader("Col. Blue", Vec2::new(5.0, 5.0))), "SG9");
}

// ---- saves, replay, undo, determinism ----

fn bot_game(file: &str, seed: u64, actions: usize) -> Box<dyn Engine> {
    let s = crate::scenario::load(std::path::Path::new(file)).unwrap();
    let mut game = crate::rules::registry::open(crate::rules::cite::RuleSetId::Revolution, s, seed).unwrap();
    let mut bot = game.automatic();
    for _ in 0..actions {
        let Some(a) = bot.next_action(game.as_ref()) else { break };
        game.apply(a).unwrap_or_else(|r| panic!("the automatic player is refused: {r}"));
    }
    game
}

// Saves (format 2) replay to the same state; undo replays a prefix; a seed gives one game.
#[test]
fn saves_replay_undo_and_determinism() {
    let game = bot_game("scenarios/cowpens.ron", 3, 150);
    let text = game.save_text();
    assert!(text.contains("format: 2") && text.contains("rules: Revolution"), "{}", &text[..80]);
    let back = crate::rules::registry::load_save(&text, "save.ron").unwrap();
    assert_eq!(back.snapshot(), game.snapshot());
    assert_eq!(back.reports(), game.reports());
    let again = bot_game("scenarios/cowpens.ron", 3, 150);
    assert_eq!(again.snapshot(), game.snapshot(), "seeded: the same game");
    let undone = game.replayed(100);
    assert_eq!(undone.snapshot(), bot_game("scenarios/cowpens.ron", 3, 100).snapshot());
    // A withdrawal in its own words reads back.
    let w = withdraw("Guards", 2.0);
    let ron = ron::to_string(&w).unwrap();
    assert_eq!(ron::from_str::<Action>(&ron).unwrap(), w, "{ron}");
    // A save whose action is refused is an error at its line.
    let mut save = Save::parse(&text, "save.ron").unwrap();
    save.actions.insert(0, withdraw("No such unit", 1.0));
    let bad = save.to_ron();
    let err = crate::rules::registry::load_save(&bad, "bad.ron").err().unwrap();
    assert!(err.starts_with("bad.ron:") && err.contains("action 1"), "{err}");
}

// ---- invariants over automatic games ----

/// One seeded automatic game, every action checked: stands within bounds, formations only down
/// the ladder (a rally apart), routers never attack, lost leaders never return, no refusals.
fn play_checked(file: &str, seed: u64) -> u32 {
    let s = crate::scenario::load(std::path::Path::new(file)).unwrap();
    let mut g = Game::new(s, seed);
    let mut bot = g.automatic();
    let mut rung: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut leaders = g.live_leaders().count();
    for _ in 0..20_000 {
        let Some(a) = bot.next_action(&g) else { break };
        if let Action::Fire { unit, .. } | Action::Charge { unit, .. } = &a {
            assert!(g.sg(g.find(unit).unwrap()).is_some_and(|s| !s.routing), "{file} seed {seed}: a router attacks");
        }
        g.apply(a.clone()).unwrap_or_else(|r| panic!("{file} seed {seed}: {a}: {r}"));
        for (u, unit) in g.live_units() {
            let sg = g.sg(u).unwrap();
            let most = if sg.kind == RevolutionKind::Artillery { 1 } else { 3 };
            assert!((1..=most).contains(&unit.stands.len()), "{file} seed {seed}: {} has {} stands", unit.name, unit.stands.len());
            assert_eq!(unit.figures, 2 * unit.stands.len() as u32);
            let now = g.rung(u).unwrap();
            let before = rung.insert(unit.name.clone(), now).unwrap_or(0);
            // SG36: a router rallies to disordered; SG26: a crew re-mans its gun.
            let rallied = !sg.routing && sg.disordered && now + 1 == before;
            let remanned = sg.kind == RevolutionKind::Artillery && !sg.crew_off;
            assert!(now >= before || rallied || remanned, "{file} seed {seed}: {} climbed the ladder from {before} to {now}", unit.name);
        }
        for a in &g.attacks {
            assert!(g.sg(a.attacker).is_some_and(|s| !s.routing), "{file} seed {seed}: a router's attack stands");
        }
        let live = g.live_leaders().count();
        assert!(live <= leaders, "{file} seed {seed}: a lost leader came back");
        assert_eq!(live + g.leaders_lost.len(), g.leaders.len());
        assert!(g.leaders_lost.iter().all(|(n, _)| !g.live_leaders().any(|(_, c)| &c.name == n)));
        leaders = live;
    }
    assert!(g.over, "{file} seed {seed}: the game ends");
    g.turn
}

const AWI: [&str; 8] = ["cowpens", "brandywine", "camden", "germantown", "guilford", "monmouth", "princeton", "teaching"];

/// Games a scenario in the suite (`SG_GAMES` overrides).
fn games(default: u64) -> u64 {
    std::env::var("SG_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn invariants_hold_over_seeded_automatic_games_of_every_awi_scenario() {
    for file in AWI {
        for seed in 0..games(3) {
            play_checked(&format!("scenarios/{file}.ron"), seed);
        }
    }
}

/// The full figure: `cargo test --release --no-default-features --lib revolution -- --ignored`
/// (1,000 games of each AWI scenario).
#[test]
#[ignore]
fn invariants_hold_over_a_thousand_games_of_each_awi_scenario() {
    // `SG_SCENARIOS=cowpens,camden` plays only those; progress every 100 games (--nocapture).
    let only = std::env::var("SG_SCENARIOS").ok();
    for file in AWI.iter().filter(|f| only.as_ref().is_none_or(|o| o.split(',').any(|x| x == **f))) {
        for seed in 0..games(1000) {
            play_checked(&format!("scenarios/{file}.ron"), seed);
            if (seed + 1) % 100 == 0 {
                eprintln!("{file}: {} games, invariants held", seed + 1);
            }
        }
    }
}
