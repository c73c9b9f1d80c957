//! FIRE COMBAT (OTP 8.0–8.16 with 5.3, 5.4, 6.13, 7.1, 7.3, 7.5) on small constructed tables:
//! each modifier in exactly the situations it should, the refusals, the 8.1 example through the
//! whole resolve path, exact odds against seeded resolutions, crews, attached guns and commander
//! casualties, and a report applied to the ECS world.

mod common;

use bevy::math::Vec2;
use bevy::prelude::World;

use otp::rules::otp::charts::{Ammo, Charts, FireModifierId, FireResult};
use otp::rules::dice::Dice;
use otp::rules::otp::fire::{
    FireContext, FireOccasion, FirePreview, FireReport, FireTable, GunHits, MarkerChange, Refusal, apply_fire, preview, resolve, resolve_split,
};
use otp::scenario::model::{Arm, Construction, Formation, GunSize, ObstacleKind, Point, Table, Terrain, UnitType, Weapon, WoodsDensity};
use otp::scenario::spawn::{MoraleMarker, Stand, Unit};
use otp::table::situation::{Situation, UnitInfo};

fn charts() -> &'static Charts {
    Charts::embedded()
}

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Point> {
    vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
}

/// A table with every unit fresh except that initial volleys are used (so the baseline shot has
/// no modifier at all).
fn table(units: Vec<UnitInfo>, terrain: Vec<Terrain>) -> FireTable {
    let mut t = FireTable::new(Situation::new(Table { width: 72.0, depth: 48.0 }, terrain, units));
    t.units.iter_mut().for_each(|u| u.initial_volley_used = true);
    t
}

/// 8 muskets in line, front from (18, 10) to (22, 10), facing up the table.
fn firer() -> UnitInfo {
    UnitInfo::foot("Firer", 0, 8, Formation::Line, v(20.0, 10.0), 0.0)
}

/// A unit of side 1 facing the firer, its front edge centred `d` inches ahead of it.
fn facing(d: f32, unit_type: UnitType, arm: Arm, weapon: Option<Weapon>, figures: u32, formation: Formation) -> UnitInfo {
    UnitInfo::sketch("Target", 1, unit_type, arm, weapon, figures, formation, v(20.0, 10.0 + d), 180.0)
}

fn line_target(d: f32) -> UnitInfo {
    UnitInfo::foot("Target", 1, 8, Formation::Line, v(20.0, 10.0 + d), 180.0)
}

fn guns(name: &str, side: usize, gun: GunSize, formation: Formation, at: Vec2, facing: f32) -> UnitInfo {
    UnitInfo::battery(name, side, gun, 2, formation, at, facing)
}

fn look(t: &FireTable) -> FirePreview {
    preview(&FireContext::new(t, 0, 1), charts()).unwrap_or_else(|r| panic!("refused: {r}"))
}

fn look_with(ctx: FireContext) -> Result<FirePreview, Refusal> {
    preview(&ctx, charts())
}

fn names(p: &FirePreview) -> Vec<&str> {
    p.modifiers.iter().map(|m| m.name.as_str()).collect()
}

/// The modifiers of firer 0 on target 1, checked against the chart: each one's value and rule
/// are the chart's, and the total is their sum.
fn modifiers(t: &FireTable) -> Vec<String> {
    checked(&look(t))
}

fn checked(p: &FirePreview) -> Vec<String> {
    let fire = &charts().fire;
    for m in &p.modifiers {
        let entry = fire.modifier_entry(m.id);
        assert_eq!(m.value, entry.value, "{}: the chart's value", m.name);
        assert_eq!(m.provenance, entry.source, "{}: the chart's provenance", m.name);
        if let otp::rules::otp::charts::Source::Text { section } = &entry.source {
            assert_eq!(&m.rule, section, "{}: the chart's rule", m.name);
        }
    }
    assert_eq!(p.total_modifier, p.modifiers.iter().map(|m| m.value).sum::<i32>());
    names(p).into_iter().map(String::from).collect()
}

fn value(id: FireModifierId) -> i32 {
    charts().fire.modifier(id)
}

fn refusal(t: &FireTable, ctx: FireContext) -> Refusal {
    let r = preview(&ctx, charts()).expect_err("the shot should be refused");
    let mut dice = Dice::new(1);
    assert_eq!(resolve(&ctx, charts(), &mut dice).unwrap_err(), r, "resolve refuses as preview does");
    assert_eq!(dice.thrown(), 0, "nothing is rolled for a refused shot");
    let _ = t;
    r
}

/// The first seed whose report passes `want`.
fn seeded(ctx: &FireContext, want: impl Fn(&FireReport) -> bool) -> (u64, FireReport) {
    (0..10_000u64)
        .map(|seed| (seed, resolve(ctx, charts(), &mut Dice::new(seed)).unwrap()))
        .find(|(_, r)| want(r))
        .expect("some seed gives the wanted result")
}

// ---------------------------------------------------------------------------------------------
// 8.1: the worked example, through the whole resolve path

