//! The numbers of fire (OR13-OR15), morale (OR7-OR10) and impact (OR18), each with its rule
//! and source, and their exact odds by enumeration: the dice of fire by convolution, a morale
//! check over the 36 faces of 2D6, an impact over the 36 x 36 of two 2D6. Resolution
//! ([`super::steps`]) and the previews read the same numbers.

use bevy::ecs::entity::Entity;

use super::charts::{CombatChart, FireResult, ImpactKey};
use super::game::{Game, Morale, OR, Order};
use crate::rules::cite::Source;
use crate::rules::dice::{Dice, Roll};
use crate::rules::report::Refusal;
use crate::scenario::model::{AcwQuality, AcwWeapon, Arm, Formation, Terrain};
use crate::table::arc::Arc;
use crate::table::aspect::{self, AttackZone};
use crate::table::contact::{ChargePath, Face};
use crate::table::geom::EPS;
use crate::table::range;
use crate::table::situation::Situation;
use crate::table::words::inches;

/// A modifier with its rule and source.
#[derive(Clone, Debug, PartialEq)]
pub struct Mod {
    pub name: String,
    pub value: i32,
    pub rule: &'static str,
    pub source: Source,
}

fn m<T: Copy + Into<i64>>(name: impl Into<String>, value: i32, rule: &'static str, s: &super::charts::Sourced<T>) -> Mod {
    Mod { name: name.into(), value, rule, source: s.source.clone() }
}

pub fn sum(mods: &[Mod]) -> i32 {
    mods.iter().map(|m| m.value).sum()
}

/// Range bands of the weapons tables (close is canister for guns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Band {
    Close,
    Normal,
    Long,
}

impl Band {
    pub fn name(self, guns: bool) -> &'static str {
        match (self, guns) {
            (Band::Close, true) => "canister",
            (Band::Close, false) => "close",
            (Band::Normal, _) => "normal",
            (Band::Long, _) => "long",
        }
    }
}

/// A volley's numbers (OR13-OR15).
#[derive(Clone, Debug, PartialEq)]
pub struct ShotPlan {
    pub firer: Entity,
    pub target: Entity,
    pub distance: f32,
    pub band: Band,
    /// Dice before the band's and ammunition's dice, and those changes.
    pub base_dice: i32,
    pub die_mods: Vec<Mod>,
    pub drms: Vec<Mod>,
    /// Melee multiplier (1 in fire combat).
    pub multiplier: u32,
    /// A skirmishing target takes half, rounded down.
    pub halved: bool,
    /// The firer is guns or sharpshooters: M and a missed 1* force a morale check.
    pub special: bool,
    pub by_guns: bool,
    pub on_guns: bool,
    /// Every die at or above this: low on ammunition (OR15).
    pub low_from: u8,
    /// The target's side the fire comes from, for its morale check (OR8).
    pub from: Aspect,
}

/// The side of the target fire comes from (OR8 "hit by fire", OR14 flank DRM). The table's
/// attack zone is judged on the whole firing unit: wholly behind the line drawn straight out
/// along the target's front is the full flank, wholly directly behind it the rear. A firer
/// partly round that line (the centre of at least one of its stands behind it, not all of it)
/// fires on a partial flank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aspect {
    Front,
    PartialFlank,
    FullFlank,
    Rear,
}

/// Where the unit `a` fires on `b` from (see [`Aspect`]).
pub fn fire_aspect(s: &Situation, a: usize, b: usize) -> Aspect {
    match aspect::attack_zone(s, a, b) {
        AttackZone::Rear => Aspect::Rear,
        AttackZone::Flank => Aspect::FullFlank,
        AttackZone::Front if s.unit(a).stands.iter().any(|st| aspect::behind_front(s.unit(b), st.footprint.centre)) => Aspect::PartialFlank,
        AttackZone::Front => Aspect::Front,
    }
}

impl ShotPlan {
    pub fn dice(&self) -> i32 {
        (self.base_dice + sum(&self.die_mods)).max(0)
    }
}

