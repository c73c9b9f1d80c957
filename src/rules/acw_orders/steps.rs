//! The ten steps as `Next` plays them (OR3-OR6, OR9-OR11, OR16-OR22): sealing a side's orders,
//! the routers, rally and replacement rolls of step 2, the reveal of step 3, the simultaneous
//! fire at the end of steps 4, 7 and 8 with its morale checks, the disengaging units of step 5,
//! the charges of step 6 (bonus, disorder point, defensive volley, impact, falls back or
//! O'Neill's table, the volley, melee), officer casualties (9) and the end of the turn (10).

use bevy::ecs::entity::Entity;

use super::charts::{Advance, FallsBack, FireResult, ONeillChart};
use super::combat::{Check, Mod, Volley, morale_outcome, nd6, sum};
use super::game::{FIGURES_A_STAND, Game, Morale, Order, Phase, Placed};
use super::moves::{self, MOVES};
use crate::rules::action::Action;
use crate::rules::dice::DiceKind;
use crate::rules::report::{Report, SideSummary, Summary};
use crate::scenario::model::Arm;
use crate::table::contact;
use crate::table::footprint::Footprint;
use crate::table::geom::EPS;
use crate::table::movement;
use crate::table::words::inches;

/// A volley thrown, waiting to be applied with the others of its step (OR6).
struct Thrown {
    firer: Entity,
    target: Entity,
    figures: u32,
    /// M, or a missed 1*, by guns or sharpshooters: a morale check without loss (OR13).
    check: bool,
    by_guns: bool,
    on_guns: bool,
    from: super::combat::Aspect,
}

impl Game {
    pub(super) fn next(&mut self, action: &Action) -> Report {
        let phase = self.phase;
        let place_last = self.sides.len() - 1;
        let side_of = |g: &Game, p: usize| g.side_name(g.sides[p]).to_string();
        match phase {
            Phase::Orders(p) => {
                let side = self.sides[p];
                let mut report = self.report(action, format!("{} seals its orders (OR1)", side_of(self, p)));
                let unwritten: Vec<Entity> = self.live_units().filter(|(e, u)| u.side == side && self.or(*e).is_some_and(|o| o.order.is_none() && o.morale != Morale::Routed)).map(|(e, _)| e).collect();
                for &e in &unwritten {
                    self.mark(e, |o| o.order = Some(Order::H));
                }
                report.note("1", format!("{} orders sealed until step 3; a unit without a written order holds", self.live_units().filter(|(_, u)| u.side == side).count()));
                self.phase = if p < place_last { Phase::Orders(p + 1) } else { Phase::Rally };
                report.outcome = self.phase_words();
                report
            }
            Phase::Rally => {
                let mut report = self.report(action, "Step 2: routers move, rally, replacements (OR3)".into());
                self.step_2(&mut report);
                self.phase = Phase::Reveal(0);
                self.reveal(&mut report);
                report.outcome = self.phase_words();
                report
            }
            Phase::Reveal(p) => {
                let mut report = self.report(action, format!("{} has named its charge targets (OR4)", side_of(self, p)));
                self.phase = if p < place_last { Phase::Reveal(p + 1) } else { Phase::FirstFire(0) };
                report.outcome = self.phase_words();
                report
            }
            Phase::FirstFire(p) | Phase::Movement(p) | Phase::MovingFire(p) => {
                let step = phase.step() + 1;
                let mut report = self.report(action, format!("{} ends its part of step {step} (OR6)", side_of(self, p)));
                if p < place_last {
                    self.phase = match phase {
                        Phase::FirstFire(_) => Phase::FirstFire(p + 1),
                        Phase::Movement(_) => Phase::Movement(p + 1),
                        _ => Phase::MovingFire(p + 1),
                    };
                } else {
                    report.title = format!("Step {step}: the fire of both sides, thrown together (OR6)");
                    self.resolve_fire(&mut report, matches!(phase, Phase::FirstFire(_)));
                    self.phase = match phase {
                        Phase::FirstFire(_) => Phase::Disengage,
                        Phase::Movement(_) => Phase::MovingFire(0),
                        _ => Phase::Officers,
                    };
                }
                report.outcome = self.phase_words();
                report
            }
            Phase::Disengage => {
                let mut report = self.report(action, "Step 5: disengaging units retire (OR5)".into());
                self.step_5(&mut report);
                self.phase = Phase::Charges;
                report.outcome = self.phase_words();
                report
            }
            Phase::Charges => {
                let mut report = self.report(action, "Step 6: charges (OR16-OR21)".into());
                self.step_6(&mut report);
                self.phase = Phase::Movement(0);
                report.outcome = self.phase_words();
                report
            }
            Phase::Officers => {
                let mut report = self.report(action, "Step 9: officer casualties (OR22)".into());
                self.step_9(&mut report);
                self.phase = Phase::End;
                report.outcome = self.phase_words();
                report
            }
            Phase::End => {
                let mut report = self.report(action, format!("Step 10: orders off, 20 minutes pass (OR5): turn {} ends", self.turn));
                self.step_10(&mut report);
                report
            }
        }
    }

    /// What comes next, in words.
    pub(super) fn phase_words(&self) -> String {
        let step = self.phase.step() + 1;
        match self.acting_side() {
            Some(s) => format!("step {step}: {} acts", self.side_name(s)),
            None => format!("step {step} is next"),
        }
    }

    fn units_in_order(&self) -> Vec<Entity> {
        let mut out = Vec::new();
        for &side in &self.sides {
            out.extend(self.live_units().filter(|(_, u)| u.side == side).map(|(e, _)| e));
        }
        out
    }

    // ---- step 2 ----

