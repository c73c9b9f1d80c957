//! Charges and melee played by the engine (OTP 6.8–6.11, 7.2, 7.5, 9.0–9.14), on small open
//! tables built for each rule: every branch found by scanning seeds, never by hard-coded dice.

use bevy::math::Vec2;
use otp::rules::otp::charts::Charts;
use otp::rules::otp::engine::{Action, ChargeOptions, Game, Reaction, Report};
use otp::scenario::model::Formation;
use otp::scenario::spawn::Stand;
use otp::table::footprint::Footprint;
use otp::table::movement::MoveStep;

mod common;
use common::{activate, ok, refused};

/// A 72" x 48" open table: the British (chit 1) below, facing up the table; the Americans
/// (chit 2) above, facing down. `british` and `americans` are RON unit lists. Commanders stand
/// in the corners (attached to nobody) unless a unit list puts one elsewhere via `*_at`.
fn table(british: &str, americans: &str, british_at: (f32, f32), american_at: (f32, f32), options: &str) -> otp::scenario::Scenario {
    let src = format!(
        r#"(
    name: "charge test",
    table: (width: 72.0, depth: 48.0),
    optional_rules: ({options}),
    turn_limit: Some(3),
    sides: [
        (name: "British", brigades: [
            (name: "Redcoats", chit: 1,
             commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some(({}, {}))),
             units: [{british}]),
        ]),
        (name: "Americans", brigades: [
            (name: "Patriots", chit: 2,
             commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some(({}, {}))),
             units: [{americans}]),
        ]),
    ],
)"#,
        british_at.0, british_at.1, american_at.0, american_at.1
    );
    otp::scenario::parse(&src, "charge-test.ron").unwrap_or_else(|e| panic!("{e}"))
}

const CORNERS: ((f32, f32), (f32, f32)) = ((1.0, 1.0), (71.0, 47.0));

