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