    fn step_2(&mut self, report: &mut Report) {
        // 2a: routers move their routed rate, away from the nearest enemy.
        for e in self.units_in_order() {
            if self.or(e).is_none_or(|o| o.morale != Morale::Routed) {
                continue;
            }
            let name = self.name(e);
            let Some((rate, what)) = self.allowance(e) else { continue };
            report.note("3", format!("{name} routs on: {what}"));
            self.fall_back(e, rate, None, "3", report);
        }
        // 2b: rally routed and shaken units.
        for e in self.units_in_order() {
            let Some(state) = self.or(e).map(|o| o.morale).filter(|m| *m != Morale::Steady) else { continue };
            let name = self.name(e);
            let mods = self.morale_mods(e, false);
            let beat = sum(&mods);
            let roll = nd6(&mut self.dice, 2);
            report.die("3", format!("{name} rallies: 2D6 must beat {beat} (BMP + MPM)"), &roll);
            for x in &mods {
                report.modifier(x.rule, x.name.clone(), x.value);
            }
            let mc = &self.charts.morale;
            let natural_rally = roll.total == mc.natural_rally.value;
            if natural_rally || (roll.total > beat && roll.total != mc.natural_rout.value) {
                let now = if natural_rally || state == Morale::Shaken { Morale::Steady } else { Morale::Shaken };
                self.mark(e, |o| o.morale = now);
                report.change("3", format!("{name} rallies: it is {}", if now == Morale::Steady { "steady again" } else { "shaken (no longer routed)" }));
            } else if state == Morale::Routed {
                let (lost, _, destroyed) = self.lose_figures(e, FIGURES_A_STAND);
                report.change("3", format!("{name} fails to rally and loses a stand ({lost} figures)"));
                if destroyed {
                    self.remove(e, "lost its last stand failing to rally");
                    report.change("3", format!("{name} has no stands left and is removed"));
                }
            } else {
                report.note("3", format!("{name} fails to rally and stays shaken"));
            }
        }
        // 2c: replacement rolls for ammunition and horses (1D6 beats BMP; an officer present adds
        // his rating). OR15 wagons: ammunition only within reach of a wagon of the unit's side,
        // when the scenario has wagons.
        for e in self.units_in_order() {
            let Some(o) = self.or(e).cloned() else { continue };
            if !o.low_ammo && o.horses_lost == 0 {
                continue;
            }
            let name = self.name(e);
            let supplied = self.supplying_wagon(e);
            let ammo = o.low_ammo && supplied.is_ok();
            if o.low_ammo && !ammo {
                let reach = inches(self.charts.movement.wagon_supply.value);
                let why = match &supplied {
                    Err(Some((wagon, d))) => format!("{wagon}, its nearest wagon, is {} away", inches(*d)),
                    _ => "its side has no wagon".into(),
                };
                report.note("15", format!("{name} is low on ammunition with no wagon within {reach} ({why}): no replacement roll"));
                if o.horses_lost == 0 {
                    continue;
                }
            }
            let bmp = self.charts.morale.bmp(o.quality).points;
            let help = self.officer_present(e).map_or(0, |(_, r)| r as i32);
            let roll = self.dice.roll(DiceKind::D6);
            let what = if ammo { "ammunition" } else { "a team's horses" };
            let near = match (&supplied, ammo) {
                (Ok(Some((wagon, d))), true) => format!(" ({wagon} {} away)", inches(*d)),
                _ => String::new(),
            };
            report.die(if ammo { "15" } else { "3" }, format!("{name}: replacement roll for {what}{near}, 1D6 + {help} (officer) must beat BMP {bmp}"), &roll);
            if roll.total + help > bmp {
                self.mark(e, |o| if ammo { o.low_ammo = false } else { o.horses_lost -= 1 });
                report.change("3", format!("{name} replaces its {what}"));
            }
        }
        // 2c: leaders out are replaced (1D6 beats the brigade's best BMP).
        for l in self.leaders.clone() {
            let Some((c, ol)) = self.leader(l) else { continue };
            if !ol.out {
                continue;
            }
            let (name, brigade) = (c.name.clone(), c.brigade);
            let best = self.live_units().filter(|(_, u)| Some(u.brigade) == brigade).filter_map(|(e, _)| self.or(e)).map(|o| self.charts.morale.bmp(o.quality).points).min();
            let Some(best) = best else { continue };
            let roll = self.dice.roll(DiceKind::D6);
            report.die("22", format!("a replacement for {name}: 1D6 must beat BMP {best}"), &roll);
            if roll.total > best {
                let rating = self.charts.officers.replacement_rating.value;
                if let Some(mut o) = self.world.get_mut::<super::game::OrLeader>(l) {
                    o.out = false;
                    o.rating = rating;
                    o.wound = None;
                }
                report.change("22", format!("{name}'s command is taken up by a new officer (rating {rating})"));
            }
        }
    }

    /// Step 3: every order on the table (OR4).
    fn reveal(&mut self, report: &mut Report) {
        let mut lines = Vec::new();
        for e in self.units_in_order() {
            if let Some(order) = self.or(e).and_then(|o| o.order) {
                lines.push(format!("{} {}", self.name(e), order.code()));
            }
        }
        report.change("4", format!("Step 3: orders revealed: {}", if lines.is_empty() { "none".into() } else { lines.join(", ") }));
    }

    // ---- fire ----

