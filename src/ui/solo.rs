//! Solo play: each side is played "by hand" or by the rule set's automatic player
//! ([`Engine::automatic`]), which sends its
//! choices as [`Order`]s one at a time, at a pace a person can follow, through the same path as
//! the mouse (so the log, the dice overlay and undo see nothing special).
//!
//! Whose business each step is, as the sequence says ([`SequenceView::deciding`]): a side's
//! decisions are its player's; in a step nobody decides, starting the game and going on waits
//! for a person unless every side is automatic, except where going on is mechanical
//! ([`Engine::next_is_mechanical`]: drawing a chit), which any automatic side does; and the
//! units' choices of such a step (rebuilds) are each unit's side's. Everything else waits for a
//! person.
//!
//! The window normally redraws only on input (`WinitSettings::desktop_app`): while an automatic
//! step is due this asks for a redraw every frame so play goes on without the mouse moving.
//!
//! The strong player thinks aside ([`Thinking`]): on a copy of the game, on a worker thread, so
//! the window answers the mouse while it rehearses its plans (up to half a second a decision on
//! a big battle on two cores); its answer is taken only if the game and the settings are still
//! as they were when it was asked. The others decide in a few milliseconds, in the frame (a copy
//! would cost more than their thinking); so does the strong player at pace 0 (tests,
//! screenshots: so many frames, so many actions) and in what-if (stands placed by hand, which a
//! copy replayed from the actions would not have).
//!
//! Presets, read at start:
//! - `OTP_AUTO="both"` (or `all`, a side's name, or several names separated by commas): those
//!   sides are automatic.
//! - `OTP_PACE="0.5"`: seconds between automatic actions (0.2–3; 0 in tests).
//! - `OTP_LEVEL="strong"` (or one a side, `standard:novice`): the automatic players' levels.
//!
//! Each side's automatic player has a level the rule set offers ([`registry::levels`]: novice,
//! standard, strong); the panel picks it, and shows the reasons the player gives for its last
//! actions.

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use bevy::window::RequestRedraw;
use bevy_egui::egui;
use egui::RichText;

use super::log::GameLog;
use super::overlays::planned::AutomaticWays;
use super::session::{Order, Refused, Session};
use crate::rules::action::Action;
use crate::rules::automatic::{Decision, Level, Player};
use crate::rules::engine::{Engine, SequenceView, TrackState};
use crate::rules::registry;
use crate::scenario::spawn::Unit;

/// The pace a person can follow, seconds between automatic actions.
pub(crate) const DEFAULT_PACE: f32 = 0.8;
/// The quickest and slowest pace the controls offer, seconds.
pub(crate) const PACES: (f32, f32) = (0.2, 3.0);

/// The level an automatic side plays at unless chosen: the opponent worth playing.
pub(crate) const DEFAULT_LEVEL: Level = Level::Standard;
/// How many of the automatic player's latest reasons the panel shows.
const REASONS_SHOWN: usize = 6;

/// Who plays each side, and how fast the automatic player goes.
#[derive(Resource, Clone, Debug)]
pub(crate) struct SoloSettings {
    /// Per side, in the scenario's order: played by the automatic player.
    pub automatic: Vec<bool>,
    /// Per side: the automatic player's level.
    pub levels: Vec<Level>,
    /// Seconds between automatic actions.
    pub pace: f32,
    pub paused: bool,
    /// Take one action now, paused or not, then stay paused (watching the automatic player).
    pub step: bool,
    /// Play the rest of this step (see [`step_key`]) without waiting.
    pub skip: Option<StepKey>,
}

impl Default for SoloSettings {
    fn default() -> Self {
        SoloSettings { automatic: Vec::new(), levels: Vec::new(), pace: DEFAULT_PACE, paused: false, step: false, skip: None }
    }
}

impl SoloSettings {
    /// One action of the automatic player, then a pause.
    pub fn step(&mut self) {
        self.paused = true;
        self.step = true;
    }

    /// The level side `side`'s automatic player plays at (the standard where the rule set offers it).
    pub fn level(&self, side: usize) -> Level {
        self.levels.get(side).copied().unwrap_or(DEFAULT_LEVEL)
    }

    fn auto(&self, side: usize) -> bool {
        self.automatic.get(side).copied().unwrap_or(false)
    }
    fn all(&self) -> bool {
        !self.automatic.is_empty() && self.automatic.iter().all(|&a| a)
    }
    fn any(&self) -> bool {
        self.automatic.iter().any(|&a| a)
    }
}

