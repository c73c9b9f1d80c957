//! OTP 9.0 MELEE: every condition on a unit's position or state, just inside and just outside
//! (covered elsewhere: 9.1 front/flank from the starting position, 9.12 cavalry 12.0"/12.25",
//! 6.9 reach; see docs/rules-sweep-otp.md).

use bevy::math::Vec2;

use otp::rules::otp::engine::{ChargeOptions, Game, Report};
use otp::rules::otp::melee::{self, ChargeFacts, Leader, Melee, MeleeTable, RollFacts, UnitValue};
use otp::scenario::model::{Arm, Formation, GunSize, ObstacleKind, Rating, Table, Terrain, UnitType, Weapon, WoodsDensity};
use otp::table::contact::charge_path;
use otp::table::situation::{Situation, UnitInfo};

use super::{CORNERS, charts, foot, horse, ready, rect, scenario, unit, v};
use crate::common::ok;

fn table(units: Vec<UnitInfo>, terrain: Vec<Terrain>) -> MeleeTable {
    MeleeTable::from_situation(Situation::new(Table { width: 72.0, depth: 48.0 }, terrain, units))
}

/// Unit `a` charges unit `d` (moved into contact along its charge path); the melee.
fn fight(t: &MeleeTable, a: usize, d: usize) -> Melee {
    let path = charge_path(&t.situation, a, d, &otp::rules::otp::engine::move_rules::OTP);
    let placed = t.with_stands(a, &path.stands);
    melee::assess(&placed, charts(), &[a], &[d], &[ChargeFacts::from(&path)])
}

fn of<'a>(m: &'a Melee, name: &str) -> &'a UnitValue {
    m.attacker.units.iter().chain(&m.defender.units).find(|u| u.name == name).unwrap_or_else(|| panic!("{name} is not in the melee"))
}

fn mods(u: &UnitValue) -> Vec<String> {
    u.modifiers.iter().map(|m| m.name.clone()).collect()
}

fn mults(u: &UnitValue) -> Vec<String> {
    u.multipliers.iter().map(|m| m.name.clone()).collect()
}

/// 8 muskets in line facing up the table, front from (18, 20) to (22, 20).
fn defender() -> UnitInfo {
    UnitInfo::foot("Defender", 1, 8, Formation::Line, v(20.0, 20.0), 0.0)
}

/// 8 muskets in line 5" in front of the defender, facing it.
fn attacker() -> UnitInfo {
    UnitInfo::foot("Attacker", 0, 8, Formation::Line, v(20.0, 25.0), 180.0)
}

fn dice(r: &Report, rule: &str) -> usize {
    r.dice.iter().filter(|d| d.rule == rule).count()
}

fn noted(r: &Report, rule: &str, text: &str) -> bool {
    r.changes.iter().chain(&r.notes).any(|e| e.rule == rule && e.text.contains(text))
}

/// The first seed in 0..400 whose charge report passes `want`.
fn scan(s: &otp::scenario::Scenario, unit: &str, target: &str, want: impl Fn(&Report) -> bool) -> Report {
    for seed in 0..400 {
        let mut g = ready(s, seed, "Redcoats");
        let r = ok(&mut g, otp::rules::otp::engine::Action::Charge { unit: unit.into(), target: target.into() });
        if want(&r) {
            return r;
        }
    }
    panic!("no seed gives the branch wanted");
}

fn failed(r: &Report) -> bool {
    r.notes.iter().any(|e| e.rule == "9.1" && e.text.contains("fails"))
}

fn passed(r: &Report) -> bool {
    r.notes.iter().any(|e| e.rule == "9.1" && e.text.contains("passes"))
}

// OTP 9.1, 9.14: "The attacking unit must begin its move directly behind the target unit to
// count as a rear attack" (x3). The defender spans x = 18–22; a one-stand attacker behind it
// whose right edge is 0.1" inside x = 22 attacks the rear, 0.1" outside the flank (x2).
#[test]
fn rear_attack_0_1_inside_the_side_line_x3_0_1_outside_flank_x2() {
    for (x, zone, mult) in [(20.9, "Rear", "rear"), (21.1, "Flank", "flank")] {
        let behind = UnitInfo::foot("Attacker", 0, 4, Formation::Line, v(x, 16.0), 0.0);
        let t = table(vec![defender(), behind], vec![]);
        let path = charge_path(&t.situation, 1, 0, &otp::rules::otp::engine::move_rules::OTP);
        assert_eq!(format!("{:?}", path.zone), zone, "x = {x}");
        let c = melee::closure(&t, charts(), 1, 0, &path).unwrap();
        assert!(c.automatic && c.probability == 1.0, "9.1: flank and rear close automatically");
        let m = fight(&t, 1, 0);
        assert_eq!(mults(of(&m, "Attacker")), [mult], "x = {x}");
        // 9.9: "All stands of a unit in line fight, even if a unit is struck in flank".
        assert_eq!(of(&m, "Defender").figures, 8, "x = {x}");
    }
}

