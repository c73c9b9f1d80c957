//! An automatic player for On to Philadelphia, and whole games played by it ([`simulate`],
//! [`simulate_many`]).
//!
//! The [`Bot`] plays whichever side is phasing, one [`Action`] at a time, and asks the engine
//! whether each choice is legal before making it (`Game::check_move`, `fire_preview`…), so the
//! engine should never refuse it: when it does anyway, the bot ends the activation (or the turn)
//! and counts the refusal. First, a unit offered a bonus move (6.10) charges again if that is
//! worth it. Then, for each unit of the phasing brigade in order: shed a Morale Marker (a
//! commander's pass when one can reach, else a roll, 10.2–10.4); charge when it is worth it (a
//! flank or rear attack the melee odds favour, or a front attack with an even chance to close
//! and the odds in its favour, 9.x); fire at the nearest target it may (8.1); change from column
//! to line (or unlimber) near the enemy; move toward the nearest enemy (or, with none left, the
//! nearest objective), forward or oblique (6.1, 6.3), shortening the move until the table allows
//! it; else nothing. After the last chit it tries every rebuild the rules allow (11.0) and ends
//! the turn.

mod rehearse;
pub mod standard;

use std::io::Write;

use bevy::math::Vec2;
use bevy::prelude::Entity;

use crate::rules::otp::charts::{ArmClass, Charts};
use crate::rules::otp::engine::{Action, ChargeOptions, Game, Phase, Refusal, Removal, Report};
use crate::scenario::model::{Arm, Formation, Scenario};
use crate::scenario::spawn::Brigade;
use crate::table::fire::{FireOptions, targets};
use crate::table::footprint::{Footprint, vector_bearing};
use crate::table::movement::MoveStep;
use crate::rules::otp::fire::range::{FIRE, max_range};
use crate::table::range::unit_distance;
use crate::table::situation::Situation;

/// Within this distance of the enemy a column deploys into line and limbered guns unlimber.
pub const DEPLOY_DISTANCE: f32 = 12.0;
/// The most actions one game may take before the bot gives up (a guard against a loop).
pub use crate::rules::simulate::MAX_ACTIONS;

/// The automatic player: what it has dealt with in the current activation and its refusals.
#[derive(Clone, Debug, Default)]
pub struct Bot {
    /// (turn, chit) of the activation `handled` belongs to.
    key: Option<(u32, u32)>,
    handled: Vec<String>,
    /// Actions the engine refused (should stay zero).
    pub refusals: usize,
    /// The refusals, for a test to print.
    pub refused: Vec<(Action, Refusal)>,
}

impl Bot {
    pub fn new() -> Self {
        Bot::default()
    }

    /// The bot's next action for whichever side is phasing; `None` once the game is over.
    pub fn next_action(&mut self, g: &Game) -> Option<Action> {
        match g.phase() {
            Phase::Over => None,
            Phase::Setup => Some(Action::StartGame),
            Phase::Draw => Some(Action::DrawChit),
            Phase::Rebuild => Some(g.units().map(|(_, u)| u.name.clone()).find(|n| g.check_rebuild(n).is_ok()).map_or(Action::EndTurn, |unit| Action::AttemptRebuild { unit })),
            Phase::Activation { chit } => {
                if self.key != Some((g.turn(), chit)) {
                    self.key = Some((g.turn(), chit));
                    self.handled.clear();
                }
                // The table as it stands, kept by the game for every question below (the game does
                // not change while the bot chooses).
                let s = std::cell::LazyCell::new(|| g.situation());
                // 6.10: a bonus move won in this activation goes into another charge if one is worth it.
                let bonus: Vec<(Entity, String)> = g.units().filter(|(e, _)| g.bonus_pending(*e)).map(|(e, u)| (e, u.name.clone())).collect();
                if let Some(a) = bonus.iter().find_map(|(e, name)| charge(g, &s, *e, name)) {
                    return Some(a);
                }
                let units: Vec<(Entity, String)> = g.units().filter(|(_, u)| g.world().get::<Brigade>(u.brigade).is_some_and(|b| b.chit == chit)).map(|(e, u)| (e, u.name.clone())).collect();
                for (e, name) in units {
                    if self.handled.contains(&name) || g.unit_turn(e).off_table {
                        continue;
                    }
                    if let Some(a) = shed_marker(g, e, &name) {
                        return Some(a);
                    }
                    self.handled.push(name.clone());
                    if let Some(a) = charge(g, &s, e, &name).or_else(|| fire(g, &s, e, &name)).or_else(|| deploy(g, &s, e, &name)).or_else(|| advance(g, &s, e, &name)) {
                        return Some(a);
                    }
                }
                Some(Action::EndActivation)
            }
        }
    }

    /// Choose and apply the next action; a refusal is counted and the activation (or the turn)
    /// ended instead. `None` once the game is over.
    pub fn step(&mut self, g: &mut Game) -> Option<Report> {
        let action = self.next_action(g)?;
        match g.apply(action.clone()) {
            Ok(r) => Some(r),
            Err(refusal) => {
                self.refusals += 1;
                self.refused.push((action, refusal));
                let fallback = if g.phase() == Phase::Rebuild { Action::EndTurn } else { Action::EndActivation };
                g.apply(fallback).ok()
            }
        }
    }

    /// Play the game to its end, calling `seen` with every report. Returns the actions taken.
    pub fn play(&mut self, g: &mut Game, mut seen: impl FnMut(&Game, &Report)) -> usize {
        let mut n = 0;
        while n < MAX_ACTIONS {
            let Some(r) = self.step(g) else { break };
            seen(g, &r);
            n += 1;
        }
        n
    }
}

/// 10.2–10.4: a pass from a commander who can reach and has one, else a roll, once a turn.
fn shed_marker(g: &Game, e: Entity, name: &str) -> Option<Action> {
    if !g.has_marker(e) || g.unit_turn(e).morale.is_some() {
        return None;
    }
    let u = g.unit(e);
    let pass = g
        .commanders()
        .filter(|(c, cmd)| cmd.side == u.side && cmd.brigade.is_none_or(|b| b == u.brigade) && g.passes_left(*c) > 0)
        .map(|(_, cmd)| Removal::Pass { commander: cmd.name.clone() })
        .find(|how| g.check_removal(name, how).is_ok());
    let how = pass.unwrap_or(Removal::Roll);
    g.check_removal(name, &how).is_ok().then(|| Action::RemoveMarker { unit: name.to_string(), how })
}

