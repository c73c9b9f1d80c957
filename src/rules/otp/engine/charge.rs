//! Charges and melee (6.8–6.11, 7.2, 7.5, 9.0–9.14): one `Action::Charge` (or `ChargeWith`)
//! plays the whole sequence and writes it into one report, in the order it happens:
//!
//! 1. **Declaration** (9.0, 6.9, 6.8, 3.1–3.3): judged before any die — the attacker's operation
//!    (`permit`; a 6.10 bonus move counts), artillery never initiates (7.2), a column only with a
//!    leader (9.1), the charge within the formation's normal move (cavalry in line 24", 6.9),
//!    charging cavalry not through disordering terrain or over linear obstacles (6.9), a special
//!    move not through disordering terrain (6.8), attached guns within their own move (7.5).
//! 2. **Closure** (9.1) by where the attacker starts: flank and rear close automatically.
//! 3. **Failure to close** (9.2): a firefight (9.3) for infantry line on infantry line's front,
//!    a column closes half way and deploys (militia also take a marker), cavalry stand, others
//!    close half way; the target then fires if the failed attacker is in its arc.
//! 4. **Special move** (6.8): after closure the AD is rolled; short of contact the unit moves
//!    its whole special move and takes a Morale Marker.
//! 5. **Disordering terrain** (6.6) on an infantry charge is rolled for as on any move; a charge
//!    cut short by it stops where the move ends, without melee.
//! 6. **Countercharge** (9.5): a mounted cavalry target charged on its front always tries when
//!    eligible (unless `ChargeOptions::countercharge` declines): if it passes its closure check
//!    both count as attacking in the melee (the simplest faithful reading: neither is the
//!    defender; the attacker stays where its charge put it).
//! 7. **Reaction** (9.4): militia and Indian infantry, and light infantry in skirmish line, roll
//!    CV (9.6); failing, they withdraw two full line moves with a marker and there is no melee;
//!    militia passing fight; light and Indians passing fire at 2" and stay
//!    (`Reaction::Stay`) or fire and withdraw one line move in good order (`Reaction::Withdraw`).
//! 8. **Closing fire** (9.7) on a front attack that closes, before the melee.
//! 9. **Melee** (9.8–9.14) with the melee module's values: a D10 each side, ties re-rolled, the
//!    MELEE COMBAT row, losses by unit (a marker for any loss), the loser retreats a full move
//!    per AD (6.11, 6.14), artillery that loses is removed and artillery that wins takes its
//!    losses as fire losses (7.2, 7.1), attached guns' losses come off their infantry and their
//!    crews retreat with it (7.5), each attached commander rolls D10 (9.11), cavalry that
//!    charged takes a marker (6.9), and a winner at 2:1 or more is offered a bonus move (6.10).
//!
//! Choices where the text is silent: a charge, whatever comes of it, ends the unit's operation
//! (recorded as `Activity::Charge`: no fire or move after it but a bonus move); a leader
//! attached to the attacker goes with its charge; a withdrawal "in good order" (9.4) and a
//! 9.3/9.4 withdrawal both go straight away from the nearest enemy like a retreat (6.11),
//! terrain costs ignored; cavalry takes its 6.9 marker whenever it made its charge move (also
//! when the target withdrew before contact), a countercharger too; on a losing side each unit
//! rolls its own losses; a bonus move is offered for the activation it is won in and is still
//! refused to a unit with a Morale Marker (10.1), so charging cavalry, which always ends with
//! one (6.9), never uses it.

use std::borrow::Cow;

use bevy::prelude::Entity;
use serde::Serialize;

use super::action::{Action, ChargeOptions, Reaction};
use super::operations::{Activity, Asked, Permit};
use super::report::{Refusal, Report, refuse};
use super::Game;
use crate::rules::otp::charts::{Ammo, ArmClass, MoraleResult};
use crate::rules::dice::{DiceKind, Roll};
use crate::rules::otp::fire::{self, FireContext, FireOccasion, FireReport, FireTable, GunHits};
use crate::rules::otp::melee::{self, ChargeFacts, ClosureCheck, CvRoll, Melee, MeleeTable, Outcomes, RollFacts, UnitValue};
use crate::scenario::model::{Arm, Formation, UnitType};
use crate::scenario::spawn::{Stand, Unit};
use crate::table::aspect::AttackZone;
use crate::table::contact::{self, ChargePath, Blockers};
use crate::table::footprint::Footprint;
use crate::table::geom::EPS;
use super::move_rules::OTP;
use crate::table::movement::{Allowance, MoveStep, plan_move};

/// How far short of the defender a firefight's attacker stops (9.3), inches.
const FIREFIGHT_GAP: f32 = 2.0;

/// How much of a charge's declaration to work out.
#[derive(Clone, Copy, PartialEq)]
enum Weighing {
    /// All of it: a player's preview, the engine applying the charge.
    Full,
    /// The automatic player's question, asked of many charges: a charge with a unit in the way
    /// is refused on the first one found (contact::Blockers).
    Quick,
}

/// A charge judged before any die is thrown: everything the resolution needs.
struct Declared<'t> {
    unit: Entity,
    target: Entity,
    permit: Permit,
    path: ChargePath,
    closure: ClosureCheck,
    /// 6.8: the averaging dice of a special move to contact.
    special: Option<u8>,
    /// The full move a special move adds its dice to (6.8).
    full: f32,
    /// 9.3: it fired before its closure attempt (fire & 1/2 move).
    fired_before: bool,
    options: ChargeOptions,
    /// The table as it was declared on.
    table: Cow<'t, MeleeTable>,
}

/// What a charge would be, for a player or the bot to weigh: nothing rolled or changed.
#[derive(Clone, Debug, Serialize)]
pub struct ChargePreview {
    pub zone: AttackZone,
    /// Inches the charge move costs.
    pub distance: f32,
    pub closure: ClosureCheck,
    /// 9.4: the target's reaction roll once the charge closes, if it must make one.
    pub reaction: Option<ReactionOdds>,
    /// The melee if it closes (before closing fire, reactions and countercharges).
    pub melee: Melee,
    pub outcomes: Outcomes,
    /// The target's fire at the attacker in contact before the melee (9.7 on a front attack; 9.4
    /// light infantry or Indians that pass their reaction) and the melee's odds after it; `None`
    /// when no such fire comes (a flank or rear attack, a cavalry target that may countercharge,
    /// a target the fire rules do not let fire).
    pub closing_fire: Option<ClosingFire>,
    /// The charge's geometry: its path to contact, what it crosses (6.5–6.9, 9.1).
    pub path: ChargePath,
    /// It is a special move to contact (6.8).
    pub special: bool,
}

/// 9.7 (or 9.4): the target's fire at the attacker in contact, then the melee, weighed over every
/// result of that fire: its kills come off the attacker's figures before the melee and its
/// Morale Marker disorders it (9.13, 10.1).
#[derive(Clone, Debug, Serialize)]
pub struct ClosingFire {
    /// "9.7" or "9.4".
    pub rule: &'static str,
    pub fire: fire::FirePreview,
    /// The chance the attacker wins the melee once closed, counting the fire.
    pub attacker_wins: f64,
    /// The same for a win at 2:1 or better (6.10).
    pub bonus_move: f64,
    /// The chance the fire destroys the attacker before it can strike.
    pub destroyed: f64,
}

