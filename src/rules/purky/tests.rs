//! Purky's rules, each inside and outside its condition, driven through the engine's own
//! actions; the card against the seed; exact odds against direct counts and a million rolls;
//! saves, replay, undo, determinism; invariants over seeded automatic games.

use bevy::ecs::entity::Entity;

use super::card::{self, CHARTS};
use super::combat::{chart_by_hits, d10s};
use super::game::{Game, Question, STEPS, Status, Step, Team};
use super::odds::{self, Test, dice_for, judge};
use super::save::Save;
use crate::rules::action::Action;
use crate::rules::dice::Dice;
use crate::rules::engine::Engine;
use crate::rules::report::Refusal;
use crate::scenario::model::{self, Formation, PurkyClass, PurkyProfile, Scenario};
use crate::scenario::spawn::{Stand, Unit};
use crate::table::movement::MoveStep;

const FIXTURE: &str = include_str!("../../../tests/fixtures/good/tiny.ron");

fn scenario() -> Scenario {
    crate::scenario::parse(FIXTURE, "tiny.ron").unwrap_or_else(|e| panic!("{e}"))
}

fn unit<'a>(s: &'a mut Scenario, name: &str) -> &'a mut model::Unit {
    s.sides.iter_mut().flat_map(|s| &mut s.brigades).flat_map(|b| &mut b.units).find(|u| u.name == name).unwrap()
}

/// The fixture with Blue Foot and Red Foot as `class` of `figures` figures, `gap` inches apart
/// face to face (Blue's front at y = 12), the rest far away on the flanks.
fn duel(class: PurkyClass, figures: u32, gap: f32, edit: impl FnOnce(&mut Scenario)) -> Game {
    let mut s = scenario();
    for (name, at, facing) in [("Blue Foot", [24.0, 12.0], 0.0), ("Red Foot", [24.0, 12.0 + gap], 180.0)] {
        let u = unit(&mut s, name);
        u.purky = Some(PurkyProfile { class, figures: Some(figures) });
        u.at = at;
        u.facing = facing;
        u.formation = Formation::Line;
        u.unit_type = model::UnitType::Line;
        u.weapon = Some(model::Weapon::Musket);
    }
    for (name, at) in [("Blue Column", [3.0, 4.0]), ("Blue Horse", [44.0, 2.0]), ("Red Column", [3.0, 32.0]), ("Red Horse", [44.0, 34.0])] {
        unit(&mut s, name).at = at;
    }
    edit(&mut s);
    let problems = crate::scenario::validate::validate(&s);
    assert!(problems.is_empty(), "{problems:?}");
    Game::new(s, 7).unwrap()
}

/// Goes on (rolling the initiative, declining rallies) until `step`, with Blue as Side `blue`.
fn to_step(g: &mut Game, step: Step, blue: Team) {
    for _ in 0..40 {
        if let Some(a) = g.open_question() {
            let option = match a.question {
                Question::Initiative { winner } => u32::from((winner == 0) != (blue == Team::A)),
                _ => 1,
            };
            g.apply(Action::Answer { prompt: a.id, option }).unwrap();
            continue;
        }
        if g.current() == step {
            assert_eq!(g.side_of(blue), 0, "Blue is Side {blue:?}");
            return;
        }
        g.apply(Action::Next).unwrap();
    }
    panic!("never reached {step:?}");
}

fn e(g: &Game, name: &str) -> Entity {
    g.find(name).unwrap()
}

fn cite<T: std::fmt::Debug>(r: Result<T, Refusal>) -> String {
    r.expect_err("refused").cite().to_string()
}

// ---- the card ----

/// The card's table as transcribed from seed 004 (`shared/seeds/004_…txt`), cell for cell:
/// road march, skirmish, column, line, square, range, fire A–E, melee A–E, morale A–E.
const CARD: [(&str, [&str; 21]); 11] = [
    ("Grenadiers/Guards/Light Cos.", ["16\"", "Lights only", "12\"", "10\"", "3\"", "8\"", "9", "7", "6", "5", "3", "9", "7", "6", "5", "3", "9", "8", "7", "5", "3"]),
    ("British/Hessian/French Regulars", ["16\"", "", "12\"", "10\"", "2\"", "8\"", "9", "6", "5", "4", "2", "9", "6", "5", "4", "2", "9", "6", "5", "4", "2"]),
    ("Continentals & Loyalists", ["14\"", "", "10\"", "8\"", "1\"", "8\"", "8", "5", "4", "3", "1", "8", "5", "4", "3", "1", "8", "5", "4", "3", "1"]),
    ("Riflemen/Jagers (unformed)", ["20\"", "16\"", "", "6\"", "", "18\"", "7", "5", "4", "2", "1", "7", "4", "3", "2", "1", "7", "4", "3", "1", "1"]),
    ("Militia", ["12\"", "16\"", "8\"", "6\"", "", "8\"", "6", "4", "3", "2", "1", "6", "4", "3", "2", "1", "6", "4", "3", "2", "1"]),
    ("Indians (unformed)", ["20\"", "18\"", "", "", "", "6\"", "5", "3", "2", "1", "~", "8", "4", "3", "2", "1", "5", "3", "2", "1", "1"]),
    ("Cavalry", ["28\"", "24\"", "20\"", "12\"", "", "4\"", "4", "3", "2", "1", "~", "9", "6", "5", "4", "2", "8", "6", "5", "4", "2"]),
    ("Heavy Artillery (over 9 lbs.)", ["8\"", "", "", "1\"", "", "12\"/48\"", "7/5'", "6/4'", "5/3'", "4/2'", "3/1'", "6", "3", "2", "1", "1", "9", "7", "5", "3", "1"]),
    ("Medium Artillery (6-8 lbs.)", ["10\"", "", "", "2\"", "", "10\"/36\"", "7/5'", "6/4'", "5/3'", "4/2'", "3/1'", "6", "3", "2", "1", "1", "9", "7", "5", "3", "1"]),
    ("Light Artillery (3-4 lbs.)", ["12\"", "", "", "3\"", "•", "8\"/24\"", "7/5'", "6/4'", "5/3'", "4/2'", "3/1'", "6", "3", "2", "1", "1", "9", "7", "5", "3", "1"]),
    ("Amusettes (1lb.)", ["16\"", "", "", "3\"", "•", "8\"/36\"", "7/5'", "6/4'", "5/3'", "4/2'", "3/1'", "6", "3", "2", "1", "1", "9", "7", "5", "3", "1"]),
];

/// A row of the data written back as the card prints it.
fn as_card(r: &card::ClassRow) -> [String; 21] {
    let inch = |v: Option<u32>| v.map_or(String::new(), |n| format!("{n}\""));
    let mut out: Vec<String> = vec![
        inch(Some(r.road)),
        if r.class == PurkyClass::Grenadiers { "Lights only".into() } else { inch(r.skirmish) },
        inch(r.column),
        inch(r.line),
        if r.square_shelter { "•".into() } else { inch(r.square) },
        match r.long_range {
            Some(l) => format!("{}\"/{l}\"", r.range),
            None => format!("{}\"", r.range),
        },
    ];
    for (k, n) in r.fire.iter().enumerate() {
        let n = n.map_or("~".to_string(), |n| n.to_string());
        out.push(match &r.long_fire {
            Some(l) => format!("{n}/{}'", l[k].map_or("~".to_string(), |x| x.to_string())),
            None => n,
        });
    }
    out.extend(r.melee.iter().chain(&r.morale).map(u8::to_string));
    out.try_into().expect("21 cells")
}

