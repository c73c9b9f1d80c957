//! The exact odds of an action before its dice are thrown, as the interface's preview blocks:
//! a shot (8.x) from the fire module's preview, a charge (9.x) from the melee module's. The
//! numbers are those previews' own; this file only puts them in blocks.

use super::super::engine::charge::ChargePreview;
use super::super::engine::{Action as OtpAction, Game};
use super::super::fire::FirePreview;
use super::super::melee::UnitValue;
use crate::rules::cite::{RuleSetId, Source};
use crate::rules::engine::{Fact, Factor, Odds, Preview, PreviewBlock, cited};
use crate::rules::report::Refusal;
use crate::table::aspect::AttackZone;

fn otp(section: &str) -> String {
    cited(RuleSetId::Otp, section)
}

fn fact(text: impl Into<String>, section: &str) -> Fact {
    Fact { text: text.into(), rule: otp(section) }
}

/// A percentage as the panels print it.
fn pct(p: f64) -> String {
    let v = 100.0 * p;
    if v > 0.0 && v < 0.1 { "<0.1%".into() } else { format!("{v:.1}%") }
}

/// A modifier's snake-case name as words.
fn words(name: &str) -> String {
    name.replace('_', " ")
}

/// A die-roll modifier: the chart's words and what on the table gave it as its detail.
fn modifier(name: &str, value: i32, rule: &str, label: &str, detail: Option<&str>, source: &Source) -> Factor {
    let detail = match detail {
        Some(d) => format!("{label}\nhere: {d}"),
        None => label.to_string(),
    };
    Factor { name: words(name), value: format!("{value:+}"), rule: otp(rule), detail: Some(detail), source: Some(source.clone()) }
}

impl Game {
    pub(super) fn preview_of(&self, action: &OtpAction) -> Result<Option<Preview>, Refusal> {
        self.check(action)?;
        Ok(match action {
            OtpAction::Fire { unit, target, ammo } => Some(fire_blocks(&self.fire_preview(unit, target, *ammo)?)),
            OtpAction::Charge { unit, target } => Some(charge_blocks(unit, target, &self.charge_preview(unit, target, Default::default())?)),
            OtpAction::ChargeWith { unit, target, options } => Some(charge_blocks(unit, target, &self.charge_preview(unit, target, *options)?)),
            // Morale and rebuild rolls (10.x, 11.x): `super::morale`.
            OtpAction::RemoveMarker { .. } | OtpAction::AttemptRebuild { .. } => self.morale_preview(action),
            _ => None,
        })
    }
}

/// 8.1–8.16: the shot's facts, the chance of every FIRE COMBAT result, commanders' risk (8.16),
/// and every modifier with its rule and provenance.
pub(crate) fn fire_blocks(p: &FirePreview) -> Preview {
    let ammo = match p.shot.ammo {
        Some(a) => format!(" — {}", super::super::engine::describe::ammo(a)),
        None => String::new(),
    };
    let g = &p.geometry;
    let mut facts = Vec::new();
    let band = g.band.map(|b| format!(", {} range", format!("{b:?}").to_lowercase())).unwrap_or_default();
    facts.push(fact(format!("Range {:.1}\"{band}", g.range), if g.band.is_some() { "8.4" } else { "8.3" }));
    let stands = if g.stands.len() == 1 { "1 stand".to_string() } else { format!("{} stands", g.stands.len()) };
    facts.push(fact(format!("{stands} fire, {} figure(s)", g.figures), "8.1"));
    facts.push(fact(format!("chart column: {}", p.column.label), "8.1"));
    if let Some(c) = &g.cover {
        facts.push(fact(format!("target in {} cover ({})", format!("{:?}", c.class).to_lowercase(), c.features.join(", ")), "8.6"));
    }
    if g.enfilade {
        facts.push(fact("enfilade", "8.11"));
    }
    let mut blocks = vec![PreviewBlock { facts, ..Default::default() }];
    if let Some(v) = &p.visibility {
        let text = format!("Woods on the sight line: {}; {:?} woods' visibility {}AD{:+}\" — {} nothing seen", v.on_line_text(), v.woods, v.dice, v.plus, pct(v.not_visible));
        blocks.push(PreviewBlock { facts: vec![fact(text, "8.7")], ..Default::default() });
    }
    // The most harm first.
    let odds = p
        .outcomes
        .iter()
        .rev()
        .map(|o| {
            let marker = if o.morale_marker { " + Morale Marker" } else { "" };
            Odds { outcome: format!("{}{marker}  ({} in {})", o.label, o.ways, o.out_of), chance: o.probability }
        })
        .collect();
    blocks.push(PreviewBlock { heading: "Result (D10 + modifiers, FIRE COMBAT chart)".into(), odds, ..Default::default() });
    if !p.commander_casualties.is_empty() {
        let facts = p.commander_casualties.iter().map(|c| fact(format!("{} — {} ({}) a casualty", pct(c.probability), c.commander, c.unit), "8.16")).collect();
        blocks.push(PreviewBlock { facts, ..Default::default() });
    }
    let factors = p.modifiers.iter().map(|m| modifier(&m.name, m.value, &m.rule, &m.label, m.detail.as_deref(), &m.provenance)).collect();
    blocks.push(PreviewBlock { heading: format!("Modifiers: total {:+} (low rolls are good for the firer)", p.total_modifier), factors, ..Default::default() });
    if p.uses_initial_volley {
        blocks.push(PreviewBlock { facts: vec![fact("Fires its initial volley", "8.5")], ..Default::default() });
    }
    Preview { title: format!("{} fires at {}{ammo}", p.shot.firer, p.shot.target), blocks }
}

