//! The game being played in the window: one engine [`Game`], the file it was saved to, and an
//! autosave after every change.
//!
//! Everything that changes the game is an [`Order`] (an engine `Action`) or a [`SessionCommand`]
//! (undo, save, load, a new game) sent as a message: the mouse, the panels, the automatic player
//! and the tests all use the same path. The outcome comes back as [`Applied`] (the report) or
//! [`Refused`] (the rule that forbids it), and the last of each stays on the [`Session`] for the
//! panels to show. The entities the views draw are a mirror of the game's world, refreshed after
//! every change, so the window never holds game state of its own.
//!
//! Autosave: after every action the game is written (atomically) to [`autosave_path`], its folder
//! created if need be; the next start offers to resume it. If it cannot be written the status
//! line says so once, with the path, and play goes on.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::UiSet;
use super::camera::View;
use super::settings::Settings;
use super::table_view::Selection;
use crate::rules::action::Action;
use crate::rules::engine::{self, Engine};
use crate::rules::registry;
use crate::rules::report::{Refusal, Report};
use crate::scenario::Scenario;
use crate::scenario::spawn::{Battlefield, Brigade, Commander, MoraleMarker, SideInfo, Stand, SupplyWagon, Unit, despawn_scenario};
use crate::table::footprint::Footprint;

/// Apply this action to the game (from the mouse, a panel, the automatic player or a test).
#[derive(Message, Clone, Debug)]
pub struct Order(pub Action);

/// Things done to the game as a whole rather than within it.
#[derive(Message, Clone, Debug)]
pub enum SessionCommand {
    /// Take back the last action (replayed from the start, so no re-roll can be fished for).
    Undo,
    /// Write the game (scenario + seed + actions) to this file, atomically.
    Save(PathBuf),
    /// Replace the game by a saved one; a bad file changes nothing and says why.
    Load(PathBuf),
    /// Resume the autosaved game.
    Resume,
    /// A fresh game of the current scenario with a new seed.
    Restart,
    /// Watch the game in the window as a replay, from its first action (see [`Session::watch`]).
    Watch,
    /// In a replay: show the game as it stood after this many actions.
    ReplayTo(usize),
    /// In a replay: the game as shown becomes the game played; the actions after are dropped.
    PlayOn,
    /// Leave the replay: back to the whole game, at its end.
    StopWatching,
    /// Teaching, "what if he stood here": units of either side may be placed anywhere on a copy
    /// of the game, the game played kept aside (see [`Session::what_if`]).
    WhatIf,
    /// In what-if: put this unit's stands here (outside the rules).
    Place { unit: String, stands: Vec<Footprint> },
    /// Leave what-if: everything back as it was.
    EndWhatIf,
}

/// An action the engine carried out, with everything it rolled and changed.
#[derive(Message, Clone, Debug)]
pub struct Applied(pub Report);

/// An action the engine refused: nothing changed.
#[derive(Message, Clone, Debug)]
pub struct Refused {
    pub action: Action,
    pub refusal: Refusal,
}

/// The game in the window.
#[derive(Resource)]
pub struct Session {
    pub game: Box<dyn Engine>,
    /// Where the game was last saved or loaded from.
    pub save_path: Option<PathBuf>,
    /// The newest report (the dice overlay shows it until dismissed).
    pub last_report: Option<Report>,
    /// The newest refusal, if it came after the newest report.
    pub last_refusal: Option<(Action, Refusal)>,
    /// A line for the status bar: what a save, load or undo did (`true`: it went wrong).
    pub status: Option<(String, bool)>,
    /// Counts every change to the game: views cache on it.
    pub revision: u64,
    /// Where to autosave; `None` turns autosaving off (screenshots, tests).
    pub autosave: Option<PathBuf>,
    /// A game found in the autosave at start, offered for resuming: (path, description).
    pub resume_offer: Option<(PathBuf, String)>,
    /// The autosave failed and the player has been told: not again.
    autosave_failed: bool,
    /// The revision last saved to (or loaded from) a file: later changes are unsaved.
    saved_revision: Option<u64>,
    /// The game played, kept aside while `game` shows a replay of it part-way or a what-if copy
    /// of it. Nothing is changed (no orders, no autosave) until the player plays on or leaves.
    watching: Option<Watching>,
    /// Game entity → the app entity mirroring it.
    mirror: HashMap<Entity, Entity>,
    /// The mirror must be rebuilt from scratch (a new game replaced the old one).
    reset: bool,
}

/// The game played, kept aside.
struct Watching {
    full: Box<dyn Engine>,
    /// It had actions not saved to a file when it was put aside.
    unsaved: bool,
    /// Shown as a what-if copy (units placed by hand), not a replay.
    what_if: bool,
}

impl Session {
    /// The game, through the engine interface: all a view may ask.
    pub fn engine(&self) -> &dyn Engine {
        self.game.as_ref()
    }

    /// A session on a copy of a game (its save text replayed): how tests build one.
    #[cfg(test)]
    pub(crate) fn from_engine(engine: &dyn Engine) -> Self {
        Session::new(registry::load_save(&engine.save_text(), "test").expect("an engine's save replays"))
    }

    pub fn new(game: Box<dyn Engine>) -> Self {
        Session {
            game,
            save_path: None,
            last_report: None,
            last_refusal: None,
            status: None,
            revision: 0,
            autosave: None,
            resume_offer: None,
            autosave_failed: false,
            saved_revision: None,
            watching: None,
            mirror: HashMap::new(),
            reset: true,
        }
    }

    /// The game entity an app entity mirrors (units, stands, commanders, brigades).
    pub fn game_entity(&self, app: Entity) -> Option<Entity> {
        self.mirror.iter().find_map(|(&g, &a)| (a == app).then_some(g))
    }