/// Front charges the bot makes: at least this chance to close (9.1)…
pub const CHARGE_CLOSURE: f64 = 0.5;
/// …and at least this chance to win the melee if it closes (9.8).
pub const CHARGE_WIN: f64 = 0.6;

/// 9.x: charge the enemy unit in reach with the best chance of closing and winning: a flank
/// or rear attack (closing automatically, 9.1) the melee favours, or a front attack with an
/// even chance or better to close and the exact melee odds in its favour.
fn charge(g: &Game, s: &Situation, e: Entity, name: &str) -> Option<Action> {
    let u = g.unit(e);
    let arm = ArmClass::from(u.arm);
    if arm == ArmClass::Artillery || g.has_marker(e) {
        return None;
    }
    let reach = if arm == ArmClass::Cavalry { g.charts().movement.cavalry_charge() } else { g.normal_move(e, u.formation) };
    let me = s.find(name).ok()?;
    let targets: Vec<String> = (0..s.units().len()).filter(|&i| s.unit(i).side != s.unit(me).side && unit_distance(s, me, i) <= reach).map(|i| s.unit(i).name.clone()).collect();
    let previews = g.charge_previews_if_allowed(name, &targets, ChargeOptions::default());
    let best = targets
        .into_iter()
        .zip(previews)
        .filter_map(|(target, p)| {
            let p = p?;
            let closes = p.closure.probability;
            let wins = p.outcomes.attacker_wins;
            let worth = if p.closure.automatic { wins >= 0.5 } else { closes >= CHARGE_CLOSURE && wins >= CHARGE_WIN };
            worth.then_some((closes * wins, target))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(&a.1)))?;
    Some(Action::Charge { unit: name.to_string(), target: best.1 })
}

/// 8.1: fire at the nearest target the unit may fire on (most figures bearing among equals).
fn fire(g: &Game, s: &Situation, e: Entity, name: &str) -> Option<Action> {
    if !g.may_fire(e) {
        return None;
    }
    let me = s.find(name).ok()?;
    let gun = s.unit(me).gun().is_some();
    // Candidates as far as guns could reach from higher ground (7.3); the engine judges each.
    let extra_range = if gun { g.charts().fire.elevation_bonus.value } else { 0.0 };
    let mut choices = targets(s, me, FireOptions { rules: &FIRE, ball: gun, extra_range });
    choices.sort_by(|a, b| a.range.total_cmp(&b.range).then(b.figures.cmp(&a.figures)));
    choices.iter().take(3).find(|t| g.fire_preview(name, &t.name, None).is_ok()).map(|t| Action::fire(name, t.name.clone()))
}

/// The nearest enemy unit on the table (the first of the nearest): its index, distance and
/// where it is.
fn nearest_enemy(g: &Game, s: &Situation, me: usize) -> Option<(usize, f32, Vec2)> {
    let side = s.unit(me).side;
    let (_, c, r) = s.spans[me];
    let mut best: Option<(usize, f32)> = None;
    for i in (0..s.units().len()).filter(|&i| s.unit(i).side != side) {
        // Bounding circles, a hair to spare: a unit surely farther than the best so far is not
        // measured (nor looked up).
        let (_, ci, ri) = s.spans[i];
        if best.is_some_and(|(_, d)| c.distance(ci) - r - ri - 0.01 > d) || g.unit_entity(&s.unit(i).name).is_none_or(|e| g.unit_turn(e).off_table) {
            continue;
        }
        let d = unit_distance(s, me, i);
        if best.is_none_or(|(_, b)| d.total_cmp(&b).is_lt()) {
            best = Some((i, d));
        }
    }
    best.map(|(i, d)| (i, d, centre(&s.unit(i).footprints())))
}

fn centre(stands: &[Footprint]) -> Vec2 {
    stands.iter().map(|f| f.front_centre()).sum::<Vec2>() / stands.len().max(1) as f32
}

/// 6.2, 3.3: a column within reach of the enemy forms line; limbered guns unlimber.
fn deploy(g: &Game, s: &Situation, e: Entity, name: &str) -> Option<Action> {
    let u = g.unit(e);
    let to = match (u.formation, &u.arm) {
        (Formation::Column, Arm::Infantry | Arm::Cavalry) => Formation::Line,
        (Formation::Limbered, Arm::Artillery { .. }) => Formation::Unlimbered,
        _ => return None,
    };
    let (_, d, _) = nearest_enemy(g, s, s.find(name).ok()?)?;
    (d <= DEPLOY_DISTANCE && g.check_formation(name, to).is_ok()).then(|| Action::ChangeFormation { unit: name.to_string(), formation: to })
}

/// 6.1, 6.3: toward the nearest enemy (to just inside the unit's own range, 2" for horse) or,
/// with no enemy left, the nearest objective; forward or oblique, shortened until legal.
fn advance(g: &Game, s: &Situation, e: Entity, name: &str) -> Option<Action> {
    let u = g.unit(e);
    if u.formation == Formation::Unlimbered {
        return None;
    }
    let me = s.find(name).ok()?;
    let stands = s.unit(me).footprints();
    let front = centre(&stands);
    let (goal, gap) = match nearest_enemy(g, s, me) {
        Some((_, d, at)) => {
            let stop = if ArmClass::from(u.arm) == ArmClass::Cavalry { 2.0 } else { max_range(s.unit(me), 0.0).map_or(2.0, |r| (r - 1.0).max(1.5)) };
            (at, d - stop)
        }
        None => {
            let o = g.scenario().objectives.iter().map(|o| Vec2::from(o.at)).min_by(|a, b| a.distance(front).total_cmp(&b.distance(front)))?;
            (o, o.distance(front) - 1.0)
        }
    };
    if gap <= 0.25 {
        return None;
    }
    let facing = stands.first()?.facing;
    let turn = (vector_bearing(goal - front) - facing + 540.0).rem_euclid(360.0) - 180.0;
    if turn.abs() > 135.0 {
        return None;
    }
    let full = g.normal_move(e, u.formation);
    let want = gap.min(full);
    [1.0, 0.75, 0.5, 0.25]
        .into_iter()
        .map(|k| want * k)
        .filter(|&d| d >= 0.25)
        .map(|d| if turn.abs() < 5.0 { vec![MoveStep::Forward(d)] } else { vec![MoveStep::Oblique { angle: turn.clamp(-45.0, 45.0), distance: d }] })
        .find(|steps| g.check_move(name, steps).is_ok())
        .map(|steps| Action::Move { unit: name.to_string(), steps })
}

