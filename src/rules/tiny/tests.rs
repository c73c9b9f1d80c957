//! The tiny rules, each inside and outside its condition, driven through the engine interface
//! where the window would drive them; saves, replay, the automatic player.

use bevy::math::Vec2;

use super::game::{ANSWERS, FALL_BACK, FIGURES_A_HIT, Game, HITS_ON, STAND};
use super::save::Save;
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::{Dice, DiceKind};
use crate::rules::engine::{Engine, Tone};
use crate::rules::report::Refusal;
use crate::scenario::model::{self, Formation, Scenario};
use crate::scenario::spawn::Unit;
use crate::table::movement::MoveStep;
use crate::table::range;

const FIXTURE: &str = include_str!("../../../tests/fixtures/good/tiny.ron");
const FILE: &str = "tests/fixtures/good/tiny.ron";

fn scenario() -> Scenario {
    crate::scenario::parse(FIXTURE, FILE).unwrap_or_else(|e| panic!("{e}"))
}

/// The fixture with `edit` made to it (still a valid scenario), under seed `seed`.
fn game_with(seed: u64, edit: impl FnOnce(&mut Scenario)) -> Game {
    let mut s = scenario();
    edit(&mut s);
    let problems = crate::scenario::validate::validate(&s);
    assert!(problems.is_empty(), "{problems:?}");
    Game::new(s, seed)
}

fn game() -> Game {
    game_with(1, |_| {})
}

fn unit<'a>(s: &'a mut Scenario, name: &str) -> &'a mut model::Unit {
    s.sides.iter_mut().flat_map(|s| &mut s.brigades).flat_map(|b| &mut b.units).find(|u| u.name == name).unwrap()
}

/// Puts a unit of the fixture elsewhere, facing `facing`, with `figures` figures.
fn put(s: &mut Scenario, name: &str, at: [f32; 2], facing: f32, figures: u32) {
    let u = unit(s, name);
    u.at = at;
    u.facing = facing;
    u.figures = figures;
}

fn mv(unit: &str, steps: Vec<MoveStep>) -> Action {
    Action::Move { unit: unit.into(), steps }
}

fn fire(unit: &str, target: &str) -> Action {
    Action::Fire { unit: unit.into(), target: target.into() }
}

/// The citation that refused it ("TINY 2").
fn refused<T: std::fmt::Debug>(r: Result<T, Refusal>) -> String {
    r.expect_err("refused").cite().to_string()
}

/// The first seed whose first D6 hits (TINY 4: 4+), or misses: the first die a game throws is
/// its first shot's.
fn seed_that(hits: bool) -> u64 {
    (0..).find(|&s| (Dice::new(s).roll(DiceKind::D6).total >= HITS_ON) == hits).unwrap()
}

fn figures(g: &Game, name: &str) -> Option<u32> {
    g.live_units().find(|(_, u)| u.name == name).map(|(_, u)| u.figures)
}

fn entity(g: &Game, name: &str) -> bevy::ecs::entity::Entity {
    g.find(name).unwrap()
}

/// Applies an action the check allows, asserting the apply agrees.
fn ok(g: &mut Game, a: Action) {
    assert_eq!(g.check(&a), Ok(()), "{a}");
    g.apply(a.clone()).unwrap_or_else(|r| panic!("{a}: {r}"));
}

/// The action is refused by `cite`, by check and apply alike, and nothing changes.
fn refused_by(g: &mut Game, a: Action, cite: &str) {
    let before = g.snapshot();
    let verdict = g.check(&a);
    assert_eq!(refused(verdict.clone()), cite, "{a}: {verdict:?}");
    assert_eq!(g.apply(a.clone()).map(drop), verdict, "{a}");
    assert_eq!(g.snapshot(), before, "{a} changed the game");
}

// ---- TINY 1 ----