    /// A command's name with the rule set's tag for it ("Webster's Brigade (chit 3)"), for the app
    /// entity `brigade`.
    pub fn brigade_title(&self, brigade: Entity, name: &str) -> String {
        match self.game_entity(brigade).and_then(|g| self.engine().brigade_tag(g)) {
            Some(tag) => format!("{name} ({tag})"),
            None => name.to_string(),
        }
    }

    /// The app entity mirroring a game entity.
    pub fn app_entity(&self, game: Entity) -> Option<Entity> {
        self.mirror.get(&game).copied()
    }

    /// The whole game: the one being watched in a replay, else the one shown.
    pub fn whole(&self) -> &dyn Engine {
        self.watching.as_ref().map_or(self.game.as_ref(), |w| w.full.as_ref())
    }

    /// Watch the game as a replay from `at` actions: the table, the log and the views show it as
    /// it stood then, and nothing is changed until [`Session::play_on`].
    pub fn watch(&mut self, at: usize) {
        if let Some(w) = self.watching.take() {
            self.game = w.full;
        }
        let unsaved = self.unsaved();
        let shown = self.game.replayed(at.min(self.game.action_count()));
        let full = std::mem::replace(&mut self.game, shown);
        self.watching = Some(Watching { full, unsaved, what_if: false });
        self.shown_afresh();
        self.status = Some(("a replay: step through the game; nothing changes until you play on from here".into(), false));
    }

    /// In a replay, where it stands: (actions shown, actions in the whole game).
    pub fn replay_at(&self) -> Option<(usize, usize)> {
        self.watching.as_ref().filter(|w| !w.what_if).map(|w| (self.game.action_count(), w.full.action_count()))
    }

    /// Teaching, "what if he stood here": the table becomes a copy of the game on which any unit
    /// may be placed by hand ([`Session::place`]), every view following; the game played is
    /// kept aside, untouched, until [`Session::stop_watching`] puts everything back.
    pub fn what_if(&mut self) {
        if self.watching.is_some() {
            self.status = Some(("close the replay first".into(), true));
            return;
        }
        let unsaved = self.unsaved();
        let copy = self.game.replayed(self.game.action_count());
        let full = std::mem::replace(&mut self.game, copy);
        self.watching = Some(Watching { full, unsaved, what_if: true });
        self.shown_afresh();
        self.status = Some(("what if: drag any unit; this is not the game, and leaving puts everything back".into(), false));
    }

    /// In what-if: the table is a copy of the game, not the game.
    pub fn in_what_if(&self) -> bool {
        self.watching.as_ref().is_some_and(|w| w.what_if)
    }

    /// In what-if, put the unit named `unit` at `stands`; true if it was placed.
    pub fn place(&mut self, unit: &str, stands: &[Footprint]) -> bool {
        if !self.in_what_if() {
            return false;
        }
        let world = self.game.world();
        let Some(e) = world.try_query::<(Entity, &Unit)>().and_then(|mut q| q.iter(world).find(|(_, u)| u.name == unit).map(|(e, _)| e)) else { return false };
        let placed = self.game.place(e, stands);
        if placed {
            self.revision += 1;
        }
        placed
    }

    /// In a replay, show the game after `at` actions. One step forward takes the next action
    /// (its report is returned, for the dice overlay and the trail); any other jump replays the
    /// game from its start, as undo does.
    pub fn replay_to(&mut self, at: usize) -> Option<Report> {
        let full = &self.watching.as_ref().filter(|w| !w.what_if)?.full;
        let at = at.min(full.action_count());
        let now = self.game.action_count();
        if at == now {
            return None;
        }
        if at == now + 1
            && let Some(action) = full.actions().get(now).cloned()
            && let Ok(report) = self.game.apply(action)
        {
            self.last_report = Some(report.clone());
            self.last_refusal = None;
            self.revision += 1;
            return Some(report);
        }
        self.game = full.replayed(at);
        self.shown_afresh();
        None
    }

    /// In a replay: the game as shown becomes the game played; the actions after it are
    /// dropped. The save it came from is left as it was (the next save asks where).
    pub fn play_on(&mut self) {
        if self.replay_at().is_none() {
            return;
        }
        let Some(w) = self.watching.take() else { return };
        let (at, total) = (self.game.action_count(), w.full.action_count());
        self.save_path = None;
        self.saved_revision = None;
        self.status = Some((format!("playing on from action {at} of {total}; the saved game is left as it was"), false));
        self.changed();
    }

    /// Leave the replay (the whole game again, at its end) or the what-if (every unit back).
    pub fn stop_watching(&mut self) {
        let Some(w) = self.watching.take() else { return };
        self.game = w.full;
        self.shown_afresh();
        // Back to the game as it was: saved or not, as before the replay.
        self.saved_revision = (!w.unsaved).then_some(self.revision);
    }

    /// A replay jumped: the table is rebuilt and the newest report is the one shown. Not an
    /// action: nothing is autosaved.
    fn shown_afresh(&mut self) {
        self.last_report = self.game.reports().last().cloned();
        self.last_refusal = None;
        self.reset = true;
        self.revision += 1;
    }

    /// Apply one action now: the report, or the refusal (kept for the panels either way).
    pub fn apply(&mut self, action: Action) -> Result<Report, Refusal> {
        match self.game.apply(action.clone()) {
            Ok(report) => {
                self.last_report = Some(report.clone());
                self.last_refusal = None;
                self.changed();
                Ok(report)
            }
            Err(refusal) => {
                self.last_refusal = Some((action, refusal.clone()));
                Err(refusal)
            }
        }
    }

