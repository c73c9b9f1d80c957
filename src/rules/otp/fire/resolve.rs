//! Firing: the visibility roll in woods (8.7), the D10, the chart cell (8.1), the result (8.2),
//! and what it does: figures lost, crews (7.1), attached guns (7.5), Morale Markers (8.2, 10.2),
//! the initial volley (8.5) and commander casualties (8.16). The world is not touched: the
//! report says what changes, and `apply_fire` changes it.

use super::plan::{Plan, Volley};
use super::report::{CellRead, CommanderRoll, FireReport, MarkerChange, UnitEffect, VisibilityReport, describe};
use super::{FireContext, FireOccasion, Refusal};
use crate::rules::otp::charts::fire::Visibility;
use crate::rules::otp::charts::{Charts, FireResult};
use crate::rules::dice::{Dice, Roll};
use crate::scenario::model::Arm;
use crate::table::fire::{FireOptions, split_fire};

/// Fires one unit on one target: refused (nothing rolled) or reported.
pub fn resolve(ctx: &FireContext, charts: &Charts, dice: &mut Dice) -> Result<FireReport, Refusal> {
    let plan = Plan::new(*ctx, charts)?;
    let visibility = plan.woods.map(|w| roll_visibility(w, dice));
    Ok(fire_plans(&[plan], visibility, dice).pop().expect("one plan, one report"))
}

/// 8.1 split fire: a unit's own fire when its stands cannot all fire on the same target. Every
/// target its stands may take (the nearest for all that can reach it, then each other stand's
/// nearest) is fired on with one visibility roll and one D10 for all. `ctx.target` is ignored
/// for the unit's own fire; other occasions name their target and fire on it alone.
pub fn resolve_split(ctx: &FireContext, charts: &Charts, dice: &mut Dice) -> Result<Vec<FireReport>, Refusal> {
    if ctx.occasion != FireOccasion::Normal {
        return resolve(ctx, charts, dice).map(|r| vec![r]);
    }
    let s = ctx.situation();
    let opts = FireOptions { rules: &super::range::FIRE, ball: s.unit(ctx.firer).gun().is_some() && ctx.ammo == crate::rules::otp::charts::Ammo::Ball, extra_range: 0.0 };
    let split = split_fire(s, ctx.firer, opts);
    if split.is_empty() {
        return resolve(ctx, charts, dice).map(|r| vec![r]);
    }
    let plans = split.iter().map(|c| Plan::new(FireContext { target: c.target, ..*ctx }, charts)).collect::<Result<Vec<_>, _>>()?;
    // 8.7: visibility is rolled once for the firing unit, for the densest woods any target needs.
    let mean = |v: &Visibility| 3.5 * v.dice as f32 + v.plus as f32;
    let woods = plans.iter().filter_map(|p| p.woods).min_by(|a, b| mean(a).total_cmp(&mean(b)));
    let visibility = woods.map(|w| roll_visibility(w, dice));
    Ok(fire_plans(&plans, visibility, dice))
}

/// 8.7: the woods visibility this shot's firer must roll, rolled now (the roll, the woods, the
/// inches it sees); `None` when its sight lines need no roll or the shot is refused. A firefight's
/// attacker rolls it before it stops (9.3) and then fires with the visibility fixed
/// ([`FireContext::visibility`]), so the same roll decides where it stops and what it sees.
pub fn roll_visibility_now(ctx: &FireContext, charts: &Charts, dice: &mut Dice) -> Option<(Roll, &'static str, f32, crate::rules::cite::Source)> {
    let plan = Plan::new(*ctx, charts).ok()?;
    let entry = plan.woods?;
    let roll = dice.ad(entry.dice);
    let inches = (roll.total + entry.plus) as f32;
    let woods = match entry.woods {
        crate::scenario::model::WoodsDensity::Light => "light",
        crate::scenario::model::WoodsDensity::Regular => "regular",
        crate::scenario::model::WoodsDensity::Dense => "dense",
    };
    Some((roll, woods, inches, entry.source.clone()))
}