    /// Throws a volley and reads the chart; nothing applied yet.
    fn throw(&mut self, firer: Entity, target: Entity, volley: Volley, rule: &'static str, report: &mut Report) -> Option<Thrown> {
        let plan = match self.shot_plan(firer, target, volley) {
            Ok(p) => p,
            Err(r) => {
                report.note(rule, format!("{} cannot fire at {} now: {}", self.name(firer), self.name(target), r.reason));
                return None;
            }
        };
        let (a, t) = (self.name(firer), self.name(target));
        let n = plan.dice() as u32;
        let drm = sum(&plan.drms);
        for x in plan.die_mods.iter() {
            report.note(x.rule, format!("{}: {:+} die", x.name, x.value));
        }
        if n == 0 {
            report.note(rule, format!("{a} has no dice against {t}"));
            self.mark(firer, |o| o.fired = true);
            return None;
        }
        let roll = nd6(&mut self.dice, n);
        report.die(rule, format!("{a} fires at {t}: {n} dice ({})", plan.band.name(plan.by_guns)), &roll);
        for x in &plan.drms {
            report.modifier(x.rule, x.name.clone(), x.value);
        }
        let c = &self.charts.combat;
        let result = c.result(roll.total + drm);
        report.chart("COMBAT DICE", format!("{} dice", n), format!("{} ({} {:+})", roll.total + drm, roll.total, drm), result.label(), &c.results_source);
        if roll.faces.iter().all(|&f| f >= plan.low_from) {
            self.mark(firer, |o| o.low_ammo = true);
            report.change("15", format!("{a} rolled all {}s and up: low on ammunition", plan.low_from));
        }
        self.mark(firer, |o| o.fired = true);
        let (figures, check) = match result {
            FireResult::Nothing => (0, false),
            FireResult::Morale => (0, plan.special),
            FireResult::OneStar => {
                let d = self.dice.roll(DiceKind::D6);
                let hit = d.total >= self.charts.combat.one_star_hits_on.value;
                report.die("13", format!("1*: a hit on {}+", self.charts.combat.one_star_hits_on.value), &d);
                (if hit { Game::figures_of(&plan, 1) } else { 0 }, !hit && plan.special)
            }
            FireResult::Figures(k) => (Game::figures_of(&plan, k), false),
        };
        if plan.halved || plan.multiplier > 1 {
            report.note("13", format!("{t}: casualties {}", if plan.halved { "halved for skirmishers (rounded down)".to_string() } else { format!("x{} in melee", plan.multiplier) }));
        }
        Some(Thrown { firer, target, figures, check, by_guns: plan.by_guns, on_guns: plan.on_guns, from: plan.from })
    }

    /// Applies thrown volleys together (OR6), then the required morale checks (OR9).
    fn apply_thrown(&mut self, thrown: Vec<Thrown>, in_melee: bool, report: &mut Report) -> Vec<Entity> {
        let mut checks: Vec<(Entity, Vec<Mod>, Vec<String>)> = Vec::new();
        let mut need = |e: Entity, why: String, extra: Option<Mod>| match checks.iter_mut().find(|(u, ..)| *u == e) {
            Some((_, mods, whys)) => {
                mods.extend(extra);
                whys.push(why);
            }
            None => checks.push((e, extra.into_iter().collect(), vec![why])),
        };
        let mut gone = Vec::new();
        for t in thrown {
            if self.unit(t.target).is_none() {
                continue;
            }
            let name = self.name(t.target);
            let mc = self.charts.morale.clone();
            if t.check {
                need(t.target, format!("hit by {} (M)", if t.by_guns { "guns" } else { "sharpshooters" }), Some(Mod { name: "hit by guns or sharpshooters".into(), value: mc.per_gun_hit.value, rule: "9", source: mc.per_gun_hit.source.clone() }));
            }
            let mut figures = t.figures;
            if t.on_guns && figures > 0 {
                // OR13: each hit on guns: 1-4 a horse; 5-6 a section (by guns) or crew (by small arms).
                let mut taken = 0;
                for _ in 0..figures {
                    let d = self.dice.roll(DiceKind::D6);
                    let horse = d.total <= self.charts.combat.horse_up_to.value;
                    report.die("13", format!("{} on {name}: 1-{} a horse, else {}", if t.by_guns { "counter-battery" } else { "small arms" }, self.charts.combat.horse_up_to.value, if t.by_guns { "a section" } else { "crew" }), &d);
                    if horse {
                        self.mark(t.target, |o| o.horses_lost += 1);
                        report.change("13", format!("{name} loses a team's horse"));
                    } else {
                        taken += if t.by_guns { self.charts.combat.crew_figures_a_section.value } else { 1 };
                    }
                }
                figures = taken;
            }
            if figures == 0 {
                continue;
            }
            let first = !self.or(t.target).is_some_and(|o| o.bloodied);
            let (lost, stands, destroyed) = self.lose_figures(t.target, figures);
            report.change("13", format!("{name} loses {lost} figure(s) to {}", self.name(t.firer)));
            if destroyed {
                self.remove(t.target, "destroyed by fire");
                report.change("13", format!("{name} has no figures left and is removed"));
                gone.push(t.target);
                continue;
            }
            let flank = match t.from {
                super::combat::Aspect::PartialFlank => Some(Mod { name: "hit by fire on a partial flank".into(), value: mc.hit_partial_flank.value, rule: "8", source: mc.hit_partial_flank.source.clone() }),
                super::combat::Aspect::FullFlank => Some(Mod { name: "hit by fire on the full flank".into(), value: mc.hit_full_flank.value, rule: "8", source: mc.hit_full_flank.source.clone() }),
                super::combat::Aspect::Rear => Some(Mod { name: "hit by fire on the rear".into(), value: mc.hit_rear.value, rule: "8", source: mc.hit_rear.source.clone() }),
                super::combat::Aspect::Front => None,
            };
            if first {
                need(t.target, "first casualty".into(), flank.clone());
            }
            if stands > 0 {
                need(t.target, format!("lost {stands} stand(s) or section(s)"), if first { None } else { flank });
            }
        }
        let mut broken = gone.clone();
        for (e, extra, whys) in checks {
            if self.unit(e).is_none() {
                continue;
            }
            let r = self.morale_check(e, extra, &whys.join(", "), in_melee, report);
            if r == Check::Routed || self.unit(e).is_none() {
                broken.push(e);
            }
        }
        broken
    }