// OTP 9.1: "Units in Column formation may roll for closure only if a Leader is attached". The
// code's reading of attached (`fire::ATTACH_REACH`): within 1/2" of a stand. Col. Red 0.4"
// ahead of the column's head: it may roll; 0.6": refused (5.1).
#[test]
fn column_closure_leader_0_4_attached_rolls_0_6_refused() {
    for (gap, allowed) in [(0.4, true), (0.6, false)] {
        let s = scenario(&foot("Column", 12, "Column", (36.0, 16.0), 0.0), &foot("Target", 8, "Line", (36.0, 21.0), 180.0), "", (36.0, 16.0 + gap), CORNERS.1, "");
        let g = ready(&s, 1, "Redcoats");
        match g.charge_preview("Column", "Target", ChargeOptions::default()) {
            Ok(p) => {
                assert!(allowed, "{gap}\": the column rolls without a leader");
                assert!(p.closure.modifiers.iter().any(|m| m.name == "attacker_in_column"), "{:?}", p.closure.modifiers);
            }
            Err(r) => {
                assert!(!allowed, "{gap}\": {r}");
                assert_eq!(r.rule, "5.1", "{r}");
            }
        }
    }
}

// OTP 9.2: "If an infantry unit in line attempts to close on the front of another infantry
// unit in line and fails its closure die roll, a Firefight results"; "In all other cases the
// attacking unit will close 1/2 the distance". Target in line: a firefight; in column: half way.
#[test]
fn failure_to_close_on_a_line_firefight_on_a_column_half_way() {
    for (formation, firefight) in [("Line", true), ("Column", false)] {
        let s = scenario(&foot("Grenadiers", 16, "Line", (36.0, 20.0), 0.0), &foot("Target", 8, formation, (36.0, 25.0), 180.0), "", CORNERS.0, CORNERS.1, "");
        let r = scan(&s, "Grenadiers", "Target", failed);
        assert_eq!(noted(&r, "9.2", "a firefight results"), firefight, "{formation}: {r}");
        assert_eq!(noted(&r, "9.2", "closes half the distance"), !firefight, "{formation}: {r}");
        assert_eq!(r.notes.iter().any(|e| e.rule == "9.3"), firefight, "{formation}: {r}");
    }
}

// OTP 9.2: "The target of any failed closure attempt can fire into the unit that failed to close
// if that unit is within the firing arc of the target unit." Cavalry that fails stays put
// (9.2). The target's front runs x = 34–38 at y = 28, facing down the table; the cavalry (two
// 2" stands, 1.5" deep, front at y = 26.5) has its rear right corner on the target's 45° line
// when its front centre is at x = 29. At 29.1, in the arc (and 4.2" off), the target fires; at
// 28.9 it may not.
#[test]
fn fire_at_a_failed_closer_0_1_inside_the_arc_yes_0_1_outside_no() {
    for (x, fires) in [(29.1, true), (28.9, false)] {
        let s = scenario(&horse("Dragoons", 4, (x, 26.5), 0.0), &foot("Target", 8, "Line", (36.0, 28.0), 180.0), "", CORNERS.0, CORNERS.1, "");
        let g = ready(&s, 0, "Redcoats");
        assert_eq!(format!("{:?}", g.charge_preview("Dragoons", "Target", ChargeOptions::default()).unwrap().zone), "Front");
        let r = scan(&s, "Dragoons", "Target", failed);
        assert!(noted(&r, "9.2", "remains in place"), "{r}");
        assert_eq!(r.dice.iter().any(|d| d.rule.starts_with('8')), fires, "x = {x}: {r}");
        assert_eq!(noted(&r, "9.2", "Target does not fire at Dragoons"), !fires, "x = {x}: {r}");
    }
}