// PK1–PK28 (rulesets.md §1.4): the data's table equals the seed's card cell for cell; the
// light companies share the first row, with the skirmish rate the card leaves to "Lights only".
#[test]
fn the_card_in_the_data_equals_the_seed_cell_for_cell() {
    for (label, cells) in CARD {
        let rows: Vec<&card::ClassRow> = card::card().iter().filter(|r| r.row == label && r.class != PurkyClass::LightCompanies).collect();
        assert_eq!(rows.len(), 1, "{label}");
        let got = as_card(rows[0]);
        for (k, want) in cells.iter().enumerate() {
            assert_eq!(got[k], *want, "{label}, column {k}");
        }
    }
    let lights = card::row(PurkyClass::LightCompanies);
    let grenadiers = card::row(PurkyClass::Grenadiers);
    assert_eq!(lights.row, CARD[0].0);
    assert_eq!((lights.fire.clone(), lights.melee.clone(), lights.morale.clone()), (grenadiers.fire.clone(), grenadiers.melee.clone(), grenadiers.morale.clone()));
    assert_eq!(lights.skirmish, Some(16));
    assert!(lights.source.is_reconstructed() && grenadiers.source.is_text());
    assert_eq!(card::card().len(), 12);
}

// PK6: a card that breaks its own shape is refused with its place, before any game.
#[test]
fn a_broken_card_is_a_located_error() {
    let bad = card::UNITS_RON.replacen("melee: [9, 7, 6, 5, 3]", "melee: [9, 7, 6, 5, 11]", 1);
    let err = card::parse(&bad, "units.ron").unwrap_err();
    assert!(err.contains("units.ron: in classes[0] (Grenadiers): chart numbers are read on a d10"), "{err}");
    let rising = card::UNITS_RON.replacen("morale: [9, 8, 7, 5, 3]", "morale: [3, 8, 7, 5, 3]", 1);
    assert!(card::parse(&rising, "units.ron").unwrap_err().contains("numbers may not rise from A to E"));
    let syntax = card::parse("(classes: [ (class: Nobody", "units.ron").unwrap_err();
    assert!(syntax.starts_with("units.ron:1:"), "{syntax}");
}

// PK6, PK4: rates by formation; only the classes with a square rate form square; guns move
// limbered at the road rate and by prolonge at the line rate.
#[test]
fn rates_by_formation_follow_the_card() {
    assert_eq!(card::rate(PurkyClass::Regulars, Formation::Column), Some(12));
    assert_eq!(card::rate(PurkyClass::Regulars, Formation::Square), Some(2));
    assert_eq!(card::rate(PurkyClass::Militia, Formation::Square), None);
    assert_eq!(card::rate(PurkyClass::Riflemen, Formation::Column), Some(20), "no column rate: the road rate");
    assert_eq!(card::rate(PurkyClass::Indians, Formation::Line), None);
    assert_eq!(card::rate(PurkyClass::HeavyGuns, Formation::Limbered), Some(8));
    assert_eq!(card::rate(PurkyClass::HeavyGuns, Formation::Unlimbered), Some(1));
    assert_eq!(card::rate(PurkyClass::LightGuns, Formation::Line), None, "guns have no line of battle");
}

// ---- exact odds ----

// PK12: a d10 per 4 figures; a remainder of 2 or 3 is one more die.
#[test]
fn a_die_for_every_four_figures() {
    assert_eq!([1, 2, 3, 4, 5, 6, 7, 8, 16, 21].map(dice_for), [0, 1, 1, 1, 1, 2, 2, 2, 4, 5]);
}

// PK12, PK13, PK18: the hits of a pool equal a direct count of every throw of up to 5 dice.
#[test]
fn pool_odds_equal_a_direct_count() {
    for dice in 0..=6u32 {
        for value in 0..=10u8 {
            let mut count = vec![0u64; dice as usize + 1];
            for mut code in 0..10u64.pow(dice) {
                let mut hits = 0;
                for _ in 0..dice {
                    hits += usize::from((code % 10 + 1) as u8 <= value);
                    code /= 10;
                }
                count[hits] += 1;
            }
            let exact = odds::pool_hits(dice, value);
            for (k, c) in count.iter().enumerate() {
                assert!((exact[k] - *c as f64 / 10f64.powi(dice as i32)).abs() < 1e-12, "{dice} dice at {value}: {k} hits");
            }
        }
    }
}

// PK20, PK23: keeping the two lowest of 2 to 5 dice: the exact odds equal a direct count.
#[test]
fn morale_odds_equal_a_direct_count_of_the_two_lowest() {
    // 2 to 6 dice: 2 in the open, +1 cover, +1 flanks, +1 leader, +1 at 30 figures (PK20).
    for dice in 2..=6u32 {
        for value in 1..=10u8 {
            let mut count = [0u64; 3];
            for mut code in 0..10u64.pow(dice) {
                let faces: Vec<u8> = (0..dice)
                    .map(|_| {
                        let f = (code % 10 + 1) as u8;
                        code /= 10;
                        f
                    })
                    .collect();
                count[judge(&faces, value) as usize] += 1;
            }
            for (k, (t, p)) in odds::morale(dice, value).into_iter().enumerate() {
                assert_eq!(t as usize, k);
                assert!((p - count[k] as f64 / 10f64.powi(dice as i32)).abs() < 1e-12, "{dice} dice at {value}: {t:?}");
            }
        }
    }
}

// PK20: a million seeded throws of 4 dice at 5 (the game's own dice) land within 0.2% of the
// exact odds; a pool of 6 at 7 too, and PK16's optional skirmisher pool (6 figures at 2).
#[test]
fn a_million_rolls_agree_with_the_exact_odds() {
    let mut dice = Dice::new(2026);
    let n = 1_000_000;
    let mut tests = [0u32; 3];
    let mut hits = [0u32; 7];
    let mut skirmish = [0u32; 7];
    for _ in 0..n {
        tests[judge(&d10s(&mut dice, 4).faces, 5) as usize] += 1;
        hits[d10s(&mut dice, 6).faces.iter().filter(|&&f| f <= 7).count()] += 1;
        skirmish[d10s(&mut dice, 6).faces.iter().filter(|&&f| f <= 2).count()] += 1;
    }
    for (k, p) in odds::pool_hits(6, 2).into_iter().enumerate() {
        assert!((skirmish[k] as f64 / n as f64 - p).abs() < 0.002, "PK16, {k} hits: {} vs {p}", skirmish[k]);
    }
    for (k, (_, p)) in odds::morale(4, 5).into_iter().enumerate() {
        assert!((tests[k] as f64 / n as f64 - p).abs() < 0.002, "{k}: {} vs {p}", tests[k]);
    }
    for (k, p) in odds::pool_hits(6, 7).into_iter().enumerate() {
        assert!((hits[k] as f64 / n as f64 - p).abs() < 0.002, "{k} hits: {} vs {p}", hits[k]);
    }
}

// PK20: one failing die of the two lowest shakes, two rout; more dice only help.
#[test]
fn one_failure_shakes_two_rout_and_the_lowest_two_are_kept() {
    assert_eq!(judge(&[3, 4], 4), Test::Pass);
    assert_eq!(judge(&[3, 9], 4), Test::OneFails);
    assert_eq!(judge(&[8, 9], 4), Test::BothFail);
    assert_eq!(judge(&[9, 2, 8, 1], 4), Test::Pass, "the two lowest, 1 and 2, pass");
    assert!(odds::morale(4, 4)[0].1 > odds::morale(2, 4)[0].1);
}

