//! Morale Markers (10.0): removing them by a roll on the MORALE RESULTS TABLE, modified for
//! losses and works (10.2, 10.3), or by a commander's morale pass (10.4); the re-roll a pass buys;
//! the results that limit what a unit may do this turn, and retreats (6.11) with militia
//! stragglers (optional 6.14). Also the plumbing other modules call when a unit receives a marker.

use bevy::math::Vec2;
use bevy::prelude::Entity;

use super::action::{Action, Removal};
use super::report::{Refusal, Report, refuse};
use super::state::{GunRestore, MoraleRoll, UnitRestore};
use super::Game;
use crate::rules::otp::charts::{ArmClass, MoraleClass, MoraleModifiers, MoraleResult, Severity};
use crate::scenario::model::{Terrain, UnitType};
use crate::scenario::spawn::{MoraleMarker, Stand, Unit};
use crate::table::footprint::Footprint;
use crate::table::geom::convex_near_polyline;
use crate::table::geom::{EPS, convex_overlap_depth};
use crate::table::movement::{RetreatPath, TOUCH, retreat, shift_path};
use crate::table::range::unit_distance;

/// How close to works a stand must be to count as in or behind them (10.3), inches.
pub const WORKS_REACH: f32 = 1.0;

impl Game {
    /// 10.1: the unit receives a Morale Marker (it carries at most one). `firefight`: from two
    /// rounds of a firefight, so only a roll removes it (10.4). For the fire and melee modules.
    pub fn give_marker(&mut self, report: &mut Report, unit: Entity, firefight: bool) {
        let turn = self.turn();
        let name = self.unit(unit).name.clone();
        let had = self.has_marker(unit);
        self.world.entity_mut(unit).insert(MoraleMarker);
        let mut t = self.turn_mut(unit);
        t.marker_turn = Some(turn);
        t.marker_from_firefight |= firefight;
        report.change("10.1", if had { format!("{name} keeps its one Morale Marker") } else { format!("{name} receives a Morale Marker") });
    }

    /// 11.0: the unit was fired on by artillery this turn (not in reserve status). For the fire module.
    pub fn mark_artillery_target(&mut self, unit: Entity) {
        self.turn_mut(unit).artillery_target = true;
    }

    /// Take `n` figures off a unit, from its last stand forward; empty stands leave the table.
    /// Returns the figures actually lost.
    pub fn lose_figures(&mut self, unit: Entity, n: u32) -> u32 {
        let mut left = n;
        let mut stands = self.unit(unit).stands.clone();
        while left > 0 {
            let Some(&s) = stands.last() else { break };
            let mut stand = self.world.get_mut::<Stand>(s).expect("a stand");
            let take = left.min(stand.figures);
            stand.figures -= take;
            left -= take;
            if stand.figures == 0 {
                stands.pop();
                self.world.despawn(s);
            }
        }
        let lost = n - left;
        let mut u = self.unit_mut(unit);
        u.stands = stands;
        u.figures -= lost.min(u.figures);
        lost
    }

    /// 10.3: the loss category and whether all its stands are in or behind works.
    pub fn morale_modifiers(&self, unit: Entity) -> MoraleModifiers {
        let u = self.unit(unit);
        let severity = self.charts.losses.severity(u.initial_figures, u.initial_figures.saturating_sub(u.figures));
        let works: Vec<Vec<bevy::math::Vec2>> = self
            .scenario
            .terrain
            .iter()
            .filter_map(|t| match t {
                Terrain::Obstacle { kind, path, .. } if kind.is_works() => Some(path.iter().map(|&p| bevy::math::Vec2::from(p)).collect()),
                _ => None,
            })
            .collect();
        let stands: Vec<Footprint> = u.stands.iter().filter_map(|&s| self.world.get::<Footprint>(s).copied()).collect();
        let in_works = !stands.is_empty() && stands.iter().all(|f| works.iter().any(|w| convex_near_polyline(&f.corners(), w, WORKS_REACH)));
        MoraleModifiers { severity, in_works }
    }

    /// The chance of each result for the unit now: the odds preview.
    pub fn morale_odds(&self, unit: Entity) -> Vec<(MoraleResult, f64)> {
        let u = self.unit(unit);
        self.charts.morale.odds(MoraleClass::of(u.unit_type, ArmClass::from(u.arm)), &self.morale_modifiers(unit))
    }

    pub(super) fn capture(&self, unit: Entity) -> UnitRestore {
        let u = self.unit(unit).clone();
        let stands = u.stands.iter().filter_map(|&s| Some((s, *self.world.get::<Stand>(s)?, *self.world.get::<Footprint>(s)?))).collect();
        let crew = self.world.get::<super::crew::Detached>(unit).map(|d| d.crew).zip(self.detached_crew(unit));
        // 7.5: its attached guns and the crews riding with it, as a retreat may leave them behind.
        let guns = self
            .roster
            .units
            .iter()
            .map(|r| r.0)
            .filter(|&g| self.world.get::<Unit>(g).is_some_and(|x| x.attached_to == Some(unit)) || self.riding_with(g) == Some(unit))
            .map(|g| GunRestore {
                gun: g,
                attached_to: self.unit(g).attached_to,
                riding: self.riding_with(g).and(self.detached_crew(g)),
                marker: self.has_marker(g),
                turn: self.unit_turn(g).clone(),
            })
            .collect();
        UnitRestore { unit: u, turn: self.unit_turn(unit).clone(), marker: self.has_marker(unit), stands, crew, guns }
    }