    /// Take back the last action.
    pub fn undo(&mut self) -> Option<Action> {
        let n = self.game.action_count().checked_sub(1)?;
        let last = self.game.actions().pop()?;
        self.game = self.game.replayed(n);
        self.last_report = self.game.reports().last().cloned();
        self.last_refusal = None;
        self.reset = true;
        self.status = Some((format!("took back: {last}"), false));
        self.changed();
        Some(last)
    }

    /// Replace the game (a load, a resume, a restart); a replay ends.
    pub fn replace(&mut self, game: Box<dyn Engine>) {
        self.watching = None;
        self.game = game;
        self.last_report = None;
        self.last_refusal = None;
        self.reset = true;
        self.changed();
    }

    /// Actions taken since the game was last saved to (or loaded from) a file: opening another
    /// would lose them.
    pub fn unsaved(&self) -> bool {
        match &self.watching {
            Some(w) => w.unsaved,
            None => self.game.action_count() > 0 && self.saved_revision != Some(self.revision),
        }
    }

    /// The game as it is now is in a file.
    fn mark_saved(&mut self) {
        self.saved_revision = Some(self.revision);
    }

    /// Write the game to `path` (atomically) and make it the game's file; the status line says
    /// how it went. True if it was written.
    pub fn save_to(&mut self, path: &Path) -> bool {
        // In a replay the whole game is saved, not the part shown.
        match crate::scenario::write_atomically(path, &self.whole().save_text()) {
            Ok(()) => {
                self.save_path = Some(path.to_path_buf());
                self.mark_saved();
                if let Some(w) = &mut self.watching {
                    w.unsaved = false;
                }
                self.status = Some((format!("saved to {}", path.display()), false));
                true
            }
            Err(e) => {
                self.status = Some((format!("could not save to {}: {e}", path.display()), true));
                false
            }
        }
    }

    fn changed(&mut self) {
        self.revision += 1;
        let Some(path) = &self.autosave else { return };
        let written = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(dir) => std::fs::create_dir_all(dir).and_then(|()| crate::scenario::write_atomically(path, &self.game.save_text())),
            None => crate::scenario::write_atomically(path, &self.game.save_text()),
        };
        match written {
            Ok(()) => self.autosave_failed = false,
            Err(e) if !self.autosave_failed => {
                self.autosave_failed = true;
                self.status = Some((format!("Autosave is off: cannot write {} ({e}). Play goes on; save with Ctrl+S.", path.display()), true));
            }
            Err(_) => {}
        }
    }
}

/// The autosave file: `OTP_AUTOSAVE` if set, else `autosave.ron` in the data folder
/// (`~/.local/share/otp` on Linux).
pub fn autosave_path() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("OTP_AUTOSAVE") {
        return (!p.is_empty()).then(|| PathBuf::from(p));
    }
    super::settings::data_dir().map(|d| d.join("autosave.ron"))
}

/// A seed for a new game: `OTP_SEED` if set (tests, screenshots), else the clock.
pub fn new_seed() -> u64 {
    if let Some(s) = std::env::var("OTP_SEED").ok().and_then(|s| s.parse().ok()) {
        return s;
    }
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
}

/// A game opened: the engine, where it came from, and the save file to write back to.
type Opened = (Box<dyn Engine>, String, Option<PathBuf>);

/// What the window starts with: a scenario to set up, or a saved game to go on with.
#[derive(Resource, Clone, Debug)]
pub enum Opening {
    Scenario { scenario: Box<Scenario>, source: String },
    /// A saved game's text (read and replayed once already, so known to be good), its scenario
    /// and what was edited in that scenario since the game was played.
    Saved { text: String, source: String, scenario: Box<Scenario>, changed: Vec<String> },
}

impl Opening {
    /// Read a scenario or a saved game (a save has the scenario, a `seed` and `actions`). Every
    /// problem comes back as `file:line:col: message` lines.
    pub fn read(path: &Path) -> Result<Opening, String> {
        let file = path.display().to_string();
        let text = crate::scenario::read_text(path, engine::MAX_SAVE_BYTES).map_err(|e| e.to_string())?;
        let looks_saved = text.contains("actions:") && text.contains("seed:");
        if looks_saved {
            let (scenario, changed) = registry::save_scenario(&text, &file)?;
            registry::load_save(&text, &file)?;
            return Ok(Opening::Saved { text, source: file, scenario: Box::new(scenario), changed });
        }
        let scenario = crate::scenario::load(path).map_err(|e| e.to_string())?;
        Ok(Opening::Scenario { scenario: Box::new(scenario), source: file })
    }

    /// The game it opens on, and the save file to write back to.
    /// The scenario it opens.
    pub fn scenario(&self) -> &Scenario {
        match self {
            Opening::Scenario { scenario, .. } | Opening::Saved { scenario, .. } => scenario,
        }
    }

    /// The game it opens on (under the rule set its file names), and the save file to write
    /// back to.
    fn into_game(self) -> Result<Opened, String> {
        match self {
            Opening::Scenario { scenario, source } => {
                let rules = scenario.rules;
                Ok((registry::open(rules, *scenario, new_seed()).map_err(|e| format!("{source}: {e}"))?, source, None))
            }
            Opening::Saved { text, source, .. } => Ok((registry::load_save(&text, &source)?, source.clone(), Some(PathBuf::from(source)))),
        }
    }
}

