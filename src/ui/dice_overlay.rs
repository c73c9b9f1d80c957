//! The dice overlay: after every action whose report threw dice (fire, morale, closure, melee,
//! commander casualties, special moves, rebuilds…), a panel over a corner of the table shows
//! the report in the order the action met it, grouped by step, each line with its rule:
//! every die drawn as its face (D10 0–9, 2D10 as tens | units, averaging dice 2,3,3,4,4,5) after
//! a short roll, the modifiers with their values, each chart read as a small table with the row
//! and column read highlighted (the FIRE COMBAT chart's neighbourhood of the cell in full), the
//! outcome in bold and the changes. It stays until closed (✖ or Esc) or the next report.
//! The units the changes name get a pulsing ring on the table for 1.5 s.
//! The panel takes the corner of the table that hides no unit (their stands and names), the
//! units the report concerns least of all, nor the fire toolbar; it is made shorter (its lines
//! scroll) before it covers one, and keeps its corner while that stays clear.
//!
//! Presets and settings (read at start):
//! - `OTP_SHOW_REPORT=1`: show the overlay for the game's last report (`otp play SAVE.ron`);
//!   `OTP_SHOW_REPORT=melee` (a step's heading) also scrolls the overlay to that step.
//! - `OTP_NO_ANIMATION=1`: no rolling faces and no fading ring; screenshots never animate.

use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::session::{Applied, Session};
use super::table_view::{Troops, UnitLabelBoxes};
use super::{RunOptions, UiSet, fonts_ready};
use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::dice::{AD_FACES, DiceKind, Roll};
use crate::rules::engine::{Aim, ChartGrid, Engine};
use crate::rules::report::{ChartRead, Item, Report};

/// How long the dice roll before showing their faces, seconds.
const ROLL_SECONDS: f64 = 0.5;
/// How long a changed unit's ring pulses, seconds.
const PULSE_SECONDS: f64 = 1.5;

/// One line of the overlay, in the order the action met it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Row {
    /// A new step of the action (fire, closure, melee, retreat…), named from its rule.
    Step(String),
    Die { purpose: String, rule: String, roll: Roll },
    Modifier { name: String, value: i32, rule: String },
    Chart { read: ChartRead, grid: ChartGrid },
    Note { text: String, rule: String },
    /// 9.8: each side's melee values (unit, value), side by side.
    Values { attacker: Vec<(String, String)>, defender: Vec<(String, String)> },
    Outcome(String),
    Change { text: String, rule: String },
}

/// The overlay's lines for a report: every die, modifier, chart cell and note in the order met,
/// under a heading for each step, then the outcome and the changes. A chart read is drawn as the
/// engine's grid around the cell (`Engine::chart_grid`), else alone.
pub(crate) fn overlay_rows(report: &Report, engine: Option<&dyn Engine>) -> Vec<Row> {
    let mut out = Vec::new();
    let mut current = String::new();
    // Another rule set's sections are cited in its own words ("OR16"), and head their own step.
    for item in report.items() {
        let rule = match item {
            Item::Die(i) => &report.dice[i].rule,
            Item::Modifier(i) => &report.modifiers[i].rule,
            Item::Chart(_) => "",
            Item::Note(i) => &report.notes[i].rule,
        };
        // A chart read belongs to the step of the die before it; some rules belong to the step
        // that calls for them (the engine's `step_heading`).
        if !rule.is_empty() {
            let (s, within) = match engine {
                Some(e) => e.step_heading(rule),
                None => (report.rules.cite(rule).to_string(), false),
            };
            if s != current && (!within || current.is_empty()) {
                out.push(Row::Step(s.clone()));
                current = s;
            }
        }
        out.push(match item {
            Item::Die(i) => {
                let d = &report.dice[i];
                Row::Die { purpose: d.purpose.clone(), rule: d.rule.clone(), roll: d.roll.clone() }
            }
            Item::Modifier(i) => {
                let m = &report.modifiers[i];
                Row::Modifier { name: m.name.clone(), value: m.value, rule: m.rule.clone() }
            }
            Item::Chart(i) => {
                let read = &report.charts[i];
                let grid = engine.and_then(|e| e.chart_grid(report, read)).unwrap_or_else(|| ChartGrid::single(read));
                Row::Chart { read: read.clone(), grid }
            }
            Item::Note(i) => {
                let n = &report.notes[i];
                Row::Note { text: n.text.clone(), rule: n.rule.clone() }
            }
        });
    }
    // 9.8: both sides' melee values side by side, after the last of them.
    let charge = match engine {
        Some(e) => e.aim_of(&report.action) == Some(Aim::Charge),
        None => matches!(report.action, Action::Charge { .. }),
    };
    let attacker = report.action.unit().filter(|_| charge);
    let values: Vec<(usize, String, String)> = out
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r {
            Row::Note { text, .. } => {
                let (name, rest) = text.split_once(": ")?;
                let value = rest.rsplit_once("= melee value ")?.1;
                Some((i, name.to_string(), value.trim().to_string()))
            }
            _ => None,
        })
        .collect();
    if let (Some(a), Some(&(last, ..))) = (attacker, values.last()) {
        let (mine, theirs): (Vec<_>, Vec<_>) = values.iter().map(|(_, n, v)| (n.clone(), v.clone())).partition(|(n, _)| n == a);
        out.insert(last + 1, Row::Values { attacker: mine, defender: theirs });
    }
    if !report.outcome.is_empty() {
        out.push(Row::Outcome(report.outcome.clone()));
    }
    if !report.changes.is_empty() {
        out.push(Row::Step("Changes".into()));
        out.extend(report.changes.iter().map(|c| Row::Change { text: c.text.clone(), rule: c.rule.clone() }));
    }
    out
}

/// The units a report's changes name (whole names; a name inside a longer one that was also
/// named does not count on its own).
pub(crate) fn units_named(report: &Report, names: &[String]) -> Vec<String> {
    let mut sorted: Vec<&String> = names.iter().filter(|n| !n.is_empty()).collect();
    sorted.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut found = Vec::new();
    for c in &report.changes {
        let mut text = c.text.clone();
        for n in &sorted {
            if text.contains(n.as_str()) {
                if !found.contains(*n) {
                    found.push((*n).clone());
                }
                text = text.replace(n.as_str(), "\u{1}");
            }
        }
    }
    found
}