// TINY 1: the first side moves first; Next hands the player-turn on; after the last side the
// turn advances; the turn limit ends the game with its summary.
#[test]
fn tiny_1_sides_alternate_and_the_turn_limit_ends_the_game() {
    let mut g = game_with(1, |s| s.turn_limit = Some(2));
    let seq = g.sequence();
    assert_eq!((seq.turn, seq.deciding, seq.current, seq.started, seq.over), (1, Some(0), Some(0), true, false));
    assert_eq!(seq.steps.iter().map(|s| s.cite.as_str()).collect::<Vec<_>>(), ["TINY 1", "TINY 1"]);
    // Red waits for its player-turn.
    refused_by(&mut g, mv("Red Foot", vec![MoveStep::Forward(1.0)]), "TINY 2");
    ok(&mut g, Action::Next);
    assert_eq!((g.sequence().turn, g.sequence().deciding), (1, Some(1)));
    ok(&mut g, mv("Red Foot", vec![MoveStep::Forward(1.0)]));
    refused_by(&mut g, mv("Blue Foot", vec![MoveStep::Forward(1.0)]), "TINY 2");
    ok(&mut g, Action::Next);
    assert_eq!((g.sequence().turn, g.sequence().deciding), (2, Some(0)));
    ok(&mut g, Action::Next);
    assert!(g.summary().is_none(), "turn 2 of 2 is still being played");
    let last = g.apply(Action::Next).unwrap();
    assert!(g.sequence().over);
    let summary = g.summary().expect("TINY 1: the turn limit ends the game");
    assert_eq!(last.summary.as_ref(), Some(&summary));
    assert_eq!(summary.turns_played, 2);
    assert!(summary.sides.iter().all(|s| s.figures_lost == 0));
    assert!(last.outcome.contains("a draw"), "{}", last.outcome);
    refused_by(&mut g, Action::Next, "TINY 1");
    assert!(g.choices().is_empty());
}

// TINY 1: the side that lost fewer figures wins.
#[test]
fn tiny_1_the_side_that_lost_fewer_figures_wins() {
    let mut g = game_with(seed_that(true), |s| {
        s.turn_limit = Some(1);
        put(s, "Red Foot", [14.0, 14.0], 180.0, 8);
    });
    ok(&mut g, fire("Blue Foot", "Red Foot"));
    ok(&mut g, Action::Next);
    let last = g.apply(Action::Next).unwrap();
    let summary = g.summary().unwrap();
    assert_eq!(summary.sides.iter().map(|s| s.figures_lost).collect::<Vec<_>>(), [0, FIGURES_A_HIT]);
    assert!(last.outcome.contains("Blue wins"), "{}", last.outcome);
}

// ---- TINY 2 ----

// TINY 2: 6" on foot, not 6.25"; one move a player-turn.
#[test]
fn tiny_2_foot_move_6_inches_not_6_and_a_quarter() {
    let mut g = game();
    refused_by(&mut g, mv("Blue Foot", vec![MoveStep::Forward(6.25)]), "TINY 2");
    // Two steps that add up past the allowance, measured by the table.
    refused_by(&mut g, mv("Blue Foot", vec![MoveStep::Oblique { angle: 30.0, distance: 3.0 }, MoveStep::Forward(3.25)]), "TINY 2");
    let start = g.situation();
    ok(&mut g, mv("Blue Foot", vec![MoveStep::Forward(6.0)]));
    let (a, b) = (start.find("Blue Foot").unwrap(), g.situation().find("Blue Foot").unwrap());
    let moved = g.situation().unit(b).stands[0].footprint.centre - start.unit(a).stands[0].footprint.centre;
    assert!((moved - Vec2::new(0.0, 6.0)).length() < 1e-3, "{moved}");
    // One move a player-turn.
    refused_by(&mut g, mv("Blue Foot", vec![MoveStep::Forward(0.5)]), "TINY 2");
    assert!(g.movement(entity(&g, "Blue Foot")).is_none());
}

