//! The invariants of a game in progress, shared by the simulation tests (`tests/simulate.rs`)
//! and the every-scenario games (`tests/scenarios.rs`).

use otp::rules::otp::engine::Game;
use otp::scenario::spawn::{MoraleMarker, Stand};
use otp::table::footprint::Footprint;

/// Every invariant of the game state, with the seed in the message.
pub fn check(g: &Game, seed: u64) {
    let world = g.world();
    let mut stands: Vec<(String, Footprint)> = Vec::new();
    for (e, u) in g.units() {
        // OTP 4.2, 8.2, 11.0: figures between none and the starting strength, sheet = stands.
        assert!(u.figures <= u.initial_figures, "seed {seed}: {} has {} of {}", u.name, u.figures, u.initial_figures);
        let on: u32 = u.stands.iter().map(|&s| world.get::<Stand>(s).expect("a stand").figures).sum();
        assert_eq!(on, u.figures, "seed {seed}: {}'s stands", u.name);
        // OTP 8.2, 9.8, 7.2: a unit with no figures left is off the table.
        assert!(u.figures > 0, "seed {seed}: {} has no figures but is still on the table", u.name);
        // OTP 10.2: one Morale Marker at most (a marker is a single component).
        assert!(world.get::<MoraleMarker>(e).iter().count() <= 1);
        // OTP 11.0, 4.2: at most four rebuild attempts.
        assert!(u.rebuild_attempts <= 4, "seed {seed}: {} tried {} rebuilds", u.name, u.rebuild_attempts);
        if !g.unit_turn(e).off_table {
            stands.extend(u.stands.iter().map(|&s| (u.name.clone(), *world.get::<Footprint>(s).expect("a footprint"))));
        }
    }
    // OTP 6.5, 6.7: no stand of one unit overlaps a stand of another.
    for (i, (a, fa)) in stands.iter().enumerate() {
        for (b, fb) in &stands[i + 1..] {
            assert!(a == b || !fa.overlaps(fb, 0.01), "seed {seed}: {a} overlaps {b}");
        }
    }
    // OTP 10.4, 10.5: passes used never exceed the rating's passes.
    for (c, cmd) in g.commanders() {
        if let Some(r) = cmd.rating {
            let passes = g.charts().commanders.passes(r) as u32;
            assert!(cmd.morale_passes_used <= passes || g.passes_left(c) == 0, "seed {seed}: {} used {} of {passes}", cmd.name, cmd.morale_passes_used);
        }
    }
}