// OTP 9.4: "When Militia and Indian infantry units, or Light infantry units in skirmish line,
// are to be contacted for melee … they must make a CV roll." Charged in the flank (closure
// automatic): militia and Indians in line and lights in skirmish line roll; line infantry and
// lights in line do not.
#[test]
fn reaction_roll_militia_indians_lights_in_skirmish_yes_line_and_lights_in_line_no() {
    let cases = [
        ("Militia", "Line", true),
        ("Indian", "Line", true),
        ("Light", "Skirmish", true),
        ("Light", "Line", false),
        ("Line", "Line", false),
    ];
    for (kind, formation, rolls) in cases {
        let target = unit("Target", kind, "Infantry", "Some(Musket)", 8, formation, (36.0, 28.0), 180.0, "");
        let s = scenario(&foot("Grenadiers", 12, "Line", (41.0, 31.0), 270.0), &target, "", CORNERS.0, CORNERS.1, "");
        let mut g = ready(&s, 3, "Redcoats");
        let r = ok(&mut g, otp::rules::otp::engine::Action::Charge { unit: "Grenadiers".into(), target: "Target".into() });
        assert_eq!(dice(&r, "9.1"), 0, "{kind} {formation}: a flank attack: {r}");
        assert_eq!(dice(&r, "9.4"), rolls as usize, "{kind} {formation}: {r}");
    }
}

// OTP 9.5: "A mounted cavalry being charged from its front may countercharge". The cavalry
// faces up the table with its front on y = 20; a charger beside it facing west whose stand
// reaches 0.1" in front of that line attacks its front (a countercharge roll); 0.1" short of
// it, all behind, the flank (refused, 9.5).
#[test]
fn countercharge_front_0_1_ahead_of_the_line_yes_0_1_behind_no() {
    for (top, allowed) in [(20.1, true), (19.9, false)] {
        let cavalry = UnitInfo::sketch("Horse", 1, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line, v(20.0, 20.0), 0.0);
        let charger = UnitInfo::foot("Charger", 0, 4, Formation::Line, v(26.0, top - 1.0), 270.0);
        let t = table(vec![cavalry, charger], vec![]);
        let back = charge_path(&t.situation, 0, 1, &otp::rules::otp::engine::move_rules::OTP);
        match melee::countercharge(&t, charts(), 0, 1, &back) {
            Ok(c) => assert!(allowed && !c.automatic, "front edge {top}: {c:?}"),
            Err((rule, why)) => assert!(!allowed && rule == "9.5", "front edge {top}: {rule} {why}"),
        }
    }
}

// OTP 9.6: "Cavalry in Open -2" on CV rolls. The code's reading (`melee::in_the_open`): no stand
// centre in woods, a town, a building or disordering terrain. Woods whose edge stops 0.1" short
// of the right stand's centre: in the open; 0.1" past it: not.
#[test]
fn cavalry_in_the_open_woods_edge_0_1_short_of_a_stand_centre_yes_0_1_past_no() {
    let cavalry = UnitInfo::sketch("Horse", 1, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line, v(20.0, 20.0), 0.0);
    let c = cavalry.stands.iter().map(|s| s.footprint.centre.x).fold(f32::NEG_INFINITY, f32::max);
    for (x0, open) in [(c + 0.1, true), (c - 0.1, false)] {
        let woods = Terrain::Woods { name: "Copse".into(), density: WoodsDensity::Light, outline: rect(x0, 10.0, 40.0, 30.0), disorder: None };
        let t = table(vec![cavalry.clone(), attacker()], vec![woods]);
        let roll = melee::cv_roll(&t, charts(), 0, 1, RollFacts::default());
        assert_eq!(roll.modifiers.iter().any(|m| m.name == "cavalry_in_open"), open, "woods from x = {x0}: {:?}", roll.modifiers);
    }
}

// OTP 9.6: "Defender in medium cover -1, in heavy cover -2" (a fence, light cover, gives none),
// and only for the defender.
#[test]
fn cv_roll_defender_behind_fence_0_wall_minus_1_breastwork_minus_2_attacker_none() {
    let obstacle = |kind| Terrain::Obstacle { name: format!("{kind:?}"), kind, path: vec![[10.0, 20.5], [30.0, 20.5]], impassable_to_artillery: false };
    let cases = [(ObstacleKind::Fence, None), (ObstacleKind::StoneWall, Some(("defender_medium_cover", -1))), (ObstacleKind::Breastwork, Some(("defender_heavy_cover", -2)))];
    for (kind, want) in cases {
        let t = table(vec![defender(), attacker()], vec![obstacle(kind)]);
        let roll = melee::cv_roll(&t, charts(), 0, 1, RollFacts { defending: true, ..RollFacts::default() });
        let got = roll.modifiers.iter().map(|m| (m.name.as_str(), m.value)).next();
        assert_eq!(got, want, "{kind:?}");
        let as_attacker = melee::cv_roll(&t, charts(), 0, 1, RollFacts::default());
        assert!(as_attacker.modifiers.is_empty(), "{kind:?}: not defending");
    }
}