/// The automatic player's own state: the player, the order it is waiting on, the clock.
#[derive(Resource, Default)]
pub(crate) struct SoloState {
    /// Each side's automatic player and its level, made when first needed.
    players: Vec<Option<(Level, Box<dyn Player>)>>,
    /// The automatic players' latest reasons, newest last ("British: 7th Foot fires at …").
    pub reasons: Vec<String>,
    /// The order sent and the session revision when it was sent: no next order until the
    /// game has taken it (or refused it).
    awaiting: Option<(Order, u64)>,
    /// Seconds since the last automatic action.
    since: f32,
    /// Refusals in a row: after two the player pauses rather than loop.
    refused_in_a_row: u32,
    /// Orders sent so far (tests, the panel).
    pub sent: usize,
    /// Why the automatic player paused itself.
    pub trouble: Option<String>,
    /// Nothing was the automatic player's business at this revision with these settings: no
    /// need to ask again (or to redraw) until something changes.
    idle: Option<(u64, Vec<bool>)>,
    /// The session revision last seen: any change (a player's too) restarts the clock, so the
    /// automatic player's answer to a click comes at the pace, not at once.
    seen_revision: u64,
    /// The automatic player thinking aside, if it is.
    thinking: Option<Thinking>,
}

/// A decision being taken on a worker thread: the player (lent to it, returned with its answer)
/// deciding on a copy of the game, and what the game and settings were when it was asked.
struct Thinking {
    task: Task<(Box<dyn Player>, Option<Decision>)>,
    side: usize,
    level: Level,
    revision: u64,
    automatic: Vec<bool>,
}

impl SoloState {
    /// The automatic player has nothing to do until the game or the settings change.
    pub(crate) fn idle(&self, revision: u64, settings: &SoloSettings) -> bool {
        self.idle.as_ref().is_some_and(|(r, a)| *r == revision && *a == settings.automatic)
    }

    /// The automatic player is thinking aside.
    pub(crate) fn thinking(&self) -> bool {
        self.thinking.is_some()
    }