    /// OR9: units within 6" of a unit that routed or was destroyed check morale, once.
    fn nearby_checks(&mut self, near: Vec<(bevy::math::Vec2, String)>, report: &mut Report) {
        let within = self.charts.morale.nearby.value;
        let mut checked: Vec<Entity> = Vec::new();
        for (at, what) in near {
            for e in self.units_in_order() {
                if checked.contains(&e) || self.or(e).is_none_or(|o| o.morale == Morale::Routed) {
                    continue;
                }
                let Some(unit) = self.unit(e) else { continue };
                let close = crate::scenario::spawn::unit_footprints(&self.world, unit).iter().any(|f| crate::table::cover::distance_to_stand(f, at) <= within + EPS);
                if close {
                    checked.push(e);
                    self.morale_check(e, Vec::new(), &format!("within {} of {what}", inches(within)), false, report);
                }
            }
        }
    }

    fn centre(&self, e: Entity) -> Option<bevy::math::Vec2> {
        let unit = self.unit(e)?;
        let fs = crate::scenario::spawn::unit_footprints(&self.world, unit);
        (!fs.is_empty()).then(|| fs.iter().map(|f| f.centre).sum::<bevy::math::Vec2>() / fs.len() as f32)
    }

    /// The fire declared this step, thrown together and applied together (OR6), then morale.
    fn resolve_fire(&mut self, report: &mut Report, first_fire: bool) {
        let declared = std::mem::take(&mut self.declared);
        if declared.is_empty() {
            report.note("6", "no fire was declared");
            return;
        }
        let mut thrown = Vec::new();
        for d in declared {
            let (Ok(f), Ok(t)) = (self.find(&d.firer), self.find(&d.target)) else {
                report.note("6", format!("{} at {}: one of them is gone", d.firer, d.target));
                continue;
            };
            if first_fire {
                let target = d.target.clone();
                self.mark(f, |o| o.fired_first_at.push(target));
            }
            let volley = if d.rapid { Volley::Rapid } else { Volley::Fire };
            thrown.extend(self.throw(f, t, volley, if d.rapid { "15" } else { "13" }, report));
        }
        let before: Vec<(Entity, bevy::math::Vec2, String)> = self.units_in_order().into_iter().filter_map(|e| Some((e, self.centre(e)?, self.name(e)))).collect();
        let broken = self.apply_thrown(thrown, false, report);
        let near = before.into_iter().filter(|(e, ..)| broken.contains(e)).map(|(_, at, name)| (at, format!("{name}, routed or destroyed"))).collect();
        self.nearby_checks(near, report);
    }

    /// OR9-OR11: a morale check and what it brings: shaken falls back 1D6" unless an officer
    /// is present; routed falls back its bonus move (in melee: surrenders).
    pub(super) fn morale_check(&mut self, e: Entity, extra: Vec<Mod>, why: &str, in_melee: bool, report: &mut Report) -> Check {
        let name = self.name(e);
        let mut mods = self.morale_mods(e, false);
        mods.extend(extra);
        let beat = sum(&mods);
        let state = self.or(e).map_or(Morale::Steady, |o| o.morale);
        let roll = nd6(&mut self.dice, 2);
        report.die("9", format!("{name} checks morale ({why}): 2D6 must beat {beat}"), &roll);
        for x in &mods {
            report.modifier(x.rule, format!("{name}: {}", x.name), x.value);
        }
        let mc = &self.charts.morale;
        let outcome = morale_outcome(roll.faces[0] as i32, roll.faces[1] as i32, beat, state, mc.rout_margin.value, mc.natural_rout.value, mc.natural_rally.value);
        match outcome {
            Check::Pass => report.note("9", format!("{name} passes")),
            Check::Shaken => {
                self.mark(e, |o| o.morale = Morale::Shaken);
                report.change("10", format!("{name} is shaken (yellow marker)"));
                if !in_melee {
                    if self.officer_present(e).is_some() {
                        report.note("11", format!("an officer is present: {name} holds its ground"));
                    } else {
                        let d = self.dice.roll(DiceKind::D6);
                        report.die("11", format!("{name} falls back 1D6 inches"), &d);
                        self.fall_back(e, d.total as f32, None, "11", report);
                    }
                }
            }
            Check::Routed => {
                self.mark(e, |o| o.morale = Morale::Routed);
                report.change("10", format!("{name} routs (red marker)"));
                if in_melee {
                    self.remove(e, "surrendered, routed in melee");
                    report.change("20", format!("{name} routs in melee and surrenders"));
                } else {
                    let pips = self.bonus_roll(e, "11", report);
                    self.fall_back(e, pips, None, "11", report);
                }
            }
        }
        outcome
    }

    /// OR12: the unit's bonus dice on its ground, thrown (a half die: a D6 halved, rounded up).
    fn bonus_roll(&mut self, e: Entity, rule: &str, report: &mut Report) -> f32 {
        let dice = self.bonus_dice(e).unwrap_or(0.0);
        let whole = dice.floor() as u32;
        let mut total = 0.0;
        if whole > 0 {
            let r = nd6(&mut self.dice, whole);
            report.die(rule, format!("{}'s bonus movement: {whole} dice", self.name(e)), &r);
            total += r.total as f32;
        }
        if dice - whole as f32 > EPS {
            let r = self.dice.roll(DiceKind::D6);
            report.die(rule, format!("{}'s bonus movement: a half die (halved, rounded up)", self.name(e)), &r);
            total += (r.total as f32 / 2.0).ceil();
        }
        total
    }