// OTP 9.7: "If the attack was onto the front of the target unit … the target will give fire into
// the charging unit". A front attack that closes brings the closing fire; a flank attack none.
#[test]
fn closing_fire_on_a_front_attack_yes_flank_no() {
    let front = scenario(&foot("Grenadiers", 12, "Line", (36.0, 23.0), 0.0), &foot("Target", 8, "Line", (36.0, 28.0), 180.0), "", CORNERS.0, CORNERS.1, "");
    let r = scan(&front, "Grenadiers", "Target", passed);
    assert!(noted(&r, "9.7", "fires as if at 2\" or less"), "{r}");
    let flank = scenario(&foot("Grenadiers", 12, "Line", (41.0, 31.0), 270.0), &foot("Target", 8, "Line", (36.0, 28.0), 180.0), "", CORNERS.0, CORNERS.1, "");
    let mut g = ready(&flank, 3, "Redcoats");
    let r = ok(&mut g, otp::rules::otp::engine::Action::Charge { unit: "Grenadiers".into(), target: "Target".into() });
    assert!(!noted(&r, "9.7", "fires as if"), "{r}");
    assert!(r.charts.iter().any(|c| c.chart == "MELEE COMBAT"), "the melee is fought: {r}");
}

// OTP 9.8, 6.10: the ratio of the totals picks the MELEE COMBAT row: 1/1 and 3/2 retreat one
// full move, 2/1, 3/1 and 4/1 two, and a win at 2-to-1 or more gets a bonus move. Each edge
// exactly (e.g. 20 to 10) and one point short of it (19 to 10).
#[test]
fn melee_ratio_edges_3_2_2_1_3_1_4_1_exact_and_one_short() {
    let chart = &charts().melee;
    let edges = [((3, 2), "1/1", 1), ((2, 1), "3/2", 1), ((3, 1), "2/1", 2), ((4, 1), "3/1", 2)];
    for ((a, b), below, below_moves) in edges {
        let (w, l) = (a * 10, b * 10);
        let at = chart.outcome(w, l);
        assert_eq!(at.label(), format!("{a}/{b}"), "{w} to {l}");
        let expected_moves = if a >= 2 * b { 2 } else { 1 };
        assert_eq!(melee::retreat_moves(at), expected_moves, "{w} to {l}");
        let short = chart.outcome(w - 1, l);
        assert_eq!(short.label(), below, "{} to {l}", w - 1);
        assert_eq!(melee::retreat_moves(short), below_moves, "{} to {l}", w - 1);
    }
}

// OTP 9.9: "Units in column only fight with the figures on their front stand"; all stands of a
// line fight. 12 figures: 4 in column, 12 in line.
#[test]
fn depth_of_melee_column_front_stand_4_line_all_12() {
    for (formation, figures) in [(Formation::Column, 4), (Formation::Line, 12)] {
        let d = UnitInfo::foot("Defender", 1, 12, formation, v(20.0, 20.0), 0.0);
        let t = table(vec![d, attacker()], vec![]);
        assert_eq!(of(&fight(&t, 1, 0), "Defender").figures, figures, "{formation:?}");
    }
}

// OTP 9.9: "Units in skirmish line only count the figures on stands in physical contact with
// enemy stands". The code's reading of contact (`table::contact::CONTACT_REACH`, 0.1"): a line
// stand 0.05" off the skirmishers' middle stand touches it (2 figures fight); 0.2" off, none.
#[test]
fn skirmish_stand_in_contact_0_05_counts_0_2_not() {
    for (gap, figures) in [(0.05, 2), (0.2, 0)] {
        let lights = UnitInfo::sketch("Lights", 1, UnitType::Light, Arm::Infantry, Some(Weapon::Rifle), 6, Formation::Skirmish, v(20.0, 20.0), 0.0);
        let mid = lights.stands[1].footprint.front_centre();
        let line = UnitInfo::foot("Line", 0, 4, Formation::Line, mid + Vec2::new(0.0, gap), 180.0);
        let t = table(vec![lights, line], vec![]);
        let m = melee::assess(&t, charts(), &[1], &[0], &[ChargeFacts::default()]);
        assert_eq!(of(&m, "Lights").figures, figures, "{gap}\"");
    }
}

// OTP 9.9: "An Artillery stand always counts as 1 figure regardless of the actual number of crew
// figures": a section with 2 crew and one down to 1 both count 1.
#[test]
fn artillery_stand_is_1_figure_with_2_crew_or_1() {
    for crew in [2, 1] {
        let mut guns = UnitInfo::battery("Guns", 1, GunSize::Light, 2, Formation::Unlimbered, v(20.0, 20.0), 0.0);
        guns.stands[0].figures = crew;
        let t = table(vec![guns, attacker()], vec![]);
        let m = fight(&t, 1, 0);
        let g = of(&m, "Guns");
        assert_eq!((g.figures, g.figures_rule.as_str()), (1, "9.9"), "{crew} crew");
    }
}