/// Put the game a file opens on in the world in place of the current one (the Open window).
pub(crate) fn open_in_world(world: &mut World, opening: Opening) {
    let (game, source, save_path) = match opening.into_game() {
        Ok(opened) => opened,
        Err(e) => {
            // `read` opened it already: only a file changed since gets here. Nothing changes.
            if let Some(mut s) = world.get_resource_mut::<Session>() {
                s.status = Some((e, true));
            }
            return;
        }
    };
    world.insert_resource(Battlefield { scenario: game.scenario().clone(), source });
    match world.get_resource_mut::<Session>() {
        Some(mut s) => {
            s.replace(game);
            s.last_report = s.game.reports().last().cloned();
            s.save_path = save_path;
            s.mark_saved();
        }
        None => {
            let mut s = Session::new(game);
            s.save_path = save_path;
            s.mark_saved();
            world.insert_resource(s);
        }
    }
    sync_world(world);
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<Order>()
        .add_message::<SessionCommand>()
        .add_message::<Applied>()
        .add_message::<Refused>()
        .add_systems(PreStartup, open)
        .add_systems(Update, (take_orders, take_commands, sync_world).chain())
        .add_systems(EguiPrimaryContextPass, resume_window.in_set(UiSet::Windows));
}

/// Start the session from the `Opening` (or the `Battlefield` alone) before anything is drawn.
pub(super) fn open(world: &mut World) {
    let opening = world.remove_resource::<Opening>().or_else(|| {
        let b = world.get_resource::<Battlefield>()?;
        Some(Opening::Scenario { scenario: Box::new(b.scenario.clone()), source: b.source.clone() })
    });
    let Some(opening) = opening else { return };
    let shooting = world.get_resource::<super::RunOptions>().is_some_and(|o| o.screenshot.is_some());
    let (game, source, save_path) = match opening.into_game() {
        Ok(opened) => opened,
        Err(e) => {
            error!("{e}");
            return;
        }
    };
    let mut session = Session::new(game);
    session.save_path = save_path;
    session.mark_saved();
    session.last_report = session.game.reports().last().cloned();
    // Screenshots and tests leave the player's autosave alone unless told where to write.
    session.autosave = if shooting && std::env::var_os("OTP_AUTOSAVE").is_none() { None } else { autosave_path() };
    if let Some(path) = session.autosave.clone()
        && let Some(description) = resumable(&path)
        && session.game.action_count() == 0
    {
        session.resume_offer = Some((path, description));
    }
    world.insert_resource(Battlefield { scenario: session.game.scenario().clone(), source });
    world.insert_resource(session);
    sync_world(world);
}

/// The autosaved game at `path`, described, if it has any actions.
fn resumable(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let game = registry::load_save(&text, &path.display().to_string()).ok()?;
    (game.action_count() > 0).then(|| format!("{}, {} actions taken", game.scenario().name, game.action_count()))
}

fn take_orders(mut orders: MessageReader<Order>, mut session: ResMut<Session>, mut applied: MessageWriter<Applied>, mut refused: MessageWriter<Refused>) {
    for Order(action) in orders.read() {
        if session.replay_at().is_some() {
            session.status = Some((format!("{action}: this is a replay; play on from here (the replay bar) to take over"), true));
            continue;
        }
        if session.in_what_if() {
            session.status = Some((format!("{action}: this is what-if, not the game; put everything back to play on"), true));
            continue;
        }
        match session.apply(action.clone()) {
            Ok(report) => {
                applied.write(Applied(report));
            }
            Err(refusal) => {
                refused.write(Refused { action: action.clone(), refusal });
            }
        }
    }
}

fn take_commands(
    mut commands: MessageReader<SessionCommand>,
    mut session: ResMut<Session>,
    mut battlefield: ResMut<Battlefield>,
    mut view: ResMut<View>,
    mut settings: Option<ResMut<Settings>>,
    mut applied: MessageWriter<Applied>,
) {
    for command in commands.read() {
        match command {
            SessionCommand::Watch => session.watch(0),
            SessionCommand::ReplayTo(at) => {
                if let Some(report) = session.replay_to(*at) {
                    applied.write(Applied(report));
                }
            }
            SessionCommand::PlayOn => session.play_on(),
            SessionCommand::StopWatching | SessionCommand::EndWhatIf => session.stop_watching(),
            SessionCommand::WhatIf => session.what_if(),
            SessionCommand::Place { unit, stands } => {
                if !session.place(unit, stands) {
                    session.status = Some((format!("{unit} cannot be placed there"), true));
                }
            }
            SessionCommand::Undo if session.replay_at().is_some() => session.status = Some(("a replay: step back with the replay bar; undo is for the game played".into(), true)),
            SessionCommand::Undo if session.in_what_if() => session.status = Some(("what if: put everything back first; undo is for the game played".into(), true)),
            SessionCommand::Undo => {
                if session.undo().is_none() {
                    session.status = Some(("nothing to take back".into(), true));
                }
            }
            SessionCommand::Save(path) => {
                if session.save_to(path)
                    && let Some(s) = settings.as_mut()
                {
                    s.remember(path);
                }
            }
            SessionCommand::Load(_) | SessionCommand::Resume => {
                let path = match command {
                    SessionCommand::Load(p) => p.clone(),
                    _ => match session.resume_offer.take() {
                        Some((p, _)) => p,
                        None => continue,
                    },
                };
                let loaded = crate::scenario::read_text(&path, engine::MAX_SAVE_BYTES).map_err(|e| e.to_string()).and_then(|text| registry::load_save(&text, &path.display().to_string()));
                match loaded {
                    Ok(game) => {
                        let new_table = game.scenario() != &battlefield.scenario;
                        session.replace(game);
                        session.last_report = session.game.reports().last().cloned();
                        session.save_path = Some(path.clone());
                        session.mark_saved();
                        session.status = Some((format!("loaded {} ({} actions)", path.display(), session.game.action_count()), false));
                        if let (Some(s), SessionCommand::Load(_)) = (settings.as_mut(), command) {
                            s.remember(&path);
                        }
                        if new_table {
                            *battlefield = Battlefield { scenario: session.game.scenario().clone(), source: path.display().to_string() };
                            view.fit_pending = true;
                        }
                    }
                    Err(e) => session.status = Some((e, true)),
                }
            }
            SessionCommand::Restart => {
                match registry::open(session.game.rules(), session.game.scenario().clone(), new_seed()) {
                    Ok(game) => session.replace(game),
                    Err(e) => {
                        session.status = Some((e, true));
                        continue;
                    }
                }
                session.status = Some(("a new game of the same scenario".into(), false));
            }
        }
    }
}

