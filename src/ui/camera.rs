//! The view transform: which point of the table (inches) is at the centre of the table area, and
//! how many screen points an inch takes. The table's y runs up; the screen's runs down.

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use bevy_egui::egui;
use bevy_egui::input::egui_wants_any_keyboard_input;

use crate::scenario::spawn::{Commander, Stand, Unit};
use crate::table::footprint::Footprint;

/// Closest and farthest zoom, in screen points an inch.
pub(crate) const MIN_PPI: f32 = 2.0;
pub(crate) const MAX_PPI: f32 = 240.0;
/// Margin around the table when fitting it, inches.
const FIT_MARGIN: f32 = 1.5;

#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct View {
    /// Table point (inches) at the centre of the table area.
    pub centre: Vec2,
    /// Screen points an inch.
    pub ppi: f32,
    /// The table area this frame (set by the table view), in screen points.
    pub rect: egui::Rect,
    /// Fit the table to the area at the next draw (at start, on F, after loading).
    pub fit_pending: bool,
    /// A view to take after the first fit (centre, points an inch): `OTP_VIEW` for screenshots.
    pub preset: Option<(Vec2, f32)>,
}

impl Default for View {
    fn default() -> Self {
        View { centre: Vec2::new(36.0, 24.0), ppi: 15.0, rect: egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 800.0)), fit_pending: true, preset: None }
    }
}

impl View {
    pub fn to_screen(self, p: Vec2) -> egui::Pos2 {
        let c = self.rect.center();
        egui::pos2(c.x + (p.x - self.centre.x) * self.ppi, c.y - (p.y - self.centre.y) * self.ppi)
    }

    pub fn to_table(self, p: egui::Pos2) -> Vec2 {
        let c = self.rect.center();
        Vec2::new(self.centre.x + (p.x - c.x) / self.ppi, self.centre.y - (p.y - c.y) / self.ppi)
    }

    /// A direction on the table as a screen direction (y flipped).
    pub fn dir_to_screen(v: Vec2) -> egui::Vec2 {
        egui::vec2(v.x, -v.y)
    }

    /// Scale by `factor`, keeping the table point under `anchor` (screen) where it is.
    pub fn zoom_at(&mut self, anchor: egui::Pos2, factor: f32) {
        let before = self.to_table(anchor);
        self.ppi = (self.ppi * factor).clamp(MIN_PPI, MAX_PPI);
        let after = self.to_table(anchor);
        self.centre += before - after;
    }

    /// Move the view by a screen-space drag (content follows the pointer).
    pub fn pan_by_screen(&mut self, delta: egui::Vec2) {
        self.centre -= Vec2::new(delta.x, -delta.y) / self.ppi;
    }

    /// The whole table, centred, with a margin.
    pub fn fit(&mut self, width: f32, depth: f32) {
        let (w, h) = (self.rect.width().max(50.0), self.rect.height().max(50.0));
        self.ppi = (w / (width + 2.0 * FIT_MARGIN)).min(h / (depth + 2.0 * FIT_MARGIN)).clamp(MIN_PPI, MAX_PPI);
        self.centre = Vec2::new(width / 2.0, depth / 2.0);
        self.fit_pending = false;
    }

    /// Keep some of the table on screen however far one pans.
    pub fn clamp_to(&mut self, width: f32, depth: f32) {
        let half = Vec2::new(self.rect.width(), self.rect.height()) / (2.0 * self.ppi);
        let slack = half * 0.8;
        self.centre.x = self.centre.x.clamp(-slack.x, width + slack.x);
        self.centre.y = self.centre.y.clamp(-slack.y, depth + slack.y);
    }
}

/// Bring a unit or commander into view (a roster, the log or a search picked it): the view pans
/// so that it sits in the middle of the table area, unless it is already well inside the view.
/// The zoom is kept. Send it from anywhere: `MessageWriter<CentreOn>`.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct CentreOn(pub Entity);

/// Share of the table area (about its centre) in which a unit counts as already in view.
const COMFORTABLY_IN_VIEW: f32 = 0.7;