/// The overlay's state.
#[derive(Resource, Default)]
pub(crate) struct DiceOverlay {
    pub report: Option<Report>,
    /// The egui time it opened (None: not drawn yet).
    opened_at: Option<f64>,
    /// Units to ring, and the egui time the rings started (None: start at the next frame).
    pulses: Vec<String>,
    pulse_at: Option<f64>,
    /// Cached rows for the report shown.
    rows: Vec<Row>,
    /// No rolling faces, no fading ring (OTP_NO_ANIMATION, screenshots).
    still: bool,
    /// A step to scroll to (`OTP_SHOW_REPORT=melee`), for the first frames only.
    scroll_to: Option<(String, u8)>,
    /// The units the report concerns (its action's and its changes'): never covered if it can
    /// be helped.
    concerned: Vec<String>,
    /// The panel's whole height last frame had it not been cut short (0: not drawn yet).
    natural: f32,
    /// Where it went: kept while it stays clear.
    spot: Option<Spot>,
}

impl DiceOverlay {
    fn show(&mut self, report: &Report, session: Option<&Session>, names: &[String]) {
        self.pulses = units_named(report, names);
        self.pulse_at = None;
        if report.dice.is_empty() {
            return;
        }
        let mut concerned: Vec<String> = report.action.units_named().into_iter().map(|n| n.to_string()).collect();
        concerned.extend(self.pulses.iter().filter(|n| !concerned.contains(n)).cloned().collect::<Vec<_>>());
        self.concerned = concerned;
        self.natural = 0.0;
        self.rows = overlay_rows(report, session.map(|s| s.engine()));
        self.report = Some(report.clone());
        self.opened_at = None;
    }

    pub fn close(&mut self) {
        self.report = None;
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<DiceOverlay>()
        .add_systems(PostStartup, presets)
        .add_systems(Update, (take_reports, keyboard.run_if(not(egui_wants_any_keyboard_input)).before(super::fire_orders::keyboard).before(super::unit_sheet::keyboard)))
        .add_systems(EguiPrimaryContextPass, (pulses.in_set(UiSet::Tools), overlay.in_set(UiSet::Windows).run_if(not(super::file_menu::dialog_open))).run_if(fonts_ready));
}

fn unit_names(session: Option<&Session>) -> Vec<String> {
    let Some(world) = session.map(|s| s.engine().world()) else { return Vec::new() };
    world.try_query::<&crate::scenario::spawn::Unit>().map(|mut q| q.iter(world).map(|u| u.name.clone()).collect()).unwrap_or_default()
}

fn presets(mut o: ResMut<DiceOverlay>, session: Option<Res<Session>>, options: Option<Res<RunOptions>>) {
    o.still = std::env::var("OTP_NO_ANIMATION").is_ok_and(|v| v != "0") || options.is_some_and(|o| o.screenshot.is_some());
    if let Ok(v) = std::env::var("OTP_SHOW_REPORT")
        && v != "0"
    {
        if !matches!(v.as_str(), "1" | "") {
            o.scroll_to = Some((v.to_lowercase(), 6));
        }
        match session.as_ref().and_then(|s| s.last_report.clone()) {
            Some(r) => {
                let names = unit_names(session.as_deref());
                o.show(&r, session.as_deref(), &names);
            }
            None => eprintln!("OTP_SHOW_REPORT: the game has no report yet"),
        }
    }
}

fn take_reports(mut applied: MessageReader<Applied>, mut o: ResMut<DiceOverlay>, session: Option<Res<Session>>) {
    for Applied(report) in applied.read() {
        let names = unit_names(session.as_deref());
        o.show(report, session.as_deref(), &names);
    }
}

/// Esc closes the overlay first (and goes no further).
fn keyboard(mut keys: ResMut<ButtonInput<KeyCode>>, mut o: ResMut<DiceOverlay>) {
    if o.report.is_some() && keys.just_pressed(KeyCode::Escape) {
        o.close();
        keys.clear_just_pressed(KeyCode::Escape);
    }
}

/// A small deterministic scramble for the rolling faces.
fn scramble(t: u64, i: usize, j: usize) -> u64 {
    let mut x = t.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((i as u64) << 20) ^ (j as u64);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 32)
}

const INK: Color32 = Color32::from_rgb(30, 28, 24);
const IVORY: Color32 = Color32::from_rgb(240, 234, 214);
const HIGHLIGHT: Color32 = Color32::from_rgb(250, 210, 40);
const RULE: Color32 = Color32::from_rgb(160, 160, 150);

/// One die face: a D10 as a kite, an averaging die as a cube face.
fn die_face(ui: &mut egui::Ui, kind: DiceKind, face: u8, caption: Option<&str>) {
    let size = egui::vec2(28.0, 28.0);
    ui.vertical(|ui| {
        let (r, _) = ui.allocate_exact_size(size, egui::Sense::hover());
        let p = ui.painter();
        match kind {
            DiceKind::Ad(_) => {
                p.rect(r.shrink(2.0), 6.0, IVORY, egui::Stroke::new(1.5, INK), egui::StrokeKind::Inside);
            }
            _ => {
                let c = r.center();
                let pts = vec![egui::pos2(c.x, r.top()), egui::pos2(r.right() - 1.0, c.y - 3.0), egui::pos2(c.x, r.bottom()), egui::pos2(r.left() + 1.0, c.y - 3.0)];
                p.add(egui::Shape::convex_polygon(pts, Color32::from_rgb(176, 36, 30), egui::Stroke::new(1.5, INK)));
            }
        }
        let colour = if matches!(kind, DiceKind::Ad(_)) { INK } else { Color32::WHITE };
        p.text(r.center() + egui::vec2(0.0, if matches!(kind, DiceKind::Ad(_)) { 0.0 } else { -2.0 }), egui::Align2::CENTER_CENTER, face.to_string(), egui::FontId::new(16.0, super::paint::table_font_bold()), colour);
        if let Some(c) = caption {
            ui.label(RichText::new(c).small().weak());
        }
    });
}

