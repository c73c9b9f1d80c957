//! The dice overlay: after every action whose report threw dice (fire, morale, closure, melee,
//! commander casualties, special moves, rebuilds…), a panel over the table's lower right shows
//! the report in the order the action met it, grouped by step, each line with its rule:
//! every die drawn as its face (D10 0–9, 2D10 as tens | units, averaging dice 2,3,3,4,4,5) after
//! a short roll, the modifiers with their values, each chart read as a small table with the row
//! and column read highlighted (the FIRE COMBAT chart's neighbourhood of the cell in full), the
//! outcome in bold and the changes. It stays until closed (✖ or Esc) or the next report.
//! The units the changes name get a pulsing ring on the table for 1.5 s.
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
use super::table_view::Troops;
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
    /// The table corner it sits in, chosen when the report opens (it does not wander after).
    corner: Option<Corner>,
}

/// A corner of the table the overlay may sit in. The lower left is the fire toolbar's and the
/// scale's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Corner {
    LowerRight,
    UpperRight,
    UpperLeft,
}

impl Corner {
    /// The overlay's top left in `table` for its `size`: clear of the table's edges, above the
    /// pointer's status line at the bottom.
    fn top_left(self, table: egui::Rect, size: egui::Vec2) -> egui::Pos2 {
        let right = table.right() - 10.0 - size.x;
        match self {
            Corner::LowerRight => egui::pos2(right, (table.bottom() - 40.0 - size.y).max(table.top() + 8.0)),
            Corner::UpperRight => egui::pos2(right, table.top() + 8.0),
            Corner::UpperLeft => egui::pos2(table.left() + 10.0, table.top() + 8.0),
        }
    }
}

/// The corner where the overlay hides least of the troops: each unit's box on screen (its
/// stands and its name above them) weighs by the area covered times its weight (the selected
/// unit and the units the report names weigh most). Ties keep the lower right.
pub(crate) fn corner_for(table: egui::Rect, size: egui::Vec2, units: &[(egui::Rect, f32)]) -> Corner {
    let cost = |c: Corner| {
        let r = egui::Rect::from_min_size(c.top_left(table, size), size);
        units.iter().map(|(b, w)| r.intersect(*b).area().max(0.0) * w).sum::<f32>()
    };
    [Corner::LowerRight, Corner::UpperRight, Corner::UpperLeft].into_iter().fold((Corner::LowerRight, f32::INFINITY), |best, c| {
        let v = cost(c);
        if v < best.1 - 1.0 { (c, v) } else { best }
    }).0
}