// TINY 2: 12" mounted, not 12.25".
#[test]
fn tiny_2_horse_move_12_inches_not_12_and_a_quarter() {
    let mut g = game();
    let m = g.movement(entity(&g, "Blue Horse")).unwrap();
    assert_eq!((m.allowance, m.kinds[0].cite.as_str()), (12.0, "TINY 2"));
    assert_eq!(g.movement(entity(&g, "Blue Foot")).unwrap().allowance, 6.0);
    refused_by(&mut g, mv("Blue Horse", vec![MoveStep::Forward(12.25)]), "TINY 2");
    ok(&mut g, mv("Blue Horse", vec![MoveStep::Forward(12.0)]));
}

// TINY 2: stands may not pass through another unit, nor leave the table.
#[test]
fn tiny_2_no_stand_crosses_a_unit_or_leaves_the_table() {
    // Red Foot's front 4" ahead of Blue Foot's.
    let mut g = game_with(1, |s| put(s, "Red Foot", [14.0, 12.0], 180.0, 8));
    let verdict = g.check(&mv("Blue Foot", vec![MoveStep::Forward(6.0)]));
    assert!(verdict.as_ref().is_err_and(|r| r.reason.contains("Red Foot")), "{verdict:?}");
    refused_by(&mut g, mv("Blue Foot", vec![MoveStep::Forward(6.0)]), "TINY 2");
    ok(&mut g, mv("Blue Foot", vec![MoveStep::Forward(3.5)]));

    // Blue Foot 3" from the bottom edge, facing it.
    let mut g = game_with(1, |s| put(s, "Blue Foot", [14.0, 3.0], 180.0, 8));
    let verdict = g.check(&mv("Blue Foot", vec![MoveStep::Forward(4.0)]));
    assert!(verdict.as_ref().is_err_and(|r| r.reason.contains("leave the table")), "{verdict:?}");
    refused_by(&mut g, mv("Blue Foot", vec![MoveStep::Forward(4.0)]), "TINY 2");
    ok(&mut g, mv("Blue Foot", vec![MoveStep::Forward(2.0)]));
}

// TINY 2, TINY 3: a move is whole-unit steps; a change of formation is its own order.
// TINY 2: a march column follows a path with its head; a line does not.
#[test]
fn tiny_2_a_column_follows_a_path_a_line_does_not() {
    let g = game();
    let path = |g: &Game, name: &str| {
        let e = entity(g, name);
        let front = g.world.get::<crate::table::footprint::Footprint>(g.unit(e).unwrap().stands[0]).unwrap().front_centre();
        g.check(&mv(name, vec![MoveStep::Path(vec![front, front + bevy::math::Vec2::new(0.0, 2.0), front + bevy::math::Vec2::new(1.0, 4.0)])]))
    };
    assert!(path(&g, "Blue Column").is_ok(), "{:?}", path(&g, "Blue Column"));
    assert_eq!(path(&g, "Blue Foot").unwrap_err().rule, "2");
}

#[test]
fn tiny_2_a_move_has_no_formation_change_in_it() {
    let mut g = game();
    refused_by(&mut g, mv("Blue Column", vec![MoveStep::ChangeFormation(Formation::Line)]), "TINY 3");
    refused_by(&mut g, mv("Blue Foot", vec![MoveStep::Straighten]), "TINY 2");
    refused_by(&mut g, mv("Blue Foot", vec![]), "TINY 2");
    let verdict = g.check(&mv("Blue Foot", vec![MoveStep::Forward(f32::NAN)]));
    assert!(verdict.is_err_and(|r| r.rule.is_empty()), "a number no table measures is no rule's");
    let verdict = g.check(&mv("Blue Foot", vec![MoveStep::Wheel { pivot: crate::table::movement::End::Left, angle: 720.0 }]));
    assert!(verdict.is_err_and(|r| r.rule.is_empty()), "two turns about is not a wheel anyone orders");
}

// ---- TINY 3 ----