// PK21: the morale chart by cumulative hits.
#[test]
fn the_morale_chart_goes_by_cumulative_hits() {
    let charts: Vec<char> = [1, 4, 5, 7, 8, 10, 11, 12, 13, 40].iter().map(|&h| CHARTS[chart_by_hits(h)]).collect();
    assert_eq!(charts, ['A', 'A', 'B', 'B', 'C', 'C', 'D', 'D', 'E', 'E']);
}

// ---- basing and set-up ----

// PK25: figures = men / 15 (OTP's 20 a figure: 16 figures are 320 men, 21 figures), 4 infantry
// a stand with the remainder on a last stand, 2 cavalry a stand; every AWI scenario opens.
#[test]
fn every_awi_scenario_opens_at_purkys_scale() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut opened = 0;
    for f in std::fs::read_dir(dir).unwrap() {
        let path = f.unwrap().path();
        let s = crate::scenario::load(&path).unwrap();
        let g = Game::new(s.clone(), 1).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for side in &s.sides {
            for m in side.brigades.iter().flat_map(|b| &b.units) {
                let u = g.unit(g.find(&m.name).unwrap()).unwrap();
                let want = m.purky_profile(side).figures.unwrap();
                assert_eq!(u.figures, want, "{}", m.name);
                let on: Vec<u32> = u.stands.iter().map(|&st| g.world.get::<Stand>(st).unwrap().figures).collect();
                assert_eq!(on.iter().sum::<u32>(), want);
                let per = match m.arm {
                    model::Arm::Infantry => 4,
                    model::Arm::Cavalry => 2,
                    model::Arm::Artillery { .. } => want,
                };
                assert!(on[..on.len() - 1].iter().all(|&n| n == per), "{}: {on:?}", m.name);
            }
        }
        opened += 1;
    }
    assert!(opened >= 8);
    let s = scenario();
    let m = &s.sides[0].brigades[0].units[0];
    assert_eq!(m.purky_profile(&s.sides[0]).figures, Some(11), "8 figures at 1:20 are 160 men: 11 figures at 1:15");
}

// ---- the sequence ----

// PK1: initiative, then rally A and B, movement A then B, fire B then A, melee, reserve moves B
// then A; the winner chooses to move first (Side A) or fire first (Side B).
#[test]
fn a_turn_runs_in_the_cards_order() {
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, |_| {});
    assert_eq!(g.current(), Step::Initiative);
    let r = g.apply(Action::Next).unwrap();
    assert!(r.dice.len() >= 2 && r.dice.iter().all(|d| d.rule == "1"));
    let Some(a) = g.open_question() else { panic!("the winner is asked") };
    let Question::Initiative { winner } = a.question else { panic!() };
    assert_eq!(cite(g.check(&Action::Next)), "PK1", "nothing before the answer");
    g.apply(Action::Answer { prompt: a.id, option: 1 }).unwrap();
    assert_eq!(g.side_of(Team::B), winner, "firing first makes the winner Side B");
    let mut seen = vec![Step::Initiative];
    while g.turn() == 1 {
        seen.push(g.current());
        g.apply(Action::Next).unwrap();
    }
    seen.dedup();
    assert_eq!(seen, STEPS.to_vec());
}

// PK1: an exceptional or aggressive C-in-C adds 1 to his initiative die.
#[test]
fn an_aggressive_commander_adds_one_to_the_initiative() {
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, |s| {
        s.sides[1].commander = Some(model::Commander { name: "Tarleton".into(), kind: model::CommanderKind::British, rating: Some(model::Rating::Aggressive), at: None, acw: None });
    });
    assert_eq!(g.initiative_bonus(1), Some("Tarleton".into()));
    assert_eq!(g.initiative_bonus(0), None);
    let r = g.apply(Action::Next).unwrap();
    assert!(r.modifiers.iter().all(|m| m.value == 1 && m.name.contains("Tarleton")) && !r.modifiers.is_empty());
}

// ---- movement ----

// PK6: a move within the card's rate (regulars in line 10") is taken; beyond it is refused.
#[test]
fn a_move_goes_as_far_as_the_rate() {
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, |_| {});
    to_step(&mut g, Step::Move(Team::A), Team::A);
    assert_eq!(cite(g.check(&Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(10.5)] })), "PK6");
    g.apply(Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(6.0)] }).unwrap();
    assert_eq!(cite(g.check(&Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(4.5)] })), "PK6", "6\" spent of 10\"");
    g.apply(Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(4.0)] }).unwrap();
    // PK1: Red moves in its own step.
    assert_eq!(cite(g.check(&Action::Move { unit: "Red Foot".into(), steps: vec![MoveStep::Forward(1.0)] })), "PK6");
}

// PK7: backward in line is half rate.
#[test]
fn backward_in_line_is_half_rate() {
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, |_| {});
    to_step(&mut g, Step::Move(Team::A), Team::A);
    let back = |d| Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::AboutFace, MoveStep::Forward(d)] };
    assert_eq!(cite(g.check(&back(5.5))), "PK6");
    assert!(g.check(&back(4.5)).is_ok());
}

// PK5: a unit more than 24" from its leader moves half.
#[test]
fn beyond_the_command_radius_a_unit_moves_half() {
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, |s| s.sides[0].brigades[0].commander.at = Some([47.0, 35.0]));
    to_step(&mut g, Step::Move(Team::A), Team::A);
    assert_eq!(g.rate(e(&g, "Blue Foot")).unwrap().full, 5.0);
    assert_eq!(cite(g.check(&Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(5.5)] })), "PK6");
}

// PK7: forming costs half the new formation's rate; PK6: square only where the card gives a rate.
#[test]
fn forming_costs_half_the_new_rate() {
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, |_| {});
    to_step(&mut g, Step::Move(Team::A), Team::A);
    let r = g.apply(Action::ChangeFormation { unit: "Blue Foot".into(), formation: Formation::AttackColumn }).unwrap();
    assert!(r.notes.iter().any(|n| n.rule == "7" && n.text.contains("6\"")), "{:?}", r.notes);
    assert_eq!(g.pk(e(&g, "Blue Foot")).unwrap().spent, 6.0);
    assert_eq!(cite(g.check(&Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(6.5)] })), "PK6");
    assert!(g.check(&Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(5.5)] }).is_ok());
    let mut m = duel(PurkyClass::Militia, 16, 20.0, |_| {});
    to_step(&mut m, Step::Move(Team::A), Team::A);
    let refusal = m.check(&Action::ChangeFormation { unit: "Blue Foot".into(), formation: Formation::Square }).unwrap_err();
    assert_eq!(refusal.cite().to_string(), "PK6");
    assert!(refusal.reason.contains("no rate in"), "{}", refusal.reason);
}

// ---- fire ----

// PK12, PK14: 16 regulars in line at 6" fire 4 d10 at another line on chart C (5 or less).
#[test]
fn fire_is_a_die_per_four_figures_on_the_targets_chart() {
    let mut g = duel(PurkyClass::Regulars, 16, 6.0, |_| {});
    to_step(&mut g, Step::Fire(Team::B), Team::A);
    let shot = g.check_fire("Red Foot", "Blue Foot").unwrap();
    assert_eq!((shot.pool.dice, CHARTS[shot.pool.chart], shot.pool.value), (4, 'C', 5));
    assert_eq!(cite(g.check(&Action::Fire { unit: "Blue Foot".into(), target: "Red Foot".into() })), "PK3", "Side A fires after B");
    let preview = g.preview_of(&Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() }).unwrap().unwrap();
    let odds: Vec<f64> = preview.blocks[0].odds.iter().map(|o| o.chance).collect();
    assert_eq!(odds, odds::pool_hits(4, 5));
    let before = g.unit(e(&g, "Blue Foot")).unwrap().figures;
    let r = g.apply(Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() }).unwrap();
    let hits = r.dice[0].roll.faces.iter().filter(|&&f| f <= 5).count() as u32;
    // PK17, PK3: hits are figures, and B's land before A fires.
    assert_eq!(g.unit(e(&g, "Blue Foot")).unwrap().figures, before - hits);
    assert_eq!(cite(g.check(&Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() })), "PK12", "once a turn");
}