/// What a die's face reads, under it where it is rolled (OTP 1.0): a D10 reads 0–9 (0 is
/// zero, not ten), 2D10 are tens and units.
pub(crate) fn face_caption(kind: DiceKind, j: usize) -> Option<&'static str> {
    match (kind, j) {
        (DiceKind::TwoD10, 0) => Some("tens"),
        (DiceKind::TwoD10, _) => Some("units"),
        (DiceKind::D10, _) => Some("D10: 0–9 (1.0)"),
        _ => None,
    }
}

/// A roll's faces (rolling for the first half second), and its total.
fn roll_ui(ui: &mut egui::Ui, roll: &Roll, rolling: Option<u64>, index: usize) {
    ui.horizontal(|ui| {
        for (j, &real) in roll.faces.iter().enumerate() {
            let face = match rolling {
                Some(t) => match roll.kind {
                    DiceKind::Ad(_) => AD_FACES[(scramble(t, index, j) % 6) as usize],
                    _ => (scramble(t, index, j) % 10) as u8,
                },
                None => real,
            };
            let caption = face_caption(roll.kind, j);
            if roll.kind == DiceKind::TwoD10 && j == 1 {
                ui.label(RichText::new("|").size(20.0).weak());
            }
            die_face(ui, roll.kind, face, caption);
        }
        if rolling.is_none() {
            let total = match roll.kind {
                DiceKind::TwoD10 => format!("= {:02}", roll.total),
                _ if roll.faces.len() > 1 => format!("= {}", roll.total),
                _ => String::new(),
            };
            if !total.is_empty() {
                ui.label(RichText::new(total).size(18.0).strong());
            }
        }
    });
}

/// A chart read: the chart's name and the cell, and the small table with the row, the column
/// and the cell read highlighted.
fn chart_ui(ui: &mut egui::Ui, rules: RuleSetId, read: &ChartRead, g: &ChartGrid, id: usize) {
    let source = if read.provenance.is_reconstructed() { " †" } else { "" };
    let single = g.columns.len() == 1 && g.rows.len() == 1;
    let head = if single { format!("{}{source}", read.chart) } else { format!("{}: column {}, row {}: {}{source}", read.chart, read.column.replace('_', " "), read.row, read.result) };
    let r = ui.label(RichText::new(head).strong());
    r.on_hover_text(read.provenance.cited(rules));
    let band = Color32::from_rgba_unmultiplied(250, 210, 40, 40);
    if single {
        // One cell of a chart not drawn in full: its column and row labels and the cell read.
        egui::Grid::new(("chart_cell", id)).spacing([6.0, 2.0]).show(ui, |ui| {
            ui.label(RichText::new("row \\ column").color(RULE).size(11.0));
            egui::Frame::NONE.fill(band).inner_margin(egui::Margin::symmetric(6, 1)).show(ui, |ui| {
                ui.label(RichText::new(&g.columns[0]).strong().color(HIGHLIGHT));
            });
            ui.end_row();
            egui::Frame::NONE.fill(band).inner_margin(egui::Margin::symmetric(6, 1)).show(ui, |ui| {
                ui.label(RichText::new(&g.rows[0].0).strong().color(HIGHLIGHT));
            });
            egui::Frame::NONE.fill(HIGHLIGHT).inner_margin(egui::Margin::symmetric(6, 2)).corner_radius(2.0).show(ui, |ui| {
                ui.set_max_width(260.0);
                ui.add(egui::Label::new(RichText::new(&g.rows[0].1[0]).strong().color(INK)).wrap());
            });
            ui.end_row();
        });
        return;
    }
    egui::Frame::NONE.inner_margin(egui::Margin::symmetric(6, 2)).show(ui, |ui| {
        if !g.column_axis.is_empty() {
            ui.label(RichText::new(format!("columns: {} · rows: {}", g.column_axis, g.row_axis)).small().weak());
        }
        egui::Grid::new(("chart_grid", id)).spacing([0.0, 0.0]).show(ui, |ui| {
            let cell = |ui: &mut egui::Ui, text: &str, fill: Color32, strong: bool, colour: Color32| {
                let (r, _) = ui.allocate_exact_size(egui::vec2(if g.columns.len() == 1 { 150.0 } else { 32.0 }, 17.0), egui::Sense::hover());
                ui.painter().rect_filled(r, 0.0, fill);
                let font = if strong { egui::FontId::new(13.5, super::paint::table_font_bold()) } else { egui::FontId::proportional(13.0) };
                ui.painter().text(r.center(), egui::Align2::CENTER_CENTER, text, font, colour);
            };
            cell(ui, "", Color32::TRANSPARENT, false, RULE);
            for (j, c) in g.columns.iter().enumerate() {
                let hit = j == g.hit.1;
                cell(ui, c, if hit { band } else { Color32::TRANSPARENT }, hit, if hit { HIGHLIGHT } else { RULE });
            }
            ui.end_row();
            for (i, (label, cells)) in g.rows.iter().enumerate() {
                let row_hit = i == g.hit.0;
                cell(ui, label, if row_hit { band } else { Color32::TRANSPARENT }, row_hit, if row_hit { HIGHLIGHT } else { RULE });
                for (j, v) in cells.iter().enumerate() {
                    let hit = row_hit && j == g.hit.1;
                    let (fill, colour) = if hit {
                        (HIGHLIGHT, INK)
                    } else if row_hit || j == g.hit.1 {
                        (band, Color32::from_gray(235))
                    } else {
                        (Color32::from_black_alpha(60), Color32::from_gray(200))
                    };
                    cell(ui, v, fill, hit, colour);
                }
                ui.end_row();
            }
        });
    });
}

fn rule_tag(ui: &mut egui::Ui, rules: RuleSetId, rule: &str) {
    if !rule.is_empty() {
        ui.label(RichText::new(rules.cite(rule).to_string()).color(RULE).size(11.5));
    }
}

