//! Fire and charges as the window aims them: what a unit may do to an enemy unit (fire with
//! each ammunition, 8.4; charge, or charge by a special move, 6.8), a unit's fire ranges (8.3,
//! 8.4), a shot that cannot hit (8.1), the FIRE COMBAT chart around a cell read, and what
//! enfilade adds (8.11). Every verdict is the engine's own check.

use bevy::ecs::entity::Entity;

use super::super::charts::{Ammo, FireModifierId, FireResult};
use super::super::engine::{Action as OtpAction, ChargeOptions, Game};
use super::super::fire::FirePreview;
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Aim, ChartGrid, Choice, Factor, RangeBand, cited};
use crate::rules::report::{ChartRead, Report};
use crate::scenario::model::{Arm, GunSize};
use crate::scenario::spawn::Unit;

impl Game {
    /// What `unit` may do to the enemy `target`: fire (artillery also with ball or canister
    /// chosen, 8.4), charge, or charge by a special move to contact (6.8); each judged by
    /// `check`. Nothing for a friend, or a target destroyed or off the table.
    pub(super) fn target_choices_now(&self, unit: Entity, target: Entity) -> Vec<Choice> {
        let (Some(u), Some(t)) = (self.world().get::<Unit>(unit), self.world().get::<Unit>(target)) else { return Vec::new() };
        if u.side == t.side || t.figures == 0 || self.unit_turn(target).off_table {
            return Vec::new();
        }
        let (name, at) = (u.name.clone(), t.name.clone());
        let judged = |label: &str, action: Action| Choice::judged(self, label, action, true);
        let mut out = Vec::new();
        if let Arm::Artillery { .. } = u.arm {
            out.push(judged("best (canister when allowed, 8.4)", Action::Fire { unit: name.clone(), target: at.clone() }));
            for (ammo, label) in [(Ammo::Ball, "ball (8.4)"), (Ammo::Canister, "canister (8.4)")] {
                out.push(judged(label, Action::Otp(OtpAction::Fire { unit: name.clone(), target: at.clone(), ammo: Some(ammo) })));
            }
        } else {
            out.push(judged("fire (8.1)", Action::Fire { unit: name.clone(), target: at.clone() }));
        }
        out.push(judged("charge (9.0)", Action::Charge { unit: name.clone(), target: at.clone() }));
        let special = ChargeOptions { special: true, ..ChargeOptions::default() };
        out.push(judged("special move to contact (6.8)", Action::Otp(OtpAction::ChargeWith { unit: name, target: at, options: special })));
        out
    }

    /// A fire, or a charge in any of its forms, in OTP's words or the common ones.
    pub(super) fn aim(&self, action: &Action) -> Option<Aim> {
        match self.own_words(action).ok()? {
            OtpAction::Fire { .. } => Some(Aim::Fire),
            OtpAction::Charge { .. } | OtpAction::ChargeWith { .. } => Some(Aim::Charge),
            _ => None,
        }
    }

    /// 8.1, 8.2: a shot none of whose results hurts: why, in the rules' words.
    pub(super) fn futile_shot(&self, action: &Action) -> Option<String> {
        match self.own_words(action).ok()? {
            OtpAction::Fire { unit, target, ammo } => cannot_hit(&self.fire_preview(&unit, &target, ammo).ok()?),
            _ => None,
        }
    }

    /// The unit's fire ranges from the FIRE chart: small arms out to its weapon's range (8.3);
    /// guns in their short, medium and long bands (8.4), each band's far edge its last whole
    /// inch (partial inches round up, so the next band starts there).
    pub(super) fn unit_fire_bands(&self, unit: Entity) -> Vec<RangeBand> {
        let Some(u) = self.world().get::<Unit>(unit) else { return Vec::new() };
        let chart = &self.charts().fire;
        let cite = |s: &str| cited(RuleSetId::Otp, s);
        match (u.arm, u.weapon) {
            (Arm::Artillery { gun, .. }, _) => {
                let Some(r) = chart.artillery_ranges.iter().find(|r| r.gun == gun) else { return Vec::new() };
                vec![
                    RangeBand { label: format!("short 0–{}\"", r.short), reach: r.short as f32, cite: cite("8.4") },
                    RangeBand { label: format!("medium {}–{}\"", r.short + 1, r.medium), reach: r.medium as f32, cite: cite("8.4") },
                    RangeBand { label: format!("long {}–{}\"", r.medium + 1, r.long), reach: r.long as f32, cite: cite("8.4") },
                ]
            }
            (_, Some(w)) => {
                let r = chart.small_arms_range(w);
                vec![RangeBand { label: format!("{r}\" {}", w.name()), reach: r, cite: cite("8.3") }]
            }
            _ => Vec::new(),
        }
    }

