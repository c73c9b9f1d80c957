//! Applying an action: the check first (a refusal changes nothing, not even the dice), then
//! the dice, every one reported with its faces and its rule, and the changes to the table.

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::charts::MeleeModifier;
use super::game::{Game, Placed, QKS, QkState, Question, ROUT, STAY, Step, centre};
use super::melee::{Fight, fight};
use crate::rules::action::Action;
use crate::rules::dice::Roll;
use crate::rules::report::{Refusal, Report, SideSummary, Summary};
use crate::scenario::model::{Arm, Formation};
use crate::scenario::spawn::{Commander, Unit};
use crate::table::aspect::AttackZone;
use crate::table::footprint::Footprint;
use crate::table::geom::turn_about;
use crate::table::movement::{self, MoveStep};
use crate::table::range;
use crate::table::situation::Situation;
use crate::table::words::{formation as formation_name, inches};

/// Clearance a blocked retreat or rout keeps from what stopped it (QK22).
const CLEARANCE: f32 = 0.25;

impl Game {
    /// `n` six-sided dice from the game's stream, one roll of nD6.
    pub(super) fn d6s(&mut self, n: u32) -> Roll {
        self.dice.d6s(n)
    }

    /// Apply an action: its report, or the refusal of its check (and then nothing changed).
    pub fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        let report = match &action {
            Action::Move { unit, steps } => {
                let placed = self.check_move(unit, steps)?;
                self.moved(&action, unit, placed)
            }
            Action::ChangeFormation { unit, formation } => {
                let placed = self.check_formation(unit, *formation)?;
                self.moved(&action, unit, placed)
            }
            Action::Fire { unit, target } => {
                let shot = self.check_fire(unit, target)?;
                self.fire(&action, shot)
            }
            Action::Charge { unit, target } => {
                let plan = self.check_charge(unit, target)?;
                self.charge(&action, plan)
            }
            Action::MoveLeader { leader, to } => {
                let i = self.check_leader_move(leader, *to)?;
                let mut report = self.report(&action, format!("{leader} rides to ({:.1}, {:.1}) (QK6)", to.x, to.y));
                let from = self.leader_at(&self.leaders[i]);
                self.set_leader_at(i, *to);
                self.leaders[i].attached = None;
                self.leaders[i].moved = true;
                report.outcome = format!("{leader} rides {}", inches(from.distance(*to)));
                report.change("2", format!("{leader} is at ({:.1}, {:.1}); his radius is {}", to.x, to.y, inches(self.leaders[i].radius)));
                report
            }
            Action::JoinUnit { leader, unit } => {
                let (i, e) = self.check_join(leader, unit)?;
                let mut report = self.report(&action, format!("{leader} joins {unit} (QK10)"));
                let at = centre(&self.footprints(e));
                self.set_leader_at(i, at);
                self.leaders[i].attached = Some(e);
                self.leaders[i].moved = true;
                report.outcome = format!("{leader} is with {unit}: it adds his +{} to its morale and melee, and he risks a 5-6 when it loses a stand", self.leaders[i].bonus);
                report.change("10", report.outcome.clone());
                report
            }
            Action::Answer { prompt, option } => {
                let q = self.check_answer(*prompt, *option)?;
                self.answer(&action, q, *option)
            }
            Action::Next => {
                self.check_next()?;
                self.next(&action)
            }
            other => return self.check(other).and_then(|()| Err(Refusal::unruled(QKS, format!("{other}: not an order of the quick ACW rules")))),
        };
        self.actions.push(action);
        self.reports.push(report.clone());
        Ok(report)
    }

    pub(super) fn report(&self, action: &Action, title: String) -> Report {
        Report::new(QKS, self.turn, action.clone(), title)
    }

    pub(super) fn mark(&mut self, e: Entity, f: impl FnOnce(&mut QkState)) {
        if let Some(mut m) = self.world.get_mut::<QkState>(e) {
            f(&mut m);
        }
    }

    pub(super) fn footprints(&self, e: Entity) -> Vec<Footprint> {
        self.unit(e).map(|u| crate::scenario::spawn::unit_footprints(&self.world, u)).unwrap_or_default()
    }

    fn set_leader_at(&mut self, i: usize, at: Vec2) {
        if let Some(mut c) = self.world.get_mut::<Commander>(self.leaders[i].entity) {
            c.at = at;
        }
    }

    /// The unit's stands where a move put them; an attached leader goes along.
    fn place(&mut self, e: Entity, stands: &[Footprint], formation: Formation) {
        let Some(mut unit) = self.world.get_mut::<Unit>(e) else { return };
        unit.formation = formation;
        let ids = unit.stands.clone();
        for (s, f) in ids.into_iter().zip(stands) {
            if let Some(mut fp) = self.world.get_mut::<Footprint>(s) {
                *fp = *f;
            }
        }
        if let Some(i) = self.leaders.iter().position(|l| !l.lost && l.attached == Some(e)) {
            self.set_leader_at(i, centre(stands));
        }
    }

    fn moved(&mut self, action: &Action, name: &str, placed: Placed) -> Report {
        let was = self.unit(placed.unit).map(|u| u.formation).unwrap_or(placed.formation);
        let title = if placed.formation != was { format!("{name} forms {} (QK6)", formation_name(placed.formation)) } else { format!("{name} moves (QK6)") };
        let mut report = self.report(action, title);
        let (factor, why) = self.command(placed.unit);
        report.note("2", format!("{name}: {why}{}", if factor < 1.0 { format!(" (× {factor})") } else { String::new() }));
        if placed.rough {
            report.note("8", format!("{name} moves through rough ground: half rate (a quarter for limbered guns)"));
        }
        self.place(placed.unit, &placed.stands, placed.formation);
        let turned = placed.turned_only;
        self.mark(placed.unit, |m| {
            m.spent += placed.inches;
            m.moved |= !turned;
        });
        let allowance = self.allowance(placed.unit);
        let spent = self.state(placed.unit).spent;
        report.outcome = if turned { format!("{name} turns about") } else { format!("{name} spends {} of its {}", inches(spent), inches(allowance)) };
        report.change("6", report.outcome.clone());
        report
    }

    // ---- fire (QK11–QK14) ----

    fn fire(&mut self, action: &Action, shot: super::game::Shot) -> Report {
        let (name, target) = (self.name(shot.firer), self.name(shot.target));
        let mut report = self.report(action, format!("{name} fires at {target} (QK11)"));
        report.note("11", format!("{target} is {} away edge to edge: the {} band", inches(shot.range), self.charts.band_label(shot.band)));
        let row = self.charts.fire_row(shot.arm);
        report.chart("FIRE", self.charts.band_label(shot.band), shot.arm.words(), format!("{}+", shot.needs), &row.source);
        for (m, v) in &shot.modifiers {
            report.modifier("12", m.words(), *v);
        }
        let roll = self.d6s(2);
        let total = roll.total + shot.modifier();
        report.die("11", format!("{name}'s fire at {target}: 2d6 {:+} against {}+", shot.modifier(), shot.needs), &roll);
        self.mark(shot.firer, |m| m.fired = true);
        if total < shot.needs {
            report.outcome = format!("a miss ({total} against {}+)", shot.needs);
            return report;
        }
        let over = self.charts.two_stands_over.value;
        let lost = if total - shot.needs >= over { 2 } else { 1 };
        report.outcome = format!("a hit ({total} against {}+): {target} loses {lost} stand{}{}", shot.needs, if lost > 1 { "s" } else { "" }, if lost > 1 { format!(" ({over} or more over, QK13)") } else { String::new() });
        self.lose_stands(&mut report, shot.target, lost);
        self.give_marker(&mut report, shot.target, "13");
        report
    }

    /// QK13: a Morale Marker, never more than one.
    pub(super) fn give_marker(&mut self, report: &mut Report, e: Entity, rule: &str) {
        if self.unit(e).is_none() {
            return;
        }
        let name = self.name(e);
        if self.state(e).marker {
            report.note("13", format!("{name} already has a Morale Marker: they are not cumulative"));
        } else {
            self.mark(e, |m| m.marker = true);
            report.change(rule, format!("{name} takes a Morale Marker"));
        }
    }

    /// QK13, QK19, QK20: `n` stands lost (rear stands first on the table; a battery counts
    /// them), the attached leader's risk, and removal below half the starting stands.
    pub(super) fn lose_stands(&mut self, report: &mut Report, e: Entity, n: u32) {
        if n == 0 || self.unit(e).is_none() {
            return;
        }
        let name = self.name(e);
        let st = self.state(e);
        let lost = n.min(st.stands);
        let left = st.stands - lost;
        self.mark(e, |m| m.stands = left);
        let drawn = self.unit(e).map_or(0, |u| u.stands.len());
        let keep = if matches!(self.unit(e).map(|u| u.arm), Some(Arm::Artillery { .. })) { 1 } else { left.max(1) as usize };
        if drawn > keep {
            let mut unit = self.world.get_mut::<Unit>(e).expect("read above");
            let gone: Vec<Entity> = unit.stands.split_off(keep);
            unit.figures = unit.figures.saturating_sub(gone.len() as u32 * 4);
            for s in gone {
                self.world.despawn(s);
            }
        }
        report.change("13", format!("{name} loses {lost} stand{}: {left} of {} left", if lost == 1 { "" } else { "s" }, st.stands_start));
        // QK20: the attached leader's risk, one die for the loss.
        if let Some(i) = self.leaders.iter().position(|l| !l.lost && l.attached == Some(e)) {
            let roll = self.d6s(1);
            let on = self.charts.leader_lost_on.value;
            let leader = self.leaders[i].name.clone();
            report.die("20", format!("{leader}, with {name}, risks his life ({on}-6 he is lost)"), &roll);
            if roll.total >= on {
                self.lose_leader(report, i);
            } else {
                report.note("20", format!("{leader} is unhurt"));
            }
        }
        // QK19: below half its starting stands, the unit is removed.
        if 2 * left < st.stands_start {
            report.change("19", format!("{name} is down to {left} of {} stands, below half: it is removed", st.stands_start));
            self.remove(e);
        }
    }

    /// QK20, QK21: a leader killed or captured is not replaced.
    fn lose_leader(&mut self, report: &mut Report, i: usize) {
        let l = &mut self.leaders[i];
        l.lost = true;
        l.attached = None;
        let (name, army) = (l.name.clone(), l.brigade.is_none());
        self.world.despawn(l.entity);
        let then = if army { "his radius is gone" } else { "his units move at half rate for the rest of the battle" };
        report.change("21", format!("{name} is killed or captured: he is not replaced; {then}"));
    }

    /// QK19, QK22: the unit leaves the game; a leader with it stays where it was.
    pub(super) fn remove(&mut self, e: Entity) {
        let name = self.name(e);
        let stands = self.unit(e).map(|u| u.stands.clone()).unwrap_or_default();
        for l in self.leaders.iter_mut().filter(|l| l.attached == Some(e)) {
            l.attached = None;
        }
        for s in stands {
            self.world.despawn(s);
        }
        self.world.despawn(e);
        self.to_ask.retain(|&u| u != e);
        self.removed.push(name);
    }

    // ---- retreats and routs (QK3, QK9, QK15, QK22) ----

    /// QK9, QK15: a retreat of 2d6" (3d6" mounted cavalry) straight away from `enemy`, then a
    /// marker; blocked, it stops short; off the table, the unit is removed (QK22).
    pub(super) fn retreat(&mut self, report: &mut Report, e: Entity, enemy: Entity, rule: &str) {
        let Some(unit) = self.unit(e) else { return };
        let name = unit.name.clone();
        let mounted = Game::is_mounted(unit);
        let n = if mounted { self.charts.retreat_dice_mounted.value } else { self.charts.retreat_dice.value };
        let roll = self.d6s(n);
        report.die(rule, format!("{name} retreats {n}d6\" directly away from {}", self.name(enemy)), &roll);
        let s = self.situation();
        let (Ok(a), Ok(b)) = (s.find(&name), s.find(&self.name(enemy))) else { return };
        let path = movement::retreat(&s, a, b, roll.total as f32);
        if self.go_back(report, e, &s, a, path, roll.total as f32, None, rule) {
            self.give_marker(report, e, rule);
        }
    }

    /// Moves a retreating or routing unit along `path` (stopping short of anything in the way),
    /// turning it to face `face` at the end if given; removes it if it leaves the table (QK22).
    /// False when the unit was removed.
    #[allow(clippy::too_many_arguments)]
    fn go_back(&mut self, report: &mut Report, e: Entity, s: &Situation, a: usize, path: movement::RetreatPath, distance: f32, face: Option<f32>, rule: &str) -> bool {
        let name = self.name(e);
        let formation = s.unit(a).formation;
        if path.off_table && path.in_the_way.is_empty() {
            report.change("22", format!("{name} leaves the table: it is removed"));
            self.remove(e);
            return false;
        }
        let (mut stands, went) = match path.in_the_way.first() {
            Some(w) => {
                // The farthest it gets short of what stopped it, clear of every other unit.
                let away = crate::table::footprint::bearing_vector(path.bearing);
                let clear = |d: f32| {
                    let p = movement::shift_path(s, a, away, d);
                    let after = s.with_stands(a, &p.stands, formation);
                    let free = p.in_the_way.is_empty() && (0..after.units().len()).filter(|&o| o != a).all(|o| range::unit_distance(&after, a, o) >= CLEARANCE / 2.0);
                    free.then_some(p.stands)
                };
                let (stands, short) = (1..=40).map(|k| (w.after - CLEARANCE * k as f32).max(0.0)).find_map(|d| clear(d).map(|st| (st, d))).unwrap_or((s.unit(a).footprints(), 0.0));
                report.note("22", format!("{name} is blocked by {} after {}: it stops short", w.unit, inches(w.after)));
                (stands, short)
            }
            None => (path.stands, distance),
        };
        if stands.iter().any(|f| !s.on_table(f.centre)) {
            report.change("22", format!("{name} leaves the table: it is removed"));
            self.remove(e);
            return false;
        }
        if let Some(bearing) = face {
            let turned = faced(&stands, bearing);
            let after = s.with_stands(a, &turned, formation);
            let clear = (0..after.units().len()).filter(|&o| o != a).all(|o| range::unit_distance(&after, a, o) > 0.0);
            if clear && turned.iter().all(|f| s.on_table(f.centre)) {
                stands = turned;
            } else {
                report.note("3", format!("{name} has no room to turn and keeps its facing"));
            }
        }
        self.place(e, &stands, formation);
        report.change(rule, format!("{name} goes back {}", inches(went)));
        true
    }

    /// QK3, QK7: the rout of 12" (foot, guns) or 24" (cavalry) straight away from the nearest
    /// enemy, ending facing away; unlimbered guns limber first (half a move) and rout the rest.
    fn rout(&mut self, report: &mut Report, e: Entity) {
        let Some(unit) = self.unit(e) else { return };
        let name = unit.name.clone();
        let mover = Game::mover(unit);
        let mut distance = self.charts.moves(mover).rout;
        let s0 = self.situation();
        let Ok(mut a) = s0.find(&name) else { return };
        let mut s = s0;
        if unit.formation == Formation::Unlimbered {
            let limber = movement::plan_move(&s, a, &[MoveStep::ChangeFormation(Formation::Limbered)], movement::Allowance::new(self.charts.moves(super::charts::Mover::Limbered).inches), &super::moves::QK);
            if limber.legal() {
                self.place(e, &limber.stands, Formation::Limbered);
                distance = (distance - limber.spent).max(0.0);
                report.change("7", format!("{name} limbers ({} of the rout) and routs the rest", inches(limber.spent)));
                s = self.situation();
                a = s.find(&name).unwrap_or(a);
            }
        }
        let nearest = (0..s.units().len()).filter(|&o| s.unit(o).side != s.unit(a).side).min_by(|&x, &y| range::unit_distance(&s, a, x).total_cmp(&range::unit_distance(&s, a, y)));
        let Some(enemy) = nearest else {
            report.note("3", format!("{name} has no enemy to rout from: it stays"));
            return;
        };
        let path = movement::retreat(&s, a, enemy, distance);
        let bearing = path.bearing;
        report.note("3", format!("{name} routs {} directly away from {}", inches(distance), s.unit(enemy).name));
        self.go_back(report, e, &s, a, path, distance, Some(bearing), "3");
    }

    fn answer(&mut self, action: &Action, q: Question, option: u32) -> Report {
        let name = self.name(q.unit);
        let said = if option == STAY { "stays" } else { "routs" };
        let mut report = self.report(action, format!("{name} {said} (QK3)"));
        self.question = None;
        if option == ROUT {
            self.mark(q.unit, |m| {
                m.routed = true;
                m.moved = true;
            });
            self.rout(&mut report, q.unit);
        } else {
            self.mark(q.unit, |m| m.stayed = true);
            report.change("3", format!("{name} stays: it may turn about, and nothing else this move"));
        }
        report.outcome = format!("{name} {said}");
        self.ask_next();
        report
    }

    /// QK3: the next marked unit of the phasing side, asked to stay or rout.
    fn ask_next(&mut self) {
        while let Some(e) = self.to_ask.first().copied() {
            self.to_ask.remove(0);
            if self.unit(e).is_some() && self.state(e).marker {
                self.asked += 1;
                self.question = Some(Question { id: self.asked, unit: e });
                return;
            }
        }
    }

    // ---- charges (QK9, QK10) ----

    fn charge(&mut self, action: &Action, plan: super::game::ChargePlan) -> Report {
        let (name, target) = (self.name(plan.unit), self.name(plan.target));
        let mut report = self.report(action, format!("{name} charges {target} (QK9)"));
        report.note("9", format!("{target} is {} away by the charge path, in its {} (QK17)", inches(plan.path.distance), Game::charge_zone_words(plan.zone)));
        // QK10: each side's morale modifiers, named (a leader's bonus, a marker).
        for (who, e) in [(&name, plan.unit), (&target, plan.target)] {
            for (why, value) in self.morale_factors(e) {
                report.modifier("10", format!("{who}: {why}"), value);
            }
        }
        let roll = self.d6s(2);
        report.die("10", format!("{name}'s charge: 2d6 {:+} against {}+", plan.charger_bonus, plan.charger_needs), &roll);
        self.mark(plan.unit, |m| m.moved = true);
        let allowance = self.allowance(plan.unit);
        if roll.total + plan.charger_bonus < plan.charger_needs {
            let stands = self.part_way(&plan);
            let formation = self.unit(plan.unit).map_or(Formation::Line, |u| u.formation);
            self.place(plan.unit, &stands, formation);
            self.mark(plan.unit, |m| m.spent = allowance);
            report.change("9", format!("{name} fails: it moves half way to {target}"));
            self.give_marker(&mut report, plan.unit, "9");
            report.outcome = format!("{name}'s charge fails");
            return report;
        }
        let formation = self.unit(plan.unit).map_or(Formation::Line, |u| u.formation);
        self.place(plan.unit, &plan.path.stands, formation);
        let spent = plan.path.distance;
        let behind = (plan.zone != AttackZone::Front).then_some(plan.target);
        self.mark(plan.unit, |m| {
            m.spent += spent;
            m.behind = behind;
        });
        report.change("9", format!("{name} charges home into {target}"));
        let stand = self.d6s(2);
        report.die("10", format!("{target} receives the charge: 2d6 {:+} against {}+", plan.target_bonus, plan.target_needs), &stand);
        if stand.total + plan.target_bonus >= plan.target_needs {
            report.outcome = format!("{name} charges home; {target} stands: they fight in the melee step");
        } else {
            report.outcome = format!("{name} charges home; {target} runs");
            self.retreat(&mut report, plan.target, plan.unit, "9");
        }
        report
    }

    // ---- the sequence (QK1–QK5) and melee (QK15–QK18) ----

    fn next(&mut self, action: &Action) -> Report {
        if let Some((a, d)) = self.next_melee() {
            return self.melee(action, a, d);
        }
        match self.step_after() {
            Some(step) => {
                self.step = step;
                let mut report = self.report(action, format!("{}: {} step (QK{})", self.side_name(self.phasing()), step.words().to_lowercase(), step.rule()));
                match step {
                    Step::Move => {
                        // QK2: the command step fixes each unit's move for this player-turn.
                        let phasing: Vec<Entity> = self.live_units().filter(|(_, u)| u.side == self.phasing()).map(|(e, _)| e).collect();
                        for e in phasing {
                            let factor = self.command(e).0;
                            self.mark(e, |m| m.command = factor);
                        }
                        self.to_ask = self.live_units().filter(|(e, u)| u.side == self.phasing() && self.state(*e).marker).map(|(e, _)| e).collect();
                        self.ask_next();
                        if let Some(q) = self.question {
                            report.note("3", format!("{} has a Morale Marker: stay or rout?", self.name(q.unit)));
                        }
                    }
                    Step::Rally => self.rally(&mut report),
                    Step::DefensiveFire | Step::OffensiveFire => {
                        for e in self.units.clone() {
                            self.mark(e, |m| m.fired = false);
                        }
                    }
                    _ => {}
                }
                report.outcome = format!("{} step", step.words());
                report
            }
            None => self.end_player_turn(action),
        }
    }

    /// QK4: phasing units that did not move (turning allowed) lose their marker.
    fn rally(&mut self, report: &mut Report) {
        let ralliers: Vec<Entity> = self.live_units().filter(|(e, u)| u.side == self.phasing() && self.state(*e).marker && !self.state(*e).moved).map(|(e, _)| e).collect();
        for e in ralliers {
            self.mark(e, |m| m.marker = false);
            report.change("4", format!("{} did not move: it rallies and loses its Morale Marker", self.name(e)));
        }
    }

    fn end_player_turn(&mut self, action: &Action) -> Report {
        let mut report = self.report(action, format!("{} ends its player-turn (QK1)", self.side_name(self.phasing())));
        self.phase += 1;
        if self.phase >= self.order.len() {
            self.phase = 0;
            if self.scenario.turn_limit.is_some_and(|l| self.turn >= l) || self.one_side_gone() {
                return self.finish(report);
            }
            self.turn += 1;
            report.change("1", format!("turn {} begins", self.turn));
        } else if self.one_side_gone() {
            return self.finish(report);
        }
        self.step = Step::Command;
        for e in self.units.clone() {
            self.mark(e, |m| {
                let (marker, start, stands) = (m.marker, m.stands_start, m.stands);
                *m = QkState { marker, stands_start: start, stands, ..QkState::default() };
            });
        }
        for l in &mut self.leaders {
            l.moved = false;
        }
        report.outcome = format!("{}'s player-turn: command step", self.side_name(self.phasing()));
        report.change("1", report.outcome.clone());
        report
    }

    fn one_side_gone(&self) -> bool {
        (0..self.scenario.sides.len()).any(|side| !self.live_units().any(|(_, u)| u.side == side))
    }

    fn finish(&mut self, mut report: Report) -> Report {
        self.over = true;
        self.question = None;
        let summary = self.summary().expect("the game is over");
        report.outcome = format!("the game is over after turn {}: {}", self.turn, summary.result.clone().unwrap_or_default());
        report.change("1", report.outcome.clone());
        report.summary = Some(summary);
        report
    }

    /// QK15–QK18: one melee, both sides 2d6 + stands fighting + modifiers; the table by the
    /// difference.
    fn melee(&mut self, action: &Action, a: Entity, d: Entity) -> Report {
        let f: Fight = fight(self, a, d);
        let (an, dn) = (self.name(a), self.name(d));
        let mut report = self.report(action, format!("Melee: {an} against {dn} (QK15)"));
        for (side, who) in [(&f.attacker, &an), (&f.defender, &dn)] {
            report.modifier("15", format!("{who}: stands fighting"), side.stands as i32);
            if side.doubled {
                report.modifier("17", format!("{who}: flank or rear, stands count double"), side.stands as i32);
            }
            for (m, v) in &side.modifiers {
                report.modifier(m.rule(), format!("{who}: {}", m.words()), *v);
            }
        }
        let ra = self.d6s(2);
        report.die("15", format!("{an} (attacking) 2d6 {:+}", f.attacker.total()), &ra);
        let rd = self.d6s(2);
        report.die("15", format!("{dn} (defending) 2d6 {:+}", f.defender.total()), &rd);
        let (ta, td) = (ra.total + f.attacker.total(), rd.total + f.defender.total());
        let diff = ta - td;
        let row = self.charts.melee_row(diff).clone();
        report.chart("MELEE", row.label(), "Win / Lose", row.cell(), &row.source);
        self.mark(a, |m| m.fought = true);
        self.mark(d, |m| m.fought = true);
        let (winner, loser) = if diff >= 0 { (a, d) } else { (d, a) };
        report.outcome = if diff == 0 { format!("{ta} to {td}: a tie, both lose a stand and retreat") } else { format!("{ta} to {td}: {} wins by {}", self.name(winner), diff.abs()) };
        // Losses first, then the retreats of those still on the table.
        self.lose_stands(&mut report, winner, row.winner);
        self.lose_stands(&mut report, loser, row.loser);
        if self.unit(loser).is_some() && self.unit(winner).is_some() {
            self.retreat(&mut report, loser, winner, "15");
        }
        if row.winner_retreats && self.unit(winner).is_some() && self.unit(loser).is_some() {
            self.retreat(&mut report, winner, loser, "15");
        } else if self.unit(loser).is_some() && self.unit(winner).is_none() {
            self.give_marker(&mut report, loser, "15");
        }
        report
    }

    // ---- the end ----

    /// At the turn limit or when a side has no units (QK1). QK22 leaves victory to the scenario
    /// (rulesets.md: "turn limit, objectives"): an objective is held by a side with a unit within
    /// its radius and no enemy unit there; more objective points win, then fewer stands lost (in
    /// `figures_lost`, which counts stands here); even in both, a draw.
    pub fn summary(&self) -> Option<Summary> {
        if !self.over {
            return None;
        }
        let s = self.situation();
        let held_by = |o: &crate::scenario::model::Objective| {
            let at = Vec2::from(o.at);
            let near = |u: usize| s.unit(u).stands.iter().any(|st| crate::table::cover::distance_to_stand(&st.footprint, at) <= o.radius + 1e-3);
            let sides: Vec<usize> = (0..s.units().len()).filter(|&u| near(u)).map(|u| s.unit(u).side).collect();
            let first = *sides.first()?;
            sides.iter().all(|&x| x == first).then_some(first)
        };
        let sides: Vec<SideSummary> = self
            .scenario
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| {
                let models: Vec<_> = side.brigades.iter().flat_map(|b| &b.units).collect();
                let start: u32 = models.iter().map(|u| super::game::stands_of(u.men_or_default(), self.charts)).sum();
                let now: u32 = self.live_units().filter(|(_, u)| u.side == i).map(|(e, _)| self.state(e).stands).sum();
                let broken = models.iter().filter(|m| self.removed.contains(&m.name)).map(|m| m.name.clone()).collect();
                let held: Vec<&crate::scenario::model::Objective> = self.scenario.objectives.iter().filter(|o| held_by(o) == Some(i)).collect();
                SideSummary {
                    side: side.name.clone(),
                    figures_lost: start - now.min(start),
                    units_broken: broken,
                    units_off_table: Vec::new(),
                    objectives_held: held.iter().map(|o| o.name.clone()).collect(),
                    points: held.iter().map(|o| o.points).sum(),
                }
            })
            .collect();
        let unheld = self.scenario.objectives.iter().filter(|o| held_by(o).is_none()).map(|o| o.name.clone()).collect();
        let key = |x: &SideSummary| (x.points, std::cmp::Reverse(x.figures_lost));
        let best = sides.iter().map(key).max();
        let top: Vec<usize> = (0..sides.len()).filter(|&i| Some(key(&sides[i])) == best).collect();
        let winner = (top.len() == 1).then(|| top[0]);
        let most_lost = sides.iter().map(|s| s.figures_lost).max().unwrap_or(0);
        let result = match winner {
            Some(w) if !self.scenario.objectives.is_empty() => format!("{} wins with {} objective points, having lost {} stands (QK22)", sides[w].side, sides[w].points, sides[w].figures_lost),
            Some(w) => format!("{} wins, having lost fewer stands ({} to {most_lost}) (QK22)", sides[w].side, sides[w].figures_lost),
            None => format!("a draw: even in objective points and stands lost ({most_lost}) (QK22)"),
        };
        Some(Summary { turns_played: self.turn, sides, objectives_unheld: unheld, winner, result: Some(result) })
    }
}

/// The stands turned about their centre to face `bearing` (QK3: a rout ends facing away).
fn faced(stands: &[Footprint], bearing: f32) -> Vec<Footprint> {
    let Some(first) = stands.first() else { return Vec::new() };
    let turn = (bearing - first.facing + 180.0).rem_euclid(360.0) - 180.0;
    let c = centre(stands);
    stands.iter().map(|f| Footprint { centre: turn_about(f.centre, c, turn), facing: (f.facing + turn).rem_euclid(360.0), ..*f }).collect()
}

impl MeleeModifier {
    pub fn rule(self) -> &'static str {
        "16"
    }
}