    pub(super) fn restore(&mut self, unit: Entity, r: UnitRestore) {
        let mut ids = Vec::new();
        for (e, stand, footprint) in r.stands {
            if self.world.get::<Stand>(e).is_some() {
                self.world.entity_mut(e).insert((stand, footprint));
                ids.push(e);
            } else {
                ids.push(self.world.spawn((stand, footprint)).id());
            }
        }
        *self.unit_mut(unit) = Unit { stands: ids, ..r.unit };
        // 7.4: the crew as it was (a detachment made by the first roll is undone).
        if let Some(d) = self.world.get::<super::crew::Detached>(unit).copied() {
            self.world.entity_mut(unit).remove::<super::crew::Detached>();
            self.world.despawn(d.crew);
        }
        if let Some((_, fp)) = r.crew {
            let crew = self.world.spawn((super::crew::Crew { unit, with: None }, fp)).id();
            self.world.entity_mut(unit).insert(super::crew::Detached { crew });
        }
        // 7.5: guns left behind by a retreat that is undone are as they were.
        for g in self.riders(unit) {
            if let Some(d) = self.world.get::<super::crew::Detached>(g).copied() {
                self.world.entity_mut(g).remove::<super::crew::Detached>();
                self.world.despawn(d.crew);
            }
        }
        for gr in r.guns {
            if self.world.get::<super::crew::Detached>(gr.gun).is_none()
                && let Some(fp) = gr.riding
            {
                let crew = self.world.spawn((super::crew::Crew { unit: gr.gun, with: Some(unit) }, fp)).id();
                self.world.entity_mut(gr.gun).insert(super::crew::Detached { crew });
            }
            self.unit_mut(gr.gun).attached_to = gr.attached_to;
            *self.turn_mut(gr.gun) = gr.turn;
            if gr.marker {
                self.world.entity_mut(gr.gun).insert(MoraleMarker);
            } else {
                self.world.entity_mut(gr.gun).remove::<MoraleMarker>();
            }
        }
        *self.turn_mut(unit) = r.turn;
        if r.marker {
            self.world.entity_mut(unit).insert(MoraleMarker);
        } else {
            self.world.entity_mut(unit).remove::<MoraleMarker>();
        }
    }

    /// Would a roll or a pass remove `name`'s marker now (10.2, 10.4, 6.12)? Nothing changes.
    pub fn check_removal(&self, name: &str, how: &Removal) -> Result<(), Refusal> {
        let unit = self.find_unit(name)?;
        self.require_phasing(unit)?;
        let t = self.unit_turn(unit);
        if let Removal::RerollWithPass { commander } = how {
            // The first roll may have taken the marker off: the re-roll is of the result.
            return self.check_reroll(name, unit, commander).map(|_| ());
        }
        if !self.has_marker(unit) {
            return refuse("10.2", format!("{name} has no Morale Marker"));
        }
        match how {
            Removal::Roll | Removal::Pass { .. } if t.morale.is_some() => refuse("10.2", format!("{name} has rolled on the MORALE RESULTS TABLE this turn")),
            Removal::Roll => Ok(()),
            Removal::Pass { commander } => {
                let c = self.find_commander(commander)?;
                if t.marker_from_firefight || t.marker_turn == Some(self.turn()) {
                    return refuse("10.4", format!("{name}'s marker came this turn or from a firefight: only a roll removes it"));
                }
                self.check_pass(c, unit).map(|_| ())
            }
            Removal::RerollWithPass { .. } => unreachable!("judged above"),
        }
    }

    /// 10.2, 10.4: may `commander` buy `name` one re-roll of this turn's morale roll before it
    /// acts on the result? The commander, and his ride to the unit (6.12).
    fn check_reroll(&self, name: &str, unit: Entity, commander: &str) -> Result<(Entity, f32, Vec2), Refusal> {
        let c = self.find_commander(commander)?;
        let t = self.unit_turn(unit);
        let Some(first) = &t.morale else { return refuse("10.2", format!("{name} has not rolled this turn: there is nothing to re-roll")) };
        if first.rerolled {
            return refuse("10.2", format!("{name} has re-rolled once: the re-roll result must be accepted"));
        }
        if !t.done.is_empty() {
            return refuse("10.2", format!("{name} has acted on its result ({:?})", t.done));
        }
        let (ride, to) = self.check_pass(c, unit)?;
        Ok((c, ride, to))
    }