/// Mirror the game's world into the app's after a change, keeping app entities stable across
/// actions (selection and drags hold them) and rebuilding them after a new game.
pub(crate) fn sync_world(world: &mut World) {
    let Some(revision) = world.get_resource::<Session>().map(|s| s.revision) else { return };
    let mut last = world.get_resource_or_insert_with(|| Mirrored(u64::MAX));
    if last.0 == revision {
        return;
    }
    last.0 = revision;
    let selected = world.get_resource::<Selection>().and_then(|s| s.unit).and_then(|e| world.get::<Unit>(e)).map(|u| u.name.clone());
    world.resource_scope(|world, mut session: Mut<Session>| {
        if session.reset {
            session.reset = false;
            session.mirror.clear();
            let battlefield = world.get_resource::<Battlefield>().cloned();
            despawn_scenario(world);
            if let Some(b) = battlefield {
                world.insert_resource(b);
            }
        }
        let Session { game, mirror, .. } = &mut *session;
        mirror_world(game.world(), world, mirror);
    });
    // Keep the selection on the same unit by name (its entity changes when the game is rebuilt).
    let reselect = selected.and_then(|name| world.query::<(Entity, &Unit)>().iter(world).find(|(_, u)| u.name == name).map(|(e, _)| e));
    if let Some(mut s) = world.get_resource_mut::<Selection>() {
        s.unit = reselect;
        s.hovered = None;
    }
}

#[derive(Resource)]
struct Mirrored(u64);

/// Copy every side, brigade, commander, unit, stand (with footprints and morale markers) and
/// supply wagon of `game` into `app`, entity references translated; app entities whose game
/// entity has gone are despawned.
fn mirror_world(game: &World, app: &mut World, map: &mut HashMap<Entity, Entity>) {
    let mut live: Vec<Entity> = Vec::new();
    for e in game.iter_entities() {
        let e = e.id();
        if game.get::<SideInfo>(e).is_some() || game.get::<Brigade>(e).is_some() || game.get::<Commander>(e).is_some() || game.get::<Unit>(e).is_some() || game.get::<Stand>(e).is_some() || game.get::<SupplyWagon>(e).is_some() {
            live.push(e);
        }
    }
    for &g in &live {
        map.entry(g).or_insert_with(|| app.spawn_empty().id());
    }
    let to = |e: Entity| map.get(&e).copied().unwrap_or(Entity::PLACEHOLDER);
    for &g in &live {
        let mut a = app.entity_mut(to(g));
        if let Some(s) = game.get::<SideInfo>(g) {
            a.insert(s.clone());
        }
        if let Some(b) = game.get::<Brigade>(g) {
            a.insert(Brigade { commander: to(b.commander), ..b.clone() });
        }
        if let Some(c) = game.get::<Commander>(g) {
            a.insert(Commander { brigade: c.brigade.map(to), ..c.clone() });
        }
        if let Some(u) = game.get::<Unit>(g) {
            a.insert(Unit { brigade: to(u.brigade), attached_to: u.attached_to.map(to), stands: u.stands.iter().map(|&s| to(s)).collect(), ..u.clone() });
            if game.get::<MoraleMarker>(g).is_some() {
                a.insert(MoraleMarker);
            } else {
                a.remove::<MoraleMarker>();
            }
        }
        if let Some(s) = game.get::<Stand>(g) {
            a.insert(Stand { unit: to(s.unit), ..*s });
        }
        if let Some(f) = game.get::<Footprint>(g) {
            a.insert(*f);
        }
        if let Some(w) = game.get::<SupplyWagon>(g) {
            a.insert(w.clone());
        }
    }
    let gone: Vec<Entity> = map.keys().copied().filter(|g| !live.contains(g)).collect();
    for g in gone {
        if let Some(a) = map.remove(&g) {
            app.despawn(a);
        }
    }
}