// ---- levels: the novice above, the standard and strong players of `standard` ----

use crate::rules::automatic::{Decision, Level, Player};

/// An automatic player of a level, with its reasons ([`Player`]) and as a plain
/// [`crate::rules::engine::Automatic`].
pub enum Leveled {
    Novice(Bot),
    Standard(standard::Standard),
}

impl Leveled {
    pub fn new(level: Level) -> Self {
        match level {
            Level::Novice => Leveled::Novice(Bot::new()),
            Level::Standard => Leveled::Standard(standard::Standard::new(false)),
            Level::Strong => Leveled::Standard(standard::Standard::new(true)),
        }
    }

    /// The next action and, above the novice, why.
    pub fn decide_game(&mut self, g: &Game) -> Option<(Action, Option<String>)> {
        match self {
            Leveled::Novice(b) => b.next_action(g).map(|a| (a, None)),
            Leveled::Standard(p) => p.decide(g).map(|(a, why)| (a, Some(why))),
        }
    }

    /// The next decision: the action, why, and the way a unit goes round the enemy's fire.
    pub fn decision(&mut self, g: &Game) -> Option<Decision> {
        let (a, reason) = self.decide_game(g)?;
        let way = match self {
            Leveled::Standard(p) => p.take_way(),
            Leveled::Novice(_) => None,
        };
        Some(Decision { action: crate::rules::action::Action::Otp(a), reason, way })
    }
}

impl Player for Leveled {
    fn decide(&mut self, game: &dyn crate::rules::engine::Engine) -> Option<Decision> {
        self.decision(game.as_any().downcast_ref::<Game>()?)
    }
}

impl crate::rules::engine::Automatic for Leveled {
    fn next_action(&mut self, game: &dyn crate::rules::engine::Engine) -> Option<crate::rules::action::Action> {
        Player::decide(self, game).map(|d| d.action)
    }
}

/// One player a side, each of its level: the phasing brigade's side decides; the first side's
/// player starts the game, draws the chits and ends the turns (the same at every level).
pub struct Sides(pub Vec<Leveled>);

impl Sides {
    pub fn new(levels: &[Level]) -> Self {
        Sides(levels.iter().map(|&l| Leveled::new(l)).collect())
    }

    pub fn decide_game(&mut self, g: &Game) -> Option<(Action, Option<String>)> {
        let side = phasing_side(g).min(self.0.len().saturating_sub(1));
        self.0.get_mut(side)?.decide_game(g)
    }
}

/// The side of the phasing brigade (0 outside an activation).
pub fn phasing_side(g: &Game) -> usize {
    match g.phase() {
        Phase::Activation { chit } => g.world().try_query::<&Brigade>().and_then(|mut q| q.iter(g.world()).find(|b| b.chit == chit).map(|b| b.side)).unwrap_or(0),
        _ => 0,
    }
}

impl Player for Sides {
    fn decide(&mut self, game: &dyn crate::rules::engine::Engine) -> Option<Decision> {
        let g = game.as_any().downcast_ref::<Game>()?;
        let side = phasing_side(g).min(self.0.len().saturating_sub(1));
        self.0.get_mut(side)?.decision(g)
    }
}

/// The automatic player of `level` for one side.
pub fn player(level: Level) -> Box<dyn Player> {
    Box::new(Leveled::new(level))
}

/// One automatic player a side, of `levels` (in the scenario's order of sides).
pub fn players(levels: &[Level]) -> Box<dyn Player> {
    Box::new(Sides::new(levels))
}

// ---- whole games: played through the engine interface (`rules::simulate`) ----

pub use crate::rules::simulate::{GameOutcome, SideOutcome, SideSpread, Spread, with_turns};

/// Play one automatic game of `scenario` with `seed` for `turns` turns (default: the scenario's
/// limit), writing one JSON line per report to `log` when given (JSONL).
pub fn simulate(scenario: &Scenario, seed: u64, turns: Option<u32>, log: Option<&mut dyn Write>) -> GameOutcome {
    let mut game = Game::new(with_turns(scenario, turns), seed, Charts::embedded().clone());
    play_out(&mut game, log)
}

/// Play `game` to its end with the bot; its outcome.
pub fn play_out(game: &mut Game, log: Option<&mut dyn Write>) -> GameOutcome {
    crate::rules::simulate::play_out(game, log)
}

/// Play `games` automatic games with seeds `first_seed..`, calling `progress` with the number
/// of games finished and the outcome of the last one after each.
pub fn simulate_many(scenario: &Scenario, first_seed: u64, games: usize, turns: Option<u32>, progress: impl FnMut(usize, &GameOutcome)) -> Spread {
    let open = |scenario, seed| -> Result<Box<dyn crate::rules::engine::Engine>, String> { Ok(Box::new(Game::new(scenario, seed, Charts::embedded().clone()))) };
    crate::rules::simulate::play_many(&open, scenario, first_seed, games, turns, progress).expect("On to Philadelphia always opens")
}

#[cfg(test)]
mod tests {
    use super::*;