    pub(super) fn remove_marker(&mut self, action: &Action, name: &str, how: &Removal) -> Result<Report, Refusal> {
        let unit = self.find_unit(name)?;
        self.require_phasing(unit)?;
        let t = self.unit_turn(unit).clone();
        let turn = self.turn();
        let marker = self.has_marker(unit);
        match how {
            Removal::Roll => {
                if !marker {
                    return refuse("10.2", format!("{name} has no Morale Marker"));
                }
                if t.morale.is_some() {
                    return refuse("10.2", format!("{name} has made its one roll on the MORALE RESULTS TABLE this turn (a morale pass may buy one re-roll)"));
                }
                let mut report = Report::otp(turn, action, format!("{name} rolls to remove its Morale Marker (10.2)"));
                let before = self.capture(unit);
                let result = self.morale_roll(&mut report, unit);
                self.turn_mut(unit).morale = Some(MoraleRoll { result, rerolled: false, before: Some(Box::new(before)) });
                self.apply_result(&mut report, unit, result);
                Ok(report)
            }
            Removal::Pass { commander } => {
                let c = self.find_commander(commander)?;
                if !marker {
                    return refuse("10.2", format!("{name} has no Morale Marker"));
                }
                if t.morale.is_some() {
                    return refuse("10.2", format!("{name} has rolled on the MORALE RESULTS TABLE this turn: a pass may now only buy a re-roll"));
                }
                if t.marker_from_firefight {
                    return refuse("10.4", format!("{name}'s marker came from two rounds of a firefight: it must roll on the MORALE RESULTS TABLE"));
                }
                if t.marker_turn == Some(turn) {
                    return refuse("10.4", format!("{name} received its Morale Marker this turn: a commander cannot use a morale pass to remove it in the same turn"));
                }
                let (ride, to) = self.check_pass(c, unit)?;
                let mut report = Report::otp(turn, action, format!("{commander} uses a morale pass on {name} (10.4)"));
                if !self.look(&mut report, c, unit, to) {
                    report.outcome = format!("{commander} cannot see {name} through the woods: he does not ride, no pass is spent and the marker stays (10.6)");
                    return Ok(report);
                }
                self.spend_pass(&mut report, c, ride, to, name);
                self.world.entity_mut(unit).remove::<MoraleMarker>();
                let mut t = self.turn_mut(unit);
                t.marker_turn = None;
                t.marker_from_firefight = false;
                report.outcome = format!("{name}'s Morale Marker is removed: it may act");
                report.change("10.4", format!("{name}: Morale Marker removed"));
                Ok(report)
            }
            Removal::RerollWithPass { commander } => {
                let (c, ride, to) = self.check_reroll(name, unit, commander)?;
                let first = t.morale.as_ref().expect("check_reroll found this turn's roll");
                let before = first.before.clone().expect("a roll this turn keeps the unit as it was");
                let first_result = first.result;
                let mut report = Report::otp(turn, action, format!("{commander} spends a morale pass for {name} to re-roll (10.2, 10.4)"));
                if !self.look(&mut report, c, unit, to) {
                    report.outcome = format!("{commander} cannot see {name} through the woods: he does not ride, no pass is spent and the first result stands (10.6)");
                    return Ok(report);
                }
                self.spend_pass(&mut report, c, ride, to, name);
                report.note("10.2", format!("the first result, {first_result}, is set aside"));
                self.restore(unit, *before);
                let result = self.morale_roll(&mut report, unit);
                self.turn_mut(unit).morale = Some(MoraleRoll { result, rerolled: true, before: None });
                self.apply_result(&mut report, unit, result);
                Ok(report)
            }
        }
    }

    /// 2D10 on the unit's column of the MORALE RESULTS TABLE, with the 10.3 modifiers.
    fn morale_roll(&mut self, report: &mut Report, unit: Entity) -> MoraleResult {
        let u = self.unit(unit).clone();
        let class = MoraleClass::of(u.unit_type, ArmClass::from(u.arm));
        let mods = self.morale_modifiers(unit);
        let roll = self.dice.two_d10();
        report.die("10.2", format!("{} on the MORALE RESULTS TABLE", u.name), &roll);
        let chart = &self.charts.morale;
        let lost = u.initial_figures.saturating_sub(u.figures);
        if mods.severity != Severity::NoLoss {
            let source = match self.charts.losses.row_for(u.initial_figures) {
                Some(row) => row.source.clone(),
                None => self.charts.losses.percentages.source.clone(),
            };
            report.chart("FIGURE LOSS SEVERITY", format!("{} figures", u.initial_figures), format!("{lost} lost"), format!("{:?}", mods.severity), &source);
            if let Some(m) = chart.losses.iter().find(|m| m.severity == mods.severity) {
                report.modifier("10.3", format!("{:?} losses ({lost} of {})", mods.severity, u.initial_figures), m.value);
                report.chart("MORALE RESULTS TABLE: modifiers", "losses", format!("{:?}", mods.severity), format!("{:+}", m.value), &m.source);
            }
        }
        if mods.in_works {
            report.modifier("10.3", "all stands in or behind works", chart.works.value);
            report.chart("MORALE RESULTS TABLE: modifiers", "works", "in works", format!("{:+}", chart.works.value), &chart.works.source);
        }
        let modified = roll.total + chart.modifier(&mods);
        let result = chart.result(class, roll.total, &mods);
        report.chart("MORALE RESULTS TABLE", format!("{class:?}"), format!("{modified:02}"), result.to_string(), &chart.column(class).source);
        result
    }

