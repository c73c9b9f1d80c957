//! The same shot under every rule set: with a unit selected and an enemy chosen, a window shows
//! how each rule set that can read the scenario judges a shot (or a charge) between them, side
//! by side — range and arc, every modifier with its rule, the exact odds — each column the very
//! text that rule set's own preview prints (`otp fire --rules all`,
//! [`registry::judge_everywhere`]). The units are judged where they stand now
//! ([`crate::scenario::spawn::as_it_stands`]), each rule set laying them out by its own basing, in the step where its
//! sequence allows the action. How a player picks rules.
//!
//! Opened with K or the toolbar's "Compare"; `OTP_COMPARE="firer,target[,charge|ball]"` opens it
//! for screenshots.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::UiSet;
use super::fire_orders::Targeting;
use super::session::Session;
use super::table_view::Selection;
use crate::rules::engine::{Engine, PreviewCommand};
use crate::rules::registry::{self, Judgement};
use crate::scenario::spawn::Unit;
use crate::table::footprint::Footprint;

/// The side-by-side window: open or not, the pair, shot or charge, and the judgements kept until
/// the game or the pair changes.
#[derive(Resource, Default)]
pub(crate) struct Compare {
    pub open: bool,
    pub charge: bool,
    /// Artillery firing ball rather than canister (OTP 8.9; the other rule sets read it as fire).
    pub ball: bool,
    /// The target by name (the firer is the selected unit).
    pub target: Option<String>,
    /// A preset firer to select once the units are known (`OTP_COMPARE`).
    preset: Option<String>,
    cache: Option<(Key, Vec<Judgement>)>,
}

/// What the judgements were made for: the game's revision, the firer, the target, a charge,
/// ball.
type Key = (u64, String, String, bool, bool);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Compare>().add_systems(PostStartup, preset).add_systems(Update, select_preset).add_systems(EguiPrimaryContextPass, window.in_set(UiSet::Windows).run_if(super::fonts_ready));
}

/// `OTP_COMPARE="firer,target[,charge]"`.
fn preset(mut compare: ResMut<Compare>) {
    let Ok(text) = std::env::var("OTP_COMPARE") else { return };
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [firer, target, rest @ ..] if rest.iter().all(|r| ["charge", "ball"].contains(r)) => {
            compare.open = true;
            compare.preset = Some(firer.to_string());
            compare.target = Some(target.to_string());
            compare.charge = rest.contains(&"charge");
            compare.ball = rest.contains(&"ball");
        }
        _ => eprintln!("OTP_COMPARE={text:?}: expected firer,target[,charge|ball]; ignored"),
    }
}

fn select_preset(mut compare: ResMut<Compare>, mut selection: ResMut<Selection>, units: Query<(Entity, &Unit)>) {
    let Some(name) = compare.preset.clone() else { return };
    if let Some((e, _)) = units.iter().find(|(_, u)| u.name == name) {
        selection.unit = Some(e);
        compare.preset = None;
    }
}

/// Every rule set's judgement of `firer` shooting at (or charging) `target`, the units where
/// the game has them now.
pub(crate) fn judgements(engine: &dyn Engine, firer: &str, target: &str, charge: bool, ball: bool) -> Vec<Judgement> {
    let command = if charge { PreviewCommand::Melee { special: false } } else { PreviewCommand::Fire { ball } };
    registry::judge_as_it_stands(engine, command, firer, target)
}

/// The firer's enemies, nearest first (by their first stands).
fn enemies(engine: &dyn Engine, firer: &str) -> Vec<String> {
    let world = engine.world();
    let Some(mut q) = world.try_query::<&Unit>() else { return Vec::new() };
    let all: Vec<&Unit> = q.iter(world).collect();
    let Some(me) = all.iter().find(|u| u.name == firer) else { return Vec::new() };
    let at = |u: &Unit| u.stands.first().and_then(|&s| world.get::<Footprint>(s)).map_or(Vec2::ZERO, |f| f.centre);
    let mut them: Vec<(f32, String)> = all.iter().filter(|u| u.side != me.side && !u.stands.is_empty()).map(|u| ((at(u) - at(me)).length(), u.name.clone())).collect();
    them.sort_by(|a, b| a.0.total_cmp(&b.0));
    them.into_iter().map(|(_, n)| n).collect()
}

const GOLD: Color32 = Color32::from_rgb(236, 200, 110);
const REFUSED: Color32 = Color32::from_rgb(255, 140, 120);