/// How the volley is fired.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Volley {
    /// Fire combat in steps 4, 7 and 8.
    Fire,
    /// Rapid fire by breech-loaders and repeaters (OR15): fire combat with a die more, and
    /// ammunition running low from a lower face.
    Rapid,
    /// A fixed number of dice (the charge volley, OR17/OR20: "2 dice").
    Dice(u32),
    /// A melee round (OR13, OR20): close range, melee DRMs and multipliers; supports' stands.
    Melee { support_stands: u32 },
    /// The defender's volley at a charger `distance` inches away (OR17): its own dice.
    Defensive { distance: f32 },
}

/// Throws `n` D6 as one roll (faces kept).
pub fn nd6(dice: &mut Dice, n: u32) -> Roll {
    dice.d6s(n)
}

/// The exact distribution of the sum of `n` D6, by counting (6^n outcomes).
pub fn sum_distribution(n: u32) -> Vec<(i32, f64)> {
    let mut ways: Vec<u64> = vec![1];
    for _ in 0..n {
        let mut next = vec![0u64; ways.len() + 6];
        for (t, &w) in ways.iter().enumerate() {
            for face in 1..=6 {
                next[t + face] += w;
            }
        }
        ways = next;
    }
    let all = 6f64.powi(n as i32);
    ways.iter().enumerate().filter(|&(_, &w)| w > 0).map(|(t, &w)| (t as i32, w as f64 / all)).collect()
}

/// The chance that every one of `n` D6 shows `from` or more.
pub fn all_at_least(n: u32, from: u8) -> f64 {
    if n == 0 { 0.0 } else { (f64::from(7 - from.clamp(1, 7)) / 6.0).powi(n as i32) }
}

/// A morale check's outcome (OR9-OR10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Pass,
    Shaken,
    Routed,
}

/// OR9-OR10: 2D6 (faces `a`, `b`) against the number to beat. A natural 2 routs, 12 passes;
/// beating it passes; failing by the rout margin or more, or failing while shaken or routed,
/// routs; else shaken.
pub fn morale_outcome(a: i32, b: i32, beat: i32, state: Morale, rout_margin: i32, natural_rout: i32, natural_rally: i32) -> Check {
    let total = a + b;
    if total == natural_rout {
        return Check::Routed;
    }
    if total == natural_rally || total > beat {
        return Check::Pass;
    }
    let fail_by = beat - total + 1;
    if fail_by >= rout_margin || state != Morale::Steady { Check::Routed } else { Check::Shaken }
}

impl Game {
    /// OR13: range edge to edge and the band, for a unit that can fire (not a march column or
    /// limbered guns), at a target in its front arc and within long range.
    pub fn shot_geometry(&self, e: Entity, t: Entity) -> Result<(f32, Band), Refusal> {
        let (Some(unit), Some(o), Some(target)) = (self.unit(e), self.or(e), self.unit(t)) else { return Err(Refusal::unruled(OR, "no such unit")) };
        let s = self.situation();
        let (Ok(a), Ok(b)) = (s.find(&unit.name), s.find(&target.name)) else { return Err(Refusal::unruled(OR, "no stands on the table")) };
        if s.unit(a).in_column() || unit.formation == Formation::Limbered {
            return super::game::refuse("13", format!("{} is in {}: it cannot fire", unit.name, crate::table::words::formation(unit.formation)));
        }
        let (close, normal, long) = self.ranges(e).ok_or_else(|| Refusal::by(OR.cite("13"), format!("{} has no weapon to fire", unit.name)))?;
        let _ = o;
        let distance = range::unit_distance(&s, a, b);
        if distance > long + EPS {
            return super::game::refuse("13", format!("{} is {} away edge to edge: {} reaches {}", target.name, inches(distance), unit.name, inches(long)));
        }
        let arc = Arc::of_unit(s.unit(a)).ok_or_else(|| Refusal::unruled(OR, "no stands"))?;
        if !s.unit(b).stands.iter().any(|st| arc.reaches(&st.footprint.corners())) {
            return super::game::refuse("13", format!("{} is outside {}'s front arc (45° beyond each end of its front)", target.name, unit.name));
        }
        let band = if close.is_some_and(|c| distance <= c + EPS) {
            Band::Close
        } else if distance <= normal + EPS {
            Band::Normal
        } else {
            Band::Long
        };
        Ok((distance, band))
    }