fn overlay(mut contexts: EguiContexts, mut o: ResMut<DiceOverlay>, view: Res<View>, troops: Res<Troops>, labels: Res<UnitLabelBoxes>) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let Some(report) = o.report.clone() else { return Ok(()) };
    if !view.rect.is_positive() {
        return Ok(());
    }
    let now = ctx.input(|i| i.time);
    let opened = *o.opened_at.get_or_insert(now);
    let rolling = (!o.still && now - opened < ROLL_SECONDS).then_some((now * 14.0) as u64);
    if rolling.is_some() {
        ctx.request_repaint();
    }
    let mut close = false;
    let scroll_to = match &mut o.scroll_to {
        Some((step, frames)) if *frames > 0 => {
            *frames -= 1;
            Some(step.clone())
        }
        _ => None,
    };
    // In the corner of the table that hides no unit, the ones the report concerns least of all.
    let id = egui::Id::new("dice_overlay");
    let width = report_width(view.rect);
    let natural = if o.natural > 0.0 { o.natural } else { ctx.memory(|m| m.area_rect(id)).map_or(300.0, |r| r.height()) };
    let clear = keep_clear(&ctx, &view, &troops, &labels, &o.concerned);
    let (spot, rect) = place_report(view.rect, width, natural, &clear, o.spot);
    o.spot = Some(spot);
    let mut measured = None;
    let shown = egui::Area::new(id)
        .fade_in(false)
        .order(egui::Order::Foreground)
        .fixed_pos(rect.min)
        .constrain_to(view.rect)
        .show(&ctx, |ui| {
            egui::Frame::window(ui.style()).inner_margin(10.0).show(ui, |ui| {
                ui.set_width(rect.width() - 22.0);
                ui.spacing_mut().item_spacing.y = 3.0;
                ui.horizontal_top(|ui| {
                    let w = ui.available_width() - 34.0;
                    ui.allocate_ui_with_layout(egui::vec2(w, 0.0), egui::Layout::top_down(egui::Align::Min), |ui| {
                        ui.add(egui::Label::new(RichText::new(format!("Turn {}: {}", report.turn, report.title)).strong().size(15.0)).wrap());
                    });
                    if ui.button("✖").on_hover_text("Close (Esc)").clicked() {
                        close = true;
                    }
                });
                // The outcome first; then how it came about, in the order met, and the changes.
                if rolling.is_none() && !report.outcome.is_empty() {
                    ui.label(RichText::new(&report.outcome).strong().size(15.0).color(HIGHLIGHT));
                }
                ui.separator();
                // What is left of the corner's height for the lines (frame and margins: 24).
                let room = (rect.height() - ui.min_rect().height() - 24.0).max(80.0);
                let lines = egui::ScrollArea::vertical().max_height(room).min_scrolled_height(room).show(ui, |ui| {
                    let mut die = 0;
                    for (k, row) in o.rows.iter().enumerate() {
                        match row {
                            Row::Step(s) if s == "Changes" && rolling.is_some() => {}
                            Row::Step(s) => {
                                ui.add_space(4.0);
                                let r = ui.label(RichText::new(s).strong().color(Color32::from_rgb(236, 228, 200)).size(14.0));
                                if scroll_to.as_deref() == Some(s.to_lowercase().as_str()) {
                                    r.scroll_to_me_animation(Some(egui::Align::TOP), egui::style::ScrollAnimation::none());
                                }
                            }
                            Row::Die { purpose, rule, roll } => {
                                ui.horizontal(|ui| {
                                    roll_ui(ui, roll, rolling, die);
                                    ui.horizontal_wrapped(|ui| {
                                        ui.label(RichText::new(format!("{} for {purpose}", roll.kind)).color(Color32::from_gray(225)));
                                        rule_tag(ui, report.rules, rule);
                                    });
                                });
                                die += 1;
                            }
                            Row::Modifier { name, value, rule } => {
                                ui.horizontal(|ui| {
                                    ui.label(RichText::new(format!("{value:+}")).monospace().strong());
                                    ui.label(name.replace('_', " "));
                                    rule_tag(ui, report.rules, rule);
                                });
                            }
                            Row::Chart { read, grid } => {
                                if rolling.is_none() {
                                    chart_ui(ui, report.rules, read, grid, k);
                                }
                            }
                            Row::Note { text, rule } => {
                                ui.horizontal_wrapped(|ui| {
                                    ui.label(RichText::new(text).color(Color32::from_gray(210)).size(12.5));
                                    rule_tag(ui, report.rules, rule);
                                });
                            }
                            Row::Values { attacker, defender } => {
                                egui::Frame::NONE.fill(Color32::from_black_alpha(60)).inner_margin(6.0).corner_radius(4.0).show(ui, |ui| {
                                    ui.columns(2, |cols| {
                                        for (col, (title, side)) in cols.iter_mut().zip([("Attacker", attacker), ("Defender", defender)]) {
                                            let total: u32 = side.iter().filter_map(|(_, v)| v.parse::<u32>().ok()).sum();
                                            col.label(RichText::new(format!("{title}: {total}")).strong().size(14.0));
                                            for (n, v) in side {
                                                col.label(RichText::new(format!("{n}: {v}")).size(12.5));
                                            }
                                        }
                                    });
                                    ui.label(RichText::new("melee values (OTP 9.8): each side adds a D10").color(RULE).size(11.5));
                                });
                            }
                            Row::Change { text, rule } if rolling.is_none() => {
                                ui.horizontal_wrapped(|ui| {
                                    ui.label(RichText::new(format!("• {text}")).color(Color32::from_rgb(255, 170, 150)).size(13.0));
                                    rule_tag(ui, report.rules, rule);
                                });
                            }
                            // The outcome is at the top; changes wait for the dice to land.
                            Row::Outcome(_) | Row::Change { .. } => {}
                        }
                    }
                });
                measured = Some(lines.content_size.y - lines.inner_rect.height());
            });
        });
    // How tall it would be uncut: what the lines hid below their scroll.
    if let Some(hidden) = measured {
        o.natural = shown.response.rect.height() + hidden.max(0.0);
    }
    if close {
        o.close();
    }
    Ok(())
}

/// The report's width: narrower on a narrow table.
fn report_width(table: egui::Rect) -> f32 {
    (table.width() - 370.0).clamp(320.0, 430.0) + 22.0
}

