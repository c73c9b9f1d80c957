//! The state of a tiny game and its six rules. Each action has one check (`check_*`), which
//! says what the action would do or the rule that refuses it; `apply` runs that same check
//! before it changes anything, so the engine, the window's greyed buttons and the automatic
//! player cannot disagree.

use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use serde::Serialize;

use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::{Dice, DiceKind};
use crate::rules::report::{Refusal, Report, SideSummary, Summary};
use crate::scenario::Scenario;
use crate::scenario::model::{Arm, Formation};
use crate::scenario::spawn::{self, Stand, Unit};
use crate::table::arc::Arc;
use crate::table::footprint::Footprint;
use crate::table::geom::EPS;
use crate::table::movement::{self, Allowance, MoveStep};
use crate::table::situation::Situation;
use crate::table::words::{formation as formation_name, inches};
use crate::table::range;

pub const TINY: RuleSetId = RuleSetId::Tiny;

/// TINY 2: the most a unit moves in its player-turn, on foot and mounted.
pub const FOOT_MOVE: f32 = 6.0;
pub const HORSE_MOVE: f32 = 12.0;
/// TINY 4: the reach of fire, edge to edge; the D6 score that hits; what a hit takes.
pub const FIRE_RANGE: f32 = 12.0;
pub const HITS_ON: i32 = 4;
pub const FIGURES_A_HIT: u32 = 2;
/// TINY 6: the answers to the question a heavy loss asks, in order, and how far falling back goes.
pub const ANSWERS: [&str; 2] = ["stand", "fall back 3\""];
pub const STAND: u32 = 0;
pub const FALL_BACK: u32 = 1;
pub const FALL_BACK_INCHES: f32 = 3.0;
/// The most steps one move may have: more is no order a player gives.
const MOST_STEPS: usize = 16;

/// Refused under TINY `rule`.
pub(super) fn refuse<T>(rule: &str, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::by(TINY.cite(rule), reason))
}

/// What the tiny rules keep for a unit beyond the common sheet: this player-turn's move (TINY 2,
/// TINY 3) and fire (TINY 4), and whether a heavy loss shook it (TINY 6).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Marks {
    pub moved: bool,
    /// The move was spent changing formation (TINY 3).
    pub formed: bool,
    pub fired: bool,
    pub shaken: bool,
}

/// The question TINY 6 asks the owner of `unit`, hit by `firer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Question {
    pub id: u32,
    pub unit: Entity,
    pub firer: Entity,
}

/// Where a unit's stands end after a move, a change of formation or a fall back.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub unit: Entity,
    pub stands: Vec<Footprint>,
    pub formation: Formation,
    pub inches: f32,
}

/// A shot TINY 4 allows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shot {
    pub firer: Entity,
    pub target: Entity,
    /// Edge to edge, inches.
    pub distance: f32,
}

/// An answer TINY 6 allows.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Stand(Entity),
    FallBack(Placed),
}

/// A game under the tiny test rules.
pub struct Game {
    pub(super) scenario: Scenario,
    pub(super) seed: u64,
    pub(super) dice: Dice,
    pub(super) world: World,
    /// Every unit as spawned, in scenario order; a removed unit (TINY 5) is no longer in the world.
    pub(super) units: Vec<Entity>,
    /// 1 from the start: the tiny rules have no set-up step.
    pub(super) turn: u32,
    /// The side whose player-turn it is (TINY 1).
    pub(super) side: usize,
    pub(super) question: Option<Question>,
    /// Questions asked so far: the next one's id.
    pub(super) asked: u32,
    pub(super) over: bool,
    pub(super) actions: Vec<Action>,
    pub(super) reports: Vec<Report>,
}