    /// A unit falls back `distance` inches straight away from `from` (else the nearest enemy),
    /// stopping short of any unit in its way; off the table it is gone.
    pub(super) fn fall_back(&mut self, e: Entity, distance: f32, from: Option<Entity>, rule: &str, report: &mut Report) {
        let name = self.name(e);
        let s = self.situation();
        let Ok(i) = s.find(&name) else { return };
        let enemy = match from.and_then(|f| self.unit(f)).and_then(|u| s.find(&u.name).ok()) {
            Some(x) => x,
            None => match Game::nearest_enemy(&s, i) {
                Some((x, _)) => x,
                None => return,
            },
        };
        let mut path = movement::retreat(&s, i, enemy, distance);
        let mut went = distance;
        if let Some(w) = path.in_the_way.first() {
            went = (w.after - 0.1).max(0.0);
            report.note(rule, format!("{name}'s fall back is stopped by {} after {}", w.unit, inches(went)));
            path = movement::retreat(&s, i, enemy, went);
        }
        if path.off_table {
            self.remove(e, "fell back off the table");
            report.change(rule, format!("{name} falls back off the table and is gone"));
            return;
        }
        let formation = s.unit(i).formation;
        self.place(&Placed { unit: e, stands: path.stands, formation, inches: went });
        report.change(rule, format!("{name} falls back {}", inches(went)));
    }

    // ---- step 5 ----

    fn step_5(&mut self, report: &mut Report) {
        for e in self.units_in_order() {
            if self.or(e).is_none_or(|o| o.order != Some(Order::D) || o.morale == Morale::Routed) {
                continue;
            }
            let name = self.name(e);
            let pips = self.bonus_roll(e, "5", report);
            self.fall_back(e, pips, None, "5", report);
            // Retire facing away from the enemy, in disorder.
            if let Some(unit) = self.unit(e).cloned() {
                for s in unit.stands {
                    if let Some(mut f) = self.world.get_mut::<Footprint>(s) {
                        f.facing = (f.facing + 180.0).rem_euclid(360.0);
                    }
                }
                self.mark(e, |o| o.disordered = true);
                report.change("5", format!("{name} retires facing away from the enemy, disordered"));
            }
        }
    }

    // ---- step 6 ----

    fn step_6(&mut self, report: &mut Report) {
        let chargers: Vec<Entity> = self.units_in_order().into_iter().filter(|&e| self.or(e).is_some_and(|o| o.target.is_some())).collect();
        if chargers.is_empty() {
            report.note("16", "no unit charges");
        }
        for e in chargers {
            if self.unit(e).is_some() {
                self.charge(e, report);
            }
        }
    }

