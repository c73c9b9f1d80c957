//! Fire (PK12–PK17), melee (PK18, PK19) and morale (PK20–PK24): who rolls how many d10, on
//! which chart, and what the hits and failures do. The checks (`check_fire`, `fire_pool`,
//! `melee_pool`, `morale_pool`) are the ones the previews and the automatic player call.

use bevy::ecs::entity::Entity;

use super::card::{self, CHARTS};
use super::game::{Engagement, Game, PK, Status, Step, refuse};
use super::moves::{COVER, FIRE, default_range};
use super::odds::{self, Test, dice_for, judge};
use crate::rules::action::Action;
use crate::rules::dice::{Dice, DiceKind, Roll};
use crate::rules::report::{Refusal, Report};
use crate::scenario::model::{Arm, Cover, Formation};
use crate::table::contact;
use crate::table::cover::{distance_to_stand, unit_cover};
use crate::table::fire::{FireOptions, fire_geometry};
use crate::table::geom::point_polyline_distance;
use crate::table::situation::{Outline, Situation};
use crate::table::words::inches;

/// `n` d10 read 1–10 (PK12 reading), faces as rolled; the total is their sum until the caller
/// counts what the faces did (hits, or failed dice).
pub fn d10s(dice: &mut Dice, n: u32) -> Roll {
    let faces: Vec<u8> = (0..n).map(|_| dice.d10().faces[0] + 1).collect();
    let total = faces.iter().map(|&f| f as i32).sum();
    Roll { kind: DiceKind::D10, faces, total }
}

/// PK20: how many of the two lowest faces fail against `value`.
fn fails(faces: &[u8], value: u8) -> i32 {
    match judge(faces, value) {
        Test::Pass => 0,
        Test::OneFails => 1,
        Test::BothFail => 2,
    }
}

/// A pool of d10 on one chart: what the previews show and the engine rolls.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    pub figures: u32,
    pub dice: u32,
    /// The chart (0 = A … 4 = E) and the number read on it (0 for "~").
    pub chart: usize,
    pub value: u8,
    /// Why that chart and those dice: words and rule.
    pub why: Vec<(String, &'static str)>,
    /// PK16: the optional skirmisher fire, read on no chart (a d10 a figure, 2 or less).
    pub skirmish: bool,
}

/// PK16: the optional skirmisher fire: a d10 a figure, a hit on 2 or less, 18", for groups of
/// this many figures or fewer.
pub const SKIRMISH_FIRE_RANGE: f32 = 18.0;
pub const SKIRMISH_FIRE_HIT: u8 = 2;
pub const SKIRMISH_FIRE_MOST: u32 = 6;

/// A shot PK12–PK16 allow.
#[derive(Clone, Debug, PartialEq)]
pub struct Shot {
    pub firer: Entity,
    pub target: Entity,
    pub range: f32,
    pub pool: Pool,
}

/// PK21: the morale chart by cumulative hits: A 1–4, B 5–7, C 8–10, D 11–12, E 13+.
pub fn chart_by_hits(hits: u32) -> usize {
    match hits {
        0..=4 => 0,
        5..=7 => 1,
        8..=10 => 2,
        11..=12 => 3,
        _ => 4,
    }
}

/// Which stands fire from two ranks (PK12): a march column its first two, an attack column its
/// first four; a line, skirmish line, square or battery all of them.
fn two_ranks(formation: Formation, stand: usize) -> bool {
    match formation {
        Formation::Column => stand < 2,
        Formation::AttackColumn => stand < 4,
        _ => true,
    }
}