    /// The unit's close (canister), normal and long ranges (OR13).
    pub fn ranges(&self, e: Entity) -> Option<(Option<f32>, f32, f32)> {
        let o = self.or(e)?;
        if let Some(g) = o.gun.filter(|_| matches!(self.unit(e).map(|u| u.arm), Some(Arm::Artillery { .. }))) {
            let r = self.charts.weapons.gun(g);
            return Some((r.canister, r.normal, r.long));
        }
        let w = self.charts.weapons.weapon(self.weapon_of(e)?);
        Some((Some(w.close), w.normal, w.long))
    }

    /// The small arm a unit fires: its own, and every mounted trooper's pistol when it has none.
    pub fn weapon_of(&self, e: Entity) -> Option<AcwWeapon> {
        let o = self.or(e)?;
        o.weapon.or_else(|| (self.unit(e)?.arm == Arm::Cavalry).then_some(AcwWeapon::Pistol))
    }

    fn guns(&self, e: Entity) -> bool {
        matches!(self.unit(e).map(|u| u.arm), Some(Arm::Artillery { .. }))
    }

    /// The ground cover the target sits in, as the fire DRM (OR14).
    fn cover_drm(&self, s: &Situation, t: usize) -> Option<Mod> {
        let c = &self.charts.combat;
        let stands = s.unit(t).footprints();
        let mut best: Option<Mod> = None;
        for terrain in s.terrain() {
            let (poly, the) = match terrain {
                Terrain::Woods { outline, .. } => (outline, &c.cover_woods),
                Terrain::Town { outline, .. } => (outline, &c.cover_town),
                _ => continue,
            };
            let poly: Vec<bevy::math::Vec2> = poly.iter().map(|&p| p.into()).collect();
            if stands.iter().any(|f| crate::picture::inside(&poly, f.centre)) && best.as_ref().is_none_or(|b| the.value < b.value) {
                best = Some(m(format!("target in {}", terrain.name()), the.value, "14", the));
            }
        }
        best
    }

