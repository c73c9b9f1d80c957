//! OTP 10.0 MORALE: every condition on a unit's position or state, just inside and just outside
//! (covered elsewhere: 10.1 marker, 10.4 same turn and firefight markers, 10.5 replacement; see
//! docs/rules-sweep-otp.md).

use otp::rules::otp::charts::Severity;
use otp::rules::otp::engine::{Action, Game, Removal};
use otp::scenario::model::ObstacleKind;

use super::{CORNERS, charts, foot, ready, scenario};
use crate::common::{activate, ok, refused};

/// Line infantry with a Morale Marker from the start.
fn shaken(name: &str, figures: u32, at: (f32, f32)) -> String {
    super::unit(name, "Line", "Infantry", "Some(Musket)", figures, "Line", at, 0.0, ", morale_marker: true")
}

fn roll(unit: &str) -> Action {
    Action::RemoveMarker { unit: unit.into(), how: Removal::Roll }
}

fn pass(unit: &str, commander: &str) -> Action {
    Action::RemoveMarker { unit: unit.into(), how: Removal::Pass { commander: commander.into() } }
}

fn reroll(unit: &str, commander: &str) -> Action {
    Action::RemoveMarker { unit: unit.into(), how: Removal::RerollWithPass { commander: commander.into() } }
}