    /// OR16-OR21: one charge, whole.
    fn charge(&mut self, e: Entity, report: &mut Report) {
        let name = self.name(e);
        let Some(target) = self.or(e).and_then(|o| o.target.clone()) else { return };
        let Ok(t) = self.find(&target) else {
            report.note("16", format!("{name}'s target {target} is gone: no charge"));
            return;
        };
        if self.or(e).is_some_and(|o| o.morale != Morale::Steady) {
            report.note("11", format!("{name} is no longer steady: it does not charge"));
            return;
        }
        let s = self.situation();
        let (Ok(a), Ok(b)) = (s.find(&name), s.find(&target)) else { return };
        let path = contact::charge_path(&s, a, b, &MOVES);
        if !path.clear() {
            report.note("16", format!("{name}'s way to {target} is blocked: no charge"));
            return;
        }
        let (rate, _) = self.allowance(e).unwrap_or((0.0, String::new()));
        // OR16: the bonus roll and the disorder point.
        let bonus = self.bonus_roll(e, "16", report);
        let reach = rate + bonus;
        let disorder_at = self.disorder_point(e, rate, bonus);
        report.note("16", format!("{name} charges {target}: {} to contact; reach {} ({} move + {} bonus); disorder point {}", inches(path.distance), inches(reach), inches(rate), inches(bonus), if disorder_at > 0.0 { inches(disorder_at) } else { "from the start (green or militia)".into() }));
        let disordered = path.distance > disorder_at + EPS;
        if path.distance > reach + EPS {
            let stands = contact::short_of_contact(&s, &MOVES, &path, path.distance - reach);
            let formation = s.unit(a).formation;
            self.place(&Placed { unit: e, stands, formation, inches: reach });
            self.mark(e, |o| o.disordered |= disordered);
            report.change("16", format!("{name} falls short of {target} by {}", inches(path.distance - reach)));
            return;
        }
        // OR17: the defensive volley point.
        if self.defensive_volley(e, t, report) {
            return;
        }
        if self.unit(e).is_none() || self.unit(t).is_none() {
            return;
        }
        // OR18: impact.
        let (att, def) = self.impact_mods(e, t, &path, disordered);
        let Some(def) = def else {
            let s = self.situation();
            let formation = s.unit(a).formation;
            self.place(&Placed { unit: e, stands: path.stands.clone(), formation, inches: path.distance });
            self.remove(t, "surrendered: limbered guns charged");
            self.mark(e, |o| o.disordered = true);
            report.change("18", format!("{target} is limbered and surrenders to {name} (SRNDRR)"));
            return;
        };
        let ra = nd6(&mut self.dice, 2);
        let rd = nd6(&mut self.dice, 2);
        let (ta, td) = (ra.total + sum(&att), rd.total + sum(&def));
        report.die("18", format!("{name}'s impact (2D6 + {}): low wins", sum(&att)), &ra);
        for x in &att {
            report.modifier(x.rule, format!("{name}: {}", x.name), x.value);
        }
        report.die("18", format!("{target}'s impact (2D6 + {})", sum(&def)), &rd);
        for x in &def {
            report.modifier(x.rule, format!("{target}: {}", x.name), x.value);
        }
        report.note("18", format!("impact: {name} {ta}, {target} {td}"));
        let oneill = self.scenario.optional_rules.acw_orders_oneill;
        let s = self.situation();
        let formation = s.unit(a).formation;
        if oneill {
            let margin = (ta - td).abs();
            let attacker_won = ta < td;
            let rows = if attacker_won { &self.charts.oneill.attacker_wins } else { &self.charts.oneill.defender_wins };
            let row = ONeillChart::row(rows, margin).clone();
            report.chart("O'NEILL", if attacker_won { "attacker wins by" } else { "defender wins by" }, margin.to_string(), format!("{:?}", row.loser), &row.source);
            if row.loser.melee {
                self.place(&Placed { unit: e, stands: path.stands.clone(), formation, inches: path.distance });
                self.melee(e, t, report);
                return;
            }
            let (loser, winner) = if attacker_won { (t, e) } else { (e, t) };
            if attacker_won {
                let stands = match row.advance {
                    Advance::Full => path.stands.clone(),
                    Advance::Half => contact::part_way(&s, &MOVES, &path, 0.5),
                    Advance::Stop => s.unit(a).footprints(),
                };
                // The defender gives ground before the attacker comes on.
                self.oneill_loss(loser, winner, row.loser, report);
                if self.unit(e).is_some() {
                    self.place(&Placed { unit: e, stands, formation, inches: path.distance });
                    self.mark(e, |o| o.disordered = true);
                }
            } else {
                self.place(&Placed { unit: e, stands: path.stands.clone(), formation, inches: path.distance });
                self.oneill_loss(loser, winner, row.loser, report);
            }
            self.after_impact_volley(e, t, report);
            return;
        }
        self.place(&Placed { unit: e, stands: path.stands.clone(), formation, inches: path.distance });
        match ta.cmp(&td) {
            std::cmp::Ordering::Less => {
                // OR19 6: the defender falls back in disorder 2D6 pips; the total reads its state.
                let mods = self.falls_back_mods(t);
                let r = nd6(&mut self.dice, 2);
                report.die("19", format!("{target} falls back: 2D6 pips, the total read with its DRMs"), &r);
                for x in &mods {
                    report.modifier(x.rule, format!("{target}: {}", x.name), x.value);
                }
                let result = self.charts.charge.falls_back(r.total + sum(&mods));
                report.chart("FALLS BACK", "2D6 + DRM", (r.total + sum(&mods)).to_string(), format!("{result:?}"), &self.charts.charge.falls_back_source);
                report.change("19", format!("{name} wins the impact; it comes on and is disordered"));
                self.mark(e, |o| o.disordered = true);
                if result == FallsBack::PickedUp {
                    self.remove(t, "picked up after losing an impact");
                    report.change("19", format!("{target} is picked up"));
                } else {
                    let inches_back = r.total as f32 * self.pip(t);
                    self.fall_back(t, inches_back, Some(e), "19", report);
                    self.mark(t, |o| {
                        o.disordered = true;
                        o.morale = match result {
                            FallsBack::Steady => o.morale,
                            FallsBack::Shaken if o.morale == Morale::Steady => Morale::Shaken,
                            _ => Morale::Routed,
                        };
                    });
                    report.change("19", format!("{target} is disordered and {:?}", self.or(t).map(|o| o.morale).unwrap_or_default()));
                }
                self.after_impact_volley(e, t, report);
            }
            std::cmp::Ordering::Greater => {
                // OR19 5: the attacker falls back in disorder 1D6 (foot) or 2D6 (horse) pips.
                let cc = &self.charts.charge;
                let dice = if self.unit(e).is_some_and(|u| u.arm == Arm::Cavalry) { cc.loser_attacker_cavalry_dice.value } else { cc.loser_attacker_infantry_dice.value };
                let r = nd6(&mut self.dice, dice);
                report.die("19", format!("{name} falls back {dice}D6 pips"), &r);
                let officer = self.officer_present(e).map_or(0.0, |(_, r)| r as f32);
                let back = (r.total as f32 * self.pip(e) - officer).max(0.0);
                report.change("19", format!("{target} wins the impact: {name} falls back in disorder"));
                self.fall_back(e, back, Some(t), "19", report);
                self.mark(e, |o| o.disordered = true);
                self.after_impact_volley(e, t, report);
            }
            std::cmp::Ordering::Equal => {
                report.note("18", "a tie: melee");
                self.melee(e, t, report);
            }
        }
    }

    /// Inches a pip of falls back is worth on the unit's ground (OR19).
    fn pip(&self, e: Entity) -> f32 {
        let s = self.situation();
        let g = self.unit(e).and_then(|u| s.find(&u.name).ok()).map(|i| moves::ground_of(&s, &s.unit(i).footprints()));
        let cc = &self.charts.charge;
        if matches!(g, Some(super::charts::Ground::Woods | super::charts::Ground::Rough)) { cc.pip_woods_rough.value } else { cc.pip_open.value }
    }

    /// OR21: what O'Neill's table does to the loser.
    fn oneill_loss(&mut self, loser: Entity, winner: Entity, loss: super::charts::Loss, report: &mut Report) {
        let name = self.name(loser);
        if loss.picked_up {
            self.remove(loser, "picked up (O'Neill)");
            report.change("21", format!("{name} is picked up"));
            return;
        }
        let figures = loss.stands * FIGURES_A_STAND + loss.figures;
        if figures > 0 {
            let (lost, _, destroyed) = self.lose_figures(loser, figures);
            report.change("21", format!("{name} loses {lost} figure(s)"));
            if destroyed {
                self.remove(loser, "destroyed (O'Neill)");
                return;
            }
        }
        if loss.routs {
            self.mark(loser, |o| o.morale = Morale::Routed);
            report.change("21", format!("{name} routs"));
            let pips = self.bonus_roll(loser, "21", report);
            self.fall_back(loser, pips, Some(winner), "21", report);
            return;
        }
        if loss.retreat_dice > 0 {
            let r = nd6(&mut self.dice, loss.retreat_dice);
            report.die("21", format!("{name} retreats {}D6 inches", loss.retreat_dice), &r);
            self.fall_back(loser, r.total as f32, Some(winner), "21", report);
        }
        if self.unit(loser).is_some() {
            self.mark(loser, |o| {
                o.disordered |= loss.disordered;
                if loss.shaken && o.morale == Morale::Steady {
                    o.morale = Morale::Shaken;
                }
            });
        }
    }

