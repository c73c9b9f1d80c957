//! OTP 7.0 ARTILLERY: every condition on a unit's position or state, just inside and just
//! outside (covered elsewhere: 7.3 hill range, 7.5 partial move, 7.1 crew per two losses; see
//! docs/rules-sweep-otp.md).

use otp::rules::otp::engine::{Action, ChargeOptions};
use otp::rules::otp::fire::FireContext;
use otp::scenario::model::{Formation, GunSize};
use otp::table::movement::MoveStep;
use otp::table::situation::UnitInfo;

use super::{CORNERS, fire_table, foot, look_ctx, ready, scenario, unit, v};
use crate::common::{ok, refused};

fn guns(name: &str, gun: &str, formation: &str, at: (f32, f32), facing: f32) -> String {
    guns_with(name, gun, formation, at, facing, "")
}

fn guns_with(name: &str, gun: &str, formation: &str, at: (f32, f32), facing: f32, extra: &str) -> String {
    unit(name, "Line", "Infantry", "None", 2, formation, at, facing, extra).replace("arm: Infantry", &format!("arm: Artillery({gun})"))
}

fn forward(unit: &str, inches: f32) -> Action {
    Action::Move { unit: unit.into(), steps: vec![MoveStep::Forward(inches)] }
}

// OTP 7.1: "A gun cannot be counted for firing purposes once its crew figure is lost": a
// section of two guns with both crew fires in the 2-gun column, with one crew left in the 1-gun.
#[test]
fn guns_fire_by_crew_left_2_crew_2_guns_1_crew_1_gun() {
    for crew in [2, 1] {
        let mut battery = UnitInfo::battery("Guns", 0, GunSize::Medium, 2, Formation::Unlimbered, v(20.0, 10.0), 0.0);
        battery.stands[0].figures = crew;
        let t = fire_table(vec![battery, UnitInfo::foot("Target", 1, 8, Formation::Line, v(20.0, 22.0), 180.0)], vec![]);
        let p = look_ctx(FireContext::new(&t, 0, 1)).unwrap();
        assert_eq!((p.column.family, p.column.count), ("ball", crew), "{crew} crew");
    }
}

// OTP 7.2: "Artillery may never initiate a combat": guns 4" from the enemy are refused the
// charge; infantry in the same place may charge.
#[test]
fn artillery_never_initiates_guns_refused_infantry_in_its_place_allowed() {
    let target = foot("Blues", 8, "Line", (36.0, 14.0), 180.0);
    let s = scenario(&guns("Guns", "gun: Light", "Unlimbered", (36.0, 10.0), 0.0), &target, "", CORNERS.0, CORNERS.1, "");
    let g = ready(&s, 1, "Redcoats");
    assert_eq!(g.charge_preview("Guns", "Blues", ChargeOptions::default()).unwrap_err().rule, "7.2");
    let s = scenario(&foot("Foot", 8, "Line", (36.0, 10.0), 0.0), &target, "", CORNERS.0, CORNERS.1, "");
    let g = ready(&s, 1, "Redcoats");
    assert!(g.charge_preview("Foot", "Blues", ChargeOptions::default()).is_ok());
}

