//! A lesson in the window (`otp play --lesson NAME`, or the Open menu's Lessons): a panel over
//! the table with the lesson's steps, the current one's words, its rule quoted and its task; the
//! engine checks the step's goal after every change ([`crate::lessons::Goal::met`]) and a step
//! met is ticked and the next begins. A refused try shows the engine's own reason; Hint gives the
//! step's hint and turns on the overlays that show the answer; Show me plays the intended
//! actions as orders. Lessons completed are remembered in the settings, and so is the step a
//! lesson left unfinished reached: taken again, it resumes there (the steps before replayed by
//! their intended actions), with "Start over" at hand.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui::{Color32, RichText};

use super::UiSet;
use super::overlays::Overlays;
use super::session::{Order, Session};
use super::settings::Settings;
use super::table_view::Selection;
use crate::lessons::Lesson;
use crate::scenario::spawn::Unit;

/// The lesson being taken.
#[derive(Resource)]
pub(crate) struct Taking {
    pub name: String,
    pub lesson: Lesson,
    /// The step being worked on (`steps.len()`: all done).
    pub step: usize,
    /// The reports there were when the step began: its goal looks at those after.
    since: usize,
    /// The session revision last checked.
    checked: Option<u64>,
    hint: bool,
    /// The unit to select once the mirror holds it.
    select: Option<String>,
    /// Resumed part-way from the step remembered.
    resumed: bool,
}

impl Taking {
    pub fn new(name: String, lesson: Lesson, since: usize) -> Self {
        let select = lesson.steps.first().and_then(|s| s.select.clone());
        Taking { name, lesson, step: 0, since, checked: None, hint: false, select, resumed: false }
    }