impl View {
    /// Pan so that the box `lo..hi` (inches) is well in view: centred on it unless it already
    /// lies inside the middle `COMFORTABLY_IN_VIEW` of the table area. True if the view moved.
    pub fn bring_into_view(&mut self, lo: Vec2, hi: Vec2) -> bool {
        let inner = egui::Rect::from_center_size(self.rect.center(), self.rect.size() * COMFORTABLY_IN_VIEW);
        if inner.contains(self.to_screen(lo)) && inner.contains(self.to_screen(hi)) {
            return false;
        }
        self.centre = (lo + hi) / 2.0;
        true
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<View>()
        .add_message::<CentreOn>()
        .add_message::<RequestRedraw>()
        .add_systems(Update, (keyboard.run_if(not(egui_wants_any_keyboard_input)), centre_on));
}

/// `CentreOn`: the unit's stands (or the commander's figure) brought into view.
fn centre_on(mut asked: MessageReader<CentreOn>, mut view: ResMut<View>, units: Query<&Unit>, stands: Query<&Footprint, With<Stand>>, commanders: Query<&Commander>, mut redraw: MessageWriter<RequestRedraw>) {
    let Some(&CentreOn(e)) = asked.read().last() else { return };
    let corners: Vec<Vec2> = match (units.get(e), commanders.get(e)) {
        (Ok(u), _) => u.stands.iter().filter_map(|&s| stands.get(s).ok()).flat_map(|f| f.corners()).collect(),
        (_, Ok(c)) => vec![c.at - Vec2::splat(0.5), c.at + Vec2::splat(0.5)],
        _ => return,
    };
    let Some(&first) = corners.first() else { return };
    let (lo, hi) = corners.iter().fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    if view.bring_into_view(lo, hi) {
        redraw.write(RequestRedraw);
    }
}

/// Arrows pan (Shift: faster), + and - zoom about the centre, F or Home fits the table. (Letter
/// keys are the teaching overlays' and the ruler's: A, E, L, M, R.)
fn keyboard(keys: Res<ButtonInput<KeyCode>>, time: Res<Time>, mut view: ResMut<View>, mut redraw: MessageWriter<RequestRedraw>) {
    let mut dir = Vec2::ZERO;
    if keys.pressed(KeyCode::ArrowLeft) {
        dir.x -= 1.0;
    }
    if keys.pressed(KeyCode::ArrowRight) {
        dir.x += 1.0;
    }
    if keys.pressed(KeyCode::ArrowUp) {
        dir.y += 1.0;
    }
    if keys.pressed(KeyCode::ArrowDown) {
        dir.y -= 1.0;
    }
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    if dir != Vec2::ZERO && !ctrl {
        let fast = if keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]) { 2.5 } else { 1.0 };
        // About 700 screen points a second, whatever the zoom; at most a tenth of a second a frame.
        let dt = time.delta_secs().min(0.1);
        let ppi = view.ppi;
        view.centre += dir.normalize() * 700.0 * fast * dt / ppi;
        redraw.write(RequestRedraw);
    }
    let centre = view.rect.center();
    if keys.any_just_pressed([KeyCode::Equal, KeyCode::NumpadAdd]) {
        view.zoom_at(centre, 1.25);
    }
    if keys.any_just_pressed([KeyCode::Minus, KeyCode::NumpadSubtract]) {
        view.zoom_at(centre, 0.8);
    }
    if keys.any_just_pressed([KeyCode::KeyF, KeyCode::Home]) {
        view.fit_pending = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_and_table_round_trip_and_zoom_keeps_the_anchor() {
        let mut v = View { rect: egui::Rect::from_min_size(egui::pos2(0.0, 30.0), egui::vec2(1000.0, 700.0)), ..View::default() };
        v.fit(72.0, 48.0);
        let p = Vec2::new(10.0, 40.0);
        let s = v.to_screen(p);
        assert!((v.to_table(s) - p).length() < 1e-3);
        // Up the table is up the screen.
        assert!(v.to_screen(Vec2::new(10.0, 41.0)).y < s.y);
        v.zoom_at(s, 3.0);
        assert!((v.to_table(s) - p).length() < 1e-3, "zoom to cursor keeps the point under it");
        let corner = v.to_screen(Vec2::ZERO);
        v.fit(72.0, 48.0);
        assert!(v.rect.contains(v.to_screen(Vec2::ZERO)) && v.rect.contains(v.to_screen(Vec2::new(72.0, 48.0))), "{corner:?}");
    }

    #[test]
    fn centre_on_pans_to_a_unit_out_of_view_and_leaves_one_in_view() {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins).init_resource::<View>().add_message::<CentreOn>().add_message::<RequestRedraw>().add_systems(Update, centre_on);
        let scenario = crate::scenario::default_scenario();
        crate::scenario::spawn::spawn_scenario(app.world_mut(), &scenario, "test");
        let mut q = app.world_mut().query::<(Entity, &Unit)>();
        let units: Vec<(Entity, Vec2)> = q.iter(app.world()).map(|(e, u)| (e, u.stands.clone())).collect::<Vec<_>>().into_iter().map(|(e, s)| (e, app.world().get::<Footprint>(s[0]).unwrap().centre)).collect();
        let (near, at) = units[0];
        let (far, far_at) = *units.iter().max_by(|a, b| a.1.distance(at).total_cmp(&b.1.distance(at))).unwrap();
        // Zoomed in on the first unit: the farthest one is off screen.
        let view = View { rect: egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1000.0, 600.0)), centre: at, ppi: 40.0, fit_pending: false, preset: None };
        app.insert_resource(view);
        assert!(!view.rect.contains(view.to_screen(far_at)));
        app.world_mut().write_message(CentreOn(near));
        app.update();
        assert_eq!(app.world().resource::<View>().centre, at, "a unit already in view: the table stays put");
        app.world_mut().write_message(CentreOn(far));
        app.update();
        let v = *app.world().resource::<View>();
        // Centred on the unit's stands (its first stand is some way from the middle), zoom kept.
        let inner = egui::Rect::from_center_size(v.rect.center(), v.rect.size() * COMFORTABLY_IN_VIEW);
        assert!(inner.contains(v.to_screen(far_at)) && v.ppi == 40.0, "{:?} for a unit whose first stand is at {far_at:?}", v.centre);
    }
}