impl Game {
    pub fn new(scenario: Scenario, seed: u64) -> Game {
        let mut world = World::new();
        spawn::spawn_scenario(&mut world, &scenario, &scenario.name);
        let order: Vec<&str> = scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).map(|u| u.name.as_str()).collect();
        let mut units: Vec<(usize, Entity)> = match world.try_query::<(Entity, &Unit)>() {
            Some(mut q) => q.iter(&world).map(|(e, u)| (order.iter().position(|n| *n == u.name).unwrap_or(usize::MAX), e)).collect(),
            None => Vec::new(),
        };
        units.sort();
        let units: Vec<Entity> = units.into_iter().map(|(_, e)| e).collect();
        for &e in &units {
            world.entity_mut(e).insert(Marks::default());
        }
        Game { scenario, seed, dice: Dice::new(seed), world, units, turn: 1, side: 0, question: None, asked: 0, over: false, actions: Vec::new(), reports: Vec::new() }
    }

    // ---- reading the table ----

    pub fn unit(&self, e: Entity) -> Option<&Unit> {
        self.world.get::<Unit>(e)
    }

    pub fn marks(&self, e: Entity) -> Marks {
        self.world.get::<Marks>(e).copied().unwrap_or_default()
    }

    /// The units still on the table, in scenario order.
    pub fn live_units(&self) -> impl Iterator<Item = (Entity, &Unit)> {
        self.units.iter().filter_map(|&e| Some((e, self.unit(e)?)))
    }

    pub fn side_name(&self, side: usize) -> &str {
        self.scenario.sides.get(side).map_or("?", |s| s.name.as_str())
    }

    fn name(&self, e: Entity) -> String {
        self.unit(e).map_or_else(|| "?".into(), |u| u.name.clone())
    }

    /// The unit of that name on the table; a removed unit is refused by TINY 5.
    pub fn find(&self, name: &str) -> Result<Entity, Refusal> {
        if let Some((e, _)) = self.live_units().find(|(_, u)| u.name == name) {
            return Ok(e);
        }
        if self.scenario.sides.iter().flat_map(|s| &s.brigades).flat_map(|b| &b.units).any(|u| u.name == name) {
            return refuse("5", format!("{name} has no figures left and was removed"));
        }
        Err(Refusal::unruled(TINY, format!("no unit named \"{name}\"")))
    }

    pub fn situation(&self) -> Situation {
        Situation::from_world(&self.world)
    }

    /// TINY 2: 6", or 12" mounted.
    pub fn allowance(unit: &Unit) -> f32 {
        if matches!(unit.arm, Arm::Cavalry) { HORSE_MOVE } else { FOOT_MOVE }
    }

    // ---- the checks, one an action ----

    /// Orders wait while a question is open (TINY 6) and end with the game (TINY 1).
    fn open_to_orders(&self) -> Result<(), Refusal> {
        if self.over {
            return refuse("1", "the game is over: the turn limit has passed");
        }
        if let Some(q) = self.question {
            return refuse("6", format!("{} must first answer: {} stand or fall back 3\"?", self.side_name(self.unit(q.unit).map_or(0, |u| u.side)), self.name(q.unit)));
        }
        Ok(())
    }

    /// A unit of the side whose player-turn it is (TINY 1), for an order under `rule`.
    fn own_unit(&self, name: &str, rule: &str) -> Result<Entity, Refusal> {
        self.open_to_orders()?;
        let e = self.find(name)?;
        let side = self.unit(e).map_or(0, |u| u.side);
        if side != self.side {
            return refuse(rule, format!("{name} is {}'s: it is {}'s player-turn (TINY 1)", self.side_name(side), self.side_name(self.side)));
        }
        Ok(e)
    }

    /// TINY 2: may this unit make its move now?
    pub fn may_move(&self, name: &str) -> Result<Entity, Refusal> {
        let e = self.own_unit(name, "2")?;
        let marks = self.marks(e);
        if marks.formed {
            return refuse("2", format!("{name} changed formation this player-turn: that was its whole move (TINY 3)"));
        }
        if marks.moved {
            return refuse("2", format!("{name} has made its move this player-turn"));
        }
        Ok(e)
    }

    /// TINY 2: one move of at most 6" (12" mounted) by today's move steps, measured by the
    /// table's geometry; no stand may cross or end on another unit's, nor leave the table.
    pub fn check_move(&self, name: &str, steps: &[MoveStep]) -> Result<Placed, Refusal> {
        let e = self.may_move(name)?;
        let unit = self.unit(e).expect("found above");
        let most = Game::allowance(unit);
        if steps.is_empty() {
            return refuse("2", "a move needs at least one step");
        }
        if steps.len() > MOST_STEPS {
            return Err(Refusal::unruled(TINY, format!("{} steps is no move a player orders (at most {MOST_STEPS})", steps.len())));
        }
        for step in steps {
            let numbers: Vec<f32> = match step {
                MoveStep::Forward(d) | MoveStep::SideStep(d) => vec![*d],
                MoveStep::Oblique { angle, distance } => vec![*angle, *distance],
                MoveStep::Wheel { angle, .. } => vec![*angle],
                MoveStep::Path(points) => points.iter().flat_map(|p| [p.x, p.y]).collect(),
                MoveStep::AboutFace => Vec::new(),
                MoveStep::ChangeFormation(_) => return refuse("3", "a change of formation is its own order, and costs the whole move"),
                _ => return refuse("2", format!("{step}: the tiny rules move a unit whole (forward, oblique, side step, wheel, about face, or a column along a path)")),
            };
            let turns = match step {
                MoveStep::Oblique { angle, .. } | MoveStep::Wheel { angle, .. } => angle.abs(),
                _ => 0.0,
            };
            if numbers.iter().any(|x| !x.is_finite() || x.abs() > 10_000.0) || turns > 360.0 {
                return Err(Refusal::unruled(TINY, format!("{step}: not a number a table can measure")));
            }
            // A step longer than the whole allowance is refused before it is swept.
            let length = match step {
                MoveStep::Forward(d) | MoveStep::Oblique { distance: d, .. } => d.abs(),
                MoveStep::SideStep(d) => 2.0 * d.abs(),
                MoveStep::Path(points) => points.windows(2).map(|w| w[0].distance(w[1])).sum(),
                _ => 0.0,
            };
            if length > most + EPS {
                return refuse("2", format!("{step} is more than {name}'s {} move", inches(most)));
            }
        }
        let s = self.situation();
        let index = s.find(name).map_err(|why| Refusal::unruled(TINY, why))?;
        let plan = movement::plan_move(&s, index, steps, Allowance::new(most), &super::moves::TINY);
        if let Some(p) = &plan.problem {
            return refuse("2", format!("{name}, step {} ({}): {}", p.step + 1, steps[p.step], p.reason));
        }
        if plan.off_table {
            return refuse("2", format!("{name} would leave the table"));
        }
        Ok(Placed { unit: e, stands: plan.stands, formation: plan.formation, inches: plan.spent })
    }

    /// TINY 3: line to march column or back, before moving, for the whole move.
    pub fn check_formation(&self, name: &str, to: Formation) -> Result<Placed, Refusal> {
        let e = self.own_unit(name, "3")?;
        let unit = self.unit(e).expect("found above");
        let marks = self.marks(e);
        if marks.moved || marks.formed {
            return refuse("3", format!("{name} has moved this player-turn: a change of formation costs the whole move"));
        }
        let from = unit.formation;
        if !matches!(from, Formation::Line | Formation::Column) || !matches!(to, Formation::Line | Formation::Column) || matches!(unit.arm, Arm::Artillery { .. }) {
            return refuse("3", format!("the tiny rules change formation only between line and march column ({name} is in {}; {} asked)", formation_name(from), formation_name(to)));
        }
        if from == to {
            return refuse("3", format!("{name} is already in {}", formation_name(to)));
        }
        let s = self.situation();
        let index = s.find(name).map_err(|why| Refusal::unruled(TINY, why))?;
        // The geometry charges its own costs: the tiny rules count the whole move, so give it room.
        let plan = movement::plan_move(&s, index, &[MoveStep::ChangeFormation(to)], Allowance::new(FOOT_MOVE * 1_000.0), &super::moves::TINY);
        if let Some(p) = &plan.problem {
            return refuse("3", format!("{name} cannot form {}: {}", formation_name(to), p.reason));
        }
        if plan.stands.iter().any(|f| !s.on_table(f.centre)) {
            return refuse("3", format!("{name} in {} would not fit on the table", formation_name(to)));
        }
        Ok(Placed { unit: e, stands: plan.stands, formation: to, inches: Game::allowance(unit) })
    }

    /// TINY 4: a unit that has not fired this player-turn fires at an enemy unit within 12"
    /// edge to edge and in its front 45° arc.
    pub fn check_fire(&self, name: &str, target: &str) -> Result<Shot, Refusal> {
        let firer = self.own_unit(name, "4")?;
        let target_e = self.find(target)?;
        if self.unit(target_e).is_some_and(|t| t.side == self.side) {
            return refuse("4", format!("{target} is a friend: fire is at an enemy unit"));
        }
        if self.marks(firer).fired {
            return refuse("4", format!("{name} has fired this player-turn"));
        }
        let s = self.situation();
        let (a, b) = (s.find(name), s.find(target));
        let (Ok(a), Ok(b)) = (a, b) else { return Err(Refusal::unruled(TINY, format!("{name} or {target} has no stands on the table"))) };
        let distance = fire_reach(&s, a, b)?;
        Ok(Shot { firer, target: target_e, distance })
    }

    /// TINY 6: the answer to the open question.
    pub fn check_answer(&self, prompt: u32, option: u32) -> Result<Answer, Refusal> {
        if self.over {
            return refuse("1", "the game is over: the turn limit has passed");
        }
        let Some(q) = self.question else { return refuse("6", "no question is open") };
        if prompt != q.id {
            return refuse("6", format!("question {prompt} is not the open one (question {})", q.id));
        }
        let name = self.name(q.unit);
        match option {
            STAND => Ok(Answer::Stand(q.unit)),
            FALL_BACK => {
                let s = self.situation();
                let (Ok(unit), Ok(firer)) = (s.find(&name), s.find(&self.name(q.firer))) else { return refuse("6", format!("{name} has no firer to fall back from")) };
                let path = movement::retreat(&s, unit, firer, FALL_BACK_INCHES);
                if let Some(w) = path.in_the_way.first() {
                    return refuse("6", format!("{name} has no room to fall back 3\": {} is in the way after {}", w.unit, inches(w.after)));
                }
                if path.off_table {
                    return refuse("6", format!("{name} would fall back off the table"));
                }
                Ok(Answer::FallBack(Placed { unit: q.unit, stands: path.stands, formation: s.unit(unit).formation, inches: FALL_BACK_INCHES }))
            }
            _ => refuse("6", format!("question {prompt} has {} answers: {}", ANSWERS.len(), ANSWERS.iter().enumerate().map(|(i, a)| format!("{i} {a}")).collect::<Vec<_>>().join(", "))),
        }
    }

    /// TINY 1: `Next` ends the player-turn.
    pub fn check_next(&self) -> Result<(), Refusal> {
        self.open_to_orders()
    }

    /// The verdict `apply` would give, without dice and without change.
    pub fn check(&self, action: &Action) -> Result<(), Refusal> {
        match action {
            Action::Move { unit, steps } => self.check_move(unit, steps).map(drop),
            Action::ChangeFormation { unit, formation } => self.check_formation(unit, *formation).map(drop),
            Action::Fire { unit, target } => self.check_fire(unit, target).map(drop),
            Action::Answer { prompt, option } => self.check_answer(*prompt, *option).map(drop),
            Action::Next => self.check_next(),
            other => refuse("1", format!("{other}: a tiny player-turn is moves (TINY 2), changes of formation (TINY 3) and fire (TINY 4); nothing else")),
        }
    }

    // ---- applying ----

    /// Apply an action: its report, or the refusal of its check (and then nothing changed).
    pub fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        let report = match &action {
            Action::Move { unit, steps } => {
                let placed = self.check_move(unit, steps)?;
                let mut report = self.report(&action, format!("{unit} moves (TINY 2)"));
                report.outcome = format!("{unit} moves {} of its {}", inches(placed.inches), inches(Game::allowance(self.unit(placed.unit).expect("checked"))));
                self.place(&placed);
                self.mark(placed.unit, |m| m.moved = true);
                report.change("2", format!("{unit} has made its move this player-turn"));
                report
            }
            Action::ChangeFormation { unit, formation } => {
                let placed = self.check_formation(unit, *formation)?;
                let mut report = self.report(&action, format!("{unit} forms {} (TINY 3)", formation_name(*formation)));
                report.outcome = format!("{unit} is in {}", formation_name(*formation));
                self.place(&placed);
                self.mark(placed.unit, |m| {
                    m.moved = true;
                    m.formed = true;
                });
                report.change("3", format!("{unit} has spent its whole move forming"));
                report
            }
            Action::Fire { unit, target } => {
                let shot = self.check_fire(unit, target)?;
                self.fire(&action, shot)
            }
            Action::Answer { prompt, option } => {
                let answer = self.check_answer(*prompt, *option)?;
                let (e, said) = match &answer {
                    Answer::Stand(e) => (*e, "stands"),
                    Answer::FallBack(placed) => (placed.unit, "falls back 3\""),
                };
                let name = self.name(e);
                let mut report = self.report(&action, format!("{name} {said} (TINY 6)"));
                if let Answer::FallBack(placed) = &answer {
                    self.place(placed);
                }
                self.mark(e, |m| m.shaken = true);
                self.question = None;
                report.outcome = format!("{name} {said}");
                report.change("6", format!("{name} is shaken"));
                report
            }
            Action::Next => {
                self.check_next()?;
                self.next_player_turn(&action)
            }
            other => return self.check(other).and_then(|()| refuse("1", format!("{other}: not an order of the tiny rules"))),
        };
        self.actions.push(action);
        self.reports.push(report.clone());
        Ok(report)
    }

    fn report(&self, action: &Action, title: String) -> Report {
        Report::new(TINY, self.turn, action.clone(), title)
    }

    fn mark(&mut self, e: Entity, f: impl FnOnce(&mut Marks)) {
        if let Some(mut m) = self.world.get_mut::<Marks>(e) {
            f(&mut m);
        }
    }

    /// The unit's stands where a move, a change of formation or a fall back put them.
    fn place(&mut self, placed: &Placed) {
        let Some(mut unit) = self.world.get_mut::<Unit>(placed.unit) else { return };
        unit.formation = placed.formation;
        let stands = unit.stands.clone();
        for (s, f) in stands.into_iter().zip(&placed.stands) {
            if let Some(mut fp) = self.world.get_mut::<Footprint>(s) {
                *fp = *f;
            }
        }
    }

    /// TINY 4–6: one D6, 4+ hits: the target loses 2 figures; with none left it is removed; with
    /// half its starting figures or fewer its owner is asked to stand or fall back.
    fn fire(&mut self, action: &Action, shot: Shot) -> Report {
        let (name, target) = (self.name(shot.firer), self.name(shot.target));
        let mut report = self.report(action, format!("{name} fires at {target} (TINY 4)"));
        report.note("4", format!("{target} is {} away edge to edge, in {name}'s front arc", inches(shot.distance)));
        let roll = self.dice.roll(DiceKind::D6);
        report.die("4", format!("{name}'s fire at {target} ({HITS_ON}+ hits)"), &roll);
        self.mark(shot.firer, |m| m.fired = true);
        if roll.total < HITS_ON {
            report.outcome = format!("a miss: {target} loses nothing");
            return report;
        }
        let (lost, left) = self.lose_figures(shot.target, FIGURES_A_HIT);
        let initial = self.unit(shot.target).map_or(0, |u| u.initial_figures);
        report.outcome = format!("a hit: {target} loses {lost} figures");
        report.change("4", format!("{target} loses {lost} figures: {left} left"));
        if left == 0 {
            self.remove(shot.target);
            report.change("5", format!("{target} has no figures left and is removed"));
        } else if 2 * left <= initial {
            self.asked += 1;
            self.question = Some(Question { id: self.asked, unit: shot.target, firer: shot.firer });
            let owner = self.side_name(self.unit(shot.target).map_or(0, |u| u.side)).to_string();
            report.note("6", format!("{target} is down to {left} of {initial} figures: {owner} must answer, stand or fall back 3\"?"));
        }
        report
    }

    /// Takes figures from the rear stands first, removing a stand left with none. The figures
    /// lost and left.
    fn lose_figures(&mut self, e: Entity, n: u32) -> (u32, u32) {
        let Some(unit) = self.unit(e) else { return (0, 0) };
        let mut stands = unit.stands.clone();
        let mut owed = n;
        while owed > 0 {
            let Some(&s) = stands.last() else { break };
            let Some(mut st) = self.world.get_mut::<Stand>(s) else { break };
            let take = owed.min(st.figures);
            st.figures -= take;
            owed -= take;
            if st.figures == 0 {
                self.world.despawn(s);
                stands.pop();
            }
        }
        let mut unit = self.world.get_mut::<Unit>(e).expect("read above");
        unit.figures = unit.figures.saturating_sub(n - owed);
        unit.stands = stands;
        (n - owed, unit.figures)
    }

    /// TINY 5: a unit with no figures leaves the table.
    fn remove(&mut self, e: Entity) {
        let stands = self.unit(e).map(|u| u.stands.clone()).unwrap_or_default();
        for s in stands {
            self.world.despawn(s);
        }
        self.world.despawn(e);
    }

    /// TINY 1: the next side's player-turn; after the last side's, the next turn, or the end.
    fn next_player_turn(&mut self, action: &Action) -> Report {
        let mut report = self.report(action, format!("{} ends its player-turn (TINY 1)", self.side_name(self.side)));
        for &e in &self.units.clone() {
            self.mark(e, |m| {
                m.moved = false;
                m.formed = false;
                m.fired = false;
            });
        }
        self.side += 1;
        if self.side >= self.scenario.sides.len() {
            self.side = 0;
            if self.scenario.turn_limit.is_some_and(|limit| self.turn >= limit) {
                self.over = true;
                let summary = self.summary().expect("the game is over");
                report.outcome = format!("the game is over after turn {}: {}", self.turn, self.verdict(&summary));
                report.change("1", report.outcome.clone());
                report.summary = Some(summary);
                return report;
            }
            self.turn += 1;
            report.change("1", format!("turn {} begins", self.turn));
        }
        report.outcome = format!("{}'s player-turn", self.side_name(self.side));
        report.change("1", report.outcome.clone());
        report
    }

    // ---- the end ----

    /// TINY 1: at the turn limit, the figures each side lost and the units it lost (TINY 5).
    pub fn summary(&self) -> Option<Summary> {
        if !self.over {
            return None;
        }
        let sides = self
            .scenario
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| {
                let models = side.brigades.iter().flat_map(|b| &b.units);
                let start: u32 = models.clone().map(|u| u.figures).sum();
                let now: u32 = self.live_units().filter(|(_, u)| u.side == i).map(|(_, u)| u.figures).sum();
                let broken = models.filter(|m| !self.live_units().any(|(_, u)| u.name == m.name)).map(|m| m.name.clone()).collect();
                SideSummary { side: side.name.clone(), figures_lost: start - now, units_broken: broken, units_off_table: Vec::new(), objectives_held: Vec::new(), points: 0 }
            })
            .collect();
        let mut summary = Summary { turns_played: self.turn, sides, objectives_unheld: Vec::new(), winner: None, result: None };
        // TINY 1: the side that lost fewer figures wins.
        let fewest = summary.sides.iter().map(|s| s.figures_lost).min().unwrap_or(0);
        let best: Vec<usize> = (0..summary.sides.len()).filter(|&i| summary.sides[i].figures_lost == fewest).collect();
        summary.winner = (best.len() == 1).then(|| best[0]);
        summary.result = Some(format!("{} (TINY 1)", self.verdict(&summary)));
        Some(summary)
    }

    /// TINY 1: the side that lost fewer figures wins.
    pub fn verdict(&self, summary: &Summary) -> String {
        let fewest = summary.sides.iter().map(|s| s.figures_lost).min().unwrap_or(0);
        let best: Vec<&SideSummary> = summary.sides.iter().filter(|s| s.figures_lost == fewest).collect();
        match best[..] {
            [only] => format!("{} wins, having lost fewer figures ({})", only.side, only.figures_lost),
            _ => format!("a draw: {} each lost {fewest} figures", best.iter().map(|s| s.side.as_str()).collect::<Vec<_>>().join(" and ")),
        }
    }
}

/// TINY 4: the distance edge to edge from `firer` to `target` (indices of the situation) when
/// the target is within 12" and in the firer's front 45° arc; otherwise the refusal.
pub fn fire_reach(s: &Situation, firer: usize, target: usize) -> Result<f32, Refusal> {
    let (a, b) = (s.unit(firer), s.unit(target));
    let distance = range::unit_distance(s, firer, target);
    if distance > FIRE_RANGE + EPS {
        return refuse("4", format!("{} is {} away edge to edge: fire reaches {}", b.name, inches(distance), inches(FIRE_RANGE)));
    }
    let arc = Arc::of_unit(a).ok_or_else(|| Refusal::unruled(TINY, format!("{} has no stands", a.name)))?;
    if !b.stands.iter().any(|st| arc.reaches(&st.footprint.corners())) {
        return refuse("4", format!("{} is outside {}'s front arc (45° beyond each end of its front)", b.name, a.name));
    }
    Ok(distance)
}