// TINY 3: line and column change into each other for the whole move, and nothing else.
#[test]
fn tiny_3_line_to_column_costs_the_whole_move() {
    let mut g = game();
    let column = entity(&g, "Blue Column");
    let choices = g.unit_choices(column);
    assert_eq!(choices.len(), 1);
    assert!(choices[0].allowed() && choices[0].action == Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Line });
    refused_by(&mut g, Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Column }, "TINY 3");
    ok(&mut g, choices[0].action.clone());
    assert_eq!(g.unit(column).unwrap().formation, Formation::Line);
    assert_eq!(g.unit(column).unwrap().stands.len(), 3);
    // The whole move is spent.
    refused_by(&mut g, mv("Blue Column", vec![MoveStep::Forward(0.5)]), "TINY 2");
    assert!(g.movement(column).is_none());
    // A unit that moved cannot form.
    ok(&mut g, mv("Blue Foot", vec![MoveStep::Forward(1.0)]));
    refused_by(&mut g, Action::ChangeFormation { unit: "Blue Foot".into(), formation: Formation::Column }, "TINY 3");
    // The other side's units wait for their player-turn.
    assert!(g.unit_choices(entity(&g, "Red Column")).iter().all(|c| c.verdict.as_ref().is_err_and(|r| r.cite().to_string() == "TINY 3")));
}

// TINY 3: only line and column; and the new formation must have room.
#[test]
fn tiny_3_only_line_and_column_and_only_where_there_is_room() {
    let mut g = game_with(1, |s| unit(s, "Blue Foot").formation = Formation::Skirmish);
    refused_by(&mut g, Action::ChangeFormation { unit: "Blue Foot".into(), formation: Formation::Column }, "TINY 3");
    refused_by(&mut g, Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Skirmish }, "TINY 3");
    // Blue Horse beside Blue Column: a line 3" wide would overlap it.
    let mut g = game_with(1, |s| unit(s, "Blue Horse").at = [29.0, 8.0]);
    let form = Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Line };
    assert!(g.check(&form).is_err_and(|r| r.reason.contains("Blue Horse")));
    refused_by(&mut g, form, "TINY 3");
}

// ---- TINY 4 ----

// TINY 4: within 12" edge to edge, not 12.25".
#[test]
fn tiny_4_fire_reaches_12_inches_not_12_and_a_quarter() {
    for (y, allowed) in [(20.0, true), (20.25, false)] {
        let mut g = game_with(1, |s| put(s, "Red Foot", [14.0, y], 180.0, 8));
        let s = g.situation();
        let d = range::unit_distance(&s, s.find("Blue Foot").unwrap(), s.find("Red Foot").unwrap());
        assert!((d - (y - 8.0)).abs() < 1e-4, "{d}");
        if allowed {
            ok(&mut g, fire("Blue Foot", "Red Foot"));
        } else {
            refused_by(&mut g, fire("Blue Foot", "Red Foot"), "TINY 4");
        }
    }
}

// TINY 4: in the front 45° arc. The arc's right edge runs from Blue Foot's front right corner
// (16, 8) at 45°: a one-stand target at x 23.15 has a corner 0.1" inside it, at 23.35 0.1" out.
#[test]
fn tiny_4_fire_only_into_the_front_arc() {
    for (x, allowed) in [(23.15, true), (23.35, false)] {
        let mut g = game_with(1, |s| put(s, "Red Foot", [x, 14.0], 180.0, 2));
        let verdict = g.check(&fire("Blue Foot", "Red Foot"));
        assert_eq!(verdict.is_ok(), allowed, "x {x}: {verdict:?}");
        if !allowed {
            assert!(verdict.is_err_and(|r| r.reason.contains("arc")));
            refused_by(&mut g, fire("Blue Foot", "Red Foot"), "TINY 4");
        }
    }
}

// TINY 4: once a player-turn, at an enemy, by the side whose player-turn it is.
#[test]
fn tiny_4_fire_once_at_an_enemy_in_ones_own_player_turn() {
    let mut g = game_with(seed_that(false), |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 8));
    refused_by(&mut g, fire("Blue Foot", "Blue Column"), "TINY 4");
    refused_by(&mut g, fire("Red Foot", "Blue Foot"), "TINY 4");
    let foot = entity(&g, "Blue Foot");
    assert!(g.badges(foot).is_empty());
    ok(&mut g, fire("Blue Foot", "Red Foot"));
    assert_eq!(figures(&g, "Red Foot"), Some(8), "a miss takes nothing");
    assert_eq!(g.badges(foot).iter().map(|b| (b.text.as_str(), b.tone, b.cite.as_deref())).collect::<Vec<_>>(), [("fired", Tone::Info, Some("TINY 4"))]);
    refused_by(&mut g, fire("Blue Foot", "Red Foot"), "TINY 4");
    // A new player-turn: Red may fire back; Blue's mark is gone.
    ok(&mut g, Action::Next);
    assert!(g.badges(foot).is_empty());
    assert!(g.check(&fire("Red Foot", "Blue Foot")).is_ok());
}