// PK12: out of range, or outside every base's 45° arcs, no fire.
#[test]
fn no_fire_beyond_range() {
    let mut g = duel(PurkyClass::Regulars, 16, 9.0, |_| {});
    to_step(&mut g, Step::Fire(Team::B), Team::A);
    let r = g.check_fire("Red Foot", "Blue Foot").unwrap_err();
    assert_eq!(r.cite().to_string(), "PK12");
    assert!(r.reason.contains("range"), "{}", r.reason);
}

// PK14: a column is read on chart B, skirmishers on D; PK15: a shaken firer one chart down.
#[test]
fn the_chart_goes_by_the_targets_formation_and_the_firers_state() {
    let mut g = duel(PurkyClass::Regulars, 16, 6.0, |s| unit(s, "Blue Foot").formation = Formation::Column);
    to_step(&mut g, Step::Fire(Team::B), Team::A);
    assert_eq!(CHARTS[g.check_fire("Red Foot", "Blue Foot").unwrap().pool.chart], 'B');
    let red = e(&g, "Red Foot");
    g.world.get_mut::<super::game::PkState>(red).unwrap().status = Status::Shaken;
    let shot = g.check_fire("Red Foot", "Blue Foot").unwrap();
    assert_eq!((CHARTS[shot.pool.chart], shot.pool.value), ('C', 5));
    assert!(shot.pool.why.iter().any(|w| w.1 == "15"));
    let mut k = duel(PurkyClass::Regulars, 16, 6.0, |s| {
        let blue = unit(s, "Blue Foot");
        blue.unit_type = model::UnitType::Light;
        blue.formation = Formation::Skirmish;
    });
    to_step(&mut k, Step::Fire(Team::B), Team::A);
    assert_eq!(CHARTS[k.check_fire("Red Foot", "Blue Foot").unwrap().pool.chart], 'D');
}

// PK22, PK20: after both fire steps each unit hit tests morale.
#[test]
fn units_hit_by_fire_test_morale_after_both_fire_steps() {
    let mut g = duel(PurkyClass::Militia, 16, 6.0, |_| {});
    to_step(&mut g, Step::Fire(Team::B), Team::A);
    let mut tested = false;
    for _ in 0..6 {
        g.apply(Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() }).unwrap();
        g.apply(Action::Next).unwrap();
        let r = g.apply(Action::Next).unwrap();
        if g.pk(e(&g, "Blue Foot")).is_some_and(|p| p.hits > 0) {
            assert!(r.dice.iter().any(|d| d.rule == "20" && d.purpose.contains("Blue Foot")), "{r}");
            tested = true;
            break;
        }
        to_step(&mut g, Step::Fire(Team::B), Team::A);
    }
    assert!(tested);
}

// ---- melee ----

// PK18, PK19: a charge in the move step reaches contact; the melee step fights it out in up to
// two rounds of pools; afterwards the two are no longer engaged.
#[test]
fn a_charge_is_fought_in_the_melee_step() {
    let mut g = duel(PurkyClass::Grenadiers, 16, 5.0, |_| {});
    to_step(&mut g, Step::Move(Team::A), Team::A);
    assert_eq!(cite(g.check(&Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(5.0)] })), "PK18", "contact is a charge");
    let preview = g.preview_of(&Action::Charge { unit: "Blue Foot".into(), target: "Red Foot".into() }).unwrap().unwrap();
    assert_eq!(preview.blocks.len(), 3);
    g.apply(Action::Charge { unit: "Blue Foot".into(), target: "Red Foot".into() }).unwrap();
    assert!(g.engaged(e(&g, "Blue Foot")));
    to_step(&mut g, Step::Melee, Team::A);
    let r = g.apply(Action::Next).unwrap();
    assert!(r.dice.iter().filter(|d| d.rule == "18").count() >= 2, "{r}");
    assert!(r.charts.iter().any(|c| c.chart == "Melee"));
    assert!(g.engagements().is_empty());
}

// PK25: shaken units do not charge; PK19: a routing unit contacted by a charge is removed.
#[test]
fn routers_caught_by_a_charge_are_removed() {
    let mut g = duel(PurkyClass::Grenadiers, 16, 5.0, |_| {});
    to_step(&mut g, Step::Move(Team::A), Team::A);
    let (blue, red) = (e(&g, "Blue Foot"), e(&g, "Red Foot"));
    g.world.get_mut::<super::game::PkState>(blue).unwrap().status = Status::Shaken;
    assert_eq!(cite(g.check(&Action::Charge { unit: "Blue Foot".into(), target: "Red Foot".into() })), "PK25");
    g.world.get_mut::<super::game::PkState>(blue).unwrap().status = Status::Steady;
    g.world.get_mut::<super::game::PkState>(red).unwrap().status = Status::Routed;
    let r = g.apply(Action::Charge { unit: "Blue Foot".into(), target: "Red Foot".into() }).unwrap();
    assert!(r.changes.iter().any(|c| c.rule == "19"));
    assert_eq!(cite(g.find("Red Foot")), "PK24");
}

// PK18: formed against unformed, flank attacks and bayonets pick the chart.
#[test]
fn advantages_pick_the_melee_chart() {
    let g = duel(PurkyClass::Regulars, 16, 0.0, |s| {
        let red = unit(s, "Red Foot");
        red.purky = Some(PurkyProfile { class: PurkyClass::Indians, figures: Some(16) });
        red.unit_type = model::UnitType::Indian;
        red.formation = Formation::Skirmish;
    });
    let (blue, red) = (e(&g, "Blue Foot"), e(&g, "Red Foot"));
    let eng = super::game::Engagement { charger: blue, target: red, flank: false, climbed: false, descended: false };
    let s = g.situation();
    let mine = g.melee_pool(s, blue, red, &eng).unwrap();
    let theirs = g.melee_pool(s, red, blue, &eng).unwrap();
    // Formed against unformed (+2) and bayonets against none (+2): A; the mirror: E.
    assert_eq!((CHARTS[mine.chart], CHARTS[theirs.chart]), ('A', 'E'));
    assert_eq!(mine.value, 9);
    assert_eq!(theirs.value, 1);
}

// ---- morale, rally, removal ----

// PK23: rallying from rout on chart C; failing removes the unit, passing shakes it.
#[test]
fn rallying_routers_pass_to_shaken_or_are_removed() {
    let mut shaken = 0;
    let mut removed = 0;
    for seed in 0..20 {
        let mut g = duel(PurkyClass::Militia, 16, 20.0, |_| {});
        g.seed = seed;
        g.dice = Dice::new(seed);
        let blue = e(&g, "Blue Foot");
        g.world.get_mut::<super::game::PkState>(blue).unwrap().status = Status::Routed;
        to_step(&mut g, Step::Rally(Team::A), Team::A);
        // to_step declined; roll instead on a fresh question.
        g.mark(blue, |m| m.rally_asked = false);
        g.ask(Question::Rally { unit: blue });
        let a = g.open_question().unwrap();
        let pool = g.morale_pool(blue, true, None).unwrap();
        assert_eq!((pool.dice, CHARTS[pool.chart]), (2, 'C'));
        g.apply(Action::Answer { prompt: a.id, option: 0 }).unwrap();
        match g.find("Blue Foot") {
            Ok(b) => {
                assert_eq!(g.status(b), Status::Shaken);
                shaken += 1;
            }
            Err(r) => {
                assert_eq!(r.cite().to_string(), "PK24");
                removed += 1;
            }
        }
    }
    // Militia on C pass on 3 or less with both dice: 9%; the rest are removed.
    assert!(removed > shaken && removed + shaken == 20, "{shaken} shaken, {removed} removed");
}

