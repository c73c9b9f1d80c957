//! The game log, a bottom panel: every report of the game in plain words (the engine's own
//! `Report` text, one fact a line with its rule), newest at the bottom, and every refused order
//! in red with the rule that forbids it. A click on an entry selects the unit it names and
//! centres the view on it; Export writes the whole log as text (what `otp replay` prints).
//!
//! Refusals change nothing in the game, so the game does not keep them: the log does, each
//! placed after the reports that came before it, and forgets them when the game is taken back
//! past them or replaced.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::camera::View;
use super::session::{Refused, Session, SessionCommand};
use super::table_view::Selection;
use super::{FreeRect, PanelOrder, root_ui};
use crate::rules::action::Action;
use crate::rules::engine::Engine;
use crate::rules::report::{Refusal, Report};
use crate::rules::simulate::REASON;
use crate::scenario::spawn::Unit;
use crate::table::footprint::Footprint;

/// Reports drawn in the panel at most (the oldest are left to Export, to keep frames short).
const SHOWN: usize = 200;

/// Muted text for rule sections and chart provenance.
const RULE: Color32 = Color32::from_rgb(150, 150, 135);
/// A refused order.
const REFUSED: Color32 = Color32::from_rgb(255, 110, 100);
/// The automatic player's reason for an action.
const AUTOMATIC: Color32 = Color32::from_rgb(170, 200, 235);
/// A status line that went well.
const GOOD: Color32 = Color32::from_rgb(120, 220, 140);

/// An order the engine refused, kept after the reports that came before it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LoggedRefusal {
    /// The number of the game's reports when it was refused.
    pub at: usize,
    pub turn: u32,
    pub action: Action,
    pub refusal: Refusal,
}

/// The log's own state: the refusals, the automatic player's reasons, and how the panel is
/// shown.
#[derive(Resource, Debug)]
pub(crate) struct GameLog {
    pub refusals: Vec<LoggedRefusal>,
    /// Why the automatic player took an action: `(the index of its report, the reason)`. Given
    /// before the action is applied; forgotten if the engine refuses it or it is taken back.
    pub reasons: Vec<(usize, String)>,
    /// The game the refusals belong to (seed, scenario name), and its number of reports.
    game: Option<(u64, String)>,
    reports: usize,
    /// The session's revision when last looked at.
    revision: u64,
    /// Only the header line shows.
    pub collapsed: bool,
    /// Dice, modifiers, charts and notes under each title (else titles, outcomes and changes).
    pub details: bool,
}

impl Default for GameLog {
    fn default() -> Self {
        GameLog { refusals: Vec::new(), reasons: Vec::new(), game: None, reports: 0, revision: 0, collapsed: false, details: true }
    }
}

impl GameLog {
    /// Forget the refusals and reasons (a new game).
    pub fn clear(&mut self) {
        self.refusals.clear();
        self.reasons.clear();
    }

    /// The automatic player's reason for the action it is sending now, which the game's next
    /// report (number `at`) will record.
    pub fn reason(&mut self, at: usize, why: String) {
        self.reasons.retain(|(i, _)| *i != at);
        self.reasons.push((at, why));
    }

    /// The reason given for report `i`, if the automatic player took it.
    fn reason_for(&self, i: usize) -> Option<&str> {
        self.reasons.iter().find(|(at, _)| *at == i).map(|(_, why)| why.as_str())
    }