/// What the report should not hide, each with its weight: every unit's stands and name (the
/// units it concerns six times over), and the fire toolbar and a pinned target ten times.
fn keep_clear(ctx: &egui::Context, view: &View, troops: &Troops, labels: &UnitLabelBoxes, concerned: &[String]) -> Vec<(egui::Rect, f32)> {
    let mut out = unit_boxes(view, troops, labels, concerned);
    for tool in ["fire_toolbar", "fire_choice"] {
        if let Some(r) = ctx.memory(|m| m.area_rect(egui::Id::new(tool))) {
            out.push((r, 10.0));
        }
    }
    out
}

/// Each unit's stands and name on screen, weighted 6 for the units `concerned`, else 1.
pub(crate) fn unit_boxes(view: &View, troops: &Troops, labels: &UnitLabelBoxes, concerned: &[String]) -> Vec<(egui::Rect, f32)> {
    troops
        .0
        .iter()
        .filter(|g| !g.stands.is_empty())
        .map(|g| {
            let stands = super::paint::screen_bounds(view, &g.stands.iter().flat_map(|f| f.corners()).collect::<Vec<_>>()).expand(4.0);
            let r = labels.0.get(&g.entity).map_or(stands, |l| stands.union(*l));
            (r, if concerned.contains(&g.name) { 6.0 } else { 1.0 })
        })
        .collect()
}

/// A place for the report: the point it hangs from, the corner of it that hangs there, and
/// its width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Spot {
    pivot: egui::Align2,
    at: egui::Pos2,
    width: f32,
}

impl Spot {
    fn rect(self, height: f32) -> egui::Rect {
        self.pivot.anchor_size(self.at, egui::vec2(self.width, height))
    }
}

/// The narrowest the report is made to find a clear spot.
const NARROW: f32 = 340.0;

/// The places the report may take, in order of preference: the table's corners (the lower
/// right above the pointer's status line, the upper right, the upper left, the lower left above
/// the fire toolbar, the middles of the top and bottom edges), then the same narrower, then
/// anywhere on the table, narrow, from the top down.
fn report_spots(table: egui::Rect, width: f32) -> Vec<Spot> {
    let corners = [
        (egui::Align2::RIGHT_BOTTOM, table.right_bottom() + egui::vec2(-10.0, -40.0)),
        (egui::Align2::RIGHT_TOP, table.right_top() + egui::vec2(-10.0, 8.0)),
        (egui::Align2::LEFT_TOP, table.left_top() + egui::vec2(10.0, 8.0)),
        (egui::Align2::LEFT_BOTTOM, table.left_bottom() + egui::vec2(10.0, -70.0)),
        (egui::Align2::CENTER_TOP, table.center_top() + egui::vec2(0.0, 8.0)),
        (egui::Align2::CENTER_BOTTOM, table.center_bottom() + egui::vec2(0.0, -40.0)),
    ];
    let narrow = width.min(NARROW);
    let mut out: Vec<Spot> = corners.iter().map(|&(pivot, at)| Spot { pivot, at, width }).collect();
    if narrow < width {
        out.extend(corners.iter().map(|&(pivot, at)| Spot { pivot, at, width: narrow }));
    }
    let mut y = table.top() + 8.0;
    while y < table.bottom() - 40.0 {
        let mut x = table.left() + 10.0;
        while x + narrow <= table.right() - 10.0 {
            out.push(Spot { pivot: egui::Align2::LEFT_TOP, at: egui::pos2(x, y), width: narrow });
            x += 20.0;
        }
        out.push(Spot { pivot: egui::Align2::RIGHT_TOP, at: egui::pos2(table.right() - 10.0, y), width: narrow });
        y += 20.0;
    }
    out
}

/// Where the report goes on `table`: `width` wide (or narrower) and at most `natural` tall, at
/// the first of `report_spots` (the one it had, `kept`, first) where it lies on the table and
/// covers nothing in `keep_clear`, at the tallest of a few heights that allows one (its lines
/// scroll when cut short); else, at its shortest, where the weighted area it covers is least
/// (a corner if one is as good).
pub(crate) fn place_report(table: egui::Rect, width: f32, natural: f32, keep_clear: &[(egui::Rect, f32)], kept: Option<Spot>) -> (Spot, egui::Rect) {
    let spots = report_spots(table, width);
    let tallest = (table.height() - 48.0).max(160.0);
    let shortest = natural.min(table.height() * 0.34).max(natural.min(160.0));
    let heights = [tallest, table.height() * 0.6, table.height() * 0.45, 0.0].map(|h| natural.min(h).max(shortest));
    let area = |r: egui::Rect| if r.is_positive() { r.area() } else { 0.0 };
    let covered = |r: egui::Rect| keep_clear.iter().map(|(k, w)| w * area(r.intersect(k.intersect(table)))).sum::<f32>();
    let on_table = table.expand(1.0);
    let kept = kept.filter(|k| k.width <= width + 0.5);
    for h in heights {
        for s in kept.iter().chain(&spots) {
            let r = s.rect(h);
            if on_table.contains_rect(r) && covered(r) == 0.0 {
                return (*s, r);
            }
        }
    }
    let cost = |s: &Spot| {
        let r = s.rect(shortest);
        if on_table.contains_rect(r) { covered(r) } else { f32::INFINITY }
    };
    let best = spots.iter().copied().min_by(|a, b| cost(a).total_cmp(&cost(b))).unwrap_or(spots[0]);
    (best, best.rect(shortest))
}