fn foot(name: &str, kind: &str, figures: u32, formation: &str, at: (f32, f32), facing: f32) -> String {
    format!(r#"(name: "{name}", type: {kind}, arm: Infantry, weapon: Some(Musket), figures: {figures}, formation: {formation}, at: ({}, {}), facing: {facing}),"#, at.0, at.1)
}

fn horse(name: &str, figures: u32, formation: &str, at: (f32, f32), facing: f32) -> String {
    format!(r#"(name: "{name}", type: Line, arm: Cavalry, weapon: Some(Carbine), figures: {figures}, formation: {formation}, at: ({}, {}), facing: {facing}),"#, at.0, at.1)
}

fn guns(name: &str, at: (f32, f32), facing: f32) -> String {
    format!(r#"(name: "{name}", type: Line, arm: Artillery(gun: Light), figures: 2, formation: Unlimbered, at: ({}, {}), facing: {facing}),"#, at.0, at.1)
}

fn game(scenario: &otp::scenario::Scenario, seed: u64) -> Game {
    let mut g = Game::new(scenario.clone(), seed, Charts::embedded().clone());
    ok(&mut g, Action::StartGame);
    g
}

/// A game of `scenario` with `seed`, `brigade` phasing.
fn ready(scenario: &otp::scenario::Scenario, seed: u64, brigade: &str) -> Game {
    let mut g = game(scenario, seed);
    activate(&mut g, brigade);
    g
}

fn charge(unit: &str, target: &str) -> Action {
    Action::Charge { unit: unit.into(), target: target.into() }
}

fn has(r: &Report, rule: &str, text: &str) -> bool {
    r.changes.iter().chain(&r.notes).any(|e| e.rule == rule && e.text.contains(text)) || r.outcome.contains(text) && text.len() > 3 && rule.is_empty()
}

fn dice(r: &Report, rule: &str) -> usize {
    r.dice.iter().filter(|d| d.rule == rule).count()
}

/// The centre of a unit's front (or right-hand) stand: losses come off the last stand.
fn first_stand(g: &Game, name: &str) -> Vec2 {
    let e = g.unit_entity(name).unwrap_or_else(|| panic!("{name} is gone"));
    g.world().get::<Footprint>(g.unit(e).stands[0]).unwrap().centre
}

/// The centre of a unit's stands.
fn centre(g: &Game, name: &str) -> Vec2 {
    let e = g.unit_entity(name).unwrap_or_else(|| panic!("{name} is gone"));
    let fs: Vec<Footprint> = g.unit(e).stands.iter().map(|&s| *g.world().get::<Footprint>(s).unwrap()).collect();
    fs.iter().map(|f| f.centre).sum::<Vec2>() / fs.len() as f32
}

/// The first seed in 0..2000 whose charge report satisfies `want`, with the game after it.
fn scan(scenario: &otp::scenario::Scenario, action: &Action, want: impl Fn(&Game, &Report) -> bool) -> (u64, Game, Report) {
    for seed in 0..2000 {
        let mut g = ready(scenario, seed, "Redcoats");
        let r = ok(&mut g, action.clone());
        if want(&g, &r) {
            return (seed, g, r);
        }
    }
    panic!("no seed in 0..2000 gives the branch wanted for {action:?}");
}

/// A line facing up the table 8" below a line facing down it: a front attack.
fn lines_facing() -> otp::scenario::Scenario {
    table(&foot("Grenadiers", "Line", 16, "Line", (36.0, 20.0), 0.0), &foot("Continentals", "Line", 16, "Line", (36.0, 25.0), 180.0), CORNERS.0, CORNERS.1, "")
}

// OTP 9.1: the zone is judged from where the attacker starts. A front attack rolls a D10 for
// closure; a flank attack (started behind the line along the target's front) closes without
// one; an attacker that starts in front of that line but off to the side, and would have to
// wheel onto the flank, still attacks the front.
#[test]
fn closure_by_start_position() {
    let g = ready(&lines_facing(), 1, "Redcoats");
    let p = g.charge_preview("Grenadiers", "Continentals", ChargeOptions::default()).unwrap();
    assert_eq!(format!("{:?}", p.zone), "Front");
    assert!(!p.closure.automatic && p.closure.probability < 1.0);
    // Flank: the Americans face down the table from y = 28; start level with their rear, to the side.
    let flank = table(&foot("Grenadiers", "Line", 12, "Line", (41.0, 31.0), 270.0), &foot("Continentals", "Line", 16, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let mut g = ready(&flank, 1, "Redcoats");
    let p = g.charge_preview("Grenadiers", "Continentals", ChargeOptions::default()).unwrap();
    assert_eq!(format!("{:?}", p.zone), "Flank");
    let r = ok(&mut g, charge("Grenadiers", "Continentals"));
    assert_eq!(dice(&r, "9.1"), 0, "a flank attack closes automatically: {r}");
    assert!(has(&r, "9.1", "closes automatically"), "{r}");
    assert!(dice(&r, "9.8") >= 2, "the melee is fought: {r}");
    // In front of the line along the target's front, off to its side: a wheel would reach the
    // flank, but the attack is a front one.
    let wheel = table(&horse("Grenadiers", 8, "Line", (44.0, 24.0), 270.0), &foot("Continentals", "Line", 16, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let mut g = ready(&wheel, 1, "Redcoats");
    let p = g.charge_preview("Grenadiers", "Continentals", ChargeOptions::default()).unwrap();
    assert_eq!(format!("{:?}", p.zone), "Front");
    let r = ok(&mut g, charge("Grenadiers", "Continentals"));
    assert_eq!(dice(&r, "9.1"), 1, "{r}");
}

// OTP 9.1: over many seeds a front closure succeeds about as often as the exact chance says.
#[test]
fn closure_frequency_matches_the_exact_chance() {
    let s = lines_facing();
    let p = ready(&s, 0, "Redcoats").charge_preview("Grenadiers", "Continentals", ChargeOptions::default()).unwrap().closure.probability;
    let n = 300;
    let closed = (0..n)
        .filter(|&seed| {
            let mut g = ready(&s, seed, "Redcoats");
            let r = ok(&mut g, charge("Grenadiers", "Continentals"));
            r.notes.iter().any(|e| e.rule == "9.1" && e.text.contains("passes"))
        })
        .count();
    let f = closed as f64 / n as f64;
    let sd = (p * (1.0 - p) / n as f64).sqrt();
    assert!((f - p).abs() < 4.0 * sd + 0.01, "closed {f:.3}, exact {p:.3}");
}

// OTP 9.2, 9.3, 10.4: infantry line failing to close on infantry line's front: a firefight; the
// attacker stops 2" off; if both pass their CV rolls twice, both take markers that only a roll
// removes.
#[test]
fn firefight_two_rounds_flag_markers() {
    let s = lines_facing();
    let (seed, g, r) = scan(&s, &charge("Grenadiers", "Continentals"), |_, r| has(r, "10.4", "cannot be removed by a morale pass"));
    assert!(r.notes.iter().any(|e| e.rule == "9.3" && e.text.contains("round 2")), "seed {seed}: {r}");
    for name in ["Grenadiers", "Continentals"] {
        let e = g.unit_entity(name).unwrap();
        assert!(g.has_marker(e), "seed {seed}: {name}: {r}");
        assert!(g.unit_turn(e).marker_from_firefight, "seed {seed}: {name}'s marker is a firefight's (10.4)");
    }
    assert_eq!(dice(&r, "9.8"), 0, "no melee after a firefight");
    // The attacker stopped 2" short (before any withdrawal: both stood).
    let gap = centre(&g, "Continentals").y - centre(&g, "Grenadiers").y;
    let depth = g.world().get::<Footprint>(g.unit(g.unit_entity("Grenadiers").unwrap()).stands[0]).unwrap().depth;
    assert!((gap - depth - 2.0).abs() < 0.15, "seed {seed}: centres {gap:.2}\" apart");
    // And one where a unit fails after round 1 and withdraws a full line move with a marker.
    let (seed, g, r) = scan(&s, &charge("Grenadiers", "Continentals"), |_, r| r.outcome.contains("after round 1"));
    assert!(r.changes.iter().any(|c| c.rule == "9.3" && c.text.contains("withdraws a full line move")), "seed {seed}: {r}");
    assert!(r.changes.iter().any(|c| c.rule == "6.11"), "seed {seed}: the withdrawal is a retreat: {r}");
    let _ = g;
}

// OTP 9.4: militia contacted for melee roll CV; failing, they withdraw two full line moves with
// a Morale Marker and there is no melee.
#[test]
fn reaction_failure_withdraws_two_moves() {
    let s = table(&horse("Dragoons", 8, "Line", (36.0, 14.0), 0.0), &foot("Militia", "Militia", 12, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let before = centre(&ready(&s, 0, "Redcoats"), "Militia");
    let (seed, g, r) = scan(&s, &charge("Dragoons", "Militia"), |_, r| has(r, "9.4", "fails its reaction"));
    let e = g.unit_entity("Militia").unwrap();
    assert!(g.has_marker(e), "seed {seed}: {r}");
    assert_eq!(dice(&r, "9.8"), 0, "no melee: {r}");
    let line = g.normal_move(e, Formation::Line);
    let moved = centre(&g, "Militia").distance(before);
    assert!((moved - 2.0 * line).abs() < 0.5, "seed {seed}: withdrew {moved:.2}\" for two line moves of {line}\": {r}");
    // 6.9: the cavalry made its charge move: it takes its marker.
    assert!(g.has_marker(g.unit_entity("Dragoons").unwrap()), "{r}");
}

// OTP 9.4, 9.6: the charge preview gives the target's reaction roll, and it is the roll the charge
// makes: over many seeds, the share of closed charges whose militia give way is 1 - stands. A line
// target makes no reaction roll.
#[test]
fn the_previews_reaction_odds_are_the_rolls() {
    let s = table(&foot("Grenadiers", "Line", 16, "Line", (36.0, 22.0), 0.0), &foot("Militia", "Militia", 12, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let p = ready(&s, 0, "Redcoats").charge_preview("Grenadiers", "Militia", ChargeOptions::default()).unwrap();
    let reaction = p.reaction.expect("militia react to a charge that closes (9.4)");
    assert!(reaction.fights, "militia that pass fight (9.4)");
    let stands = reaction.stands();
    assert!(stands > 0.05 && stands < 0.95, "a roll that can go either way: {reaction:?}");
    let (mut closed, mut gave_way) = (0u32, 0u32);
    for seed in 0..800 {
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, charge("Grenadiers", "Militia"));
        if dice(&r, "9.4") == 1 {
            closed += 1;
            gave_way += u32::from(has(&r, "9.4", "fails its reaction"));
        }
    }
    let (n, share) = (closed as f64, gave_way as f64 / closed as f64);
    let sigma = (stands * (1.0 - stands) / n).sqrt();
    assert!(closed > 100 && (share - (1.0 - stands)).abs() < 4.0 * sigma, "{gave_way} of {closed} gave way; the preview said {:.3}", 1.0 - stands);
    let g = ready(&lines_facing(), 0, "Redcoats");
    assert!(g.charge_preview("Grenadiers", "Continentals", ChargeOptions::default()).unwrap().reaction.is_none(), "a line does not react (9.4)");
}

// OTP 9.4: light infantry in skirmish line that passes fires at 2" and stays (the default), or
// fires and withdraws one line move in good order (no marker, no melee).
#[test]
fn light_infantry_reaction_choices() {
    let s = table(&foot("Grenadiers", "Line", 16, "Line", (36.0, 22.0), 0.0), &foot("Rangers", "Light", 8, "Skirmish", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let passed = |_: &Game, r: &Report| r.notes.iter().any(|e| e.rule == "9.4" && e.text.contains("passes: it fires"));
    let (seed, _, r) = scan(&s, &charge("Grenadiers", "Rangers"), passed);
    assert!(has(&r, "9.4", "stays for the melee") && dice(&r, "9.8") >= 2, "seed {seed}: {r}");
    assert!(dice(&r, "8.1") >= 1, "the reaction fire is rolled: {r}");
    let withdraw = Action::ChargeWith { unit: "Grenadiers".into(), target: "Rangers".into(), options: ChargeOptions { reaction: Reaction::Withdraw, ..ChargeOptions::default() } };
    let (seed, g, r) = scan(&s, &withdraw, passed);
    assert!(has(&r, "9.4", "withdraws one line move in good order") && dice(&r, "9.8") == 0, "seed {seed}: {r}");
    let rangers = g.unit_entity("Rangers").unwrap();
    assert!(g.unit_turn(rangers).moved);
}

// OTP 9.2: a column that fails to close closes half the distance and deploys into line; a
// militia column also takes a Morale Marker. (9.1: a column rolls only with a leader attached.)
#[test]
fn column_failure_half_way_into_line() {
    for (kind, marker) in [("Line", false), ("Militia", true)] {
        // Col. Red stands at the head of the column (attached, 9.1).
        let s = table(&foot("Column", kind, 12, "Column", (36.0, 16.0), 0.0), &foot("Target", "Line", 16, "Line", (36.0, 26.0), 180.0), (36.0, 16.2), CORNERS.1, "");
        let start = ready(&s, 0, "Redcoats");
        let gap = start.charge_preview("Column", "Target", ChargeOptions::default()).map(|p| p.distance).unwrap();
        let head = |g: &Game| g.world().get::<Footprint>(g.unit(g.unit_entity("Column").unwrap()).stands[0]).unwrap().front_centre();
        let y0 = head(&start).y;
        let (seed, g, r) = scan(&s, &charge("Column", "Target"), |_, r| r.notes.iter().any(|e| e.rule == "9.1" && e.text.contains("fails")));
        let e = g.unit_entity("Column").unwrap();
        assert_eq!(g.unit(e).formation, Formation::Line, "seed {seed}: {r}");
        assert!(has(&r, "9.2", "closes half the distance"), "{r}");
        let militia_marker = r.notes.iter().any(|n| n.rule == "9.2" && n.text.contains("militia deploying"));
        assert_eq!(militia_marker, marker, "seed {seed} {kind}: {r}");
        if marker {
            assert!(g.has_marker(e));
        }
        let advanced = head(&g).y - y0;
        assert!(advanced > 0.25 * gap && advanced < 0.75 * gap + 1.0, "seed {seed}: advanced {advanced:.2} of {gap:.2}: {r}");
    }
    // Without a leader the column may not roll (5.1, 9.1).
    let s = table(&foot("Column", "Line", 12, "Column", (36.0, 16.0), 0.0), &foot("Target", "Line", 16, "Line", (36.0, 26.0), 180.0), CORNERS.0, CORNERS.1, "");
    let mut g = ready(&s, 0, "Redcoats");
    refused(&mut g, charge("Column", "Target"), "5.1");
}

// OTP 9.2: cavalry that fails to close stays where it is, as on a Stand result.
#[test]
fn cavalry_failing_to_close_stays() {
    let s = table(&horse("Dragoons", 8, "Line", (36.0, 10.0), 0.0), &foot("Continentals", "Line", 16, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let before = centre(&ready(&s, 0, "Redcoats"), "Dragoons");
    let (seed, g, r) = scan(&s, &charge("Dragoons", "Continentals"), |_, r| r.notes.iter().any(|e| e.rule == "9.1" && e.text.contains("fails")));
    assert!(centre(&g, "Dragoons").distance(before) < 1e-3, "seed {seed}: {r}");
    let e = g.unit_entity("Dragoons").unwrap();
    assert_eq!(format!("{:?}", g.unit_turn(e).restriction), "Some(Stand)", "{r}");
    assert!(!g.has_marker(e) || r.dice.iter().any(|d| d.rule == "8.1"), "no charge move, no 6.9 marker (only fire can give one): {r}");
}

/// The loser's retreat in full moves, from the MELEE COMBAT chart cell.
fn retreat_moves(r: &Report) -> Option<u32> {
    let c = r.charts.iter().find(|c| c.chart == "MELEE COMBAT")?;
    let s = c.result.split("retreats ").nth(1)?;
    s.split(' ').next()?.parse().ok()
}

// OTP 9.8, 6.11: the loser retreats one full move per AD it rolled for losses; a winner at 2:1
// or more is offered a bonus move (6.10).
#[test]
fn retreat_distances_by_ad_count() {
    // A flank attack (x2) by a big line on a small one: the attacker wins, at various ratios.
    let s = table(&foot("Grenadiers", "Line", 12, "Line", (41.0, 31.0), 270.0), &foot("Picket", "Line", 8, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let start = first_stand(&ready(&s, 0, "Redcoats"), "Picket");
    let mut seen = [false; 3];
    for seed in 0..200 {
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, charge("Grenadiers", "Picket"));
        let Some(moves) = retreat_moves(&r) else { continue };
        if !r.outcome.starts_with("Grenadiers") {
            continue;
        }
        let Some(e) = g.unit_entity("Picket") else { continue };
        if r.changes.iter().any(|c| c.rule == "6.11" && c.text.contains("stops short")) || r.notes.iter().any(|n| n.text.contains("in the way")) {
            continue;
        }
        let moved = first_stand(&g, "Picket").distance(start);
        let full = g.normal_move(e, g.unit(e).formation);
        assert!((moved - moves as f32 * full).abs() < 0.6, "seed {seed}: {moves} move(s) of {full}\" but moved {moved:.2}\": {r}");
        seen[moves as usize] = true;
    }
    assert!(seen[1] || seen[2], "some retreat measured");
}

// OTP 7.2: artillery that loses a melee is removed from the game, without rolling for losses.
#[test]
fn artillery_loser_is_removed() {
    let s = table(&horse("Dragoons", 8, "Line", (41.0, 33.0), 270.0), &guns("Battery", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let (seed, g, r) = scan(&s, &charge("Dragoons", "Battery"), |_, r| r.outcome.starts_with("Dragoons win"));
    assert!(g.unit_entity("Battery").is_none(), "seed {seed}: {r}");
    assert!(r.changes.iter().any(|c| c.rule == "7.2" && c.text.contains("removed")), "{r}");
    assert!(!r.dice.iter().any(|d| d.rule == "9.8" && d.purpose.starts_with("Battery")), "no loss roll for the guns: {r}");
    // 6.9: the charging cavalry takes its marker after the melee whatever happens.
    assert!(g.has_marker(g.unit_entity("Dragoons").unwrap()), "{r}");
}

// OTP 6.10: a winner at 2:1 or more is offered a bonus move, usable once (another move outside
// its operation), and only once a turn.
#[test]
fn bonus_move_offered_once_and_usable_once() {
    let s = table(&foot("Grenadiers", "Line", 12, "Line", (41.0, 31.0), 270.0), &foot("Picket", "Line", 8, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let (seed, mut g, r) = scan(&s, &charge("Grenadiers", "Picket"), |g, r| {
        has(r, "6.10", "bonus move offered (6.10)") && g.unit_entity("Grenadiers").is_some_and(|e| !g.has_marker(e))
    });
    let e = g.unit_entity("Grenadiers").unwrap();
    assert!(g.bonus_pending(e), "seed {seed}: {r}");
    let step = || Action::Move { unit: "Grenadiers".into(), steps: vec![MoveStep::AboutFace, MoveStep::Forward(1.0)] };
    ok(&mut g, step());
    assert!(!g.bonus_pending(e));
    refused(&mut g, step(), "3.1");
}

// OTP 6.9: cavalry that charges takes a Morale Marker after the melee, win or lose.
#[test]
fn cavalry_marker_after_melee() {
    let s = table(&horse("Dragoons", 8, "Line", (41.0, 33.0), 270.0), &foot("Continentals", "Line", 12, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    for seed in 0..20 {
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, charge("Dragoons", "Continentals"));
        assert!(dice(&r, "9.8") >= 2, "seed {seed}: a flank charge always closes: {r}");
        if let Some(e) = g.unit_entity("Dragoons") {
            assert!(g.has_marker(e), "seed {seed}: {r}");
            assert!(has(&r, "6.9", "Morale Marker"), "{r}");
        }
    }
}

// OTP 9.0, 9.1, 6.9, 7.2, 4.3: refusals with their rules, changing nothing and throwing no dice.
#[test]
fn refusals_change_nothing() {
    let s = table(
        &format!("{}{}{}", horse("Dragoons", 8, "Line", (20.0, 4.0), 0.0), guns("Battery", (50.0, 20.0), 0.0), foot("Grenadiers", "Line", 16, "Line", (36.0, 6.0), 0.0)),
        &foot("Continentals", "Line", 16, "Line", (36.0, 40.0), 180.0),
        CORNERS.0,
        CORNERS.1,
        "",
    );
    let mut g = ready(&s, 3, "Redcoats");
    refused(&mut g, charge("Battery", "Continentals"), "7.2");
    refused(&mut g, charge("Grenadiers", "Dragoons"), "9.0");
    refused(&mut g, charge("Grenadiers", "Continentals"), "6.9");
    refused(&mut g, charge("Dragoons", "Continentals"), "6.9");
    refused(&mut g, charge("Continentals", "Grenadiers"), "4.3");
    refused(&mut g, charge("Nobody", "Continentals"), "4.2");
}

// OTP 6.9: charging cavalry may not cross a linear obstruction.
#[test]
fn charging_cavalry_does_not_cross_obstacles() {
    let mut s = table(&horse("Dragoons", 8, "Line", (36.0, 14.0), 0.0), &foot("Continentals", "Line", 16, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    s.terrain.push(otp::scenario::model::Terrain::Obstacle { name: "Rail fence".into(), kind: otp::scenario::model::ObstacleKind::Fence, path: vec![[20.0, 20.0], [52.0, 20.0]], impassable_to_artillery: false });
    let mut g = ready(&s, 3, "Redcoats");
    let r = refused(&mut g, charge("Dragoons", "Continentals"), "6.9");
    assert!(r.reason.contains("Rail fence"), "{r}");
}

// Same scenario, seed and actions: the same reports, the same game.
#[test]
fn charges_are_deterministic() {
    let s = lines_facing();
    let play = || {
        let mut g = ready(&s, 11, "Redcoats");
        let r = ok(&mut g, charge("Grenadiers", "Continentals"));
        (serde_json::to_string(&r).unwrap(), g.snapshot())
    };
    assert_eq!(play(), play());
}

// OTP 9.8: figures never go negative, stands hold the unit's figures, and a unit with none left
// is off the table, over many seeded melees.
#[test]
fn melee_keeps_the_books() {
    let s = table(&horse("Dragoons", 8, "Line", (41.0, 33.0), 270.0), &foot("Picket", "Militia", 4, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "militia_stragglers: true");
    for seed in 0..60 {
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, charge("Dragoons", "Picket"));
        for (_, u) in g.units() {
            assert!(u.figures <= u.initial_figures && u.figures > 0, "seed {seed}: {} has {}: {r}", u.name, u.figures);
            let on: u32 = u.stands.iter().map(|&st| g.world().get::<Stand>(st).unwrap().figures).sum();
            assert_eq!(on, u.figures, "seed {seed}: {r}");
        }
    }
}

// OTP 6.8: a special move to contact rolls for closure first, then the special move's AD; if
// the move cannot reach, the unit moves its whole special move and takes a Morale Marker.
#[test]
fn special_move_to_contact() {
    let s = table(&foot("Grenadiers", "Line", 16, "Line", (36.0, 20.0), 0.0), &foot("Continentals", "Line", 16, "Line", (36.0, 29.5), 180.0), CORNERS.0, CORNERS.1, "");
    let special = |target: &str| Action::ChargeWith { unit: "Grenadiers".into(), target: target.into(), options: ChargeOptions { special: true, ..ChargeOptions::default() } };
    let mut g = ready(&s, 0, "Redcoats");
    refused(&mut g, charge("Grenadiers", "Continentals"), "6.9");
    let order = |r: &Report| (r.dice.iter().position(|d| d.rule == "9.1"), r.dice.iter().position(|d| d.rule == "6.8"));
    let y0 = first_stand(&g, "Grenadiers").y;
    let (seed, g, r) = scan(&s, &special("Continentals"), |_, r| r.changes.iter().any(|c| c.rule == "6.8" && c.text.contains("falls short")));
    let (closure, ad) = order(&r);
    assert!(closure < ad && ad.is_some(), "seed {seed}: closure, then the AD: {r}");
    let rolled = r.dice.iter().find(|d| d.rule == "6.8").unwrap().roll.total as f32;
    let e = g.unit_entity("Grenadiers").unwrap();
    assert!(g.has_marker(e), "seed {seed}: {r}");
    let full = g.normal_move(e, Formation::Line);
    assert!((first_stand(&g, "Grenadiers").y - y0 - (full + rolled)).abs() < 0.3, "seed {seed}: the whole special move: {r}");
    assert!(g.unit_turn(e).special_move, "6.8: its operation is done");
    let (seed, _, r) = scan(&s, &special("Continentals"), |_, r| r.charts.iter().any(|c| c.chart == "MELEE COMBAT"));
    let (closure, ad) = order(&r);
    assert!(closure < ad, "seed {seed}: {r}");
    // Beyond the best roll: refused before any die.
    let far = table(&foot("Grenadiers", "Line", 16, "Line", (36.0, 10.0), 0.0), &foot("Continentals", "Line", 16, "Line", (36.0, 29.5), 180.0), CORNERS.0, CORNERS.1, "");
    let mut g = ready(&far, 0, "Redcoats");
    refused(&mut g, special("Continentals"), "6.8");
}

// Saves name actions by variant: the plain Charge is unchanged, ChargeWith comes last and its
// options default field by field, so a save without them still loads.
#[test]
fn charge_actions_round_trip() {
    let a = Action::charge("A", "B", ChargeOptions { reaction: Reaction::Withdraw, ..ChargeOptions::default() });
    let text = ron::to_string(&a).unwrap();
    assert_eq!(ron::from_str::<Action>(&text).unwrap(), a);
    let old = ron::from_str::<Action>(r#"ChargeWith(unit: "A", target: "B", options: (special: true))"#).unwrap();
    assert_eq!(old, Action::ChargeWith { unit: "A".into(), target: "B".into(), options: ChargeOptions { special: true, ..ChargeOptions::default() } });
    assert_eq!(Action::charge("A", "B", ChargeOptions::default()), charge("A", "B"));
    assert_eq!(ron::from_str::<Action>(r#"Charge(unit: "A", target: "B")"#).unwrap(), charge("A", "B"));
}

// OTP 9.5: mounted cavalry charged on its front countercharges when it passes a closure check
// (the default choice); both then fight as attackers and both take the 6.9 marker. Declined,
// no roll is made.
#[test]
fn cavalry_countercharges() {
    let s = table(&horse("Dragoons", 8, "Line", (36.0, 14.0), 0.0), &horse("Lancers", 8, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let (seed, g, r) = scan(&s, &charge("Dragoons", "Lancers"), |_, r| r.changes.iter().any(|c| c.rule == "9.5" && c.text.contains("countercharges")));
    assert_eq!(dice(&r, "9.5"), 1, "{r}");
    assert!(r.charts.iter().any(|c| c.chart == "MELEE COMBAT"), "seed {seed}: {r}");
    for name in ["Dragoons", "Lancers"] {
        if let Some(e) = g.unit_entity(name) {
            assert!(g.has_marker(e), "seed {seed}: {name}: {r}");
        }
    }
    let declined = Action::ChargeWith { unit: "Dragoons".into(), target: "Lancers".into(), options: ChargeOptions { countercharge: false, ..ChargeOptions::default() } };
    let (seed, _, r) = scan(&s, &declined, |_, r| r.notes.iter().any(|n| n.rule == "9.1" && n.text.contains("passes")));
    assert_eq!(dice(&r, "9.5"), 0, "seed {seed}: {r}");
    assert!(has(&r, "9.5", "does not countercharge"), "{r}");
}

// OTP 9.11, 10.5: each commander attached to a unit in the melee rolls a D10: 0-3, a casualty.
#[test]
fn commanders_in_melee_roll_for_casualties() {
    // Col. Red stands with the Grenadiers' middle stand.
    let s = table(&foot("Grenadiers", "Line", 12, "Line", (41.0, 31.0), 270.0), &foot("Picket", "Line", 8, "Line", (36.0, 28.0), 180.0), (41.2, 31.0), CORNERS.1, "");
    let (mut fell, mut stood) = (0, 0);
    for seed in 0..60 {
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, charge("Grenadiers", "Picket"));
        let d = r.dice.iter().find(|d| d.rule == "9.11").unwrap_or_else(|| panic!("seed {seed}: Col. Red rolls: {r}"));
        let red = g.commander_entity("Col. Red").unwrap();
        if d.roll.total <= 3 {
            fell += 1;
            assert!(g.commander(red).rating.is_none() && r.changes.iter().any(|c| c.rule == "10.5"), "seed {seed}: {r}");
        } else {
            stood += 1;
            assert!(g.commander(red).rating.is_some(), "seed {seed}: {r}");
        }
    }
    assert!(fell > 0 && stood > 0, "{fell} {stood}");
}

// OTP 3.0, 3.1: a charge ends the unit's operation: no fire or move after it (without a 6.10
// bonus move).
#[test]
fn a_charge_ends_the_operation() {
    let s = table(&foot("Grenadiers", "Line", 12, "Line", (41.0, 31.0), 270.0), &foot("Continentals", "Line", 16, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    let (seed, mut g, r) = scan(&s, &charge("Grenadiers", "Continentals"), |g, r| r.charts.iter().any(|c| c.chart == "MELEE COMBAT") && g.unit_entity("Grenadiers").is_some_and(|e| !g.has_marker(e) && !g.bonus_pending(e)));
    let fire = Action::fire("Grenadiers", "Continentals");
    let e = g.apply(fire).expect_err(&format!("seed {seed}: {r}"));
    assert_eq!(e.rule, "3.1", "{e}");
    refused(&mut g, Action::Move { unit: "Grenadiers".into(), steps: vec![MoveStep::AboutFace] }, "3.1");
}

// OTP 7.5: guns attached to a unit in the melee fight with it; their losses come off the
// infantry, and when it loses, the gun stays and its crew retreats with the infantry.
#[test]
fn attached_guns_lose_with_their_infantry() {
    let americans = format!(
        "{}{}",
        foot("Continentals", "Line", 8, "Line", (36.0, 28.0), 180.0),
        r#"(name: "Battery", type: Line, arm: Artillery(gun: Light), figures: 2, formation: Unlimbered, at: (33.5, 28.0), facing: 180.0, attached_to: Some("Continentals")),"#
    );
    let s = table(&horse("Dragoons", 10, "Line", (42.0, 34.0), 270.0), &americans, CORNERS.0, CORNERS.1, "");
    let (seed, g, r) = scan(&s, &charge("Dragoons", "Continentals"), |g, r| r.outcome.starts_with("Dragoons win") && g.unit_entity("Continentals").is_some());
    let gun = g.unit_entity("Battery").expect("the gun stays in the game");
    assert!(r.notes.iter().any(|n| n.rule == "7.5" && n.text.contains("taken from its infantry")), "seed {seed}: {r}");
    assert!(!r.dice.iter().any(|d| d.rule == "9.8" && d.purpose.starts_with("Battery")), "{r}");
    assert_eq!(g.riding_with(gun), g.unit_entity("Continentals"), "seed {seed}: the crew goes with the infantry: {r}");
    assert!(g.has_marker(gun), "7.5: the same penalties");
}

// OTP 9.7, 9.8, 9.13: the charge preview's melee odds counting the target's fire at the charger
// in contact are the melee the charge fights: over many seeds, the share of closed charges the
// attacker wins is the preview's, and far from the odds before that fire (its kills come off
// first, and its Morale Marker disorders the attacker).
#[test]
fn the_previews_odds_after_closing_fire_are_the_melees() {
    let s = table(&foot("Grenadiers", "Line", 18, "Line", (36.0, 22.0), 0.0), &foot("Continentals", "Line", 10, "Line", (36.0, 27.0), 180.0), CORNERS.0, CORNERS.1, "");
    let p = ready(&s, 0, "Redcoats").charge_preview("Grenadiers", "Continentals", ChargeOptions::default()).unwrap();
    let fire = p.closing_fire.as_ref().expect("a front attack on a line is fired on as it closes (9.7)");
    assert_eq!(fire.rule, "9.7");
    let (before, after) = (p.outcomes.attacker_wins, p.wins_once_closed());
    assert!(after > 0.1 && after < 0.9 && before - after > 0.15, "before the fire {before:.3}, after it {after:.3}");
    let (mut closed, mut won) = (0u32, 0u32);
    for seed in 0..1500 {
        let mut g = ready(&s, seed, "Redcoats");
        let r = ok(&mut g, charge("Grenadiers", "Continentals"));
        if has(&r, "9.7", "closes on") {
            closed += 1;
            won += u32::from(r.outcome.contains("Grenadiers win the melee"));
        }
    }
    let (n, share) = (closed as f64, won as f64 / closed as f64);
    let sigma = (after * (1.0 - after) / n).sqrt();
    assert!(closed > 300 && (share - after).abs() < 4.0 * sigma, "{won} of {closed} closed charges won; the preview said {after:.3} (before the fire {before:.3})");
}

// OTP 9.7, 9.4, 9.5: which fire the preview weighs before the melee, as the charge gives it: a
// front attack on a line, 9.7's closing fire; light infantry in skirmish line that pass their
// reaction, 9.4's fire at 2"; a flank attack, none (the charge's report has no 9.7 fire either);
// mounted cavalry charged on its front may countercharge instead, none.
#[test]
fn the_preview_weighs_the_fire_the_charge_gives() {
    let rule = |s: &otp::scenario::Scenario, target: &str| ready(s, 0, "Redcoats").charge_preview("Grenadiers", target, ChargeOptions::default()).unwrap().closing_fire.map(|c| c.rule);
    assert_eq!(rule(&lines_facing(), "Continentals"), Some("9.7"));
    let lights = table(&foot("Grenadiers", "Line", 16, "Line", (36.0, 22.0), 0.0), &foot("Rangers", "Light", 8, "Skirmish", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    assert_eq!(rule(&lights, "Rangers"), Some("9.4"));
    let flank = table(&foot("Grenadiers", "Line", 12, "Line", (41.0, 31.0), 270.0), &foot("Continentals", "Line", 16, "Line", (36.0, 28.0), 180.0), CORNERS.0, CORNERS.1, "");
    assert_eq!(rule(&flank, "Continentals"), None);
    let mut g = ready(&flank, 1, "Redcoats");
    let r = ok(&mut g, charge("Grenadiers", "Continentals"));
    assert!(dice(&r, "9.8") >= 2 && !r.notes.iter().any(|n| n.rule == "9.7"), "a flank attack is not fired on as it closes: {r}");
    let horse_target = table(&foot("Grenadiers", "Line", 16, "Line", (36.0, 22.0), 0.0), &horse("Dragoons", 8, "Line", (36.0, 27.0), 180.0), CORNERS.0, CORNERS.1, "");
    assert_eq!(rule(&horse_target, "Dragoons"), None);
}