/// At start, when the last game was left unfinished: resume it or begin afresh.
fn resume_window(mut contexts: EguiContexts, mut session: ResMut<Session>, mut commands: MessageWriter<SessionCommand>) -> Result {
    let Some((path, description)) = session.resume_offer.clone() else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    let mut choice = None;
    egui::Window::new("Resume the last game?").collapsible(false).resizable(false).anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO).show(ctx, |ui| {
        ui.label(format!("An unfinished game was autosaved: {description}."));
        ui.label(egui::RichText::new(path.display().to_string()).weak().small());
        ui.horizontal(|ui| {
            if ui.button("Resume").clicked() {
                choice = Some(true);
            }
            if ui.button("Start afresh").clicked() {
                choice = Some(false);
            }
        });
    });
    match choice {
        Some(true) => {
            commands.write(SessionCommand::Resume);
        }
        Some(false) => session.resume_offer = None,
        None => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved game read back through the interface.
    fn load(path: &Path) -> Box<dyn Engine> {
        registry::load_save(&std::fs::read_to_string(path).expect("written"), "test").expect("the save replays")
    }

    /// A headless app with just the session: the same message path the window's mouse uses.
    fn app(opening: Opening) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<Selection>()
            .insert_resource(View { centre: Vec2::ZERO, ppi: 10.0, rect: egui::Rect::NOTHING, fit_pending: false, preset: None })
            .insert_resource(opening)
            .add_message::<Order>()
            .add_message::<SessionCommand>()
            .add_message::<Applied>()
            .add_message::<Refused>()
            .add_systems(PreStartup, open)
            .add_systems(Update, (take_orders, take_commands, sync_world).chain());
        app.update();
        app
    }

    fn teaching() -> App {
        // SAFETY of the test: no autosave is written (OTP_AUTOSAVE unset would write to $HOME).
        let mut a = app(Opening::Scenario { scenario: Box::new(crate::scenario::default_scenario()), source: "teaching".into() });
        a.world_mut().resource_mut::<Session>().autosave = None;
        a
    }

    fn send(app: &mut App, action: Action) {
        app.world_mut().write_message(Order(action));
        app.update();
    }

    fn units(app: &mut App) -> Vec<(String, u32, bool)> {
        let w = app.world_mut();
        let mut v: Vec<(String, u32, bool)> = w.query::<(&Unit, Has<MoraleMarker>)>().iter(w).map(|(u, m)| (u.name.clone(), u.figures, m)).collect();
        v.sort();
        v
    }

    fn stands_of(app: &mut App, name: &str) -> Vec<Footprint> {
        let w = app.world_mut();
        let unit = w.query::<&Unit>().iter(w).find(|u| u.name == name).cloned().expect("unit");
        unit.stands.iter().map(|&s| *w.get::<Footprint>(s).expect("a stand has a footprint")).collect()
    }

    #[test]
    fn the_mirror_is_the_game() {
        let mut app = teaching();
        let game_units: Vec<(String, u32, bool)> = {
            let s = app.world().resource::<Session>();
            let world = s.game.world();
            let mut v: Vec<_> = world.try_query::<(Entity, &Unit)>().unwrap().iter(world).map(|(e, u)| (u.name.clone(), u.figures, !s.game.badges(e).is_empty())).collect();
            v.sort();
            v
        };
        assert!(!game_units.is_empty());
        assert_eq!(units(&mut app), game_units);
    }

    #[test]
    fn orders_apply_refusals_change_nothing_and_undo_takes_back() {
        let mut app = teaching();
        // OTP 4.2: nothing moves before the game has started.
        send(&mut app, Action::Move { unit: "23rd Foot".into(), steps: vec![crate::table::movement::MoveStep::Forward(1.0)] });
        assert_eq!(app.world().resource::<Session>().last_refusal.as_ref().map(|(_, r)| r.rule.as_str()), Some("4.2"));
        assert_eq!(app.world().resource::<Session>().game.action_count(), 0);
        send(&mut app, Action::Next);
        send(&mut app, Action::Next);
        let (phasing, n) = {
            let s = app.world().resource::<Session>();
            (s.game.sequence().acting, s.game.action_count())
        };
        assert!(!phasing.is_empty(), "a chit drawn names its brigade");
        assert_eq!(n, 2);
        // Move a unit of the phasing brigade straight forward 2": the mirror moves with it.
        let unit = {
            let s = app.world().resource::<Session>();
            let world = s.game.world();
            phasing.iter().filter_map(|&e| world.get::<Unit>(e)).find(|u| !matches!(u.arm, crate::scenario::model::Arm::Artillery { .. })).map(|u| u.name.clone())
        };
        let Some(unit) = unit else { return };
        let before = stands_of(&mut app, &unit);
        send(&mut app, Action::Move { unit: unit.clone(), steps: vec![crate::table::movement::MoveStep::Forward(2.0)] });
        let moved = app.world().resource::<Session>().last_refusal.is_none();
        if moved {
            let after = stands_of(&mut app, &unit);
            assert!((after[0].centre - before[0].centre).length() > 1.9, "the mirror shows the move");
            app.world_mut().write_message(SessionCommand::Undo);
            app.update();
            assert_eq!(stands_of(&mut app, &unit), before, "undo puts the stands back");
            assert_eq!(app.world().resource::<Session>().game.action_count(), 2);
        }
    }

    #[test]
    fn save_and_load_round_trip_and_a_bad_file_changes_nothing() {
        let mut app = teaching();
        send(&mut app, Action::Next);
        send(&mut app, Action::Next);
        let dir = std::env::temp_dir().join(format!("otp-session-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.ron");
        app.world_mut().write_message(SessionCommand::Save(path.clone()));
        app.update();
        let snapshot = app.world().resource::<Session>().game.snapshot();
        send(&mut app, Action::Next);
        assert_ne!(app.world().resource::<Session>().game.snapshot(), snapshot);
        app.world_mut().write_message(SessionCommand::Load(path.clone()));
        app.update();
        assert_eq!(app.world().resource::<Session>().game.snapshot(), snapshot, "loading replays the saved actions");
        // A broken save: the game stays as it was and the status says why, with the file named.
        let bad = dir.join("bad.ron");
        std::fs::write(&bad, "(scenario: oops").unwrap();
        app.world_mut().write_message(SessionCommand::Load(bad.clone()));
        app.update();
        let s = app.world().resource::<Session>();
        assert_eq!(s.game.snapshot(), snapshot);
        let (text, error) = s.status.clone().expect("a status line");
        assert!(error && text.contains("bad.ron"), "{text}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn autosave_after_every_action_is_offered_for_resuming() {
        let dir = std::env::temp_dir().join(format!("otp-autosave-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("autosave.ron");
        let mut app = teaching();
        app.world_mut().resource_mut::<Session>().autosave = Some(path.clone());
        send(&mut app, Action::Next);
        send(&mut app, Action::Next);
        let saved = load(&path);
        assert_eq!(saved.action_count(), 2, "written after each action");
        assert_eq!(saved.snapshot(), app.world().resource::<Session>().game.snapshot());
        assert!(resumable(&path).is_some_and(|d| d.contains("2 actions")));
        std::fs::remove_dir_all(&dir).ok();
    }

    // Issue 13, defect 2: on a fresh machine the data folder does not exist yet; the first
    // autosave creates it.
    #[test]
    fn the_first_autosave_creates_the_data_folder() {
        let dir = std::env::temp_dir().join(format!("otp-fresh-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("share/otp/autosave.ron");
        let mut app = teaching();
        app.world_mut().resource_mut::<Session>().autosave = Some(path.clone());
        send(&mut app, Action::Next);
        let s = app.world().resource::<Session>();
        assert!(s.status.is_none(), "no error: {:?}", s.status);
        assert_eq!(load(&path).action_count(), 1);
        std::fs::remove_dir_all(&dir).ok();
    }

    // Issue 13, defect 2: a folder that cannot be written is told once, with its path, and
    // the game goes on.
    #[test]
    fn an_unwritable_autosave_is_told_once_and_play_goes_on() {
        let dir = std::env::temp_dir().join(format!("otp-unwritable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A file where the folder should be: no one, root included, can make a folder there.
        let blocker = dir.join("otp");
        std::fs::write(&blocker, "not a folder").unwrap();
        let path = blocker.join("autosave.ron");
        let mut app = teaching();
        app.world_mut().resource_mut::<Session>().autosave = Some(path.clone());
        send(&mut app, Action::Next);
        let (text, error) = app.world().resource::<Session>().status.clone().expect("told");
        assert!(error && text.contains(&path.display().to_string()), "{text}");
        app.world_mut().resource_mut::<Session>().status = None;
        send(&mut app, Action::Next);
        let s = app.world().resource::<Session>();
        assert!(s.status.is_none(), "told once: {:?}", s.status);
        assert_eq!(s.game.action_count(), 2, "play goes on");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A session on two automatic turns of the teaching battle, played out.
    fn played() -> App {
        let scenario = crate::rules::simulate::with_turns(&crate::scenario::default_scenario(), Some(2));
        let mut game = registry::open(scenario.rules, scenario, 7).expect("opens");
        crate::rules::simulate::play_out(game.as_mut(), None);
        let path = std::env::temp_dir().join(format!("otp-replay-{}-{:?}.ron", std::process::id(), std::thread::current().id()));
        std::fs::write(&path, game.save_text()).unwrap();
        let opening = Opening::read(&path).expect("the save reads");
        std::fs::remove_file(&path).ok();
        let mut a = app(opening);
        a.world_mut().resource_mut::<Session>().autosave = None;
        a
    }

    fn command(app: &mut App, c: SessionCommand) {
        app.world_mut().write_message(c);
        app.update();
    }

    // Issue 22: replay stepping back and forth reproduces the game's state at each action, as a
    // fresh replay to that action has it.
    #[test]
    fn a_replay_steps_back_and_forth_through_the_very_game() {
        let mut app = played();
        let whole = app.world().resource::<Session>().game.save_text();
        let fresh = registry::load_save(&whole, "fresh").expect("replays");
        let total = fresh.action_count();
        assert!(total > 20, "two turns of play have many actions ({total})");
        command(&mut app, SessionCommand::Watch);
        assert_eq!(app.world().resource::<Session>().replay_at(), Some((0, total)));
        let at = |app: &App| app.world().resource::<Session>().game.snapshot();
        // Forward one action at a time: each step is the game's next action, its report the one kept.
        for k in 1..=total {
            command(&mut app, SessionCommand::ReplayTo(k));
            assert_eq!(at(&app), fresh.replayed(k).snapshot(), "forward to {k}");
            let s = app.world().resource::<Session>();
            assert_eq!(s.last_report.as_ref().map(|r| &r.title), fresh.reports().get(k - 1).map(|r| &r.title));
        }
        // Back one at a time, and jumps either way.
        for k in (total.saturating_sub(6)..total).rev() {
            command(&mut app, SessionCommand::ReplayTo(k));
            assert_eq!(at(&app), fresh.replayed(k).snapshot(), "back to {k}");
        }
        for k in [3, total / 2, 1, total] {
            command(&mut app, SessionCommand::ReplayTo(k));
            assert_eq!(at(&app), fresh.replayed(k).snapshot(), "jump to {k}");
        }
        // The mirror the table draws follows: the units' strengths are the game's at that action.
        command(&mut app, SessionCommand::ReplayTo(total / 2));
        let game_units: Vec<(String, u32)> = {
            let s = app.world().resource::<Session>();
            let w = s.game.world();
            let mut v: Vec<_> = w.try_query::<&Unit>().unwrap().iter(w).map(|u| (u.name.clone(), u.figures)).collect();
            v.sort();
            v
        };
        let shown: Vec<(String, u32)> = units(&mut app).into_iter().map(|(n, f, _)| (n, f)).collect();
        assert_eq!(shown, game_units);
    }

    // Issue 22: nothing is changed in a replay until "play on from here"; leaving it gives back
    // the whole game; playing on drops the later actions and leaves the saved file alone.
    #[test]
    fn a_replay_changes_nothing_until_played_on() {
        let mut app = played();
        let whole = app.world().resource::<Session>().game.snapshot();
        let total = app.world().resource::<Session>().game.action_count();
        assert!(!app.world().resource::<Session>().unsaved(), "a loaded save is saved");
        command(&mut app, SessionCommand::Watch);
        command(&mut app, SessionCommand::ReplayTo(5));
        // Orders and undo are turned away, with a word why.
        send(&mut app, Action::Next);
        command(&mut app, SessionCommand::Undo);
        let s = app.world().resource::<Session>();
        assert_eq!(s.replay_at(), Some((5, total)));
        assert!(s.status.as_ref().is_some_and(|(t, e)| *e && t.contains("replay")), "{:?}", s.status);
        assert!(!s.unsaved(), "watching is not a change");
        // Saving in a replay saves the whole game, not the part shown.
        let dir = std::env::temp_dir().join(format!("otp-replay-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        command(&mut app, SessionCommand::Save(dir.join("whole.ron")));
        assert_eq!(load(&dir.join("whole.ron")).snapshot(), whole);
        // Close: the whole game again.
        command(&mut app, SessionCommand::StopWatching);
        let s = app.world().resource::<Session>();
        assert_eq!((s.replay_at(), s.game.snapshot()), (None, whole.clone()));
        assert!(!s.unsaved());
        // Play on from action 5: the game is those 5 actions, and goes on from there.
        command(&mut app, SessionCommand::Watch);
        command(&mut app, SessionCommand::ReplayTo(5));
        command(&mut app, SessionCommand::PlayOn);
        let s = app.world().resource::<Session>();
        assert_eq!((s.replay_at(), s.game.action_count(), s.save_path.clone()), (None, 5, None), "the next save asks where");
        assert!(s.unsaved(), "a new line of play, not yet saved");
        send(&mut app, Action::Next);
        assert_eq!(app.world().resource::<Session>().game.action_count(), 6, "orders are taken again");
        assert_eq!(load(&dir.join("whole.ron")).snapshot(), whole, "the saved game is left as it was");
        std::fs::remove_dir_all(&dir).ok();
    }

    // Issue 22, drag the enemy: in what-if a unit of either side is placed anywhere, the engine
    // judging the table as it now stands; orders wait; leaving puts everything back.
    #[test]
    fn what_if_places_units_outside_the_rules_and_puts_everything_back() {
        let mut app = teaching();
        send(&mut app, Action::Next);
        let before = app.world().resource::<Session>().game.snapshot();
        // What On to Philadelphia makes of the shot, the units where they stand (Compare's column).
        let range_of = |app: &App| -> String {
            let s = app.world().resource::<Session>();
            let judged = registry::judge_as_it_stands(s.engine(), crate::rules::engine::PreviewCommand::Fire { ball: false }, "23rd Foot", "1st Maryland");
            judged.into_iter().find(|j| j.rules == crate::rules::cite::RuleSetId::Otp).map_or_else(String::new, |j| match j.printed {
                Ok(p) => format!("{}{}", p.stdout, p.stderr),
                Err(why) => why,
            })
        };
        let far = range_of(&app);
        command(&mut app, SessionCommand::WhatIf);
        assert!(app.world().resource::<Session>().in_what_if());
        // The enemy carried to 4" in front of the 23rd Foot.
        let (ours, theirs) = (stands_of(&mut app, "23rd Foot"), stands_of(&mut app, "1st Maryland"));
        let ahead = ours[0].forward();
        let front = ours.iter().map(|f| f.front_centre()).sum::<Vec2>() / ours.len() as f32;
        let middle = theirs.iter().map(|f| f.centre).sum::<Vec2>() / theirs.len() as f32;
        let shift = front + ahead * 4.0 - middle;
        let carried = |stands: &[Footprint]| -> Vec<Footprint> { stands.iter().map(|f| Footprint { centre: f.centre + shift, ..*f }).collect() };
        let placed = carried(&theirs);
        // Its attached gun goes with it (OTP 7.5), as the window's drag carries it.
        let gun = {
            let w = app.world_mut();
            let maryland = w.query::<(Entity, &Unit)>().iter(w).find(|(_, u)| u.name == "1st Maryland").map(|(e, _)| e);
            w.query::<&Unit>().iter(w).find(|u| u.attached_to.is_some() && u.attached_to == maryland).map(|u| u.name.clone())
        };
        command(&mut app, SessionCommand::Place { unit: "1st Maryland".into(), stands: placed.clone() });
        if let Some(gun) = &gun {
            let at = carried(&stands_of(&mut app, gun));
            command(&mut app, SessionCommand::Place { unit: gun.clone(), stands: at });
        }
        assert_eq!(stands_of(&mut app, "1st Maryland"), placed, "the table shows it where it was put");
        let near = range_of(&app);
        assert!(far.contains("out of range") && !near.contains("out of range") && near.contains("in range:       yes"), "judged from where the enemy now stands:\n{far}\n{near}");
        // No order is taken, nothing is added to the game.
        send(&mut app, Action::Next);
        assert_eq!(app.world().resource::<Session>().game.action_count(), 1);
        assert!(!app.world_mut().resource_mut::<Session>().place("no such unit", &placed));
        command(&mut app, SessionCommand::EndWhatIf);
        let s = app.world().resource::<Session>();
        assert!(!s.in_what_if());
        assert_eq!(s.game.snapshot(), before, "everything back as it was");
        assert_eq!(stands_of(&mut app, "1st Maryland"), theirs);
    }

    #[test]
    fn unsaved_actions_are_known_until_saved() {
        let dir = std::env::temp_dir().join(format!("otp-unsaved-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut app = teaching();
        assert!(!app.world().resource::<Session>().unsaved(), "nothing done yet");
        send(&mut app, Action::Next);
        assert!(app.world().resource::<Session>().unsaved());
        app.world_mut().write_message(SessionCommand::Save(dir.join("g.ron")));
        app.update();
        assert!(!app.world().resource::<Session>().unsaved());
        send(&mut app, Action::Next);
        assert!(app.world().resource::<Session>().unsaved());
        std::fs::remove_dir_all(&dir).ok();
    }
}