// OTP 9.10: "Poltroon -1, Cautious +1 (defending only), Firebrand +1 (attacking only),
// Exceptional +1 (all)"; an Aggressive leader gives nothing.
#[test]
fn leader_cautious_defending_only_firebrand_attacking_only() {
    let cases = [(Rating::Cautious, 1, 0), (Rating::Firebrand, 0, 1), (Rating::Exceptional, 1, 1), (Rating::Poltroon, -1, -1), (Rating::Aggressive, 0, 0)];
    for (rating, defending, attacking) in cases {
        let mut t = table(vec![defender(), attacker()], vec![]);
        for i in 0..2 {
            t.sheets[i].leaders.push(Leader { name: format!("Leader {i}"), rating: Some(rating) });
        }
        let m = fight(&t, 1, 0);
        let leader = |name: &str| of(&m, name).modifiers.iter().filter(|x| x.name == "leader").map(|x| x.value).sum::<i32>();
        assert_eq!((leader("Defender"), leader("Attacker")), (defending, attacking), "{rating:?}");
    }
}

// OTP 9.11: "For each commander involved in a melee, roll a D10". Involved: attached to a unit in
// it, by the code's reading within 1/2" of a stand. Col. Blue 0.4" behind the target: at risk;
// 0.6": not.
#[test]
fn commander_in_melee_attached_0_4_at_risk_0_6_not() {
    for (gap, at_risk) in [(0.4, true), (0.6, false)] {
        let target = foot("Continentals", 8, "Line", (36.0, 25.0), 180.0);
        let depth = 0.75;
        let s = scenario(&foot("Grenadiers", 12, "Line", (36.0, 20.0), 0.0), &target, "", CORNERS.0, (36.0, 25.0 + depth + gap), "");
        let g: Game = ready(&s, 1, "Redcoats");
        let p = g.charge_preview("Grenadiers", "Continentals", ChargeOptions::default()).unwrap();
        assert_eq!(p.melee.commanders.iter().any(|c| c.name == "Col. Blue"), at_risk, "{gap}\": {:?}", p.melee.commanders);
    }
}

// OTP 9.12: "All of the defending unit's figures must be in, or behind, the cover to receive the
// bonus." Woods whose edge clears the defender's left stand by 0.1": +1; 0.1" inside it: none.
#[test]
fn melee_cover_all_figures_woods_edge_0_1_outside_yes_0_1_inside_no() {
    for (x0, bonus) in [(17.9, true), (18.1, false)] {
        let woods = Terrain::Woods { name: "Copse".into(), density: WoodsDensity::Light, outline: rect(x0, 10.0, 22.1, 20.1), disorder: None };
        let t = table(vec![defender(), attacker()], vec![woods]);
        assert_eq!(mods(of(&fight(&t, 1, 0), "Defender")).contains(&"light_cover".to_string()), bonus, "woods from x = {x0}");
    }
}

// OTP 9.12: "a unit defending in a woods does not get a bonus if the attacking unit is in the same
// woods". The code's reading: an attacking stand centre inside it once in contact. The
// attacker's stand centres end 0.375" in front of the defender's front (y = 20.375): woods
// reaching y = 20.3 hold only the defender (+1); reaching y = 20.45 they hold the attacker too.
#[test]
fn melee_cover_attacker_in_the_same_woods_0_075_short_bonus_0_075_in_none() {
    for (top, bonus) in [(20.3, true), (20.45, false)] {
        let woods = Terrain::Woods { name: "Copse".into(), density: WoodsDensity::Light, outline: rect(17.0, 10.0, 23.0, top), disorder: None };
        let t = table(vec![defender(), attacker()], vec![woods]);
        assert_eq!(mods(of(&fight(&t, 1, 0), "Defender")).contains(&"light_cover".to_string()), bonus, "woods to y = {top}");
    }
}

// OTP 9.12: "+1 for defending uphill … if at any time during the move the attacking unit crossed
// the hill slope"; "+1 for attacking downhill if … the unit descended a hill slope". The code
// follows the stand centres (`table::contact`): the attacker's centres (y = 25.375) 0.1" inside
// the hill: no slope crossed; 0.1" outside: the defender on the hill is uphill.
#[test]
fn uphill_attacker_centres_0_1_off_the_hill_yes_0_1_on_no() {
    for (edge, uphill) in [(25.275, true), (25.475, false)] {
        let hill = Terrain::Hill { name: "Ridge".into(), elevation: 1, outline: rect(0.0, 0.0, 72.0, edge), slope: None };
        let t = table(vec![defender(), attacker()], vec![hill]);
        let m = fight(&t, 1, 0);
        assert_eq!(mods(of(&m, "Defender")).contains(&"uphill_or_ford".to_string()), uphill, "hill to y = {edge}");
        assert!(!mods(of(&m, "Attacker")).contains(&"downhill".to_string()));
    }
    // Mirror: the attacker on the hill, the defender below it.
    for (edge, downhill) in [(25.475, true), (25.275, false)] {
        let hill = Terrain::Hill { name: "Ridge".into(), elevation: 1, outline: rect(0.0, edge, 72.0, 48.0), slope: None };
        let t = table(vec![defender(), attacker()], vec![hill]);
        assert_eq!(mods(of(&fight(&t, 1, 0), "Attacker")).contains(&"downhill".to_string()), !downhill, "hill from y = {edge}");
    }
}