fn zone_text(z: AttackZone) -> &'static str {
    match z {
        AttackZone::Front => "front attack",
        AttackZone::Flank => "flank attack (closes automatically, ×2 in melee)",
        AttackZone::Rear => "rear attack (closes automatically, ×3 in melee)",
    }
}

/// One unit's melee value (9.8): the figures in combat, its CV's modifiers and multipliers.
fn melee_value(v: &UnitValue) -> (Fact, Vec<Factor>) {
    let mult: String = v.multipliers.iter().map(|m| format!(" ×{}", m.factor)).collect();
    let cv = if v.cv == v.modified_cv { v.cv.to_string() } else { format!("{} (from {})", v.modified_cv, v.cv) };
    let text = format!("{}: {} fig × CV {cv}{mult} = {}", v.name, v.figures, v.value);
    let figures = Factor { name: format!("figure(s) of {} in combat", v.name), value: v.figures.to_string(), rule: otp(&v.figures_rule), detail: Some(v.figures_note.clone()), source: None };
    let mut factors: Vec<Factor> = vec![figures];
    factors.extend(v.modifiers.iter().map(|m| modifier(&m.name, m.value, &m.rule, &m.label, m.detail.as_deref(), &m.provenance)));
    for m in &v.multipliers {
        factors.push(Factor { name: words(&m.name), value: format!("×{}", m.factor), rule: otp(&m.rule), detail: Some(m.label.clone()), source: Some(m.provenance.clone()) });
    }
    (fact(text, "9.8"), factors)
}