// PK24: infantry reduced to one stand (4 figures) is removed.
#[test]
fn infantry_reduced_to_one_stand_is_removed() {
    let mut g = duel(PurkyClass::Regulars, 6, 20.0, |_| {});
    let blue = e(&g, "Blue Foot");
    assert_eq!(g.removal_due(blue), None);
    g.lose_figures(blue, 1);
    assert_eq!(g.removal_due(blue), None, "5 figures: two stands");
    g.lose_figures(blue, 1);
    assert_eq!(g.removal_due(blue).as_deref(), Some("reduced to one infantry stand"));
}

// PK8: a unit that routs runs 16" from the nearest enemy at once.
#[test]
fn a_routed_unit_runs_sixteen_inches() {
    let mut g = duel(PurkyClass::Regulars, 16, 6.0, |_| {});
    let red = e(&g, "Red Foot");
    let y = |g: &Game| g.situation().units().iter().find(|u| u.name == "Red Foot").unwrap().stands[0].footprint.centre.y;
    let y0 = y(&g);
    let mut r = g.report(&Action::Next, "test".into());
    g.rout(red, &mut r);
    let y1 = y(&g);
    assert!((y1 - y0 - 16.0).abs() < 0.3, "{y0} -> {y1}");
}

// ---- saves, replay, undo, determinism ----

// A saved game replays to the same state; undo replays a prefix; the same seed gives the same game.
#[test]
fn saves_replay_and_undo_reproduce_the_game() {
    let cowpens = crate::scenario::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/cowpens.ron")).unwrap();
    let mut s = cowpens.clone();
    s.turn_limit = Some(3);
    let mut g = Game::new(s.clone(), 11).unwrap();
    let mut bot = g.automatic();
    let mut n = 0;
    while let Some(a) = bot.next_action(&g) {
        g.apply(a).unwrap();
        n += 1;
        assert!(n < 5000);
    }
    assert!(g.summary().is_some());
    let text = g.save_text();
    assert!(text.contains("rules: Purky"), "{}", &text[..200]);
    let back = super::load_save(&text, "game.ron").unwrap();
    assert_eq!(back.snapshot(), g.snapshot());
    assert_eq!(back.reports(), g.reports());
    let half = g.replayed(n / 2);
    assert_eq!(half.action_count(), n / 2);
    let mut again = Game::new(s, 11).unwrap();
    for a in g.actions().into_iter().take(n / 2) {
        again.apply(a).unwrap();
    }
    assert_eq!(half.snapshot(), again.snapshot());
    // A save that names another rule set is refused at its line.
    let other = text.replacen("rules: Purky", "rules: Tiny", 1);
    assert!(Save::parse(&other, "game.ron").unwrap_err().contains("game.ron:"), "located");
}

// Every refused action changes nothing, not even the dice.
#[test]
fn a_refused_action_changes_nothing() {
    let mut g = duel(PurkyClass::Regulars, 16, 6.0, |_| {});
    to_step(&mut g, Step::Move(Team::A), Team::A);
    let before = g.snapshot();
    for a in [
        Action::Fire { unit: "Blue Foot".into(), target: "Red Foot".into() },
        Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(99.0)] },
        Action::Move { unit: "Nobody".into(), steps: vec![MoveStep::Forward(1.0)] },
        Action::Answer { prompt: 9, option: 0 },
        Action::ChangeFormation { unit: "Blue Foot".into(), formation: Formation::Limbered },
    ] {
        assert!(g.apply(a).is_err());
    }
    assert_eq!(g.snapshot(), before);
}

/// The game's invariants: figures within their start, stands carry the unit's figures, the
/// open question is about a unit on the table, the step is a step of the turn.
fn invariants(g: &Game, seed: u64) {
    for (e, u) in g.live_units() {
        assert!(u.figures > 0 && u.figures <= u.initial_figures, "seed {seed}: {}", u.name);
        let on: u32 = u.stands.iter().map(|&s| g.world.get::<Stand>(s).unwrap().figures).sum();
        assert_eq!(on, u.figures, "seed {seed}: {}", u.name);
        let pk = g.pk(e).unwrap();
        assert_eq!(pk.hits, u.initial_figures - u.figures, "seed {seed}: {} hits are figures lost (PK17)", u.name);
        assert!(g.removal_due(e).is_none(), "seed {seed}: {} should have been removed (PK24)", u.name);
    }
    if let Some(a) = g.open_question()
        && let Question::Rally { unit } | Question::Evade { unit, .. } = a.question
    {
        assert!(g.unit(unit).is_some(), "seed {seed}: a question about a removed unit");
    }
    for m in g.engagements() {
        assert!(g.unit(m.charger).is_some() && g.unit(m.target).is_some(), "seed {seed}: a melee with a removed unit");
    }
    // PK4: crews shelter only in a live, unbroken square beside their guns.
    for &(gun, sq) in &g.shelters {
        assert!(g.unit(gun).is_some_and(|u| u.formation == Formation::Square), "seed {seed}: sheltered guns are on the table");
        assert_eq!(g.square_beside(gun), Some(sq), "seed {seed}: {} shelters beside its square", g.name(gun));
    }
    // PK25: a lost leader is off the table for good.
    let mut q = g.world.try_query::<&crate::scenario::spawn::Commander>().unwrap();
    assert!(q.iter(&g.world).all(|c| !g.lost_leaders.contains(&c.name)), "seed {seed}: a lost leader on the table");
    assert!(g.world.try_query::<&Unit>().is_some());
}

/// `games` seeded automatic games of every AWI scenario, `turns` turns each (the scenario's own
/// turn limit if `None`: whole games), the invariants checked after every action; no action the
/// automatic player chooses is refused.
fn play_many(games: u64, turns: Option<u32>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|f| f.unwrap().path()).collect();
    // The smaller scenarios first, each reported as it completes.
    paths.sort_by_key(|p| (std::fs::metadata(p).map_or(0, |m| m.len()), p.clone()));
    // `PURKY_SCENARIOS=monmouth,camden` plays only those files (a long run in parts).
    if let Ok(only) = std::env::var("PURKY_SCENARIOS") {
        let only: Vec<&str> = only.split(',').map(str::trim).collect();
        paths.retain(|p| p.file_stem().is_some_and(|s| only.contains(&s.to_string_lossy().as_ref())));
        assert!(!paths.is_empty(), "PURKY_SCENARIOS names no scenario");
    }
    for path in paths {
        let mut s = crate::scenario::load(&path).unwrap();
        if turns.is_some() {
            s.turn_limit = turns;
        }
        for seed in 0..games {
            let mut g = Game::new(s.clone(), seed).unwrap();
            let mut bot = g.automatic();
            let mut n = 0;
            while let Some(a) = bot.next_action(&g) {
                if let Err(r) = g.apply(a.clone()) {
                    panic!("{} seed {seed}: the automatic player's {a} was refused: {r}", path.display());
                }
                invariants(&g, seed);
                n += 1;
                assert!(n < 20_000, "{} seed {seed}: no end", path.display());
            }
            // A cut game plays its turns; a whole game may end sooner, when a side has lost
            // every figure (PK25).
            assert!(g.summary().is_some_and(|s| turns.is_none_or(|t| s.turns_played == t)), "{} seed {seed}: the game ended", path.display());
            if games >= 100 && (seed + 1) % 100 == 0 {
                eprintln!("{}: {} games so far keep the invariants", path.display(), seed + 1);
            }
        }
        eprintln!("{}: {games} {} games keep the invariants", path.display(), turns.map_or("whole".into(), |t| format!("{t}-turn")));
    }
}