// OTP 7.5: "The artillery stand must be in physical contact with the infantry unit". The code's
// reading of contact (`engine::attach::CONTACT`, 0.1"): a gun 0.05" beside the infantry's end
// attaches; 0.2" off, refused.
#[test]
fn attach_in_contact_0_05_yes_0_2_refused() {
    for (gap, attaches) in [(0.05, true), (0.2, false)] {
        // The foot's front runs x = 34–38; a 1" gun section to its right, `gap` off its end.
        let units = format!("{}{}", foot("Foot", 8, "Line", (36.0, 10.0), 0.0), guns("Guns", "gun: Light", "Unlimbered", (38.5 + gap, 10.0), 0.0));
        let s = scenario(&units, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
        let mut g = ready(&s, 1, "Redcoats");
        let attach = Action::Attach { gun: "Guns".into(), unit: "Foot".into() };
        if attaches {
            ok(&mut g, attach);
            assert_eq!(g.unit(g.unit_entity("Guns").unwrap()).attached_to, g.unit_entity("Foot"));
        } else {
            let r = refused(&mut g, attach, "7.5");
            assert!(r.reason.contains("physical contact"), "{r}");
        }
    }
}

// OTP 7.5: "An artillery stand can be attached to an infantry unit": beside infantry, yes;
// beside cavalry in the same place, refused.
#[test]
fn attach_to_infantry_yes_cavalry_refused() {
    for (arm, attaches) in [("Infantry", true), ("Cavalry", false)] {
        let host = unit("Host", "Line", arm, "Some(Carbine)", 8, "Line", (36.0, 10.0), 0.0, "");
        let units = format!("{host}{}", guns("Guns", "gun: Light", "Unlimbered", (36.0 + 2.0 + 0.5 + if arm == "Cavalry" { 2.0 } else { 0.0 }, 10.0), 0.0));
        let s = scenario(&units, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
        let mut g = ready(&s, 1, "Redcoats");
        let attach = Action::Attach { gun: "Guns".into(), unit: "Host".into() };
        if attaches {
            ok(&mut g, attach);
        } else {
            let r = refused(&mut g, attach, "7.5");
            assert!(r.reason.contains("not infantry"), "{r}");
        }
    }
}

/// British light guns (a galloper when `galloper`) unlimbered at (36, 10), the enemy 16" ahead;
/// the 7.6 option on.
fn gallopers(galloper: bool) -> otp::rules::otp::engine::Game {
    let gun = if galloper { "gun: Light, galloper: true" } else { "gun: Light" };
    let s = scenario(&guns("Guns", gun, "Unlimbered", (36.0, 10.0), 0.0), &foot("Blues", 8, "Line", (36.0, 26.0), 180.0), "", CORNERS.0, CORNERS.1, "galloper_guns: true");
    ready(&s, 1, "Redcoats")
}

// OTP 7.6 (optional): "an unlimbered move of 6" is permitted if the gun doesn't fire": 6.0"
// allowed, 6.25" refused.
#[test]
fn galloper_unlimbered_move_6_0_allowed_6_25_refused() {
    ok(&mut gallopers(true), forward("Guns", 6.0));
    let mut g = gallopers(true);
    let r = refused(&mut g, forward("Guns", 6.25), "6.1");
    assert!(r.reason.contains("allowance is 6.00\""), "{r}");
    // An ordinary light gun hand hauls 2" (reconstructed MOVEMENT chart): the 6" is the galloper's.
    let r = refused(&mut gallopers(false), forward("Guns", 6.0), "6.1");
    assert!(r.reason.contains("allowance is 2.00\""), "{r}");
}

// OTP 7.6 (optional): "or the gun can move 3" and fire (or vice versa)": having fired, 3.0"
// allowed, 3.25" refused. (The engine refuses under its operations table, 3.3 "hand haul and
// fire", whose limit for a galloper is 7.6's 3".)
#[test]
fn galloper_fire_then_move_3_0_allowed_3_25_refused() {
    for (inches, allowed) in [(3.0, true), (3.25, false)] {
        let mut g = gallopers(true);
        ok(&mut g, Action::fire("Guns", "Blues"));
        if allowed {
            ok(&mut g, forward("Guns", inches));
        } else {
            let r = g.apply(forward("Guns", inches)).expect_err("beyond 3\" after firing");
            assert_eq!(r.rule, "3.3", "{r}");
            assert!(r.reason.contains("at most 3.00\""), "{r}");
        }
    }
}

/// British limbered light guns at (36, 10) (the British have no infantry: no 7.7 "foremost
/// infantry" limit), an enemy musket line with its front 14" ahead; civilian drivers (7.7).
fn drivers(formation: &str, galloper: bool) -> otp::rules::otp::engine::Game {
    let gun = if galloper { "gun: Light, galloper: true" } else { "gun: Light" };
    let s = scenario(&guns("Guns", gun, formation, (36.0, 10.0), 0.0), &foot("Blues", 8, "Line", (36.0, 24.0), 180.0), "", CORNERS.0, CORNERS.1, "civilian_drivers: true, galloper_guns: true");
    ready(&s, 1, "Redcoats")
}

// OTP 7.7 (optional): "while limbered, artillery cannot voluntarily move to within enemy small
// arms range": stopping 6.0" from muskets (range 6") is allowed, 5.75" refused.
#[test]
fn drivers_limbered_stop_6_0_from_muskets_allowed_5_75_refused() {
    ok(&mut drivers("Limbered", false), forward("Guns", 8.0));
    let r = refused(&mut drivers("Limbered", false), forward("Guns", 8.25), "7.7");
    assert!(r.reason.contains("small-arms range"), "{r}");
    // 7.7: "Galloper guns are exempt".
    ok(&mut drivers("Limbered", true), forward("Guns", 8.25));
}

// OTP 7.7 (optional): "Once artillery is unlimbered, it cannot limber" (gallopers exempt).
#[test]
fn drivers_unlimbered_never_limbers_gallopers_may() {
    let limber = Action::ChangeFormation { unit: "Guns".into(), formation: Formation::Limbered };
    refused(&mut drivers("Unlimbered", false), limber.clone(), "7.7");
    ok(&mut drivers("Unlimbered", true), limber);
}

// OTP 7.7 (optional): "Artillery cannot be attached to infantry unless it is unlimbered".
#[test]
fn drivers_attach_unlimbered_yes_limbered_refused() {
    for (formation, attaches) in [("Unlimbered", true), ("Limbered", false)] {
        let units = format!("{}{}", foot("Foot", 8, "Line", (36.0, 10.0), 0.0), guns("Guns", "gun: Light", formation, (38.5, 10.0), 0.0));
        let s = scenario(&units, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "civilian_drivers: true");
        let mut g = ready(&s, 1, "Redcoats");
        let attach = Action::Attach { gun: "Guns".into(), unit: "Foot".into() };
        if attaches {
            ok(&mut g, attach);
        } else {
            refused(&mut g, attach, "7.7");
        }
    }
}

// OTP 7.4: "An artillery unit ignores mandatory forward movement morale results (treat as a
// Deploy)". The shipped (reconstructed) Artillery column has no Forward band, so the charts are
// given one, as a player's own printed charts might (90-99): a roll there reads Deploy for the
// guns; Elite infantry rolling in its Forward band (95-99 in the shipped column) goes forward.
#[test]
fn forward_result_artillery_deploys_elite_infantry_goes_forward() {
    use otp::rules::otp::charts::{MoraleClass, MoraleResult};
    let mut charts = super::charts().clone();
    let column = charts.morale.columns.iter_mut().find(|c| c.class == MoraleClass::Artillery).unwrap();
    let last = column.bands.pop().unwrap();
    assert_eq!((last.to, last.result), (99, MoraleResult::NE));
    column.bands.push(otp::rules::otp::charts::morale::Band { to: 89, result: MoraleResult::NE });
    column.bands.push(otp::rules::otp::charts::morale::Band { to: 99, result: MoraleResult::Forward });
    // The band each rolls in: artillery 90-99 (given Forward above), Elite 95-99.
    for (who, artillery, from) in [("Guns", true, 90), ("Foot", false, 95)] {
        let mine = if artillery {
            unit("Guns", "Line", "Infantry", "None", 2, "Unlimbered", (36.0, 10.0), 0.0, ", morale_marker: true").replace("arm: Infantry", "arm: Artillery(gun: Light)")
        } else {
            unit("Foot", "Elite", "Infantry", "Some(Musket)", 8, "Line", (36.0, 10.0), 0.0, ", morale_marker: true")
        };
        let s = scenario(&mine, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
        let found = (0..400).find_map(|seed| {
            let mut g = otp::rules::otp::engine::Game::new(s.clone(), seed, charts.clone());
            ok(&mut g, Action::StartGame);
            crate::common::activate(&mut g, "Redcoats");
            let r = ok(&mut g, Action::RemoveMarker { unit: who.into(), how: otp::rules::otp::engine::Removal::Roll });
            let total = r.dice.iter().find(|d| d.rule == "10.2")?.roll.total;
            (total >= from).then(|| (format!("{:?}", g.unit_turn(g.unit_entity(who).unwrap()).restriction), r))
        });
        let (restriction, r) = found.unwrap_or_else(|| panic!("{who}: no seed rolls {from}-99"));
        if artillery {
            assert_eq!(restriction, "Some(Deploy)", "{who}: {r}");
            assert!(r.outcome.starts_with("Deploy"), "{who}: {r}");
        } else {
            assert_eq!(restriction, "Some(Forward)", "{who}: {r}");
            assert!(r.outcome.starts_with("Forward"), "{who}: {r}");
        }
    }
}

// OTP 7.5: "The artillery stand can move with it's attached unit as long as the maximum movement
// distance for its formation (limbered or unlimbered) is not exceeded." Unlimbered light guns
// hand haul 2" (reconstructed MOVEMENT chart): the infantry carries them 2.0", not 2.25" (7.5).
#[test]
fn attached_guns_carried_2_0_allowed_2_25_refused() {
    let most = super::charts().movement.allowance(otp::rules::otp::charts::ArmClass::Artillery, otp::scenario::model::UnitType::Line, Formation::Unlimbered).unwrap();
    assert_eq!(most, 2.0);
    for (inches, allowed) in [(most, true), (most + 0.25, false)] {
        let units = format!("{}{}", foot("Foot", 8, "Line", (36.0, 10.0), 0.0), guns_with("Guns", "gun: Light", "Unlimbered", (38.5, 10.0), 0.0, r#", attached_to: Some("Foot")"#));
        let s = scenario(&units, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
        let mut g = ready(&s, 1, "Redcoats");
        if allowed {
            ok(&mut g, forward("Foot", inches));
        } else {
            let r = refused(&mut g, forward("Foot", inches), "7.5");
            assert!(r.reason.contains("Guns is attached to Foot"), "{r}");
        }
    }
}

// OTP 7.5: "An artillery stand may detach itself during its operational phase": with its own
// brigade phasing, yes; with the enemy's, refused (4.3).
#[test]
fn detach_in_its_own_phase_yes_the_enemys_refused() {
    let units = format!("{}{}", foot("Foot", 8, "Line", (36.0, 10.0), 0.0), guns_with("Guns", "gun: Light", "Unlimbered", (38.5, 10.0), 0.0, r#", attached_to: Some("Foot")"#));
    let s = scenario(&units, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
    let detach = Action::Detach { gun: "Guns".into() };
    ok(&mut ready(&s, 1, "Redcoats"), detach.clone());
    refused(&mut ready(&s, 1, "Patriots"), detach, "4.3");
}

// OTP 7.7 (optional): limbered artillery cannot "be moved ahead of the foremost friendly
// infantry unit". The British foot's front is at y = 20; limbered guns from y = 12 may go
// 8.0" (level with it), not 8.25".
#[test]
fn drivers_limbered_level_with_the_foremost_infantry_allowed_0_25_ahead_refused() {
    for (inches, allowed) in [(8.0, true), (8.25, false)] {
        let units = format!("{}{}", foot("Foot", 8, "Line", (20.0, 20.0), 0.0), guns("Guns", "gun: Light", "Limbered", (36.0, 12.0), 0.0));
        let s = scenario(&units, &foot("Blues", 8, "Line", (60.0, 44.0), 180.0), "", CORNERS.0, CORNERS.1, "civilian_drivers: true");
        let mut g = ready(&s, 1, "Redcoats");
        if allowed {
            ok(&mut g, forward("Guns", inches));
        } else {
            let r = refused(&mut g, forward("Guns", inches), "7.7");
            assert!(r.reason.contains("foremost"), "{r}");
        }
    }
}

// OTP 7.4: "the gun can be remanned by moving the crew figures into contact with the gun model".
// The code's reading of contact (`engine::crew::CONTACT`, 1/4"): a detached crew 0.2" from its
// gun remans it, 0.3" off it may not. (The crew is detached by a morale Retreat result, found by
// seed; then set at the distance wanted.)
#[test]
fn reman_crew_0_2_from_the_gun_yes_0_3_refused() {
    use otp::rules::otp::engine::crew::{CONTACT, Detached};
    use otp::table::footprint::Footprint;
    assert_eq!(CONTACT, 0.25);
    let mine = unit("Guns", "Line", "Infantry", "None", 2, "Unlimbered", (36.0, 10.0), 0.0, ", morale_marker: true").replace("arm: Infantry", "arm: Artillery(gun: Light)");
    let s = scenario(&mine, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
    let detached = |seed: u64| {
        let mut g = ready(&s, seed, "Redcoats");
        ok(&mut g, Action::RemoveMarker { unit: "Guns".into(), how: otp::rules::otp::engine::Removal::Roll });
        let e = g.unit_entity("Guns").unwrap();
        g.detached_crew(e).is_some().then_some(g)
    };
    let seed = (0..400).find(|&seed| detached(seed).is_some()).expect("some seed rolls a Retreat for the guns");
    for (gap, remans) in [(0.2, true), (0.3, false)] {
        let mut g = detached(seed).unwrap();
        let e = g.unit_entity("Guns").unwrap();
        g.world_mut().entity_mut(e).remove::<otp::scenario::spawn::MoraleMarker>();
        let gun = *g.world().get::<Footprint>(g.unit(e).stands[0]).unwrap();
        let crew = g.world().get::<Detached>(e).unwrap().crew;
        let mut f = *g.world().get::<Footprint>(crew).unwrap();
        f.facing = gun.facing;
        f.centre = gun.centre + gun.right() * (gun.frontage / 2.0 + f.frontage / 2.0 + gap) + gun.forward() * (f.depth - gun.depth) / 2.0;
        *g.world_mut().get_mut::<Footprint>(crew).unwrap() = f;
        assert!((g.detached_crew(e).unwrap().distance(&gun) - gap).abs() < 1e-3);
        match g.check_reman("Guns") {
            Ok(()) => assert!(remans, "{gap}\": remanned"),
            Err(r) => {
                assert!(!remans, "{gap}\": {r}");
                assert_eq!(r.rule, "7.4", "{r}");
            }
        }
    }
}

// OTP 7.4: "An unlimbered artillery unit that is forced to retreat by a morale result must have
// the crew figures detached from the gun model": unlimbered, the crew leaves the gun; limbered
// (the same seed, the same Retreat), the guns retreat whole.
#[test]
fn morale_retreat_unlimbered_crew_detaches_limbered_retreats_whole() {
    let game = |formation: &str, seed: u64| {
        let mine = unit("Guns", "Line", "Infantry", "None", 2, formation, (36.0, 20.0), 0.0, ", morale_marker: true").replace("arm: Infantry", "arm: Artillery(gun: Light)");
        let s = scenario(&mine, &foot("Blues", 8, "Line", (36.0, 40.0), 180.0), "", CORNERS.0, CORNERS.1, "");
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, Action::RemoveMarker { unit: "Guns".into(), how: otp::rules::otp::engine::Removal::Roll });
        (g, r)
    };
    let seed = (0..400).find(|&seed| game("Unlimbered", seed).1.outcome.starts_with("Retreat")).expect("some seed rolls a Retreat");
    let (g, r) = game("Unlimbered", seed);
    assert!(g.detached_crew(g.unit_entity("Guns").unwrap()).is_some(), "{r}");
    let (g, r) = game("Limbered", seed);
    assert!(r.outcome.starts_with("Retreat"), "the same roll: {r}");
    assert!(g.detached_crew(g.unit_entity("Guns").unwrap()).is_none(), "{r}");
}