// OTP 8.1: "a 28 figure unit fires at a target and rolls a modified result of 5 … (2 + 1 = 3
// losses total)".
#[test]
fn the_8_1_example_28_figures_at_a_modified_5() {
    let big = |name: &str, side, y: f32, facing: f32| UnitInfo::foot(name, side, 28, Formation::Line, v(30.0, y), facing);
    let t = table(vec![big("Firer", 0, 10.0, 0.0), big("Target", 1, 14.0, 180.0)], vec![]);
    let ctx = FireContext::new(&t, 0, 1);
    let p = look(&t);
    assert!(p.modifiers.is_empty(), "{:?}", names(&p));
    assert_eq!((p.column.family, p.column.count, p.column.reads.clone()), ("small_arms", 28, vec![20, 8]));
    let (_, r) = seeded(&ctx, |r| r.roll.as_ref().is_some_and(|d| d.total == 5));
    assert_eq!(r.roll.as_ref().unwrap().faces, vec![5], "the die and its face are reported");
    assert_eq!(r.modified_roll, Some(5));
    let cells: Vec<(i32, u32, FireResult)> = r.cells.iter().map(|c| (c.row, c.column, c.result)).collect();
    assert_eq!(cells, vec![(5, 20, FireResult::Kills(2)), (5, 8, FireResult::Kills(1))]);
    assert_eq!(r.result, FireResult::Kills(3));
    assert_eq!(r.effects.len(), 1);
    let e = &r.effects[0];
    assert_eq!((e.unit.as_str(), e.figures_lost, e.figures_left, e.morale_marker), ("Target", 3, 25, MarkerChange::Gained));
    assert!(r.visible && r.commander_rolls.is_empty() && !r.initial_volley_expended);
    let text = r.to_string();
    assert!(text.contains("3 kills") && text.contains("column 20") && text.contains("column 8"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Each modifier, in exactly its situations

#[test]
fn baseline_has_no_modifier() {
    // Line on line, 4" apart in the open, initial volleys spent: nothing applies.
    let t = table(vec![firer(), line_target(4.0)], vec![]);
    assert!(modifiers(&t).is_empty());
    assert_eq!(look(&t).column.count, 8);
}

// OTP 8.3: small arms at 2" or less get -1; 8.12/9.7: at a unit that closed to contact, as if at
// 2" or less.
#[test]
fn close_range_at_two_inches_or_less() {
    assert_eq!(modifiers(&table(vec![firer(), line_target(2.0)], vec![])), ["close_range"]);
    assert!(modifiers(&table(vec![firer(), line_target(2.5)], vec![])).is_empty());
    let t = table(vec![firer(), line_target(4.0)], vec![]);
    let p = look_with(FireContext::new(&t, 0, 1).occasion(FireOccasion::AtChargingUnit)).unwrap();
    assert_eq!(checked(&p), ["close_range"]);
    let battery = table(vec![guns("Guns", 0, GunSize::Medium, Formation::Unlimbered, v(20.0, 10.0), 0.0), line_target(1.5)], vec![]);
    assert!(!modifiers(&battery).contains(&"close_range".to_string()), "small arms only");
}

// OTP 8.5: -1 on a formed infantry unit's first fire; skirmishers spend it without the bonus.
#[test]
fn initial_volley_once_for_formed_infantry() {
    let mut t = table(vec![firer(), line_target(4.0)], vec![]);
    t.units[0].initial_volley_used = false;
    let p = look(&t);
    assert_eq!(checked(&p), ["initial_volley"]);
    assert!(p.uses_initial_volley);
    let (_, r) = seeded(&FireContext::new(&t, 0, 1), |_| true);
    assert!(r.initial_volley_expended);
    let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 4, Formation::Skirmish, v(20.0, 10.0), 0.0);
    let mut t = table(vec![lights, line_target(4.0)], vec![]);
    t.units[0].initial_volley_used = false;
    assert_eq!(modifiers(&t), ["skirmish_firer"], "no initial volley bonus in skirmish line");
    let (_, r) = seeded(&FireContext::new(&t, 0, 1), |_| true);
    assert!(r.initial_volley_expended, "but it is expended (8.5)");
    let mut battery = table(vec![guns("Guns", 0, GunSize::Medium, Formation::Unlimbered, v(20.0, 10.0), 0.0), line_target(12.0)], vec![]);
    battery.units[0].initial_volley_used = false;
    assert!(modifiers(&battery).is_empty(), "artillery has no initial volley");
}

// OTP 8.4: ball at short range (reconstructed -1) and long range (+2); heavy guns -1, light +1;
// canister reads a column by gun size and takes neither.
#[test]
fn artillery_bands_and_gun_weights() {
    let shot = |gun: GunSize, d: f32, ammo: Ammo| {
        let t = table(vec![guns("Guns", 0, gun, Formation::Unlimbered, v(20.0, 10.0), 0.0), line_target(d)], vec![]);
        look_with(FireContext::new(&t, 0, 1).ammo(ammo)).map(|p| (checked(&p), p.column.family, p.column.gun))
    };
    assert_eq!(shot(GunSize::Medium, 5.0, Ammo::Ball).unwrap().0, ["ball_short_range"]);
    assert!(shot(GunSize::Medium, 12.0, Ammo::Ball).unwrap().0.is_empty(), "medium range");
    assert_eq!(shot(GunSize::Medium, 20.0, Ammo::Ball).unwrap().0, ["ball_long_range"]);
    assert_eq!(shot(GunSize::Heavy, 12.0, Ammo::Ball).unwrap().0, ["heavy_gun"]);
    assert_eq!(shot(GunSize::Light, 12.0, Ammo::Ball).unwrap().0, ["light_gun"]);
    let (mods, family, gun) = shot(GunSize::Heavy, 5.0, Ammo::Canister).unwrap();
    assert!(mods.is_empty(), "{mods:?}");
    assert_eq!((family, gun), ("canister", Some(GunSize::Heavy)));
    assert_eq!(value(FireModifierId::BallLongRange), 2);
    assert_eq!((value(FireModifierId::HeavyGun), value(FireModifierId::LightGun)), (-1, 1));
}

// OTP 8.4: canister only at short range, and only with no friendly unit in the gun's arc and
// short range.
#[test]
fn canister_refused_at_medium_range_and_over_friends() {
    let gun = || guns("Guns", 0, GunSize::Medium, Formation::Unlimbered, v(20.0, 10.0), 0.0);
    let t = table(vec![gun(), line_target(12.0)], vec![]);
    let r = refusal(&t, FireContext::new(&t, 0, 1).ammo(Ammo::Canister));
    assert_eq!(r.rule, "8.4");
    assert!(r.reason.contains("short range"), "{}", r.reason);
    // A friendly stand 6" ahead and off to the side: in the arc and short range, not in the way.
    let friend = UnitInfo::foot("Friends", 0, 4, Formation::Line, v(26.0, 15.0), 0.0);
    let t = table(vec![gun(), line_target(5.0), friend], vec![]);
    let r = refusal(&t, FireContext::new(&t, 0, 1).ammo(Ammo::Canister));
    assert_eq!(r.rule, "8.4");
    assert!(r.reason.contains("\"Friends\""), "{}", r.reason);
    assert!(look_with(FireContext::new(&t, 0, 1).ammo(Ammo::Ball)).is_ok(), "ball may still be fired");
    let far = UnitInfo::foot("Friends", 0, 4, Formation::Line, v(30.0, 25.0), 0.0);
    let t = table(vec![gun(), line_target(5.0), far], vec![]);
    assert!(look_with(FireContext::new(&t, 0, 1).ammo(Ammo::Canister)).is_ok());
}

// OTP 7.3: guns on higher ground than the target add to their maximum range (reconstructed 4").
#[test]
fn elevation_lengthens_long_range() {
    let hill = Terrain::Hill { name: "Knoll".into(), elevation: 1, outline: rect(10.0, 2.0, 30.0, 11.0), slope: None };
    let light = || guns("Guns", 0, GunSize::Light, Formation::Unlimbered, v(20.0, 10.0), 0.0);
    let flat = table(vec![light(), line_target(23.0)], vec![]);
    assert_eq!(refusal(&flat, FireContext::new(&flat, 0, 1)).rule, "8.4", "23\" is beyond light guns' 21\"");
    let up = table(vec![light(), line_target(23.0)], vec![hill]);
    let p = look(&up);
    assert!(p.geometry.elevated);
    assert_eq!(checked(&p), ["ball_long_range", "light_gun"]);
}

/// The target facing west with its front edge on x = 17.5, 2" to 6" up the table: the firer's
/// stands are all behind that line (8.11).
fn flank_target() -> UnitInfo {
    UnitInfo::foot("Target", 1, 8, Formation::Line, v(17.5, 15.0), 270.0)
}

// OTP 8.11: enfilade -2 for small arms and canister; ball its own (reconstructed).
#[test]
fn enfilade_by_kind_of_fire() {
    assert_eq!(modifiers(&table(vec![firer(), flank_target()], vec![])), ["enfilade"]);
    assert_eq!(value(FireModifierId::Enfilade), -2);
    let gun = || guns("Guns", 0, GunSize::Medium, Formation::Unlimbered, v(20.0, 10.0), 0.0);
    let t = table(vec![gun(), flank_target()], vec![]);
    let ball = look_with(FireContext::new(&t, 0, 1).ammo(Ammo::Ball)).unwrap();
    assert_eq!(checked(&ball), ["ball_short_range", "enfilade_ball"]);
    let canister = look_with(FireContext::new(&t, 0, 1).ammo(Ammo::Canister)).unwrap();
    assert_eq!(checked(&canister), ["enfilade"]);
}

// OTP 6.13: units deployed in towns cannot be enfiladed, and have medium cover (8.6).
#[test]
fn no_enfilade_in_a_town() {
    let town = Terrain::Town { name: "Crossroads".into(), outline: rect(15.0, 12.0, 22.0, 20.0), capacity: 5 };
    let p = look(&table(vec![firer(), flank_target()], vec![town]));
    assert_eq!(checked(&p), ["medium_cover"]);
    assert_eq!(p.geometry.target_deployed_in.as_deref(), Some("Crossroads"));
    assert!(!p.geometry.enfilade);
    // "Units deployed in towns count as being in Line for fire combat": no skirmish target bonus.
    let lights = facing(4.0, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 4, Formation::Skirmish);
    let town = Terrain::Town { name: "Crossroads".into(), outline: rect(10.0, 13.0, 30.0, 20.0), capacity: 5 };
    assert_eq!(modifiers(&table(vec![firer(), lights], vec![town])), ["medium_cover"]);
}

// OTP 8.12: a disordered target -1; a disordered firer fires only in a firefight or at a charging
// unit, and then with the chart's (reconstructed) penalty; 9.3 counts an attacker that fired
// before its closure roll as disordered.
#[test]
fn disordered_firer_and_target() {
    let mut t = table(vec![firer(), line_target(4.0)], vec![]);
    t.units[1].morale_marker = true;
    assert_eq!(modifiers(&t), ["disordered_target"]);
    assert_eq!(value(FireModifierId::DisorderedTarget), -1);
    let mut t = table(vec![firer(), line_target(4.0)], vec![]);
    t.units[0].morale_marker = true;
    let r = refusal(&t, FireContext::new(&t, 0, 1));
    assert_eq!(r.rule, "8.12");
    let fight = look_with(FireContext::new(&t, 0, 1).occasion(FireOccasion::Firefight)).unwrap();
    assert_eq!(checked(&fight), ["disordered_firer"]);
    let charge = look_with(FireContext::new(&t, 0, 1).occasion(FireOccasion::AtChargingUnit)).unwrap();
    assert_eq!(checked(&charge), ["close_range", "disordered_firer"]);
    let closing = look_with(FireContext::new(&t, 0, 1).occasion(FireOccasion::ClosingFire)).unwrap();
    assert_eq!(checked(&closing), ["disordered_firer"]);
    let fresh = table(vec![firer(), line_target(4.0)], vec![]);
    let p = look_with(FireContext::new(&fresh, 0, 1).occasion(FireOccasion::Firefight).counts_disordered(true)).unwrap();
    assert_eq!(checked(&p), ["disordered_firer"]);
}

// OTP 8.13: a column cannot fire (limbered guns count as a column); firing at a column -1, -2
// for ball; limbered artillery is a column and mounted (8.14).
#[test]
fn columns_neither_fire_nor_hide() {
    let col = UnitInfo::foot("Column", 0, 8, Formation::Column, v(20.0, 10.0), 0.0);
    let t = table(vec![col, line_target(4.0)], vec![]);
    assert_eq!(refusal(&t, FireContext::new(&t, 0, 1)).rule, "8.13");
    let limbered = table(vec![guns("Guns", 0, GunSize::Medium, Formation::Limbered, v(20.0, 10.0), 0.0), line_target(12.0)], vec![]);
    assert_eq!(refusal(&limbered, FireContext::new(&limbered, 0, 1)).rule, "8.13");

    let column_target = || UnitInfo::foot("Target", 1, 8, Formation::Column, v(20.0, 14.0), 180.0);
    assert_eq!(modifiers(&table(vec![firer(), column_target()], vec![])), ["column_target"]);
    let gun = || guns("Guns", 0, GunSize::Medium, Formation::Unlimbered, v(20.0, 10.0), 0.0);
    let ball = table(vec![gun(), UnitInfo::foot("Target", 1, 8, Formation::Column, v(20.0, 22.0), 180.0)], vec![]);
    assert_eq!(modifiers(&ball), ["column_target_ball"]);
    assert_eq!((value(FireModifierId::ColumnTarget), value(FireModifierId::ColumnTargetBall)), (-1, -2));
    let limbered_target = guns("Target", 1, GunSize::Medium, Formation::Limbered, v(20.0, 14.0), 180.0);
    assert_eq!(modifiers(&table(vec![firer(), limbered_target], vec![])), ["column_target", "mounted_target"]);
}

// OTP 8.13 and 5.3: skirmish firer +1, skirmish target +2; unlimbered artillery is a skirmish
// target.
#[test]
fn skirmishers_and_unlimbered_guns() {
    let lights = UnitInfo::sketch("Lights", 0, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 4, Formation::Skirmish, v(20.0, 10.0), 0.0);
    assert_eq!(modifiers(&table(vec![lights, line_target(4.0)], vec![])), ["skirmish_firer"]);
    let target = facing(4.0, UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 4, Formation::Skirmish);
    assert_eq!(modifiers(&table(vec![firer(), target], vec![])), ["skirmish_target"]);
    let battery = guns("Target", 1, GunSize::Medium, Formation::Unlimbered, v(20.0, 14.0), 180.0);
    assert_eq!(modifiers(&table(vec![firer(), battery], vec![])), ["skirmish_target"]);
    assert_eq!((value(FireModifierId::SkirmishFirer), value(FireModifierId::SkirmishTarget)), (1, 2));
}

// OTP 8.14: mounted cavalry -1.
#[test]
fn mounted_cavalry_target() {
    let horse = facing(4.0, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line);
    assert_eq!(modifiers(&table(vec![firer(), horse], vec![])), ["mounted_target"]);
}

// OTP 3.2: cavalry's operations do not include fire; at a charging unit it may (9.7).
#[test]
fn cavalry_fires_only_at_chargers() {
    let horse = UnitInfo::sketch("Horse", 0, UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 4, Formation::Line, v(20.0, 10.0), 0.0);
    let t = table(vec![horse, line_target(3.0)], vec![]);
    assert_eq!(refusal(&t, FireContext::new(&t, 0, 1)).rule, "3.2");
    assert!(look_with(FireContext::new(&t, 0, 1).occasion(FireOccasion::AtChargingUnit)).is_ok());
}

// OTP 8.15: Elite -1; Militia and Indians +1.
#[test]
fn fire_discipline() {
    let of = |unit_type: UnitType| {
        let f = UnitInfo::sketch("Firer", 0, unit_type, Arm::Infantry, Some(Weapon::Musket), 8, Formation::Line, v(20.0, 10.0), 0.0);
        modifiers(&table(vec![f, line_target(4.0)], vec![]))
    };
    assert_eq!(of(UnitType::Elite), ["elite_firer"]);
    assert_eq!(of(UnitType::Militia), ["militia_firer"]);
    assert_eq!(of(UnitType::Indian), ["indian_firer"]);
    assert!(of(UnitType::StateLine).is_empty() && of(UnitType::Light).is_empty());
    assert_eq!((value(FireModifierId::EliteFirer), value(FireModifierId::MilitiaFirer), value(FireModifierId::IndianFirer)), (-1, 1, 1));
}

// OTP 5.4 (optional): a loose-order target +1, only with the optional rule in play.
#[test]
fn loose_order_target_with_the_option() {
    let militia = || facing(4.0, UnitType::Militia, Arm::Infantry, Some(Weapon::Musket), 8, Formation::LooseOrder);
    let mut t = table(vec![firer(), militia()], vec![]);
    assert!(modifiers(&t).is_empty(), "the option is off");
    t.optional.loose_order = true;
    assert_eq!(modifiers(&t), ["loose_order_target"]);
    assert_eq!(value(FireModifierId::LooseOrderTarget), 1);
    // "Players may choose to mount Militia units 3 figures to a 2" wide stand … and always
    // utilize the loose order modifiers."
    let mut three = facing(4.0, UnitType::Militia, Arm::Infantry, Some(Weapon::Musket), 8, Formation::Line);
    three.stands.iter_mut().for_each(|s| s.figures = 3);
    let mut t = table(vec![firer(), three], vec![]);
    t.optional.loose_order = true;
    assert_eq!(modifiers(&t), ["loose_order_target"]);
    let line = facing(4.0, UnitType::Militia, Arm::Infantry, Some(Weapon::Musket), 8, Formation::Line);
    let mut t = table(vec![firer(), line], vec![]);
    t.optional.loose_order = true;
    assert!(modifiers(&t).is_empty(), "militia four to a stand in line");
}

// OTP 8.6: light, medium and heavy cover +1/+2/+3, only with every stand in or behind it.
#[test]
fn cover_classes() {
    let woods = |outline| Terrain::Woods { name: "Wood".into(), density: WoodsDensity::Light, outline, disorder: None };
    let obstacle = |kind, y: f32, x1: f32| Terrain::Obstacle { name: format!("{kind:?}"), kind, path: vec![[10.0, y], [x1, y]], impassable_to_artillery: false };
    let with = |terrain: Vec<Terrain>| modifiers(&table(vec![firer(), line_target(4.0)], terrain));
    assert_eq!(with(vec![woods(rect(14.0, 13.5, 26.0, 20.0))]), ["light_cover"]);
    assert!(with(vec![woods(rect(20.0, 13.5, 26.0, 20.0))]).is_empty(), "one stand outside the woods");
    assert_eq!(with(vec![obstacle(ObstacleKind::Fence, 13.6, 30.0)]), ["light_cover"]);
    assert_eq!(with(vec![obstacle(ObstacleKind::StoneWall, 13.6, 30.0)]), ["medium_cover"]);
    assert_eq!(with(vec![obstacle(ObstacleKind::Breastwork, 13.6, 30.0)]), ["heavy_cover"]);
    assert!(with(vec![obstacle(ObstacleKind::StoneWall, 13.6, 20.0)]).is_empty(), "the wall shelters one stand of two");
    let house = Terrain::Building { name: "House".into(), at: [20.0, 14.5], size: [6.0, 2.0], facing: 0.0, construction: Construction::Wood, capacity: 2 };
    assert_eq!(with(vec![house]), ["medium_cover"]);
    assert_eq!((value(FireModifierId::LightCover), value(FireModifierId::MediumCover), value(FireModifierId::HeavyCover)), (1, 2, 3));
}

// OTP 8.10: rest -1 when half or more of the figures firing rest on a fence, wall or embankment.
#[test]
fn rest_on_a_fence() {
    let fence = |x0: f32, x1: f32| Terrain::Obstacle { name: "Fence".into(), kind: ObstacleKind::Fence, path: vec![[x0, 10.1], [x1, 10.1]], impassable_to_artillery: false };
    let p = look(&table(vec![firer(), line_target(4.0)], vec![fence(10.0, 30.0)]));
    assert_eq!(checked(&p), ["rest"]);
    assert_eq!(p.geometry.figures_resting, 8);
    let half = look(&table(vec![firer(), line_target(4.0)], vec![fence(10.0, 20.0)]));
    assert_eq!((checked(&half), half.geometry.figures_resting), (vec!["rest".to_string()], 4), "half the figures is enough");
    let wide = UnitInfo::foot("Firer", 0, 16, Formation::Line, v(20.0, 10.0), 0.0);
    let few = look(&table(vec![wide, UnitInfo::foot("Target", 1, 16, Formation::Line, v(20.0, 14.0), 180.0)], vec![fence(10.0, 18.0)]));
    assert!(checked(&few).is_empty(), "4 of 16 figures do not rest");
}

// ---------------------------------------------------------------------------------------------
// 8.1: target choice and split fire

// OTP 8.1: "The closest target should be fired at in preference to a further target."
#[test]
fn the_nearer_target_first() {
    let a = UnitInfo::foot("Near", 1, 4, Formation::Line, v(16.0, 13.0), 180.0);
    let b = UnitInfo::foot("Far", 1, 4, Formation::Line, v(23.5, 14.5), 180.0);
    let t = table(vec![firer(), a, b], vec![]);
    let r = refusal(&t, FireContext::new(&t, 0, 2));
    assert_eq!(r.rule, "8.1");
    assert!(r.reason.contains("\"Near\" is nearer"), "{}", r.reason);
    assert!(look_with(FireContext::new(&t, 0, 1)).is_ok());
    // In a firefight the target is named: no preference.
    assert!(look_with(FireContext::new(&t, 0, 2).occasion(FireOccasion::Firefight)).is_ok());
}

// OTP 8.1: "A unit may fire at more than one target only when all the stands in the unit cannot
// fire at the same target. In such cases, a single die is rolled for all fire from the unit."
#[test]
fn split_fire_with_one_die() {
    let wide = UnitInfo::foot("Firer", 0, 16, Formation::Line, v(20.0, 10.0), 0.0);
    let left = UnitInfo::foot("Left", 1, 4, Formation::Line, v(15.0, 14.5), 180.0);
    let right = UnitInfo::foot("Right", 1, 4, Formation::Line, v(25.0, 14.0), 180.0);
    let mut t = table(vec![wide, left, right], vec![]);
    t.units[0].initial_volley_used = false;
    let at_right = look_with(FireContext::new(&t, 0, 2)).unwrap();
    assert_eq!(at_right.geometry.stands, vec![1, 2, 3]);
    let at_left = look_with(FireContext::new(&t, 0, 1)).unwrap();
    assert_eq!((at_left.geometry.stands.clone(), at_left.column.count), (vec![0], 4), "the stand that cannot reach the nearer target");
    let mut dice = Dice::new(8);
    let reports = resolve_split(&FireContext::new(&t, 0, 1), charts(), &mut dice).unwrap();
    assert_eq!(reports.iter().map(|r| r.shot.target.as_str()).collect::<Vec<_>>(), ["Right", "Left"]);
    assert_eq!(reports[0].roll, reports[1].roll, "one die for all");
    assert_eq!(dice.thrown(), 1);
    assert_eq!(reports.iter().filter(|r| r.initial_volley_expended).count(), 1);
    assert!(reports.iter().all(|r| r.modifiers.iter().any(|m| m.name == "initial_volley")), "both fires are the first volley");
}

// ---------------------------------------------------------------------------------------------
// 8.7: visibility in woods, and exact odds against seeded resolutions

/// The target 4" away inside regular woods; the sight line crosses 2" of them.
fn in_the_woods() -> FireTable {
    let woods = Terrain::Woods { name: "Oak Wood".into(), density: WoodsDensity::Regular, outline: rect(10.0, 12.0, 30.0, 25.0), disorder: None };
    table(vec![firer(), line_target(4.0)], vec![woods])
}

// OTP 8.7: regular woods 2AD-2": the target 4" away is seen unless 2AD comes to 4 or 5 (5/36).
#[test]
fn woods_visibility_is_rolled_and_reported() {
    let t = in_the_woods();
    let p = look(&t);
    let vis = p.visibility.as_ref().expect("a roll is needed");
    assert_eq!((vis.woods, vis.dice, vis.plus), (WoodsDensity::Regular, 2, -2));
    assert_eq!(vis.not_visible_ways, 5, "2+2, 2+3, 3+2 of 36 throws, counting the AD's faces 2,3,3,4,4,5");
    assert!((vis.not_visible - 5.0 / 36.0).abs() < 1e-12, "{}", vis.not_visible);
    let none: u64 = p.outcomes.iter().filter(|o| o.result == FireResult::NoEffect).map(|o| o.ways).sum();
    assert!(none >= 50 && p.outcomes[0].out_of == 360, "5 unseen throws x 10 faces are all no effect");
    assert_eq!(checked(&p), ["light_cover"]);
    let (_, hidden) = seeded(&FireContext::new(&t, 0, 1), |r| !r.visible);
    let v = hidden.visibility.as_ref().unwrap();
    assert!(v.roll.total <= 5 && v.roll.faces.len() == 2 && v.inches < 4.0);
    assert!(hidden.roll.is_none() && hidden.effects.is_empty() && hidden.result == FireResult::NoEffect);
    let (_, seen) = seeded(&FireContext::new(&t, 0, 1), |r| r.visible);
    assert!(seen.visibility.as_ref().unwrap().inches >= 4.0 && seen.roll.is_some());
    // A visibility the scenario fixes is not rolled.
    let fixed = look_with(FireContext::new(&t, 0, 1).visibility(Some(6.0))).unwrap();
    assert!(fixed.visibility.is_none());
}

fn assert_matches_preview(ctx: &FireContext, seed: u64, n: u32) {
    let p = preview(ctx, charts()).unwrap();
    let total: f64 = p.outcomes.iter().map(|o| o.probability).sum();
    assert!((total - 1.0).abs() < 1e-12, "probabilities sum to {total}");
    assert_eq!(p.outcomes.iter().map(|o| o.ways).sum::<u64>(), p.outcomes[0].out_of, "exact: the ways add up");
    let mut dice = Dice::new(seed);
    let mut counts: Vec<u32> = vec![0; p.outcomes.len()];
    for _ in 0..n {
        let r = resolve(ctx, charts(), &mut dice).unwrap();
        let i = p.outcomes.iter().position(|o| o.result == r.result).unwrap_or_else(|| panic!("{:?} is not a previewed outcome", r.result));
        counts[i] += 1;
    }
    for (o, &c) in p.outcomes.iter().zip(&counts) {
        let freq = c as f64 / n as f64;
        let sd = (o.probability * (1.0 - o.probability) / n as f64).sqrt();
        assert!((freq - o.probability).abs() <= 4.5 * sd + 1e-9, "{}: {freq} against exact {}", o.label, o.probability);
    }
}

// OTP 8.1/8.2 with 8.7: the preview's exact odds are what seeded resolutions give.
#[test]
fn odds_match_seeded_resolutions() {
    let t = table(vec![firer(), line_target(2.0)], vec![]);
    assert_matches_preview(&FireContext::new(&t, 0, 1), 1777, 20_000);
    assert_matches_preview(&FireContext::new(&in_the_woods(), 0, 1), 1781, 20_000);
    let battery = table(vec![guns("Guns", 0, GunSize::Heavy, Formation::Unlimbered, v(20.0, 10.0), 0.0), line_target(5.0)], vec![]);
    assert_matches_preview(&FireContext::new(&battery, 0, 1).ammo(Ammo::Canister), 1778, 20_000);
}

// ---------------------------------------------------------------------------------------------
// 7.1, 7.5, 8.16: what a hit does

fn on_guns(hits: u32) -> FireTable {
    let mut t = table(vec![firer(), guns("Battery", 1, GunSize::Medium, Formation::Unlimbered, v(20.0, 14.0), 180.0)], vec![]);
    t.units[1].gun_hits = hits;
    t
}

// OTP 7.1: a crew figure is lost only per 2 figure losses.
#[test]
fn a_crew_figure_per_two_losses() {
    let one_kill = |r: &FireReport| r.result == FireResult::Kills(1);
    let t = on_guns(0);
    let (_, r) = seeded(&FireContext::new(&t, 0, 1), one_kill);
    let e = &r.effects[0];
    assert_eq!((e.figures_lost, e.figures_left, e.gun_hits, e.morale_marker), (0, 2, Some((0, 1)), MarkerChange::Gained));
    let t = on_guns(1);
    let (_, r) = seeded(&FireContext::new(&t, 0, 1), one_kill);
    let e = &r.effects[0];
    assert_eq!((e.figures_lost, e.figures_left, e.gun_hits), (1, 1, Some((1, 0))), "the second loss costs a crew figure");
    // A lost crew's gun no longer fires (7.1): the column is the crew left.
    let lone = table(vec![firer(), UnitInfo::battery("Battery", 1, GunSize::Medium, 1, Formation::Unlimbered, v(20.0, 14.0), 180.0)], vec![]);
    let back = preview(&FireContext::new(&lone, 1, 0).ammo(Ammo::Canister), charts()).unwrap();
    assert_eq!((back.column.family, back.column.count), ("canister", 1));
}

// OTP 7.5: losses on attached artillery are taken by the infantry; the guns share its marker.
#[test]
fn attached_guns_losses_go_to_the_infantry() {
    let host = UnitInfo::foot("Host", 1, 8, Formation::Line, v(26.0, 14.0), 180.0);
    let battery = guns("Battery", 1, GunSize::Medium, Formation::Unlimbered, v(20.0, 14.0), 180.0);
    let mut t = table(vec![firer(), battery, host], vec![]);
    t.units[1].attached_to = Some(2);
    let (_, r) = seeded(&FireContext::new(&t, 0, 1), |r| r.result.kills() > 0);
    let k = r.result.kills();
    let by: Vec<(&str, u32, MarkerChange)> = r.effects.iter().map(|e| (e.unit.as_str(), e.figures_lost, e.morale_marker)).collect();
    assert_eq!(by, vec![("Battery", 0, MarkerChange::Gained), ("Host", k, MarkerChange::Gained)]);
    assert!(r.effects[1].why.contains("7.5"));
    let (_, m) = seeded(&FireContext::new(&t, 0, 1), |r| r.result == FireResult::Morale);
    assert_eq!(m.effects.iter().map(|e| e.unit.as_str()).collect::<Vec<_>>(), ["Battery"], "a morale hit is no loss");
    // Fire on the infantry: its marker goes to its guns too.
    let host = UnitInfo::foot("Host", 1, 8, Formation::Line, v(20.0, 14.0), 180.0);
    let battery = guns("Battery", 1, GunSize::Medium, Formation::Unlimbered, v(30.0, 14.0), 180.0);
    let mut t = table(vec![firer(), host, battery], vec![]);
    t.units[2].attached_to = Some(1);
    let (_, r) = seeded(&FireContext::new(&t, 0, 1), |r| r.result != FireResult::NoEffect);
    assert_eq!(r.effects.iter().map(|e| (e.unit.as_str(), e.morale_marker)).collect::<Vec<_>>(), [("Host", MarkerChange::Gained), ("Battery", MarkerChange::Gained)]);
    assert_eq!(r.effects[1].figures_lost, 0);
}

// OTP 8.16: an attached commander is a casualty on a D10 of 0, rolled only when his unit takes a
// kill or a morale hit.
#[test]
fn commander_casualty_on_a_zero() {
    let mut t = table(vec![firer(), line_target(2.0)], vec![]);
    t.units[1].commanders = vec!["Col. Howard".into()];
    let p = look(&t);
    let hit: f64 = p.outcomes.iter().filter(|o| o.morale_marker).map(|o| o.probability).sum();
    assert!((p.commander_casualties[0].probability - hit / 10.0).abs() < 1e-12);
    let ctx = FireContext::new(&t, 0, 1);
    let mut dice = Dice::new(816);
    let (mut rolls, mut casualties, n) = (0u32, 0u32, 20_000);
    for _ in 0..n {
        let r = resolve(&ctx, charts(), &mut dice).unwrap();
        if r.result == FireResult::NoEffect {
            assert!(r.commander_rolls.is_empty());
            continue;
        }
        assert_eq!(r.commander_rolls.len(), 1);
        let c = &r.commander_rolls[0];
        assert_eq!(c.casualty, c.roll.total == 0, "{}", c.roll);
        rolls += 1;
        casualties += c.casualty as u32;
    }
    let rate = casualties as f64 / rolls as f64;
    let sd = (0.09 / rolls as f64).sqrt();
    assert!((rate - 0.1).abs() < 4.5 * sd, "casualty rate {rate} over {rolls} rolls");
    assert!((rolls as f64 / n as f64 - hit).abs() < 0.02);
}

// ---------------------------------------------------------------------------------------------
// The world: a report applied

const WORLD: &str = r#"(
    name: "Fire test",
    table: (width: 48.0, depth: 36.0),
    sides: [
        (name: "British", brigades: [(name: "Webster's", chit: 1, commander: (name: "Webster", kind: British), units: [
            (name: "23rd Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (20.0, 10.0), facing: 0.0),
        ])]),
        (name: "Americans", brigades: [(name: "Howard's", chit: 2, commander: (name: "Howard", kind: Continental, at: Some((20.0, 15.0))), units: [
            (name: "1st Maryland", type: Line, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (20.0, 14.0), facing: 180.0),
            (name: "Maryland Guns", type: Line, arm: Artillery(gun: Light), figures: 2, formation: Unlimbered, at: (16.5, 14.0), facing: 180.0,
                attached_to: Some("1st Maryland")),
        ])]),
    ],
)"#;

fn unit(world: &mut World, name: &str) -> (bevy::prelude::Entity, Unit) {
    world.query::<(bevy::prelude::Entity, &Unit)>().iter(world).find(|(_, u)| u.name == name).map(|(e, u)| (e, u.clone())).unwrap()
}

// OTP 8.2, 8.5, 7.5, 8.16: the report's changes, made to the ECS world by apply_fire.
#[test]
fn a_report_applied_to_the_world() {
    let scenario = otp::scenario::parse(WORLD, "fire-test.ron").unwrap_or_else(|e| panic!("{e}"));
    let mut world = World::new();
    otp::scenario::spawn::spawn_scenario(&mut world, &scenario, "test");
    let t = FireTable::from_world(&world);
    let s = &t.situation;
    let (f, m, g) = (s.find("23rd Foot").unwrap(), s.find("1st Maryland").unwrap(), s.find("Maryland Guns").unwrap());
    assert_eq!(t.units[g].attached_to, Some(m), "7.5 from the scenario");
    assert_eq!(t.units[m].commanders, vec!["Howard".to_string()], "Howard stands with the 1st Maryland");
    assert!(!t.units[f].initial_volley_used);
    let ctx = FireContext::new(&t, f, m);
    let (_, r) = seeded(&ctx, |r| r.result.kills() >= 2 && r.commander_rolls.first().is_some_and(|c| c.casualty));
    assert!(r.initial_volley_expended && r.modifiers.iter().any(|x| x.name == "initial_volley"));
    apply_fire(&mut world, &r).unwrap();
    let (me, maryland) = unit(&mut world, "1st Maryland");
    let k = r.result.kills();
    assert_eq!(maryland.figures, 12 - k);
    let on_stands: u32 = maryland.stands.iter().map(|&s| world.get::<Stand>(s).unwrap().figures).sum();
    assert_eq!(on_stands, 12 - k, "figures come off the stands");
    assert!(world.get::<MoraleMarker>(me).is_some());
    let (ge, _) = unit(&mut world, "Maryland Guns");
    assert!(world.get::<MoraleMarker>(ge).is_some(), "7.5: the guns share the marker");
    let (_, foot) = unit(&mut world, "23rd Foot");
    assert!(foot.initial_volley_used);
    let after = FireTable::from_world(&world);
    assert!(after.units[m].morale_marker && after.units[m].commanders.is_empty(), "Howard has fallen");
    assert_eq!(after.situation.unit(m).figures(), 12 - k);

    // 7.1: losses on unattached guns are carried on the GunHits component.
    let (ge, mut guns_unit) = unit(&mut world, "Maryland Guns");
    guns_unit.attached_to = None;
    world.entity_mut(ge).insert(guns_unit);
    let t = FireTable::from_world(&world);
    let (f, g) = (t.situation.find("23rd Foot").unwrap(), t.situation.find("Maryland Guns").unwrap());
    let ctx = FireContext::new(&t, f, g).occasion(FireOccasion::Firefight);
    let (_, r) = seeded(&ctx, |r| r.result == FireResult::Kills(1));
    apply_fire(&mut world, &r).unwrap();
    assert_eq!(world.get::<GunHits>(ge), Some(&GunHits(1)));
    assert_eq!(FireTable::from_world(&world).units[g].gun_hits, 1);
}


// ---- `otp fire`: the engine's own judgement at set-up ----

/// A 72" x 48" table with `terrain` (RON): the British (chit 1, "Redcoats") below, the Americans
/// (chit 2, "Patriots") above.
fn scenario(british: &str, americans: &str, terrain: &str) -> otp::scenario::Scenario {
    common::two_brigades(british, americans, terrain, "fire-preview.ron")
}

/// The engine's verdict with the Redcoats phasing: None when the shot is allowed.
fn engine_fire(s: &otp::scenario::Scenario, firer: &str, target: &str, ammo: Option<Ammo>) -> Option<(String, String)> {
    use otp::rules::otp::engine::{Action, Game};
    let mut g = Game::new(s.clone(), 3, Charts::embedded().clone());
    g.apply(Action::StartGame).unwrap();
    while g.phasing_brigade().as_deref() != Some("Redcoats") {
        if g.phasing_brigade().is_some() {
            g.apply(Action::EndActivation).unwrap();
        }
        g.apply(Action::DrawChit).unwrap();
    }
    g.fire_preview(firer, target, ammo).err().map(|r| (r.rule, r.reason))
}

fn write_scenario(s: &str, name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("otp-fire-{}-{name}.ron", std::process::id()));
    std::fs::write(&path, s).unwrap();
    path
}

const LIGHT_GUNS: &str = r#"(name: "Guns", type: Line, arm: Artillery(gun: Light), figures: 2, formation: Unlimbered, at: (36.0, 10.0), facing: 0.0),"#;

fn foot_at(name: &str, y: f32, extra: &str) -> String {
    format!(r#"(name: "{name}", type: Line, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (36.0, {y}), facing: 180.0{extra}),"#)
}

#[test]
fn otp_fire_from_a_hill_reaches_past_long_range() {
    // OTP 7.3: artillery on higher terrain than the target adds the chart's elevation bonus
    // (reconstructed: 4") to its maximum range; 8.4: partial inches round up. Light guns reach
    // 21" on the flat. From a knoll, 24.5" (counted 25") is within 21 + 4, 25.5" (26") is not;
    // on the flat, 21.5" (22") is already beyond.
    use otp::rules::otp::cli::fire_command_json;
    let bonus = Charts::embedded().fire.elevation_bonus.value;
    assert_eq!(bonus, 4.0);
    assert!(!Charts::embedded().fire.elevation_bonus.source.is_text(), "the scan garbles 7.3's number: reconstructed");
    let knoll = r#"Hill(name: "Knoll", elevation: 1, outline: [(30.0, 2.0), (42.0, 2.0), (42.0, 11.0), (30.0, 11.0)]),"#;
    let shot = |d: f32, terrain: &str| {
        let s = scenario(LIGHT_GUNS, &foot_at("Blues", 10.0 + d, ""), terrain);
        let a = fire_command_json(&s, "Guns", "Blues", true).unwrap();
        let engine = engine_fire(&s, "Guns", "Blues", Some(Ammo::Ball));
        assert_eq!(a.refused.as_ref().map(|r| (r.rule.clone(), r.reason.clone())), engine, "the CLI says what the engine says");
        a
    };
    let inside = shot(24.5, knoll);
    assert!(inside.refused.is_none(), "{:?}", inside.refused);
    assert_eq!(inside.answer["in_range"], true, "the geometry knows the bonus too: {}", inside.answer);
    assert_eq!(inside.answer["artillery_band"], "long");
    let outside = shot(25.5, knoll);
    assert_eq!(outside.refused.as_ref().unwrap().rule, "8.4");
    assert_eq!(shot(21.5, "").refused.unwrap().rule, "8.4");
    assert!(shot(20.5, "").refused.is_none());
}

#[test]
fn otp_fire_refuses_what_the_engine_refuses_and_exits_1() {
    // OTP 10.1: a unit with a Morale Marker may not perform any operation (the engine's rule,
    // before 8.12's); OTP 3.2: cavalry does not fire as an operation. `otp fire` refuses each
    // with the engine's rule and words, and exits 1; an allowed shot exits 0.
    let dragoons = r#"(name: "Dragoons", type: Line, arm: Cavalry, weapon: Some(Carbine), figures: 6, formation: Line, at: (50.0, 10.0), facing: 0.0),"#;
    let s = scenario(&(foot_at("Reds", 10.0, ", morale_marker: true").replace("180.0", "0.0") + dragoons), &foot_at("Blues", 14.0, ""), "");
    for (firer, rule) in [("Reds", "10.1"), ("Dragoons", "3.2")] {
        let a = otp::rules::otp::cli::fire_command_json(&s, firer, "Blues", false).unwrap();
        let engine = engine_fire(&s, firer, "Blues", Some(Ammo::Canister)).expect("the engine refuses");
        assert_eq!(engine.0, rule, "{engine:?}");
        assert_eq!(a.refused.as_ref().map(|r| (r.rule.clone(), r.reason.clone())), Some(engine.clone()));
        assert_eq!(a.answer["refused"]["reason"], engine.1.as_str());
    }
    let text = otp::scenario::to_ron(&s);
    let path = write_scenario(&text, "refusals");
    let run = |firer: &str, json: bool| {
        let mut args = vec!["fire", path.to_str().unwrap(), firer, "Blues"];
        if json {
            args.push("--json");
        }
        std::process::Command::new(env!("CARGO_BIN_EXE_otp")).args(&args).output().unwrap()
    };
    let out = run("Reds", false);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("refused (OTP 10.1)"), "{}", String::from_utf8_lossy(&out.stdout));
    let out = run("Reds", true);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["refused"]["rule"], "10.1");
    let fine = scenario(&foot_at("Reds", 10.0, "").replace("180.0", "0.0"), &foot_at("Blues", 14.0, ""), "");
    std::fs::write(&path, otp::scenario::to_ron(&fine)).unwrap();
    assert_eq!(run("Reds", false).status.code(), Some(0));
    std::fs::remove_file(&path).ok();
}
