//! Solo play: each side is played "by hand" or by the automatic player ([`Bot`]), which sends its
//! choices as [`Order`]s one at a time, at a pace a person can follow, through the same path as
//! the mouse (so the log, the dice overlay and undo see nothing special).
//!
//! Whose business each step is: the first StartGame when every side is automatic; drawing a
//! chit when any side is automatic (a mechanical step); an activation when its brigade's side
//! is automatic; in the rebuild step the automatic sides' rebuilds, and ending the turn when
//! every side is automatic. Everything else waits for a person.
//!
//! The window normally redraws only on input (`WinitSettings::desktop_app`): while an automatic
//! step is due this asks for a redraw every frame so play goes on without the mouse moving.
//!
//! Presets, read at start:
//! - `OTP_AUTO="both"` (or `all`, a side's name, or several names separated by commas): those
//!   sides are automatic.
//! - `OTP_PACE="0.5"`: seconds between automatic actions (0.2–3; 0 in tests).

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use bevy_egui::egui;
use egui::RichText;

use super::session::{Order, Refused, Session};
use crate::rules::otp::bot::Bot;
use crate::rules::otp::engine::{Action, Game, Phase};

/// The pace a person can follow, seconds between automatic actions.
pub(crate) const DEFAULT_PACE: f32 = 0.8;
/// The quickest and slowest pace the controls offer, seconds.
pub(crate) const PACES: (f32, f32) = (0.2, 3.0);

/// Who plays each side, and how fast the automatic player goes.
#[derive(Resource, Clone, Debug)]
pub(crate) struct SoloSettings {
    /// Per side, in the scenario's order: played by the automatic player.
    pub automatic: Vec<bool>,
    /// Seconds between automatic actions.
    pub pace: f32,
    pub paused: bool,
    /// Take one action now, paused or not, then stay paused (watching the automatic player).
    pub step: bool,
    /// Play the rest of this step (turn and phase) without waiting.
    pub skip: Option<(u32, Phase)>,
}

impl Default for SoloSettings {
    fn default() -> Self {
        SoloSettings { automatic: Vec::new(), pace: DEFAULT_PACE, paused: false, step: false, skip: None }
    }
}