// TINY 4: a hit takes 2 figures, a stand.
#[test]
fn tiny_4_a_hit_takes_a_stand() {
    let mut g = game_with(seed_that(true), |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 8));
    let report = g.apply(fire("Blue Foot", "Red Foot")).unwrap();
    assert!(report.dice[0].roll.total >= HITS_ON && report.dice[0].roll.kind == DiceKind::D6);
    assert_eq!(figures(&g, "Red Foot"), Some(6));
    assert_eq!(g.unit(entity(&g, "Red Foot")).unwrap().stands.len(), 3);
    assert!(report.to_string().contains("(TINY 4)"), "{report}");
}

// TINY 4: the odds of 4+ on a D6 are exactly 1/2, and the preview is refused as the order is.
#[test]
fn tiny_4_preview_gives_the_exact_odds() {
    let g = game_with(1, |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 8));
    let p = g.preview(&fire("Blue Foot", "Red Foot")).unwrap().expect("fire throws a die");
    let odds: Vec<f64> = p.blocks[0].odds.iter().map(|o| o.chance).collect();
    assert_eq!(odds, [0.5, 0.5]);
    assert!(p.blocks[0].facts[0].text.starts_with("6\""), "{:?}", p.blocks[0].facts);
    assert_eq!(g.preview(&fire("Red Foot", "Blue Foot")).map(drop), g.check(&fire("Red Foot", "Blue Foot")));
    assert_eq!(g.preview(&Action::Next), Ok(None), "no dice, no odds");
    // The D6 itself: each face a sixth of 60,000 throws.
    let mut dice = Dice::new(6);
    let mut counts = [0u32; 7];
    for _ in 0..60_000 {
        counts[dice.roll(DiceKind::D6).total as usize] += 1;
    }
    assert_eq!(counts[0], 0);
    for c in &counts[1..] {
        assert!((*c as f64 / 60_000.0 - 1.0 / 6.0).abs() < 0.01, "{counts:?}");
    }
}

// ---- TINY 5 ----

// TINY 5: a unit left with no figures is removed; with some left it stays.
#[test]
fn tiny_5_a_unit_with_no_figures_is_removed() {
    let mut g = game_with(seed_that(true), |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 2));
    let report = g.apply(fire("Blue Foot", "Red Foot")).unwrap();
    assert!(report.changes.iter().any(|c| c.rule == "5"), "{report}");
    assert_eq!(figures(&g, "Red Foot"), None);
    assert!(g.world.get::<Unit>(entity(&g, "Red Column")).is_some());
    assert_eq!(refused(g.find("Red Foot")), "TINY 5");
    assert!(g.sequence().prompt.is_none(), "nobody is left to ask");
    ok(&mut g, Action::Next);
    assert!(g.summary().is_none());
    let mut g = game_with(seed_that(true), |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 8));
    ok(&mut g, fire("Blue Foot", "Red Foot"));
    assert_eq!(figures(&g, "Red Foot"), Some(6));
}

// ---- TINY 6 ----