impl ChargePreview {
    /// The chance the attacker wins the melee once it has closed (9.8), counting the target's
    /// fire before it (9.7, 9.4) where that fire comes.
    pub fn wins_once_closed(&self) -> f64 {
        self.closing_fire.as_ref().map_or(self.outcomes.attacker_wins, |c| c.attacker_wins)
    }
}

/// 9.4: a militia, Indian or skirmishing light target's CV roll when the charge closes. Failing,
/// it withdraws two full line moves with a Morale Marker and there is no melee.
#[derive(Clone, Debug, Serialize)]
pub struct ReactionOdds {
    pub roll: CvRoll,
    /// Passing, it fights (militia); else it fires at 2" and then stays or withdraws (its choice).
    pub fights: bool,
}

impl ReactionOdds {
    /// The chance it stands: passes its roll.
    pub fn stands(&self) -> f64 {
        self.roll.probability
    }
    /// Its roll in the rules' words, for the previews.
    pub fn roll_text(&self) -> String {
        crate::rules::dice::d10_at_or_under(self.roll.total_modifier, &format!("CV {}", self.roll.target))
    }
    /// What it does when it passes, for the previews.
    pub fn passing(&self) -> &'static str {
        if self.fights { "stands and fights" } else { "fires at 2\" or less, then stays for the melee or withdraws one line move (its choice)" }
    }
}

/// How a charge ended for the attacker's record.
struct Moved {
    inches: f32,
    /// It made its charge move (6.9: cavalry takes a marker afterwards).
    charged: bool,
}

fn is_artillery(u: &Unit) -> bool {
    matches!(u.arm, Arm::Artillery { .. })
}

impl Game {
    /// Would this charge be allowed now? Its closure chance and the melee's exact odds; nothing
    /// is rolled or changed.
    pub fn charge_preview(&self, name: &str, target: &str, options: ChargeOptions) -> Result<ChargePreview, Refusal> {
        self.charge_preview_when(Asked::Now, name, target, options)
    }

    /// As [`Game::charge_preview`], asked now or as if the attacker's brigade had just been
    /// drawn (`otp melee` at set-up): the same declaration, the same refusals.
    pub fn charge_preview_when(&self, asked: Asked, name: &str, target: &str, options: ChargeOptions) -> Result<ChargePreview, Refusal> {
        self.preview_charge(asked, name, target, options, Weighing::Full)
    }

    /// For each of `targets`, the preview of `name`'s charge on it if allowed now, else `None`:
    /// the same declaration as [`Game::charge_preview`], and a charge with a unit in the way
    /// refused on the first one found, without the refusal's full account (the automatic player
    /// weighs every charge in reach).
    pub fn charge_previews_if_allowed(&self, name: &str, targets: &[String], options: ChargeOptions) -> Vec<Option<ChargePreview>> {
        targets.iter().map(|target| self.preview_charge(Asked::Now, name, target, options, Weighing::Quick).ok()).collect()
    }

    /// A charge weighed on the table kept between actions ([`Game::melee_table`]).
    fn preview_charge(&self, asked: Asked, name: &str, target: &str, options: ChargeOptions, weighing: Weighing) -> Result<ChargePreview, Refusal> {
        let d = self.declare(asked, name, target, options, weighing, || Cow::Borrowed(self.melee_table()))?;
        let (a, t) = (d.path.attacker, d.path.target);
        let placed = d.table.with_stands(a, &d.path.stands);
        let defenders = self.defenders(&placed.situation, a, t);
        let melee = melee::assess(&placed, &self.charts, &[a], &defenders, &[ChargeFacts::from(&d.path)]);
        let outcomes = melee::outcomes(&self.charts, &melee);
        // The roll resolution makes on the table as declared (the attacker not yet moved); a
        // cavalry target countercharges instead, and only infantry reacts.
        let reaction = self.reacts(d.target).map(|kind| ReactionOdds { roll: melee::cv_roll(&d.table, &self.charts, t, a, RollFacts { defending: true, ..RollFacts::default() }), fights: kind == ReactionKind::Fights });
        // The fire before the melee, as `resolve_charge` gives it: 9.4's by a target that fires
        // when it passes, else 9.7's on a front attack (not by cavalry that may countercharge).
        let fires_in_reaction = reaction.as_ref().is_some_and(|r| !r.fights);
        let countercharges = self.arm(d.target) == ArmClass::Cavalry && d.options.countercharge;
        let rule = if fires_in_reaction { Some("9.4") } else if d.path.zone == AttackZone::Front && !countercharges { Some("9.7") } else { None };
        let closing_fire = rule.and_then(|rule| self.closing_fire(rule, &placed, t, a, &defenders, &d.path));
        Ok(ChargePreview { zone: d.path.zone, distance: d.path.distance, closure: d.closure, reaction, melee, outcomes, closing_fire, special: d.special.is_some(), path: d.path })
    }

    /// The target's fire at the attacker in contact (`a` placed there on `placed`) and the
    /// melee's odds over its results; `None` when the fire rules do not let it fire.
    fn closing_fire(&self, rule: &'static str, placed: &MeleeTable, t: usize, a: usize, defenders: &[usize], path: &ChargePath) -> Option<ClosingFire> {
        let ctx = self.defensive_ammo(FireContext::new(placed, t, a).occasion(FireOccasion::AtChargingUnit));
        let shot = fire::preview(&ctx, &self.charts).ok()?;
        let figures = placed.situation.unit(a).figures();
        let (mut wins, mut bonus, mut destroyed) = (0.0, 0.0, 0.0);
        // (kills, marker) → the melee's odds after them: a handful of results, each weighed once.
        let mut after: Vec<((u32, bool), (f64, f64))> = Vec::new();
        for o in &shot.outcomes {
            if o.kills >= figures {
                destroyed += o.probability;
                continue;
            }
            let key = (o.kills, o.morale_marker);
            let (w, b) = match after.iter().find(|(k, _)| *k == key) {
                Some(&(_, odds)) => odds,
                None => {
                    let mut hit = placed.clone();
                    hit.fire.situation = placed.situation.with_losses(a, o.kills);
                    hit.fire.units[a].morale_marker |= o.morale_marker;
                    let m = melee::outcomes(&self.charts, &melee::assess(&hit, &self.charts, &[a], defenders, &[ChargeFacts::from(path)]));
                    after.push((key, (m.attacker_wins, m.bonus_move)));
                    (m.attacker_wins, m.bonus_move)
                }
            };
            wins += o.probability * w;
            bonus += o.probability * b;
        }
        Some(ClosingFire { rule, fire: shot, attacker_wins: wins, bonus_move: bonus, destroyed })
    }

    /// The unit's index on a table built from the world.
    fn index(&self, s: &crate::table::situation::Situation, unit: Entity) -> usize {
        s.find(&self.unit(unit).name).expect("every unit in the world is on the table")
    }

