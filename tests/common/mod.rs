//! Helpers shared by the engine's integration tests: apply or fail, a refusal that changes
//! nothing, and drawing chits up to a brigade.
#![allow(dead_code)]

pub mod invariants;

use otp::rules::otp::engine::{Action, Game, Refusal, Report};

pub fn ok(g: &mut Game, a: Action) -> Report {
    g.apply(a.clone()).unwrap_or_else(|r| panic!("{a:?}: {r}"))
}

/// Refused under `rule`, with the game (world, sequence, dice) exactly as before.
pub fn refused(g: &mut Game, a: Action, rule: &str) -> Refusal {
    let (before, thrown, actions) = (g.snapshot(), g.dice_thrown(), g.actions().len());
    let r = g.apply(a.clone()).expect_err(&format!("{a:?} should be refused"));
    assert_eq!(r.rule, rule, "{a:?}: {r}");
    assert_eq!(g.snapshot(), before, "{a:?} was refused but changed the game");
    assert_eq!((g.dice_thrown(), g.actions().len()), (thrown, actions), "{a:?}: no dice, no action recorded");
    r
}

/// Draw chits until `brigade` is phasing.
pub fn activate(g: &mut Game, brigade: &str) {
    while g.phasing_brigade().as_deref() != Some(brigade) {
        if g.phasing_brigade().is_some() {
            ok(g, Action::EndActivation);
        }
        ok(g, Action::DrawChit);
    }
}

/// A 72" x 48" table with `terrain` (a RON list): the British (chit 1, "Redcoats", Col. Red) and
/// the Americans (chit 2, "Patriots", Col. Blue), each side's units given as RON unit entries.
pub fn two_brigades(british: &str, americans: &str, terrain: &str, file: &str) -> otp::scenario::Scenario {
    let src = format!(
        r#"(
    name: "{file}",
    table: (width: 72.0, depth: 48.0),
    terrain: [{terrain}],
    sides: [
        (name: "British", brigades: [(name: "Redcoats", chit: 1,
            commander: (name: "Col. Red", kind: British, rating: Some(Aggressive), at: Some((1.0, 1.0))), units: [{british}])]),
        (name: "Americans", brigades: [(name: "Patriots", chit: 2,
            commander: (name: "Col. Blue", kind: Continental, rating: Some(Aggressive), at: Some((71.0, 47.0))), units: [{americans}])]),
    ],
)"#
    );
    otp::scenario::parse(&src, file).unwrap_or_else(|e| panic!("{e}"))
}