    /// The decision of side `side`'s player at `level` on the game as it stands at `revision`:
    /// `None` while it is still thinking aside (see the module docs); `aside`: it may.
    fn decision(&mut self, engine: &dyn Engine, settings: &SoloSettings, side: usize, level: Level, revision: u64, aside: bool) -> Option<Option<Decision>> {
        if let Some(t) = self.thinking.as_mut() {
            let current = t.side == side && t.level == level && t.revision == revision && t.automatic == settings.automatic;
            if !current {
                // Asked about another game (an undo, a click, a change of level): its answer is
                // not wanted, nor the player lent to it (a new one is made).
                self.thinking = None;
            } else {
                let (player, decision) = check_ready(&mut t.task)?;
                self.thinking = None;
                self.players[side] = Some((level, player));
                return Some(decision);
            }
        }
        let slot = &mut self.players[side];
        if slot.as_ref().is_none_or(|(l, _)| *l != level) {
            *slot = Some((level, registry::player(engine, level)));
        }
        if !aside {
            return Some(automatic_action(engine, settings, slot.as_mut().expect("made above").1.as_mut()));
        }
        let (_, mut player) = slot.take().expect("made above");
        let mut copy = engine.replayed(engine.action_count());
        copy.seat(by_hand(settings));
        let asked = settings.clone();
        let task = AsyncComputeTaskPool::get_or_init(Default::default).spawn(async move {
            let decision = automatic_action(&*copy, &asked, player.as_mut());
            (player, decision)
        });
        self.thinking = Some(Thinking { task, side, level, revision, automatic: settings.automatic.clone() });
        None
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SoloSettings>().init_resource::<SoloState>().add_message::<RequestRedraw>().add_systems(PostStartup, presets).add_systems(Update, (seat, drive).chain());
}

/// The sides played at the window: with any side automatic, those played by hand (solo play);
/// with none, `None` (hot-seat: the sides take turns at the table).
pub(crate) fn by_hand(settings: &SoloSettings) -> Option<Vec<usize>> {
    settings.any().then(|| (0..settings.automatic.len()).filter(|&s| !settings.auto(s)).collect())
}

/// Tells the engine who sits at the window ([`Engine::seat`]), so a rule set with hidden orders
/// keeps the automatic side's out of the badges, sheet and plan. Every frame, so a new game, a
/// load or an undo is told too; it changes only what the views show, so it flags no change.
fn seat(session: Option<ResMut<Session>>, settings: Res<SoloSettings>) {
    let Some(mut session) = session else { return };
    session.bypass_change_detection().game.seat(by_hand(&settings));
}

/// A step of the sequence: the turn, the step and the item of the track being worked through
/// (OTP's phasing chit). Skip plays to the end of one.
pub(crate) type StepKey = (u32, Option<usize>, Option<usize>);

pub(crate) fn step_key(seq: &SequenceView) -> StepKey {
    (seq.turn, seq.current, seq.track.iter().position(|t| t.state == TrackState::Current))
}

/// Is an automatic step due now (by the sequence alone: cheap, for redraws and the panel)?
pub(crate) fn automatic_turn(engine: &dyn Engine, settings: &SoloSettings) -> bool {
    let seq = engine.sequence();
    match seq.deciding {
        _ if seq.over => false,
        Some(side) => settings.auto(side),
        None if !seq.started => settings.all(),
        None => settings.any(),
    }
}

/// The automatic player's next action, when the step is its business (see the module docs).
pub(crate) fn automatic_action(engine: &dyn Engine, settings: &SoloSettings, player: &mut dyn Player) -> Option<Decision> {
    let plain = |action: Action| Decision { action, reason: None, way: None };
    let seq = engine.sequence();
    match seq.deciding {
        _ if seq.over => None,
        Some(side) => settings.auto(side).then(|| player.decide(engine)).flatten(),
        None if !seq.started => settings.all().then(|| plain(Action::Next)),
        None => {
            // A unit's choice (OTP 11.0: a rebuild) is its side's: every one the engine allows an
            // automatic side, then going on.
            let world = engine.world();
            let side_of = |name: &str| world.try_query::<&Unit>().and_then(|mut q| q.iter(world).find(|u| u.name == name).map(|u| u.side));
            let choices = engine.choices();
            let own = choices.iter().filter(|c| c.allowed()).find(|c| c.about.as_deref().and_then(side_of).is_some_and(|s| settings.auto(s)));
            match own {
                Some(c) => Some(plain(c.action.clone())),
                None => (settings.all() || (settings.any() && engine.next_is_mechanical())).then(|| plain(Action::Next)),
            }
        }
    }
}

fn drive(
    time: Res<Time>,
    session: Option<Res<Session>>,
    mut settings: ResMut<SoloSettings>,
    mut state: ResMut<SoloState>,
    mut refused: MessageReader<Refused>,
    mut orders: MessageWriter<Order>,
    mut redraw: MessageWriter<RequestRedraw>,
    log: Option<ResMut<GameLog>>,
    ways: Option<ResMut<AutomaticWays>>,
) {
    let Some(session) = session else { return };
    // A replay shows a game already played: nobody decides anything in it.
    if session.replay_at().is_some() {
        return;
    }
    let engine = session.engine();
    let sides = engine.scenario().sides.len();
    if settings.automatic.len() != sides {
        settings.automatic.resize(sides, false);
    }
    if settings.levels.len() != sides {
        settings.levels.resize(sides, DEFAULT_LEVEL);
    }
    state.since += time.delta_secs();
    if state.seen_revision != session.revision {
        state.seen_revision = session.revision;
        state.since = 0.0;
    }
    // The answer to the order sent: taken (the game changed) or refused.
    let refusal = refused.read().filter(|r| state.awaiting.as_ref().is_some_and(|(o, _)| o.0 == r.action)).last().map(|r| r.refusal.clone());
    if let Some(refusal) = refusal {
        state.awaiting = None;
        state.refused_in_a_row += 1;
        if state.refused_in_a_row >= 2 {
            settings.paused = true;
            state.trouble = Some(format!("the automatic player was refused twice ({refusal}): paused"));
            return;
        }
        // Give up the side's decisions (or, all automatic, the step) rather than loop.
        let seq = engine.sequence();
        let give_up = seq.deciding.is_some() || (seq.started && settings.all() && !engine.next_is_mechanical());
        if give_up {
            let order = Order(Action::Next);
            state.awaiting = Some((order.clone(), session.revision));
            orders.write(order);
            state.sent += 1;
        }
        return;
    }
    if state.awaiting.as_ref().is_some_and(|(_, rev)| *rev != session.revision) {
        state.awaiting = None;
        state.refused_in_a_row = 0;
        state.since = 0.0;
    }
    let seq = engine.sequence();
    if settings.skip.is_some_and(|k| k != step_key(&seq)) {
        settings.skip = None;
    }
    if !automatic_turn(engine, &settings) || state.idle(session.revision, &settings) {
        // Nothing of the automatic player's to step through.
        if settings.step {
            settings.step = false;
        }
        return;
    }
    if settings.paused && !settings.step {
        return;
    }
    redraw.write(RequestRedraw);
    if state.awaiting.is_some() || (settings.skip.is_none() && !settings.step && state.since < settings.pace) {
        return;
    }
    // The deciding side's player, of the level chosen for it (made anew when the level changes).
    let side = seq.deciding.unwrap_or(0);
    let level = settings.level(side);
    if state.players.len() < sides {
        state.players.resize_with(sides, || None);
    }
    let aside = level == Level::Strong && settings.pace > 0.0 && !session.in_what_if();
    let Some(decision) = state.decision(engine, &settings, side.min(sides.saturating_sub(1)), level, session.revision, aside) else { return };
    if settings.step {
        settings.step = false;
    }
    if let Some(why) = decision.as_ref().and_then(|d| d.reason.clone()) {
        // The game log shows it under the report the action makes (issue 19: reasons in the log).
        if let Some(mut log) = log {
            log.reason(engine.reports().len(), why.clone());
        }
        let who = engine.scenario().sides.get(side).map(|s| s.name.as_str()).unwrap_or("");
        state.reasons.push(format!("{who}: {why}"));
        let extra = state.reasons.len().saturating_sub(REASONS_SHOWN);
        state.reasons.drain(..extra);
    }
    // The way a unit means to go round the enemy's fire, drawn for the rest of the step.
    if let Some(mut ways) = ways {
        ways.note(&seq.headline, decision.as_ref().and_then(|d| d.way.clone()));
    }
    let Some(order) = decision.map(|d| Order(d.action)) else {
        state.idle = Some((session.revision, settings.automatic.clone()));
        return;
    };
    state.awaiting = Some((order.clone(), session.revision));
    state.since = 0.0;
    state.sent += 1;
    orders.write(order);
}

/// `OTP_AUTO` and `OTP_PACE`.
fn presets(session: Option<Res<Session>>, mut settings: ResMut<SoloSettings>) {
    let Some(session) = session else { return };
    let names: Vec<String> = session.engine().scenario().sides.iter().map(|s| s.name.clone()).collect();
    settings.automatic = vec![false; names.len()];
    if let Ok(text) = std::env::var("OTP_AUTO") {
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            if ["both", "all"].iter().any(|a| a.eq_ignore_ascii_case(word)) {
                settings.automatic.iter_mut().for_each(|a| *a = true);
            } else if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(word)) {
                settings.automatic[i] = true;
            } else {
                eprintln!("OTP_AUTO: no side named {word:?}; sides: {}", names.join(", "));
            }
        }
    }
    let offered = registry::levels(session.engine().rules());
    settings.levels = vec![if offered.contains(&DEFAULT_LEVEL) { DEFAULT_LEVEL } else { offered[0] }; names.len()];
    if let Ok(text) = std::env::var("OTP_LEVEL") {
        match registry::parse_bots(session.engine().rules(), &text, names.len()) {
            Ok(levels) => settings.levels = levels,
            Err(e) => eprintln!("OTP_LEVEL: {e}; ignored"),
        }
    }
    if let Ok(text) = std::env::var("OTP_PACE") {
        match text.trim().parse::<f32>() {
            Ok(p) if p.is_finite() && p >= 0.0 => settings.pace = p,
            _ => eprintln!("OTP_PACE={text:?}: expected seconds, e.g. 0.8; ignored"),
        }
    }
}