    /// OR13-OR15: the dice and DRMs of a volley by `e` at `t`.
    pub fn shot_plan(&self, e: Entity, t: Entity, volley: Volley) -> Result<ShotPlan, Refusal> {
        let (distance, band) = match volley {
            Volley::Melee { .. } => (0.0, Band::Close),
            Volley::Defensive { distance } => {
                let (close, normal, long) = self.ranges(e).ok_or_else(|| Refusal::by(OR.cite("17"), "no weapon to volley with"))?;
                if distance > long + EPS {
                    return super::game::refuse("17", format!("the volley point is {} away, beyond long range", inches(distance)));
                }
                (distance, if close.is_some_and(|c| distance <= c + EPS) { Band::Close } else if distance <= normal + EPS { Band::Normal } else { Band::Long })
            }
            _ => self.shot_geometry(e, t)?,
        };
        let c: &CombatChart = &self.charts.combat;
        let (unit, o, target, to) = (self.unit(e).expect("checked"), self.or(e).expect("checked"), self.unit(t).expect("checked"), self.or(t).expect("checked"));
        let s = self.situation();
        let (a, b) = (s.find(&unit.name).map_err(|m| Refusal::unruled(OR, m))?, s.find(&target.name).map_err(|m| Refusal::unruled(OR, m))?);
        let by_guns = self.guns(e);
        let on_guns = self.guns(t);
        let weapon = self.weapon_of(e);
        let sharpshooter = weapon == Some(AcwWeapon::SharpshooterRifle) && !by_guns;
        let mut die_mods = Vec::new();
        let mut drms = Vec::new();
        let base_dice = match volley {
            Volley::Dice(n) => n as i32,
            _ if by_guns => CombatChart::dice_for(&c.gun_dice, o.stands()) as i32,
            Volley::Melee { support_stands } => CombatChart::dice_for(&c.small_arms_dice, o.stands() + support_stands) as i32,
            Volley::Fire | Volley::Rapid | Volley::Defensive { .. } => CombatChart::dice_for(&c.small_arms_dice, o.stands()) as i32,
        };
        if matches!(volley, Volley::Fire | Volley::Rapid | Volley::Defensive { .. }) {
            match band {
                Band::Close => die_mods.push(m(format!("{} range", band.name(by_guns)), c.close_die.value, "14", &c.close_die)),
                Band::Long if !sharpshooter => die_mods.push(m("long range", c.long_die.value, "13", &c.long_die)),
                _ => {}
            }
        }
        if volley == Volley::Rapid {
            die_mods.push(m("rapid fire", c.rapid_fire_die.value, "15", &c.rapid_fire_die));
        }
        if o.low_ammo {
            die_mods.push(m("low on ammunition", c.low_ammo_die.value, "15", &c.low_ammo_die));
        }
        // DRMs: the firer's arm.
        if by_guns {
            if let Some(g) = o.gun {
                let r = self.charts.weapons.gun(g);
                if r.drm != 0 {
                    drms.push(Mod { name: format!("{g:?}"), value: r.drm, rule: "13", source: r.source.clone() });
                }
            }
        } else if let Some(w) = weapon {
            let r = self.charts.weapons.weapon(w);
            if r.drm != 0 {
                drms.push(Mod { name: format!("{w:?}"), value: r.drm, rule: "13", source: r.source.clone() });
            }
            if band == Band::Close && r.close_drm != 0 {
                drms.push(Mod { name: format!("{w:?} at close range"), value: r.close_drm, rule: "13", source: r.source.clone() });
            }
            if matches!(volley, Volley::Melee { .. }) && r.melee_drm != 0 {
                drms.push(Mod { name: format!("{w:?} in melee"), value: r.melee_drm, rule: "13", source: r.source.clone() });
            }
        }
        let deep = s.unit(b).in_column() || target.formation == Formation::Limbered || (target.arm == Arm::Cavalry && target.formation != Formation::Dismounted);
        if deep {
            drms.push(m("target in column, mounted or limbered", c.target_formed_deep.value, "14", &c.target_formed_deep));
        }
        let from = fire_aspect(&s, a, b);
        match from {
            Aspect::PartialFlank => drms.push(m("fire on the target's partial flank", c.flank_partial.value, "14", &c.flank_partial)),
            Aspect::FullFlank => drms.push(m("fire on the target's full flank", c.flank_full.value, "14", &c.flank_full)),
            Aspect::Rear => drms.push(m("fire on the target's rear", c.flank_rear.value, "14", &c.flank_rear)),
            Aspect::Front => {}
        }
        if let Some(cover) = self.cover_drm(&s, b) {
            drms.push(cover);
        }
        if o.morale == Morale::Shaken {
            drms.push(m("firer shaken", c.shaken_firer.value, "11", &c.shaken_firer));
        }
        let multiplier = match volley {
            Volley::Melee { .. } => match (unit.arm, target.arm) {
                (Arm::Infantry, Arm::Infantry) => c.infantry_on_infantry.value,
                (Arm::Cavalry, Arm::Infantry) => c.cavalry_on_infantry.value,
                (Arm::Infantry, Arm::Cavalry) => c.infantry_on_cavalry.value,
                _ => c.others_in_melee.value,
            },
            _ => 1,
        };
        // OR15: all 6s run any unit low; rapid fire all 5s and 6s (breech-loaders) or 4s, 5s
        // and 6s (repeaters).
        let low_from = match volley {
            Volley::Rapid => self.rapid_low_from(e).unwrap_or(c.low_on_ammo_from.value),
            _ => c.low_on_ammo_from.value,
        };
        let _ = to;
        Ok(ShotPlan {
            firer: e,
            target: t,
            distance,
            band,
            base_dice,
            die_mods,
            drms,
            multiplier,
            halved: target.formation == Formation::Skirmish && !matches!(volley, Volley::Melee { .. }),
            special: by_guns || sharpshooter,
            by_guns,
            on_guns,
            low_from,
            from,
        })
    }

    /// Figures a result takes, before a 1* die: multiplied in melee, halved for skirmishers.
    pub fn figures_of(plan: &ShotPlan, n: u32) -> u32 {
        let n = n * plan.multiplier;
        if plan.halved { n / 2 } else { n }
    }