// OTP 9.12: "Infantry units that have small arms with bayonets and all mounted cavalry units
// receive a +1 bonus if their melee opponent is an infantry unit that has small arms without
// bayonets". Against muskets with bayonets: none; against rifles (no bayonets): +1.
#[test]
fn bayonets_against_muskets_none_against_rifles_plus_1() {
    for (weapon, bonus) in [(Weapon::Musket, false), (Weapon::Rifle, true)] {
        let d = UnitInfo::sketch("Defender", 1, UnitType::Line, Arm::Infantry, Some(weapon), 8, Formation::Line, v(20.0, 20.0), 0.0);
        let horse = UnitInfo::sketch("Horse", 0, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line, v(20.0, 25.0), 180.0);
        for attacker in [attacker(), horse] {
            let name = attacker.name.clone();
            let t = table(vec![d.clone(), attacker], vec![]);
            assert_eq!(mods(of(&fight(&t, 1, 0), &name)).contains(&"bayonets".to_string()), bonus, "{name} against {weapon:?}");
        }
    }
}

// OTP 9.12, 9.13: cavalry charging in the open from more than 12" gets +2, "Disorder also removes
// the cavalry charge in open bonus" and gives -2. From 14": without a marker +2, with one -2.
#[test]
fn cavalry_charge_bonus_without_marker_disorder_with_one() {
    for (marker, want) in [(false, vec!["cavalry_charge"]), (true, vec!["disordered"])] {
        let horse = UnitInfo::sketch("Horse", 0, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line, v(20.0, 34.0), 180.0);
        let mut t = table(vec![defender(), horse], vec![]);
        t.fire.units[1].morale_marker = marker;
        assert_eq!(mods(of(&fight(&t, 1, 0), "Horse")), want, "marker {marker}");
    }
}

// OTP 9.14: "A unit in skirmish line receives a x1/2 multiplier if it is opposed by a formed unit
// (one in line or column)"; "A mounted cavalry unit receives a x2 multiplier if its opponent is
// infantry, artillery crew, or dismounted cavalry". Lights against a line: x1/2; against lights
// in skirmish line: none. Cavalry against infantry: x2; against cavalry: none.
#[test]
fn multipliers_skirmish_vs_formed_and_mounted_vs_foot_by_opponent() {
    let lights = |side: usize, y: f32, facing: f32| UnitInfo::sketch(if side == 0 { "Lights" } else { "Others" }, side, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 4, Formation::Skirmish, v(20.0, y), facing);
    let t = table(vec![defender(), lights(0, 25.0, 180.0)], vec![]);
    assert_eq!(mults(of(&fight(&t, 1, 0), "Lights")), ["skirmish_vs_formed"]);
    let t = table(vec![lights(1, 20.0, 0.0), lights(0, 25.0, 180.0)], vec![]);
    assert!(mults(of(&fight(&t, 1, 0), "Lights")).is_empty());
    let horse = |name: &str, side: usize, y: f32, facing: f32| UnitInfo::sketch(name, side, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line, v(20.0, y), facing);
    let t = table(vec![defender(), horse("Horse", 0, 25.0, 180.0)], vec![]);
    assert_eq!(mults(of(&fight(&t, 1, 0), "Horse")), ["mounted_vs_foot"]);
    let t = table(vec![horse("Enemy horse", 1, 20.0, 0.0), horse("Horse", 0, 25.0, 180.0)], vec![]);
    assert!(mults(of(&fight(&t, 1, 0), "Horse")).is_empty());
    let guns = UnitInfo::battery("Guns", 1, GunSize::Light, 2, Formation::Unlimbered, v(20.0, 20.0), 0.0);
    let t = table(vec![guns, horse("Horse", 0, 25.0, 180.0)], vec![]);
    assert_eq!(mults(of(&fight(&t, 1, 0), "Horse")), ["mounted_vs_foot"], "artillery crew too");
}
// OTP 9.3: "If the attacker had fired before rolling its closure attempt (i.e., using a fire &
// 1/2 move operation), it counts as disordered for its return fire." Having fired: its return
// fire counts disordered; not having fired: it does not (unless the defender's fire marked it).
#[test]
fn firefight_attacker_fired_before_disordered_not_fired_not() {
    let s = scenario(&foot("Grenadiers", 12, "Line", (36.0, 22.5), 0.0), &foot("Target", 8, "Line", (36.0, 25.0), 180.0), "", CORNERS.0, CORNERS.1, "");
    for fired in [true, false] {
        let (mut found, mut seed) = (None, 0);
        while found.is_none() && seed < 400 {
            let mut g = ready(&s, seed, "Redcoats");
            if fired {
                ok(&mut g, otp::rules::otp::engine::Action::fire("Grenadiers", "Target"));
            }
            let r = ok(&mut g, otp::rules::otp::engine::Action::Charge { unit: "Grenadiers".into(), target: "Target".into() });
            found = failed(&r).then_some(r);
            seed += 1;
        }
        let r = found.expect("some seed fails to close");
        assert!(r.notes.iter().any(|e| e.rule == "9.3" && e.text.contains("firefight")), "{r}");
        assert_eq!(noted(&r, "9.3", "counts as disordered for its return fire"), fired, "fired {fired}: {r}");
        if !fired {
            assert!(!r.notes.iter().any(|e| e.text.contains("fired before its closure roll")), "{r}");
        }
    }
}