    /// 9.0, 9.1, 6.8, 6.9, 7.2, 7.5, 3.x: the charge judged, nothing rolled, on `table` (asked
    /// for once the cheaper refusals are past).
    fn declare<'t>(&self, asked: Asked, name: &str, target: &str, options: ChargeOptions, weighing: Weighing, table: impl FnOnce() -> Cow<'t, MeleeTable>) -> Result<Declared<'t>, Refusal> {
        let unit = self.find_unit(name)?;
        let arm = self.arm(unit);
        if arm == ArmClass::Artillery {
            return refuse("7.2", format!("{name} is artillery: artillery may never initiate a combat"));
        }
        let special = if options.special { self.charts.movement.special_move_dice(arm) } else { None };
        let act = if arm == ArmClass::Cavalry && special.is_none() { Activity::Charge } else { Activity::Move };
        let permit = self.permit_when(asked, unit, &[act])?;
        if special.is_some() && !permit.bonus && !self.unit_turn(unit).done.is_empty() {
            return refuse("6.8", format!("{name} has already acted this turn: a special move is a full move, without fire or a change of formation"));
        }
        let target_unit = self.find_unit(target)?;
        if self.unit(target_unit).side == self.unit(unit).side {
            return refuse("9.0", format!("{target} is on {name}'s own side: a charge is made on an enemy unit"));
        }
        if self.unit_turn(target_unit).off_table || self.unit(target_unit).figures == 0 {
            return refuse("6.11", format!("{target} has left the table"));
        }
        let table = table();
        let blockers = if weighing == Weighing::Quick { Blockers::First } else { Blockers::Every };
        let s = &table.situation;
        let (a, t) = (self.index(s, unit), self.index(s, target_unit));
        // Weighing many charges, a path longer than any allowance below is refused whatever the
        // real table adds to it: the path finder stops at the bare table's length.
        let cavalry = arm == ArmClass::Cavalry;
        let formation = self.unit(unit).formation;
        let full = self.allowance_for(&permit).full * permit.factor;
        let reach = match (weighing, special) {
            (Weighing::Quick, None) if cavalry && formation == Formation::Line => Some(self.charts.movement.cavalry_charge() * permit.factor),
            (Weighing::Quick, None) if cavalry => Some(full),
            (Weighing::Quick, None) => self.most_budget(&permit).map(|most| most - permit.spent),
            _ => None,
        };
        let path = contact::charge_path_finding(s, a, t, &OTP, blockers, reach.map(|r| r + EPS));
        let closure = melee::closure(&table, &self.charts, a, t, &path).map_err(|(rule, reason)| Refusal::otp(&rule, reason))?;
        if let Some(p) = &path.problem {
            return refuse(p.section, format!("{name}'s charge on {target}: {}", p.reason));
        }
        if let Some(other) = path.interpenetrates.first() {
            return refuse("6.5", format!("{name}'s charge on {target} would pass through {other}"));
        }
        if cavalry && special.is_none() {
            if let Some((terrain, _)) = path.disordering.first() {
                return refuse("6.9", format!("{name} is charging cavalry: it may not move through disordering terrain ({terrain})"));
            }
            if let Some(obstacle) = path.obstacles.first() {
                return refuse("6.9", format!("{name} is charging cavalry: it may not cross a linear obstruction ({obstacle})"));
            }
        }
        if special.is_some()
            && let Some((terrain, _)) = path.disordering.first()
        {
            return refuse("6.8", format!("{name}: a special move may not move through disordering terrain ({terrain})"));
        }
        let halved = if permit.factor < 1.0 { " (halved by a Half move morale result, 10.2)" } else { "" };
        match special {
            Some(dice) => {
                let most = full + DiceKind::Ad(dice).range().1 as f32;
                if path.distance > most + EPS {
                    return refuse("6.8", format!("{name}'s special move to contact would need {:.2}\": even the best roll gives {most:.2}\" ({full:.2}\" + {dice}AD){halved}", path.distance));
                }
            }
            None if cavalry && formation == Formation::Line => {
                let most = self.charts.movement.cavalry_charge() * permit.factor;
                if path.distance > most + EPS {
                    return refuse("6.9", format!("{name}'s charge would be {:.2}\": cavalry in line charges at most {most:.2}\"{halved}", path.distance));
                }
            }
            None if cavalry => {
                if path.distance > full + EPS {
                    return refuse("6.9", format!("{name}'s charge would be {:.2}\": no further than its normal {formation:?} move of {full:.2}\"{halved}", path.distance));
                }
            }
            None => {
                self.within_budget(&permit, permit.spent + path.distance, None).map_err(|r| {
                    // 6.8: a special move to contact adds the averaging dice to the full move.
                    let dice = self.charts.movement.special_move_dice(arm).filter(|_| self.unit_turn(unit).done.is_empty() && path.disordering.is_empty());
                    let reach = dice.map(|d| full + DiceKind::Ad(d).range().1 as f32).filter(|&most| path.distance <= most + EPS);
                    let hint = reach.map_or(String::new(), |most| format!("; a special move to contact (6.8) could reach: at most {most:.2}\""));
                    Refusal::otp("6.9", format!("a charge moves no further than a normal move: {}{hint}", r.reason))
                })?;
            }
        }
        if arm == ArmClass::Infantry {
            let plan = self.plan_charge(unit, &path);
            self.check_carried(name, &plan)?;
        }
        let fired_before = self.unit_turn(unit).done.contains(&Activity::Fire);
        Ok(Declared { unit, target: target_unit, permit, path, closure, special, full, fired_before, options, table })
    }

    /// The charge move as the table plans it (for attached guns carried along, 7.5).
    fn plan_charge(&self, unit: Entity, path: &ChargePath) -> crate::table::movement::MoveReport {
        let s = self.situation();
        let index = self.index(&s, unit);
        plan_move(&s, index, &path.steps, Allowance::new(path.distance + 1.0), &OTP)
    }

    /// Enemy units in contact with the attacker at `a` (9.8), the target first.
    fn defenders(&self, s: &crate::table::situation::Situation, a: usize, t: usize) -> Vec<usize> {
        let mut out = vec![t];
        out.extend(contact::units_in_contact(s, a).into_iter().filter(|&i| i != t && s.unit(i).side != s.unit(a).side));
        out
    }

    pub(super) fn charge(&mut self, action: &Action, name: &str, target: &str, options: ChargeOptions) -> Result<Report, Refusal> {
        let d = self.declare(Asked::Now, name, target, options, Weighing::Full, || Cow::Owned(MeleeTable::from_world(&self.world)))?;
        // Judged legal: from here the dice roll and the world changes.
        let how = if d.special.is_some() { "special move to contact (6.8)" } else { "charge (6.9, 9.0)" };
        let mut report = Report::otp(self.turn(), action, format!("{name} declares a {how} on {target}"));
        if d.permit.bonus {
            report.note("6.10", format!("{name} takes its bonus move"));
        }
        report.note("9.1", format!("{name} starts on {target}'s {:?} ({:?} face); the charge is {:.2}\"", d.path.zone, d.path.face, d.path.distance));
        let moved = self.resolve_charge(&mut report, &d);
        // Stragglers (6.14) or losses may leave a unit with no figures: it is off the table.
        for u in self.live_units().filter(|&u| self.unit(u).figures == 0).collect::<Vec<_>>() {
            self.remove_unit(&mut report, u);
        }
        if self.world.get::<Unit>(d.unit).is_none() {
            return Ok(report);
        }
        self.record(&d.permit, d.permit.spent + moved.inches);
        if !d.permit.bonus {
            // A charge ends the operation: no fire or move after it (3.0, 6.8).
            let mut t = self.turn_mut(d.unit);
            if let Some(last) = t.done.last_mut() {
                *last = Activity::Charge;
            }
            t.special_move |= d.special.is_some();
        }
        if moved.charged && self.arm(d.unit) == ArmClass::Cavalry && self.alive(d.unit) {
            report.note("6.9", format!("{name} made a charge move: it receives a Morale Marker whatever the result"));
            self.give_marker(&mut report, d.unit, false);
        }
        Ok(report)
    }

    /// Still in the game.
    fn alive(&self, unit: Entity) -> bool {
        self.world.get::<Unit>(unit).is_some_and(|u| u.figures > 0) && !self.unit_turn(unit).off_table
    }

    fn resolve_charge(&mut self, report: &mut Report, d: &Declared) -> Moved {
        let (name, target) = (self.unit(d.unit).name.clone(), self.unit(d.target).name.clone());
        // 9.1 closure.
        let closed = if d.closure.automatic {
            report.note("9.1", format!("a {:?} attack closes automatically", d.closure.zone));
            true
        } else {
            self.check_roll(report, "9.1", &format!("{name}'s closure on {target}"), d.closure.cv, &d.closure.modifiers, d.closure.total_modifier)
        };
        if !closed {
            return self.failed_closure(report, d);
        }
        // 6.8: the special move's dice, rolled once closure is passed.
        let mut reach = d.path.distance;
        if let Some(dice) = d.special {
            let roll = self.dice.ad(dice);
            report.die("6.8", format!("{dice}AD added to {name}'s full move"), &roll);
            reach = d.full + roll.total as f32;
            if d.path.distance > reach + EPS {
                let s = self.situation();
                let stands = contact::part_way(&s, &OTP, &d.path, (reach / d.path.distance).clamp(0.0, 1.0));
                self.move_stands(report, d.unit, &stands, true);
                report.change("6.8", format!("{name}'s special move of {reach:.2}\" falls short of {target} ({:.2}\"): it moves its whole special move", d.path.distance));
                report.note("6.8", "a special move to contact that cannot reach leaves the unit badly disorganised");
                self.give_marker(report, d.unit, false);
                return Moved { inches: reach, charged: false };
            }
        }
        // 6.6: disordering terrain on an infantry charge.
        if !d.path.disordering.is_empty() {
            let plan = self.plan_charge(d.unit, &d.path);
            let allowance = Allowance::new(reach.max(d.path.distance));
            let plan = self.roll_for_terrain(report, d.unit, &d.path.steps, plan, allowance, self.allowance_for(&d.permit).full * d.permit.factor);
            if plan.spent < d.path.distance - 0.05 {
                let formation = self.unit(d.unit).formation;
                self.place(d.unit, &plan.stands, formation);
                report.change("6.6", format!("the terrain stops {name} after {:.2}\", short of {target}: no melee", plan.spent));
                return Moved { inches: plan.spent, charged: true };
            }
        }
        let table = MeleeTable::from_world(&self.world);
        let (a, t) = (self.index(&table.situation, d.unit), self.index(&table.situation, d.target));
        // 9.5 countercharge.
        let counter = self.countercharge(report, d, &table, a, t);
        let countercharged = counter.is_some();
        // 9.4 reaction.
        let mut fired = false;
        if !countercharged && let Some(reaction) = self.reacts(d.target) {
            let roll = melee::cv_roll(&table, &self.charts, t, a, RollFacts { defending: true, ..RollFacts::default() });
            if !self.cv_check(report, "9.4", &format!("{target}'s reaction to the charge"), &roll) {
                report.change("9.4", format!("{target} fails its reaction: it withdraws two full line moves and receives a Morale Marker; no melee"));
                self.give_marker(report, d.target, false);
                self.withdraw(report, d.target, self.charts.melee.reaction_withdraw.value);
                self.close_to_contact(report, d);
                return Moved { inches: d.path.distance, charged: true };
            }
            if reaction == ReactionKind::Fires {
                self.close_to_contact(report, d);
                report.note("9.4", format!("{target} passes: it fires at 2\" or less"));
                self.defensive_fire(report, d.target, d.unit, FireOccasion::AtChargingUnit, false, "9.4");
                fired = true;
                if d.options.reaction == Reaction::Withdraw && self.alive(d.target) {
                    report.change("9.4", format!("{target} fires and withdraws one line move in good order: no melee"));
                    self.withdraw(report, d.target, 1);
                    return Moved { inches: d.path.distance, charged: true };
                }
                report.note("9.4", format!("{target} fires and stays for the melee"));
            } else {
                report.note("9.4", format!("{target} is militia and passes: a melee results"));
            }
        }
        if !fired {
            self.close_to_contact(report, d);
        }
        // 9.7 closing fire on a front attack.
        if d.path.zone == AttackZone::Front && !fired && !countercharged && self.alive(d.target) {
            report.note("9.7", format!("{name} closes on {target}'s front: {target} fires as if at 2\" or less before the melee"));
            self.defensive_fire(report, d.target, d.unit, FireOccasion::AtChargingUnit, false, "9.7");
        }
        if !self.alive(d.unit) {
            report.outcome = format!("{name} is destroyed before it can strike: no melee");
            return Moved { inches: d.path.distance, charged: true };
        }
        self.melee(report, d, counter.as_ref());
        if countercharged && self.alive(d.target) {
            report.note("6.9", format!("{} made a charge move (its countercharge): it receives a Morale Marker whatever the result", self.unit(d.target).name));
            self.give_marker(report, d.target, false);
        }
        Moved { inches: d.path.distance, charged: true }
    }

    /// 9.4: how the target reacts to being contacted, if it must.
    fn reacts(&self, target: Entity) -> Option<ReactionKind> {
        let u = self.unit(target);
        if ArmClass::from(u.arm) != ArmClass::Infantry {
            return None;
        }
        match u.unit_type {
            UnitType::Militia => Some(ReactionKind::Fights),
            UnitType::Indian => Some(ReactionKind::Fires),
            UnitType::Light if u.formation == Formation::Skirmish => Some(ReactionKind::Fires),
            _ => None,
        }
    }

    /// 9.5: a mounted cavalry target charged on its front tries to countercharge; its charge
    /// (from where it stood) when it does.
    fn countercharge(&mut self, report: &mut Report, d: &Declared, table: &MeleeTable, a: usize, t: usize) -> Option<ChargePath> {
        let target = self.unit(d.target).name.clone();
        if self.arm(d.target) != ArmClass::Cavalry || d.path.zone != AttackZone::Front {
            return None;
        }
        if !d.options.countercharge {
            report.note("9.5", format!("{target} does not countercharge"));
            return None;
        }
        let back = contact::charge_path(&table.situation, t, a, &OTP);
        match melee::countercharge(table, &self.charts, t, a, &back) {
            Err((rule, reason)) => {
                report.note(&rule, format!("{target} cannot countercharge: {reason}"));
                None
            }
            Ok(check) => {
                let passed = self.check_roll(report, "9.5", &format!("{target}'s countercharge"), check.cv, &check.modifiers, check.total_modifier);
                if passed {
                    report.change("9.5", format!("{target} countercharges: both count as attacking in the melee"));
                } else {
                    report.note("9.5", format!("{target} fails to countercharge and receives the charge"));
                }
                passed.then_some(back)
            }
        }
    }

    /// A D10 plus modifiers against a CV (9.1, 9.5): passes at or under.
    fn check_roll(&mut self, report: &mut Report, rule: &str, what: &str, cv: i32, modifiers: &[melee::Modifier], total: i32) -> bool {
        let roll = self.dice.d10();
        report.die(rule, what, &roll);
        for m in modifiers {
            report.modifier(&m.rule, &m.label, m.value);
        }
        let passed = roll.total + total <= cv;
        report.note(rule, format!("{what}: {} {:+} = {} against CV {cv}: {}", roll.total, total, roll.total + total, if passed { "passes" } else { "fails" }));
        passed
    }

    /// A 9.6 CV roll made and reported.
    fn cv_check(&mut self, report: &mut Report, rule: &str, what: &str, roll: &CvRoll) -> bool {
        self.check_roll(report, rule, what, roll.target, &roll.modifiers, roll.total_modifier)
    }

    /// Put the attacker's stands where a move put them. Leaders attached to it go with it, each
    /// keeping his place by his nearest stand: the leader of a column's charge (9.1) is still with
    /// it in the melee (9.10, 9.11). Guns attached to it (7.5) keep their place beside it too, so
    /// that a partial move (a firefight's stand-off 9.3, a special move falling short 6.8, a
    /// half-way stop 9.2) never leaves the unit standing on its own guns (6.5); a gun whose
    /// place would be on another unit or off the table stays where it was. `carry_guns`: false
    /// when the table's plan of the move places the guns itself.
    fn move_stands(&mut self, report: &mut Report, unit: Entity, stands: &[Footprint], carry_guns: bool) {
        let table = FireTable::from_world(&self.world);
        let leaders = table.situation.find(&self.unit(unit).name).map(|i| table.state(i).commanders.clone()).unwrap_or_default();
        let before: Vec<Footprint> = self.unit(unit).stands.iter().filter_map(|&s| self.world.get::<Footprint>(s).copied()).collect();
        for name in leaders {
            let Some(c) = self.commander_entity(&name) else { continue };
            let at = self.commander(c).at;
            let nearest = (0..before.len().min(stands.len())).min_by(|&i, &j| before[i].centre.distance(at).total_cmp(&before[j].centre.distance(at)));
            if let Some(i) = nearest {
                let (from, to) = (before[i], stands[i]);
                let d = at - from.centre;
                let moved = to.centre + to.right() * d.dot(from.right()) + to.forward() * d.dot(from.forward());
                self.world.get_mut::<crate::scenario::spawn::Commander>(c).expect("a commander").at = moved;
            }
        }
        let formation = self.unit(unit).formation;
        self.place(unit, stands, formation);
        self.turn_mut(unit).moved = true;
        if let (true, Some(&from), Some(&to)) = (carry_guns, before.first(), stands.first()) {
            self.carry_attached_guns(report, unit, from, to);
        }
    }

    /// 7.5: move `unit`'s attached guns as its first stand moved, `from` → `to`, where that
    /// place is clear of every other unit and on the table.
    fn carry_attached_guns(&mut self, report: &mut Report, unit: Entity, from: Footprint, to: Footprint) {
        if from.centre.distance(to.centre) <= EPS && (from.facing - to.facing).abs() <= EPS {
            return;
        }
        let turned = to.facing - from.facing;
        let carry = |f: &Footprint| {
            let d = f.centre - from.centre;
            Footprint { centre: to.centre + to.right() * d.dot(from.right()) + to.forward() * d.dot(from.forward()), facing: (f.facing + turned).rem_euclid(360.0), ..*f }
        };
        let (w, h) = (self.scenario.table.width, self.scenario.table.depth);
        let guns: Vec<Entity> = self.live_units().filter(|&g| self.unit(g).attached_to == Some(unit)).collect();
        for gun in guns {
            let moved: Vec<Footprint> = self.unit(gun).stands.iter().filter_map(|&s| self.world.get::<Footprint>(s)).map(carry).collect();
            let on_table = moved.iter().flat_map(|f| f.corners()).all(|c| c.x >= -EPS && c.y >= -EPS && c.x <= w + EPS && c.y <= h + EPS);
            let others: Vec<Footprint> = self
                .live_units()
                .filter(|&o| o != unit && o != gun && self.unit(o).attached_to != Some(unit))
                .flat_map(|o| self.unit(o).stands.clone())
                .filter_map(|s| self.world.get::<Footprint>(s).copied())
                .collect();
            if !on_table || moved.iter().any(|m| others.iter().any(|o| m.overlaps(o, 0.01))) {
                continue;
            }
            let (formation, name) = (self.unit(gun).formation, self.unit(gun).name.clone());
            self.place(gun, &moved, formation);
            self.turn_mut(gun).moved = true;
            report.change("7.5", format!("{name} keeps its place with {}", self.unit(unit).name));
        }
    }

    /// The attacker moves into contact (9.7), its attached guns with it (7.5).
    fn close_to_contact(&mut self, report: &mut Report, d: &Declared) {
        let name = self.unit(d.unit).name.clone();
        // A target that withdrew (9.4) may have been stopped in the way: the attacker then
        // stays where it is rather than end on top of it (6.5).
        let s = self.situation();
        let me = self.index(&s, d.unit);
        let own = |i: usize| i == me || self.unit_entity(&s.unit(i).name).is_some_and(|g| self.unit(g).attached_to == Some(d.unit));
        let blocked = (0..s.units().len()).filter(|&i| !own(i)).flat_map(|i| s.unit(i).footprints()).any(|f| d.path.stands.iter().any(|a| a.overlaps(&f, 0.01)));
        if blocked {
            report.note("6.5", format!("{name}'s way into contact is not clear: it stays where it is"));
            return;
        }
        let plan = self.plan_charge(d.unit, &d.path);
        // The table's plan carries the guns along the path when it can (7.5); else they keep
        // their place beside the unit.
        self.move_stands(report, d.unit, &d.path.stands, !plan.legal());
        if plan.legal() {
            self.place_carried(report, &name, &plan);
        }
        self.carry_riders(report, d.unit, false);
        report.change("9.7", format!("{name} moves {:.2}\" into contact", d.path.distance));
    }

    /// 9.3, 9.4: withdraw `moves` full LINE moves straight away from the enemy.
    fn withdraw(&mut self, report: &mut Report, unit: Entity, moves: u8) {
        let inches = moves as f32 * self.normal_move(unit, Formation::Line);
        self.retreat_by(report, unit, moves, inches);
    }

    /// Fire at a charging or closing unit (9.2–9.4, 9.7), or a firefight round (9.3). A shot the
    /// fire rules do not allow (out of arc, nothing sees) is noted and nothing happens.
    fn defensive_fire(&mut self, report: &mut Report, firer: Entity, target: Entity, occasion: FireOccasion, disordered: bool, rule: &str) {
        self.fire_seeing(report, firer, target, occasion, disordered, rule, None);
    }

    /// [`Self::defensive_fire`] with the firer's woods visibility already known (8.7, 9.3).
    #[allow(clippy::too_many_arguments)]
    fn fire_seeing(&mut self, report: &mut Report, firer: Entity, target: Entity, occasion: FireOccasion, disordered: bool, rule: &str, visibility: Option<f32>) {
        if self.world.get::<super::crew::Detached>(firer).is_some() {
            report.note("7.4", format!("{}'s crew has left its guns: they do not fire", self.unit(firer).name));
            return;
        }
        let table = FireTable::from_world(&self.world);
        match self.shot_seeing(&table, firer, target, occasion, disordered, visibility) {
            Ok(shot) => self.fire_effects(report, firer, target, &shot),
            Err(r) => report.note(rule, format!("{} does not fire at {}: {} (OTP {})", self.unit(firer).name, self.unit(target).name, r.reason, r.rule)),
        }
    }

    /// A shot judged and rolled on `table` (canister when the guns may fire it, 8.4), not applied.
    fn shot(&mut self, table: &FireTable, firer: Entity, target: Entity, occasion: FireOccasion, disordered: bool) -> Result<FireReport, fire::Refusal> {
        self.shot_seeing(table, firer, target, occasion, disordered, None)
    }

    /// A shot whose firer's woods visibility is already known (`visibility`, 8.7), else rolled.
    fn shot_seeing(&mut self, table: &FireTable, firer: Entity, target: Entity, occasion: FireOccasion, disordered: bool, visibility: Option<f32>) -> Result<FireReport, fire::Refusal> {
        let (f, t) = (self.index(&table.situation, firer), self.index(&table.situation, target));
        let ctx = self.defensive_ammo(FireContext::new(table, f, t).occasion(occasion).counts_disordered(disordered).visibility(visibility));
        fire::resolve(&ctx, &self.charts, &mut self.dice)
    }

    /// Fire at a charge (or in a firefight) is canister when the guns may fire it (8.4), else as
    /// the firer's arm fires: one choice for the shot and for its odds in the charge preview.
    fn defensive_ammo<'t>(&self, ctx: FireContext<'t>) -> FireContext<'t> {
        let gun = ctx.situation().unit(ctx.firer).gun().is_some();
        if gun && fire::preview(&ctx.ammo(Ammo::Canister), &self.charts).is_ok() { ctx.ammo(Ammo::Canister) } else { ctx }
    }

    /// 9.2: the attacker failed to close.
    fn failed_closure(&mut self, report: &mut Report, d: &Declared) -> Moved {
        let (name, target) = (self.unit(d.unit).name.clone(), self.unit(d.target).name.clone());
        let (a, t) = (self.unit(d.unit).clone(), self.unit(d.target).clone());
        let infantry = |u: &Unit| ArmClass::from(u.arm) == ArmClass::Infantry;
        if infantry(&a) && infantry(&t) && a.formation == Formation::Line && t.formation == Formation::Line && d.path.zone == AttackZone::Front {
            report.note("9.2", format!("{name}, infantry in line, fails to close on the front of {target}, infantry in line: a firefight results"));
            return self.firefight(report, d);
        }
        if ArmClass::from(a.arm) == ArmClass::Cavalry {
            report.change("9.2", format!("{name} fails to close and remains in place as if it had rolled Stand"));
            self.turn_mut(d.unit).restriction = Some(MoraleResult::Stand);
            self.fire_at_failed(report, d);
            return Moved { inches: 0.0, charged: false };
        }
        let s = self.situation();
        let half = contact::part_way(&s, &OTP, &d.path, 0.5);
        self.move_stands(report, d.unit, &half, true);
        report.change("9.2", format!("{name} fails to close: it closes half the distance ({:.2}\") and stops", d.path.distance / 2.0));
        if a.formation == Formation::Column && infantry(&a) {
            self.deploy_after_failure(report, d.unit);
            if a.unit_type == UnitType::Militia {
                report.note("9.2", "militia deploying after a failed closure also receive a Morale Marker");
                self.give_marker(report, d.unit, false);
            }
        }
        self.fire_at_failed(report, d);
        Moved { inches: d.path.distance / 2.0, charged: false }
    }

    /// 9.2: a column that failed to close deploys into line where it stopped.
    fn deploy_after_failure(&mut self, report: &mut Report, unit: Entity) {
        let name = self.unit(unit).name.clone();
        let s = self.situation();
        let index = self.index(&s, unit);
        let full = self.normal_move(unit, Formation::Column);
        let plan = plan_move(&s, index, &[MoveStep::ChangeFormation(Formation::Line)], Allowance::new(full), &OTP);
        if plan.legal() && plan.doubled_up.is_none() {
            self.place(unit, &plan.stands, plan.formation);
            report.change("9.2", format!("{name} deploys into line"));
        } else {
            let why = plan.problem.map_or_else(|| "no room".to_string(), |p| p.reason);
            report.note("9.2", format!("{name} cannot deploy into line where it stopped ({why}): it stays in column"));
        }
    }

    /// 9.2: the target of a failed closure may fire at the attacker if it is in its arc.
    fn fire_at_failed(&mut self, report: &mut Report, d: &Declared) {
        if self.alive(d.target) && self.alive(d.unit) {
            report.note("9.2", format!("{} may fire at the unit that failed to close", self.unit(d.target).name));
            self.defensive_fire(report, d.target, d.unit, FireOccasion::ClosingFire, false, "9.2");
        }
    }

    /// 9.3: the firefight: the attacker stops 2" off; defender fires, attacker returns fire;
    /// CV rolls; a second, simultaneous round if both pass; both marked if both pass again.
    fn firefight(&mut self, report: &mut Report, d: &Declared) -> Moved {
        let (name, target) = (self.unit(d.unit).name.clone(), self.unit(d.target).name.clone());
        let s = self.situation();
        let mut gap = FIREFIGHT_GAP.min(d.path.original_distance);
        self.move_stands(report, d.unit, &contact::short_of_contact(&s, &OTP, &d.path, gap), true);
        // 9.3: it stops 2" off, or at its visibility in woods if that is less (8.7): its own
        // roll, made where it would stop, which also fixes what it sees when it fires.
        let seen = {
            let table = FireTable::from_world(&self.world);
            let (f, t) = (self.index(&table.situation, d.unit), self.index(&table.situation, d.target));
            let ctx = FireContext::new(&table, f, t).occasion(FireOccasion::Firefight);
            fire::roll_visibility_now(&ctx, &self.charts, &mut self.dice)
        };
        let visibility = seen.map(|(roll, woods, inches, source)| {
            report.die("8.7", format!("{name}'s visibility in {woods} woods ({}): {inches}\"", source.cited(crate::rules::cite::RuleSetId::Otp)), &roll);
            inches
        });
        if let Some(v) = visibility.filter(|&v| v < gap) {
            gap = v.max(0.0);
            let s = self.situation();
            self.move_stands(report, d.unit, &contact::short_of_contact(&s, &OTP, &d.path, gap), true);
        }
        let moved = (d.path.distance - gap).max(0.0);
        let why = match visibility {
            Some(v) if v <= gap && gap < FIREFIGHT_GAP => format!(": its visibility in woods, {v}\", is less than 2\""),
            Some(v) => format!(" (it sees {v}\" in the woods)"),
            None => String::new(),
        };
        report.change("9.3", format!("{name} stops {gap:.2}\" from {target}{why}"));
        report.note("9.3", "firefight, round 1: the defender fires, then the attacker");
        self.defensive_fire(report, d.target, d.unit, FireOccasion::Firefight, false, "9.3");
        if self.alive(d.unit) && self.alive(d.target) {
            if d.fired_before {
                report.note("9.3", format!("{name} fired before its closure attempt: it counts as disordered for its return fire"));
            }
            self.fire_seeing(report, d.unit, d.target, FireOccasion::Firefight, d.fired_before, "9.3", visibility);
        }
        if !self.firefight_rolls(report, d, false) {
            return Moved { inches: moved, charged: false };
        }
        report.note("9.3", "both pass: firefight, round 2: both fire at once");
        let table = FireTable::from_world(&self.world);
        let first = self.shot(&table, d.target, d.unit, FireOccasion::Firefight, false);
        let second = self.shot_seeing(&table, d.unit, d.target, FireOccasion::Firefight, false, visibility);
        // Both shots were judged on the table as it stood; a firer the other shot destroys
        // still delivers its fire, so apply the shot that destroys the other's firer first.
        let kills = |shot: &Result<FireReport, fire::Refusal>, who: &str| shot.as_ref().is_ok_and(|s| s.effects.iter().any(|e| e.unit == who && e.eliminated));
        let order = if kills(&first, &name) { [(second, d.unit, &name, d.target), (first, d.target, &target, d.unit)] } else { [(first, d.target, &target, d.unit), (second, d.unit, &name, d.target)] };
        for (shot, firer, who, at) in order {
            match shot {
                Ok(shot) if self.world.get::<Unit>(firer).is_some() && self.world.get::<Unit>(at).is_some() => self.fire_effects(report, firer, at, &shot),
                Ok(_) => report.note("9.3", format!("{who}'s fire: its firer or target is already gone")),
                Err(r) => report.note("9.3", format!("{who} does not fire: {} (OTP {})", r.reason, r.rule)),
            }
        }
        if self.firefight_rolls(report, d, true) {
            report.outcome = format!("{name} and {target} both stand through two rounds: both receive a Morale Marker that only a roll removes (10.4); the melee for this turn has ended");
            for u in [d.unit, d.target] {
                self.give_marker(report, u, true);
            }
            report.change("10.4", "two rounds of a firefight: these markers cannot be removed by a morale pass");
        }
        Moved { inches: moved, charged: false }
    }

    /// 9.3: each unit still there rolls CV (9.6); a failure withdraws a full line move with a
    /// marker. True when both are still there and passed.
    fn firefight_rolls(&mut self, report: &mut Report, d: &Declared, second: bool) -> bool {
        let round = if second { 2 } else { 1 };
        let mut both = true;
        for (unit, enemy, defending) in [(d.target, d.unit, true), (d.unit, d.target, false)] {
            if !self.alive(unit) || !self.alive(enemy) {
                both = false;
                continue;
            }
            let table = MeleeTable::from_world(&self.world);
            let (u, e) = (self.index(&table.situation, unit), self.index(&table.situation, enemy));
            let roll = melee::cv_roll(&table, &self.charts, u, e, RollFacts { defending, ..RollFacts::default() });
            let name = self.unit(unit).name.clone();
            if !self.cv_check(report, "9.3", &format!("{name}'s CV roll after round {round}"), &roll) {
                both = false;
                report.change("9.3", format!("{name} fails: it withdraws a full line move and receives a Morale Marker"));
                self.give_marker(report, unit, false);
                self.withdraw(report, unit, self.charts.melee.firefight_withdraw.value);
            }
        }
        if !both {
            report.outcome = format!("the firefight ends after round {round}");
        }
        both
    }

    /// 9.8–9.14, 6.10, 7.2, 7.5, 9.11: the melee itself.
    fn melee(&mut self, report: &mut Report, d: &Declared, counter: Option<&ChargePath>) {
        let table = MeleeTable::from_world(&self.world);
        let s = &table.situation;
        let (a, t) = (self.index(s, d.unit), self.index(s, d.target));
        let defenders = self.defenders(s, a, t);
        let facts = ChargeFacts::from(&d.path);
        let mut values = melee::assess(&table, &self.charts, &[a], &defenders, &[facts]);
        if let Some(back) = counter {
            // 9.5: the countercharging cavalry fights as an attacker too, with its own charge.
            let mut theirs = ChargeFacts::from(back);
            theirs.zone = Some(AttackZone::Front);
            let reverse = melee::assess(&table, &self.charts, &[t], &[a], &[theirs]);
            values.defender = reverse.attacker;
        }
        for v in values.attacker.units.iter().chain(&values.defender.units) {
            report_value(report, v);
        }
        // 9.8: a D10 each; ties re-roll.
        let (mut at, mut dt);
        loop {
            let (ra, rd) = (self.dice.d10(), self.dice.d10());
            report.die("9.8", format!("attackers' D10 (melee value {})", values.attacker.total), &ra);
            report.die("9.8", format!("defenders' D10 (melee value {})", values.defender.total), &rd);
            at = values.attacker.total + ra.total as u32;
            dt = values.defender.total + rd.total as u32;
            if at != dt {
                break;
            }
            report.note("9.8", format!("the totals tie at {at}: roll again"));
        }
        let attacker_wins = at > dt;
        let (w, l) = if attacker_wins { (at, dt) } else { (dt, at) };
        let row = self.charts.melee.outcome(w, l).clone();
        let side = if attacker_wins { "attackers" } else { "defenders" };
        report.chart("MELEE COMBAT", format!("{w} to {l}"), row.label(), format!("the {side} win; loser {}AD{:+}, winner {}AD{:+}, loser retreats {} full move(s){}", row.loser_dice, row.loser_modifier, row.winner_dice, row.winner_modifier, melee::retreat_moves(&row), if row.bonus_move { ", bonus move" } else { "" }), &row.source);
        let ents = |vs: &[UnitValue], g: &Game| vs.iter().filter_map(|v| g.unit_entity(&v.name)).collect::<Vec<_>>();
        let (att, def) = (ents(&values.attacker.units, self), ents(&values.defender.units, self));
        let (winners, losers) = if attacker_wins { (att, def) } else { (def, att) };
        let in_melee: Vec<Entity> = winners.iter().chain(&losers).copied().collect();
        // 9.11: commanders attached to the units in the melee, before anything moves.
        let commanders: Vec<(Entity, String)> = in_melee
            .iter()
            .filter_map(|&u| Some((u, table.situation.find(&self.unit(u).name).ok()?)))
            .flat_map(|(u, i)| table.state(i).commanders.iter().map(move |c| (u, c.clone())))
            .collect();
        let winner_names: Vec<String> = winners.iter().map(|&u| self.unit(u).name.clone()).collect();
        report.outcome = format!("{} win the melee {w} to {l} ({})", winner_names.join(", "), row.label());
        for &u in &losers {
            self.melee_losses(report, u, &in_melee, row.loser(), true);
        }
        for &u in &winners {
            self.melee_losses(report, u, &in_melee, row.winner(), false);
        }
        for (unit, c) in commanders {
            let Some(ce) = self.commander_entity(&c) else { continue };
            if self.world.get::<fire::CommanderCasualty>(ce).is_some() {
                continue;
            }
            let roll = self.dice.d10();
            let fell = self.charts.commanders.casualty_in_melee(roll.total);
            let uname = self.world.get::<Unit>(unit).map_or_else(String::new, |u| u.name.clone());
            report.die("9.11", format!("{c}, in the melee with {uname}"), &roll);
            report.chart("COMMANDER CASUALTY", "melee", roll.total.to_string(), if fell { "casualty" } else { "unhurt" }, &self.charts.commanders.casualty_melee.source);
            if fell {
                self.commander_casualty(report, ce);
            }
        }
        // 9.8, 6.11: the losers retreat one full move per AD rolled.
        // Attached guns go where their infantry's retreat leaves them (7.5), judged before it.
        let moves = melee::retreat_moves(&row);
        let attached: Vec<Entity> = losers.iter().copied().filter(|&u| self.world.get::<Unit>(u).is_some() && self.attached_in(u, &in_melee)).collect();
        for &u in &losers {
            if self.alive(u) && !attached.contains(&u) {
                report.note("9.8", format!("{} lost the melee: it retreats {moves} full move(s)", self.unit(u).name));
                self.retreat_unit(report, u, moves);
            }
        }
        // 6.10: a bonus move for winners at 2:1 or more, once a turn.
        if row.bonus_move {
            let key = self.sequence().phasing.map(|chit| (self.turn(), chit));
            for &u in &winners {
                if self.alive(u) && !is_artillery(self.unit(u)) && !self.unit_turn(u).bonus_used && key.is_some() {
                    let mut t = self.turn_mut(u);
                    t.bonus_move = key;
                    t.bonus_used = true;
                    let n = self.unit(u).name.clone();
                    report.change("6.10", format!("{n} won at {} : bonus move offered (6.10): one more charge, special move or move this activation, if it wishes", row.label()));
                }
            }
        }
    }

    /// 7.5: an artillery unit attached to another unit of the melee (its losses are the infantry's).
    fn attached_in(&self, unit: Entity, in_melee: &[Entity]) -> bool {
        self.unit(unit).attached_to.is_some_and(|h| in_melee.contains(&h))
    }

    /// 9.8, 7.1, 7.2, 7.5: one unit's melee losses.
    fn melee_losses(&mut self, report: &mut Report, unit: Entity, in_melee: &[Entity], ad: crate::rules::otp::charts::melee::AdLosses, lost_melee: bool) {
        if self.world.get::<Unit>(unit).is_none() {
            return;
        }
        let u = self.unit(unit).clone();
        if is_artillery(&u) && self.attached_in(unit, in_melee) {
            report.note("7.5", format!("{} is attached: its losses are taken from its infantry", u.name));
            return;
        }
        if is_artillery(&u) && lost_melee {
            report.change("7.2", format!("{} loses the melee: the artillery stand is removed from the game", u.name));
            self.remove_unit(report, unit);
            return;
        }
        if ad.dice == 0 && ad.modifier <= 0 {
            report.note("9.8", format!("{} loses nothing", u.name));
            return;
        }
        let roll: Roll = self.dice.ad(ad.dice);
        report.die("9.8", format!("{}'s losses ({}AD{:+})", u.name, ad.dice, ad.modifier), &roll);
        let kills = ad.apply(roll.total);
        let lost = if is_artillery(&u) {
            // 7.2: artillery that wins takes its losses as fire losses: a crew figure per 2 (7.1).
            let before = self.world.get::<GunHits>(unit).map_or(0, |g| g.0);
            let per = self.charts.fire.crew_loss_per.value.max(1);
            let crew = self.charts.fire.crew_lost(before + kills).min(u.figures);
            self.world.entity_mut(unit).insert(GunHits(before + kills - crew * per));
            report.note("7.2", format!("{}: {kills} loss(es) taken as fire losses: {crew} crew figure(s) (7.1)", u.name));
            self.lose_figures(unit, crew)
        } else {
            self.lose_figures(unit, kills)
        };
        report.change("9.8", format!("{} loses {lost} figure(s); {} left", u.name, u.figures - lost));
        if self.unit(unit).figures == 0 {
            self.remove_unit(report, unit);
            return;
        }
        if lost > 0 || kills > 0 && is_artillery(&u) {
            self.give_marker(report, unit, false);
            // 7.5: guns attached to it suffer the same penalties.
            for g in self.live_units().filter(|&g| self.unit(g).attached_to == Some(unit)).collect::<Vec<_>>() {
                self.give_marker(report, g, false);
            }
        }
    }

    /// A unit with no figures left, or artillery lost in melee (7.2), leaves the game; guns
    /// attached to it are detached and a detached crew goes with it.
    pub(super) fn remove_unit(&mut self, report: &mut Report, unit: Entity) {
        let name = self.unit(unit).name.clone();
        for g in self.live_units().filter(|&g| g != unit && self.unit(g).attached_to == Some(unit)).collect::<Vec<_>>() {
            self.unit_mut(g).attached_to = None;
        }
        if let Some(d) = self.world.get::<super::crew::Detached>(unit).copied() {
            self.world.despawn(d.crew);
        }
        for s in self.unit(unit).stands.clone() {
            if self.world.get::<Stand>(s).is_some() {
                self.world.despawn(s);
            }
        }
        self.world.despawn(unit);
        report.change("9.8", format!("{name} is removed from the game"));
    }
}