/// The solo-play controls, for the turn panel: who plays each side, the pace, pause and skip.
pub(crate) fn controls(ui: &mut egui::Ui, settings: &mut SoloSettings, state: &SoloState, session: &Session, colours: &[egui::Color32]) {
    let engine = session.engine();
    let levels = registry::levels(engine.rules());
    if settings.levels.len() < settings.automatic.len() {
        settings.levels.resize(settings.automatic.len(), DEFAULT_LEVEL);
    }
    for (i, side) in engine.scenario().sides.iter().enumerate() {
        if i >= settings.automatic.len() {
            break;
        }
        ui.horizontal(|ui| {
            let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
            ui.painter().rect_filled(r, 2.0, colours.get(i).copied().unwrap_or(egui::Color32::GRAY));
            ui.label(RichText::new(&side.name).strong());
        });
        // The choices on their own line under the side's name: a long name never runs under them.
        ui.horizontal(|ui| {
            ui.add_space(16.0);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if settings.automatic[i] && levels.len() > 1 {
                    let current = settings.level(i);
                    egui::ComboBox::from_id_salt(("solo level", i)).width(78.0).selected_text(current.key()).show_ui(ui, |ui| {
                        for &l in levels {
                            if ui.selectable_label(l == current, l.key()).on_hover_text(l.describe()).clicked() && i < settings.levels.len() {
                                settings.levels[i] = l;
                            }
                        }
                    }).response.on_hover_text(format!("The automatic player's level: {}", current.describe()));
                }
                let auto = &mut settings.automatic[i];
                ui.selectable_value(auto, true, "automatic").on_hover_text("The automatic player takes this side's decisions");
                ui.selectable_value(auto, false, "by hand");
            });
        });
    }
    if !settings.any() {
        return;
    }
    ui.horizontal(|ui| {
        ui.label(RichText::new("Pace").weak());
        ui.add(egui::Slider::new(&mut settings.pace, PACES.0..=PACES.1).suffix(" s").max_decimals(1)).on_hover_text("Seconds between automatic actions ([ slower, ] faster)");
    });
    // Fixed widths: the buttons stay where they are whatever their labels say.
    ui.horizontal(|ui| {
        let label = if settings.paused { "▶ Go on" } else { "⏸ Pause" };
        if ui.add_sized([86.0, 22.0], egui::Button::new(label).shortcut_text(RichText::new("P").weak())).on_hover_text("Pause or go on with the automatic player (P)").clicked() {
            settings.paused = !settings.paused;
        }
        let due = automatic_turn(engine, settings) && !state.idle(session.revision, settings);
        let busy = due && !settings.paused;
        if ui.add_enabled(due, egui::Button::new("Step").shortcut_text(RichText::new(".").weak())).on_hover_text("The automatic player takes one action, then waits (.)").clicked() {
            settings.step();
        }
        if ui.add_enabled(busy && settings.skip.is_none(), egui::Button::new("⏭ Skip")).on_hover_text("Play the rest of this activation at once").clicked() {
            settings.skip = Some(step_key(&engine.sequence()));
        }
    });
    ui.horizontal(|ui| {
        let busy = automatic_turn(engine, settings) && !settings.paused && !state.idle(session.revision, settings);
        let doing = if settings.paused {
            "paused"
        } else if busy && state.thinking() {
            "thinking…"
        } else if busy {
            "playing…"
        } else {
            "waiting for you"
        };
        ui.label(RichText::new(doing).weak().italics());
    });
    if let Some(t) = &state.trouble {
        ui.label(RichText::new(t).color(egui::Color32::from_rgb(240, 130, 110)).small());
    }
    if !state.reasons.is_empty() {
        ui.label(RichText::new("Why (the automatic player's reasons, latest last)").weak().small());
        for why in &state.reasons {
            ui.label(RichText::new(format!("• {why}")).small());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cite::RuleSetId;
    use crate::rules::registry::open;
    use crate::ui::session::Opening;

    /// The teaching battle under OTP with this seed.
    fn game(seed: u64) -> Box<dyn Engine> {
        open(RuleSetId::Otp, crate::scenario::default_scenario(), seed).unwrap()
    }

    /// Send a common action as the panels do.
    fn send(app: &mut App, action: Action) {
        let order = Order(action);
        app.world_mut().write_message(order);
    }

    fn engine(app: &App) -> &dyn Engine {
        app.world().resource::<Session>().engine()
    }

    /// Orders seen on their way to the session.
    #[derive(Resource, Default)]
    struct Seen(usize);

    fn count(mut orders: MessageReader<Order>, mut seen: ResMut<Seen>) {
        seen.0 += orders.read().count();
    }

    /// A headless app: the session's messages, the session itself, and solo play, no window.
    fn app(automatic: &[bool]) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<crate::ui::table_view::Selection>()
            .insert_resource(crate::ui::camera::View { centre: Vec2::ZERO, ppi: 10.0, rect: egui::Rect::NOTHING, fit_pending: false, preset: None })
            .insert_resource(Opening::Scenario { scenario: Box::new(crate::scenario::default_scenario()), source: "teaching".into() })
            .init_resource::<Seen>()
            .add_plugins((crate::ui::session::plugin, plugin))
            .add_systems(Update, count.after(drive));
        app.update();
        {
            let mut s = app.world_mut().resource_mut::<Session>();
            s.autosave = None;
            s.replace(Session::from_engine(&*game(11)).game);
        }
        let mut settings = app.world_mut().resource_mut::<SoloSettings>();
        settings.automatic = automatic.to_vec();
        settings.pace = 0.0;
        app
    }

    // OR1–OR2 (the orders sheet): in solo play the window tells the engine who sits at it, so
    // the automatic side's orders, written and sealed, show in no badge and no sheet before
    // step 3; the human's side is told apart by the solo settings alone.
    #[test]
    fn solo_play_keeps_the_automatic_sides_orders_hidden() {
        let text = include_str!("../../tests/fixtures/good/acw_orders_small.ron");
        let scenario = crate::scenario::parse(text, "acw_orders_small.ron").unwrap();
        let mut app = app(&[false, true]);
        app.world_mut().resource_mut::<Session>().replace(open(RuleSetId::AcwOrders, scenario, 5).unwrap());
        assert_eq!(by_hand(&app.world().resource::<SoloSettings>().clone()), Some(vec![0]));
        // The Confederates (side 1, automatic, moving first) write and seal; then the Union's turn.
        for _ in 0..200 {
            app.update();
            if engine(&app).sequence().deciding == Some(0) {
                break;
            }
        }
        let e = engine(&app);
        assert_eq!(e.sequence().deciding, Some(0), "{}", e.sequence().headline);
        assert!(e.save_text().contains("WriteOrder"), "the automatic side wrote orders");
        let world = e.world();
        let units: Vec<(Entity, Unit)> = world.try_query::<(Entity, &Unit)>().unwrap().iter(world).map(|(e, u)| (e, u.clone())).collect();
        let codes = ["H", "FM", "FR", "C", "CH", "M", "D"];
        for (u, unit) in units.iter().filter(|(_, u)| u.side == 1) {
            assert!(e.badges(*u).iter().all(|b| !codes.contains(&b.text.as_str())), "{}: {:?}", unit.name, e.badges(*u));
            assert!(e.sheet(*u).iter().any(|r| r.label == "Order" && r.value.contains("sealed")), "{}", unit.name);
        }
        // Written by hand, the Union's own order shows to the Union player.
        let wi = units.iter().find(|(_, u)| u.name == "2nd Wisconsin").unwrap().0;
        // The window names no rule set: the order as a save writes it.
        send(&mut app, ron::from_str::<Action>("AcwOrders(WriteOrder(unit: \"2nd Wisconsin\", order: M))").unwrap());
        app.update();
        assert!(engine(&app).badges(wi).iter().any(|b| b.text == "M"), "{:?}", engine(&app).badges(wi));
    }

    // OTP 4.2–4.5: with both sides automatic the game starts, every chit is drawn and acted,
    // and the turn advances — every action through an Order, one at a time.
    #[test]
    fn both_sides_automatic_play_a_turn_through_orders() {
        let mut app = app(&[true, true]);
        for _ in 0..2000 {
            app.update();
            if engine(&app).sequence().turn >= 2 {
                break;
            }
        }
        let e = engine(&app);
        assert!(e.sequence().turn >= 2, "the turn advanced ({}, {} actions)", e.sequence().headline, e.action_count());
        let n = e.action_count();
        assert!(n >= 10, "start, four draws and four ends, end turn: {n}");
        let seen = app.world().resource::<Seen>().0;
        // Every action in the game came as an Order; refused orders change nothing.
        assert!(seen >= n, "{seen} orders for {n} actions");
        assert_eq!(app.world().resource::<SoloState>().sent, seen, "every order was the automatic player's");
    }

    // At a pace the strong player thinks aside, on a copy of the game, and the window goes on
    // meanwhile; it plays the very game it plays thinking in the frame (OTP 4.3: the same seed, the same
    // chits, the same orders).
    #[test]
    fn thinking_aside_plays_the_same_game() {
        let mut inline = app(&[true, true]);
        inline.world_mut().resource_mut::<SoloSettings>().levels = vec![Level::Strong; 2];
        for _ in 0..2000 {
            inline.update();
            if engine(&inline).action_count() >= 12 {
                break;
            }
        }
        let inline = engine(&inline).actions();
        assert!(inline.len() >= 12, "{} actions", inline.len());
        let mut app = app(&[true, true]);
        app.world_mut().resource_mut::<SoloSettings>().pace = 0.000_1;
        app.world_mut().resource_mut::<SoloSettings>().levels = vec![Level::Strong; 2];
        let (mut thinking, start) = (0, std::time::Instant::now());
        while engine(&app).action_count() < 12 && start.elapsed() < std::time::Duration::from_secs(120) {
            app.update();
            thinking += app.world().resource::<SoloState>().thinking() as usize;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(thinking > 0, "it thought aside");
        assert_eq!(engine(&app).actions()[..12], inline[..12]);
    }

    // An answer thought out for a game that has changed since (a person's action, an undo) is
    // not taken: the player is asked again about the game as it stands.
    #[test]
    fn an_answer_about_a_changed_game_is_not_taken() {
        let mut g = game(11);
        let mut settings = SoloSettings { automatic: vec![true, true], levels: vec![Level::Standard; 2], pace: 0.5, ..SoloSettings::default() };
        // A side's decision with a unit's action to take, and the game after it.
        play(&mut *g, |g| g.sequence().deciding.is_some() && g.sequence().turn >= 2);
        let side = g.sequence().deciding.expect("a side decides");
        let before = automatic_action(&*g, &settings, registry::player(&*g, Level::Standard).as_mut()).expect("a decision").action;
        let mut after = g.replayed(g.action_count());
        after.apply(before.clone()).expect("the player's own action is taken");
        let wanted = automatic_action(&*after, &settings, registry::player(&*after, Level::Standard).as_mut()).expect("a decision").action;
        assert_ne!(before, wanted, "the two games call for different actions");
        let mut state = SoloState { players: (0..2).map(|_| None).collect(), ..SoloState::default() };
        assert!(state.decision(&*g, &settings, side, Level::Standard, 1, true).is_none(), "it thinks aside");
        let answer = |state: &mut SoloState, g: &dyn Engine, settings: &SoloSettings, revision: u64| {
            let start = std::time::Instant::now();
            loop {
                if let Some(d) = state.decision(g, settings, side, Level::Standard, revision, true) {
                    return d.map(|d| d.action);
                }
                assert!(start.elapsed().as_secs() < 120, "no answer");
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        };
        // The game changes before the answer is taken: it is asked anew.
        assert!(state.decision(&*after, &settings, side, Level::Standard, 2, true).is_none(), "asked anew");
        assert_eq!(answer(&mut state, &*after, &settings, 2), Some(wanted));
        // So is a change of hands (the other side taken over by a person).
        assert!(state.decision(&*g, &settings, side, Level::Standard, 1, true).is_none());
        settings.automatic[1 - side] = false;
        assert!(state.decision(&*g, &settings, side, Level::Standard, 1, true).is_none(), "asked anew");
        assert_eq!(answer(&mut state, &*g, &settings, 1), Some(before));
    }

    // Each side's level is its own: the standard player's reasons reach the panel and the game
    // log (each under the report of the action it explains), the novice's side gives none
    // (OTP 4.3: the brigades act by chit).
    #[test]
    fn each_side_plays_at_its_level_and_the_reasons_are_kept() {
        let mut app = app(&[true, true]);
        app.init_resource::<GameLog>();
        app.world_mut().resource_mut::<SoloSettings>().levels = vec![Level::Novice, Level::Standard];
        for _ in 0..3000 {
            app.update();
            if engine(&app).sequence().turn >= 3 {
                break;
            }
        }
        let state = app.world().resource::<SoloState>();
        assert!(!state.reasons.is_empty() && state.reasons.len() <= REASONS_SHOWN, "{:?}", state.reasons);
        let second = &engine(&app).scenario().sides[1].name;
        assert!(state.reasons.iter().all(|r| r.starts_with(&format!("{second}: "))), "only the standard side explains: {:?}", state.reasons);
        assert_eq!(state.players.iter().flatten().map(|(l, _)| *l).collect::<Vec<_>>(), vec![Level::Novice, Level::Standard]);
        let reports = engine(&app).reports();
        let log = app.world().resource::<GameLog>();
        assert!(log.reasons.len() > REASONS_SHOWN, "the log keeps every reason: {}", log.reasons.len());
        let mut named = 0;
        for (at, why) in &log.reasons {
            let r = reports.get(*at).unwrap_or_else(|| panic!("reason {why:?} for report {at} of {}", reports.len()));
            if let Some(unit) = r.action.units_named().first() {
                assert!(why.contains(*unit), "{why:?} explains report {at}, {:?}", r.action);
                named += 1;
            }
        }
        assert!(named > 0, "some reasons are for a unit's action");
    }

    // By hand, nothing happens by itself.
    #[test]
    fn by_hand_nothing_is_applied() {
        let mut app = app(&[false, false]);
        for _ in 0..50 {
            app.update();
        }
        assert_eq!(engine(&app).action_count(), 0);
        assert_eq!(app.world().resource::<Seen>().0, 0);
        // A started game by hand: the cup waits for the player's draw (OTP 4.3).
        send(&mut app, Action::Next);
        for _ in 0..50 {
            app.update();
        }
        let e = engine(&app);
        assert_eq!(e.action_count(), 1);
        let seq = e.sequence();
        assert!(seq.started && seq.deciding.is_none() && e.next_is_mechanical(), "{}", seq.headline);
    }

    // One side automatic: it plays its own brigades only; the other side's activation waits.
    #[test]
    fn one_side_automatic_waits_for_the_other() {
        let mut app = app(&[false, true]);
        send(&mut app, Action::Next);
        for _ in 0..600 {
            app.update();
        }
        let seq = engine(&app).sequence();
        assert_eq!(seq.deciding, Some(0), "the British brigade waits for its player: {}", seq.headline);
    }

    /// `OTP_WRITE_SAVES=DIR`: a game played by the automatic player to its end (`over.ron`)
    /// and one stopped at its first rebuild step with a rebuild allowed (`rebuild.ron`), for
    /// screenshots (`otp play DIR/over.ron`).
    #[test]
    #[ignore = "writes saves for screenshots when OTP_WRITE_SAVES is set"]
    fn write_saves_for_screenshots() {
        let Ok(dir) = std::env::var("OTP_WRITE_SAVES") else { return };
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut wrote_rebuild = false;
        let write = |g: &dyn Engine, name: &str| crate::scenario::write_atomically(&dir.join(name), &g.save_text()).unwrap();
        // The first seed whose game has a winner on points (a more telling summary).
        for seed in 1..40 {
            let mut g = game(seed);
            play(&mut *g, |g| {
                if !wrote_rebuild && rebuild_open(g) {
                    write(g, "rebuild.ron");
                    wrote_rebuild = true;
                }
                false
            });
            let summary = g.summary().expect("played to the end");
            if summary.sides[0].points != summary.sides[1].points {
                write(&*g, "over.ron");
                return;
            }
        }
        panic!("no seed gave a winner");
    }

    // Skip plays the rest of the activation at once, then the pace holds again.
    #[test]
    fn skip_plays_out_the_activation_only() {
        let mut app = app(&[true, true]);
        app.world_mut().resource_mut::<SoloSettings>().pace = 1000.0;
        send(&mut app, Action::Next);
        app.update();
        send(&mut app, Action::Next);
        app.update();
        let seq = engine(&app).sequence();
        assert!(seq.deciding.is_some(), "a brigade is phasing: {}", seq.headline);
        let end = crate::ui::turn_panel::go_on(&engine(&app).choices()).unwrap().action.clone();
        app.world_mut().resource_mut::<SoloSettings>().skip = Some(step_key(&seq));
        for _ in 0..400 {
            app.update();
        }
        let e = engine(&app);
        let seq = e.sequence();
        assert!(seq.deciding.is_none() && e.next_is_mechanical(), "the activation ended and the next draw waits for the pace: {}", seq.headline);
        assert_eq!(e.actions().last(), Some(&end), "it ended as the panel's button would");
        assert!(app.world().resource::<SoloSettings>().skip.is_none());
    }

    // Watching the automatic player: paused, a step takes exactly one action, then it waits.
    #[test]
    fn a_step_takes_one_action_and_stays_paused() {
        let mut app = app(&[true, true]);
        app.world_mut().resource_mut::<SoloSettings>().paused = true;
        for _ in 0..10 {
            app.update();
        }
        assert_eq!(engine(&app).action_count(), 0, "paused");
        app.world_mut().resource_mut::<SoloSettings>().step();
        for _ in 0..20 {
            app.update();
        }
        assert!(engine(&app).action_count() == 1 && engine(&app).sequence().started, "one action: the start");
        app.world_mut().resource_mut::<SoloSettings>().step();
        for _ in 0..20 {
            app.update();
        }
        assert_eq!(engine(&app).action_count(), 2, "and one more");
        assert!(app.world().resource::<SoloSettings>().paused);
    }

    // A pace slower than the time passed: nothing yet.
    #[test]
    fn the_pace_holds_actions_back_and_pause_stops_them() {
        let mut app = app(&[true, true]);
        app.world_mut().resource_mut::<SoloSettings>().pace = 1000.0;
        for _ in 0..20 {
            app.update();
        }
        assert_eq!(engine(&app).action_count(), 0);
        let mut settings = app.world_mut().resource_mut::<SoloSettings>();
        settings.pace = 0.0;
        settings.paused = true;
        for _ in 0..20 {
            app.update();
        }
        assert_eq!(engine(&app).action_count(), 0);
    }

    /// Play a game with the automatic player until `stop` says so or the game is over.
    fn play(g: &mut dyn Engine, mut stop: impl FnMut(&dyn Engine) -> bool) {
        let mut player = g.automatic();
        while !stop(g) {
            let Some(a) = player.next_action(g) else { return };
            // Refused: go on rather than loop.
            if g.apply(a).is_err() && g.apply(Action::Next).is_err() {
                return;
            }
        }
    }

    /// A step of unit choices nobody decides (OTP's rebuilds) with one the engine allows.
    fn rebuild_open(g: &dyn Engine) -> bool {
        let seq = g.sequence();
        seq.started && seq.deciding.is_none() && g.unit_step().is_some() && g.choices().iter().any(|c| c.about.is_some() && c.allowed())
    }

    // OTP 11.0: in the rebuild step each automatic side takes the rebuilds the engine allows its
    // units, and the turn ends only when every side is automatic (a person may still rebuild).
    #[test]
    fn the_rebuild_step_is_each_units_sides_business() {
        let mut g = (1..40).map(game).find_map(|mut g| {
            play(&mut *g, rebuild_open);
            rebuild_open(&*g).then_some(g)
        }).expect("a game with a rebuild open");
        let choices = g.choices();
        let allowed: Vec<&crate::rules::engine::Choice> = choices.iter().filter(|c| c.about.is_some() && c.allowed()).collect();
        let side_of = |name: &str| g.world().try_query::<&Unit>().unwrap().iter(g.world()).find(|u| u.name == name).unwrap().side;
        let side = side_of(allowed[0].about.as_deref().unwrap());
        let mut settings = SoloSettings { automatic: vec![false, false], ..SoloSettings::default() };
        settings.automatic[side] = true;
        let mut player = crate::rules::automatic::Plain(g.automatic());
        let first = allowed.iter().find(|c| side_of(c.about.as_deref().unwrap()) == side).unwrap();
        assert_eq!(automatic_action(&*g, &settings, &mut player).map(|d| d.action), Some(first.action.clone()), "its side's first rebuild the engine allows");
        settings.automatic[side] = false;
        settings.automatic[1 - side] = true;
        let other = allowed.iter().find(|c| side_of(c.about.as_deref().unwrap()) != side).map(|c| c.action.clone());
        assert_eq!(automatic_action(&*g, &settings, &mut player).map(|d| d.action), other, "only the automatic side's rebuilds; the turn waits for the other");
        // Every rebuild tried, all automatic: the turn ends (OTP 4.5).
        for c in &allowed {
            g.apply(c.action.clone()).unwrap();
        }
        settings.automatic = vec![true, true];
        assert_eq!(automatic_action(&*g, &settings, &mut player).map(|d| d.action), Some(Action::Next));
    }
}