// TINY 6: hit down to half (4 figures to 2) its owner is asked; nothing else may be done
// until the answer; "stand" leaves it shaken where it is.
#[test]
fn tiny_6_half_strength_asks_and_blocks_until_answered() {
    let mut g = game_with(seed_that(true), |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 4));
    ok(&mut g, fire("Blue Foot", "Red Foot"));
    let seq = g.sequence();
    let prompt = seq.prompt.clone().expect("TINY 6 asks");
    assert_eq!((prompt.cite.as_str(), prompt.options.len()), ("TINY 6", ANSWERS.len()));
    assert_eq!(seq.deciding, Some(1), "the owner answers");
    assert_eq!(seq.acting, vec![entity(&g, "Red Foot")]);
    for a in [Action::Next, mv("Blue Column", vec![MoveStep::Forward(1.0)]), fire("Blue Horse", "Red Foot"), Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Line }] {
        refused_by(&mut g, a, "TINY 6");
    }
    refused_by(&mut g, Action::Answer { prompt: prompt.id + 1, option: STAND }, "TINY 6");
    refused_by(&mut g, Action::Answer { prompt: prompt.id, option: 2 }, "TINY 6");
    let choices = g.choices();
    assert_eq!(choices.iter().map(|c| c.allowed()).collect::<Vec<_>>(), [true, true, false], "stand, fall back, and Next greyed");
    let red = entity(&g, "Red Foot");
    let before = g.situation();
    ok(&mut g, Action::Answer { prompt: prompt.id, option: STAND });
    assert!(g.sequence().prompt.is_none());
    assert_eq!(g.situation().unit(before.find("Red Foot").unwrap()).stands[0].footprint, before.unit(before.find("Red Foot").unwrap()).stands[0].footprint);
    assert!(g.badges(red).iter().any(|b| b.text == "shaken" && b.tone == Tone::Bad && b.cite.as_deref() == Some("TINY 6")));
    refused_by(&mut g, Action::Answer { prompt: prompt.id, option: STAND }, "TINY 6");
    ok(&mut g, Action::Next);
}

// TINY 6: above half (6 figures to 4) nobody is asked.
#[test]
fn tiny_6_above_half_asks_nothing() {
    let mut g = game_with(seed_that(true), |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 6));
    ok(&mut g, fire("Blue Foot", "Red Foot"));
    assert_eq!(figures(&g, "Red Foot"), Some(4));
    assert!(g.sequence().prompt.is_none());
    assert!(g.badges(entity(&g, "Red Foot")).is_empty());
    ok(&mut g, Action::Next);
}

// TINY 6: falling back goes 3" straight away from the firer, where there is room.
#[test]
fn tiny_6_fall_back_3_inches_where_there_is_room() {
    let mut g = game_with(seed_that(true), |s| put(s, "Red Foot", [14.0, 14.0], 180.0, 4));
    ok(&mut g, fire("Blue Foot", "Red Foot"));
    let id = g.sequence().prompt.unwrap().id;
    ok(&mut g, Action::Answer { prompt: id, option: FALL_BACK });
    let s = g.situation();
    let d = range::unit_distance(&s, s.find("Blue Foot").unwrap(), s.find("Red Foot").unwrap());
    assert!((d - 9.0).abs() < 1e-3, "6\" + 3\": {d}");
    // Red Column 2" behind Red Foot: no room.
    let mut g = game_with(seed_that(true), |s| {
        put(s, "Red Foot", [14.0, 14.0], 180.0, 4);
        unit(s, "Red Column").at = [14.0, 16.0];
    });
    ok(&mut g, fire("Blue Foot", "Red Foot"));
    let id = g.sequence().prompt.unwrap().id;
    assert!(g.check(&Action::Answer { prompt: id, option: FALL_BACK }).is_err_and(|r| r.reason.contains("Red Column")));
    refused_by(&mut g, Action::Answer { prompt: id, option: FALL_BACK }, "TINY 6");
    assert!(g.choices()[1].verdict.is_err(), "the window greys it");
    ok(&mut g, Action::Answer { prompt: id, option: STAND });
}

// ---- what the window reads ----