impl Game {
    /// PK12–PK15, PK26: a unit of the firing side that has not fired, is not routing or in
    /// melee, fires at an enemy some of whose stands lie within range in the 45° arcs of its
    /// bases, in sight; a d10 per 4 figures from two ranks (guns 2 a gunner short, 1 long),
    /// on the target's chart, a shaken firer a chart worse.
    pub fn check_fire(&self, name: &str, target: &str) -> Result<Shot, Refusal> {
        if self.current() != Step::Fire(super::game::Team::A) && self.current() != Step::Fire(super::game::Team::B) {
            self.check_next()?;
            return refuse("1", format!("fire is an order of the fire steps; this is the {} step", super::game::step_name(self.current())));
        }
        let e = self.find(name)?;
        self.check_next()?;
        let side = self.unit(e).map_or(0, |u| u.side);
        if Some(side) != self.acting_side() {
            return refuse("3", format!("{name} is {}'s: this fire step is {}'s", self.side_name(side), self.side_name(self.acting_side().unwrap_or(0))));
        }
        let pk = self.pk(e).expect("every unit has a state");
        if pk.fired {
            return refuse("12", format!("{name} has fired this turn"));
        }
        if pk.status == Status::Routed {
            return refuse("10", format!("{name} is routing: routers do not fire"));
        }
        if self.engaged(e) {
            return refuse("19", format!("{name} is in melee"));
        }
        if let Some(sq) = self.shelter_of(e) {
            return refuse("4", format!("{name}'s crews shelter in {}'s square: they fire once they come out", self.name(sq)));
        }
        let t = self.find(target)?;
        if self.unit(t).is_some_and(|u| u.side == side) {
            return refuse("12", format!("{target} is a friend: fire is at the enemy"));
        }
        if self.engaged(t) {
            return refuse("19", format!("{target} is in melee: no fire into a melee (our reading)"));
        }
        if let Some(sq) = self.shelter_of(t) {
            return refuse("4", format!("{target}'s crews shelter in {}'s square: fire at the square", self.name(sq)));
        }
        let s = self.situation();
        let (Ok(a), Ok(b)) = (s.find(name), s.find(target)) else { return Err(Refusal::unruled(PK, "no stands on the table")) };
        let pool = self.fire_pool(s, e, a, b)?;
        let range = crate::table::range::unit_distance(s, a, b);
        Ok(Shot { firer: e, target: t, range, pool })
    }

    /// The firer's pool against a target (indices of `s`), or why none of its bases bears.
    pub fn fire_pool(&self, s: &Situation, e: Entity, a: usize, b: usize) -> Result<Pool, Refusal> {
        let pk = self.pk(e).expect("a unit");
        let row = pk.row();
        let firer = s.unit(a);
        if firer.formation == Formation::Limbered {
            return refuse("13", format!("{} is limbered: guns fire unlimbered", firer.name));
        }
        let skirmish = self.skirmish_fire(e);
        let reach = self.fire_reach(e);
        let extra = reach - default_range(firer).unwrap_or(reach);
        let geom = fire_geometry(s, a, b, FireOptions { extra_range: extra, ..FireOptions::new(&FIRE) });
        let firing: Vec<_> = geom.firing().filter(|f| two_ranks(firer.formation, f.stand)).collect();
        if firing.is_empty() {
            let why = if !geom.in_arc {
                "outside the 45° arcs of its bases".to_string()
            } else if !geom.stands.iter().any(|f| f.bears) {
                format!("beyond its range of {}", inches(reach))
            } else {
                format!("out of sight ({})", geom.blocked_by().join(", "))
            };
            return refuse("12", format!("{} is {why}", s.unit(b).name));
        }
        let figures: u32 = firing.iter().map(|f| f.figures).sum();
        let nearest = firing.iter().map(|f| f.range).fold(f32::INFINITY, f32::min);
        if skirmish {
            let why = vec![
                (format!("{} skirmishers bear within {}", figures, inches(reach)), "16"),
                (format!("the optional skirmisher fire: a d10 a figure, {SKIRMISH_FIRE_HIT} or less hits, whatever the target's chart"), "16"),
            ];
            return Ok(Pool { figures, dice: figures, chart: 0, value: SKIRMISH_FIRE_HIT, why, skirmish: true });
        }
        let mut why = vec![(format!("{} bases bear ({} figures) from two ranks", firing.len(), figures), "12")];
        let (dice, numbers) = if row.is_gun() {
            if nearest <= row.range as f32 + crate::table::geom::EPS {
                why.push((format!("short range ({} of {}): 2 d10 a gunner", inches(nearest), inches(row.range as f32)), "13"));
                (2 * figures, &row.fire)
            } else {
                why.push((format!("long range ({} of {}): 1 d10 a gunner", inches(nearest), inches(reach)), "13"));
                (figures, row.long_fire.as_ref().expect("guns have long-range numbers"))
            }
        } else {
            if matches!(firer.arm, Arm::Cavalry) || row.unformed {
                why.push(("fire by cavalry, Indians and riflemen as infantry".into(), "26"));
            }
            why.push((format!("a d10 a 4 figures: {}", dice_for(figures)), "12"));
            (dice_for(figures), &row.fire)
        };
        let (mut chart, mut reasons) = self.fire_chart(s, &geom, b);
        why.append(&mut reasons);
        if pk.status == Status::Shaken {
            chart = (chart + 1).min(4);
            why.push(("the firer is shaken: one chart down".into(), "15"));
        }
        let value = numbers[chart].unwrap_or(0);
        if value == 0 {
            why.push((format!("chart {} reads \"~\": no hit", CHARTS[chart]), "15"));
        }
        Ok(Pool { figures, dice, chart, value, why, skirmish: false })
    }