    /// Follow the game: forget refusals of another game, or of actions taken back.
    fn follow(&mut self, game: &dyn Engine) {
        let id = (game.seed(), game.scenario().name.clone());
        if self.game.as_ref() != Some(&id) {
            self.clear();
            self.game = Some(id);
        }
        let n = game.reports().len();
        if n < self.reports {
            self.refusals.retain(|r| r.at <= n);
            self.reasons.retain(|(at, _)| *at < n);
        }
        self.reports = n;
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<GameLog>()
        .add_systems(Startup, preset)
        .add_systems(PostUpdate, record)
        // The log is written in the table's fonts, which egui has from the second pass on.
        .add_systems(EguiPrimaryContextPass, panel.in_set(PanelOrder::Bottom).run_if(super::fonts_ready).run_if(super::settings::shown(super::settings::Fold::Log)));
}

/// `OTP_LOG=collapsed` (only the header line) or `OTP_LOG=brief` (no dice and modifiers), for
/// screenshots.
fn preset(mut log: ResMut<GameLog>) {
    if let Ok(v) = std::env::var("OTP_LOG") {
        for word in v.split(',').map(str::trim) {
            match word {
                "collapsed" => log.collapsed = true,
                "brief" => log.details = false,
                other => eprintln!("OTP_LOG: {other:?}: expected collapsed or brief; ignored"),
            }
        }
    }
}

/// Keep every refusal, and forget them when the game is replaced or taken back past them.
fn record(mut log: ResMut<GameLog>, session: Option<Res<Session>>, mut refused: MessageReader<Refused>, mut commands: MessageReader<SessionCommand>) {
    let Some(session) = session else { return };
    // A new game (a load that failed changes nothing, and keeps them).
    let replaced = commands.read().any(|c| matches!(c, SessionCommand::Load(_) | SessionCommand::Resume | SessionCommand::Restart));
    if replaced && session.revision != log.revision {
        log.clear();
    }
    log.revision = session.revision;
    let engine = session.engine();
    log.follow(engine);
    for r in refused.read() {
        let at = engine.reports().len();
        // A refused order made no report: its reason must not land on the next one.
        log.reasons.retain(|(i, _)| *i != at);
        log.refusals.push(LoggedRefusal { at, turn: engine.sequence().turn, action: r.action.clone(), refusal: r.refusal.clone() });
    }
}

/// One entry of the log: a report (with the automatic player's reason, when it took the
/// action) or a refusal, in the order they happened.
enum Entry<'a> {
    Report(&'a Report, Option<&'a str>),
    Refusal(&'a LoggedRefusal),
}

fn entries<'a>(reports: &'a [Report], log: &'a GameLog) -> Vec<Entry<'a>> {
    let mut out = Vec::with_capacity(reports.len() + log.refusals.len());
    let mut next = log.refusals.iter().peekable();
    for (i, r) in reports.iter().enumerate() {
        while let Some(x) = next.next_if(|x| x.at <= i) {
            out.push(Entry::Refusal(x));
        }
        out.push(Entry::Report(r, log.reason_for(i)));
    }
    out.extend(next.map(Entry::Refusal));
    out
}

/// A refusal as a line of text.
fn refusal_line(r: &LoggedRefusal) -> String {
    format!("Turn {}: {} — {}\n", r.turn, r.action, r.refusal)
}

/// The line under a report that says why the automatic player took it.
fn reason_line(why: &str) -> String {
    format!("  Why: {why} ({REASON})\n")
}

/// The whole log as text: the heading `otp replay` prints, every report in plain words (with the
/// automatic player's reason under each of its actions) and every refusal where it happened.
pub(crate) fn log_text(game: &dyn Engine, log: &GameLog) -> String {
    let mut text = format!("{} (seed {}): {} actions\n", game.scenario().name, game.seed(), game.action_count());
    for e in entries(game.reports(), log) {
        match e {
            Entry::Report(r, why) => {
                text.push_str(&r.to_string());
                if let Some(why) = why {
                    text.push_str(&reason_line(why));
                }
            }
            Entry::Refusal(r) => text.push_str(&refusal_line(r)),
        }
    }
    text
}

/// Where Export writes: beside the save (`battle.ron` → `battle-log.txt`), else
/// `otp-log-<scenario>.txt` in the working folder.
pub(crate) fn export_path(save: Option<&Path>, scenario: &str) -> PathBuf {
    if let Some(p) = save {
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "game".into());
        return p.with_file_name(format!("{stem}-log.txt"));
    }
    let slug: String = scenario.chars().map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let slug = slug.split('-').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("-");
    PathBuf::from(format!("otp-log-{}.txt", if slug.is_empty() { "game" } else { &slug }))
}