    /// 8.3: small arms have a close range, 2" or less (none for guns or a unit without a weapon).
    pub(super) fn close_range_band(&self, unit: Entity) -> Option<RangeBand> {
        let u = self.world().get::<Unit>(unit)?;
        (u.weapon.is_some() && !matches!(u.arm, Arm::Artillery { .. })).then(|| {
            let r = crate::rules::otp::fire::range::CLOSE_RANGE;
            RangeBand { label: format!("close ≤ {r}\" (8.3)"), reach: r, cite: cited(RuleSetId::Otp, "8.3") }
        })
    }

    /// 8.4: guns with friends in their arc at short range may not fire canister.
    pub(super) fn canister_notes(&self, unit: Entity) -> Vec<String> {
        let Some(u) = self.world().get::<Unit>(unit).filter(|u| matches!(u.arm, Arm::Artillery { .. })) else { return Vec::new() };
        let s = crate::table::situation::Situation::from_world(self.world());
        let Ok(i) = s.find(&u.name) else { return Vec::new() };
        let masked = crate::rules::otp::fire::range::canister_masked_by(&s, i);
        if masked.is_empty() { Vec::new() } else { vec![format!("no canister: {} in arc at short range (8.4)", masked.join(", "))] }
    }

    /// 8.11: the enfilade modifiers of the FIRE chart (small arms and canister; ball).
    pub(super) fn enfilade_factors_of(&self, unit: Entity, ball: bool) -> Vec<Factor> {
        let chart = &self.charts().fire;
        let gun = self.world().get::<Unit>(unit).is_some_and(|u| matches!(u.arm, Arm::Artillery { .. }));
        let factor = |name: &str, id: FireModifierId| {
            let m = chart.modifier_entry(id);
            Factor { name: name.into(), value: format!("{:+}", m.value), rule: cited(RuleSetId::Otp, "8.11"), detail: Some(m.label.clone()), source: Some(m.source.clone()) }
        };
        let ball_factor = factor("ball", FireModifierId::EnfiladeBall);
        if gun && ball { vec![ball_factor] } else { vec![factor("small arms and canister", FireModifierId::Enfilade), ball_factor] }
    }

    /// A FIRE COMBAT read as the cells around it (three columns and two rows either side),
    /// from this game's chart: small arms, ball, or the firing guns' canister columns.
    pub(super) fn fire_chart_grid(&self, report: &Report, read: &ChartRead) -> Option<ChartGrid> {
        if read.chart != "FIRE COMBAT" {
            return None;
        }
        let mut words = read.column.split_whitespace();
        let (family, col) = (words.next()?, words.next()?.parse::<u32>().ok()?);
        let row = read.row.trim().parse::<i32>().ok()?;
        let gun = self.gun_of(report);
        let chart = &self.charts().fire;
        let cells = |r: &super::super::charts::fire::FireRow| -> Option<Vec<FireResult>> {
            Some(match (family, gun) {
                ("small_arms", _) => r.small_arms.0.clone(),
                ("ball", _) => r.ball.0.clone(),
                ("canister", Some(g)) => r.canister(g).0.clone(),
                _ => return None,
            })
        };
        let width = chart.rows.first().and_then(cells)?.len();
        if col == 0 || col as usize > width {
            return None;
        }
        let ri = chart.rows.iter().position(|r| r.roll == row)?;
        let span = |at: usize, len: usize, each: usize| {
            let lo = at.saturating_sub(each).min(len.saturating_sub(2 * each + 1));
            lo..(lo + 2 * each + 1).min(len)
        };
        let cols = span(col as usize - 1, width, 3);
        let rows = span(ri, chart.rows.len(), 2);
        let out_rows: Vec<(String, Vec<String>)> = chart.rows[rows.clone()]
            .iter()
            .map(|r| (r.roll.to_string(), cells(r).map(|c| c[cols.clone()].iter().map(|x| x.to_string()).collect()).unwrap_or_default()))
            .collect();
        let column_axis = match family {
            "small_arms" => "figures firing".to_string(),
            "ball" => "guns firing ball".to_string(),
            _ => format!("{} guns, canister", gun.map(|g| format!("{g:?}").to_lowercase()).unwrap_or_default()),
        };
        Some(ChartGrid {
            column_axis,
            row_axis: "modified D10".into(),
            columns: cols.clone().map(|c| (c + 1).to_string()).collect(),
            rows: out_rows,
            hit: (ri - rows.start, col as usize - 1 - cols.start),
        })
    }