/// The averaging dice of a visibility roll.
struct VisibilityRoll<'a> {
    entry: &'a Visibility,
    roll: Roll,
}

fn roll_visibility<'a>(entry: &'a Visibility, dice: &mut Dice) -> VisibilityRoll<'a> {
    VisibilityRoll { entry, roll: dice.ad(entry.dice) }
}

/// Fires the plans of one unit with one visibility roll and one D10.
fn fire_plans(plans: &[Plan], visibility: Option<VisibilityRoll>, dice: &mut Dice) -> Vec<FireReport> {
    let inches = visibility.as_ref().map(|v| (v.roll.total + v.entry.plus) as f32);
    let volleys: Vec<Option<Volley>> = plans.iter().map(|p| p.volley(inches)).collect();
    let roll = volleys.iter().any(Option::is_some).then(|| dice.d10());
    // The initial volley is expended once, by whichever fire comes first (8.5).
    let mut volley_spent = false;
    plans
        .iter()
        .zip(volleys)
        .map(|(plan, volley)| {
            let vis = visibility.as_ref().filter(|_| plan.woods.is_some()).map(|v| VisibilityReport {
                woods: v.entry.woods,
                roll: v.roll.clone(),
                plus: v.entry.plus,
                inches: inches.unwrap_or(0.0),
                provenance: v.entry.source.clone(),
                stands_seeing: plan.seeing(inches),
            });
            let mut report = report(plan, vis, volley, roll.as_ref(), dice);
            report.initial_volley_expended &= !volley_spent;
            volley_spent |= report.initial_volley_expended;
            report
        })
        .collect()
}

fn report(plan: &Plan, visibility: Option<VisibilityReport>, volley: Option<Volley>, roll: Option<&Roll>, dice: &mut Dice) -> FireReport {
    let ctx = plan.ctx;
    let s = ctx.situation();
    let chart = &plan.charts.fire;
    let fu = s.unit(ctx.firer);
    let full = plan.shown_volley();
    let mut report = FireReport {
        shot: plan.head(),
        geometry: plan.summary(volley.as_ref()),
        visibility,
        visible: false,
        modifiers: Vec::new(),
        total_modifier: 0,
        column: full.column,
        roll: None,
        modified_roll: None,
        cells: Vec::new(),
        result: FireResult::NoEffect,
        effects: Vec::new(),
        initial_volley_expended: false,
        commander_rolls: Vec::new(),
    };
    let (Some(volley), Some(roll)) = (volley, roll) else { return report };
    let modified = roll.total + volley.total;
    let row = chart.row(modified);
    report.cells = volley
        .column
        .reads
        .iter()
        .map(|&part| CellRead { row: row.roll, column: part, result: chart.column(volley.column.part(part), modified), provenance: row.source.clone() })
        .collect();
    report.result = chart.column(volley.column.column, modified);
    report.visible = true;
    report.modifiers = volley.modifiers;
    report.total_modifier = volley.total;
    report.column = volley.column;
    report.roll = Some(roll.clone());
    report.modified_roll = Some(modified);
    report.initial_volley_expended = fu.arm == Arm::Infantry && !ctx.table.state(ctx.firer).initial_volley_used;
    report.effects = consequences(plan, report.result);
    report.commander_rolls = commander_rolls(plan, report.result, dice);
    report
}

/// Marker for a unit that is hit: gained, or it already had its one (10.2).
fn marker(plan: &Plan, unit: usize, hit: bool) -> MarkerChange {
    match (hit, plan.ctx.table.state(unit).morale_marker) {
        (false, _) => MarkerChange::None,
        (true, true) => MarkerChange::AlreadyHad,
        (true, false) => MarkerChange::Gained,
    }
}

