//! Issue #12, last part: OTP sections 7–10 swept for every condition on a unit's position or
//! state, each tested with a unit just inside and just outside it (a trio at an exact edge).
//! One file per section; the table of conditions is docs/rules-sweep-otp.md.
//!
//! Geometry conventions (the scenario's): a unit's `at` is the centre of its front edge, facing
//! 0° is up the table (+y); infantry stands are 2" wide (four figures), artillery sections 1".
//! So a firer at (20, 10) facing 0° and a target at (20, 10 + d) facing 180° are d" apart, edge
//! to edge.

mod s10;
mod s7;
mod s8;
mod s9;

use bevy::math::Vec2;

use otp::rules::otp::charts::Charts;
use otp::rules::otp::engine::{Action, Game};
use otp::rules::otp::fire::{FireContext, FirePreview, FireTable, Refusal, preview};
use otp::scenario::model::{Point, Table, Terrain};
use otp::table::situation::{Situation, UnitInfo};

use crate::common::{activate, ok};

pub fn charts() -> &'static Charts {
    Charts::embedded()
}

pub fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

pub fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Point> {
    vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
}

/// A 72" x 48" fire table, initial volleys spent (so a baseline shot has no modifier).
pub fn fire_table(units: Vec<UnitInfo>, terrain: Vec<Terrain>) -> FireTable {
    let mut t = FireTable::new(Situation::new(Table { width: 72.0, depth: 48.0 }, terrain, units));
    t.units.iter_mut().for_each(|u| u.initial_volley_used = true);
    t
}

/// Unit 0 fires on unit 1, its own fire operation.
pub fn look(t: &FireTable) -> Result<FirePreview, Refusal> {
    preview(&FireContext::new(t, 0, 1), charts())
}

pub fn look_ctx(ctx: FireContext) -> Result<FirePreview, Refusal> {
    preview(&ctx, charts())
}

/// The names of the modifiers of an allowed shot.
pub fn names(p: &FirePreview) -> Vec<String> {
    p.modifiers.iter().map(|m| m.name.clone()).collect()
}

/// The modifiers of unit 0 firing on unit 1, or the refusal's rule prefixed with `refused `.
pub fn verdict(t: &FireTable) -> Vec<String> {
    match look(t) {
        Ok(p) => names(&p),
        Err(r) => vec![format!("refused {}", r.rule)],
    }
}

/// A 72" x 48" scenario: the British (chit 1, "Redcoats", Col. Red at `red`) and the Americans
/// (chit 2, "Patriots", Col. Blue at `blue`), `options` the optional_rules fields in RON.
pub fn scenario(british: &str, americans: &str, terrain: &str, red: (f32, f32), blue: (f32, f32), options: &str) -> otp::scenario::Scenario {
    let src = format!(
        r#"(
    name: "sweep",
    table: (width: 72.0, depth: 48.0),
    optional_rules: ({options}),
    turn_limit: Some(5),
    terrain: [{terrain}],
    sides: [
        (name: "British", brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some(({}, {}))), units: [{british}])]),
        (name: "Americans", brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some(({}, {}))), units: [{americans}])]),
    ],
)"#,
        red.0, red.1, blue.0, blue.1
    );
    otp::scenario::parse(&src, "sweep.ron").unwrap_or_else(|e| panic!("{e}"))
}

/// Commanders out of the way in the corners.
pub const CORNERS: ((f32, f32), (f32, f32)) = ((1.0, 1.0), (71.0, 47.0));

/// A RON unit entry (`extra`: more fields, each after a comma).
#[allow(clippy::too_many_arguments)]
pub fn unit(name: &str, kind: &str, arm: &str, weapon: &str, figures: u32, formation: &str, at: (f32, f32), facing: f32, extra: &str) -> String {
    format!(r#"(name: "{name}", type: {kind}, arm: {arm}, weapon: {weapon}, figures: {figures}, formation: {formation}, at: ({}, {}), facing: {facing}{extra}),"#, at.0, at.1)
}

/// Line infantry with muskets.
pub fn foot(name: &str, figures: u32, formation: &str, at: (f32, f32), facing: f32) -> String {
    unit(name, "Line", "Infantry", "Some(Musket)", figures, formation, at, facing, "")
}

pub fn horse(name: &str, figures: u32, at: (f32, f32), facing: f32) -> String {
    unit(name, "Line", "Cavalry", "Some(Carbine)", figures, "Line", at, facing, "")
}

/// A game of `s` with `seed`, commanders rolled, `brigade` phasing.
pub fn ready(s: &otp::scenario::Scenario, seed: u64, brigade: &str) -> Game {
    let mut g = Game::new(s.clone(), seed, charts().clone());
    ok(&mut g, Action::StartGame);
    activate(&mut g, brigade);
    g
}