    /// The gun size of the artillery that fired in `report` (a fire, or closing fire at a
    /// charge), for the canister columns.
    fn gun_of(&self, report: &Report) -> Option<GunSize> {
        let name = match report.action.as_otp()? {
            OtpAction::Fire { unit, .. } => unit,
            OtpAction::Charge { target, .. } | OtpAction::ChargeWith { target, .. } => target,
            _ => return None,
        };
        match self.unit_entity(name).map(|e| self.unit(e).arm) {
            Some(Arm::Artillery { gun, .. }) => Some(gun),
            _ => None,
        }
    }
}

/// 8.1, 8.2: a shot none of whose results does anything (no kill, no Morale Marker): why, in
/// the rules' words; None when some result hits.
pub(crate) fn cannot_hit(p: &FirePreview) -> Option<String> {
    let hits: f64 = p.outcomes.iter().filter(|o| o.kills > 0 || o.morale_marker).map(|o| o.probability).sum();
    if hits > 0.0 {
        return None;
    }
    if p.visibility.as_ref().is_some_and(|v| v.not_visible >= 1.0) {
        return Some(format!("The woods on the sight line hide {} from every throw of the visibility dice (OTP 8.7).", p.shot.target));
    }
    Some(format!(
        "With modifiers totalling {:+}, every D10 (read 0–9, OTP 1.0) reads \"no effect\" in column {} of the FIRE COMBAT chart (OTP 8.1): {} figure(s) at {:.1}\" cannot hurt {}.",
        p.total_modifier, p.column.label, p.geometry.figures, p.geometry.range, p.shot.target
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::engine::Engine;
    use crate::rules::otp::engine::testing::{in_range, ok};


    // OTP 4.3, 8.4, 6.8: a unit may fire (a gun with each ammunition) and charge (also by a
    // special move); every choice carries `check`'s verdict, a refused one its refusal.
    #[test]
    fn target_choices_carry_checks_verdicts() {
        let g = in_range(3);
        let engine: &dyn Engine = &g;
        let target = g.unit_entity("Delaware Light Infantry").unwrap();
        let not_phasing = g.unit_entity("33rd Foot").unwrap();
        let choices = engine.target_choices(not_phasing, target);
        assert_eq!(choices.iter().filter(|c| engine.aim_of(&c.action) == Some(Aim::Fire)).count(), 1);
        assert_eq!(choices.iter().filter(|c| engine.aim_of(&c.action) == Some(Aim::Charge)).count(), 2);
        for c in &choices {
            let refusal = c.verdict.clone().unwrap_err();
            assert_eq!(refusal.rule, "4.3", "{c:?}");
            assert_eq!(Err(refusal), engine.check(&c.action));
        }
        let guns = g.unit_entity("Continental Artillery").unwrap();
        let at = g.unit_entity("71st Light Company").unwrap();
        let fire: Vec<Choice> = engine.target_choices(guns, at).into_iter().filter(|c| engine.aim_of(&c.action) == Some(Aim::Fire)).collect();
        assert_eq!(fire.len(), 3, "8.4: the engine's choice, ball, canister");
        for c in &fire {
            assert_eq!(c.verdict, engine.check(&c.action));
        }
        // A friend is no target.
        assert!(engine.target_choices(target, g.unit_entity("1st Maryland").unwrap()).is_empty());
    }

    // OTP 8.3, 8.4: fire bands from the FIRE chart: a musket 6"; medium guns short 0–9",
    // medium 10–18", long 19–24".
    #[test]
    fn fire_bands_are_the_charts() {
        let g = in_range(1);
        let engine: &dyn Engine = &g;
        let musket = engine.fire_bands(g.unit_entity("1st Maryland").unwrap());
        assert_eq!(musket.iter().map(|b| (b.label.as_str(), b.reach, b.cite.as_str())).collect::<Vec<_>>(), vec![("6\" musket", 6.0, "OTP 8.3")]);
        let guns = g.unit_entity("Continental Artillery").unwrap();
        let Arm::Artillery { gun, .. } = g.unit(guns).arm else { panic!() };
        let r = g.charts().fire.artillery_ranges.iter().find(|r| r.gun == gun).unwrap();
        let bands = engine.fire_bands(guns);
        assert_eq!(bands.iter().map(|b| b.reach).collect::<Vec<_>>(), vec![r.short as f32, r.medium as f32, r.long as f32]);
        assert_eq!(bands[1].label, format!("medium {}–{}\"", r.short + 1, r.medium));
        assert!(bands.iter().all(|b| b.cite == "OTP 8.4"));
    }

    // OTP 8.11: enfilade's modifiers are the chart's; a gun firing ball has only ball's.
    #[test]
    fn enfilade_factors_are_the_charts() {
        let g = in_range(1);
        let engine: &dyn Engine = &g;
        let f = &g.charts().fire;
        let musket = engine.enfilade_factors(g.unit_entity("1st Maryland").unwrap(), false);
        let values: Vec<String> = musket.iter().map(|x| x.value.clone()).collect();
        assert_eq!(values, vec![format!("{:+}", f.modifier(FireModifierId::Enfilade)), format!("{:+}", f.modifier(FireModifierId::EnfiladeBall))]);
        let ball = engine.enfilade_factors(g.unit_entity("Continental Artillery").unwrap(), true);
        assert_eq!((ball.len(), ball[0].name.as_str()), (1, "ball"));
    }

    // OTP 8.1, 8.2, 1.0: a shot none of whose results hurts says so, and why, in the rules' words
    // (the D10 read 0–9); a shot that can hit does not.
    #[test]
    fn a_shot_that_cannot_hit_says_why() {
        let g = in_range(3);
        let p = g.fire_preview("Delaware Light Infantry", "71st Light Company", None).unwrap();
        assert!(p.outcomes.iter().any(|o| o.kills > 0 && o.probability > 0.0), "this one can hit");
        assert_eq!(cannot_hit(&p), None);
        let engine: &dyn Engine = &g;
        assert_eq!(engine.futile(&Action::Fire { unit: "Delaware Light Infantry".into(), target: "71st Light Company".into() }), None);
        let mut hopeless = p.clone();
        for o in &mut hopeless.outcomes {
            o.probability = if o.kills > 0 || o.morale_marker { 0.0 } else { 1.0 };
        }
        let why = cannot_hit(&hopeless).expect("cannot hit");
        assert!(why.contains("0–9") && why.contains(&p.column.label) && why.contains("no effect"), "{why}");
    }

    // OTP 8.1: a FIRE COMBAT read is drawn from this game's chart, the cell read in its row and
    // column; any other chart is left to be shown alone.
    #[test]
    fn the_chart_grid_is_the_fire_charts_around_the_cell() {
        let mut g = in_range(5);
        let r = ok(&mut g, OtpAction::fire("Delaware Light Infantry", "71st Light Company"));
        let engine: &dyn Engine = &g;
        let read = r.charts.iter().find(|c| c.chart == "FIRE COMBAT").expect("a fire read");
        let grid = engine.chart_grid(&r, read).expect("a grid");
        let (i, j) = grid.hit;
        assert_eq!(grid.rows[i].1[j], read.result);
        assert_eq!((grid.rows[i].0.as_str(), grid.columns[j].as_str()), (read.row.trim(), read.column.split_whitespace().nth(1).unwrap()));
        let col: u32 = grid.columns[j].parse().unwrap();
        let row: i32 = grid.rows[i].0.parse().unwrap();
        assert_eq!(grid.rows[i].1[j], g.charts().fire.small_arms(col, row).to_string(), "the chart's own cell");
        let mut other = read.clone();
        other.chart = "CLOSURE".into();
        assert_eq!(engine.chart_grid(&r, &other), None);
    }
}