// PK1–PK25: invariants over seeded automatic games of every AWI scenario (the suite's share).
#[test]
fn automatic_games_of_every_scenario_keep_the_invariants() {
    play_many(4, Some(2));
}

// The same over 1,000 seeded whole games of each AWI scenario (to its turn limit): run with
// `cargo test --release --no-default-features --lib purky -- --ignored`.
#[test]
#[ignore]
fn a_thousand_automatic_games_of_every_scenario_keep_the_invariants() {
    play_many(1000, None);
}

// PK9: rough ground halves the rate; crossing a linear obstacle costs half the rate.
#[test]
fn rough_ground_and_obstacles_slow_a_move() {
    let woods = |s: &mut Scenario| {
        s.terrain.push(model::Terrain::Woods { name: "Copse".into(), density: model::WoodsDensity::Regular, outline: vec![[10.0, 6.0], [38.0, 6.0], [38.0, 18.0], [10.0, 18.0]], disorder: None });
    };
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, woods);
    to_step(&mut g, Step::Move(Team::A), Team::A);
    let fwd = |d| Action::Move { unit: "Blue Foot".into(), steps: vec![MoveStep::Forward(d)] };
    assert_eq!(cite(g.check(&fwd(5.5))), "PK6", "10\" halved in woods");
    let r = g.apply(fwd(4.5)).unwrap();
    assert!(r.notes.iter().any(|n| n.rule == "9" && n.text.contains("rough")), "{r}");
    let fence = |s: &mut Scenario| {
        s.terrain.push(model::Terrain::Obstacle { name: "Rail fence".into(), kind: model::ObstacleKind::Fence, path: vec![[10.0, 14.0], [38.0, 14.0]], impassable_to_artillery: false });
    };
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, fence);
    to_step(&mut g, Step::Move(Team::A), Team::A);
    assert_eq!(cite(g.check(&fwd(5.5))), "PK6", "5.5\" and 5\" for the fence is over 10\"");
    let r = g.apply(fwd(4.5)).unwrap();
    assert!(r.notes.iter().any(|n| n.rule == "9" && n.text.contains("Rail fence")), "{r}");
}

// One check an action: every choice the views offer is judged as `apply` judges it.
#[test]
fn the_views_choices_are_judged_as_apply_judges_them() {
    let mut s = crate::scenario::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/cowpens.ron")).unwrap();
    s.turn_limit = Some(2);
    let mut g = Game::new(s, 5).unwrap();
    let mut bot = g.automatic();
    let (mut n, mut refused, mut taken) = (0, 0, 0);
    while let Some(a) = bot.next_action(&g) {
        if n % 5 == 0 {
            let mut choices = g.sequence_choices();
            let live: Vec<Entity> = g.live_units().map(|(e, _)| e).collect();
            for &u in &live {
                choices.extend(g.unit_choices_now(u));
                for &t in live.iter().rev().take(4) {
                    choices.extend(g.target_choices_now(u, t));
                }
            }
            let before = g.snapshot();
            for c in &choices {
                if let Err(why) = &c.verdict {
                    let applied = g.apply(c.action.clone());
                    assert_eq!(applied.as_ref().err(), Some(why), "{}", c.action);
                    refused += 1;
                }
            }
            assert_eq!(g.snapshot(), before, "refusals change nothing");
            if let Some(c) = choices.iter().find(|c| c.allowed() && c.action != Action::Next) {
                let mut copy = g.replayed_to(g.actions.len());
                assert!(copy.apply(c.action.clone()).is_ok(), "{}", c.action);
                taken += 1;
            }
        }
        g.apply(a).unwrap();
        n += 1;
    }
    assert!(refused > 50 && taken > 5, "{refused} refused, {taken} taken");
}

// ---- the parts built after the first session: PK11, PK16, PK4, PK25 ----

/// Blue Foot (regulars, 16 figures) charges Red Foot, light companies in skirmish order
/// `gap` inches ahead; returns the game at the open evade question.
fn skirmishers_charged(gap: f32, edit: impl FnOnce(&mut Scenario)) -> Game {
    let mut g = duel(PurkyClass::Regulars, 16, gap, |s| {
        let red = unit(s, "Red Foot");
        red.purky = Some(PurkyProfile { class: PurkyClass::LightCompanies, figures: Some(8) });
        red.unit_type = model::UnitType::Light;
        red.formation = Formation::Skirmish;
        edit(s);
    });
    to_step(&mut g, Step::Move(Team::A), Team::A);
    g.apply(Action::Charge { unit: "Blue Foot".into(), target: "Red Foot".into() }).unwrap();
    assert!(matches!(g.open_question().map(|a| a.question), Some(Question::Evade { .. })));
    g
}

fn front_y(g: &Game, name: &str) -> f32 {
    let s = g.situation();
    let u = s.units().iter().find(|u| u.name == name).unwrap();
    u.stands.iter().map(|st| st.footprint.centre.y).sum::<f32>() / u.stands.len() as f32
}

// PK11: skirmishers charged may fire and evade half a move (then test morale), besides
// evading a full move or standing; the fire is the unit's pool with its exact odds, and the
// engine refuses the answer when they cannot fire.
#[test]
fn pk11_skirmishers_fire_then_evade_half_a_move() {
    let mut g = skirmishers_charged(5.0, |_| {});
    let a = g.open_question().unwrap();
    let red = e(&g, "Red Foot");
    let full = g.rate(red).unwrap().full;
    let p = g.sequence_view().prompt.unwrap();
    assert_eq!(p.options.len(), 3);
    assert_eq!(cite(g.check(&Action::Answer { prompt: a.id, option: 3 })), "PK11");
    // The fire's exact odds, before it is rolled.
    let fire = Action::Answer { prompt: a.id, option: 2 };
    let preview = g.preview_of(&fire).unwrap().unwrap();
    let Question::Evade { unit, charger } = a.question else { panic!() };
    let shot = g.evade_fire(unit, charger).unwrap();
    assert_eq!(preview.blocks[0].odds.iter().map(|o| o.chance).collect::<Vec<_>>(), odds::pool_hits(shot.pool.dice, shot.pool.value));
    // Once fired this turn, they may not fire again: the answer is refused, nothing changes.
    g.mark(red, |m| m.fired = true);
    let before = g.snapshot();
    assert_eq!(cite(g.apply(fire.clone())), "PK11");
    assert_eq!(g.snapshot(), before);
    g.mark(red, |m| m.fired = false);
    let y0 = front_y(&g, "Red Foot");
    let blue0 = g.unit(e(&g, "Blue Foot")).unwrap().figures;
    let r = g.apply(fire).unwrap();
    let hits = r.dice.iter().find(|d| d.rule == "12").unwrap().roll.faces.iter().filter(|&&f| f <= shot.pool.value).count() as u32;
    assert_eq!(g.unit(e(&g, "Blue Foot")).unwrap().figures, blue0 - hits, "{r}");
    assert!(r.dice.iter().any(|d| d.rule == "20"), "then a morale test: {r}");
    assert!(g.pk(red).unwrap().fired);
    assert!(g.engagements().is_empty(), "the charge found no one");
    let moved = front_y(&g, "Red Foot") - y0;
    assert!((moved - full / 2.0).abs() < 0.3, "half of {full}\": {moved}");
    // The full evade goes twice as far, and does not fire.
    let mut h = skirmishers_charged(5.0, |_| {});
    let a = h.open_question().unwrap();
    let y0 = front_y(&h, "Red Foot");
    let r = h.apply(Action::Answer { prompt: a.id, option: 0 }).unwrap();
    assert!(r.dice.iter().all(|d| d.rule != "12"));
    assert!((front_y(&h, "Red Foot") - y0 - full).abs() < 0.3);
}