    /// The exact odds of a volley: each result and its chance, summing to 1 (a 1* split by its
    /// D6); and the chance of running low on ammunition.
    pub fn shot_odds(&self, plan: &ShotPlan) -> (Vec<(String, f64)>, f64) {
        let c = &self.charts.combat;
        let mut odds: Vec<(String, f64)> = Vec::new();
        let mut add = |label: String, p: f64| {
            if let Some(o) = odds.iter_mut().find(|(l, _)| *l == label) {
                o.1 += p;
            } else {
                odds.push((label, p));
            }
        };
        let n = plan.dice() as u32;
        let drm = sum(&plan.drms);
        let dist = if n == 0 { vec![(0, 1.0)] } else { sum_distribution(n) };
        let hit = f64::from(7 - c.one_star_hits_on.value) / 6.0;
        for (total, p) in dist {
            let result = if n == 0 { FireResult::Nothing } else { c.result(total + drm) };
            match result {
                FireResult::Nothing => add("no effect".into(), p),
                FireResult::Morale if plan.special => add("M: a morale check, no loss".into(), p),
                FireResult::Morale => add("no effect".into(), p),
                FireResult::OneStar => {
                    add(figures_label(Game::figures_of(plan, 1)), p * hit);
                    add(if plan.special { "1* missed: a morale check".into() } else { "no effect".to_string() }, p * (1.0 - hit));
                }
                FireResult::Figures(k) => add(figures_label(Game::figures_of(plan, k)), p),
            }
        }
        (odds, all_at_least(n, plan.low_from))
    }

    // ---- morale ----

    /// OR7-OR8: the basic morale point and every modifier that applies to the unit now
    /// (`impact`: the charge copy, where disorder is in the formation table instead).
    pub fn morale_mods(&self, e: Entity, impact: bool) -> Vec<Mod> {
        let mc = &self.charts.morale;
        let (Some(unit), Some(o)) = (self.unit(e), self.or(e)) else { return Vec::new() };
        let bmp = mc.bmp(o.quality);
        let mut out = vec![Mod { name: format!("BMP: {:?}", o.quality), value: bmp.points, rule: "7", source: bmp.source.clone() }];
        if let Some((_, rating)) = self.officer_present(e) {
            out.push(m(format!("officer present (rating {rating})"), mc.officer_per_rating.value * rating as i32, "8", &mc.officer_per_rating));
        }
        let s = self.situation();
        if let Ok(i) = s.find(&unit.name) {
            let stands = s.unit(i).footprints();
            let inside = |poly: &[[f32; 2]]| {
                let poly: Vec<bevy::math::Vec2> = poly.iter().map(|&p| p.into()).collect();
                stands.iter().any(|f| crate::picture::inside(&poly, f.centre))
            };
            let in_town = s.terrain().iter().any(|t| matches!(t, Terrain::Town { outline, .. } if inside(outline)));
            let in_woods = s.terrain().iter().any(|t| matches!(t, Terrain::Woods { outline, .. } if inside(outline)));
            let uphill = Game::nearest_enemy(&s, i).is_some_and(|(o, _)| s.unit_elevation(i) > s.unit_elevation(o));
            if in_town {
                out.push(m("in a town (hasty works)", mc.hasty_works.value, "8", &mc.hasty_works));
            } else if in_woods || uphill {
                out.push(m(if in_woods { "in woods" } else { "uphill of the enemy" }, mc.cover.value, "8", &mc.cover));
            }
            if self.behind_friends(&s, i) {
                out.push(m("behind friendly units", mc.behind_friends.value, "8", &mc.behind_friends));
            }
        }
        let lost = o.stands_lost();
        if lost > 0 {
            out.push(m(format!("{lost} stand(s) or section(s) lost"), mc.per_stand_lost.value * lost as i32, "8", &mc.per_stand_lost));
        }
        let brigade = self.world.get::<crate::scenario::spawn::Brigade>(unit.brigade);
        if let Some(b) = brigade
            && self.leader(b.commander).is_some_and(|(_, l)| l.out)
        {
            out.push(m("brigade commander lost", mc.brigadier_lost.value, "8", &mc.brigadier_lost));
        }
        let brigade_name = brigade.map(|b| b.name.clone()).unwrap_or_default();
        let lost_regiments = self.gone.iter().filter(|(name, ..)| self.scenario.sides.iter().flat_map(|s| &s.brigades).any(|b| b.name == brigade_name && b.units.iter().any(|u| &u.name == name))).count();
        if lost_regiments > 0 {
            out.push(m(format!("{lost_regiments} regiment(s) of the brigade lost"), mc.per_regiment_lost.value * lost_regiments as i32, "8", &mc.per_regiment_lost));
        }
        match o.morale {
            Morale::Shaken => out.push(m("shaken", mc.shaken.value, "8", &mc.shaken)),
            Morale::Routed => out.push(m("routed", mc.routed.value, "8", &mc.routed)),
            Morale::Steady => {}
        }
        if o.disordered && !impact {
            out.push(m("disordered", mc.disorder.value, "8", &mc.disorder));
        }
        out
    }