impl SoloSettings {
    /// One action of the automatic player, then a pause.
    pub fn step(&mut self) {
        self.paused = true;
        self.step = true;
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

/// The automatic player's own state: the bot, the order it is waiting on, the clock.
#[derive(Resource, Default)]
pub(crate) struct SoloState {
    bot: Bot,
    /// The order sent and the session revision when it was sent: no next order until the
    /// game has taken it (or refused it).
    awaiting: Option<(Action, u64)>,
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
}

impl SoloState {
    /// The automatic player has nothing to do until the game or the settings change.
    pub(crate) fn idle(&self, revision: u64, settings: &SoloSettings) -> bool {
        self.idle.as_ref().is_some_and(|(r, a)| *r == revision && *a == settings.automatic)
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SoloSettings>().init_resource::<SoloState>().add_message::<RequestRedraw>().add_systems(PostStartup, presets).add_systems(Update, drive);
}

/// The side of the brigade whose chit this is.
pub(crate) fn chit_side(game: &Game, chit: u32) -> Option<usize> {
    let world = game.world();
    let mut q = world.try_query::<&crate::scenario::spawn::Brigade>()?;
    q.iter(world).find(|b| b.chit == chit).map(|b| b.side)
}

/// Is an automatic step due now (by phase alone: cheap, for redraws and the panel)?
pub(crate) fn automatic_turn(game: &Game, settings: &SoloSettings) -> bool {
    match game.phase() {
        Phase::Over => false,
        Phase::Setup => settings.all(),
        Phase::Draw => settings.any(),
        Phase::Activation { chit } => chit_side(game, chit).is_some_and(|s| settings.auto(s)),
        Phase::Rebuild => settings.any(),
    }
}

/// The automatic player's next action, when the step is its business (see the module docs).
pub(crate) fn automatic_action(game: &Game, settings: &SoloSettings, bot: &mut Bot) -> Option<Action> {
    match game.phase() {
        Phase::Over => None,
        Phase::Setup => settings.all().then_some(Action::StartGame),
        Phase::Draw => settings.any().then_some(Action::DrawChit),
        Phase::Activation { chit } => chit_side(game, chit).filter(|&s| settings.auto(s)).and_then(|_| bot.next_action(game)),
        Phase::Rebuild => {
            // 11.0: every rebuild the engine allows an automatic side, then (all automatic) the turn ends.
            let rebuild = game.units().filter(|(_, u)| settings.auto(u.side)).map(|(_, u)| u.name.clone()).find(|n| game.check_rebuild(n).is_ok());
            match rebuild {
                Some(unit) => Some(Action::AttemptRebuild { unit }),
                None => settings.all().then_some(Action::EndTurn),
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
) {
    let Some(session) = session else { return };
    let game = &session.game;
    let sides = game.scenario().sides.len();
    if settings.automatic.len() != sides {
        settings.automatic.resize(sides, false);
    }
    state.since += time.delta_secs();
    if state.seen_revision != session.revision {
        state.seen_revision = session.revision;
        state.since = 0.0;
    }
    // The answer to the order sent: taken (the game changed) or refused.
    let refusal = refused.read().filter(|r| state.awaiting.as_ref().is_some_and(|(a, _)| *a == r.action)).last().map(|r| r.refusal.clone());
    if let Some(refusal) = refusal {
        state.awaiting = None;
        state.refused_in_a_row += 1;
        state.bot.refusals += 1;
        if state.refused_in_a_row >= 2 {
            settings.paused = true;
            state.trouble = Some(format!("the automatic player was refused twice ({refusal}): paused"));
            return;
        }
        // As `Bot::step` does: give up the activation (or the turn) rather than loop.
        let fallback = match game.phase() {
            Phase::Activation { .. } => Some(Action::EndActivation),
            Phase::Rebuild if settings.all() => Some(Action::EndTurn),
            _ => None,
        };
        if let Some(a) = fallback {
            state.awaiting = Some((a.clone(), session.revision));
            orders.write(Order(a));
            state.sent += 1;
        }
        return;
    }
    if state.awaiting.as_ref().is_some_and(|(_, rev)| *rev != session.revision) {
        state.awaiting = None;
        state.refused_in_a_row = 0;
        state.since = 0.0;
    }
    if settings.skip.is_some_and(|(turn, phase)| (turn, phase) != (game.turn(), game.phase())) {
        settings.skip = None;
    }
    if !automatic_turn(game, &settings) || state.idle(session.revision, &settings) {
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
    let SoloState { bot, .. } = &mut *state;
    let action = automatic_action(game, &settings, bot);
    if settings.step {
        settings.step = false;
    }
    let Some(action) = action else {
        state.idle = Some((session.revision, settings.automatic.clone()));
        return;
    };
    state.awaiting = Some((action.clone(), session.revision));
    state.since = 0.0;
    state.sent += 1;
    orders.write(Order(action));
}

/// `OTP_AUTO` and `OTP_PACE`.
fn presets(session: Option<Res<Session>>, mut settings: ResMut<SoloSettings>) {
    let Some(session) = session else { return };
    let names: Vec<String> = session.game.scenario().sides.iter().map(|s| s.name.clone()).collect();
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
    if let Ok(text) = std::env::var("OTP_PACE") {
        match text.trim().parse::<f32>() {
            Ok(p) if p.is_finite() && p >= 0.0 => settings.pace = p,
            _ => eprintln!("OTP_PACE={text:?}: expected seconds, e.g. 0.8; ignored"),
        }
    }
}

/// The solo-play controls, for the turn panel: who plays each side, the pace, pause and skip.
pub(crate) fn controls(ui: &mut egui::Ui, settings: &mut SoloSettings, state: &SoloState, session: &Session, colours: &[egui::Color32]) {
    let game = &session.game;
    for (i, side) in game.scenario().sides.iter().enumerate() {
        if i >= settings.automatic.len() {
            break;
        }
        ui.horizontal(|ui| {
            let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
            ui.painter().rect_filled(r, 2.0, colours.get(i).copied().unwrap_or(egui::Color32::GRAY));
            ui.label(RichText::new(&side.name).strong());
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
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
        let due = automatic_turn(game, settings) && !state.idle(session.revision, settings);
        let busy = due && !settings.paused;
        if ui.add_enabled(due, egui::Button::new("Step").shortcut_text(RichText::new(".").weak())).on_hover_text("The automatic player takes one action, then waits (.)").clicked() {
            settings.step();
        }
        if ui.add_enabled(busy && settings.skip.is_none(), egui::Button::new("⏭ Skip")).on_hover_text("Play the rest of this activation at once").clicked() {
            settings.skip = Some((game.turn(), game.phase()));
        }
    });
    ui.horizontal(|ui| {
        let busy = automatic_turn(game, settings) && !settings.paused && !state.idle(session.revision, settings);
        let doing = if settings.paused {
            "paused"
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::otp::charts::Charts;
    use crate::ui::session::Opening;

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
            let seed = 11;
            let scenario = s.game.scenario().clone();
            s.replace(Game::new(scenario, seed, Charts::embedded().clone()));
        }
        let mut settings = app.world_mut().resource_mut::<SoloSettings>();
        settings.automatic = automatic.to_vec();
        settings.pace = 0.0;
        app
    }

    // OTP 4.2–4.5: with both sides automatic the game starts, every chit is drawn and acted,
    // and the turn advances — every action through an Order, one at a time.
    #[test]
    fn both_sides_automatic_play_a_turn_through_orders() {
        let mut app = app(&[true, true]);
        for _ in 0..2000 {
            app.update();
            if app.world().resource::<Session>().game.turn() >= 2 {
                break;
            }
        }
        let s = app.world().resource::<Session>();
        assert!(s.game.turn() >= 2, "the turn advanced (phase {:?}, {} actions)", s.game.phase(), s.game.actions().len());
        let n = s.game.actions().len();
        assert!(n >= 10, "start, four draws and four ends, end turn: {n}");
        let seen = app.world().resource::<Seen>().0;
        // Every action in the game came as an Order; refused orders change nothing.
        assert!(seen >= n, "{seen} orders for {n} actions");
        assert_eq!(app.world().resource::<SoloState>().sent, seen, "every order was the automatic player's");
    }

    // By hand, nothing happens by itself.
    #[test]
    fn by_hand_nothing_is_applied() {
        let mut app = app(&[false, false]);
        for _ in 0..50 {
            app.update();
        }
        assert!(app.world().resource::<Session>().game.actions().is_empty());
        assert_eq!(app.world().resource::<Seen>().0, 0);
        // A started game by hand: the cup waits for the player's draw.
        app.world_mut().write_message(Order(Action::StartGame));
        for _ in 0..50 {
            app.update();
        }
        assert_eq!(app.world().resource::<Session>().game.actions().len(), 1);
        assert_eq!(app.world().resource::<Session>().game.phase(), Phase::Draw);
    }

    // One side automatic: it plays its own brigades only; the other side's activation waits.
    #[test]
    fn one_side_automatic_waits_for_the_other() {
        let mut app = app(&[false, true]);
        app.world_mut().write_message(Order(Action::StartGame));
        for _ in 0..600 {
            app.update();
        }
        let s = app.world().resource::<Session>();
        let Phase::Activation { chit } = s.game.phase() else { panic!("an activation waits for the player: {:?}", s.game.phase()) };
        assert_eq!(chit_side(&s.game, chit), Some(0), "the British brigade waits for its player");
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
        // The first seed whose game has a winner on points (a more telling summary).
        for seed in 1..40 {
            let mut g = Game::new(crate::scenario::default_scenario(), seed, Charts::embedded().clone());
            let mut bot = Bot::new();
            while bot.step(&mut g).is_some() {
                if !wrote_rebuild && g.phase() == Phase::Rebuild && g.units().any(|(_, u)| g.check_rebuild(&u.name).is_ok()) {
                    g.save(&dir.join("rebuild.ron")).unwrap();
                    wrote_rebuild = true;
                }
            }
            let summary = g.summary().expect("played to the end");
            if summary.sides[0].points != summary.sides[1].points {
                g.save(&dir.join("over.ron")).unwrap();
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
        app.world_mut().write_message(Order(Action::StartGame));
        app.world_mut().write_message(Order(Action::DrawChit));
        app.update();
        let (turn, phase) = {
            let g = &app.world().resource::<Session>().game;
            (g.turn(), g.phase())
        };
        assert!(matches!(phase, Phase::Activation { .. }));
        app.world_mut().resource_mut::<SoloSettings>().skip = Some((turn, phase));
        for _ in 0..400 {
            app.update();
        }
        let g = &app.world().resource::<Session>().game;
        assert_eq!(g.phase(), Phase::Draw, "the activation ended and the next draw waits for the pace");
        assert!(matches!(g.actions().last(), Some(Action::EndActivation)));
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
        assert!(app.world().resource::<Session>().game.actions().is_empty(), "paused");
        app.world_mut().resource_mut::<SoloSettings>().step();
        for _ in 0..20 {
            app.update();
        }
        assert_eq!(app.world().resource::<Session>().game.actions(), &[Action::StartGame], "one action");
        app.world_mut().resource_mut::<SoloSettings>().step();
        for _ in 0..20 {
            app.update();
        }
        assert_eq!(app.world().resource::<Session>().game.actions().len(), 2, "and one more");
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
        assert!(app.world().resource::<Session>().game.actions().is_empty());
        let mut settings = app.world_mut().resource_mut::<SoloSettings>();
        settings.pace = 0.0;
        settings.paused = true;
        for _ in 0..20 {
            app.update();
        }
        assert!(app.world().resource::<Session>().game.actions().is_empty());
    }
}