// Every sheet row, badge and band cites its tiny rule; nothing names OTP.
#[test]
fn views_cite_the_tiny_rules() {
    let g = game();
    let foot = entity(&g, "Blue Foot");
    let sheet = g.sheet(foot);
    assert!(sheet.iter().all(|r| r.cite.as_deref().is_some_and(|c| c.starts_with("TINY "))), "{sheet:?}");
    assert!(sheet.iter().any(|r| r.label == "Figures" && r.value == "8 of 8"));
    let bands = g.fire_bands(foot);
    assert_eq!((bands.len(), bands[0].reach, bands[0].cite.as_str()), (1, 12.0, "TINY 4"));
    let seq = g.sequence();
    assert!(seq.headline.contains("Blue"));
    assert_eq!(seq.acting.len(), 3);
    let choices = g.choices();
    assert_eq!(choices.len(), 1);
    assert!(choices[0].allowed() && choices[0].action == Action::Next);
    let red = entity(&g, "Red Foot");
    let shot = g.target_choices(foot, red);
    assert_eq!(shot.len(), 1);
    assert!(shot[0].rolls && shot[0].verdict.as_ref().is_err_and(|r| r.set == RuleSetId::Tiny && r.rule == "4"), "20\" away: {:?}", shot[0].verdict);
    assert!(g.target_choices(foot, entity(&g, "Blue Horse")).is_empty(), "no orders against friends");
    assert_eq!(g.move_action(foot, 0, vec![MoveStep::Forward(1.0)]), mv("Blue Foot", vec![MoveStep::Forward(1.0)]));
}

// Orders of no tiny rule are refused, citing the sequence that has no room for them.
#[test]
fn other_rule_sets_orders_are_refused() {
    let mut g = game();
    refused_by(&mut g, Action::Charge { unit: "Blue Foot".into(), target: "Red Foot".into() }, "TINY 1");
    refused_by(&mut g, Action::MoveLeader { leader: "Col. Blue".into(), to: Vec2::new(1.0, 1.0) }, "TINY 1");
    // An order in On to Philadelphia's words, as a save would hold it.
    let draw: Action = ron::from_str("DrawChit").unwrap();
    assert_eq!(draw.rules(), Some(RuleSetId::Otp));
    refused_by(&mut g, draw, "TINY 1");
    let verdict = g.check(&mv("Nobody", vec![MoveStep::Forward(1.0)]));
    assert!(verdict.is_err_and(|r| r.rule.is_empty() && r.reason.contains("Nobody")));
}

// ---- check and apply agree ----

/// Orders worth trying in any state: for every unit, a move in and past its allowance, each
/// formation, fire at every enemy; the answers; Next.
fn probes(g: &Game) -> Vec<Action> {
    let names: Vec<(String, usize)> = g.live_units().map(|(_, u)| (u.name.clone(), u.side)).collect();
    let mut out = vec![Action::Next, Action::Answer { prompt: g.asked, option: STAND }, Action::Answer { prompt: g.asked, option: FALL_BACK }];
    for (n, side) in &names {
        out.push(mv(n, vec![MoveStep::Forward(2.0)]));
        out.push(mv(n, vec![MoveStep::Forward(12.5)]));
        out.push(mv(n, vec![MoveStep::Wheel { pivot: crate::table::movement::End::Left, angle: 30.0 }, MoveStep::Forward(1.0)]));
        out.push(Action::ChangeFormation { unit: n.clone(), formation: Formation::Line });
        out.push(Action::ChangeFormation { unit: n.clone(), formation: Formation::Column });
        out.extend(names.iter().filter(|(_, s)| s != side).map(|(t, _)| fire(n, t)));
    }
    out
}

// Check and apply give one verdict: a refused order is refused by apply with the same
// refusal and changes nothing (not even the dice); an allowed one applies. Probed in every
// state of seeded automatic games, questions included.
#[test]
fn check_and_apply_agree_in_every_state() {
    let mut tried = (0, 0);
    for seed in 0..3 {
        let mut g = Game::new(scenario(), seed);
        let mut bot = g.automatic();
        while let Some(next) = bot.next_action(&g) {
            for a in probes(&g) {
                let verdict = g.check(&a);
                assert_eq!(g.preview(&a).map(drop), verdict, "{a}: preview and check");
                if let Err(refusal) = verdict {
                    refused_by(&mut g, a, &refusal.cite().to_string());
                    tried.0 += 1;
                } else if g.actions.len().is_multiple_of(5) {
                    let mut copy = g.replayed_to(g.actions.len());
                    copy.apply(a.clone()).unwrap_or_else(|r| panic!("{a}: checked, then {r}"));
                    tried.1 += 1;
                }
            }
            g.apply(next).unwrap();
        }
    }
    assert!(tried.0 > 1000 && tried.1 > 50, "{tried:?}");
}