/// What a result does to the target, an infantry unit its guns are attached to, and guns
/// attached to it (8.2, 7.1, 7.5).
fn consequences(plan: &Plan, result: FireResult) -> Vec<UnitEffect> {
    if result == FireResult::NoEffect {
        return Vec::new();
    }
    let table = plan.ctx.table;
    let s = plan.ctx.situation();
    let target = plan.ctx.target;
    let tu = s.unit(target);
    let kills = result.kills();
    let what = describe(result);
    let effect = |unit: usize, lost: u32, why: String| {
        let left = s.unit(unit).figures().saturating_sub(lost);
        UnitEffect { unit: s.unit(unit).name.clone(), index: unit, figures_lost: lost, figures_left: left, morale_marker: marker(plan, unit, true), gun_hits: None, eliminated: left == 0, why }
    };
    let mut out = Vec::new();
    let host = tu.gun().and(table.state(target).attached_to);
    if let Some(host) = host {
        // 7.5: losses of attached guns are taken from the infantry; the guns share its marker.
        out.push(effect(target, 0, format!("{what}: Morale Marker (8.2){}", if kills > 0 { "; the figures are lost by the infantry it is attached to (7.5)" } else { "" })));
        if kills > 0 {
            let lost = kills.min(s.unit(host).figures());
            out.push(effect(host, lost, format!("{lost} figure(s) lost for its attached guns (7.5), and a Morale Marker (8.2)")));
        }
    } else if tu.gun().is_some() {
        // 7.1: a crew figure (a gun) is lost only per 2 figure losses.
        let per = plan.charts.fire.crew_loss_per.value.max(1);
        let before = table.state(target).gun_hits;
        let figures = tu.figures();
        let crew = plan.charts.fire.crew_lost(before + kills).min(figures);
        let after = if crew == figures { 0 } else { before + kills - crew * per };
        let why = if kills > 0 { format!("{what}: {crew} crew figure(s) lost, {after} loss(es) carried (7.1), and a Morale Marker (8.2)") } else { format!("{what}: a Morale Marker (8.2)") };
        let mut e = effect(target, crew, why);
        e.gun_hits = Some((before, after));
        out.push(e);
    } else {
        let lost = kills.min(tu.figures());
        let why = if kills > 0 { format!("{what}: {lost} figure(s) removed and a Morale Marker (8.2)") } else { format!("{what}: a Morale Marker (8.2)") };
        out.push(effect(target, lost, why));
    }
    // 7.5: guns attached to an infantry unit that receives a Morale Marker suffer it too.
    let marked: Vec<usize> = out.iter().filter(|e| tu.gun().is_none() || host == Some(e.index)).map(|e| e.index).collect();
    for m in marked {
        for g in table.attached_guns(m).into_iter().filter(|&g| g != target) {
            out.push(effect(g, 0, format!("Morale Marker with \"{}\", to which it is attached (7.5)", s.unit(m).name)));
        }
    }
    out
}

/// 8.16: a D10 for each commander attached to a unit that took a kill or a morale hit.
fn commander_rolls(plan: &Plan, result: FireResult, dice: &mut Dice) -> Vec<CommanderRoll> {
    let table = plan.ctx.table;
    let s = plan.ctx.situation();
    let target = plan.ctx.target;
    let mut hit = Vec::new();
    if result.gives_marker() {
        hit.push(target);
    }
    if result.kills() > 0
        && s.unit(target).gun().is_some()
        && let Some(host) = table.state(target).attached_to
    {
        hit.push(host);
    }
    let chart = &plan.charts.commanders;
    hit.into_iter()
        .flat_map(|u| table.state(u).commanders.iter().map(move |c| (u, c)))
        .map(|(u, c)| {
            let roll = dice.d10();
            CommanderRoll {
                commander: c.clone(),
                unit: s.unit(u).name.clone(),
                casualty: chart.casualty_from_fire(roll.total),
                roll,
                provenance: chart.casualty_fire.source.clone(),
            }
        })
        .collect()
}