    /// What a result does (10.2 and the table's explanations).
    pub(super) fn apply_result(&mut self, report: &mut Report, unit: Entity, result: MoraleResult) {
        let name = self.unit(unit).name.clone();
        let explain = self.charts.morale.explain(result.kind()).clone();
        report.outcome = format!("{result}: {}", explain.text);
        if explain.removes_marker {
            self.world.entity_mut(unit).remove::<MoraleMarker>();
            let mut t = self.turn_mut(unit);
            t.marker_turn = None;
            t.marker_from_firefight = false;
            report.change("10.2", format!("{name}: Morale Marker removed"));
        } else {
            report.change("10.2", format!("{name} keeps its Morale Marker"));
        }
        match result {
            MoraleResult::NE => {}
            MoraleResult::Forward if ArmClass::from(self.unit(unit).arm) == ArmClass::Artillery => {
                // 7.4: artillery ignores mandatory forward movement: treated as a Deploy.
                self.turn_mut(unit).restriction = Some(MoraleResult::Deploy);
                report.change("7.4", format!("{name} is artillery: it ignores the forward movement and is treated as Deploy"));
            }
            MoraleResult::HalfMove | MoraleResult::Deploy | MoraleResult::Stand | MoraleResult::Forward => {
                self.turn_mut(unit).restriction = Some(result);
                report.change("10.2", format!("{name} is limited this turn: {result}"));
                if result == MoraleResult::Forward {
                    // TODO(morale): enforce the mandatory advance toward the nearest visible enemy (7.4).
                    report.note("7.4", "mandatory forward movement is left to the players: move toward the nearest enemy");
                }
            }
            MoraleResult::Retreat { moves } => self.retreat_unit(report, unit, moves),
        }
    }

    /// 6.11: a friendly unit in a retreat's way rolls a D10 against its CV. At or under: it
    /// stands and the retreat stops short of it. Over: it takes a Morale Marker and moves with
    /// the retreating unit for the `remaining` inches (infantry met by retreating cavalry only
    /// far enough to clear the cavalry's path), never into a third unit.
    fn friend_in_the_way(&mut self, report: &mut Report, unit: Entity, friend: Entity, path: &RetreatPath, remaining: f32) {
        let (name, cavalry) = (self.unit(unit).name.clone(), ArmClass::from(self.unit(unit).arm) == ArmClass::Cavalry);
        let (fname, cv, infantry) = {
            let f = self.unit(friend);
            (f.name.clone(), f.cv, ArmClass::from(f.arm) == ArmClass::Infantry)
        };
        let roll = self.dice.d10();
        report.die("6.11", format!("{fname}, in the way of {name}'s retreat, against its CV {cv}"), &roll);
        if roll.total <= cv as i32 {
            report.note("6.11", format!("{fname} rolls {} against CV {cv}: it stands, and {name} stops short of it", roll.total));
            return;
        }
        report.note("6.11", format!("{fname} rolls {} against CV {cv}: it is swept along", roll.total));
        self.give_marker(report, friend, false);
        let s = self.situation();
        let (Ok(me), Ok(fi)) = (s.find(&name), s.find(&fname)) else { return };
        let start = s.unit(me).footprints();
        let Some(away) = path.stands.first().zip(start.first()).map(|(a, b)| a.centre - b.centre).filter(|d| d.length() > EPS).map(|d| d.normalize()) else { return };
        let friend_stands = s.unit(fi).footprints();
        let mut d = remaining.max(0.0);
        if cavalry && infantry {
            // Only far enough that the cavalry's whole retreat is clear of it.
            let clear = |by: f32| {
                let moved: Vec<Footprint> = friend_stands.iter().map(|f| Footprint { centre: f.centre + away * by, ..*f }).collect();
                !path.stands.iter().any(|a| moved.iter().any(|b| convex_overlap_depth(&a.corners(), &b.corners()) > TOUCH))
            };
            let mut by = 0.0;
            while by < d && !clear(by) {
                by += 0.1;
            }
            d = by.min(d);
        }
        // Its own attached guns stay where they are (7.5): it may pass them but not end on them (6.5).
        let guns: Vec<Footprint> = self.own_guns(friend);
        let blocked = |p: &RetreatPath, g: &Game| {
            p.in_the_way.iter().any(|w| w.unit != name && g.unit_entity(&w.unit).is_none_or(|e| g.unit(e).attached_to != Some(friend)))
                || p.stands.iter().any(|f| guns.iter().any(|gun| f.overlaps(gun, 0.01)))
        };
        let mut carried = shift_path(&s, fi, away, d);
        while d > 0.0 && blocked(&carried, self) {
            d = (d - 0.1).max(0.0);
            carried = shift_path(&s, fi, away, d);
        }
        let formation = self.unit(friend).formation;
        self.place(friend, &carried.stands, formation);
        self.carry_riders(report, friend, false);
        self.turn_mut(friend).moved = true;
        report.change("6.11", format!("{fname} moves {d:.2}\" with {name}'s retreat"));
        if carried.off_table {
            self.turn_mut(friend).off_table = true;
            report.change("6.11", format!("{fname} is swept off the table"));
        }
    }