    /// OR17: the defender volleys at the charger from the volley point. True when the charge
    /// stops there (the attacker shaken, routed or destroyed).
    fn defensive_volley(&mut self, e: Entity, t: Entity, report: &mut Report) -> bool {
        let (name, target) = (self.name(e), self.name(t));
        if let Some(why) = self.no_volley(t, &name) {
            report.note("17", format!("{target} has no defensive volley at {name}{why}"));
            return false;
        }
        let (pip, adjust) = self.volley_terms(t);
        let die = self.dice.roll(DiceKind::D6);
        let point = (die.total as f32 * pip + adjust).max(0.0);
        report.die("17", format!("{target}'s defensive volley point: 1D6 x {}\" {:+}\"", pip, adjust), &die);
        report.note("17", format!("{target} volleys at {name} {} out", inches(point)));
        self.mark(t, |o| o.volleyed_at.push(name.clone()));
        let Some(thrown) = self.throw(t, e, Volley::Defensive { distance: point }, "17", report) else { return false };
        let broken = self.apply_thrown(vec![thrown], false, report);
        if self.unit(e).is_none() {
            return true;
        }
        if !broken.contains(&e) && self.or(e).is_some_and(|o| o.morale == Morale::Steady) {
            return false;
        }
        // The charge stops where the volley's morale result left it.
        report.change("17", format!("{name}'s charge is stopped by the volley"));
        true
    }

    /// OR20 7: both sides fire a simultaneous 2-dice volley.
    fn after_impact_volley(&mut self, e: Entity, t: Entity, report: &mut Report) {
        if self.unit(e).is_none() || self.unit(t).is_none() {
            return;
        }
        let n = self.charts.charge.impact_volley_dice.value;
        let mut thrown = Vec::new();
        for (a, b) in [(e, t), (t, e)] {
            if self.or(a).is_some_and(|o| o.morale != Morale::Routed) {
                thrown.extend(self.throw(a, b, Volley::Dice(n), "20", report));
            }
        }
        self.apply_thrown(thrown, false, report);
    }

    /// OR20 8: melee until one side is picked up; supports half in the first round.
    pub(super) fn melee(&mut self, e: Entity, t: Entity, report: &mut Report) {
        let cc = self.charts.charge.clone();
        let most = cc.most_melee_rounds.value;
        for round in 1..=most {
            if self.unit(e).is_none() || self.unit(t).is_none() {
                return;
            }
            let share = if round == 1 { cc.first_round_support_share.value } else { 1.0 };
            report.note("20", format!("melee round {round}: {} and {}", self.name(e), self.name(t)));
            let mut thrown = Vec::new();
            for (a, b) in [(e, t), (t, e)] {
                // OR20: each flank or rear covered adds its stands' dice, half in the first round.
                let covered = self.supported(a);
                let support_stands = (cc.support_stands.value as f32 * covered.len() as f32 * share).floor() as u32;
                if support_stands > 0 {
                    report.note("20", format!("{} is supported on its {}: +{support_stands} stand(s)' dice{}", self.name(a), covered.join(", "), if round == 1 { " (half in the first round)" } else { "" }));
                }
                self.mark(a, |o| o.meleed = true);
                thrown.extend(self.throw(a, b, Volley::Melee { support_stands }, "20", report));
            }
            self.apply_thrown(thrown, true, report);
            for x in [e, t] {
                if self.unit(x).is_some() && self.or(x).is_some_and(|o| o.morale != Morale::Routed) {
                    self.morale_check(x, Vec::new(), "melee round", true, report);
                }
            }
        }
        // Still standing after the last round: the weaker is picked up.
        if let (Some(a), Some(b)) = (self.or(e).map(|o| o.figures), self.or(t).map(|o| o.figures)) {
            let weaker = if a <= b { e } else { t };
            let name = self.name(weaker);
            self.remove(weaker, "picked up after the longest melee");
            report.change("20", format!("after {most} rounds {name}, the weaker, is picked up"));
        }
    }

    // ---- step 9 ----

