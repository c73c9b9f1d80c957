//! The line-of-sight overlay's readout (L) in OTP's words: range and band (8.3, 8.4), arc and
//! the stands that bear (8.1), line of sight (8.8), woods and the visibility roll (8.7),
//! enfilade (8.11), close range (8.3) and canister masked by friends (8.4). The geometry is
//! `fire::shot::shot_with`, the same the engine's fire uses.

use bevy::ecs::entity::Entity;

use super::super::engine::Game;
use super::super::fire::range::{ArtilleryBand, FIRE, artillery_bands, canister_masked_by, fire_mode, measured_inches, small_arms_range};
use super::super::fire::shot::shot_with;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::{Mark, SightReadout, SightRow, cited};
use crate::scenario::spawn::Unit;
use crate::table::arc::FireMode;
use crate::table::fire::FireOptions;
use crate::table::geom::EPS;
use crate::table::situation::Situation;

/// A row answering OTP's `section` (empty: a plain fact).
fn row(mark: Mark, text: impl Into<String>, section: &str) -> SightRow {
    SightRow { mark, text: text.into(), rule: (!section.is_empty()).then(|| cited(RuleSetId::Otp, section)) }
}

impl Game {
    /// The sight overlay's readout for `firer` looking at `target`: one row a question, each
    /// with its rule; `None` if either is not a unit on the table.
    pub(super) fn sight_readout_of(&self, firer: Entity, target: Entity, ball: bool) -> Option<SightReadout> {
        let (f, t) = (self.world().get::<Unit>(firer)?, self.world().get::<Unit>(target)?);
        let s = Situation::from_world(self.world());
        let i = s.find(&f.name).ok()?;
        let fu = s.unit(i);
        let (gun, weapon, stands) = (fu.gun(), fu.weapon, fu.stands.len());
        let opts = FireOptions { ball, ..FireOptions::new(&FIRE) };
        let g = match shot_with(&s, &f.name, &t.name, opts) {
            Ok(g) => g,
            Err(e) => return Some(SightReadout { rows: vec![row(Mark::Info, e, "")], woods_tag: None }),
        };
        let mut rows = Vec::new();
        if fire_mode(fu) == FireMode::None {
            let what = if gun.is_some() { "limbered guns" } else { "a march column" };
            rows.push(row(Mark::No, format!("{what} cannot fire (8.13)"), "8.13"));
        }
        let counts = measured_inches(g.range_in);
        let range = format!("range {:.1}\" (counts as {counts}\")", g.range_in);
        match (gun, weapon) {
            (Some(gun), _) => {
                let [sh, m, l] = artillery_bands(gun);
                match g.artillery_band {
                    Some(band) => {
                        let (lo, hi) = match band {
                            ArtilleryBand::Short => (0, sh),
                            ArtilleryBand::Medium => (sh + 1, m),
                            ArtilleryBand::Long => (m + 1, l),
                        };
                        rows.push(row(Mark::Yes, format!("{range}: {band} range {lo}–{hi}\" (8.4)"), "8.4"));
                    }
                    None => rows.push(row(Mark::No, format!("{range}: beyond long range {l}\" (8.4)"), "8.4")),
                }
            }
            (None, Some(w)) => {
                let r = small_arms_range(w);
                let mark = if g.in_range { Mark::Yes } else { Mark::No };
                let within = if g.in_range { "within" } else { "beyond" };
                rows.push(row(mark, format!("{range}: {within} {r}\" {} range (8.3)", w.name()), "8.3"));
            }
            (None, None) => rows.push(row(Mark::No, format!("{range}: no firearms"), "")),
        }
        if !g.in_arc {
            rows.push(row(Mark::No, "not in the firing arc (8.1)", "8.1"));
        } else if g.stands_bearing == 0 {
            rows.push(row(Mark::No, "in arc, but no stand has it within range (8.1)", "8.1"));
        } else {
            rows.push(row(Mark::Yes, format!("in arc: {} of {stands} stands bear, {} figures (8.1)", g.stands_bearing, g.figures_bearing), "8.1"));
        }
        if g.los_clear {
            rows.push(row(Mark::Yes, "line of sight clear (8.8)", "8.8"));
        } else if g.blocked_by.is_empty() {
            rows.push(row(Mark::No, "line of sight blocked (8.8)", "8.8"));
        } else {
            rows.push(row(Mark::No, format!("blocked by {} (8.8)", g.blocked_by.join(", ")), "8.8"));
        }
        let named = g.woods_on_line.iter().map(|w| w.to_string()).collect::<Vec<_>>().join("; ");
        let roll = g.woods_in >= 1.0 - EPS;
        if roll {
            rows.push(row(Mark::Warn, format!("{:.1}\" of woods on the line ({named}): visibility roll needed (8.7)", g.woods_in), "8.7"));
        } else if g.woods_in > EPS {
            rows.push(row(Mark::Info, format!("{:.1}\" of woods ({named}): under 1\", no visibility roll (8.7)", g.woods_in), "8.7"));
        }
        if g.enfilade {
            // The values are this game's FIRE chart's (8.11), so a player's own charts show here too.
            let what: Vec<String> = self.enfilade_factors_of(firer, ball).iter().map(|f| format!("{} {}", f.value, f.name)).collect();
            rows.push(row(Mark::Yes, if what.is_empty() { "enfilade (8.11)".to_string() } else { format!("enfilade: {} (8.11)", what.join(", ")) }, "8.11"));
        } else {
            rows.push(row(Mark::No, "no enfilade: in front of the target's front line (8.11)", "8.11"));
        }
        if gun.is_none() && weapon.is_some() {
            if g.close_range {
                rows.push(row(Mark::Yes, "close range: 2\" or less (8.3)", "8.3"));
            } else {
                rows.push(row(Mark::No, "not close range (over 2\", 8.3)", "8.3"));
            }
        }
        let masked = if gun.is_some() { canister_masked_by(&s, i) } else { Vec::new() };
        if let (Some(ArtilleryBand::Short), false) = (g.artillery_band, masked.is_empty()) {
            rows.push(row(Mark::No, format!("no canister: {} in the arc at short range (8.4)", masked.join(", ")), "8.4"));
        }
        let woods_tag = (g.woods_in > EPS).then(|| if roll { format!("⚠ {named}: visibility roll (8.7)") } else { format!("{named}: under 1\", no roll (8.7)") });
        Some(SightReadout { rows, woods_tag })
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::engine::{Engine, Mark};
    use crate::rules::otp::engine::testing::teaching;

    // OTP 8.4, 8.7, 8.8: the teaching battle's guns on the ridge at the 23rd Foot: medium range,
    // a clear line across the Wheat Field (tall crops, seen as light woods) calling for a
    // visibility roll; each row cites its rule, and the woods are named and measured as `otp
    // fire` gives them (#13 item 11: one figure and one name everywhere).
    #[test]
    fn the_readout_cites_its_rules_and_agrees_with_otp_fire() {
        let g = teaching(1);
        let engine: &dyn Engine = &g;
        let (guns, foot) = (g.unit_entity("Continental Artillery").unwrap(), g.unit_entity("23rd Foot").unwrap());
        let r = engine.sight_readout(guns, foot, false).unwrap();
        let row = |section: &str| r.rows.iter().find(|x| x.rule.as_deref() == Some(&format!("OTP {section}")[..])).unwrap_or_else(|| panic!("{section}: {r:?}"));
        assert_eq!((row("8.4").mark, row("8.8").mark, row("8.7").mark), (Mark::Yes, Mark::Yes, Mark::Warn));
        assert!(row("8.4").text.contains("medium range 10–18\" (8.4)"), "{r:?}");
        assert!(r.rows.iter().all(|x| x.rule.as_ref().is_some_and(|c| x.text.contains(&format!("{})", c.trim_start_matches("OTP "))))), "each row ends with its rule: {r:?}");
        let cli = crate::rules::otp::cli::fire_command_text(&crate::scenario::default_scenario(), "Continental Artillery", "23rd Foot", false).unwrap().answer;
        let label = row("8.7").text.split('(').nth(1).unwrap().split(')').next().unwrap().to_string();
        assert!(label.starts_with("Wheat Field — tall crops, seen as light woods, ") && cli.contains(&label), "{label} in {cli}");
        assert_eq!(r.woods_tag.as_deref(), Some(&format!("⚠ {label}: visibility roll (8.7)")[..]));
        // Not a unit: no readout.
        assert!(engine.sight_readout(guns, bevy::ecs::entity::Entity::PLACEHOLDER, false).is_none());
    }
}
