//! `otp melee SCENARIO ATTACKER DEFENDER [--json]`: the charge at the scenario's set-up as the
//! engine declares it (`Game::charge_preview_when`): its geometry (`table::contact`), the
//! closing roll, both sides' melee values with the attacker placed in contact, and the exact
//! outcomes; or the engine's refusal, with its rule and words.

use serde_json::{Value, json};

use crate::rules::otp::engine::{Asked, ChargeOptions, Refusal};
use crate::rules::otp::engine::charge::ChargePreview;
use crate::rules::otp::melee::{MeleeSide, Refused, Winner};
use crate::scenario::Scenario;
use crate::table::aspect::AttackZone;

/// Everything `otp melee` shows.
struct Judged {
    attacker: String,
    defender: String,
    preview: ChargePreview,
}

/// The engine's verdict on the charge, as if the attacker's brigade had just been drawn (4.3);
/// with `special`, as a special move to contact (6.8).
fn judge(scenario: &Scenario, attacker: &str, defender: &str, special: bool) -> Result<Judged, Refused> {
    let game = super::at_setup(scenario);
    let options = ChargeOptions { special, ..ChargeOptions::default() };
    let preview = game.charge_preview_when(Asked::AsIfDrawn, attacker, defender, options).map_err(|Refusal { rule, reason, .. }| (rule, reason))?;
    Ok(Judged { attacker: attacker.to_string(), defender: defender.to_string(), preview })
}

fn zone_name(z: AttackZone) -> &'static str {
    match z {
        AttackZone::Front => "front",
        AttackZone::Flank => "flank",
        AttackZone::Rear => "rear",
    }
}

/// The JSON of `otp melee --json`: `closure` ("front", "flank" or "rear"),
/// `closure_probability`, `closure_check` (CV, modifiers each with `rule`), `path` (the charge's
/// geometry), `attacker` and `defender` (each `units`, every factor with its rule, and
/// `total`), `outcomes` (each MELEE COMBAT row: `winner`, `ratio`, `probability`,
/// `winner_losses` and `loser_losses` as `{figures, probability}`, `loser_retreat_moves`,
/// `bonus_move`), `attacker_wins`, `bonus_move` (the attacker wins at 2:1 or better, 6.10),
/// `defender_bonus_move` (all before any fire at the charge), and `closing_fire` (the target's
/// fire at the attacker in contact, 9.7 or 9.4: `rule`, its `outcomes`, and `attacker_wins`,
/// `bonus_move`, `destroyed` counting it; null when none comes). Err: a refusal (rule, reason), or ("", message) for an unknown name.
pub fn melee_command_json(scenario: &Scenario, attacker: &str, defender: &str, special: bool) -> Result<Value, Refused> {
    let j = judge(scenario, attacker, defender, special)?;
    let (melee, outcomes) = (&j.preview.melee, &j.preview.outcomes);
    let losses = |l: &[(u32, f64)]| l.iter().map(|(n, p)| json!({ "figures": n, "probability": p })).collect::<Vec<_>>();
    let rows: Vec<Value> = outcomes
        .rows
        .iter()
        .map(|r| {
            json!({
                "winner": r.winner,
                "ratio": r.ratio,
                "probability": r.probability,
                "winner_losses": losses(&r.winner_losses),
                "loser_losses": losses(&r.loser_losses),
                "loser_retreat_moves": r.loser_retreat_moves,
                "bonus_move": r.bonus_move,
            })
        })
        .collect();
    let p = &j.preview.path;
    Ok(json!({
        "attacker_unit": j.attacker,
        "defender_unit": j.defender,
        "special_move": j.preview.special,
        "closure": zone_name(j.preview.closure.zone),
        "closure_probability": j.preview.closure.probability,
        "closure_check": j.preview.closure,
        "reaction": j.preview.reaction,
        "path": {
            "face": p.face,
            "distance": p.distance,
            "original_distance": p.original_distance,
            "facing": p.facing,
            "climbed_slope": p.climbed_slope,
            "descended_slope": p.descended_slope,
            "crossed_ford": p.crossed_ford,
            "disordering": p.disordering.iter().map(|(n, t)| json!({ "terrain": n, "type": t })).collect::<Vec<_>>(),
            "obstacles": p.obstacles,
            "in_the_open": p.in_the_open,
            "interpenetrates": p.interpenetrates,
            "problem": p.problem,
            "stands": p.stands,
        },
        "attacker": melee.attacker,
        "defender": melee.defender,
        "commanders": melee.commanders,
        "outcomes": rows,
        "attacker_wins": outcomes.attacker_wins,
        "bonus_move": outcomes.bonus_move,
        "defender_bonus_move": outcomes.defender_bonus_move,
        "closing_fire": j.preview.closing_fire.as_ref().map(|c| json!({
            "rule": c.rule,
            "outcomes": c.fire.outcomes.iter().map(|o| json!({ "result": o.label, "kills": o.kills, "morale_marker": o.morale_marker, "probability": o.probability })).collect::<Vec<_>>(),
            "attacker_wins": c.attacker_wins,
            "bonus_move": c.bonus_move,
            "destroyed": c.destroyed,
        })),
    }))
}