    /// OR8: a friendly unit stands within a few inches straight ahead of the unit's front.
    fn behind_friends(&self, s: &Situation, i: usize) -> bool {
        let within = self.charts.morale.behind_friends_within.value;
        (0..s.units().len()).any(|f| f != i && s.unit(f).side == s.unit(i).side && {
            // `f` is in front of `i` when `i`'s corridor ahead holds it: look from `i` as if `f` were an enemy.
            let me = s.unit(i);
            let Some(arc) = Arc::of_unit(me) else { return false };
            let fwd = crate::table::footprint::bearing_vector(arc.facing);
            let across = arc.front_right - arc.front_left;
            let width = across.length();
            let side = across / width.max(EPS);
            s.unit(f).stands.iter().flat_map(|st| st.footprint.corners()).any(|p| {
                let d = p - arc.front_left;
                let (x, y) = (d.dot(side), d.dot(fwd));
                (-EPS..=width + EPS).contains(&x) && y > -EPS && y <= within + EPS
            })
        })
    }

    /// The exact odds of a morale check against `beat` for a unit in `state`, over the 36 faces.
    pub fn morale_odds(&self, beat: i32, state: Morale) -> [(Check, f64); 3] {
        let mc = &self.charts.morale;
        let mut n = [0u32; 3];
        for a in 1..=6 {
            for b in 1..=6 {
                let k = morale_outcome(a, b, beat, state, mc.rout_margin.value, mc.natural_rout.value, mc.natural_rally.value);
                n[k as usize] += 1;
            }
        }
        [(Check::Pass, n[0] as f64 / 36.0), (Check::Shaken, n[1] as f64 / 36.0), (Check::Routed, n[2] as f64 / 36.0)]
    }

    // ---- impact ----

    /// OR18: the formation row of a unit in a charge (disordered: the disorder row).
    pub fn impact_key(&self, e: Entity, disordered: bool) -> ImpactKey {
        let (Some(unit), Some(o)) = (self.unit(e), self.or(e)) else { return ImpactKey::InfSingleLine };
        let disordered = disordered || o.disordered;
        match unit.arm {
            Arm::Infantry if disordered => ImpactKey::InfDisorder,
            Arm::Infantry => match unit.formation {
                Formation::ExtendedLine => ImpactKey::InfExtendedLine,
                Formation::DoubleLine => ImpactKey::InfDoubleLine,
                Formation::AttackColumn => ImpactKey::InfAttackColumn,
                Formation::Skirmish => ImpactKey::InfSkirmish,
                Formation::Column => ImpactKey::InfMarchColumn,
                _ => ImpactKey::InfSingleLine,
            },
            Arm::Cavalry if unit.formation == Formation::Dismounted => ImpactKey::CavDismounted,
            Arm::Cavalry if disordered => ImpactKey::CavDisorder,
            Arm::Cavalry => match unit.formation {
                Formation::DoubleLine => ImpactKey::CavDoubleLine,
                Formation::Skirmish => ImpactKey::CavSkirmish,
                Formation::Column => ImpactKey::CavMarchColumn,
                _ => ImpactKey::CavSingleLine,
            },
            Arm::Artillery { .. } if unit.formation == Formation::Limbered => ImpactKey::ArtLimbered,
            Arm::Artillery { .. } if self.supports(e) > 0 => ImpactKey::ArtSupported,
            Arm::Artillery { .. } => ImpactKey::ArtUnsupported,
        }
    }