// OTP 10.2: "makes only ONE roll on the MORALE RESULTS TABLE for each turn": the first roll is
// made, a second refused.
#[test]
fn one_morale_roll_a_turn_first_made_second_refused() {
    let s = scenario(&shaken("Grenadiers", 8, (36.0, 20.0)), &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
    let mut g = ready(&s, 4, "Redcoats");
    let r = ok(&mut g, roll("Grenadiers"));
    assert_eq!(r.dice.iter().filter(|d| d.rule == "10.2").count(), 1, "{r}");
    refused(&mut g, roll("Grenadiers"), "10.2");
}

// OTP 10.2, 10.4: "the player can reroll once by expending a commander's morale pass … must
// accept the reroll result": one re-roll, a second refused.
#[test]
fn reroll_with_a_pass_once_second_refused() {
    let s = scenario(&shaken("Grenadiers", 8, (36.0, 20.0)), &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", (36.0, 14.0), CORNERS.1, "");
    let mut g = ready(&s, 4, "Redcoats");
    ok(&mut g, roll("Grenadiers"));
    let r = ok(&mut g, reroll("Grenadiers", "Col. Red"));
    assert_eq!(r.dice.iter().filter(|d| d.rule == "10.2").count(), 1, "{r}");
    refused(&mut g, reroll("Grenadiers", "Col. Red"), "10.2");
}

// OTP 10.2 ("the commander must have the movement to reach the unit"), 6.12 (24"): Col. Red
// 24.0" from the unit's nearest edge uses his pass; 24.25" away he cannot reach it.
#[test]
fn pass_ride_24_0_reaches_24_25_does_not() {
    for (ride, reaches) in [(24.0, true), (24.25, false)] {
        // The unit's front edge is y = 20, facing up the table; Col. Red straight ahead of it.
        let s = scenario(&shaken("Grenadiers", 8, (36.0, 20.0)), &foot("Blues", 8, "Line", (60.0, 40.0), 180.0), "", (36.0, 20.0 + ride), CORNERS.1, "");
        let mut g = ready(&s, 4, "Redcoats");
        if reaches {
            let r = ok(&mut g, pass("Grenadiers", "Col. Red"));
            assert!(r.changes.iter().any(|c| c.rule == "10.4" && c.text.contains("Morale Marker removed")), "{r}");
        } else {
            refused(&mut g, pass("Grenadiers", "Col. Red"), "6.12");
        }
    }
}

// OTP 10.4: "The commander's morale passes are only usable once": an Aggressive commander has 3;
// the third is used, a fourth refused.
#[test]
fn morale_passes_aggressive_3_used_fourth_refused() {
    let units: String = (0..4).map(|i| shaken(&format!("Unit {i}"), 4, (30.0 + 3.0 * i as f32, 20.0))).collect();
    let s = scenario(&units, &foot("Blues", 8, "Line", (60.0, 40.0), 180.0), "", (34.0, 21.0), CORNERS.1, "");
    let mut g = ready(&s, 4, "Redcoats");
    let red = g.commander_entity("Col. Red").unwrap();
    assert_eq!(g.passes_left(red), 3, "Aggressive: 3 passes (10.4)");
    for i in 0..3 {
        ok(&mut g, pass(&format!("Unit {i}"), "Col. Red"));
    }
    assert_eq!(g.passes_left(red), 0);
    let r = refused(&mut g, pass("Unit 3", "Col. Red"), "10.4");
    assert!(r.reason.contains("used all his morale passes"), "{r}");
}

// OTP 10.4: "A brigade or division commander may use his morale passes only on units in his
// brigade or division. The overall commander can use his morale passes on any unit."
#[test]
fn morale_pass_brigade_commander_own_brigade_only_overall_any() {
    let src = r#"(
    name: "sweep 10.4",
    table: (width: 72.0, depth: 48.0),
    sides: [
        (name: "British", commander: Some((name: "Gen. Grey", kind: British, rating: Some(Aggressive), at: Some((40.0, 22.0)))), brigades: [
            (name: "Redcoats", chit: 1, commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((30.0, 22.0))),
             units: [(name: "Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (30.0, 20.0), facing: 0.0, morale_marker: true)]),
            (name: "Guards", chit: 3, commander: (name: "Col. Guard", kind: British, rating: Some(Aggressive), at: Some((1.0, 1.0))),
             units: [(name: "Guards", type: Line, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (40.0, 20.0), facing: 0.0, morale_marker: true)]),
        ]),
        (name: "Americans", brigades: [(name: "Patriots", chit: 2, commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some((71.0, 47.0))),
            units: [(name: "Blues", type: Line, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (60.0, 40.0), facing: 180.0)])]),
    ],
)"#;
    let s = otp::scenario::parse(src, "sweep-10-4.ron").unwrap_or_else(|e| panic!("{e}"));
    let mut g = Game::new(s, 2, charts().clone());
    ok(&mut g, Action::StartGame);
    activate(&mut g, "Guards");
    let r = refused(&mut g, pass("Guards", "Col. Red"), "10.4");
    assert!(r.reason.contains("only on units in his brigade"), "{r}");
    ok(&mut g, pass("Guards", "Gen. Grey"));
}

/// A unit of `figures` that has lost `lost`: its 10.3 loss category.
fn severity(figures: u32, lost: u32) -> Severity {
    let s = scenario(&foot("Grenadiers", figures, "Line", (36.0, 20.0), 0.0), &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
    let mut g = ready(&s, 1, "Redcoats");
    let e = g.unit_entity("Grenadiers").unwrap();
    g.lose_figures(e, lost);
    g.morale_modifiers(e).severity
}

// OTP 10.3: "Light (Less than or equal to 10% of original strength), Moderate (10% losses to
// 24.99%), Substantial (25% losses to 50%), and Severe (over 50%)". A unit of 40 (beyond the
// Expanded Table, so the percentages): 4 lost (10%) Light, 5 Moderate; 9 Moderate, 10 (25%)
// Substantial; 20 (50%) Substantial, 21 Severe.
#[test]
fn loss_severity_40_figures_4_5_9_10_20_21() {
    let cases = [(4, Severity::Light), (5, Severity::Moderate), (9, Severity::Moderate), (10, Severity::Substantial), (20, Severity::Substantial), (21, Severity::Severe)];
    for (lost, want) in cases {
        assert_eq!(severity(40, lost), want, "40 figures, {lost} lost");
    }
}

// OTP 10.3 and the Expanded Table of Figure Losses, row 20-21: Light 1-2, Moderate 3-5,
// Substantial 6-10, Severe 11+ (every cell: tests/charts.rs); here through the engine's unit.
#[test]
fn loss_severity_20_figures_2_3_5_6_10_11() {
    let cases = [(2, Severity::Light), (3, Severity::Moderate), (5, Severity::Moderate), (6, Severity::Substantial), (10, Severity::Substantial), (11, Severity::Severe)];
    for (lost, want) in cases {
        assert_eq!(severity(20, lost), want, "20 figures, {lost} lost");
    }
}

// OTP 10.3: "a unit with all of its stands and figures in, or behind, works … receives a die
// roll addition". The code's reading (`engine::morale::WORKS_REACH`): every stand within 1" of
// the works. Earthworks 1.0" in front of the unit: the bonus; 1.25": none; works in front of
// the left stand only (ending 1.5" short of the right one): none.
#[test]
fn works_all_stands_within_1_0_yes_1_25_no_one_stand_no() {
    let works = |y: f32, x1: f32| format!(r#"Obstacle(name: "Redoubt", kind: Breastwork, path: [(30.0, {y}), ({x1}, {y})]),"#);
    let cases = [(works(21.0, 42.0), true), (works(21.25, 42.0), false), (works(21.0, 34.5), false)];
    for (terrain, bonus) in cases {
        let s = scenario(&foot("Grenadiers", 8, "Line", (36.0, 20.0), 0.0), &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), &terrain, CORNERS.0, CORNERS.1, "");
        let g = ready(&s, 1, "Redcoats");
        let e = g.unit_entity("Grenadiers").unwrap();
        assert_eq!(g.morale_modifiers(e).in_works, bonus, "{terrain}");
    }
    assert!(ObstacleKind::Breastwork.is_works());
}

/// Col. Red at (30, 19.6), level with the unit, to its left; the unit's right stand centre is at
/// x = 37. Light woods from `x0` rightwards.
fn seen_from_the_left(x0: f32) -> Game {
    let woods = format!(r#"Woods(name: "Copse", density: Light, outline: [({x0}, 10.0), (50.0, 10.0), (50.0, 30.0), ({x0}, 30.0)]),"#);
    let s = scenario(&shaken("Grenadiers", 8, (36.0, 20.0)), &foot("Blues", 8, "Line", (60.0, 40.0), 180.0), &woods, (30.0, 19.6), CORNERS.1, "visibility_restrictions: true");
    ready(&s, 4, "Redcoats")
}

// OTP 10.6 (optional): "If either the commander or the unit is in woods, visibility must be
// rolled". The code's reading: a stand centre in the woods. Woods from 0.1" left of the right
// stand's centre: a roll; from 0.1" right of it: none.
#[test]
fn sight_unit_in_woods_centre_0_1_inside_rolls_0_1_outside_not() {
    for (x0, rolls) in [(36.9, true), (37.1, false)] {
        let mut g = seen_from_the_left(x0);
        let r = ok(&mut g, pass("Grenadiers", "Col. Red"));
        assert_eq!(r.dice.iter().filter(|d| d.rule == "10.6").count(), rolls as usize, "woods from x = {x0}: {r}");
    }
}

// OTP 10.6 (optional): "The commander also must have a direct line of sight open to the unit".
// Col. Red 9.25" below a one-stand unit; a friendly stand between them, its right edge 0.1"
// short of the last open line (to the unit's near right corner), or 0.1" across it.
#[test]
fn sight_blocked_by_a_unit_0_1_across_the_last_line_refused_0_1_short_allowed() {
    let edge = 36.0 + 5.0 / 9.25;
    for (right, open) in [(edge - 0.1, true), (edge + 0.1, false)] {
        let units = format!("{}{}", shaken("Grenadiers", 4, (36.0, 20.0)), super::unit("Screen", "Line", "Infantry", "Some(Musket)", 4, "Line", (right - 1.0, 15.0), 180.0, ""));
        let s = scenario(&units, &foot("Blues", 8, "Line", (60.0, 40.0), 180.0), "", (36.0, 10.0), CORNERS.1, "visibility_restrictions: true");
        let mut g = ready(&s, 4, "Redcoats");
        if open {
            ok(&mut g, pass("Grenadiers", "Col. Red"));
        } else {
            let r = refused(&mut g, pass("Grenadiers", "Col. Red"), "10.6");
            assert!(r.reason.contains("Screen"), "{r}");
        }
    }
}

// OTP 10.6 is optional: with it off, the blocked line does not matter.
#[test]
fn sight_not_asked_without_the_option() {
    let edge = 36.0 + 5.0 / 9.25;
    let units = format!("{}{}", shaken("Grenadiers", 4, (36.0, 20.0)), super::unit("Screen", "Line", "Infantry", "Some(Musket)", 4, "Line", (edge - 0.9, 15.0), 180.0, ""));
    let s = scenario(&units, &foot("Blues", 8, "Line", (60.0, 40.0), 180.0), "", (36.0, 10.0), CORNERS.1, "");
    let mut g = ready(&s, 4, "Redcoats");
    ok(&mut g, pass("Grenadiers", "Col. Red"));
}

// OTP 10.6 (optional), 6.12: "A player may move a commander into a position where a unit is then
// visible, but must count this movement off of the commander's allowed total." Col. Red rides
// 20" first; the unit's edge is then 4.0" off (allowed) or 4.25" (beyond his 24", refused).
#[test]
fn pass_after_a_ride_4_0_left_allowed_4_25_refused() {
    for (rest, allowed) in [(4.0, true), (4.25, false)] {
        let s = scenario(&shaken("Grenadiers", 8, (36.0, 20.0)), &foot("Blues", 8, "Line", (60.0, 40.0), 180.0), "", (14.0, 20.0 + rest), CORNERS.1, "visibility_restrictions: true");
        let mut g = ready(&s, 4, "Redcoats");
        ok(&mut g, Action::MoveCommander { commander: "Col. Red".into(), to: bevy::math::Vec2::new(34.0, 20.0 + rest) });
        // He is now straight ahead of the unit's left end (34, 20), `rest` inches off.
        let red = g.commander_entity("Col. Red").unwrap();
        let at = g.commander(red).at;
        assert!((at - bevy::math::Vec2::new(34.0, 20.0 + rest)).length() < 1e-4);
        if allowed {
            ok(&mut g, pass("Grenadiers", "Col. Red"));
        } else {
            refused(&mut g, pass("Grenadiers", "Col. Red"), "6.12");
        }
    }
}

// OTP 10.6 (optional) with 8.7: neither the commander nor the unit in woods, but 1" or more of
// woods on the line between them calls for a roll: a strip 0.9" deep, none; 1.0", a roll.
#[test]
fn sight_woods_between_0_9_no_roll_1_0_roll() {
    for (deep, rolls) in [(0.9, false), (1.0, true)] {
        let woods = format!(r#"Woods(name: "Hedge", density: Light, outline: [(20.0, 14.0), (50.0, 14.0), (50.0, {}), (20.0, {})]),"#, 14.0 + deep, 14.0 + deep);
        let s = scenario(&shaken("Grenadiers", 8, (36.0, 20.0)), &foot("Blues", 8, "Line", (60.0, 40.0), 180.0), &woods, (36.0, 10.0), CORNERS.1, "visibility_restrictions: true");
        let mut g = ready(&s, 4, "Redcoats");
        let r = ok(&mut g, pass("Grenadiers", "Col. Red"));
        assert_eq!(r.dice.iter().filter(|d| d.rule == "10.6").count(), rolls as usize, "{deep}\" of woods: {r}");
    }
}