fn pct(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

fn signed(v: i32) -> String {
    format!("{v:+}")
}

/// "0–3 figures (mean 1.50)", or "none".
fn losses_text(l: &[(u32, f64)]) -> String {
    let lo = l.iter().filter(|x| x.1 > 0.0).map(|x| x.0).min().unwrap_or(0);
    let hi = l.iter().filter(|x| x.1 > 0.0).map(|x| x.0).max().unwrap_or(0);
    let mean: f64 = l.iter().map(|(n, p)| *n as f64 * p).sum();
    if hi == 0 { "no figures".into() } else { format!("{lo}–{hi} figures (mean {mean:.2})") }
}

/// "OTP 9.12" or "OTP 9.1; reconstructed: …": the chart's provenance only when it adds something.
fn cite(rule: &str, provenance: &crate::rules::otp::charts::Source) -> String {
    if provenance.is_text() { format!("OTP {rule}") } else { format!("OTP {rule}; {}", provenance.cited(crate::rules::cite::RuleSetId::Otp)) }
}

fn side_text(out: &mut String, who: &str, side: &MeleeSide) {
    for u in &side.units {
        out.push_str(&format!("  {who} {} fighting {} (OTP 9.8):\n", u.name, u.opponents.join(", ")));
        out.push_str(&format!("    {} figures in combat: {} (OTP {})\n", u.figures, u.figures_note, u.figures_rule));
        out.push_str(&format!("    CV {} (OTP 2.0, 4.2)\n", u.cv));
        for m in &u.modifiers {
            let detail = m.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default();
            out.push_str(&format!("      {} {}{detail} ({})\n", signed(m.value), m.label, cite(&m.rule, &m.provenance)));
        }
        out.push_str(&format!("    modified CV {} (OTP 9.10-9.13)\n", u.modified_cv));
        for m in &u.multipliers {
            let detail = m.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default();
            out.push_str(&format!("      x{} {}{detail} (OTP {})\n", m.factor, m.label, m.rule));
        }
        let factors: String = u.multipliers.iter().map(|m| format!(" x {}", m.factor)).collect();
        out.push_str(&format!("    melee value {} x {}{factors} = {} (OTP 9.8, rounded up 5.3)\n", u.figures, u.modified_cv.max(0), u.value));
    }
    out.push_str(&format!("  {who} total {} (OTP 9.8)\n", side.total));
}

/// The text of `otp melee`: every line with its rule.
pub fn melee_command_text(scenario: &Scenario, attacker: &str, defender: &str, special: bool) -> Result<String, Refused> {
    let j = judge(scenario, attacker, defender, special)?;
    let p = &j.preview.path;
    let c = &j.preview.closure;
    let mut out = format!("{} charges {} (OTP 9.0)\n", j.attacker, j.defender);
    let zone = match c.zone {
        AttackZone::Front => "a front attack: it starts in front of the line drawn out along the target's front (OTP 9.1)",
        AttackZone::Flank => "a flank attack: it starts behind the line drawn out along the target's front (OTP 9.1)",
        AttackZone::Rear => "a rear attack: it starts directly behind the target (OTP 9.1)",
    };
    out.push_str(&format!("  {zone}\n"));
    if j.preview.special {
        out.push_str("  a special move to contact: its full move plus the averaging dice rolled once it closes; short of contact it moves its whole special move and takes a Morale Marker (OTP 6.8)\n");
    }
    out.push_str(&format!("  {:.2}\" apart at the start, edge to edge; the charge moves {:.2}\" to contact (OTP 6.1, 6.3, 9.7)\n", p.original_distance, p.distance));
    if p.climbed_slope {
        out.push_str("  climbs a hill slope on the way: the defender fights uphill (OTP 9.12)\n");
    }
    if p.descended_slope {
        out.push_str("  comes down a hill slope: the attacker attacks downhill (OTP 9.12)\n");
    }
    if p.crossed_ford {
        out.push_str("  crosses a ford (OTP 9.12)\n");
    }
    for (t, kind) in &p.disordering {
        out.push_str(&format!("  disordering terrain {t} (type {kind:?}): a disorder roll, none for charging cavalry or a special move (OTP 6.6, 6.8, 6.9)\n"));
    }
    for o in &p.obstacles {
        out.push_str(&format!("  crosses {o}: forbidden to charging cavalry (OTP 6.7, 6.9)\n"));
    }
    out.push_str(&format!("  {} (OTP 9.12)\n", if p.in_the_open { "in the open" } else { "not in the open" }));
    for u in &p.interpenetrates {
        out.push_str(&format!("  would pass through {u}: units may not interpenetrate (OTP 6.5)\n"));
    }
    if let Some(problem) = &p.problem {
        out.push_str(&format!("  the move as planned is not allowed: {} (OTP {})\n", problem.reason, problem.section));
    }
    if c.automatic {
        out.push_str("closure: automatic on a flank or rear, no roll (OTP 9.1)\n");
    } else {
        let roll = crate::rules::dice::d10_at_or_under(c.total_modifier, &format!("CV {}", c.cv));
        out.push_str(&format!("closure: {roll} closes: {} (OTP 9.1)\n", pct(c.probability)));
        for m in &c.modifiers {
            let detail = m.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default();
            out.push_str(&format!("  {} {}{detail} ({})\n", signed(m.value), m.label, cite(&m.rule, &m.provenance)));
        }
    }
    if let Some(r) = &j.preview.reaction {
        out.push_str(&format!("reaction once closed: {} it {}: {}; else it withdraws two full line moves with a Morale Marker, no melee (OTP 9.4, 9.6)\n", r.roll_text(), r.passing(), pct(r.stands())));
        for m in &r.roll.modifiers {
            let detail = m.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default();
            out.push_str(&format!("  {} {}{detail} ({})\n", signed(m.value), m.label, cite(&m.rule, &m.provenance)));
        }
    }
    out.push_str("melee, the attacker in contact (OTP 9.8-9.14):\n");
    side_text(&mut out, "attacker", &j.preview.melee.attacker);
    side_text(&mut out, "defender", &j.preview.melee.defender);
    for c in &j.preview.melee.commanders {
        out.push_str(&format!("  {} with {} is a casualty on a D10 of 0-3: {} (OTP 9.11)\n", c.name, c.unit, pct(c.casualty)));
    }
    out.push_str("outcomes: each side adds a D10 to its total, ties re-rolled (OTP 9.8):\n");
    for r in &j.preview.outcomes.rows {
        let who = if r.winner == Winner::Attacker { "attacker" } else { "defender" };
        let bonus = if r.bonus_move { "; the winner may make a bonus move (OTP 6.10)" } else { "" };
        out.push_str(&format!(
            "  {who} wins {} {:>6}: loser loses {}, retreats {} full move(s); winner loses {} (OTP 9.8){bonus}\n",
            r.ratio,
            pct(r.probability),
            losses_text(&r.loser_losses),
            r.loser_retreat_moves,
            losses_text(&r.winner_losses)
        ));
    }
    match &j.preview.closing_fire {
        None => out.push_str(&format!("attacker wins {} once closed; wins at 2:1 or better (bonus move) {} (OTP 9.8, 6.10)\n", pct(j.preview.outcomes.attacker_wins), pct(j.preview.outcomes.bonus_move))),
        Some(c) => {
            out.push_str(&format!("attacker wins {} once closed if nothing hits it first; wins at 2:1 or better (bonus move) {} (OTP 9.8, 6.10)\n", pct(j.preview.outcomes.attacker_wins), pct(j.preview.outcomes.bonus_move)));
            let results: Vec<String> = c.fire.outcomes.iter().rev().filter(|o| o.probability > 0.0).map(|o| format!("{} {}", o.label, pct(o.probability))).collect();
            let when = if c.rule == "9.4" { "if it passes its reaction, " } else { "" };
            out.push_str(&format!("but first, {when}{} fires at the attacker in contact, as if at 2\" or less (OTP {}, 8.3): {}\n", j.defender, c.rule, results.join(", ")));
            out.push_str(&format!(
                "attacker wins {} once closed, counting that fire (its kills come off before the melee, its Morale Marker disorders the attacker: OTP 9.13, 10.1); at 2:1 or better {}; destroyed before it strikes {}\n",
                pct(c.attacker_wins),
                pct(c.bonus_move),
                pct(c.destroyed)
            ));
        }
    }
    out.push_str("artillery that loses a melee is removed, not rolled for (OTP 7.2); a unit losing a figure takes a Morale Marker (OTP 9.8)");
    Ok(out)
}
