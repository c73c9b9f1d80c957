//! Applying *Revolution*'s actions: each runs its check first (and a refusal changes nothing),
//! then throws its dice into the `Report`: the tosses of SG14 and SG17, the combat by category
//! (SG21–SG26) with the morale ladder (SG27–SG33), the leader's re-roll (SG35), the rallies
//! (SG36) and the end of the game (SG37).

use bevy::ecs::entity::Entity;
use bevy::math::Vec2;

use super::game::{ACCEPT, Attack, Category, Done, Game, Lost, Pending, Placed, Ride, SG, Sg, SgAction, Step, Toss};
use crate::rules::action::Action;
use crate::rules::dice::DiceKind;
use crate::rules::report::{Refusal, Report, SideSummary, Summary};
use crate::scenario::model::{Formation, RevolutionKind};
use crate::scenario::spawn::{self, Commander, Stand, Unit};
use crate::table::footprint::{Footprint, vector_bearing};
use crate::table::words::{formation as formation_name, inches};

impl Game {
    /// Apply an action: its report, or the refusal of its check (and then nothing changed).
    pub fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        let report = match &action {
            Action::Move { unit, steps } => {
                let toss = self.check_move(unit, steps)?;
                let mut r = self.report(&action, format!("{unit} moves (SG11–SG16)"));
                self.tossed_move(&mut r, toss, "14", Done::Moved);
                r
            }
            Action::ChangeFormation { unit, formation } => {
                let toss = self.check_formation(unit, *formation)?;
                let e = toss.placed.as_ref().expect("a formation change places").unit;
                let reman = self.unit(e).is_some_and(|u| u.formation == *formation);
                let title = if reman { format!("{unit}'s crew tries to re-man the gun (SG26)") } else { format!("{unit} tries to form {} (SG17)", formation_name(*formation)) };
                let mut r = self.report(&action, title);
                if self.tossed(&mut r, &toss, "17", &format!("{unit}'s formation change")) {
                    self.place(toss.placed.as_ref().expect("placed"));
                    self.mark(e, |m| {
                        m.done = Done::Formed;
                        m.moved = true;
                        m.crew_off = false;
                    });
                    r.outcome = if reman { format!("{unit}'s crew is back at the gun; it may not fire this turn (SG26)") } else { format!("{unit} is in {}; it may still move at its normal speed (SG17)", formation_name(*formation)) };
                } else {
                    self.mark(e, |m| m.done = Done::Failed);
                    r.outcome = format!("{unit} fails: no change, no movement (SG17)");
                }
                r.change("17", r.outcome.clone());
                r
            }
            Action::Revolution(SgAction::Withdraw { unit, inches: d }) => {
                let (toss, melee) = self.check_withdraw(unit, *d)?;
                let mut r = self.report(&action, format!("{unit} withdraws {} straight back (SG13{})", inches(*d), if melee { ", SG17, SG20" } else { "" }));
                if melee {
                    self.tossed_move(&mut r, toss, "17", Done::Withdrew);
                } else {
                    let placed = toss.placed.expect("placed");
                    self.finish_move(&mut r, placed, Done::Withdrew);
                }
                r
            }
            Action::Charge { unit, target } => {
                let charge = self.check_charge(unit, target)?;
                let mut r = self.report(&action, format!("{unit} charges {target} (SG17)"));
                let (a, t) = (charge.attacker, charge.target);
                if !self.tossed(&mut r, &charge.toss, "17", &format!("{unit}'s charge")) {
                    self.mark(a, |m| m.done = Done::Failed);
                    r.outcome = format!("{unit}'s charge fails: no movement (SG17)");
                    r.change("17", r.outcome.clone());
                    return self.record(action, r);
                }
                let uphill = charge.path.as_ref().is_some_and(|p| p.climbed_slope);
                if let Some(placed) = &charge.toss.placed {
                    self.place(placed);
                    r.note("19", format!("{unit} closes {} to contact", inches(placed.inches)));
                    if !placed.obstacles.is_empty() {
                        r.note("14", format!("on the way: {} (the charge's toss covers it)", placed.obstacles.join(", ")));
                    }
                }
                self.mark(a, |m| {
                    m.done = Done::Charged;
                    m.moved = true;
                    m.attacked = true;
                });
                let first_round = charge.path.is_some();
                self.attacks.push(Attack { attacker: a, target: t, category: Category::Melee, first_round, uphill });
                r.outcome = if first_round { format!("{unit} is in contact with {target}: it attacks in the melee combat (SG21)") } else { format!("{unit} fights on against {target} in the melee combat (SG34)") };
                r.change("17", r.outcome.clone());
                r
            }
            Action::Fire { unit, target } => {
                let category = self.check_fire(unit, target)?;
                let (a, t) = (self.find(unit)?, self.find(target)?);
                self.attacks.push(Attack { attacker: a, target: t, category, first_round: false, uphill: false });
                self.mark(a, |m| m.attacked = true);
                let n = self.attacks.iter().filter(|x| x.target == t && x.category == category).count();
                let mut r = self.report(&action, format!("{unit} attacks {target} ({}, SG21)", category.name()));
                r.outcome = format!("{target} has {n} attacker(s) in the {} combat; it tosses when the step ends (SG22)", category.name());
                r.change("22", r.outcome.clone());
                r
            }
            Action::MoveLeader { leader, to } => {
                let (l, d) = self.check_leader(leader, *to)?;
                let mut r = self.report(&action, format!("{leader} rides {} (SG16)", inches(d)));
                self.ride(l, *to);
                r.outcome = format!("{leader} rides {}", inches(d));
                r
            }
            Action::JoinUnit { leader, unit } => {
                let (l, at) = self.check_join(leader, unit)?;
                let mut r = self.report(&action, format!("{leader} joins {unit} (SG36)"));
                self.ride(l, at);
                r.outcome = format!("{leader} is with {unit}");
                r
            }
            Action::Answer { prompt, option } => {
                let leader = self.check_answer(*prompt, *option)?;
                let p = self.pending.take().expect("checked");
                let name = self.name(p.target);
                let mut r = self.report(&action, format!("{name}'s failed morale toss (SG35)"));
                match leader {
                    None => {
                        r.note("35", format!("{name}'s failure stands: no leader re-rolls (answer {ACCEPT})"));
                        self.fail(&mut r, p.target, p.category);
                    }
                    Some(l) => {
                        let who = self.name(l);
                        let roll = self.dice.roll(DiceKind::D6);
                        r.die("35", format!("{who} re-rolls {name}'s morale toss ({} or less fails)", self.rates.tosses.morale_fails_at_most.get()), &roll);
                        if p.modifier != 0 {
                            r.modifier("35", "the same modifiers as the first toss", p.modifier);
                        }
                        if roll.total + p.modifier <= self.rates.tosses.morale_fails_at_most.get() {
                            r.change("35", format!("the re-roll fails: {who} is lost, and {name} fails"));
                            self.lose_leader(l);
                            self.fail(&mut r, p.target, p.category);
                        } else {
                            r.change("35", format!("{who} steadies {name}: it holds"));
                        }
                    }
                }
                self.resolve_queue(&mut r);
                r
            }
            Action::Next => {
                self.check_next()?;
                self.next(&action)
            }
            other => return self.check(other).and_then(|()| Err(Refusal::by(SG.cite("10"), format!("{other}: not an order of Revolution")))),
        };
        self.record(action, report)
    }

    fn record(&mut self, action: Action, report: Report) -> Result<Report, Refusal> {
        self.actions.push(action);
        self.reports.push(report.clone());
        Ok(report)
    }

    pub(super) fn report(&self, action: &Action, title: String) -> Report {
        Report::new(SG, self.turn, action.clone(), title)
    }

    pub(super) fn mark(&mut self, e: Entity, f: impl FnOnce(&mut Sg)) {
        if let Some(mut m) = self.world.get_mut::<Sg>(e) {
            f(&mut m);
        }
    }

    /// Throws a toss of SG14/SG17 (fails on `fails_at_most` or less after modifiers): true on success.
    fn tossed(&mut self, r: &mut Report, toss: &Toss, rule: &str, what: &str) -> bool {
        let at_most = self.rates.tosses.fails_at_most.get();
        let roll = self.dice.roll(DiceKind::D6);
        r.die(rule, format!("{what} ({at_most} or less fails)"), &roll);
        for (rule, name, value) in &toss.modifiers {
            r.modifier(rule, name.clone(), *value);
        }
        roll.total + toss.total() > at_most
    }

    /// A move that tosses first when it must (obstacles SG14, a withdrawal from melee SG17).
    fn tossed_move(&mut self, r: &mut Report, toss: Toss, rule: &str, done: Done) {
        let placed = toss.placed.clone().expect("a move places");
        let must = rule == "17" || !placed.obstacles.is_empty();
        if must {
            let what = if rule == "17" { format!("{}'s withdrawal from the melee", self.name(placed.unit)) } else { format!("{}: {}", self.name(placed.unit), placed.obstacles.join(", ")) };
            if !self.tossed(r, &toss, rule, &what) {
                self.mark(placed.unit, |m| m.done = Done::Failed);
                r.outcome = format!("{} fails the toss: no movement ({})", self.name(placed.unit), SG.cite(rule));
                r.change(rule, r.outcome.clone());
                return;
            }
        }
        self.finish_move(r, placed, done);
    }

    fn finish_move(&mut self, r: &mut Report, placed: Placed, done: Done) {
        let name = self.name(placed.unit);
        if placed.off_table {
            self.remove(placed.unit, "it moved off the table (SG33)");
            r.outcome = format!("{name} leaves the table and is lost (SG33)");
            r.change("33", r.outcome.clone());
            return;
        }
        self.place(&placed);
        self.mark(placed.unit, |m| {
            m.done = done;
            m.moved = true;
        });
        r.outcome = format!("{name} moves {}", inches(placed.inches));
        r.change("16", r.outcome.clone());
    }

    /// The unit's stands where an order put them.
    pub(super) fn place(&mut self, placed: &Placed) {
        let Some(mut unit) = self.world.get_mut::<Unit>(placed.unit) else { return };
        unit.formation = placed.formation;
        let stands = unit.stands.clone();
        for (s, f) in stands.into_iter().zip(&placed.stands) {
            if let Some(mut fp) = self.world.get_mut::<Footprint>(s) {
                *fp = *f;
            }
        }
    }

    fn ride(&mut self, l: Entity, to: Vec2) {
        if let Some(mut c) = self.world.get_mut::<Commander>(l) {
            c.at = to;
        }
        if let Some(mut r) = self.world.get_mut::<Ride>(l) {
            r.moved = true;
        }
    }

    fn lose_leader(&mut self, l: Entity) {
        if let Some(c) = self.world.get::<Commander>(l) {
            self.leaders_lost.push((c.name.clone(), c.side));
        }
        self.world.despawn(l);
    }

    /// A unit gone for good (SG26, SG32, SG33): its stands and it leave the world.
    pub(super) fn remove(&mut self, e: Entity, why: &str) {
        let Some(u) = self.unit(e).cloned() else { return };
        self.lost.push(Lost { name: u.name.clone(), side: u.side, stands: u.stands.len(), why: why.into() });
        for s in u.stands {
            self.world.despawn(s);
        }
        self.world.despawn(e);
        self.attacks.retain(|a| a.attacker != e && a.target != e);
        self.queue.retain(|&t| t != e);
    }

    // ---- combat ----

    /// SG22: every target of the category tosses, in the order first attacked; a failure a
    /// leader may re-roll waits for its owner's answer (SG35).
    fn resolve_queue(&mut self, r: &mut Report) {
        let Step::Combat(category) = self.step else { return };
        while self.pending.is_none() {
            let Some(&t) = self.queue.first() else { break };
            self.queue.remove(0);
            if self.unit(t).is_none() {
                continue;
            }
            self.morale(r, t, category);
        }
        if self.pending.is_none() && self.queue.is_empty() {
            self.after_category(r, category);
        }
    }

    /// SG22, SG23, SG32: one target's toss.
    fn morale(&mut self, r: &mut Report, t: Entity, category: Category) {
        let toss = self.morale_toss(t, category, None);
        let name = self.name(t);
        let attackers: Vec<String> = toss.attackers.iter().map(|&a| self.name(a)).collect();
        if toss.router {
            r.change("32", format!("{name} is routing and is attacked by {}: it is removed", attackers.join(", ")));
            self.remove(t, "a router attacked (SG32)");
            return;
        }
        if category == Category::Melee && self.sg(t).is_some_and(|x| x.crew_off) {
            r.change("26", format!("{name}'s gun stands unmanned: {} take it", attackers.join(", ")));
            self.remove(t, "its unmanned gun was taken (SG26)");
            return;
        }
        let at_most = self.rates.tosses.morale_fails_at_most.get();
        let roll = self.dice.roll(DiceKind::D6);
        r.die("22", format!("{name}'s morale toss against {} ({}; {at_most} or less fails)", attackers.join(", "), category.name()), &roll);
        for (rule, what, value) in &toss.modifiers {
            r.modifier(rule, format!("{name}: {what}"), *value);
        }
        let total = roll.total + toss.total();
        if total > at_most {
            r.change("22", format!("{name} holds ({total})"));
            return;
        }
        let side = self.unit(t).map_or(0, |u| u.side);
        let leaders = self.leaders_near(t, side, self.rates.ranges.leader_reroll.get());
        if leaders.is_empty() {
            r.change("22", format!("{name} fails its morale ({total})"));
            self.fail(r, t, category);
            return;
        }
        self.asked += 1;
        let names: Vec<String> = leaders.iter().map(|&l| self.name(l)).collect();
        r.note("35", format!("{name} fails ({total}); {} within {}: {} may re-roll, risking him", names.join(", "), inches(self.rates.ranges.leader_reroll.get()), self.side_name(side)));
        self.pending = Some(Pending { id: self.asked, target: t, category, modifier: toss.total(), leaders });
    }

    /// SG26–SG30: a failed morale toss down the ladder.
    pub(super) fn fail(&mut self, r: &mut Report, e: Entity, category: Category) {
        let (Some(u), Some(sg)) = (self.unit(e).cloned(), self.sg(e)) else { return };
        let name = u.name.clone();
        let words = self.failure_words(e, category);
        match (sg.kind, u.formation) {
            (RevolutionKind::Artillery, _) if category == Category::Melee => {
                self.remove(e, "its gun was lost in melee (SG26)");
            }
            (RevolutionKind::Artillery, _) => self.mark(e, |m| m.crew_off = true),
            (_, Formation::Wedge) => self.lose_stand(e, Formation::Column),
            (_, Formation::ReinforcedLine) => self.lose_stand(e, Formation::Line),
            _ if sg.disordered => {
                self.rout(r, e, self.rates.moves.rout.get());
                return;
            }
            (_, f) => {
                self.mark(e, |m| m.disordered = true);
                let s = self.situation();
                // SG5: gaps open between the stands where there is room; else they keep their places.
                if let Ok(stands) = self.relaid(&s, e, f, true) {
                    self.place(&Placed { unit: e, stands, formation: f, inches: 0.0, off_table: false, obstacles: Vec::new() });
                }
            }
        }
        r.change("28", format!("{name} {words}"));
    }

    /// SG27, SG28: the rear stand is lost; the rest form `to` where they stand.
    fn lose_stand(&mut self, e: Entity, to: Formation) {
        let Some(mut stands) = self.unit(e).map(|u| u.stands.clone()) else { return };
        let Some(last) = stands.pop() else { return };
        self.world.despawn(last);
        {
            let mut u = self.world.get_mut::<Unit>(e).expect("read above");
            u.stands = stands.clone();
            u.figures = 2 * stands.len() as u32;
            u.formation = to;
        }
        let s = self.situation();
        if let Ok(laid) = self.relaid(&s, e, to, false) {
            self.place(&Placed { unit: e, stands: laid, formation: to, inches: 0.0, off_table: false, obstacles: Vec::new() });
        }
        for (i, &st) in stands.iter().enumerate() {
            if let Some(mut s) = self.world.get_mut::<Stand>(st) {
                s.index = i;
            }
        }
    }

    /// SG28, SG33, SG36: the unit turns its back and runs `d` inches from the nearest enemy,
    /// carried on past anyone in the way until it has room; off the table it is lost.
    fn rout(&mut self, r: &mut Report, e: Entity, d: f32) {
        let name = self.name(e);
        self.mark(e, |m| {
            m.routing = true;
            m.disordered = true;
        });
        let s = self.situation();
        let mut extra = 0.0;
        loop {
            let Some(path) = self.rout_path(&s, e, d + extra) else { return };
            if path.off_table {
                self.remove(e, "it routed off the table (SG33)");
                r.change("33", format!("{name} routs off the table and is lost"));
                return;
            }
            // Backs to the enemy: each stand turns about.
            let stands: Vec<Footprint> = path.stands.iter().map(|f| Footprint { facing: (f.facing + 180.0).rem_euclid(360.0), ..*f }).collect();
            if self.fits(&s, &name, &stands).is_ok() {
                let formation = self.unit(e).map_or(Formation::Line, |u| u.formation);
                self.place(&Placed { unit: e, stands, formation, inches: d + extra, off_table: false, obstacles: Vec::new() });
                r.change("28", format!("{name} routs {}", inches(d + extra)));
                return;
            }
            extra += 2.0;
            if extra > d {
                self.remove(e, "it routed and found no room to stop (SG28)");
                r.change("28", format!("{name} routs and finds no room to stop: it disperses"));
                return;
            }
        }
    }

    /// After a category's tosses: the next category, or the end of the player-turn.
    fn after_category(&mut self, r: &mut Report, category: Category) {
        match Category::ALL.iter().position(|&c| c == category).and_then(|i| Category::ALL.get(i + 1)) {
            Some(&next) => {
                self.step = Step::Combat(next);
                r.change("21", format!("the {} combat", next.name()));
            }
            None => self.end_player_turn(r),
        }
    }

    /// SG9, SG10: Next closes the activation, or resolves the category being fought.
    fn next(&mut self, action: &Action) -> Report {
        match self.step {
            Step::Activation => {
                let mut r = self.report(action, format!("{}'s activation ends (SG10)", self.side_name(self.phasing())));
                self.step = Step::Combat(Category::Artillery);
                r.outcome = "the artillery combat (SG21)".into();
                r.change("21", r.outcome.clone());
                r
            }
            Step::Combat(c) => {
                let mut r = self.report(action, format!("the {} combat is resolved (SG21, SG22)", c.name()));
                let mut targets: Vec<Entity> = Vec::new();
                for a in self.attacks.iter().filter(|a| a.category == c) {
                    if !targets.contains(&a.target) {
                        targets.push(a.target);
                    }
                }
                if targets.is_empty() {
                    r.note("21", format!("no {} attacks", c.name()));
                }
                self.queue = targets;
                self.resolve_queue(&mut r);
                r.outcome = match &self.pending {
                    Some(p) => format!("{} must answer for {} (SG35)", self.side_name(self.unit(p.target).map_or(0, |u| u.side)), self.name(p.target)),
                    None => self.headline_now(),
                };
                r
            }
        }
    }

    pub(super) fn headline_now(&self) -> String {
        if self.over {
            return "the game is over (SG37)".into();
        }
        format!("turn {}: {}'s {}", self.turn, self.side_name(self.phasing()), self.step_name())
    }

    /// SG9, SG36, SG37: the next side's player-turn (its routers try to rally first), the next
    /// turn, or the end.
    fn end_player_turn(&mut self, r: &mut Report) {
        self.attacks.clear();
        for &e in &self.units.clone() {
            self.mark(e, |m| {
                m.done = Done::Nothing;
                m.moved = false;
                m.attacked = false;
            });
        }
        for &l in &self.leaders.clone() {
            if let Some(mut ride) = self.world.get_mut::<Ride>(l) {
                ride.moved = false;
            }
        }
        self.step = Step::Activation;
        let beaten = self.beaten_side();
        self.phase += 1;
        if self.phase >= self.order.len() {
            self.phase = 0;
            if self.turn >= self.turn_limit() || beaten.is_some() {
                self.finish(r);
                return;
            }
            self.turn += 1;
            r.change("9", format!("turn {} begins", self.turn));
        } else if beaten.is_some() {
            self.finish(r);
            return;
        }
        r.change("9", format!("{}'s player-turn", self.side_name(self.phasing())));
        self.rallies(r);
    }

    /// SG36: each router of the phasing side rallies on a 6 (5 or 6 with a leader with it) into a
    /// disordered column facing the enemy, or routs 16" more.
    fn rallies(&mut self, r: &mut Report) {
        let side = self.phasing();
        let routers: Vec<Entity> = self.live_units().filter(|(e, u)| u.side == side && self.sg(*e).is_some_and(|s| s.routing)).map(|(e, _)| e).collect();
        for e in routers {
            let name = self.name(e);
            let with = self.leaders_near(e, side, self.rates.ranges.leader_with_unit.get());
            let needs = if with.is_empty() { self.rates.tosses.rally.get() } else { self.rates.tosses.rally_with_leader.get() };
            let roll = self.dice.roll(DiceKind::D6);
            let leader = with.first().map(|&l| format!(", {} with it", self.name(l))).unwrap_or_default();
            r.die("36", format!("{name} rallies ({needs} or more{leader})"), &roll);
            if roll.total >= needs {
                self.rally(e);
                r.change("36", format!("{name} rallies: a disordered column facing the enemy"));
            } else {
                self.rout(r, e, self.rates.moves.rout.get());
            }
        }
    }

    /// SG36: a disordered column facing the nearest enemy, on the router's centre.
    fn rally(&mut self, e: Entity) {
        self.mark(e, |m| {
            m.routing = false;
            m.disordered = true;
        });
        let s = self.situation();
        let Some(u) = self.unit(e) else { return };
        let stands = spawn::unit_footprints(&self.world, u);
        let centre = stands.iter().map(|f| f.centre).sum::<Vec2>() / stands.len().max(1) as f32;
        let enemy = self.live_units().filter(|(_, o)| o.side != u.side).flat_map(|(_, o)| spawn::unit_footprints(&self.world, o)).map(|f| f.centre).min_by(|a, b| a.distance(centre).total_cmp(&b.distance(centre)));
        let facing = enemy.map_or(stands.first().map_or(0.0, |f| f.facing + 180.0), |p| vector_bearing(p - centre));
        let (kind, depth) = (self.sg(e).map_or(RevolutionKind::Line, |s| s.kind), stands.first().map_or(0.75, |f| f.depth));
        let formation = if kind == RevolutionKind::Artillery { u.formation } else { Formation::Column };
        let laid = super::moves::lay(kind, formation, true, stands.len(), centre, facing, depth, self.rates);
        let name = u.name.clone();
        let placed = if self.fits(&s, &name, &laid).is_ok() { laid } else { stands.iter().map(|f| Footprint { facing: facing.rem_euclid(360.0), ..*f }).collect() };
        self.place(&Placed { unit: e, stands: placed, formation, inches: 0.0, off_table: false, obstacles: Vec::new() });
    }

    // ---- the end (SG37) ----

    /// A side with nothing left on the table but routers is beaten (SG37, reconstructed).
    fn beaten_side(&self) -> Option<usize> {
        (0..self.scenario.sides.len()).find(|&side| !self.live_units().any(|(e, u)| u.side == side && self.sg(e).is_some_and(|s| !s.routing)))
    }

    fn finish(&mut self, r: &mut Report) {
        self.over = true;
        let summary = self.summary().expect("over");
        r.outcome = format!("the game is over after turn {}: {}", self.turn, summary.result.clone().unwrap_or_default());
        r.change("37", r.outcome.clone());
        r.summary = Some(summary);
    }

    /// SG37 (reconstructed): a side broken (nothing but routers left) loses; else the objectives'
    /// points (held by a side with a steady unit within the radius and no enemy there), then the
    /// fewer stands lost.
    pub fn summary(&self) -> Option<Summary> {
        if !self.over {
            return None;
        }
        let held_by = |o: &crate::scenario::model::Objective| {
            let at = Vec2::from(o.at);
            let near: Vec<usize> = self
                .live_units()
                .filter(|(e, _)| self.sg(*e).is_some_and(|s| !s.routing))
                .filter(|(_, u)| spawn::unit_footprints(&self.world, u).iter().any(|f| crate::table::cover::distance_to_stand(f, at) <= o.radius))
                .map(|(_, u)| u.side)
                .collect();
            let first = *near.first()?;
            near.iter().all(|&s| s == first).then_some(first)
        };
        let sides: Vec<SideSummary> = self
            .scenario
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| {
                let start: u32 = side.brigades.iter().flat_map(|b| &b.units).map(|u| if u.revolution_profile().kind == RevolutionKind::Artillery { 2 } else { 6 }).sum();
                let now: u32 = self.live_units().filter(|(_, u)| u.side == i).map(|(_, u)| u.figures).sum();
                let held: Vec<&crate::scenario::model::Objective> = self.scenario.objectives.iter().filter(|o| held_by(o) == Some(i)).collect();
                SideSummary {
                    side: side.name.clone(),
                    figures_lost: start.saturating_sub(now),
                    units_broken: self.lost.iter().filter(|l| l.side == i).map(|l| l.name.clone()).collect(),
                    units_off_table: self.lost.iter().filter(|l| l.side == i && l.why.contains("off the table")).map(|l| l.name.clone()).collect(),
                    objectives_held: held.iter().map(|o| o.name.clone()).collect(),
                    points: held.iter().map(|o| o.points).sum(),
                }
            })
            .collect();
        let unheld = self.scenario.objectives.iter().filter(|o| held_by(o).is_none()).map(|o| o.name.clone()).collect();
        let mut summary = Summary { turns_played: self.turn, sides, objectives_unheld: unheld, winner: None, result: None };
        let (winner, why) = match self.beaten_side() {
            Some(b) if summary.sides.len() == 2 => (Some(1 - b), format!("{} has nothing left but routers", summary.sides[b].side)),
            _ => {
                let best = summary.sides.iter().map(|s| (s.points, std::cmp::Reverse(s.figures_lost))).max();
                let top: Vec<usize> = (0..summary.sides.len()).filter(|&i| Some((summary.sides[i].points, std::cmp::Reverse(summary.sides[i].figures_lost))) == best).collect();
                match top[..] {
                    [w] => (Some(w), format!("{} VP, {} figures lost", summary.sides[w].points, summary.sides[w].figures_lost)),
                    _ => (None, "even in objectives and losses".into()),
                }
            }
        };
        summary.result = Some(match winner {
            Some(w) => format!("{} wins: {why} (SG37)", summary.sides[w].side),
            None => format!("a draw: {why} (SG37)"),
        });
        summary.winner = winner;
        Some(summary)
    }
}