    // OTP 9.0, 9.1, 6.5: the automatic player's quick question about charges gives exactly the
    // full preview whenever the charge is allowed, and `None` whenever it is refused, for every
    // unit and enemy at every fifth action of two turns of Cowpens.
    #[test]
    fn quick_charge_previews_agree_with_the_full_ones() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/cowpens.ron");
        let scenario = crate::scenario::load(&path).unwrap();
        let mut game = Game::new(with_turns(&scenario, Some(2)), 1, Charts::embedded().clone());
        let mut bot = Bot::new();
        let (mut allowed, mut refused) = (0, 0);
        for n in 0.. {
            if n % 5 == 0 && matches!(game.phase(), Phase::Activation { .. }) {
                let units: Vec<(usize, String)> = game.units().map(|(_, u)| (u.side, u.name.clone())).collect();
                for (side, name) in &units {
                    let targets: Vec<String> = units.iter().filter(|(s, _)| s != side).map(|(_, n)| n.clone()).collect();
                    let quick = game.charge_previews_if_allowed(name, &targets, ChargeOptions::default());
                    for (target, q) in targets.iter().zip(quick) {
                        let full = game.charge_preview(name, target, ChargeOptions::default()).ok();
                        let json = |p: &Option<crate::rules::otp::engine::charge::ChargePreview>| serde_json::to_string(p).unwrap();
                        assert_eq!(json(&q), json(&full), "{name} on {target}");
                        if full.is_some() { allowed += 1 } else { refused += 1 }
                    }
                }
            }
            if bot.step(&mut game).is_none() {
                break;
            }
        }
        assert!(allowed > 0 && refused > 0, "both kinds compared: {allowed} allowed, {refused} refused");
    }

    // OTP 4.2–4.5, 8.x: the bot plays a whole teaching game with no refusal, and the same seed
    // gives the same log, byte for byte.
    #[test]
    fn bot_plays_legally_and_deterministically() {
        let scenario = crate::scenario::default_scenario();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let oa = simulate(&scenario, 3, Some(4), Some(&mut a));
        let ob = simulate(&scenario, 3, Some(4), Some(&mut b));
        assert_eq!(oa.refusals, 0, "{oa:?}");
        assert_eq!(oa.turns_played, 4);
        assert_eq!(a, b, "same seed, same log bytes");
        assert_eq!(oa, ob);
        let lines = String::from_utf8(a).unwrap();
        assert_eq!(lines.lines().count(), oa.actions);
        assert!(lines.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
    }

    /// The shipped scenarios On to Philadelphia plays.
    fn otp_scenarios() -> Vec<(String, Scenario)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut out: Vec<(String, Scenario)> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|f| f.ok().map(|f| f.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "ron"))
            .filter_map(|p| crate::scenario::load(&p).ok().map(|s| (p.file_stem().unwrap().to_string_lossy().into_owned(), s)))
            .filter(|(_, s)| s.rules == crate::rules::cite::RuleSetId::Otp)
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// `games` seeded games of every shipped OTP scenario, the pairings of levels taken in turn
    /// (each level against each, both sides); the refusals, with where they happened.
    fn refusals_over(games: usize, turns: Option<u32>) -> Vec<String> {
        let pairings: Vec<[Level; 2]> = Level::ALL.iter().flat_map(|&a| Level::ALL.iter().map(move |&b| [a, b])).collect();
        let mut bad = Vec::new();
        for (name, s) in otp_scenarios() {
            let outcomes: Vec<(u64, [Level; 2], usize)> = {
                let mut v = Vec::new();
                crate::rules::simulate::in_order_on_every_core(
                    games,
                    |i| {
                        let pair = pairings[i % pairings.len()];
                        (i as u64 + 1, pair, crate::rules::otp::balance::play_levels(&s, &pair, i as u64 + 1, turns).refusals)
                    },
                    |_, o| {
                        v.push(o);
                        true
                    },
                );
                v
            };
            bad.extend(outcomes.into_iter().filter(|o| o.2 > 0).map(|(seed, pair, n)| format!("{name} seed {seed} {}:{}: {n} refused", pair[0], pair[1])));
        }
        bad
    }

    // OTP 4.2–11.0: no level is ever refused by the engine: every pairing of levels on every
    // shipped scenario, a few seeded games of three turns each (the full count is the ignored
    // test below).
    #[test]
    fn no_level_is_refused_on_any_scenario() {
        let bad = refusals_over(9, Some(3));
        assert!(bad.is_empty(), "{bad:#?}");
    }

    // The same over 1,000 seeded whole games a scenario (issue #19); run with --ignored.
    #[test]
    #[ignore = "1,000 whole games a scenario: long"]
    fn no_level_is_refused_in_a_thousand_games_a_scenario() {
        let games = std::env::var("OTP_REFUSAL_GAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(1000);
        let bad = refusals_over(games, None);
        assert!(bad.is_empty(), "{bad:#?}");
    }

    // OTP 4.5: in the last turns (here a two-turn game, so from the first) a unit of the
    // standard player inside an objective never moves out of it, and units outside make for
    // the objectives, saying so.
    #[test]
    fn in_the_last_turns_units_hold_objectives_and_make_for_them() {
        let scenario = with_turns(&crate::scenario::default_scenario(), Some(2));
        let mut g = Game::new(scenario.clone(), 3, Charts::embedded().clone());
        let mut p = Sides::new(&[Level::Standard, Level::Standard]);
        let (mut moves, mut making_for) = (0, 0);
        while let Some((a, why)) = p.decide_game(&g) {
            if let Action::Move { unit, .. } = &a {
                let e = g.unit_entity(unit).expect("a unit");
                let me = crate::rules::automatic::seen(&g).into_iter().find(|s| s.entity == e).expect("seen");
                assert!(!scenario.objectives.iter().any(|o| me.within(Vec2::from(o.at), o.radius)), "{unit} walks out of an objective: {why:?}");
                moves += 1;
                making_for += usize::from(why.as_deref().is_some_and(|w| w.contains("before the end") && w.contains("(4.5)")));
            }
            g.apply(a).expect("never refused");
        }
        assert!(moves > 0 && making_for > 0, "{moves} moves, {making_for} toward an objective before the end");
    }

    /// A game of the scenario in `src` (named `file` in errors), seed 1, begun, with `brigade`'s
    /// chit drawn.
    fn activated(src: &str, file: &str, brigade: &str) -> Game {
        let scenario = crate::scenario::parse(src, file).unwrap_or_else(|e| panic!("{e}"));
        let mut g = Game::new(scenario, 1, Charts::embedded().clone());
        crate::rules::otp::engine::testing::ok(&mut g, Action::StartGame);
        crate::rules::otp::engine::testing::activate(&mut g, brigade);
        g
    }

    // OTP 9.4, 4.5: an attacker pressed for time (a two-turn game) charges the militia between
    // it and the objective, counting the chance that they give way without a melee — the
    // preview's own reaction odds, named in its reason.
    #[test]
    fn a_pressed_attacker_charges_militia_in_its_way_counting_their_reaction() {
        let src = r#"(
    name: "militia in the way", table: (width: 72.0, depth: 48.0), turn_limit: Some(2),
    objectives: [(name: "Crossroads", at: (36.0, 34.0), radius: 4.0, points: 2)],
    sides: [
        (name: "British", brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((1.0, 1.0))),
            units: [(name: "Grenadiers", type: Line, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (36.0, 22.0), facing: 0.0)])]),
        (name: "Americans", brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Militia, rating: Some(Aggressive), at: Some((71.0, 47.0))),
            units: [(name: "Militia", type: Militia, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (36.0, 26.0), facing: 180.0)])]),
    ],
)"#;
        let mut g = activated(src, "militia.ron", "Redcoats");
        let p = g.charge_preview("Grenadiers", "Militia", ChargeOptions::default()).unwrap();
        let gives_way = 1.0 - p.reaction.as_ref().expect("militia react (9.4)").stands();
        let (a, why) = standard::Standard::new(false).decide(&g).expect("a decision");
        assert_eq!(a, Action::Charge { unit: "Grenadiers".into(), target: "Militia".into() }, "{why}");
        assert!(why.contains(&format!("{:.0}% it gives way (9.4)", 100.0 * gives_way)), "{why}");
        g.apply(a).expect("never refused");
    }

    // OTP 4.5: a defending brigade whose side holds its own objective with another brigade
    // goes over to the attack to retake an objective the enemy alone holds, and says so; with
    // that objective not lost, it stays where it is.
    #[test]
    fn a_defender_counter_attacks_to_retake_a_lost_objective() {
        let src = |farm_holder: &str| {
            format!(
                r#"(
    name: "the lost farm", table: (width: 72.0, depth: 48.0), turn_limit: Some(10),
    objectives: [(name: "Ridge", at: (24.0, 10.0), radius: 4.0, points: 1), (name: "Farm", at: (44.0, 30.0), radius: 3.0, points: 3)],
    sides: [
        (name: "British", posture: Some(Defend), brigades: [
            (name: "Reserve", chit: 1,
             commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((18.0, 6.0))),
             units: [(name: "33rd Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (14.0, 10.0), facing: 0.0)]),
            (name: "Ridge guard", chit: 2,
             commander: (name: "Col. Grey", kind: British, rating: Some(Aggressive), at: Some((24.0, 6.0))),
             units: [(name: "23rd Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (24.0, 10.0), facing: 0.0)])]),
        (name: "Americans", posture: Some(Attack), brigades: [(name: "Patriots", chit: 3,
            commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some((60.0, 44.0))),
            units: [(name: "Continentals", type: StateLine, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: {farm_holder}, facing: 180.0)])]),
    ],
)"#
            )
        };
        let first = |file: &str| {
            let g = activated(file, "farm.ron", "Reserve");
            standard::Standard::new(false).decide(&g).expect("a decision")
        };
        // The Continentals stand in the farm: the reserve marches on it.
        let (a, why) = first(&src("(44.0, 30.0)"));
        let Action::Move { unit, steps } = &a else { panic!("a move, not {a:?}: {why}") };
        assert_eq!(unit, "33rd Foot");
        assert!(why.contains("counter-attacks to retake Farm") && why.contains("attacking brigade"), "{why}");
        // (It goes toward the farm: nearer to it, or wheeled to face it.)
        let (start, farm) = (Vec2::new(14.0, 10.0), Vec2::new(44.0, 30.0));
        let (end, facing) = standard::end_of(start, 0.0, steps);
        let bearing = crate::table::footprint::vector_bearing(farm - start);
        assert!(end.distance(farm) < start.distance(farm) - 2.0 || (facing > 10.0 && facing <= bearing + 5.0), "{steps:?} {why}");
        // The Continentals far from it, the farm is nobody's: the reserve does not counter-attack.
        let (a, why) = first(&src("(60.0, 44.0)"));
        assert!(!why.contains("retake"), "{a:?}: {why}");
    }

    // OTP 4.5: an objective nobody holds and no enemy is near is points for the taking: near the
    // end the attacker's unit nearest to it goes to stand in it, while its brigade goes for the
    // one the enemy holds; a unit standing alone in it stays there.
    #[test]
    fn the_nearest_unit_takes_an_objective_nobody_holds_and_stays_in_it() {
        let src = |left_at: &str| {
            format!(
                r#"(
    name: "the empty ford", table: (width: 72.0, depth: 48.0), turn_limit: Some(4),
    objectives: [(name: "Hill", at: (50.0, 40.0), radius: 4.0, points: 2), (name: "Ford", at: (10.0, 20.0), radius: 3.0, points: 1)],
    sides: [
        (name: "British", posture: Some(Attack), brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((28.0, 6.0))),
            units: [
                (name: "Left Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: {left_at}, facing: 0.0),
                (name: "Right Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (40.0, 10.0), facing: 0.0),
            ])]),
        (name: "Americans", posture: Some(Defend), brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some((60.0, 44.0))),
            units: [(name: "Continentals", type: StateLine, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (50.0, 40.0), facing: 180.0)])]),
    ],
)"#
            )
        };
        // The Redcoats' activation under the standard player: each unit's move and its reason.
        let moves = |file: &str| first_moves(file, "ford.ron", "Redcoats").0;
        let out = moves(&src("(16.0, 10.0)"));
        let why = |unit: &str| out.iter().find(|(u, _)| u == unit).map(|(_, w)| w.clone()).unwrap_or_default();
        assert!(why("Left Foot").contains("goes to take Ford: nobody holds it"), "{out:?}");
        assert!(why("Right Foot").contains("Hill"), "{out:?}");
        // Standing in the ford alone, the Left Foot stays; the Right Foot still goes on.
        let out = moves(&src("(10.0, 20.0)"));
        assert!(!out.iter().any(|(u, _)| u == "Left Foot"), "{out:?}");
        assert!(out.iter().any(|(u, _)| u == "Right Foot"), "{out:?}");
    }

    /// The actions the standard player takes in `brigade`'s first activation of the game in
    /// `src`, each with its reason, and the game after them.
    fn first_actions(src: &str, file: &str, brigade: &str) -> (Vec<(Action, String)>, Game) {
        let mut g = activated(src, file, brigade);
        let mut p = standard::Standard::new(false);
        let mut out = Vec::new();
        while let Some((a, why)) = p.decide(&g) {
            if a == Action::EndActivation {
                break;
            }
            g.apply(a.clone()).expect("never refused");
            out.push((a, why));
        }
        (out, g)
    }

    /// The moves of [`first_actions`]: the unit moved and why.
    fn first_moves(src: &str, file: &str, brigade: &str) -> (Vec<(String, String)>, Game) {
        let (out, g) = first_actions(src, file, brigade);
        (out.into_iter().filter_map(|(a, why)| if let Action::Move { unit, .. } = a { Some((unit, why)) } else { None }).collect(), g)
    }

    // OTP 4.5 (the objectives counted at the end): looking ahead, the strong player plays each
    // of a brigade's plans out to the end of the game in rehearsals with fresh dice, keeps the
    // plan that weighs most unless another stood two points and more better there, and says so with
    // the activation's first action; from the same game it decides the same again (its
    // rehearsal dice come from the game's seed and place). The standard player rehearses nothing.
    #[test]
    fn the_strong_player_takes_the_plan_that_fares_best_in_its_rehearsals() {
        use crate::rules::otp::engine::testing::{activate, ok, teaching};
        let mut g = teaching(4);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Howard's Continentals");
        let mut strong = standard::Standard::new(true);
        let (a, why) = strong.decide(&g).expect("a decision");
        let said = why.split_once("its plans rehearsed to the end, 2 games each with fresh dice (VP ahead at the end): ").map(|(_, s)| s).unwrap_or_else(|| panic!("no rehearsal said: {why}"));
        let (said, verdict) = said.split_once("; ").expect("a verdict");
        let stood: Vec<(String, f64)> = said.split(", ").map(|each| each.rsplit_once(' ').map(|(name, v)| (name.to_string(), v.parse().expect("a standing"))).expect("name and standing")).collect();
        let objectives: Vec<&str> = g.scenario().objectives.iter().map(|o| o.name.as_str()).collect();
        assert!(stood.len() == objectives.len() && stood.iter().all(|(name, _)| objectives.contains(&name.as_str())), "{stood:?}");
        let (best, at) = stood.iter().skip(1).fold((stood[0].0.clone(), stood[0].1), |b, (name, v)| if *v >= stood[0].1 + standard::CLEARLY_BETTER && *v > b.1 { (name.clone(), *v) } else { b });
        let goal = strong.goal().expect("a plan with an objective").to_string();
        assert_eq!(goal, best, "the rehearsals said {stood:?} ({at:+.1}): {verdict}");
        assert!(verdict.starts_with(&goal), "{verdict}");
        let mut again = standard::Standard::new(true);
        assert_eq!(again.decide(&g), Some((a, why.clone())), "the same decision from the same game");
        // The rest of the activation says nothing more of rehearsals.
        let (a, _) = strong.decide(&g).expect("a decision");
        ok(&mut g, a);
        let (_, next) = strong.decide(&g).expect("a decision");
        assert!(!next.contains("rehearsed"), "{next}");
        let mut plain = standard::Standard::new(false);
        let (_, why) = plain.decide(&g).expect("a decision");
        assert!(!why.contains("rehearsed"), "{why}");
    }

    // OTP 11.0, 4.4: at the end of the turn the standard player tries every rebuild the rules
    // allow — a unit that has lost figures and stood in reserve — and says so; one try a turn,
    // then it ends the turn. A unit at full strength is not tried.
    #[test]
    fn at_the_end_of_the_turn_a_weakened_unit_in_reserve_tries_to_rebuild() {
        use crate::rules::otp::engine::testing::{ok, teaching, to_rebuilds};
        let mut g = teaching(8);
        ok(&mut g, Action::StartGame);
        to_rebuilds(&mut g);
        let mut p = standard::Standard::new(false);
        let (a, why) = p.decide(&g).expect("a decision");
        assert_eq!(a, Action::EndTurn, "nobody has lost a figure: {why}");
        let foot = g.unit_entity("23rd Foot").unwrap();
        g.lose_figures(foot, 5);
        g.check_rebuild("23rd Foot").expect("the rules allow it");
        let (a, why) = p.decide(&g).expect("a decision");
        assert_eq!(a, Action::AttemptRebuild { unit: "23rd Foot".into() }, "{why}");
        assert!(why.contains("(11.0)"), "{why}");
        ok(&mut g, a);
        let (a, why) = p.decide(&g).expect("a decision");
        assert_eq!(a, Action::EndTurn, "one try a turn (11.0): {why}");
    }

    // OTP 3.1 2 ("move 1/2 normal distance and fire, or vice versa"), 3.3 3 ("unlimber and
    // fire"): an attacker with time in hand and the objective's defenders in range fires and then
    // goes on at half pace, rather than walk a full move under their muskets without a shot;
    // its guns unlimber and fire in the same activation.
    #[test]
    fn an_attacker_in_range_fires_and_goes_on_at_half_pace_and_its_guns_unlimber_and_fire() {
        let src = r#"(
    name: "the ridge under fire", table: (width: 72.0, depth: 48.0), turn_limit: Some(10),
    objectives: [(name: "Ridge", at: (36.0, 36.0), radius: 4.0, points: 2)],
    sides: [
        (name: "British", posture: Some(Attack), brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((30.0, 4.0))),
            units: [
                (name: "Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (36.0, 28.0), facing: 0.0),
                (name: "Royal Artillery", type: Line, arm: Artillery(gun: Medium), figures: 2, formation: Limbered, at: (28.0, 26.0), facing: 0.0),
            ])]),
        (name: "Americans", posture: Some(Defend), brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some((70.0, 46.0))),
            units: [(name: "Continentals", type: StateLine, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: (36.0, 33.0), facing: 180.0)])]),
    ],
)"#;
        let (out, g) = first_actions(src, "ridge.ron", "Redcoats");
        let foot: Vec<&(Action, String)> = out.iter().filter(|(a, _)| a.unit() == Some("Foot")).collect();
        assert!(matches!(&foot[..], [(Action::Fire { .. }, _), (Action::Move { .. }, why)] if why.contains("at half pace after its fire (3.1–3.3)")), "{out:?}");
        let e = g.unit_entity("Foot").unwrap();
        let half = g.normal_move(e, Formation::Line) / 2.0;
        assert!(g.unit_turn(e).spent <= half + 1e-3, "{} > {half}", g.unit_turn(e).spent);
        let guns: Vec<&(Action, String)> = out.iter().filter(|(a, _)| a.unit() == Some("Royal Artillery")).collect();
        assert!(matches!(&guns[..], [(Action::ChangeFormation { formation: Formation::Unlimbered, .. }, _), (Action::Fire { .. }, why)] if why.contains("after its change of formation")), "{out:?}");
    }

    /// Where a unit's front is now.
    fn front_of(g: &Game, unit: &str) -> Vec2 {
        let e = g.unit_entity(unit).expect("a unit");
        crate::rules::automatic::seen(g).into_iter().find(|s| s.entity == e).expect("seen").front()
    }

    // OTP 6.5: no unit passes through another, its own included. A battalion drawn up right
    // behind its own guns, its objective straight ahead past them, cannot move at it (every
    // move forward, oblique or wheel runs into the guns); it side-steps clear of them (6.3)
    // instead of standing behind them all game.
    #[test]
    fn a_battalion_behind_its_own_guns_steps_round_them() {
        let src = r#"(
    name: "guns in front", table: (width: 72.0, depth: 48.0), turn_limit: Some(10),
    objectives: [(name: "Ridge", at: (36.0, 40.0), radius: 4.0, points: 2)],
    sides: [
        (name: "British", posture: Some(Attack), brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((30.0, 4.0))),
            units: [
                (name: "Royal Artillery", type: Line, arm: Artillery(gun: Medium), figures: 2, formation: Unlimbered, at: (35.0, 12.0), facing: 0.0),
                (name: "Foot", type: Line, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (36.0, 9.0), facing: 0.0),
            ])]),
        (name: "Americans", posture: Some(Defend), brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some((70.0, 46.0))),
            units: [(name: "Continentals", type: StateLine, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (36.0, 44.0), facing: 180.0)])]),
    ],
)"#;
        let g = activated(src, "guns.ron", "Redcoats");
        // Straight at the ridge, the guns are in the way (the engine's own refusal, 6.5).
        let err = g.check_move("Foot", &[MoveStep::Forward(6.0)]).expect_err("the guns are in front");
        assert!(err.to_string().contains("6.5"), "{err}");
        let before = front_of(&g, "Foot");
        let (out, g) = first_moves(src, "guns.ron", "Redcoats");
        assert!(out.iter().any(|(u, why)| u == "Foot" && why.contains("advances on Ridge")), "{out:?}");
        // Every move forward runs into the guns: it side-steps clear of them (6.3), and the way
        // on to the ridge is open for its next move.
        let after = front_of(&g, "Foot");
        assert!((after.x - before.x).abs() > 1.0, "{before} -> {after}");
        let moved = src.replace("at: (36.0, 9.0)", &format!("at: ({}, {})", after.x, after.y));
        activated(&moved, "guns.ron", "Redcoats").check_move("Foot", &[MoveStep::Forward(6.0)]).expect("the way ahead is clear now");
    }

    // The way round (automatic::route): an objective nobody holds lies beyond an enemy line that
    // faces the attacker across the straight way; the attacker goes round the line's end (out of
    // its 45° arc, 8.x) rather than march along its muskets, and says so. With the line moved off
    // to the side, the same unit goes straight.
    #[test]
    fn an_attacker_goes_round_an_enemy_line_to_an_objective_nobody_holds() {
        let src = |line_x: f32| {
            format!(
                r#"(
    name: "a line across the way", table: (width: 72.0, depth: 48.0), turn_limit: Some(10),
    objectives: [(name: "Mill", at: (36.0, 44.0), radius: 3.0, points: 2)],
    sides: [
        (name: "British", posture: Some(Attack), brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((30.0, 2.0))),
            units: [(name: "Grenadiers", type: Line, arm: Infantry, weapon: Some(Musket), figures: 12, formation: Line, at: (36.0, 6.0), facing: 0.0)])]),
        (name: "Americans", posture: Some(Defend), brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some((70.0, 46.0))),
            units: [(name: "Continentals", type: StateLine, arm: Infantry, weapon: Some(Musket), figures: 16, formation: Line, at: ({line_x}, 24.0), facing: 180.0)])]),
    ],
)"#
            )
        };
        let (out, _) = first_moves(&src(36.0), "line.ron", "Redcoats");
        let why = out.iter().find(|(u, _)| u == "Grenadiers").map(|(_, w)| w.clone()).unwrap_or_default();
        assert!(why.contains("advances on Mill") && why.contains("going round the enemy's fire"), "{out:?}");
        // The way it means to go, for the window to draw: from its front round the line's end
        // (clear of the line's 45° arc, 8.x) to the mill.
        let g = activated(&src(36.0), "line.ron", "Redcoats");
        let mut p = standard::Standard::new(false);
        let (a, _) = p.decide(&g).expect("a decision");
        assert!(matches!(&a, Action::Move { unit, .. } if unit == "Grenadiers"), "{a:?}");
        let way = p.take_way().expect("a way round");
        assert!(way.label.starts_with("Grenadiers's way round the enemy's fire") && way.side == 0, "{}", way.label);
        let (first, last) = (way.points[0], *way.points.last().unwrap());
        assert!(first.distance(front_of(&g, "Grenadiers")) < 1.0 && last.distance(Vec2::new(36.0, 44.0)) < 3.0, "{:?}", way.points);
        let line = crate::rules::automatic::seen(&g).into_iter().find(|x| x.name == "Continentals").expect("the line");
        let end = line.stands.iter().map(|f| (f.centre.x - 36.0).abs() + f.frontage / 2.0).fold(0.0, f32::max);
        assert!(way.points.iter().any(|q| (q.x - 36.0).abs() > end && (q.y - 24.0).abs() < 3.0), "past the line's end ({end:.1}\" from its middle), not through it: {:?}", way.points);
        assert!(p.take_way().is_none(), "taken once");
        let (out, _) = first_moves(&src(66.0), "line.ron", "Redcoats");
        let why = out.iter().find(|(u, _)| u == "Grenadiers").map(|(_, w)| w.clone()).unwrap_or_default();
        assert!(why.contains("advances on Mill") && !why.contains("going round"), "{out:?}");
        let mut p = standard::Standard::new(false);
        p.decide(&activated(&src(66.0), "line.ron", "Redcoats")).expect("a decision");
        assert!(p.take_way().is_none(), "the straight way is not drawn");
    }

    // OTP 4.5: in the last turns only who stands in the objectives counts. Dragoons that can
    // still reach an objective nobody holds ride for it rather than charge militia standing in
    // no objective on the way; ten turns from the end, the same dragoons charge them.
    #[test]
    fn in_the_last_turns_a_unit_rides_for_an_empty_objective_rather_than_charge() {
        let src = |turns: u32| {
            format!(
                r#"(
    name: "the last ride", table: (width: 72.0, depth: 48.0), turn_limit: Some({turns}),
    objectives: [(name: "Ford", at: (36.0, 32.0), radius: 3.0, points: 1)],
    sides: [
        (name: "British", posture: Some(Attack), brigades: [(name: "Horse", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((36.0, 4.0))),
            units: [(name: "Dragoons", type: Line, arm: Cavalry, weapon: Some(Carbine), figures: 8, formation: Line, at: (36.0, 10.0), facing: 0.0)])]),
        (name: "Americans", posture: Some(Defend), brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Militia, rating: Some(Aggressive), at: Some((70.0, 46.0))),
            units: [(name: "Militia", type: Militia, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (28.0, 16.0), facing: 180.0)])]),
    ],
)"#
            )
        };
        let first = |turns: u32| {
            let g = activated(&src(turns), "ride.ron", "Horse");
            standard::Standard::new(false).decide(&g).expect("a decision")
        };
        let (a, why) = first(2);
        assert!(matches!(&a, Action::Move { unit, .. } if unit == "Dragoons") && why.contains("makes for Ford before the end: nobody holds it"), "{a:?}: {why}");
        let (a, why) = first(10);
        assert_eq!(a, Action::Charge { unit: "Dragoons".into(), target: "Militia".into() }, "{why}");
    }

    // OTP 10.1: a unit carries one Morale Marker, so a second is worth nothing. Of two like
    // militia, the standard player's guns fire at the one without a marker, though the marked one is
    // the better shot by figures and would be chosen if its marker counted.
    #[test]
    fn a_marker_counts_for_nothing_on_a_target_that_has_one() {
        let src = r#"(
    name: "two militia", table: (width: 72.0, depth: 48.0), turn_limit: Some(10),
    sides: [
        (name: "British", posture: Some(Defend), brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((36.0, 10.0))),
            units: [(name: "Royal Artillery", type: Line, arm: Artillery(gun: Light), figures: 2, formation: Unlimbered, at: (36.0, 20.0), facing: 0.0)])]),
        (name: "Americans", posture: Some(Defend), brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Militia, rating: Some(Aggressive), at: Some((36.0, 40.0))),
            units: [
                (name: "Alpha Militia", type: Militia, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (33.5, 23.0), facing: 180.0, morale_marker: true),
                (name: "Zulu Militia", type: Militia, arm: Infantry, weapon: Some(Musket), figures: 8, formation: Line, at: (38.5, 23.0), facing: 180.0),
            ])]),
    ],
)"#;
        let g = activated(src, "two.ron", "Redcoats");
        // Each shot's worth as the player weighs it with a marker counted: expected figures plus
        // half the chance of a marker. The marked militia is the better shot by figures (its
        // marker makes it easier to hit), and would be chosen if its marker counted.
        let worth = |target: &str| {
            let p = g.fire_preview("Royal Artillery", target, None).expect("in reach");
            let kills: f64 = p.outcomes.iter().map(|o| o.probability * o.kills as f64).sum();
            (kills, kills + 0.5 * p.outcomes.iter().filter(|o| o.morale_marker).map(|o| o.probability).sum::<f64>())
        };
        let (alpha, zulu) = (worth("Alpha Militia"), worth("Zulu Militia"));
        assert!(alpha.0 > zulu.0 && alpha.1 > zulu.1, "{alpha:?} {zulu:?}");
        let (a, why) = standard::Standard::new(false).decide(&g).expect("a decision");
        assert_eq!(a, Action::fire("Royal Artillery", "Zulu Militia"), "{why}");
    }

    // OTP 8.x, 9.x: the standard player gives a reason with every action, the same seed plays
    // the same game, and its reasons name the rules' numbers (odds) or the scenario (objectives).
    #[test]
    fn standard_gives_reasons_and_is_deterministic() {
        let scenario = crate::scenario::default_scenario();
        let play = || {
            let mut g = Game::new(with_turns(&scenario, Some(4)), 5, Charts::embedded().clone());
            let mut p = Sides::new(&[Level::Standard, Level::Strong]);
            let mut reasons = Vec::new();
            while let Some((a, why)) = p.decide_game(&g) {
                reasons.push(why.expect("a reason with every action"));
                g.apply(a).expect("never refused");
            }
            (g.snapshot(), reasons)
        };
        let (a, reasons) = play();
        assert_eq!(a, play().0, "same seed, same game");
        assert!(reasons.iter().any(|r| r.contains(" fires at ") && r.contains('%')), "{reasons:#?}");
        assert!(reasons.iter().any(|r| r.contains("VP")), "{reasons:#?}");
    }
}