    /// The stands of the guns attached to `unit` (7.5).
    fn own_guns(&self, unit: Entity) -> Vec<Footprint> {
        let attached = |e: Entity| self.world.get::<Unit>(e).is_some_and(|u| u.attached_to == Some(unit));
        self.roster
            .units
            .iter()
            .filter(|r| attached(r.0))
            .flat_map(|r| self.unit(r.0).stands.clone())
            .filter_map(|st| self.world.get::<Footprint>(st).copied())
            .collect()
    }

    /// 6.11: retreat `moves` full moves straight away from the nearest enemy; militia lose
    /// stragglers (optional 6.14).
    pub(super) fn retreat_unit(&mut self, report: &mut Report, unit: Entity, moves: u8) {
        let distance = moves as f32 * self.normal_move(unit, self.unit(unit).formation);
        self.retreat_by(report, unit, moves, distance);
    }

    /// 6.11: retreat `distance` inches straight away from the nearest enemy, counted as `moves`
    /// full moves (for a crew's retreat, 7.4, and stragglers, 6.14). The firefight's and the
    /// reaction's withdrawals (9.3, 9.4) are full LINE moves, whatever the formation.
    pub(super) fn retreat_by(&mut self, report: &mut Report, unit: Entity, moves: u8, distance: f32) {
        let u = self.unit(unit).clone();
        let s = self.situation();
        let Ok(me) = s.find(&u.name) else { return };
        let gone = |name: &str| self.unit_entity(name).is_none_or(|e| self.unit_turn(e).off_table || self.unit(e).figures == 0);
        let enemy = (0..s.units().len())
            .filter(|&i| s.unit(i).side != u.side && !s.unit(i).stands.is_empty() && !gone(&s.unit(i).name))
            .map(|i| (unit_distance(&s, me, i), i))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, enemy)) = enemy else {
            report.note("6.11", format!("{} has no enemy to retreat from", u.name));
            return;
        };
        let mut distance = distance;
        let enemy_name = s.unit(enemy).name.clone();
        // Its own attached guns (7.5) are never in its way.
        let own = |g: &Game, n: &str| g.unit_entity(n).is_some_and(|e| g.unit(e).attached_to == Some(unit));
        let mut path = retreat(&s, me, enemy, distance);
        path.in_the_way.retain(|w| !own(self, &w.unit));
        if let Some(first) = path.in_the_way.first().cloned()
            && first.friendly
            && let Some(friend) = self.unit_entity(&first.unit)
        {
            self.friend_in_the_way(report, unit, friend, &path, distance - first.after);
        }
        // Whatever is (still) in the way stops the retreat short of it.
        let s = self.situation().clone();
        let (Ok(me), Ok(enemy)) = (s.find(&u.name), s.find(&enemy_name)) else { return };
        path = retreat(&s, me, enemy, distance);
        path.in_the_way.retain(|w| !own(self, &w.unit));
        if let Some(first) = path.in_the_way.first() {
            report.note("6.11", format!("{} is in the way after {:.2}\": the retreat stops short of it", first.unit, first.after));
            // The sweep finds contact at its sampling steps: back off until the path is clear.
            distance = first.after;
            while distance > 0.0 && !path.in_the_way.is_empty() {
                distance = (distance - 0.1).max(0.0);
                path = retreat(&s, me, enemy, distance);
                path.in_the_way.retain(|w| !own(self, &w.unit));
            }
        }
        // 7.5: it may pass its own attached guns, but those left unlimbered stay where they are,
        // so the retreat may not end on top of them (6.5).
        let guns = self.own_guns(unit);
        while distance > 0.0 && path.stands.iter().any(|f| guns.iter().any(|g| f.overlaps(g, 0.01))) {
            distance = (distance - 0.1).max(0.0);
            path = retreat(&s, me, enemy, distance);
            path.in_the_way.retain(|w| !own(self, &w.unit));
        }
        // 7.4: unlimbered guns (not attached, 7.5) stay; the crew retreats as skirmishers, straight
        // away from the nearest enemy (the crew stand is not stopped by units in its way).
        if matches!(u.arm, crate::scenario::model::Arm::Artillery { .. })
            && u.attached_to.is_none()
            && (u.formation == crate::scenario::model::Formation::Unlimbered || self.world.get::<super::crew::Detached>(unit).is_some())
        {
            let centroid = |fs: &[Footprint]| fs.iter().map(|f| f.centre).sum::<bevy::math::Vec2>() / fs.len().max(1) as f32;
            let away = (centroid(&s.unit(me).footprints()) - centroid(&s.unit(enemy).footprints())).normalize_or(crate::table::footprint::bearing_vector(path.bearing));
            self.crew_retreats(report, unit, moves, away);
            return;
        }
        // 7.5: attached unlimbered guns stay; their crews go with the infantry.
        self.guns_left_behind(report, unit);
        report.change("6.11", format!("{} retreats {:.2}\" away from {} (bearing {:.0})", u.name, distance, s.unit(enemy).name, path.bearing));
        self.place(unit, &path.stands, u.formation);
        self.carry_riders(report, unit, false);
        self.turn_mut(unit).moved = true;
        if path.off_table {
            self.turn_mut(unit).off_table = true;
            report.change("6.11", format!("{} retreats off the table", u.name));
        }
        if self.scenario.optional_rules.militia_stragglers && u.unit_type == UnitType::Militia {
            for _ in 0..moves {
                let roll = self.dice.ad(1);
                report.die("6.14", format!("stragglers from {}", u.name), &roll);
                let lost = self.lose_figures(unit, roll.total as u32);
                report.change("6.14", format!("{} loses {lost} figures to straggling", u.name));
                if self.unit(unit).figures == 0 {
                    self.remove_unit(report, unit);
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused, teaching};
    use super::*;
    use crate::rules::otp::charts::Charts;

    fn roll(unit: &str) -> Action {
        Action::RemoveMarker { unit: unit.into(), how: Removal::Roll }
    }

    fn pass(unit: &str, commander: &str) -> Action {
        Action::RemoveMarker { unit: unit.into(), how: Removal::Pass { commander: commander.into() } }
    }

    // OTP 10.2: one roll a turn on the MORALE RESULTS TABLE; the chart cell and die are reported.
    #[test]
    fn one_roll_a_turn() {
        let mut g = teaching(21);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let r = ok(&mut g, roll("Loyalist Militia"));
        assert_eq!(r.dice.len(), 1);
        assert_eq!(r.charts.last().unwrap().chart, "MORALE RESULTS TABLE");
        assert_eq!(r.charts.last().unwrap().column, "Militia");
        refused(&mut g, roll("Loyalist Militia"), "10.2");
        refused(&mut g, roll("British Legion Dragoons"), "10.2");
    }

    // OTP 10.4: a pass removes the marker outright, but not in the turn it came, not for a
    // firefight's marker, only from the unit's own brigade or the overall commander; 6.12: the
    // commander must be able to ride to the unit.
    #[test]
    fn passes() {
        let mut g = teaching(4);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        refused(&mut g, pass("Loyalist Militia", "Lt. Col. Webster"), "10.4");
        refused(&mut g, pass("Loyalist Militia", "Maj. Gen. Greene"), "10.4");
        refused(&mut g, pass("Loyalist Militia", "Lt. Col. Tarleton"), "6.12");
        let dragoons = g.unit_entity("British Legion Dragoons").unwrap();
        let mut scratch = Report::otp(1, &Action::EndTurn, "");
        g.give_marker(&mut scratch, dragoons, false);
        refused(&mut g, pass("British Legion Dragoons", "Lt. Col. Tarleton"), "10.4");
        let r = ok(&mut g, pass("Loyalist Militia", "Earl Cornwallis"));
        assert!(r.dice.is_empty(), "a pass throws no dice");
        let militia = g.unit_entity("Loyalist Militia").unwrap();
        assert!(!g.has_marker(militia));
        let cornwallis = g.commander_entity("Earl Cornwallis").unwrap();
        assert_eq!(g.commander(cornwallis).morale_passes_used, 1);
        // 10.4: firefight markers must be rolled off.
        let infantry = g.unit_entity("British Legion Infantry").unwrap();
        g.give_marker(&mut scratch, infantry, true);
        g.turn_mut(infantry).marker_turn = Some(0);
        refused(&mut g, pass("British Legion Infantry", "Lt. Col. Tarleton"), "10.4");
    }

    // OTP 10.4: "after an aggressive commander has removed 3 morale markers ... his brigade must
    // roll off any further morale markers for the remainder of the game".
    #[test]
    fn passes_run_out() {
        let mut g = teaching(4);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let cornwallis = g.commander_entity("Earl Cornwallis").unwrap();
        let all = g.passes_left(cornwallis);
        g.world_mut().get_mut::<crate::scenario::spawn::Commander>(cornwallis).unwrap().morale_passes_used = all;
        refused(&mut g, pass("Loyalist Militia", "Earl Cornwallis"), "10.4");
    }

    // OTP 10.2: a pass buys one re-roll after the roll, and the re-roll stands.
    #[test]
    fn reroll_once() {
        let mut g = teaching(9);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let how = Removal::RerollWithPass { commander: "Earl Cornwallis".into() };
        let reroll = Action::RemoveMarker { unit: "Loyalist Militia".into(), how: how.clone() };
        assert_eq!(g.check_removal("Loyalist Militia", &how).map_err(|r| r.rule), Err("10.2".to_string()), "nothing rolled yet");
        refused(&mut g, reroll.clone(), "10.2");
        ok(&mut g, roll("Loyalist Militia"));
        // The read-only check agrees with the action, whatever the first roll did to the marker.
        assert_eq!(g.check_removal("Loyalist Militia", &how), Ok(()));
        refused(&mut g, pass("Loyalist Militia", "Earl Cornwallis"), "10.2");
        let figures = g.unit(g.unit_entity("Loyalist Militia").unwrap()).initial_figures;
        let r = ok(&mut g, reroll.clone());
        assert_eq!(r.dice.iter().filter(|d| d.rule == "10.2").count(), 1);
        let militia = g.unit_entity("Loyalist Militia").unwrap();
        assert!(g.unit(militia).figures <= figures);
        assert!(g.check_removal("Loyalist Militia", &how).is_err(), "one re-roll only");
        refused(&mut g, reroll, "10.2");
    }

    // OTP 10.2: the re-roll sets the first result aside: a retreat is taken back before rolling again.
    #[test]
    fn reroll_takes_back_a_retreat() {
        let seed = (0..200)
            .find(|&seed| {
                let mut g = teaching(seed);
                ok(&mut g, Action::StartGame);
                activate(&mut g, "Tarleton's Brigade");
                ok(&mut g, roll("Loyalist Militia")).outcome.starts_with("Retreat")
            })
            .expect("some seed retreats");
        let mut g = teaching(seed);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let militia = g.unit_entity("Loyalist Militia").unwrap();
        let before = g.capture(militia);
        let r = ok(&mut g, roll("Loyalist Militia"));
        assert!(r.changes.iter().any(|c| c.rule == "6.11"), "{r}");
        assert!(r.dice.iter().any(|d| d.rule == "6.14"), "optional 6.14 is on in the teaching battle: {r}");
        let reroll = Action::RemoveMarker { unit: "Loyalist Militia".into(), how: Removal::RerollWithPass { commander: "Earl Cornwallis".into() } };
        let r = g.apply(reroll).unwrap_or_else(|e| panic!("{e}"));
        if !r.outcome.starts_with("Retreat") {
            let now = g.capture(militia);
            assert_eq!(now.unit.figures, before.unit.figures, "{r}");
            let at = |x: &UnitRestore| x.stands.iter().map(|(_, s, f)| (s.figures, f.centre)).collect::<Vec<_>>();
            assert_eq!(at(&now), at(&before), "{r}");
        }
    }

    // OTP 10.4: a marker another module puts straight into the world (fire's apply_fire) dates
    // from the turn of the action that put it there: no pass that turn, a pass the next.
    #[test]
    fn markers_from_elsewhere_are_dated() {
        let mut g = teaching(4);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let dragoons = g.unit_entity("British Legion Dragoons").unwrap();
        g.world_mut().entity_mut(dragoons).insert(MoraleMarker);
        ok(&mut g, Action::Move { unit: "British Legion Infantry".into(), steps: vec![crate::table::movement::MoveStep::Forward(1.0)] });
        assert_eq!(g.unit_turn(dragoons).marker_turn, Some(1));
        refused(&mut g, pass("British Legion Dragoons", "Lt. Col. Tarleton"), "10.4");
        super::super::testing::to_rebuilds(&mut g);
        ok(&mut g, Action::EndTurn);
        activate(&mut g, "Tarleton's Brigade");
        ok(&mut g, pass("British Legion Dragoons", "Lt. Col. Tarleton"));
    }

    // OTP 6.11: a friendly unit in a retreat's way rolls a D10 against its CV: at or under, the
    // retreat stops short of it; over, it takes a Morale Marker and moves with the retreat.
    #[test]
    fn friends_in_a_retreats_way_roll_against_their_cv() {
        let (mut stood, mut swept) = (0, 0);
        for seed in 0..40 {
            let mut g = teaching(seed);
            ok(&mut g, Action::StartGame);
            let front = g.unit_entity("33rd Foot").unwrap();
            let behind = g.unit_entity("23rd Foot").unwrap();
            // The 23rd, 3" behind the 33rd (which faces down the table, the enemy below it).
            for st in g.unit(behind).stands.clone() {
                g.world_mut().get_mut::<Footprint>(st).unwrap().centre += bevy::math::Vec2::new(10.0, 3.0);
            }
            let y = |g: &Game, e: Entity| g.world().get::<Footprint>(g.unit(e).stands[0]).unwrap().centre.y;
            let (front_y, behind_y) = (y(&g, front), y(&g, behind));
            let mut report = Report::otp(1, &Action::EndTurn, "test");
            g.retreat_unit(&mut report, front, 1);
            let die = report.dice.iter().find(|d| d.rule == "6.11").expect("the friend rolls");
            let cv = g.unit(behind).cv as i32;
            let moved = y(&g, front) - front_y;
            if die.roll.total <= cv {
                stood += 1;
                assert!(!g.has_marker(behind) && moved < 2.3 && moved > 1.5, "seed {seed}: {moved}: {report}");
                assert!((y(&g, behind) - behind_y).abs() < 1e-4);
            } else {
                swept += 1;
                assert!(g.has_marker(behind), "{report}");
                assert!(moved > 5.0 && y(&g, behind) - behind_y > 3.0, "seed {seed}: {moved}: {report}");
            }
            let s = g.situation();
            let (a, b) = (s.find("33rd Foot").unwrap(), s.find("23rd Foot").unwrap());
            assert!(s.unit(a).footprints().iter().all(|f| s.unit(b).footprints().iter().all(|o| !f.overlaps(o, 0.01))), "seed {seed}");
        }
        assert!(stood > 0 && swept > 0, "{stood} {swept}");
    }

    /// Optional 10.6 set-up: the option on, `terrain` added, and Cornwallis put `away` from the
    /// Loyalist Militia's first stand (in Tarleton's activation, the militia's marker a turn old).
    fn sighting(seed: u64, on: bool, terrain: impl Fn(bevy::math::Vec2) -> Vec<Terrain>, away: bevy::math::Vec2) -> Game {
        let mut g = teaching(seed);
        g.scenario.optional_rules.visibility_restrictions = on;
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Tarleton's Brigade");
        let militia = g.unit_entity("Loyalist Militia").unwrap();
        let at = g.world().get::<Footprint>(g.unit(militia).stands[0]).unwrap().centre;
        let extra = terrain(at);
        g.world_mut().resource_mut::<crate::scenario::spawn::Battlefield>().scenario.terrain.extend(extra);
        let cornwallis = g.commander_entity("Earl Cornwallis").unwrap();
        g.world_mut().get_mut::<crate::scenario::spawn::Commander>(cornwallis).unwrap().at = at + away;
        g
    }

    fn box_around(at: bevy::math::Vec2, half: f32) -> Vec<[f32; 2]> {
        vec![[at.x - half, at.y - half], [at.x + half, at.y - half], [at.x + half, at.y + half], [at.x - half, at.y + half]]
    }

    // OTP 10.6 (optional): a commander must see a unit to ride to it for a pass. A blocked line
    // is refused with no dice; woods call for a visibility roll (8.7): beyond it, the action is
    // a report of the roll and nothing else (no ride, no pass spent, the marker stays), and he
    // may not roll again for that unit this turn. With the option off nothing changes.
    #[test]
    fn visibility_restrictions_on_passes() {
        use crate::scenario::model::WoodsDensity;
        use bevy::math::Vec2;
        let woods = |at: Vec2| vec![Terrain::Woods { name: "Thicket".into(), density: WoodsDensity::Dense, outline: box_around(at, 3.0), disorder: None }];
        let v = Charts::embedded().fire.visibility(WoodsDensity::Dense).clone();
        let most = (v.dice as i32 * 5 + v.plus) as f32;
        let far = Vec2::new(0.0, -(most + 3.0));
        let cornwallis = |g: &Game| g.commander_entity("Earl Cornwallis").unwrap();
        let militia = |g: &Game| g.unit_entity("Loyalist Militia").unwrap();
        // Too far to see through the woods: the roll is reported, nothing else happens.
        let mut g = sighting(4, true, woods, far);
        let was = g.commander(cornwallis(&g)).at;
        let r = ok(&mut g, pass("Loyalist Militia", "Earl Cornwallis"));
        assert!(r.dice.iter().any(|d| d.rule == "10.6") && r.changes.is_empty(), "{r}");
        assert!(g.has_marker(militia(&g)));
        assert_eq!(g.commander(cornwallis(&g)).morale_passes_used, 0);
        assert_eq!(g.commander(cornwallis(&g)).at, was);
        refused(&mut g, pass("Loyalist Militia", "Earl Cornwallis"), "10.6");
        ok(&mut g, roll("Loyalist Militia"));
        // Beside the unit in the woods: the roll is made and he sees it.
        let mut g = sighting(4, true, woods, Vec2::new(0.0, -0.5));
        let r = ok(&mut g, pass("Loyalist Militia", "Earl Cornwallis"));
        if v.dice as i32 + v.plus >= 1 {
            assert!(r.dice.iter().any(|d| d.rule == "10.6") && !g.has_marker(militia(&g)), "{r}");
        }
        // A town between them blocks the line: refused, no dice.
        let town = |at: Vec2| vec![Terrain::Town { name: "Hamlet".into(), outline: vec![[at.x - 9.0, at.y - 6.0], [at.x + 9.0, at.y - 6.0], [at.x + 9.0, at.y - 4.0], [at.x - 9.0, at.y - 4.0]], capacity: 5 }];
        let mut g = sighting(4, true, town, Vec2::new(0.0, -10.0));
        refused(&mut g, pass("Loyalist Militia", "Earl Cornwallis"), "10.6");
        // The option off: no roll, the pass is used.
        let mut g = sighting(4, false, woods, far);
        let r = ok(&mut g, pass("Loyalist Militia", "Earl Cornwallis"));
        assert!(r.dice.is_empty() && !g.has_marker(militia(&g)), "{r}");
    }

    // OTP 7.4: an artillery unit ignores mandatory forward movement results (treated as Deploy).
    #[test]
    fn artillery_ignores_forward_results() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        let guns = g.unit_entity("Royal Artillery").unwrap();
        let foot = g.unit_entity("33rd Foot").unwrap();
        let mut report = Report::otp(1, &Action::EndTurn, "test");
        g.apply_result(&mut report, guns, MoraleResult::Forward);
        g.apply_result(&mut report, foot, MoraleResult::Forward);
        assert_eq!(g.unit_turn(guns).restriction, Some(MoraleResult::Deploy), "{report}");
        assert_eq!(g.unit_turn(foot).restriction, Some(MoraleResult::Forward));
        assert!(report.changes.iter().any(|c| c.rule == "7.4"));
    }
}