/// How a unit reacts to closure (9.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReactionKind {
    /// Militia: passing, it fights.
    Fights,
    /// Light in skirmish line or Indians: passing, it fires, then stays or withdraws.
    Fires,
}

/// One unit's melee value in the report, every factor with its rule.
fn report_value(report: &mut Report, v: &UnitValue) {
    report.note(&v.figures_rule, format!("{}: {} figure(s) in combat ({})", v.name, v.figures, v.figures_note));
    for m in &v.modifiers {
        report.modifier(&m.rule, format!("{}: {}", v.name, m.label), m.value);
    }
    let mult: Vec<String> = v.multipliers.iter().map(|m| format!("x{} {} ({})", m.factor, m.label, m.rule)).collect();
    report.note("9.8", format!("{}: {} figures x CV {} (modified {}){} = melee value {}", v.name, v.figures, v.cv, v.modified_cv, if mult.is_empty() { String::new() } else { format!(" {}", mult.join(" ")) }, v.value));
}

#[cfg(test)]
mod tests {
    use super::super::testing::{activate, ok, refused, teaching};
    use super::*;

    // OTP 7.2, 10.1, 5.1/9.1, 9.0: declarations refused before any die, changing nothing.
    #[test]
    fn declarations_refused_with_their_rules() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        refused(&mut g, Action::Charge { unit: "Royal Artillery".into(), target: "1st Maryland".into() }, "7.2");
        refused(&mut g, Action::Charge { unit: "33rd Foot".into(), target: "23rd Foot".into() }, "9.0");
        ok(&mut g, Action::EndActivation);
        activate(&mut g, "Tarleton's Brigade");
        refused(&mut g, Action::Charge { unit: "Loyalist Militia".into(), target: "Virginia Riflemen".into() }, "10.1");
        refused(&mut g, Action::Charge { unit: "British Legion Infantry".into(), target: "North Carolina Militia".into() }, "5.1");
    }

    // OTP 6.10: a pending bonus move lets the unit move once more after its operation, in this
    // activation only; taking it leaves the operation's record as it was.
    #[test]
    fn bonus_move_is_one_more_move() {
        let mut g = teaching(3);
        ok(&mut g, Action::StartGame);
        activate(&mut g, "Webster's Brigade");
        let step = || Action::Move { unit: "33rd Foot".into(), steps: vec![MoveStep::Forward(1.0)] };
        ok(&mut g, step());
        refused(&mut g, step(), "3.1");
        let foot = g.unit_entity("33rd Foot").unwrap();
        let key = (g.turn(), g.sequence().phasing.unwrap());
        g.turn_mut(foot).bonus_move = Some(key);
        let done = g.unit_turn(foot).done.clone();
        ok(&mut g, step());
        assert_eq!(g.unit_turn(foot).done, done, "the operation's record is untouched");
        assert!(!g.bonus_pending(foot));
        refused(&mut g, step(), "3.1");
        // Offered in another activation, it has lapsed.
        g.turn_mut(foot).bonus_move = Some((key.0, key.1 + 1));
        refused(&mut g, step(), "3.1");
    }
}