// OTP 9.5: "A cavalry unit with a Morale Marker can still attempt to countercharge, but counts as
// disordered for the attempt": without a marker no disorder, with one the closure modifier.
#[test]
fn countercharge_with_a_marker_disordered_without_not() {
    for marker in [false, true] {
        let cavalry = UnitInfo::sketch("Horse", 1, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line, v(20.0, 20.0), 0.0);
        let mut t = table(vec![cavalry, attacker()], vec![]);
        t.fire.units[0].morale_marker = marker;
        let back = charge_path(&t.situation, 0, 1, &otp::rules::otp::engine::move_rules::OTP);
        let c = melee::countercharge(&t, charts(), 0, 1, &back).unwrap();
        assert_eq!(c.modifiers.iter().any(|m| m.name == "disordered"), marker, "marker {marker}: {:?}", c.modifiers);
    }
}

// OTP 9.6: CV rolls: "Leader attached: Exceptional -2, Firebrand -1, Aggressive or Cautious -0,
// and Poltroon +1"; "Disordered +2" (a Morale Marker, or a skirmish line always, 5.3).
#[test]
fn cv_roll_leader_by_rating_and_disorder_by_state() {
    let cases = [(Some(Rating::Exceptional), -2), (Some(Rating::Firebrand), -1), (Some(Rating::Aggressive), 0), (Some(Rating::Cautious), 0), (Some(Rating::Poltroon), 1), (None, 0)];
    for (rating, want) in cases {
        let mut t = table(vec![defender(), attacker()], vec![]);
        if let Some(r) = rating {
            t.sheets[0].leaders.push(Leader { name: "Leader".into(), rating: Some(r) });
        }
        let roll = melee::cv_roll(&t, charts(), 0, 1, RollFacts::default());
        assert_eq!(roll.total_modifier, want, "{rating:?}: {:?}", roll.modifiers);
    }
    for (marker, formation, disordered) in [(false, Formation::Line, false), (true, Formation::Line, true), (false, Formation::Skirmish, true)] {
        let d = UnitInfo::sketch("Defender", 1, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 8, formation, v(20.0, 20.0), 0.0);
        let mut t = table(vec![d, attacker()], vec![]);
        t.fire.units[0].morale_marker = marker;
        let roll = melee::cv_roll(&t, charts(), 0, 1, RollFacts::default());
        let got: Vec<(String, i32)> = roll.modifiers.iter().map(|m| (m.name.clone(), m.value)).collect();
        assert_eq!(got, if disordered { vec![("disordered".to_string(), 2)] } else { vec![] }, "marker {marker}, {formation:?}");
    }
}

// OTP 9.13: "Units in skirmish line always receive the disordered penalty, regardless of their
// actual status (having a Morale Marker does not create a further penalty)": a line without a
// marker none, with one -2; a skirmish line -2 without a marker and still -2 with one.
#[test]
fn melee_disorder_line_by_marker_skirmish_always_once() {
    for (formation, marker, penalty) in [(Formation::Line, false, 0), (Formation::Line, true, -2), (Formation::Skirmish, false, -2), (Formation::Skirmish, true, -2)] {
        let d = UnitInfo::sketch("Defender", 1, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 8, formation, v(20.0, 20.0), 0.0);
        let mut t = table(vec![d, attacker()], vec![]);
        t.fire.units[0].morale_marker = marker;
        let m = fight(&t, 1, 0);
        let u = of(&m, "Defender");
        let disorder: i32 = u.modifiers.iter().filter(|x| x.name == "disordered").map(|x| x.value).sum();
        assert_eq!(disorder, penalty, "{formation:?}, marker {marker}: {:?}", mods(u));
    }
}