// PK11: the automatic player fires and evades when its pool expects half a hit or more.
#[test]
fn pk11_the_automatic_player_fires_before_evading() {
    let g = skirmishers_charged(5.0, |_| {});
    let a = g.open_question().unwrap();
    let Question::Evade { unit, charger } = a.question else { panic!() };
    let shot = g.evade_fire(unit, charger).unwrap();
    let expected = shot.pool.dice as f64 * odds::at_or_under(shot.pool.value);
    let chosen = g.automatic().next_action(&g);
    let want = if expected >= 0.5 { 2 } else { 0 };
    assert_eq!(chosen, Some(Action::Answer { prompt: a.id, option: want }), "expects {expected} hits");
}

/// Red Foot as 6 light-company figures in skirmish order, `gap` inches from Blue's line,
/// the optional skirmisher fire switched `on`; at Red's fire step (Side B fires first).
fn skirmish_fire_game(on: bool, figures: u32, gap: f32) -> Game {
    let mut g = duel(PurkyClass::Regulars, 16, gap, |s| {
        s.optional_rules.purky_skirmisher_fire = on;
        let red = unit(s, "Red Foot");
        red.purky = Some(PurkyProfile { class: PurkyClass::LightCompanies, figures: Some(figures) });
        red.unit_type = model::UnitType::Light;
        red.formation = Formation::Skirmish;
    });
    to_step(&mut g, Step::Fire(Team::B), Team::A);
    g
}

// PK16: the optional skirmisher fire, switched on by the scenario: each figure of a group of
// 6 or fewer rolls a d10 and hits on 2 or less, at up to 18", whatever the target's chart;
// off (the default), or for 7 figures, the card's pool.
#[test]
fn pk16_optional_skirmisher_fire_is_a_die_a_figure_at_eighteen_inches() {
    let off = skirmish_fire_game(false, 6, 14.0);
    assert_eq!(cite(off.check_fire("Red Foot", "Blue Foot")), "PK12", "8\" is the card's range");
    let mut on = skirmish_fire_game(true, 6, 14.0);
    let shot = on.check_fire("Red Foot", "Blue Foot").unwrap();
    assert!(shot.pool.skirmish);
    assert_eq!((shot.pool.dice, shot.pool.value), (shot.pool.figures, 2));
    assert!(shot.pool.figures > 0 && shot.pool.figures <= 6);
    assert!(shot.pool.why.iter().all(|w| w.1 == "16"));
    let preview = on.preview_of(&Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() }).unwrap().unwrap();
    assert_eq!(preview.blocks[0].odds.iter().map(|o| o.chance).collect::<Vec<_>>(), odds::pool_hits(shot.pool.dice, 2));
    assert!(preview.blocks[0].factors[0].name.contains("optional skirmisher fire"));
    assert_eq!(on.fire_reach(e(&on, "Red Foot")), 18.0);
    assert_eq!(on.unit_fire_bands(e(&on, "Red Foot"))[0].reach, 18.0);
    let r = on.apply(Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() }).unwrap();
    let hits = r.dice[0].roll.faces.iter().filter(|&&f| f <= 2).count() as u32;
    assert_eq!(r.dice[0].rule, "16");
    assert_eq!(g_figures(&on, "Blue Foot"), 16 - hits);
    assert!(r.charts.iter().any(|c| c.column.contains("optional")), "{r}");
    let far = skirmish_fire_game(true, 6, 19.0);
    assert_eq!(cite(far.check_fire("Red Foot", "Blue Foot")), "PK12", "beyond 18\"");
    let big = skirmish_fire_game(true, 7, 6.0);
    let shot = big.check_fire("Red Foot", "Blue Foot").unwrap();
    assert!(!shot.pool.skirmish, "7 figures fire by the card");
    assert_eq!((CHARTS[shot.pool.chart], shot.pool.dice), ('C', 2));
}

fn g_figures(g: &Game, name: &str) -> u32 {
    g.unit(e(g, name)).unwrap().figures
}

// PK16: the automatic player uses the optional fire: its skirmishers shoot at 14".
#[test]
fn pk16_the_automatic_player_fires_skirmishers_at_eighteen_inches() {
    let g = skirmish_fire_game(true, 6, 14.0);
    assert_eq!(g.automatic().next_action(&g), Some(Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() }));
    let off = skirmish_fire_game(false, 6, 14.0);
    assert_eq!(off.automatic().next_action(&off), Some(Action::Next), "out of the card's 8\"");
}

/// Blue Foot (regulars) in square, Blue Column turned into a light gun (`class`) unlimbered
/// with its stand 0.5" off the square's right face; at Blue's move step (Side A).
fn gun_beside_square(class: PurkyClass) -> Game {
    let mut g = duel(PurkyClass::Regulars, 16, 12.0, |s| {
        // PK6: square is a formation a Purky scenario may name.
        s.rules = crate::rules::cite::RuleSetId::Purky;
        unit(s, "Blue Foot").formation = Formation::Square;
        let gun = unit(s, "Blue Column");
        gun.arm = model::Arm::Artillery { gun: model::GunSize::Light, galloper: false };
        gun.weapon = None;
        gun.unit_type = model::UnitType::Line;
        gun.formation = Formation::Unlimbered;
        gun.figures = 2;
        gun.figures_per_stand = None;
        gun.purky = Some(PurkyProfile { class, figures: Some(2) });
    });
    let (square, gun) = (e(&g, "Blue Foot"), e(&g, "Blue Column"));
    let faces: Vec<crate::table::footprint::Footprint> = g.unit(square).unwrap().stands.iter().map(|&s| *g.world.get::<crate::table::footprint::Footprint>(s).unwrap()).collect();
    let right = faces.iter().flat_map(|f| f.corners()).map(|p| p.x).fold(f32::MIN, f32::max);
    let mid = faces.iter().map(|f| f.centre.y).sum::<f32>() / faces.len() as f32;
    let stand = g.unit(gun).unwrap().stands[0];
    let mut fp = g.world.get_mut::<crate::table::footprint::Footprint>(stand).unwrap();
    fp.facing = 90.0;
    fp.centre = bevy::math::Vec2::new(right + 0.5 + fp.depth / 2.0, mid);
    g.table = std::sync::OnceLock::new();
    to_step(&mut g, Step::Move(Team::A), Team::A);
    g
}