impl DiceOverlay {
    fn show(&mut self, report: &Report, session: Option<&Session>, names: &[String]) {
        self.pulses = units_named(report, names);
        self.pulse_at = None;
        if report.dice.is_empty() {
            return;
        }
        self.rows = overlay_rows(report, session.map(|s| s.engine()));
        self.report = Some(report.clone());
        self.opened_at = None;
        self.corner = None;
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

/// Each applied action's report; and in a replay, a jump (not a step, which is an applied
/// action) shows the dice of the action it lands after, or none.
fn take_reports(mut applied: MessageReader<Applied>, mut o: ResMut<DiceOverlay>, session: Option<Res<Session>>, mut seen: Local<Option<u64>>) {
    let mut stepped = false;
    for Applied(report) in applied.read() {
        let names = unit_names(session.as_deref());
        o.show(report, session.as_deref(), &names);
        stepped = true;
    }
    let Some(s) = session.as_deref() else { return };
    let changed = seen.is_some_and(|r| r != s.revision);
    *seen = Some(s.revision);
    if !changed || stepped || s.replay_at().is_none() {
        return;
    }
    match s.last_report.as_ref().filter(|r| !r.dice.is_empty()) {
        Some(r) => o.show(r, Some(s), &unit_names(Some(s))),
        None => o.close(),
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

/// What a die's face reads, under it where it is rolled: a D10 as the rule set reads it
/// (`d10`, from `Engine::words(Topic::D10Face)`: OTP's 0–9, OTP 1.0; Purky's dice read 1–10 and
/// need no note), 2D10 are tens and units.
pub(crate) fn face_caption(kind: DiceKind, j: usize, d10: Option<&str>) -> Option<&str> {
    match (kind, j) {
        (DiceKind::TwoD10, 0) => Some("tens"),
        (DiceKind::TwoD10, _) => Some("units"),
        (DiceKind::D10, _) => d10,
        _ => None,
    }
}

/// A face the die could show, picked by `r`, while it rolls: a D6 never shows 0 or 7.
fn rolling_face(kind: DiceKind, r: u64) -> u8 {
    match kind {
        DiceKind::Ad(_) => AD_FACES[(r % 6) as usize],
        DiceKind::D6 | DiceKind::D6s(_) => (r % 6) as u8 + 1,
        DiceKind::D10 | DiceKind::TwoD10 => (r % 10) as u8,
    }
}

/// A roll's faces (rolling for the first half second), and its total.
fn roll_ui(ui: &mut egui::Ui, roll: &Roll, rolling: Option<u64>, index: usize, d10: Option<&str>) {
    ui.horizontal(|ui| {
        for (j, &real) in roll.faces.iter().enumerate() {
            let face = rolling.map_or(real, |t| rolling_face(roll.kind, scramble(t, index, j)));
            let caption = face_caption(roll.kind, j, d10);
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

fn overlay(mut contexts: EguiContexts, mut o: ResMut<DiceOverlay>, view: Res<View>, session: Option<Res<super::session::Session>>, troops: Res<Troops>, selection: Res<super::table_view::Selection>) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let Some(report) = o.report.clone() else { return Ok(()) };
    let d10 = session.as_ref().and_then(|s| s.engine().words(crate::rules::engine::Topic::D10Face));
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
    // In the table corner where it hides least (chosen once, when it opens); placed by its top
    // left from last frame's size, so that a long report can use the table's whole height.
    let id = egui::Id::new("dice_overlay");
    let size = ctx.memory(|m| m.area_rect(id)).map(|r| r.size()).unwrap_or(egui::vec2(452.0, 300.0));
    let corner = match o.corner {
        Some(c) => c,
        None => {
            let units: Vec<(egui::Rect, f32)> = troops
                .0
                .iter()
                .filter(|g| !g.stands.is_empty())
                .map(|g| {
                    let stands = egui::Rect::from_points(&g.stands.iter().flat_map(|s| s.corners()).map(|c| view.to_screen(c)).collect::<Vec<_>>());
                    // The name sits above the stands.
                    let named = stands.union(egui::Rect::from_center_size(stands.center_top() - egui::vec2(0.0, 10.0), egui::vec2(stands.width().max(120.0), 20.0)));
                    let weight = if selection.unit == Some(g.entity) { 100.0 } else if o.pulses.contains(&g.name) { 8.0 } else { 1.0 };
                    (named, weight)
                })
                .collect();
            let c = corner_for(view.rect, size, &units);
            o.corner = Some(c);
            c
        }
    };
    let at = corner.top_left(view.rect, size);
    egui::Area::new(id)
        .fade_in(false)
        .order(egui::Order::Foreground)
        .fixed_pos(at)
        .constrain_to(view.rect)
        .show(&ctx, |ui| {
            egui::Frame::window(ui.style()).inner_margin(10.0).show(ui, |ui| {
                // Narrower on a narrow table, to leave the fire toolbar its corner.
                ui.set_width((view.rect.width() - 370.0).clamp(320.0, 430.0));
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
                let used = ui.min_rect().height();
                let room = (view.rect.height() - used - 75.0).max(140.0);
                // The area's room is last frame's size: ask for the height outright.
                egui::ScrollArea::vertical().max_height(room).min_scrolled_height(room).show(ui, |ui| {
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
                                    roll_ui(ui, roll, rolling, die, d10.as_deref());
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
            });
        });
    if close {
        o.close();
    }
    Ok(())
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
        // OTP 1.0: the D10 reads 0–9; 2D10 read as tens and units. The caption is the rule
        // set's: PK12 — Purky's d10 reads 1–10, so OTP's "0–9 (1.0)" must not show under it.
        let otp = crate::rules::registry::open(crate::rules::cite::RuleSetId::Otp, crate::scenario::default_scenario(), 1).unwrap().words(crate::rules::engine::Topic::D10Face);
        let purky = crate::rules::registry::open(crate::rules::cite::RuleSetId::Purky, crate::scenario::default_scenario(), 1).unwrap().words(crate::rules::engine::Topic::D10Face);
        assert!(face_caption(DiceKind::D10, 0, otp.as_deref()).is_some_and(|c| c.contains("0–9")));
        assert!(!face_caption(DiceKind::D10, 0, purky.as_deref()).is_some_and(|c| c.contains("0–9")), "{purky:?}");
        assert_eq!(face_caption(DiceKind::TwoD10, 0, None), Some("tens"));
        assert_eq!(face_caption(DiceKind::Ad(1), 0, None), None);
    }

    // Issue 13 (8): the overlay takes the corner where it hides least of the troops, the
    // selected unit and the units the report names weighing most; an empty table keeps the
    // lower right, and it never sits over the lower left (the fire toolbar's).
    #[test]
    fn the_overlay_sits_where_it_hides_least() {
        let table = egui::Rect::from_min_max(egui::pos2(270.0, 36.0), egui::pos2(1000.0, 620.0));
        let size = egui::vec2(400.0, 260.0);
        let box_at = |c: Corner| egui::Rect::from_min_size(c.top_left(table, size), size);
        assert_eq!(corner_for(table, size, &[]), Corner::LowerRight);
        let lower_right = box_at(Corner::LowerRight).shrink(40.0);
        assert_eq!(corner_for(table, size, &[(lower_right, 1.0)]), Corner::UpperRight);
        // A light unit upper right, the selected one lower right: the overlay takes the upper left...
        let upper_right = box_at(Corner::UpperRight).shrink(40.0);
        assert_eq!(corner_for(table, size, &[(lower_right, 20.0), (upper_right, 1.0)]), Corner::UpperLeft);
        // ...and when every corner is taken, the one hiding the least weight.
        let upper_left = box_at(Corner::UpperLeft).shrink(40.0);
        assert_eq!(corner_for(table, size, &[(lower_right, 20.0), (upper_right, 1.0), (upper_left, 8.0)]), Corner::UpperRight);
        for c in [Corner::LowerRight, Corner::UpperRight, Corner::UpperLeft] {
            assert!(table.contains_rect(box_at(c)), "{c:?}");
            assert!(box_at(c).left() > table.left() + 5.0 || box_at(c).bottom() < table.bottom() - 200.0, "{c:?} covers the lower left");
        }
    }

    // QK11: a rolling 2D6 shows six-sided faces, 1 to 6, and is named 2D6, not D6.
    #[test]
    fn rolling_faces_are_the_dies_own() {
        for r in 0..60 {
            assert!((1..=6).contains(&rolling_face(DiceKind::D6s(2), r)));
            assert!((1..=6).contains(&rolling_face(DiceKind::D6, r)));
            assert!(rolling_face(DiceKind::D10, r) <= 9);
            assert!(AD_FACES.contains(&rolling_face(DiceKind::Ad(2), r)));
        }
        assert_eq!(Dice::new(1).d6s(2).to_string().split(':').next(), Some("2D6"));
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
}