/// Rings around the units a report's changes name, widening and fading for 1.5 s.
fn pulses(mut contexts: EguiContexts, mut o: ResMut<DiceOverlay>, view: Res<View>, troops: Res<Troops>) -> Result {
    if o.pulses.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let now = ctx.input(|i| i.time);
    let start = *o.pulse_at.get_or_insert(now);
    let elapsed = (now - start) / PULSE_SECONDS;
    if elapsed >= 1.0 {
        o.pulses.clear();
        return Ok(());
    }
    // Without animation the ring stands still for its time.
    let phase = if o.still { 0.3 } else { elapsed };
    ctx.request_repaint();
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    let alpha = (255.0 * (1.0 - phase)) as u8;
    for name in &o.pulses {
        let Some(g) = troops.0.iter().find(|g| &g.name == name).filter(|g| !g.stands.is_empty()) else { continue };
        let centre = g.stands.iter().map(|s| s.centre).sum::<Vec2>() / g.stands.len() as f32;
        let reach = g.stands.iter().flat_map(|s| s.corners()).map(|c| c.distance(centre)).fold(0.0, f32::max);
        let r = (reach + 0.4) * view.ppi * (1.0 + 0.35 * phase as f32) + 6.0;
        let at = view.to_screen(centre);
        painter.circle_stroke(at, r, egui::Stroke::new(5.0, Color32::from_black_alpha(alpha / 2)));
        painter.circle_stroke(at, r, egui::Stroke::new(3.0, Color32::from_rgba_unmultiplied(250, 210, 40, alpha)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cite::{RuleSetId, Source};
    use crate::rules::dice::Dice;
    use crate::table::movement::MoveStep;

    fn otp(seed: u64) -> Box<dyn Engine> {
        crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), seed).unwrap()
    }

    /// Go on (start, draw, end activations) until `brigade` is phasing.
    fn activate(engine: &mut dyn Engine, brigade: &str) {
        for _ in 0..60 {
            let view = engine.sequence();
            if view.track.iter().any(|t| t.state == crate::rules::engine::TrackState::Current && t.label.contains(brigade)) {
                return;
            }
            engine.apply(Action::Next).unwrap();
        }
        panic!("{brigade} never phasing");
    }

    fn report(turn: u32, action: Action, title: &str) -> Report {
        Report::new(RuleSetId::Otp, turn, action, title)
    }

    fn kinds(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| match r {
                Row::Step(s) => format!("step {s}"),
                Row::Die { rule, .. } => format!("die {rule}"),
                Row::Modifier { name, .. } => format!("mod {name}"),
                Row::Chart { read, .. } => format!("chart {}", read.chart),
                Row::Note { rule, .. } => format!("note {rule}"),
                Row::Outcome(_) => "outcome".into(),
                Row::Values { .. } => "values".into(),
                Row::Change { rule, .. } => format!("change {rule}"),
            })
            .collect()
    }

    // The overlay lists a report's dice, modifiers, chart cells and notes in the order the action
    // met them, under a heading a step (by rule), then the outcome and the changes.
    #[test]
    fn rows_follow_the_report_in_order() {
        let mut dice = Dice::new(1);
        let text = Source::Text { section: "9.1".into() };
        let mut r = report(2, Action::Charge { unit: "A".into(), target: "B".into() }, "A charges B (9.0)");
        r.modifier("9.1", "uphill", 1);
        r.die("9.1", "closure of A", &dice.d10());
        r.chart("CLOSURE", "CV 5", "4", "closes", &text);
        r.note("9.4", "B reacts to the charge");
        r.modifier("9.6", "disordered", 2);
        r.note("9.7", "B fires at A as it closes");
        r.die("8.1", "fire of B at A", &dice.d10());
        r.chart("FIRE COMBAT", "small_arms 6", "5", "1", &text);
        r.note("9.8", "A: 4 figures x CV 5 = melee value 20");
        r.note("9.8", "B: 3 figures x CV 4 = melee value 12");
        r.die("9.8", "melee: A", &dice.d10());
        r.die("9.8", "melee: B", &dice.d10());
        r.outcome = "A wins".into();
        r.change("9.8", "B: retreats 1 full move");
        let engine = otp(1);
        let rows = overlay_rows(&r, Some(engine.as_ref()));
        assert_eq!(
            kinds(&rows),
            [
                "step Closure", "mod uphill", "die 9.1", "chart CLOSURE", "step Reaction", "note 9.4", "mod disordered", "step Closing fire", "note 9.7", "step Fire", "die 8.1", "chart FIRE COMBAT", "step Melee", "note 9.8", "note 9.8", "values", "die 9.8", "die 9.8", "outcome",
                "step Changes", "change 9.8"
            ]
        );
        // 9.8: the melee values side by side, the charger's on the left.
        assert!(rows.contains(&Row::Values { attacker: vec![("A".into(), "20".into())], defender: vec![("B".into(), "12".into())] }));
        // The FIRE COMBAT cell read is the highlighted one, in its row and column.
        let Some(Row::Chart { grid, .. }) = rows.iter().find(|x| matches!(x, Row::Chart { read, .. } if read.chart == "FIRE COMBAT")) else { panic!() };
        let (i, j) = grid.hit;
        assert_eq!((grid.rows[i].0.as_str(), grid.columns[j].as_str()), ("5", "6"));
        assert_eq!(Some(grid), engine.chart_grid(&r, &r.charts[1]).as_ref(), "the engine's grid");
        assert_eq!(grid.rows.len(), 5, "two rows either side of the one read");
        // Any other chart: one cell, its row and column as read.
        let Some(Row::Chart { grid, .. }) = rows.iter().find(|x| matches!(x, Row::Chart { read, .. } if read.chart == "CLOSURE")) else { panic!() };
        assert_eq!((grid.columns.clone(), grid.rows.clone(), grid.hit), (vec!["CV 5".to_string()], vec![("4".to_string(), vec!["closes".to_string()])], (0, 0)));
    }

    // TINY 4: another rule set's report is headed and cited in its own words, not OTP's.
    #[test]
    fn another_rule_sets_steps_are_its_own() {
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/good/tiny.ron");
        let scenario = crate::scenario::load(std::path::Path::new(file)).unwrap();
        let engine = crate::rules::registry::open(RuleSetId::Tiny, scenario, 1).unwrap();
        let mut r = Report::new(RuleSetId::Tiny, 1, Action::Fire { unit: "A".into(), target: "B".into() }, "A fires at B");
        r.note("4", "B is 8\" away");
        r.die("4", "fire of A", &Dice::new(1).roll(DiceKind::D6));
        r.note("6", "B must answer");
        let rows = overlay_rows(&r, Some(engine.as_ref()));
        assert_eq!(kinds(&rows)[..5], ["step TINY 4", "note 4", "die 4", "step TINY 6", "note 6"]);
    }

    // OTP 8.1, 8.2: a real fire report: every die, modifier and chart cell appears once, in order.
    #[test]
    fn a_fire_report_in_full() {
        let mut g = otp(5);
        activate(g.as_mut(), "Howard's Continentals");
        g.apply(Action::Move { unit: "Delaware Light Infantry".into(), steps: vec![MoveStep::Forward(3.0)] }).unwrap();
        let r = g.apply(Action::Fire { unit: "Delaware Light Infantry".into(), target: "71st Light Company".into() }).unwrap();
        let rows = overlay_rows(&r, Some(g.as_ref()));
        assert!(rows.iter().any(|x| matches!(x, Row::Chart { grid, .. } if grid.rows.len() > 1)), "FIRE COMBAT around the cell");
        let dice: Vec<&Roll> = rows.iter().filter_map(|x| if let Row::Die { roll, .. } = x { Some(roll) } else { None }).collect();
        assert_eq!(dice, r.dice.iter().map(|d| &d.roll).collect::<Vec<_>>());
        let mods: Vec<(String, i32)> = rows.iter().filter_map(|x| if let Row::Modifier { name, value, .. } = x { Some((name.clone(), *value)) } else { None }).collect();
        assert_eq!(mods, r.modifiers.iter().map(|m| (m.name.clone(), m.value)).collect::<Vec<_>>());
        let charts: Vec<&ChartRead> = rows.iter().filter_map(|x| if let Row::Chart { read, .. } = x { Some(read) } else { None }).collect();
        assert_eq!(charts, r.charts.iter().collect::<Vec<_>>());
        // The modifiers come before the die, the die before the cell (8.1).
        let k = kinds(&rows);
        let die = k.iter().position(|x| x == "die 8.1").unwrap();
        let cell = k.iter().position(|x| x == "chart FIRE COMBAT").unwrap();
        assert!(die < cell && k.iter().position(|x| x.starts_with("mod ")).is_none_or(|m| m < die), "{k:?}");
        for x in &rows {
            if let Row::Chart { read, grid } = x {
                assert_eq!(grid.rows[grid.hit.0].1[grid.hit.1], read.result, "{read:?}");
            }
        }
        assert_eq!(rows.iter().filter(|x| matches!(x, Row::Change { .. })).count(), r.changes.len());
    }

    // A report with dice opens the overlay (replacing the last); one without leaves it, but
    // the units its changes name still get their ring.
    #[test]
    fn reports_with_dice_open_the_overlay() {
        let mut app = App::new();
        app.add_message::<Applied>().init_resource::<DiceOverlay>().add_systems(Update, take_reports);
        let mut dice = Dice::new(3);
        let mut fire = report(1, Action::Fire { unit: "A".into(), target: "B".into() }, "A fires at B (8.1)");
        fire.die("8.1", "fire of A at B", &dice.d10());
        app.world_mut().write_message(Applied(fire.clone()));
        app.update();
        assert_eq!(app.world().resource::<DiceOverlay>().report.as_ref(), Some(&fire));
        let mut moved = report(1, Action::Next, "a move");
        moved.change("6.1", "A moves 3\"");
        app.world_mut().write_message(Applied(moved));
        app.update();
        assert_eq!(app.world().resource::<DiceOverlay>().report.as_ref(), Some(&fire), "no dice: the overlay stays");
        app.world_mut().resource_mut::<DiceOverlay>().close();
        assert!(app.world().resource::<DiceOverlay>().report.is_none());
    }

    #[test]
    fn the_d10_is_explained_where_it_is_rolled() {
        // OTP 1.0: the D10 reads 0–9; 2D10 read as tens and units.
        assert!(face_caption(DiceKind::D10, 0).is_some_and(|c| c.contains("0–9")));
        assert_eq!(face_caption(DiceKind::TwoD10, 0), Some("tens"));
        assert_eq!(face_caption(DiceKind::Ad(1), 0), None);
    }

    // Another rule set's report is cited in its own words, never as OTP sections (QK11 is not
    // OTP 11, "Rebuilding").
    #[test]
    fn other_rule_sets_rows_keep_their_own_citations() {
        let mut r = Report::new(RuleSetId::AcwQuick, 1, Action::Next, "fire");
        r.modifier("12", "Union firing", 1);
        r.die("11", "fire", &Dice::new(1).roll(DiceKind::D6));
        let rows = overlay_rows(&r, None);
        assert!(matches!(&rows[0], Row::Step(s) if s == "QK12"), "{:?}", rows[0]);
        assert!(rows.iter().any(|x| matches!(x, Row::Die { rule, .. } if rule == "11")), "the section, cited with the report's rule set when drawn");
        assert!(!rows.iter().any(|x| matches!(x, Row::Step(s) if s == "Rebuilding")));
    }

    #[test]
    fn units_named_in_changes() {
        let mut r = report(1, Action::Next, "x");
        r.change("8.2", "2nd Maryland: 1 kill (8.2); 11 figure(s) left");
        r.change("10.1", "Maryland gets a Morale Marker");
        let names = ["Maryland".to_string(), "2nd Maryland".to_string(), "Guns".to_string()];
        assert_eq!(units_named(&r, &names), vec!["2nd Maryland".to_string(), "Maryland".to_string()]);
        let mut r = report(1, Action::Next, "x");
        r.change("8.2", "2nd Maryland: 1 kill");
        assert_eq!(units_named(&r, &names), vec!["2nd Maryland".to_string()], "a name inside a longer one named does not count");
    }

    /// Cowpens at Fit zoom in a window of `size` (the table between the turn panel, the
    /// toolbar and the folded log), each unit's name placed as the table places it.
    fn cowpens_at_fit(size: egui::Vec2) -> (View, Troops, UnitLabelBoxes) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/cowpens.ron");
        let scenario = crate::scenario::load(std::path::Path::new(path)).expect("cowpens");
        let (w, d) = (scenario.table.width, scenario.table.depth);
        let engine = crate::rules::registry::open(RuleSetId::Otp, scenario, 1).expect("opens");
        let world = engine.world();
        let mut troops = Troops::default();
        for (e, u) in world.try_query::<(Entity, &crate::scenario::spawn::Unit)>().expect("units").iter(world) {
            let stands = u.stands.iter().filter_map(|&s| world.get::<crate::table::footprint::Footprint>(s).copied()).collect();
            troops.0.push(super::super::table_view::UnitGeom { entity: e, name: u.name.clone(), stands });
        }
        let mut view = View { rect: egui::Rect::from_min_max(egui::pos2(270.0, 36.0), egui::pos2(size.x, size.y - 36.0)), ..View::default() };
        view.fit(w, d);
        let mut taken = super::super::paint::Taken::default();
        let mut asks = Vec::new();
        for g in &troops.0 {
            let r = super::super::paint::screen_bounds(&view, &g.stands.iter().flat_map(|f| f.corners()).collect::<Vec<_>>());
            taken.add(r);
            let px = super::super::paint::label_px(crate::picture::LabelKind::Unit, 0.5, view.ppi);
            let text = format!("{} (10)", g.name);
            let size = egui::vec2(crate::picture::label_width(&text, px) + 8.0, px + 6.0);
            asks.push(super::super::paint::ScreenLabel { anchor: r.center_top() - egui::vec2(0.0, size.y), size, prefer: egui::vec2(0.0, -1.0), previous: None });
        }
        let placed = super::super::paint::place(&asks, &mut taken, view.rect);
        let labels = UnitLabelBoxes(troops.0.iter().zip(placed).map(|(g, (r, _))| (g.entity, r)).collect());
        (view, troops, labels)
    }

    // Issue 13: the dice window covered part of the table at 1280x800. A fire report (about
    // 500 points tall with its chart) on Cowpens at Fit zoom, the firer and target being units
    // low on the table, where the panel used to sit: it hides neither of them nor the fire
    // toolbar, less of the rest than before, and it is not cut to nothing.
    #[test]
    fn the_report_hides_no_unit_at_fit_zoom() {
        for size in [egui::vec2(1280.0, 800.0), egui::vec2(1024.0, 640.0)] {
            let (view, troops, labels) = cowpens_at_fit(size);
            let concerned = ["British Legion Dragoons".to_string(), "1st Bn, 71st Highlanders".to_string()];
            let mut clear = unit_boxes(&view, &troops, &labels, &concerned);
            assert_eq!(clear.iter().filter(|(_, w)| *w > 1.0).count(), 2, "both units concerned are on the table");
            let bar = egui::Rect::from_min_size(view.rect.left_bottom() + egui::vec2(8.0, -122.0), egui::vec2(330.0, 60.0));
            clear.push((bar, 10.0));
            let width = report_width(view.rect);
            let natural = 500.0;
            // Where it used to go: the lower right, over units.
            let old = egui::Align2::RIGHT_BOTTOM.anchor_size(view.rect.right_bottom() + egui::vec2(-10.0, -40.0), egui::vec2(width, natural));
            let (_, r) = place_report(view.rect, width, natural, &clear, None);
            let hidden: Vec<&String> = troops.0.iter().zip(unit_boxes(&view, &troops, &labels, &[])).filter(|(_, (b, _))| b.intersect(r).is_positive()).map(|(g, _)| &g.name).collect();
            let area = |a: egui::Rect| if a.is_positive() { a.area() } else { 0.0 };
            let cover = |x: egui::Rect| clear.iter().map(|(b, w)| w * area(x.intersect(*b))).sum::<f32>();
            println!("{size:?}: the report at {r:?} hides {hidden:?}");
            if size.x == 1280.0 {
                assert!(cover(old) > 0.0, "the old place covered a unit: the case tests something");
            }
            // Never the units it concerns nor the toolbar; less than the old place, if anything.
            assert!(hidden.iter().all(|n| !concerned.contains(n)) && !r.intersects(bar), "{size:?}: {r:?} hides {hidden:?}");
            assert!(cover(r) <= cover(old) && view.rect.contains_rect(r) && r.height() >= (0.34 * view.rect.height()).min(natural) - 1.0, "{size:?}: {r:?}");
        }
    }

    // The panel keeps the place it had while that stays clear, though an earlier one is clear
    // too; it moves when a unit comes under it; it is cut shorter, then narrower, before it
    // covers one.
    #[test]
    fn the_report_keeps_its_place_and_shrinks_before_it_covers() {
        let table = egui::Rect::from_min_max(egui::pos2(270.0, 36.0), egui::pos2(1280.0, 764.0));
        let (first, r) = place_report(table, 430.0, 400.0, &[], None);
        assert_eq!((first.pivot, r.right(), r.bottom(), r.height()), (egui::Align2::RIGHT_BOTTOM, 1270.0, 724.0, 400.0), "lower right when nothing is in the way");
        let upper_left = Spot { pivot: egui::Align2::LEFT_TOP, at: table.left_top() + egui::vec2(10.0, 8.0), width: 430.0 };
        assert_eq!(place_report(table, 430.0, 400.0, &[], Some(upper_left)).0, upper_left, "a kept place stays");
        let unit = (egui::Rect::from_min_size(egui::pos2(300.0, 60.0), egui::vec2(60.0, 20.0)), 1.0);
        assert_ne!(place_report(table, 430.0, 400.0, &[unit], Some(upper_left)).0, upper_left, "a unit under it moves it");
        // Units low in every corner: a shorter panel, or a narrower one, fits between them
        // (flush against a unit's box is not over it).
        let low = |x: f32| (egui::Rect::from_min_size(egui::pos2(x, 420.0), egui::vec2(40.0, 20.0)), 1.0);
        let units = [low(290.0), low(640.0), low(760.0), low(1220.0)];
        let (_, r) = place_report(table, 430.0, 600.0, &units, None);
        assert!(units.iter().all(|(u, _)| !u.intersect(r).is_positive()) && r.height() >= 240.0, "{r:?}");
        // A crowded middle (a game under way, the log open): only a strip at the upper right,
        // 350 points wide, is clear; the report goes there, narrowed, rather than over names.
        let table = egui::Rect::from_min_max(egui::pos2(270.0, 36.0), egui::pos2(1280.0, 620.0));
        let crowd = [(egui::Rect::from_min_max(egui::pos2(400.0, 160.0), egui::pos2(920.0, 615.0)), 1.0), (egui::Rect::from_min_max(egui::pos2(600.0, 40.0), egui::pos2(920.0, 160.0)), 1.0)];
        let (s, r) = place_report(table, 430.0, 450.0, &crowd, None);
        assert!(crowd.iter().all(|(u, _)| !u.intersect(r).is_positive()) && table.contains_rect(r), "{r:?}");
        assert!(s.width <= NARROW && r.left() > 920.0 && r.height() >= 160.0, "{s:?} {r:?}");
    }
}