    /// PK14: the target's chart: A for a square or a flank or rear shot; else the most
    /// protective of its formation's (column, limbered guns B; line C; skirmishers, unlimbered
    /// guns D) and its cover's (light D, hard E).
    fn fire_chart(&self, s: &Situation, geom: &crate::table::fire::FireGeometry, b: usize) -> (usize, Vec<(String, &'static str)>) {
        let target = s.unit(b);
        if geom.enfilade(s) {
            return (0, vec![("a flank or rear shot: chart A".into(), "14")]);
        }
        let (mut chart, words) = match target.formation {
            Formation::Square => return (0, vec![("the target is in square: chart A".into(), "14")]),
            Formation::Column | Formation::AttackColumn | Formation::Limbered => (1, "in column (or limbered): chart B"),
            Formation::Skirmish | Formation::Unlimbered | Formation::LooseOrder => (3, "skirmishers or unlimbered guns: chart D"),
            _ => (2, "in line: chart C"),
        };
        let mut why = vec![(format!("the target is {words}"), "14")];
        let from: Vec<_> = geom.firing().filter_map(|f| s.unit(geom.firer).stands.get(f.stand)).map(|st| st.footprint.centre).collect();
        if let Some(c) = unit_cover(s, &COVER, b, &from) {
            let (cover_chart, kind) = if c.class == Cover::Heavy { (4, "hard cover: chart E") } else { (3, "light cover: chart D") };
            why.push((format!("{kind} ({})", c.features.join(", ")), "14"));
            chart = chart.max(cover_chart);
        }
        (chart, why)
    }

    pub(super) fn fire(&mut self, action: &Action, shot: Shot) -> Report {
        let (name, target) = (self.name(shot.firer), self.name(shot.target));
        let mut report = self.report(action, format!("{name} fires at {target} (PK{})", if shot.pool.skirmish { 16 } else { 12 }));
        self.fire_into(&shot, &mut report);
        report
    }

    /// Rolls a shot's pool and lands its hits (PK12–PK17), a leader with the target at risk
    /// (PK25), into `report`.
    pub(super) fn fire_into(&mut self, shot: &Shot, report: &mut Report) {
        let target = self.name(shot.target);
        for (w, rule) in &shot.pool.why {
            report.note(rule, w.clone());
        }
        let row = self.row_of(shot.firer);
        let mut roll = d10s(&mut self.dice, shot.pool.dice);
        let hits = roll.faces.iter().filter(|&&f| f <= shot.pool.value).count() as u32;
        roll.total = hits as i32;
        let rule = if shot.pool.skirmish { "16" } else { "12" };
        report.die(rule, format!("{} d10, each {} or less hits (the total: hits)", shot.pool.dice, shot.pool.value), &roll);
        if shot.pool.skirmish {
            report.chart("Fire", "optional skirmisher fire", row.row.clone(), shot.pool.value.to_string(), &crate::rules::cite::Source::Text { section: "card, Optional Skirmisher Rules".into() });
        } else {
            report.chart("Fire", CHARTS[shot.pool.chart].to_string(), row.row.clone(), if shot.pool.value == 0 { "~".into() } else { shot.pool.value.to_string() }, &row.source);
        }
        self.mark(shot.firer, |m| m.fired = true);
        let leaders = self.leaders_with(shot.target);
        let lost = self.lose_figures(shot.target, hits);
        self.mark(shot.target, |m| m.hit_by_fire |= lost > 0);
        report.outcome = format!("{hits} hits: {target} loses {lost} figures");
        if lost > 0 {
            report.change("17", format!("{target} loses {lost} figures ({} cumulative hits)", self.pk(shot.target).map_or(0, |p| p.hits)));
            self.leaders_at_risk(&leaders, &target, report);
            self.check_removal(shot.target, report);
        }
    }

    /// PK16: the scenario's optional skirmisher fire applies to this unit: skirmishers of 6
    /// figures or fewer.
    pub fn skirmish_fire(&self, e: Entity) -> bool {
        self.scenario.optional_rules.purky_skirmisher_fire && self.unit(e).is_some_and(|u| u.formation == Formation::Skirmish && u.figures <= SKIRMISH_FIRE_MOST)
    }

    /// How far the unit fires: the card's range (guns: long range), 18" under PK16.
    pub fn fire_reach(&self, e: Entity) -> f32 {
        if self.skirmish_fire(e) {
            return SKIRMISH_FIRE_RANGE;
        }
        let row = self.row_of(e);
        row.long_range.unwrap_or(row.range) as f32
    }

    /// PK10: each flank has a friend within 3" or rests on a town, woods or wall.
    pub fn secure_flanks(&self, s: &Situation, i: usize) -> bool {
        let u = s.unit(i);
        let Some(arc) = crate::table::arc::Arc::of_unit(u) else { return false };
        let secure = |p: bevy::math::Vec2| {
            let friend = s.units().iter().enumerate().any(|(j, o)| j != i && o.side == u.side && o.stands.iter().any(|st| distance_to_stand(&st.footprint, p) <= super::game::FLANK_FRIEND));
            friend
                || s.features().iter().any(|f| match (&s.terrain()[f.index], &f.outline) {
                    (crate::scenario::model::Terrain::Woods { .. } | crate::scenario::model::Terrain::Town { .. } | crate::scenario::model::Terrain::Building { .. }, Outline::Area(poly)) => {
                        crate::picture::inside(poly, p) || poly.iter().zip(poly.iter().cycle().skip(1)).any(|(&a, &b)| crate::table::geom::point_segment_distance(p, a, b) <= 1.0)
                    }
                    (crate::scenario::model::Terrain::Obstacle { .. }, Outline::Line(path)) => point_polyline_distance(p, path) <= 1.0,
                    _ => false,
                })
        };
        secure(arc.front_left) && secure(arc.front_right)
    }

    /// PK20: in cover against the nearest enemy.
    pub fn in_cover(&self, s: &Situation, i: usize) -> bool {
        let from: Vec<_> = self.nearest_enemy(s, i).map(|j| s.unit(j).stands.iter().map(|st| st.footprint.centre).collect()).unwrap_or_default();
        unit_cover(s, &COVER, i, &from).is_some()
    }

    /// PK20, PK21: the morale test's dice (2, +1 cover, +1 secure flanks, +1 leader, +1 at 30+
    /// figures; 2 to rally, PK23) and its chart (by cumulative hits, routers rallying on C; in
    /// melee at least D against a unit that fought on B, E against one on A).
    pub fn morale_pool(&self, e: Entity, rallying: bool, floor: Option<usize>) -> Option<Pool> {
        let (u, pk) = (self.unit(e)?, self.pk(e)?);
        let mut why = Vec::new();
        let dice = if rallying {
            why.push(("2 d10 to rally".into(), "23"));
            2
        } else {
            let s = self.situation();
            let i = s.find(&u.name).ok()?;
            let mut n = 2;
            why.push(("2 d10 in the open".into(), "20"));
            if self.in_cover(s, i) {
                n += 1;
                why.push(("+1 d10: in cover".into(), "20"));
            }
            if self.secure_flanks(s, i) {
                n += 1;
                why.push(("+1 d10: flanks secure".into(), "10"));
            }
            if let Some(l) = self.leader_attached(e) {
                n += 1;
                why.push((format!("+1 d10: {l} attached"), "20"));
            }
            if u.figures >= super::game::BIG_UNIT {
                n += 1;
                why.push((format!("+1 d10: {} figures (30 or more)", u.figures), "20"));
            }
            n
        };
        let mut chart = chart_by_hits(pk.hits);
        why.push((format!("{} cumulative hits: chart {}", pk.hits, CHARTS[chart]), "21"));
        if rallying && pk.status == Status::Routed {
            chart = chart.max(2);
            why.push(("rallying from rout: chart C".into(), "21"));
        }
        if let Some(f) = floor.filter(|&f| f > chart) {
            chart = f;
            why.push((format!("in melee against a unit on chart {}: chart {}", CHARTS[if f == 4 { 0 } else { 1 }], CHARTS[f]), "21"));
        }
        Some(Pool { figures: u.figures, dice, chart, value: pk.row().morale[chart], why, skirmish: false })
    }

    /// PK20: test and apply: one failure shaken, two rout (a router routs at once, PK8).
    pub(super) fn morale_test(&mut self, e: Entity, floor: Option<usize>, report: &mut Report) -> Option<Test> {
        let pool = self.morale_pool(e, false, floor)?;
        let name = self.name(e);
        let row = self.row_of(e);
        for (w, rule) in &pool.why {
            report.note(rule, format!("{name}: {w}"));
        }
        let mut roll = d10s(&mut self.dice, pool.dice);
        roll.total = fails(&roll.faces, pool.value);
        report.die("20", format!("{name}'s morale: {} d10, the two lowest kept, each over {} fails (the total: failures)", pool.dice, pool.value), &roll);
        report.chart("Morale", CHARTS[pool.chart].to_string(), row.row.clone(), pool.value.to_string(), &row.source);
        let test = judge(&roll.faces, pool.value);
        let before = self.pk(e).map_or(Status::Steady, |p| p.status);
        let after = match test {
            Test::Pass => before,
            Test::OneFails => before.max(Status::Shaken),
            Test::BothFail => Status::Routed,
        };
        self.mark(e, |m| m.status = after);
        let said = match test {
            Test::Pass => "passes",
            Test::OneFails => "fails on one die: shaken",
            Test::BothFail => "fails on two dice: rout",
        };
        report.change("20", format!("{name} {said}"));
        if after == Status::Routed && before != Status::Routed {
            self.rout(e, report);
        }
        Some(test)
    }

    /// PK22: after both fire steps, every unit hit by fire tests.
    pub(super) fn morale_after_fire(&mut self, report: &mut Report) {
        for e in self.units.clone() {
            if self.pk(e).is_some_and(|p| p.hit_by_fire) && self.unit(e).is_some() {
                self.morale_test(e, None, report);
            }
        }
    }

    /// PK23: 2 d10; shaken: pass steady, one fail stays shaken, two fails rout; routed: pass
    /// shaken, else removed (failed to rally from rout).
    pub(super) fn rally(&mut self, e: Entity, report: &mut Report) {
        let Some(pool) = self.morale_pool(e, true, None) else { return };
        let name = self.name(e);
        let row = self.row_of(e);
        for (w, rule) in &pool.why {
            report.note(rule, w.clone());
        }
        let mut roll = d10s(&mut self.dice, 2);
        roll.total = fails(&roll.faces, pool.value);
        report.die("23", format!("{name} rallies: 2 d10, each over {} fails (the total: failures)", pool.value), &roll);
        report.chart("Morale", CHARTS[pool.chart].to_string(), row.row.clone(), pool.value.to_string(), &row.source);
        let test = judge(&roll.faces, pool.value);
        let routed = self.pk(e).is_some_and(|p| p.status == Status::Routed);
        match (routed, test) {
            (false, Test::Pass) => {
                self.mark(e, |m| m.status = Status::Steady);
                report.outcome = format!("{name} rallies: steady");
            }
            (false, Test::OneFails) => report.outcome = format!("{name} stays shaken"),
            (false, Test::BothFail) => {
                self.mark(e, |m| m.status = Status::Routed);
                report.outcome = format!("{name} fails on both dice: it routs");
                self.rout(e, report);
            }
            (true, Test::Pass) => {
                self.mark(e, |m| m.status = Status::Shaken);
                report.outcome = format!("{name} rallies from rout: shaken");
            }
            (true, _) => {
                self.remove(e);
                report.outcome = format!("{name} fails to rally from rout: removed");
            }
        }
        report.change("23", report.outcome.clone());
    }

    /// Unformed (PK10): skirmishers, gun crews, routers and the card's unformed classes.
    pub fn unformed(&self, e: Entity) -> bool {
        let (Some(u), Some(pk)) = (self.unit(e), self.pk(e)) else { return false };
        u.formation == Formation::Skirmish || pk.row().is_gun() || pk.status == Status::Routed || pk.row().unformed
    }

    /// PK27: riflemen, Jägers and Indians carry no bayonets.
    pub fn bayonets(&self, e: Entity) -> bool {
        self.unit(e).is_some_and(|u| u.arm == Arm::Infantry) && self.pk(e).is_some_and(|p| !p.row().unformed)
    }

    /// PK18: `me`'s advantages over `foe` in this engagement: words and +2 (major) or +1 (minor).
    fn advantages(&self, s: &Situation, me: Entity, foe: Entity, eng: &Engagement) -> Vec<(String, i32)> {
        let (Some(mu), Some(fu)) = (self.unit(me), self.unit(foe)) else { return Vec::new() };
        let (mi, fi) = (s.find(&mu.name).ok(), s.find(&fu.name).ok());
        let (mcav, fcav) = (mu.arm == Arm::Cavalry, fu.arm == Arm::Cavalry);
        let (minf, finf) = (mu.arm == Arm::Infantry, fu.arm == Arm::Infantry);
        let cover = |i: Option<usize>| i.is_some_and(|i| self.in_cover(s, i));
        let secure = |i: Option<usize>| i.is_some_and(|i| self.secure_flanks(s, i));
        let mut out = Vec::new();
        let mut add = |cond: bool, words: &str, v: i32| {
            if cond {
                out.push((words.to_string(), v));
            }
        };
        add(mu.formation == Formation::Square && fcav, "square against cavalry", 2);
        add(mcav && finf && self.unformed(foe), "cavalry against unformed infantry", 2);
        add(eng.charger == me && eng.flank, "a flank or rear attack", 2);
        add(!self.unformed(me) && self.unformed(foe), "formed against unformed", 2);
        add(minf && cover(mi) && fcav, "infantry in cover against cavalry", 2);
        add(finf && minf && self.bayonets(me) && !self.bayonets(foe), "bayonets against none", 2);
        let uphill = eng.target == me && eng.climbed || eng.charger == me && eng.descended;
        add(minf && finf && (uphill || cover(mi)), "infantry uphill or behind cover against infantry", 1);
        let halted = |e: Entity| self.pk(e).is_some_and(|p| !p.charged);
        add(mcav && fcav && halted(foe) && !halted(me), "cavalry against cavalry caught at the halt", 1);
        add(mcav && finf && !secure(fi), "cavalry against infantry without secure flanks", 1);
        out
    }

    /// PK18: `me`'s melee pool against `foe`: a d10 per 4 figures two stands deep, the chart
    /// by the net of majors (±2) and minors (±1), shaken a minor disadvantage, clamped to A–E.
    pub fn melee_pool(&self, s: &Situation, me: Entity, foe: Entity, eng: &Engagement) -> Option<Pool> {
        let (mu, fu) = (self.unit(me)?, self.unit(foe)?);
        let (i, j) = (s.find(&mu.name).ok()?, s.find(&fu.name).ok()?);
        let stands = &s.unit(i).stands;
        let mut fighting = contact::stands_in_contact(s, i, &[j]);
        if fighting.is_empty() {
            fighting.push(0);
        }
        let front = fighting.clone();
        for &c in &front {
            let f = stands[c].footprint;
            let behind = f.centre - f.forward() * f.depth;
            fighting.extend((0..stands.len()).filter(|&k| !front.contains(&k) && stands[k].footprint.centre.distance(behind) < 0.5));
        }
        fighting.sort_unstable();
        fighting.dedup();
        let figures: u32 = fighting.iter().map(|&k| stands[k].figures).sum();
        let mut why = vec![(format!("{} figures two stands deep: {} d10", figures, dice_for(figures)), "18")];
        let mut net = 0;
        for (w, v) in self.advantages(s, me, foe, eng) {
            why.push((format!("{} advantage: {w}", if v == 2 { "major" } else { "minor" }), "18"));
            net += v;
        }
        for (w, v) in self.advantages(s, foe, me, eng) {
            why.push((format!("{} disadvantage: the enemy's {w}", if v == 2 { "major" } else { "minor" }), "18"));
            net -= v;
        }
        if self.pk(me).is_some_and(|p| p.status == Status::Shaken) {
            why.push(("minor disadvantage: shaken".into(), "18"));
            net -= 1;
        }
        let chart = (2 - net).clamp(0, 4) as usize;
        why.push((format!("net {net:+}: chart {}", CHARTS[chart]), "18"));
        let value = self.pk(me)?.row().melee[chart];
        Some(Pool { figures, dice: dice_for(figures), chart, value, why, skirmish: false })
    }

    /// PK19: every melee of the turn, two rounds each: both roll, hits land together, both
    /// test; whoever goes shaken retires a column move facing the enemy (routers rout) and the
    /// other wins; if neither breaks after two rounds, or both do, both retire.
    pub(super) fn resolve_melees(&mut self, report: &mut Report) {
        let melees = std::mem::take(&mut self.melees);
        for eng in melees {
            let (a, b) = (eng.charger, eng.target);
            if self.unit(a).is_none() || self.unit(b).is_none() {
                continue;
            }
            let (an, bn) = (self.name(a), self.name(b));
            report.note("19", format!("melee: {an} against {bn}"));
            self.mark(a, |m| m.meleed = true);
            self.mark(b, |m| m.meleed = true);
            let mut decided = false;
            for round in 1..=2 {
                let s = self.situation();
                let (Some(pa), Some(pb)) = (self.melee_pool(s, a, b, &eng), self.melee_pool(s, b, a, &eng)) else { break };
                let mut hits = [0u32; 2];
                for (k, (e, p, foe)) in [(a, &pa, &bn), (b, &pb, &an)].into_iter().enumerate() {
                    let name = self.name(e);
                    for (w, rule) in &p.why {
                        report.note(rule, format!("round {round}, {name}: {w}"));
                    }
                    let mut roll = d10s(&mut self.dice, p.dice);
                    hits[k] = roll.faces.iter().filter(|&&f| f <= p.value).count() as u32;
                    roll.total = hits[k] as i32;
                    report.die("18", format!("round {round}: {name} against {foe}, each {} or less hits (the total: hits)", p.value), &roll);
                    let row = self.row_of(e);
                    report.chart("Melee", CHARTS[p.chart].to_string(), row.row.clone(), p.value.to_string(), &row.source);
                }
                let (leaders_a, leaders_b) = (self.leaders_with(a), self.leaders_with(b));
                let lost_b = self.lose_figures(b, hits[0]);
                let lost_a = self.lose_figures(a, hits[1]);
                report.change("18", format!("round {round}: {an} loses {lost_a}, {bn} loses {lost_b}"));
                for (lost, leaders, name) in [(lost_a, &leaders_a, &an), (lost_b, &leaders_b, &bn)] {
                    if lost > 0 {
                        self.leaders_at_risk(leaders, name, report);
                    }
                }
                let gone_a = self.check_removal(a, report);
                let gone_b = self.check_removal(b, report);
                if gone_a || gone_b {
                    decided = true;
                    break;
                }
                let floor = |p: &super::combat::Pool| match p.chart {
                    0 => Some(4),
                    1 => Some(3),
                    _ => None,
                };
                let before = (self.status(a), self.status(b));
                self.morale_test(a, floor(&pb), report);
                self.morale_test(b, floor(&pa), report);
                let broke = |e: Entity, was: Status| self.unit(e).is_none() || self.status(e) > was;
                let (ba, bb) = (broke(a, before.0), broke(b, before.1));
                if ba || bb {
                    for (e, foe, broken) in [(a, b, ba), (b, a, bb)] {
                        if broken && self.status(e) == Status::Shaken {
                            self.retire(e, foe, report);
                        }
                    }
                    let winner = match (ba, bb) {
                        (true, false) => format!("{bn} wins the melee"),
                        (false, true) => format!("{an} wins the melee"),
                        _ => "both break: no winner".into(),
                    };
                    report.change("19", winner);
                    decided = true;
                    break;
                }
            }
            if !decided && self.unit(a).is_some() && self.unit(b).is_some() {
                report.change("19", format!("no winner between {an} and {bn} after two rounds: both retire"));
                self.retire(a, b, report);
                self.retire(b, a, report);
            }
        }
    }

    pub fn status(&self, e: Entity) -> Status {
        self.pk(e).map_or(Status::Routed, |p| p.status)
    }

    /// PK19: a full column move to the rear, facing the enemy.
    fn retire(&mut self, e: Entity, foe: Entity, report: &mut Report) {
        if self.unit(e).is_none() || self.unit(foe).is_none() {
            return;
        }
        let Some(pk) = self.pk(e) else { return };
        let d = card::rate(pk.class, Formation::Column).unwrap_or(pk.row().road) as f32;
        self.fall_back(e, foe, d, "19", report);
    }

    /// The exact chance of each number of hits of a pool.
    pub fn pool_odds(pool: &Pool) -> Vec<f64> {
        odds::pool_hits(pool.dice, pool.value)
    }
}