/// Write the log atomically and say where on the status line.
pub(crate) fn export(session: &mut Session, log: &GameLog, path: &Path) {
    let text = log_text(session.engine(), log);
    session.status = Some(match crate::scenario::write_atomically(path, &text) {
        Ok(()) => (format!("log written to {}", path.display()), false),
        Err(e) => (format!("could not write the log to {}: {e}", path.display()), true),
    });
}

/// Select the first unit an action names and centre the view on it and its target (zooming out
/// if both do not fit). A commander's move centres on where he went.
fn focus(action: &Action, units: &Query<(Entity, &Unit)>, stands: &Query<&Footprint>, selection: &mut Selection, view: &mut View) {
    let centre_of = |u: &Unit| {
        let c: Vec<Vec2> = u.stands.iter().filter_map(|&s| stands.get(s).ok()).map(|f| f.centre).collect();
        (!c.is_empty()).then(|| c.iter().copied().sum::<Vec2>() / c.len() as f32)
    };
    let mut points = Vec::new();
    for (i, name) in action.units_named().into_iter().enumerate() {
        if let Some((e, u)) = units.iter().find(|(_, u)| u.name == name) {
            if i == 0 {
                selection.unit = Some(e);
            }
            points.extend(centre_of(u));
        }
    }
    points.extend(action.leader_to());
    if points.is_empty() {
        return;
    }
    let (lo, hi) = points.iter().fold((points[0], points[0]), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    view.centre = (lo + hi) / 2.0;
    let span = hi - lo + Vec2::splat(8.0);
    let fit = (view.rect.width() / span.x).min(view.rect.height() / span.y);
    if fit.is_finite() && fit > 0.0 && fit < view.ppi {
        view.ppi = fit.max(super::camera::MIN_PPI);
    }
}

/// A line of report text split into what it says and its trailing rule section `(8.4)` or chart
/// provenance `[…]`, which are shown muted.
fn split_rule(line: &str) -> (&str, &str) {
    let t = line.trim_end();
    if t.ends_with(']')
        && let Some(i) = t.rfind(" [")
    {
        return (&t[..i], &t[i..]);
    }
    // A section list such as (8.7), (3.1, 6.1) or (8.1–8.4); not "(0 points)".
    if t.ends_with(')')
        && let Some(i) = t.rfind(" (")
        && t[i + 2..].chars().next().is_some_and(|c| c.is_ascii_digit())
        && t[i + 2..t.len() - 1].chars().all(|c| c.is_ascii_digit() || ".,–- ".contains(c))
    {
        return (&t[..i], &t[i..]);
    }
    (t, "")
}

/// How a detail line of a report looks: its colour and whether it is only shown with details.
fn line_style(body: &str) -> (Color32, bool) {
    if body.starts_with("die ") {
        (Color32::from_rgb(250, 214, 120), true)
    } else if body.starts_with("modifier ") {
        (Color32::from_rgb(200, 200, 230), true)
    } else if body.starts_with("chart ") {
        (Color32::from_rgb(170, 210, 230), true)
    } else if body.starts_with("- ") {
        (Color32::from_rgb(200, 196, 180), true)
    } else if body.starts_with("=> ") {
        (Color32::from_rgb(255, 244, 214), false)
    } else if body.starts_with("* ") {
        (Color32::from_rgb(214, 236, 190), false)
    } else {
        (Color32::from_rgb(220, 216, 200), false)
    }
}

fn job(ui: &egui::Ui, parts: &[(&str, Color32, bool)], size: f32) -> egui::text::LayoutJob {
    let mut job = egui::text::LayoutJob::default();
    for (text, colour, bold) in parts {
        let family = if *bold { super::paint::table_font_bold() } else { super::paint::table_font() };
        job.append(text, 0.0, egui::TextFormat { font_id: egui::FontId::new(size, family), color: *colour, ..Default::default() });
    }
    job.wrap.max_width = ui.available_width();
    job
}

/// A report: the title (turn, what was done, its rule) bold and clickable, the rest indented.
/// Returns true when the title was clicked.
fn report_ui(ui: &mut egui::Ui, r: &Report, details: bool) -> bool {
    let text = r.to_string();
    let mut lines = text.lines();
    let title = lines.next().unwrap_or_default();
    let (title, rule) = split_rule(title);
    let named = r.action.units_named();
    let clicked = {
        let j = job(ui, &[(title, Color32::from_rgb(240, 232, 204), true), (rule, RULE, false)], 13.0);
        let resp = ui.add(egui::Label::new(j).wrap().sense(egui::Sense::click()));
        let resp = if named.is_empty() { resp } else { resp.on_hover_text(format!("Click: select {} and centre the view on it", named[0])) };
        if resp.hovered() && !named.is_empty() {
            ui.painter().rect_stroke(resp.rect.expand(1.0), 2.0, egui::Stroke::new(1.0, Color32::from_gray(120)), egui::StrokeKind::Outside);
        }
        resp.clicked()
    };
    for line in lines {
        let indented = line.starts_with("  ");
        let body = line.trim_start();
        let (colour, detail) = if indented { line_style(body) } else { (Color32::from_rgb(220, 216, 200), false) };
        if detail && !details {
            continue;
        }
        let (said, rule) = split_rule(body);
        // The report's plain-text markers, as bullets and arrows on screen.
        let said = said.strip_prefix("* ").map(|t| format!("• {t}")).or_else(|| said.strip_prefix("=> ").map(|t| format!("→ {t}"))).or_else(|| said.strip_prefix("- ").map(|t| format!("· {t}"))).unwrap_or_else(|| said.to_string());
        let said = said.as_str();
        let strong = body.starts_with("=> ");
        indent(ui, if indented { 18 } else { 8 }, |ui| {
            let j = job(ui, &[(said, colour, strong), (rule, RULE, false)], 12.5);
            ui.add(egui::Label::new(j).wrap());
        });
    }
    clicked
}

fn refusal_ui(ui: &mut egui::Ui, r: &LoggedRefusal) -> bool {
    let head = format!("Turn {}: refused — {}", r.turn, r.action);
    let j = job(ui, &[(&head, REFUSED, true)], 13.0);
    let clicked = ui.add(egui::Label::new(j).wrap().sense(egui::Sense::click())).clicked();
    indent(ui, 18, |ui| {
        let rule = format!("  ({})", r.refusal.cite());
        let j = job(ui, &[(&r.refusal.reason, Color32::from_rgb(255, 170, 160), false), (&rule, RULE, false)], 12.5);
        ui.add(egui::Label::new(j).wrap());
    });
    clicked
}

/// Lines under a title, indented and wrapped to the panel's width.
fn indent(ui: &mut egui::Ui, left: i8, add: impl FnOnce(&mut egui::Ui)) {
    egui::Frame::NONE.inner_margin(egui::Margin { left, ..Default::default() }).show(ui, add);
}

/// The status line of the session (what a save, load, undo or export did), green or red.
pub(crate) fn status_ui(ui: &mut egui::Ui, session: &Session) {
    if let Some((text, error)) = &session.status {
        let colour = if *error { REFUSED } else { GOOD };
        ui.label(RichText::new(text).color(colour)).on_hover_text(text);
    }
}

#[allow(clippy::too_many_arguments)]
fn panel(
    mut contexts: EguiContexts,
    mut free: ResMut<FreeRect>,
    mut log: ResMut<GameLog>,
    session: Option<ResMut<Session>>,
    units: Query<(Entity, &Unit)>,
    stands: Query<&Footprint>,
    mut selection: ResMut<Selection>,
    mut view: ResMut<View>,
) -> Result {
    let Some(mut session) = session else { return Ok(()) };
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root_ui(&ctx, "log_root", free.0);
    let mut focus_on: Option<Action> = None;
    let mut export_now = false;
    // Folded by the player, or nothing to show yet (the table keeps the room).
    let empty = session.engine().reports().is_empty() && log.refusals.is_empty();
    let collapsed = log.collapsed || empty;
    let panel = if collapsed {
        egui::Panel::bottom("log_collapsed").resizable(false)
    } else {
        egui::Panel::bottom("log").resizable(true).default_size(180.0).size_range(90.0..=520.0)
    };
    let response = panel.show(&mut root, |ui| {
        ui.add_space(3.0);
        ui.horizontal(|ui| {
            let arrow = if collapsed { "⏵" } else { "⏷" };
            if ui.add_enabled(!empty, egui::Button::new(format!("{arrow} Log"))).on_hover_text("Show or hide the game log").clicked() {
                log.collapsed = !log.collapsed;
            }
            if empty {
                ui.label(RichText::new("Nothing yet: the game's reports appear here as it is played.").weak().italics());
            }
            let n = session.engine().reports().len();
            ui.label(RichText::new(format!("{n} reports, {} refused", log.refusals.len())).weak().small());
            ui.separator();
            status_ui(ui, &session);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let path = export_path(session.save_path.as_deref(), &session.engine().scenario().name);
                if ui.button("Export…").on_hover_text(format!("Write the whole log as text to {}", path.display())).clicked() {
                    export_now = true;
                }
                if !collapsed {
                    ui.checkbox(&mut log.details, "dice & modifiers").on_hover_text("Show every die, modifier, chart cell and note under each report");
                }
            });
        });
        if collapsed {
            ui.add_space(2.0);
            return;
        }
        ui.separator();
        egui::ScrollArea::vertical().auto_shrink([false, false]).stick_to_bottom(true).show(ui, |ui| {
            let reports = session.engine().reports();
            let all = entries(reports, &log);
            let skip = all.len().saturating_sub(SHOWN);
            if skip > 0 {
                ui.label(RichText::new(format!("… {skip} earlier entries (Export writes them all)")).weak().italics());
            }
            for e in all.into_iter().skip(skip) {
                match e {
                    Entry::Report(r, why) => {
                        if report_ui(ui, r, log.details) {
                            focus_on = Some(r.action.clone());
                        }
                        if let Some(why) = why {
                            indent(ui, 8, |ui| {
                                let j = job(ui, &[("Why: ", AUTOMATIC, true), (why, AUTOMATIC, false), (&format!(" ({REASON})"), RULE, false)], 12.5);
                                ui.add(egui::Label::new(j).wrap());
                            });
                        }
                    }
                    Entry::Refusal(r) => {
                        if refusal_ui(ui, r) {
                            focus_on = Some(r.action.clone());
                        }
                    }
                }
                ui.add_space(3.0);
            }
        });
    });
    free.0.max.y = free.0.max.y.min(response.response.rect.min.y);
    if let Some(action) = focus_on {
        focus(&action, &units, &stands, &mut selection, &mut view);
    }
    if export_now {
        let path = export_path(session.save_path.as_deref(), &session.engine().scenario().name);
        export(&mut session, &log, &path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cite::RuleSetId;

    fn game() -> Session {
        Session::from_engine(&*crate::rules::registry::open(RuleSetId::Otp, crate::scenario::default_scenario(), 7).unwrap())
    }

    fn fire() -> Action {
        Action::Fire { unit: "23rd Foot".into(), target: "Continental Light Dragoons".into() }
    }

    /// A headless app with the log following a session, fed through the session's messages.
    fn app() -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<GameLog>()
            .add_message::<Refused>()
            .add_message::<SessionCommand>()
            .insert_resource(game())
            .add_systems(PostUpdate, record);
        app.update();
        app
    }

    /// Apply a common action through the session, as an order would.
    fn act(app: &mut App, action: Action) {
        let result = app.world_mut().resource_mut::<Session>().apply(action.clone());
        if let Err(refusal) = result {
            app.world_mut().write_message(Refused { action, refusal });
        }
        app.update();
    }

    #[test]
    fn refusals_are_kept_in_place_and_forgotten_when_taken_back() {
        let mut app = app();
        // OTP 4.2: nobody fires before the game starts.
        act(&mut app, fire());
        act(&mut app, Action::Next);
        act(&mut app, Action::Next);
        act(&mut app, Action::Fire { unit: "Nobody".into(), target: "23rd Foot".into() }); // refused: no such unit
        let log = app.world().resource::<GameLog>();
        assert_eq!(log.refusals.len(), 2);
        assert_eq!((log.refusals[0].at, log.refusals[1].at), (0, 2));
        let text = log_text(app.world().resource::<Session>().engine(), log);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("seed 7") && lines[0].contains("2 actions"), "{text}");
        assert!(lines[1].contains("refused (OTP 4.2)"), "the first refusal comes before the first report: {text}");
        assert!(lines.last().unwrap().contains("refused (OTP"), "the last refusal comes last: {text}");
        assert_eq!(text.matches("refused (OTP").count(), 2);
        // Taking back the draw forgets the refusal that came after it, keeps the earlier one.
        app.world_mut().resource_mut::<Session>().undo();
        app.update();
        assert_eq!(app.world().resource::<GameLog>().refusals.len(), 1);
        // A load that fails (the session says why and changes nothing) keeps them.
        app.world_mut().write_message(SessionCommand::Load(PathBuf::from("/nonexistent/game.ron")));
        app.update();
        assert_eq!(app.world().resource::<GameLog>().refusals.len(), 1);
        // A new game forgets them all.
        app.world_mut().resource_mut::<Session>().revision += 1;
        app.world_mut().write_message(SessionCommand::Restart);
        app.update();
        assert!(app.world().resource::<GameLog>().refusals.is_empty());
    }

    // Issue 19: the automatic player's reason shows under the report of its action; a refused
    // order's reason is dropped (it made no report), and a reason is forgotten with its action.
    #[test]
    fn automatic_reasons_go_under_their_reports() {
        let mut app = app();
        act(&mut app, Action::Next);
        let at = app.world().resource::<Session>().engine().reports().len();
        app.world_mut().resource_mut::<GameLog>().reason(at, "draws the next chit (4.3)".into());
        act(&mut app, Action::Next);
        // Refused (no such unit): its reason must not land on the next report.
        let at2 = app.world().resource::<Session>().engine().reports().len();
        app.world_mut().resource_mut::<GameLog>().reason(at2, "Nobody fires: a test".into());
        act(&mut app, Action::Fire { unit: "Nobody".into(), target: "23rd Foot".into() });
        let log = app.world().resource::<GameLog>();
        assert_eq!(log.reasons, vec![(at, "draws the next chit (4.3)".to_string())]);
        let text = log_text(app.world().resource::<Session>().engine(), log);
        let lines: Vec<&str> = text.lines().collect();
        let why = lines.iter().position(|l| l.contains("Why: draws the next chit (4.3) (automatic player)")).unwrap_or_else(|| panic!("{text}"));
        assert!(lines[..why].iter().any(|l| l.contains("Chit")), "under the draw's report: {text}");
        assert!(!text.contains("a test"), "{text}");
        // Taking the draw back forgets its reason.
        app.world_mut().resource_mut::<Session>().undo();
        app.update();
        assert!(app.world().resource::<GameLog>().reasons.is_empty());
    }

    #[test]
    fn export_goes_beside_the_save_or_into_the_working_folder() {
        assert_eq!(export_path(Some(Path::new("/tmp/games/battle.ron")), "X"), PathBuf::from("/tmp/games/battle-log.txt"));
        assert_eq!(export_path(None, "The Battle of Cowpens, 1781"), PathBuf::from("otp-log-the-battle-of-cowpens-1781.txt"));
        let dir = std::env::temp_dir().join(format!("otp-log-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut session = game();
        let start = Action::Next;
        session.apply(start).unwrap();
        let path = export_path(Some(&dir.join("g.ron")), "");
        export(&mut session, &GameLog::default(), &path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("Turn 1") || text.contains("Turn 0"), "{text}");
        assert_eq!(session.status.as_ref().map(|s| s.1), Some(false));
        assert!(session.status.as_ref().unwrap().0.contains("g-log.txt"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn rule_sections_are_split_off_and_actions_name_their_units() {
        assert_eq!(split_rule("modifier -1 target in cover (8.6)"), ("modifier -1 target in cover", " (8.6)"));
        assert_eq!(split_rule("chart FIRE, column 4, row 7: 1 [Text 8.5]"), ("chart FIRE, column 4, row 7: 1", " [Text 8.5]"));
        assert_eq!(split_rule("a note (not a rule)"), ("a note (not a rule)", ""));
        assert_eq!(split_rule("objectives held: none (0 points)"), ("objectives held: none (0 points)", ""));
        assert_eq!(split_rule("moves (3.1, 6.1)"), ("moves", " (3.1, 6.1)"));
        assert_eq!(fire().units_named(), vec!["23rd Foot", "Continental Light Dragoons"]);
        assert!(Action::Next.units_named().is_empty());
    }

    #[test]
    fn clicking_an_entry_selects_its_unit_and_shows_it_and_its_target() {
        use bevy::ecs::system::SystemState;
        let mut world = World::new();
        crate::scenario::spawn::spawn_scenario(&mut world, &crate::scenario::default_scenario(), "teaching");
        type Views<'w, 's> = (Query<'w, 's, (Entity, &'static Unit)>, Query<'w, 's, &'static Footprint>);
        let mut state: SystemState<Views> = SystemState::new(&mut world);
        let (units, stands) = state.get(&world).expect("read-only queries");
        let mut selection = Selection::default();
        let mut view = View { rect: egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(600.0, 300.0)), ppi: 60.0, centre: Vec2::ZERO, ..View::default() };
        focus(&fire(), &units, &stands, &mut selection, &mut view);
        let named = |n: &str| units.iter().find(|(_, u)| u.name == n).expect("a unit of the teaching battle");
        assert_eq!(selection.unit, Some(named("23rd Foot").0), "the acting unit is selected");
        for n in ["23rd Foot", "Continental Light Dragoons"] {
            for &s in &named(n).1.stands {
                let p = view.to_screen(stands.get(s).unwrap().centre);
                assert!(view.rect.contains(p), "{n} is on screen at {p:?} (ppi {})", view.ppi);
            }
        }
        // An action naming no unit changes nothing.
        let before = (selection.unit, view.centre);
        focus(&Action::Next, &units, &stands, &mut selection, &mut view);
        assert_eq!((selection.unit, view.centre), before);
    }

    /// A whole automatic game of the historical scenario saved to `OTP_WRITE_LONG_SAVE`, to time
    /// the log with hundreds of reports (docs/performance.md).
    #[test]
    #[ignore = "writes a save when OTP_WRITE_LONG_SAVE is set"]
    fn write_a_long_save() {
        let Ok(path) = std::env::var("OTP_WRITE_LONG_SAVE") else { return };
        let scenario = crate::scenario::load(Path::new("scenarios/cowpens.ron")).expect("the historical scenario");
        let mut g = crate::rules::registry::open(RuleSetId::Otp, scenario, 5).unwrap();
        let mut player = g.automatic();
        while let Some(a) = player.next_action(&*g) {
            // Refused: go on rather than loop.
            if g.apply(a).is_err() && g.apply(Action::Next).is_err() {
                break;
            }
        }
        crate::scenario::write_atomically(Path::new(&path), &g.save_text()).unwrap();
    }
}