/// 9.0–9.14: where the charge strikes, the closure roll (9.1), each side's melee value with its
/// factors (9.8–9.14) and the chance of every MELEE COMBAT row.
pub(crate) fn charge_blocks(attacker: &str, target: &str, p: &ChargePreview) -> Preview {
    let special = if p.special { " by a special move (6.8)" } else { "" };
    let mut blocks = vec![PreviewBlock { facts: vec![fact(format!("{} · charge move {:.1}\" (judged from where {attacker} starts)", zone_text(p.zone), p.distance), "9.1")], ..Default::default() }];
    let c = &p.closure;
    let closure = if c.automatic {
        PreviewBlock { heading: "Closure (OTP 9.1)".into(), odds: vec![Odds { outcome: "closes automatically".into(), chance: 1.0 }], ..Default::default() }
    } else {
        let roll = crate::rules::dice::d10_at_or_under(c.total_modifier, &format!("CV {}", c.cv));
        PreviewBlock {
            heading: "Closure (OTP 9.1)".into(),
            facts: vec![fact(format!("Closes on a {roll}"), "9.1")],
            factors: c.modifiers.iter().map(|m| modifier(&m.name, m.value, &m.rule, &m.label, m.detail.as_deref(), &m.provenance)).collect(),
            odds: vec![Odds { outcome: "closes".into(), chance: c.probability }, Odds { outcome: "fails to close (9.2)".into(), chance: 1.0 - c.probability }],
        }
    };
    blocks.push(closure);
    if let Some(r) = &p.reaction {
        blocks.push(PreviewBlock {
            heading: format!("{target}'s reaction once closed (OTP 9.4)"),
            facts: vec![fact(format!("Stands on a {}", r.roll_text()), "9.6")],
            factors: r.roll.modifiers.iter().map(|m| modifier(&m.name, m.value, &m.rule, &m.label, m.detail.as_deref(), &m.provenance)).collect(),
            odds: vec![Odds { outcome: r.passing().into(), chance: r.stands() }, Odds { outcome: "withdraws two full line moves with a Morale Marker: no melee".into(), chance: 1.0 - r.stands() }],
        });
    }
    for (side, title) in [(&p.melee.attacker, "Attacker"), (&p.melee.defender, "Defender")] {
        let (mut facts, mut factors) = (Vec::new(), Vec::new());
        for v in &side.units {
            let (f, mut fs) = melee_value(v);
            facts.push(f);
            factors.append(&mut fs);
        }
        blocks.push(PreviewBlock { heading: format!("{title}'s melee value if it closes: {} (OTP 9.8–9.14)", side.total), facts, factors, odds: Vec::new() });
    }
    let o = &p.outcomes;
    let mut rows: Vec<_> = o.rows.iter().collect();
    rows.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    let odds = rows
        .into_iter()
        .map(|r| {
            let mean: f64 = r.loser_losses.iter().map(|(n, p)| *n as f64 * p).sum();
            Odds { outcome: format!("{} wins {}; loser loses ~{mean:.1} fig, retreats {}", format!("{:?}", r.winner).to_lowercase(), r.ratio, r.loser_retreat_moves), chance: r.probability }
        })
        .collect();
    let facts = vec![
        fact(format!("Attacker wins {} · bonus move (2:1 or better) {}", pct(o.attacker_wins), pct(o.bonus_move)), "6.10"),
        fact("Before closing fire, reactions and countercharges", "9.4, 9.5, 9.7"),
    ];
    blocks.push(PreviewBlock { heading: "Melee odds (each side adds a D10; ties re-roll)".into(), facts, factors: Vec::new(), odds });
    if let Some(c) = &p.closing_fire {
        let odds = c.fire.outcomes.iter().rev().filter(|o| o.probability > 0.0).map(|o| Odds { outcome: format!("{}{}", o.label, if o.morale_marker { " + Morale Marker" } else { "" }), chance: o.probability }).collect();
        let facts = vec![
            fact(format!("{}{target} fires at {attacker} in contact, as if at 2\" or less", if c.rule == "9.4" { "Passing its reaction, " } else { "" }), &format!("{}, 8.3", c.rule)),
            fact(format!("Its kills come off before the melee, its Morale Marker disorders the attacker · bonus move {} · destroyed first {}", pct(c.bonus_move), pct(c.destroyed)), "9.8, 9.13, 10.1"),
        ];
        blocks.push(PreviewBlock { heading: format!("Fire at the charge before the melee (OTP {}): then the attacker wins {}", c.rule, pct(c.attacker_wins)), facts, factors: Vec::new(), odds });
    }
    Preview { title: format!("{attacker} charges {target}{special}"), blocks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::engine::Engine;
    use crate::rules::otp::engine::testing::{activate, in_range, ok, teaching};
    use crate::table::movement::MoveStep;


    fn fire() -> crate::rules::action::Action {
        crate::rules::action::Action::Fire { unit: "Delaware Light Infantry".into(), target: "71st Light Company".into() }
    }

    // OTP 8.1, 8.2: the preview of a shot through the interface carries fire_preview's exact
    // odds (summing to 1) and every modifier with its rule, value and provenance.
    #[test]
    fn a_shots_preview_carries_fire_previews_odds_and_modifiers() {
        let g = in_range(3);
        let p = g.fire_preview("Delaware Light Infantry", "71st Light Company", None).unwrap();
        let engine: &dyn Engine = &g;
        let view = engine.preview(&fire()).unwrap().expect("a shot throws dice");
        let odds: Vec<&Odds> = view.blocks.iter().flat_map(|b| &b.odds).collect();
        assert_eq!(odds.len(), p.outcomes.len());
        let mut chances: Vec<f64> = odds.iter().map(|o| o.chance).collect();
        chances.reverse();
        assert_eq!(chances, p.outcomes.iter().map(|o| o.probability).collect::<Vec<_>>());
        assert!((chances.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        for o in &p.outcomes {
            assert!(odds.iter().any(|x| x.outcome.starts_with(&o.label) && x.outcome.contains(&format!("({} in {})", o.ways, o.out_of))), "{o:?}");
        }
        let factors: Vec<&Factor> = view.blocks.iter().flat_map(|b| &b.factors).collect();
        assert!(!p.modifiers.is_empty(), "this shot has modifiers");
        assert_eq!(factors.len(), p.modifiers.len());
        for (f, m) in factors.iter().zip(&p.modifiers) {
            assert_eq!((f.name.as_str(), f.value.as_str(), f.rule.as_str()), (words(&m.name).as_str(), format!("{:+}", m.value).as_str(), format!("OTP {}", m.rule).as_str()));
            assert_eq!(f.source.as_ref(), Some(&m.provenance));
        }
        assert!(view.blocks.iter().any(|b| b.heading.contains(&format!("{:+}", p.total_modifier))));
        assert!(view.blocks[0].facts.iter().any(|f| f.text.contains(&p.column.label)), "the chart column");
    }

    // OTP 4.3: a preview is refused as the action would be, with the same rule.
    #[test]
    fn a_refused_shot_has_no_preview_but_its_refusal() {
        let g = in_range(3);
        let engine: &dyn Engine = &g;
        let action = crate::rules::action::Action::Fire { unit: "33rd Foot".into(), target: "Delaware Light Infantry".into() };
        let refusal = engine.preview(&action).unwrap_err();
        assert_eq!(refusal.rule, "4.3");
        assert_eq!(Err(refusal), engine.check(&action));
    }

    // OTP 9.1, 9.8: a charge's preview has the closure chance and its complement, each side's
    // melee value, and MELEE COMBAT odds that sum to 1.
    #[test]
    fn a_charges_preview_has_closure_values_and_melee_odds() {
        let mut g = teaching(2);
        ok(&mut g, OtpAction::StartGame);
        activate(&mut g, "Howard's Continentals");
        ok(&mut g, OtpAction::Move { unit: "Delaware Light Infantry".into(), steps: vec![MoveStep::Forward(2.0)] });
        crate::rules::otp::engine::testing::to_rebuilds(&mut g);
        ok(&mut g, OtpAction::EndTurn);
        activate(&mut g, "Howard's Continentals");
        let p = g.charge_preview("Delaware Light Infantry", "71st Light Company", Default::default()).unwrap();
        let engine: &dyn Engine = &g;
        let action = crate::rules::action::Action::Charge { unit: "Delaware Light Infantry".into(), target: "71st Light Company".into() };
        let view = engine.preview(&action).unwrap().unwrap();
        let closure = view.blocks.iter().find(|b| b.heading.starts_with("Closure")).unwrap();
        assert_eq!(closure.odds[0].chance, p.closure.probability);
        assert!((closure.odds.iter().map(|o| o.chance).sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(closure.factors.len(), p.closure.modifiers.len());
        for (side, title) in [(&p.melee.attacker, "Attacker"), (&p.melee.defender, "Defender")] {
            let b = view.blocks.iter().find(|b| b.heading.starts_with(title)).unwrap();
            assert!(b.heading.contains(&format!(": {} ", side.total)), "{}", b.heading);
            assert_eq!(b.facts.len(), side.units.len());
            // Each unit's figures in combat (9.9), its CV modifiers and its multipliers.
            assert_eq!(b.factors.len(), side.units.iter().map(|u| 1 + u.modifiers.len() + u.multipliers.len()).sum::<usize>());
        }
        let melee = view.blocks.iter().find(|b| b.heading.starts_with("Melee odds")).unwrap();
        assert_eq!(melee.odds.len(), p.outcomes.rows.len());
        assert!((melee.odds.iter().map(|o| o.chance).sum::<f64>() - 1.0).abs() < 1e-9);
        // OTP 9.7: the 71st's fire at the charge in contact comes before the melee; its block
        // gives that fire's odds (summing to 1) and the melee's odds after it.
        let c = p.closing_fire.as_ref().expect("a front attack on a line company is fired on (9.7)");
        let fire = view.blocks.iter().find(|b| b.heading == format!("Fire at the charge before the melee (OTP {}): then the attacker wins {}", c.rule, pct(c.attacker_wins))).expect("a closing fire block");
        assert!((fire.odds.iter().map(|o| o.chance).sum::<f64>() - 1.0).abs() < 1e-9);
    }
}