// PK4: the card's "•" under Square: a light gun (or amusette) beside a friendly square sends
// its crews in as one of its functions; it then neither moves nor fires, is neither fired at
// nor charged (the square is), comes out by forming unlimbered, and is lost if the square
// breaks. Heavier guns have no "•".
#[test]
fn pk4_light_guns_shelter_in_a_square() {
    let mut g = gun_beside_square(PurkyClass::LightGuns);
    let (square, gun) = (e(&g, "Blue Foot"), e(&g, "Blue Column"));
    assert_eq!(g.square_beside(gun), Some(square));
    let shelter = Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Square };
    assert!(g.unit_choices_now(gun).iter().any(|c| c.action == shelter && c.allowed()));
    let r = g.apply(shelter.clone()).unwrap();
    assert!(r.notes.iter().any(|n| n.rule == "4" && n.text.contains("Blue Foot")), "{r}");
    assert_eq!(g.shelter_of(gun), Some(square));
    assert!(g.unit_badges(gun).iter().any(|b| b.text == "in square"));
    assert_eq!(cite(g.check(&Action::Move { unit: "Blue Column".into(), steps: vec![MoveStep::Forward(1.0)] })), "PK4");
    to_step(&mut g, Step::Move(Team::B), Team::A);
    let charge = g.check(&Action::Charge { unit: "Red Foot".into(), target: "Blue Column".into() }).unwrap_err();
    assert_eq!((charge.cite().to_string(), charge.reason.contains("charge the square")), ("PK4".into(), true), "{}", charge.reason);
    to_step(&mut g, Step::Fire(Team::B), Team::A);
    assert_eq!(cite(g.check_fire("Red Foot", "Blue Column")), "PK4");
    to_step(&mut g, Step::Fire(Team::A), Team::A);
    assert_eq!(cite(g.check_fire("Blue Column", "Red Foot")), "PK4");
    // Next turn the crews come out (a function) and the gun may fire again.
    to_step(&mut g, Step::Initiative, Team::A);
    to_step(&mut g, Step::Move(Team::A), Team::A);
    assert_eq!(cite(g.check(&Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Limbered })), "PK4");
    g.apply(Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Unlimbered }).unwrap();
    assert_eq!(g.shelter_of(gun), None);
    assert_eq!(g.unit(gun).unwrap().formation, Formation::Unlimbered);
    // Back in, then the square breaks: the guns are abandoned.
    g.apply(shelter).unwrap();
    g.mark(square, |m| m.status = Status::Routed);
    let r = g.apply(Action::Next).unwrap();
    assert!(r.changes.iter().any(|c| c.rule == "28" && c.text.contains("abandoned")), "{r}");
    assert_eq!(cite(g.find("Blue Column")), "PK24");
    // A medium gun has no "•"; a light gun with no square beside it has nowhere to go.
    let medium = gun_beside_square(PurkyClass::MediumGuns);
    assert_eq!(cite(medium.check(&Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Square })), "PK4");
    let mut alone = gun_beside_square(PurkyClass::LightGuns);
    let sq = e(&alone, "Blue Foot");
    alone.world.get_mut::<Unit>(sq).unwrap().formation = Formation::Line;
    alone.table = std::sync::OnceLock::new();
    let refusal = alone.check(&Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Square }).unwrap_err();
    assert!(refusal.reason.contains("no friendly square"), "{}", refusal.reason);
}

// PK4: a square that forms line sends the crews back to their guns.
#[test]
fn pk4_a_square_that_forms_line_sends_the_crews_out() {
    let mut g = gun_beside_square(PurkyClass::Amusettes);
    g.apply(Action::ChangeFormation { unit: "Blue Column".into(), formation: Formation::Square }).unwrap();
    g.world.get_mut::<Unit>(e(&g, "Blue Foot")).unwrap().formation = Formation::Line;
    g.table = std::sync::OnceLock::new();
    let r = g.apply(Action::Next).unwrap();
    assert!(r.changes.iter().any(|c| c.rule == "4" && c.text.contains("come out")), "{r}");
    assert_eq!(g.unit(e(&g, "Blue Column")).unwrap().formation, Formation::Unlimbered);
}

/// The duel with Col. Blue standing on Blue Foot's middle stand, at Red's fire step, 4"
/// apart so Red's pool is large.
fn leader_with_blue(seed: u64) -> Game {
    let mut g = duel(PurkyClass::Regulars, 16, 4.0, |s| s.sides[0].brigades[0].commander.at = Some([24.0, 11.0]));
    g.seed = seed;
    g.dice = Dice::new(seed);
    to_step(&mut g, Step::Fire(Team::B), Team::A);
    g
}

// PK25: a leader with a unit that is hit rolls a d10 and is lost on a 1; the preview gives
// the exact chance (a hit, then the 1); a lost leader is not replaced: he rides no more and
// his brigade moves at half rate (PK5).
#[test]
fn pk25_a_leader_with_a_unit_hit_is_lost_on_a_one() {
    let (mut rolled, mut lost) = (0, 0);
    for seed in 0..400 {
        let mut g = leader_with_blue(seed);
        let blue = e(&g, "Blue Foot");
        assert_eq!(g.leaders_with(blue).len(), 1);
        let fire = Action::Fire { unit: "Red Foot".into(), target: "Blue Foot".into() };
        let shot = g.check_fire("Red Foot", "Blue Foot").unwrap();
        let hits = odds::pool_hits(shot.pool.dice, shot.pool.value);
        let preview = g.preview_of(&fire).unwrap().unwrap();
        let risk = preview.blocks.iter().find(|b| b.heading.contains("leaders with Blue Foot")).expect("the leader's risk is shown");
        assert!((risk.odds[0].chance - (1.0 - hits[0]) / 10.0).abs() < 1e-12);
        let r = g.apply(fire).unwrap();
        let leader_die = r.dice.iter().find(|d| d.rule == "25");
        let hit = g_figures(&g, "Blue Foot") < 16;
        assert_eq!(leader_die.is_some(), hit, "seed {seed}: a roll when, and only when, the unit is hit");
        if let Some(d) = leader_die {
            rolled += 1;
            let gone = d.roll.faces[0] == 1;
            assert_eq!(r.changes.iter().any(|c| c.rule == "25" && c.text.contains("Col. Blue is lost")), gone, "seed {seed}");
            if gone {
                lost += 1;
                assert!(g.leaders_with(blue).is_empty());
                let ride = g.check(&Action::MoveLeader { leader: "Col. Blue".into(), to: bevy::math::Vec2::new(20.0, 5.0) }).unwrap_err();
                assert_eq!((ride.cite().to_string(), ride.reason.contains("was lost")), ("PK25".into(), true), "{}", ride.reason);
                let rate = g.rate(blue).unwrap();
                assert_eq!(rate.full, 5.0, "regulars in line, 10\" halved: {:?}", rate.why);
                assert!(rate.why.iter().any(|w| w.1 == "5" && w.0.contains("lost")));
            }
        }
    }
    // One in ten, over the seeded rolls.
    let share = lost as f64 / rolled as f64;
    assert!(rolled > 300 && (0.05..0.16).contains(&share), "{lost} of {rolled}");
}

// PK25, PK1: a lost C-in-C takes his initiative bonus with him.
#[test]
fn pk25_a_lost_commander_in_chief_adds_nothing_to_the_initiative() {
    let mut g = duel(PurkyClass::Regulars, 16, 20.0, |s| {
        s.sides[1].commander = Some(model::Commander { name: "Tarleton".into(), kind: model::CommanderKind::British, rating: Some(model::Rating::Aggressive), at: None, acw: None });
    });
    assert!(g.initiative_bonus(1).is_some());
    g.lost_leaders.push("Tarleton".into());
    assert_eq!(g.initiative_bonus(1), None);
}