    fn step_9(&mut self, report: &mut Report) {
        let oc = self.charts.officers.clone();
        let s = self.situation();
        let mut hit_at = Vec::new();
        for l in self.leaders.clone() {
            let Some((c, o)) = self.leader(l) else { continue };
            if o.out {
                continue;
            }
            let (name, at, side) = (c.name.clone(), c.at, c.side);
            let dist = |pred: &dyn Fn(usize) -> bool| {
                (0..s.units().len()).filter(|&u| pred(u)).flat_map(|u| s.unit(u).stands.iter().map(|st| crate::table::cover::distance_to_stand(&st.footprint, at))).fold(f32::INFINITY, f32::min)
            };
            let enemy = dist(&|u| s.unit(u).side != side);
            let melee_near = self.live_units().any(|(e, u)| u.side == side && self.or(e).is_some_and(|o| o.meleed) && crate::scenario::spawn::unit_footprints(&self.world, u).iter().any(|f| crate::table::cover::distance_to_stand(f, at) <= oc.within_near.value + EPS));
            let hit = if melee_near {
                let d = self.dice.roll(DiceKind::D6);
                report.die("22", format!("{name} in melee: hit on {}+", oc.melee_hit_on_d6.value), &d);
                d.total >= oc.melee_hit_on_d6.value
            } else if enemy <= oc.within_near.value + EPS {
                let d = self.dice.roll(DiceKind::D6);
                report.die("22", format!("{name} within {} of the enemy: hit on a {}", inches(oc.within_near.value), oc.near_hit_on_d6.value), &d);
                d.total >= oc.near_hit_on_d6.value
            } else if enemy <= oc.within_far.value + EPS {
                let d = nd6(&mut self.dice, 2);
                report.die("22", format!("{name} within {} of the enemy: hit on 2D6 {}", inches(oc.within_far.value), oc.far_hit_on_2d6.value), &d);
                d.total >= oc.far_hit_on_2d6.value
            } else {
                false
            };
            if !hit {
                continue;
            }
            let w = self.dice.roll(DiceKind::D6);
            report.die("22", format!("{name}'s wound"), &w);
            let row = oc.wound(w.total).clone();
            report.chart("OFFICER WOUNDS", "1D6", w.total.to_string(), format!("{:?}", row.wound), &row.source);
            let turn = self.turn;
            if let Some(mut o) = self.world.get_mut::<super::game::OrLeader>(l) {
                o.wound = Some(format!("{:?}", row.wound));
                match row.turns {
                    Some(n) => o.no_benefit_until = turn + n,
                    None => o.out = true,
                }
            }
            report.change("22", match row.turns {
                Some(n) => format!("{name}: a {:?} wound, no benefits for {n} turn(s)", row.wound),
                None => format!("{name}: {:?}, out of the battle", row.wound),
            });
            hit_at.push((at, format!("{name} hit")));
        }
        // OR22 c: units within 6" of an officer hit check morale.
        let within = oc.morale_within.value;
        let mut checked = Vec::new();
        for (at, what) in hit_at {
            for e in self.units_in_order() {
                if checked.contains(&e) || self.or(e).is_none_or(|o| o.morale == Morale::Routed) {
                    continue;
                }
                let Some(unit) = self.unit(e) else { continue };
                if crate::scenario::spawn::unit_footprints(&self.world, unit).iter().any(|f| crate::table::cover::distance_to_stand(f, at) <= within + EPS) {
                    checked.push(e);
                    self.morale_check(e, Vec::new(), &what, false, report);
                }
            }
        }
        if report.dice.is_empty() {
            report.note("22", "no officer is within 12\" of the enemy");
        }
    }

    // ---- step 10 ----

    fn step_10(&mut self, report: &mut Report) {
        for e in self.units.clone() {
            self.mark(e, |o| {
                o.order = None;
                o.target = None;
                o.fired = false;
                o.fired_first_at.clear();
                o.volleyed_at.clear();
                o.spent = 0.0;
                o.moved = false;
                o.formed = false;
                o.meleed = false;
            });
        }
        for l in self.leaders.clone() {
            if let Some(mut o) = self.world.get_mut::<super::game::OrLeader>(l) {
                o.moved = false;
            }
        }
        self.wagons_moved.clear();
        self.declared.clear();
        let ended = self.scenario.turn_limit.is_some_and(|limit| self.turn >= limit) || self.sides.iter().any(|&s| self.live_units().all(|(_, u)| u.side != s));
        if ended {
            self.over = true;
            let summary = self.summary().expect("over");
            report.outcome = format!("the game is over after turn {}: {}", self.turn, summary.result.clone().unwrap_or_default());
            report.change("23", report.outcome.clone());
            report.summary = Some(summary);
            return;
        }
        self.turn += 1;
        self.phase = Phase::Orders(0);
        report.outcome = format!("turn {} begins: {} writes its orders", self.turn, self.side_name(self.sides[0]));
        report.change("5", report.outcome.clone());
    }

    // ---- the end ----

    /// OR23 (reconstructed): at the turn limit, the side holding more objectives wins; else the
    /// side that lost fewer figures (at 1:25).
    pub fn summary(&self) -> Option<Summary> {
        if !self.over {
            return None;
        }
        let s = self.situation();
        let holds = |side: usize, at: bevy::math::Vec2, radius: f32| {
            let near = |u: usize| s.unit(u).stands.iter().any(|st| crate::table::cover::distance_to_stand(&st.footprint, at) <= radius + EPS);
            (0..s.units().len()).any(|u| s.unit(u).side == side && near(u)) && !(0..s.units().len()).any(|u| s.unit(u).side != side && near(u))
        };
        let sides: Vec<SideSummary> = self
            .scenario
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| {
                let start = self.initial_strength.get(i).copied().unwrap_or(0);
                let now: u32 = self.live_units().filter(|(_, u)| u.side == i).filter_map(|(e, _)| self.or(e)).map(|o| o.figures).sum();
                let objectives: Vec<&crate::scenario::model::Objective> = self.scenario.objectives.iter().filter(|o| holds(i, o.at.into(), o.radius)).collect();
                SideSummary {
                    side: side.name.clone(),
                    figures_lost: start.saturating_sub(now),
                    units_broken: self.gone.iter().filter(|g| g.1 == i).map(|g| g.0.clone()).collect(),
                    units_off_table: Vec::new(),
                    objectives_held: objectives.iter().map(|o| o.name.clone()).collect(),
                    points: objectives.iter().map(|o| o.points).sum(),
                }
            })
            .collect();
        let unheld = self.scenario.objectives.iter().filter(|o| !sides.iter().any(|s| s.objectives_held.contains(&o.name))).map(|o| o.name.clone()).collect();
        let mut summary = Summary { turns_played: self.turn, sides, objectives_unheld: unheld, winner: None, result: None };
        let key = |x: &SideSummary| (x.points, std::cmp::Reverse(x.figures_lost));
        let best = summary.sides.iter().map(key).max();
        let top: Vec<usize> = (0..summary.sides.len()).filter(|&i| Some(key(&summary.sides[i])) == best).collect();
        summary.winner = (top.len() == 1).then(|| top[0]);
        summary.result = Some(match summary.winner {
            Some(w) => format!("{} wins: {} objective points, {} figures lost (OR23)", summary.sides[w].side, summary.sides[w].points, summary.sides[w].figures_lost),
            None => "a draw: equal objectives and losses (OR23)".into(),
        });
        Some(summary)
    }
}