    /// OR18, OR20 (the reach reconstructed): the three places a unit is supported, in its own
    /// frame: a strip `support_within` wide beyond its left end and one beyond its right end,
    /// each as deep as the unit, and a strip as wide as its front behind its rear edge.
    pub fn support_zones(&self, e: Entity) -> Vec<(&'static str, crate::table::footprint::Footprint)> {
        let Some(unit) = self.unit(e) else { return Vec::new() };
        let s = self.situation();
        let Ok(i) = s.find(&unit.name) else { return Vec::new() };
        let me = s.unit(i);
        let Some(arc) = Arc::of_unit(me) else { return Vec::new() };
        let within = self.charts.charge.support_within.value;
        let fwd = crate::table::footprint::bearing_vector(arc.facing);
        let right = crate::table::footprint::bearing_vector(arc.facing + 90.0);
        let front = (arc.front_left + arc.front_right) / 2.0;
        let width = arc.front_left.distance(arc.front_right);
        // Front to rear, over every stand (a column is as deep as it is long).
        let depth = me.stands.iter().flat_map(|st| st.footprint.corners()).map(|c| (front - c).dot(fwd)).fold(0.0, f32::max).max(EPS);
        let strip = |centre, frontage, depth| crate::table::footprint::Footprint { centre, facing: arc.facing, frontage, depth };
        vec![
            ("left flank", strip(arc.front_left - right * (within / 2.0) - fwd * (depth / 2.0), within, depth)),
            ("right flank", strip(arc.front_right + right * (within / 2.0) - fwd * (depth / 2.0), within, depth)),
            ("rear", strip(front - fwd * (depth + within / 2.0), width, within)),
        ]
    }