fn window(mut contexts: EguiContexts, mut compare: ResMut<Compare>, session: Option<Res<Session>>, selection: Res<Selection>, targeting: Option<Res<Targeting>>, units: Query<&Unit>) -> Result {
    if !compare.open {
        return Ok(());
    }
    let Some(session) = session else { return Ok(()) };
    let ctx = contexts.ctx_mut()?.clone();
    let engine = session.engine();
    let firer = selection.unit.and_then(|e| units.get(e).ok()).map(|u| u.name.clone());
    // The target chosen in fire or charge mode, if any, else the one picked here, else the nearest.
    let armed = targeting.as_ref().and_then(|t| t.armed).and_then(|e| units.get(e).ok()).map(|u| u.name.clone());
    let choices = firer.as_deref().map(|f| enemies(engine, f)).unwrap_or_default();
    if let Some(a) = armed.filter(|a| compare.target.as_ref() != Some(a)) {
        compare.target = Some(a);
    }
    if compare.target.as_ref().is_none_or(|t| !choices.contains(t)) {
        compare.target = choices.first().cloned();
    }
    let guns = selection.unit.and_then(|e| units.get(e).ok()).is_some_and(|u| matches!(u.arm, crate::scenario::model::Arm::Artillery { .. }));
    let key = firer.clone().zip(compare.target.clone()).map(|(f, t)| (session.revision, f, t, compare.charge, guns && compare.ball));
    if let Some(k) = &key
        && compare.cache.as_ref().is_none_or(|(c, _)| c != k)
    {
        compare.cache = Some((k.clone(), judgements(engine, &k.1, &k.2, k.3, k.4)));
    }
    let mut open = compare.open;
    let screen = ctx.content_rect();
    egui::Window::new("⚖ The same shot under every rule set")
        .open(&mut open)
        .collapsible(false)
        .default_size([screen.width() * 0.9, screen.height() * 0.7])
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(&ctx, |ui| {
            let Some(firer) = firer else {
                ui.label("Select a unit: its shot or charge at an enemy is judged here by every rule set.");
                return;
            };
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(&firer).strong().color(GOLD));
                ui.selectable_value(&mut compare.charge, false, "fires at");
                ui.selectable_value(&mut compare.charge, true, "charges");
                let shown = compare.target.clone().unwrap_or_else(|| "no enemy".into());
                egui::ComboBox::from_id_salt("compare_target").selected_text(RichText::new(shown).strong().color(GOLD)).show_ui(ui, |ui| {
                    for name in &choices {
                        ui.selectable_value(&mut compare.target, Some(name.clone()), name);
                    }
                });
                if guns && !compare.charge {
                    ui.checkbox(&mut compare.ball, "ball").on_hover_text("Guns firing ball rather than canister (OTP 8.9)");
                }
                ui.label(RichText::new("— judged where the units stand now, each rule set laying them out by its own basing, in the step its sequence allows it").weak());
            });
            ui.separator();
            let Some((_, judged)) = compare.cache.as_ref().filter(|(k, _)| key.as_ref() == Some(k)) else { return };
            egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
                ui.columns(judged.len(), |cols| {
                    for (col, j) in cols.iter_mut().zip(judged) {
                        column(col, j);
                    }
                });
            });
        });
    compare.open = open;
    Ok(())
}

/// One rule set's column: its title, then what its preview prints (a refusal in red, with its
/// rule), or why it cannot read the scenario. The text is the command line's, set in the
/// window's type: "label:   value" rows as label and value, odds with their chance in bold.
fn column(ui: &mut egui::Ui, j: &Judgement) {
    ui.with_layout(egui::Layout::top_down(egui::Align::LEFT), |ui| {
        ui.label(RichText::new(j.rules.title()).strong().size(15.0).color(GOLD));
        match &j.printed {
            Err(why) => {
                ui.label(RichText::new("cannot read this scenario").color(REFUSED));
                let first = why.lines().next().unwrap_or_default();
                // The file's place is the command line's business; here, the reason.
                let reason = first.splitn(4, ':').nth(3).map_or(first, str::trim);
                ui.label(RichText::new(reason).small().weak());
            }
            Ok(p) => {
                let text = format!("{}{}", p.stdout, p.stderr);
                for line in text.lines() {
                    printed_line(ui, line);
                }
            }
        }
    });
}

fn printed_line(ui: &mut egui::Ui, line: &str) {
    let indent = line.len() - line.trim_start().len();
    let line = line.trim();
    if line.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.add_space(indent.min(8) as f32 * 3.0);
        ui.spacing_mut().item_spacing.x = 5.0;
        if line.starts_with("refused") || line.starts_with("cannot") {
            ui.label(RichText::new(line).color(REFUSED));
        } else if let Some((chance, rest)) = line.split_once("%  ").filter(|(c, _)| c.trim().parse::<f32>().is_ok()) {
            ui.label(RichText::new(format!("{}%", chance.trim())).strong().monospace());
            ui.label(rest.trim());
        } else if let Some((label, value)) = line.split_once(":  ").or_else(|| line.split_once(": ").filter(|(l, _)| l.len() <= 16 && !l.contains(' ') || l.starts_with("in ") || l.starts_with("line of"))) {
            ui.label(RichText::new(format!("{label}:")).weak());
            ui.label(value.trim());
        } else {
            ui.label(line);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::engine::PreviewCommand;

    // Issue 22: the panel's figures are each rule set's own preview for the same pair, the
    // units where the game has them.
    #[test]
    fn the_panel_shows_each_rule_sets_own_preview_of_the_units_as_they_stand() {
        let scenario = crate::scenario::default_scenario();
        let game = registry::open(scenario.rules, scenario.clone(), 3).expect("opens");
        for charge in [false, true] {
            let judged = judgements(game.as_ref(), "23rd Foot", "1st Maryland", charge, false);
            let command = if charge { PreviewCommand::Melee { special: false } } else { PreviewCommand::Fire { ball: false } };
            assert_eq!(judged.len(), registry::COMPARED.len());
            for j in &judged {
                let mut own = scenario.clone();
                own.rules = j.rules;
                if let Ok(p) = &j.printed {
                    assert_eq!(p, &registry::preview_command(j.rules, command, &own, "23rd Foot", "1st Maryland", false), "{:?}", j.rules);
                }
            }
        }
        // The nearest enemy first.
        let them = enemies(game.as_ref(), "23rd Foot");
        assert!(!them.is_empty() && !them.contains(&"23rd Foot".to_string()) && !them.contains(&"33rd Foot".to_string()), "{them:?}");
    }
}