// ---- saves ----

// A save names its format and rule set, reads back to the same game, and writes the same text.
#[test]
fn saves_round_trip_and_replay_identically() {
    let mut g = Game::new(scenario(), 7);
    let mut bot = g.automatic();
    let mut snapshots = vec![g.snapshot()];
    while let Some(a) = bot.next_action(&g) {
        g.apply(a).unwrap();
        snapshots.push(g.snapshot());
    }
    let text = g.save_text();
    assert!(text.contains("format: 2") && text.contains("rules: Tiny"), "{}", &text[..200]);
    let loaded = super::load_save(&text, "game.ron").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.rules(), RuleSetId::Tiny);
    assert_eq!(loaded.snapshot(), g.snapshot());
    assert_eq!(loaded.reports(), g.reports());
    assert_eq!(loaded.save_text(), text);
    assert!(loaded.summary().is_some());
    // Undo replays: every prefix is the game as it stood.
    for n in [0, 1, snapshots.len() / 2, snapshots.len() - 1] {
        assert_eq!(g.replayed(n).snapshot(), snapshots[n], "after {n} actions");
    }
}

// A save that is not a tiny game, or whose orders the rules refuse, is an error at its place.
#[test]
fn bad_saves_are_refused_at_their_place() {
    let mut g = game();
    ok(&mut g, mv("Blue Foot", vec![MoveStep::Forward(1.0)]));
    let text = g.save_text();
    let err = |t: &str| super::load_save(t, "bad.ron").err().expect("refused");
    let e = err(&text.replacen("format: 2", "format: 3", 1));
    assert!(e.starts_with("bad.ron:2:") && e.contains("format 3"), "{e}");
    let e = err(&text.replacen("rules: Tiny", "rules: Otp", 1));
    assert!(e.starts_with("bad.ron:3:") && e.contains("On to Philadelphia"), "{e}");
    let e = err(&text.replace("Forward(1.0)", "Forward(7.0)"));
    let line = text.lines().position(|l| l.contains("Move(")).unwrap() + 1;
    assert!(e.starts_with(&format!("bad.ron:{line}:")) && e.contains("action 1") && e.contains("TINY 2"), "{e}");
    assert!(Save::parse(&text, "good.ron").is_ok());
}

// ---- the automatic player ----

// 200 seeded games of automatic players on both sides: the engine never refuses them, every
// game reaches its summary, and between them they fire, hit, ask, answer and remove.
#[test]
fn two_hundred_automatic_games_end_without_a_refusal() {
    let (mut fired, mut asked, mut removed, mut formed) = (0, 0, 0, 0);
    for seed in 0..200 {
        let mut game = super::open(scenario(), seed);
        let mut bot = game.automatic();
        let mut n = 0;
        while let Some(a) = bot.next_action(game.as_ref()) {
            let report = game.apply(a.clone()).unwrap_or_else(|r| panic!("seed {seed}, action {n} ({a}): {r}"));
            fired += matches!(a, Action::Fire { .. }) as u32;
            asked += matches!(a, Action::Answer { .. }) as u32;
            formed += matches!(a, Action::ChangeFormation { .. }) as u32;
            removed += report.changes.iter().filter(|c| c.rule == "5").count();
            n += 1;
            assert!(n < 1_000, "seed {seed}: the game does not end");
        }
        let summary = game.summary().unwrap_or_else(|| panic!("seed {seed}: no summary"));
        assert_eq!(summary.turns_played, 6);
        assert!(game.sequence().over);
    }
    assert!(fired > 1000 && asked > 50 && removed > 50 && formed > 50, "fired {fired}, asked {asked}, removed {removed}, formed {formed}");
}