// OTP 9.12: "Units get a +1 bonus for defending … across a ford if at any time during the move
// the attacking unit crossed the … ford." A large stream with a ford: between the two, +1; its
// bank 0.1" behind the attacker's start (not crossed), none.
#[test]
fn ford_crossed_between_yes_0_1_behind_the_start_no() {
    use otp::scenario::model::{Ford, StreamKind};
    let creek = |y: f32| Terrain::Stream { name: "Creek".into(), kind: StreamKind::Large, path: vec![[0.0, y], [72.0, y]], width: 1.0, fords: vec![Ford { at: [20.0, y], width: 12.0 }] };
    // The attacker's stands run from y = 25 (front) to 25.75; the stream is 1" wide.
    for (y, ford) in [(22.5, true), (26.35, false)] {
        let t = table(vec![defender(), attacker()], vec![creek(y)]);
        assert_eq!(mods(of(&fight(&t, 1, 0), "Defender")).contains(&"uphill_or_ford".to_string()), ford, "stream at y = {y}");
    }
}

// OTP 9.12: "Units in, or behind, cover receive a bonus": behind a stone wall (medium, +2) by the
// code's reading within 1" in front (`fire::cover::BEHIND_REACH`): 0.9" in front, +2; the
// attacker stops against the wall, so 1.1" is tested from a standing attacker 1.5" off.
#[test]
fn melee_cover_behind_a_wall_0_9_yes_1_1_no() {
    for (gap, bonus) in [(0.9, true), (1.1, false)] {
        let wall = Terrain::Obstacle { name: "Wall".into(), kind: ObstacleKind::StoneWall, path: vec![[10.0, 20.0 + gap], [30.0, 20.0 + gap]], impassable_to_artillery: false };
        let close = UnitInfo::foot("Attacker", 0, 8, Formation::Line, v(20.0, 21.5), 180.0);
        let t = table(vec![defender(), close], vec![wall]);
        let m = melee::assess(&t, charts(), &[1], &[0], &[ChargeFacts::default()]);
        assert_eq!(mods(of(&m, "Defender")).contains(&"medium_cover".to_string()), bonus, "wall {gap}\" in front");
    }
}
// OTP 9.3: "The attacking unit must stop 2" (or visibility distance in woods, whichever is less)
// from the defender." In dense woods (visibility 1AD-1"), a firefight whose first visibility
// roll is 1": the attacker should stop 1" off, not 2" (where the defender cannot see it).
#[test]
fn firefight_in_woods_stops_at_visibility_1_not_2() {
    use otp::table::footprint::Footprint;
    let woods = r#"Woods(name: "Thicket", density: Dense, outline: [(20.0, 15.0), (52.0, 15.0), (52.0, 35.0), (20.0, 35.0)]),"#;
    let s = scenario(&foot("Grenadiers", 12, "Line", (36.0, 22.0), 0.0), &foot("Target", 8, "Line", (36.0, 25.0), 180.0), woods, CORNERS.0, CORNERS.1, "");
    let front = |g: &Game, name: &str| g.world().get::<Footprint>(g.unit(g.unit_entity(name).unwrap()).stands[0]).unwrap().front_centre().y;
    for seed in 0..400 {
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, otp::rules::otp::engine::Action::Charge { unit: "Grenadiers".into(), target: "Target".into() });
        let first_sight = r.dice.iter().find(|d| d.rule == "8.7").map(|d| d.roll.total);
        // Both stood after round 1 (no withdrawal moved anyone), the first roll 1AD = 2: 1".
        // Both stood after round 1: no withdrawal has moved anyone since the stop.
        let stood = r.notes.iter().any(|e| e.rule == "9.3" && e.text.contains("round 2"));
        if stood && first_sight == Some(2) {
            let stop = r.changes.iter().find(|e| e.rule == "9.3" && e.text.contains(" stops ")).expect("the stop is reported");
            assert!(stop.text.contains("stops 1.00\""), "seed {seed}: {}", stop.text);
            if !r.changes.iter().any(|e| e.text.contains("withdraws")) {
                let gap = front(&g, "Target") - front(&g, "Grenadiers");
                assert!(gap <= 1.0 + 0.05, "seed {seed}: stopped {gap:.2}\" off with 1\" visibility: {r}");
            }
            return;
        }
    }
    panic!("no seed gives a two-round firefight with a 1\" first visibility");
}