    /// OR18, OR20: which of the unit's left flank, right flank and rear are covered: a stand of
    /// another friendly infantry unit, not routed, in that strip (touching it counts).
    pub fn supported(&self, e: Entity) -> Vec<&'static str> {
        let Some(unit) = self.unit(e) else { return Vec::new() };
        let (side, name) = (unit.side, unit.name.clone());
        let friends: Vec<crate::table::footprint::Footprint> = self
            .live_units()
            .filter(|(f, u)| u.side == side && u.name != name && u.arm == Arm::Infantry && self.or(*f).is_some_and(|o| o.morale != Morale::Routed))
            .flat_map(|(_, u)| crate::scenario::spawn::unit_footprints(&self.world, u))
            .collect();
        self.support_zones(e).into_iter().filter(|(_, zone)| friends.iter().any(|f| f.distance(zone) <= EPS)).map(|(what, _)| what).collect()
    }

    /// OR18, OR20: how many of the three are covered.
    pub fn supports(&self, e: Entity) -> u32 {
        self.supported(e).len() as u32
    }

    /// OR18: each side's impact modifiers (BMP, MPM, formation, unique). `None` for a side that
    /// surrenders when charged (limbered guns).
    pub fn impact_mods(&self, attacker: Entity, defender: Entity, path: &ChargePath, attacker_disordered: bool) -> (Vec<Mod>, Option<Vec<Mod>>) {
        let cc = &self.charts.charge;
        let mc = &self.charts.morale;
        let mut att = self.morale_mods(attacker, true);
        att.push(m("charging (charge elan)", mc.charging.value, "8", &mc.charging));
        let key = self.impact_key(attacker, attacker_disordered);
        let row = cc.formation(key);
        att.push(Mod { name: format!("formation: {key:?}"), value: row.value.unwrap_or(0), rule: "18", source: row.source.clone() });
        if self.unit(attacker).is_some_and(|u| u.arm == Arm::Cavalry && u.formation != Formation::Dismounted) {
            att.push(m("mounted unit in the charge", cc.mounted_in_charge.value, "18", &cc.mounted_in_charge));
        }
        if self.unit(attacker).is_some_and(|u| u.arm == Arm::Infantry) {
            let n = self.supports(attacker) as i32;
            if n > 0 {
                att.push(m(format!("{n} flank(s) or rear supported by infantry"), cc.supported_flank_or_rear.value * n, "18", &cc.supported_flank_or_rear));
            }
        }
        let dkey = self.impact_key(defender, false);
        let drow = cc.formation(dkey);
        let Some(dvalue) = drow.value else { return (att, None) };
        let mut def = self.morale_mods(defender, true);
        def.push(Mod { name: format!("formation: {dkey:?}"), value: dvalue, rule: "18", source: drow.source.clone() });
        if self.unit(defender).is_some_and(|u| u.arm == Arm::Infantry) {
            let n = self.supports(defender) as i32;
            if n > 0 {
                def.push(m(format!("{n} flank(s) or rear supported by infantry"), cc.supported_flank_or_rear.value * n, "18", &cc.supported_flank_or_rear));
            }
        }
        match (path.zone, path.face) {
            (AttackZone::Rear, _) => def.push(m("charged on the rear", cc.charged_rear.value, "18", &cc.charged_rear)),
            (AttackZone::Flank, _) => def.push(m("charged on the full flank", cc.charged_full_flank.value, "18", &cc.charged_full_flank)),
            (AttackZone::Front, Face::LeftFlank | Face::RightFlank) => def.push(m("charged on a partial flank", cc.charged_partial_flank.value, "18", &cc.charged_partial_flank)),
            _ => {}
        }
        match self.or(defender).and_then(|o| o.order) {
            Some(Order::FM) => def.push(m("charged while forming (FM)", cc.charged_forming.value, "18", &cc.charged_forming)),
            Some(Order::CH) => def.push(m("charged on Conditional Hold (CH)", cc.charged_conditional_hold.value, "18", &cc.charged_conditional_hold)),
            _ => {}
        }
        (att, Some(def))
    }

    /// OR18: the exact odds of an impact, over the 36 x 36 faces of the two 2D6: attacker wins
    /// (lower total), defender wins, tie (melee).
    pub fn impact_odds(att: i32, def: i32) -> (f64, f64, f64) {
        let (mut a_wins, mut d_wins, mut tie) = (0u32, 0u32, 0u32);
        for a in 2..=12 {
            for d in 2..=12 {
                let ways = two_d6_ways(a) * two_d6_ways(d);
                match (a + att).cmp(&(d + def)) {
                    std::cmp::Ordering::Less => a_wins += ways,
                    std::cmp::Ordering::Greater => d_wins += ways,
                    std::cmp::Ordering::Equal => tie += ways,
                }
            }
        }
        let all = 1296.0;
        (a_wins as f64 / all, d_wins as f64 / all, tie as f64 / all)
    }

    /// OR19: the defender's falls back result odds, over 2D6 + its DRMs.
    pub fn falls_back_odds(&self, drm: i32) -> Vec<(super::charts::FallsBack, f64)> {
        let mut out: Vec<(super::charts::FallsBack, f64)> = Vec::new();
        for t in 2..=12 {
            let r = self.charts.charge.falls_back(t + drm);
            let p = two_d6_ways(t) as f64 / 36.0;
            match out.iter_mut().find(|(k, _)| *k == r) {
                Some(o) => o.1 += p,
                None => out.push((r, p)),
            }
        }
        out
    }

    /// OR19: the defender's falls back DRMs: −1 elite, −1 officer present, +1 green, +2 militia.
    pub fn falls_back_mods(&self, defender: Entity) -> Vec<Mod> {
        let cc = &self.charts.charge;
        let mut out = Vec::new();
        match self.or(defender).map(|o| o.quality) {
            Some(AcwQuality::Elite) => out.push(m("elite", cc.falls_back_elite.value, "19", &cc.falls_back_elite)),
            Some(AcwQuality::Green) => out.push(m("green troops", cc.falls_back_green.value, "19", &cc.falls_back_green)),
            Some(AcwQuality::Militia) => out.push(m("militia", cc.falls_back_militia.value, "19", &cc.falls_back_militia)),
            _ => {}
        }
        if self.officer_present(defender).is_some() {
            out.push(m("officer present", cc.falls_back_officer.value, "19", &cc.falls_back_officer));
        }
        out
    }
}

/// Ways 2D6 make `t` (of 36).
pub fn two_d6_ways(t: i32) -> u32 {
    if (2..=12).contains(&t) { (6 - (t - 7).abs()) as u32 } else { 0 }
}

fn figures_label(n: u32) -> String {
    match n {
        0 => "no loss (halved to nothing)".into(),
        1 => "1 figure lost".into(),
        n => format!("{n} figures lost"),
    }
}