    /// Go on from step `at` (as remembered): the steps before it played by their intended
    /// actions. Stops at the first the engine refuses (a lesson file changed since).
    pub fn resume(&mut self, session: &mut Session, at: usize) {
        let at = at.min(self.lesson.steps.len().saturating_sub(1));
        for step in &self.lesson.steps[..at] {
            for a in &step.answer {
                if session.apply(a.clone()).is_err() {
                    return;
                }
            }
            self.step += 1;
        }
        self.since = session.engine().reports().len();
        self.select = self.lesson.steps.get(self.step).and_then(|s| s.select.clone());
        self.resumed = self.step > 0;
    }
    pub fn done(&self) -> bool {
        self.step >= self.lesson.steps.len()
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(PostStartup, begin).add_systems(Update, (check, select).chain()).add_systems(EguiPrimaryContextPass, panel.in_set(UiSet::Windows).run_if(super::fonts_ready));
}

/// `otp play --lesson NAME`: the lesson's game is the opening; the lesson begins, and a save
/// asks where (the lesson file is not a save) and the player's autosave is left alone.
fn begin(mut commands: Commands, options: Option<Res<super::RunOptions>>, session: Option<ResMut<Session>>, settings: Res<Settings>) {
    let (Some((name, lesson)), Some(mut session)) = (options.and_then(|o| o.lesson.clone()), session) else { return };
    session.save_path = None;
    session.autosave = None;
    let mut t = Taking::new(name, lesson, session.engine().reports().len());
    if let Some(at) = reached(&settings, &t.name) {
        t.resume(&mut session, at);
    }
    commands.insert_resource(t);
}

/// The step an unfinished lesson reached, if the player left it part-way.
fn reached(settings: &Settings, name: &str) -> Option<usize> {
    settings.lessons_at.iter().find(|(n, _)| n == name).map(|(_, at)| *at).filter(|&at| at > 0)
}

/// The opening of a lesson's game: its scenario, seed and set-up actions, as a save's text.
pub fn opening(name: &str) -> Result<(super::session::Opening, Lesson), String> {
    let (lesson, path) = Lesson::find(name)?;
    let game = lesson.open(&path)?;
    let scenario = Box::new(game.scenario().clone());
    Ok((super::session::Opening::Saved { text: game.save_text(), source: format!("lesson {name}"), scenario, changed: Vec::new() }, lesson))
}

/// The Lessons menu: take `name` now, in place of the game (asking nothing: the menu says so).
pub(crate) fn start_in_world(world: &mut World, name: &str) {
    let at = world.get_resource::<Settings>().and_then(|s| reached(s, name));
    start_at(world, name, at);
}

/// Take lesson `name`, resuming at step `at` when given.
fn start_at(world: &mut World, name: &str, at: Option<usize>) {
    match opening(name) {
        Ok((opening, lesson)) => {
            super::session::open_in_world(world, opening);
            let since = world.get_resource::<Session>().map_or(0, |s| s.engine().reports().len());
            if let Some(mut s) = world.get_resource_mut::<Session>() {
                s.save_path = None;
            }
            if let Some(mut v) = world.get_resource_mut::<super::camera::View>() {
                v.fit_pending = true;
            }
            let mut t = Taking::new(name.to_string(), lesson, since);
            if let (Some(at), Some(mut session)) = (at, world.get_resource_mut::<Session>()) {
                t.resume(&mut session, at);
            }
            world.insert_resource(t);
        }
        Err(e) => {
            if let Some(mut s) = world.get_resource_mut::<Session>() {
                s.status = Some((e, true));
            }
        }
    }
}

/// After every change: is the step's goal met? Then tick it and begin the next.
fn check(taking: Option<ResMut<Taking>>, session: Option<Res<Session>>, mut settings: ResMut<Settings>, mut overlays: ResMut<Overlays>) {
    let (Some(mut t), Some(session)) = (taking, session) else { return };
    if t.checked == Some(session.revision) || t.done() {
        return;
    }
    t.checked = Some(session.revision);
    while !t.done() && t.lesson.steps[t.step].goal.met(session.engine(), t.since).is_ok() {
        t.step += 1;
        t.since = session.engine().reports().len();
        t.hint = false;
        t.select = t.lesson.steps.get(t.step).and_then(|s| s.select.clone());
        *overlays = Overlays::default();
    }
    // Remembered: done, or the step reached (a lesson done is taken from the start again).
    let at = if t.done() { 0 } else { t.step };
    if reached(&settings, &t.name).unwrap_or(0) != at {
        settings.lessons_at.retain(|(n, _)| n != &t.name);
        if at > 0 {
            settings.lessons_at.push((t.name.clone(), at));
        }
    }
    if t.done() && !settings.lessons_done.contains(&t.name) {
        settings.lessons_done.push(t.name.clone());
    }
}

fn select(taking: Option<ResMut<Taking>>, mut selection: ResMut<Selection>, units: Query<(Entity, &Unit)>) {
    let Some(mut t) = taking else { return };
    let Some(name) = t.select.clone() else { return };
    if let Some((e, _)) = units.iter().find(|(_, u)| u.name == name) {
        selection.unit = Some(e);
        t.select = None;
    }
}

const GOLD: Color32 = Color32::from_rgb(236, 200, 110);
const DONE: Color32 = Color32::from_rgb(140, 200, 120);
const REFUSED: Color32 = Color32::from_rgb(255, 140, 120);

fn panel(mut contexts: EguiContexts, taking: Option<ResMut<Taking>>, session: Option<Res<Session>>, mut overlays: ResMut<Overlays>, mut orders: MessageWriter<Order>, mut commands: Commands) -> Result {
    let (Some(mut t), Some(session)) = (taking, session) else { return Ok(()) };
    let ctx = contexts.ctx_mut()?.clone();
    let mut open = true;
    let title = format!("🎓 Lesson: {}", t.lesson.title);
    // Movable and foldable: the player puts it where it hides nothing he needs.
    egui::Window::new(title).open(&mut open).default_width(340.0).default_pos(egui::pos2(285.0, 80.0)).collapsible(true).show(&ctx, |ui| {
        ui.label(RichText::new(&t.lesson.about).italics());
        if t.resumed {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(format!("Resumed where you left off, at step {}.", t.step + 1)).weak());
                if ui.small_button("↺ Start over").on_hover_text("The lesson from its first step").clicked() {
                    let name = t.name.clone();
                    commands.queue(move |world: &mut World| start_at(world, &name, None));
                }
            });
        }
        ui.add_space(4.0);
        for (i, s) in t.lesson.steps.iter().enumerate() {
            let (mark, colour) = if i < t.step { ("✔", DONE) } else if i == t.step { ("▶", GOLD) } else { ("·", Color32::GRAY) };
            ui.label(RichText::new(format!("{mark} {}. {}", i + 1, s.title)).color(colour));
        }
        ui.separator();
        let Some(step) = t.lesson.steps.get(t.step).cloned() else {
            ui.label(RichText::new("Lesson complete: every step done.").strong().color(DONE));
            return;
        };
        ui.label(&step.text);
        if let Some(q) = &step.rule {
            ui.add_space(2.0);
            ui.label(RichText::new(format!("“{}” — {}", q.text, q.cite)).italics().color(Color32::from_rgb(210, 200, 170)));
        }
        ui.add_space(4.0);
        ui.label(RichText::new(&step.task).strong().color(GOLD));
        // A try the engine refused, in its words.
        if let Some((action, refusal)) = &session.last_refusal {
            ui.label(RichText::new(format!("Not yet: {action} — {refusal}")).color(REFUSED));
        }
        if t.hint {
            ui.label(RichText::new(format!("Hint: {}", step.hint)).color(Color32::from_rgb(190, 220, 255)));
        }
        ui.horizontal(|ui| {
            if ui.button("💡 Hint").on_hover_text("The hint, and the overlays that show the answer").clicked() {
                t.hint = true;
                overlays.set_from(&step.overlays.join(","));
            }
            if ui.button("▶ Show me").on_hover_text("Play the step's intended actions").clicked() {
                for a in &step.answer {
                    orders.write(Order(a.clone()));
                }
            }
        });
    });
    if !open {
        commands.remove_resource::<Taking>();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 22: progress remembered. A lesson taken again resumes at the step reached: the steps
    // before it played by their answers, its own goal not yet met.
    #[test]
    fn a_lesson_resumes_at_the_step_it_reached() {
        let (lesson, path) = Lesson::find("otp-fire").unwrap();
        let mut session = Session::new(lesson.open(&path).unwrap());
        let mut t = Taking::new("otp-fire".into(), lesson.clone(), session.engine().reports().len());
        t.resume(&mut session, 1);
        assert_eq!((t.step, t.resumed), (1, true));
        assert!(lesson.steps[0].goal.met(session.engine(), 0).is_ok(), "step 1 played");
        assert!(lesson.steps[1].goal.met(session.engine(), t.since).is_err(), "step 2 still to do");
        let mut settings = Settings::default();
        assert_eq!(reached(&settings, "otp-fire"), None);
        settings.lessons_at.push(("otp-fire".into(), 1));
        assert_eq!(reached(&settings, "otp-fire"), Some(1));
    }

    #[test]
    fn the_menu_lists_every_shipped_lesson_under_its_rule_set() {
        let listed = crate::lessons::catalogue();
        assert_eq!(listed.len(), crate::lessons::SHIPPED.len());
        assert!(listed.iter().any(|(n, _, r)| *n == "purky-fire" && *r == crate::rules::cite::RuleSetId::Purky));
        assert!(listed.iter().any(|(n, _, r)| *n == "otp-arc" && *r == crate::rules::cite::RuleSetId::Otp));
    }
}
