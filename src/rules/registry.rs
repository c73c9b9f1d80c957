//! Which rule set plays a game: the one place outside a rule set's folder that names them. A
//! new rule set adds its arm to each `match rules` here (and its id to `cite::PLAYABLE`).
//! Opening a scenario, loading a save, and the commands every rule set answers (`otp
//! simulate`, `replay`, `fire`, `melee`) go through these.

use super::action::Action;
use super::automatic::{BySide, Level, Plain, Player};
use super::cite::RuleSetId;
use super::engine::{Engine, PreviewCommand, Printed, Replay, SaveHeader, at_field, changed_message, MAX_SAVE_BYTES};
use super::report::Refusal;
use super::simulate::{self, GameOutcome, Spread};
use crate::scenario::Scenario;

/// The rule set a `--rules` key names (`RuleSetId::key`: otp, revolution, acw-orders,
/// acw-quick, purky, tiny), if this program can play it.
pub fn parse_rules(key: &str) -> Result<RuleSetId, String> {
    let rules = RuleSetId::from_key(key).ok_or_else(|| {
        let keys: Vec<&str> = RuleSetId::ALL.iter().map(|r| r.key()).collect();
        format!("--rules {key}: no such rule set; the rule sets are {}", keys.join(", "))
    })?;
    rules.playable().map_err(|why| format!("--rules {key}: {why}"))?;
    Ok(rules)
}

/// A new game of `scenario` under `rules`, before its first action.
pub fn open(rules: RuleSetId, scenario: Scenario, seed: u64) -> Result<Box<dyn Engine>, String> {
    match rules {
        RuleSetId::Otp => Ok(Box::new(super::otp::engine::Game::new(scenario, seed, super::otp::charts::Charts::embedded().clone()))),
        RuleSetId::Tiny => Ok(super::tiny::open(scenario, seed)),
        RuleSetId::AcwQuick => Ok(super::acw_quick::open(scenario, seed)),
        RuleSetId::AcwOrders => Ok(super::acw_orders::open(scenario, seed)),
        RuleSetId::Purky => super::purky::open(scenario, seed),
        RuleSetId::Revolution => Ok(super::revolution::open(scenario, seed)),
    }
}

/// A saved game read from `text` (`file` names it in messages), replayed under the rule set it
/// names; every problem as `file:line:col: message`.
pub fn load_save(text: &str, file: &str) -> Result<Box<dyn Engine>, String> {
    let header = SaveHeader::read(text, file)?;
    match header.rules {
        RuleSetId::Otp => {
            let save = super::otp::engine::Save::parse(text, file)?;
            let game = super::otp::engine::Game::from_save_text(&save, text, file, super::otp::charts::Charts::embedded().clone())?;
            Ok(Box::new(game))
        }
        RuleSetId::Tiny => super::tiny::load_save(text, file),
        RuleSetId::AcwQuick => super::acw_quick::load_save(text, file),
        RuleSetId::AcwOrders => super::acw_orders::load_save(text, file),
        RuleSetId::Purky => super::purky::load_save(text, file),
        RuleSetId::Revolution => super::revolution::load_save(text, file),
    }
}

/// The scenario of a saved game's text, and what was edited in it since the game was played
/// (empty when nothing was), without replaying it.
pub fn save_scenario(text: &str, file: &str) -> Result<(Scenario, Vec<String>), String> {
    let header = SaveHeader::read(text, file)?;
    match header.rules {
        RuleSetId::Otp => {
            let save = super::otp::engine::Save::parse(text, file)?;
            let changed = save.scenario_changes();
            Ok((save.scenario, changed))
        }
        // Tiny saves keep no digest: nothing to compare.
        RuleSetId::Tiny => super::tiny::save::Save::parse(text, file).map(|save| (save.scenario, Vec::new())),
        RuleSetId::AcwQuick => super::acw_quick::save::Save::parse(text, file).map(|save| (save.scenario, Vec::new())),
        RuleSetId::AcwOrders => super::acw_orders::save::Save::parse(text, file).map(|save| (save.scenario, Vec::new())),
        // Purky saves keep no digest either.
        RuleSetId::Purky => super::purky::save::Save::parse(text, file).map(|save| (save.scenario, Vec::new())),
        RuleSetId::Revolution => super::revolution::save::Save::parse(text, file).map(|save| (save.scenario, Vec::new())),
    }
}

/// Replay a save's text under the rule set it names (`rules`, from `--rules`, must be that
/// one). A save whose scenario was edited since the game is refused with what changed, unless
/// `force`.
pub fn replay(text: &str, file: &str, force: bool, rules: Option<RuleSetId>) -> Result<Replay, String> {
    let header = SaveHeader::read(text, file)?;
    if let Some(asked) = rules.filter(|r| *r != header.rules) {
        return Err(at_field(text, file, "rules", format!("this game was played under {:?} ({}), not {asked:?}: a save replays under the rule set it names", header.rules, header.rules.title())));
    }
    let (_, changed) = save_scenario(text, file)?;
    if !changed.is_empty() && !force {
        return Err(format!("{}; --force replays it anyway", changed_message(file, &changed)));
    }
    let game = load_save(text, file)?;
    let mut out = format!("{} (seed {}): {} actions\n", game.scenario().name, game.seed(), game.action_count());
    for r in game.reports() {
        out.push_str(&r.to_string());
    }
    Ok(Replay { text: out, changed })
}

/// [`replay`] of a save file.
pub fn replay_file(path: &std::path::Path, force: bool, rules: Option<RuleSetId>) -> Result<Replay, String> {
    let text = crate::scenario::read_text(path, MAX_SAVE_BYTES).map_err(|e| e.to_string())?;
    replay(&text, &path.display().to_string(), force, rules)
}

/// `otp fire` / `otp melee` under `rules`: `unit` shooting at or charging `target` at set-up,
/// as the rule set prints it (text, or JSON with `json`).
pub fn preview_command(rules: RuleSetId, command: PreviewCommand, scenario: &Scenario, unit: &str, target: &str, json: bool) -> Printed {
    match rules {
        RuleSetId::Otp => match command {
            PreviewCommand::Fire { ball } => super::otp::cli::fire_command(scenario, unit, target, json, ball),
            PreviewCommand::Melee { special } => super::otp::cli::melee_command(scenario, unit, target, json, special),
        },
        // QK5: a shot is previewed in its side's fire step, a charge in its move step; Purky's
        // and the orders sheet's likewise in their own steps.
        RuleSetId::AcwQuick => preview_printed(super::acw_quick::at_step_for(scenario.clone(), unit, matches!(command, PreviewCommand::Fire { .. })).as_ref(), command, unit, target, json),
        RuleSetId::Purky => match super::purky::at_step_for(scenario.clone(), unit, matches!(command, PreviewCommand::Fire { .. })) {
            Ok(game) => preview_printed(game.as_ref(), command, unit, target, json),
            Err(e) => Printed::error(e),
        },
        RuleSetId::AcwOrders => preview_printed(super::acw_orders::at_step_for(scenario.clone(), unit, matches!(command, PreviewCommand::Fire { .. })).as_ref(), command, unit, target, json),
        RuleSetId::Revolution => preview_result(super::revolution::preview_command(scenario, command, unit, target), format!("{unit} against {target}: no dice to preview"), json),
        other => match open(other, scenario.clone(), 1) {
            Ok(game) => preview_printed(game.as_ref(), command, unit, target, json),
            Err(e) => Printed::error(e),
        },
    }
}

/// The rule sets a player compares side by side: every one that plays a game (the tiny test
/// rules are no one's game).
pub const COMPARED: [RuleSetId; 5] = [RuleSetId::Otp, RuleSetId::Revolution, RuleSetId::AcwOrders, RuleSetId::AcwQuick, RuleSetId::Purky];

/// How one rule set judges a shot or a charge.
#[derive(Clone, Debug)]
pub struct Judgement {
    pub rules: RuleSetId,
    /// What its own preview prints ([`preview_command`]); `Err`: it cannot read the scenario,
    /// and why.
    pub printed: Result<Printed, String>,
}

/// The same shot (or charge) under every rule set in [`COMPARED`], each judged by its own
/// preview at set-up — the very one `otp fire --rules ID` prints — on the scenario as `read`
/// gives it for that rule set (validated for it; a rule set it fails says why).
pub fn judge_everywhere(read: impl Fn(RuleSetId) -> Result<Scenario, String>, command: PreviewCommand, unit: &str, target: &str, json: bool) -> Vec<Judgement> {
    COMPARED
        .iter()
        .map(|&rules| Judgement { rules, printed: read(rules).map(|scenario| preview_command(rules, command, &scenario, unit, target, json)) })
        .collect()
}

/// [`judge_everywhere`] on a game in play: the units where `game` has them now
/// ([`crate::scenario::spawn::as_it_stands`]), each rule set laying them out by its own basing.
pub fn judge_as_it_stands(game: &dyn Engine, command: PreviewCommand, unit: &str, target: &str) -> Vec<Judgement> {
    let now = crate::scenario::spawn::as_it_stands(game.world(), game.scenario());
    judge_everywhere(read_as(&now), command, unit, target, false)
}

/// `read` for [`judge_everywhere`] on a scenario already in hand (the window's game, as it
/// stands): the scenario carried over to each rule set and validated for it.
pub fn read_as(scenario: &Scenario) -> impl Fn(RuleSetId) -> Result<Scenario, String> + '_ {
    move |rules| {
        let mut s = scenario.clone();
        s.rules = rules;
        match crate::scenario::validate::validate(&s).first() {
            None => Ok(s),
            Some((_, message)) => Err(message.clone()),
        }
    }
}

/// `otp fire --rules all`, as printed: each rule set's judgement under its title (text), or one
/// JSON document `{ "unit", "target", "rule_sets": [{ "rules", "title", "judged" | "cannot_read", "refused" }] }`.
/// It succeeds when at least one rule set could read the scenario.
pub fn print_judgements(judgements: &[Judgement], unit: &str, target: &str, json: bool) -> Printed {
    let success = judgements.iter().any(|j| j.printed.is_ok());
    if json {
        let sets: Vec<serde_json::Value> = judgements
            .iter()
            .map(|j| {
                let mut o = serde_json::json!({ "rules": j.rules.key(), "title": j.rules.title() });
                match &j.printed {
                    Err(why) => o["cannot_read"] = why.clone().into(),
                    Ok(p) => {
                        o["judged"] = serde_json::from_str(&p.stdout).unwrap_or(serde_json::Value::Null);
                        o["refused"] = (!p.success).into();
                        if !p.stderr.is_empty() {
                            o["error"] = p.stderr.trim().into();
                        }
                    }
                }
                o
            })
            .collect();
        let doc = serde_json::json!({ "unit": unit, "target": target, "rule_sets": sets });
        return Printed { stdout: format!("{}\n", serde_json::to_string_pretty(&doc).expect("JSON values print")), stderr: String::new(), success };
    }
    let mut out = String::new();
    for j in judgements {
        out.push_str(&format!("══ {} ({}) ══\n", j.rules.title(), j.rules.key()));
        match &j.printed {
            Err(why) => out.push_str(&format!("cannot read this scenario: {why}\n")),
            Ok(p) => {
                out.push_str(&p.stdout);
                out.push_str(&p.stderr);
            }
        }
        out.push('\n');
    }
    Printed { stdout: out, stderr: String::new(), success }
}

/// A rule set's preview (or refusal) printed as [`preview_printed`] prints one.
fn preview_result(result: Result<Option<super::engine::Preview>, Refusal>, no_dice: String, json: bool) -> Printed {
    let cite = |r: &Refusal| r.cite().to_string();
    match result {
        Err(r) if json => Printed { stdout: format!("{}\n", serde_json::json!({ "refused": { "rule": cite(&r), "reason": r.reason } })), stderr: String::new(), success: false },
        Err(r) => Printed { stdout: format!("{r}\n"), stderr: String::new(), success: false },
        Ok(None) => Printed::error(no_dice),
        Ok(Some(p)) if json => Printed { stdout: format!("{}\n", serde_json::to_string_pretty(&p).expect("previews serialise")), stderr: String::new(), success: true },
        Ok(Some(p)) => Printed { stdout: p.to_string(), stderr: String::new(), success: true },
    }
}

/// A preview through the interface alone, for a rule set without a command-line preview of its
/// own: the engine's own refusal, or its [`Preview`] as text (or JSON).
fn preview_printed(game: &dyn Engine, command: PreviewCommand, unit: &str, target: &str, json: bool) -> Printed {
    let (unit, target) = (unit.to_string(), target.to_string());
    let action = match command {
        PreviewCommand::Fire { .. } => Action::Fire { unit, target },
        PreviewCommand::Melee { .. } => Action::Charge { unit, target },
    };
    let no_dice = format!("{action}: {} has no dice to preview", game.rules().title());
    preview_result(game.preview(&action), no_dice, json)
}

/// `otp simulate --balance` under `rules`: the balance table of `games` automatic games in
/// Markdown, and how many actions the engine refused the automatic players.
pub fn balance_table(rules: RuleSetId, scenario: &Scenario, seed: u64, games: usize, turns: Option<u32>, progress: impl FnMut(usize)) -> Result<(String, usize), String> {
    match rules {
        RuleSetId::Otp => {
            let table = super::otp::balance::balance(scenario, seed, games, turns, progress);
            Ok((table.markdown(), table.refusals))
        }
        other => {
            let mut progress = progress;
            let spread = simulate_many(other, scenario, seed, games, turns, |n, _| progress(n))?;
            Ok((simulate::balance_markdown(other, scenario, &spread), spread.refusals))
        }
    }
}

/// The levels of automatic player `rules` offers: On to Philadelphia all three; the others their
/// one player, offered as the novice.
pub fn levels(rules: RuleSetId) -> &'static [Level] {
    match rules {
        RuleSetId::Otp => &Level::ALL,
        _ => &[Level::Novice],
    }
}

/// The automatic player of `level` for one side of `game` (a level the rule set does not offer:
/// its own player).
pub fn player(game: &dyn Engine, level: Level) -> Box<dyn Player> {
    match game.rules() {
        RuleSetId::Otp => super::otp::bot::player(level),
        _ => Box::new(Plain(game.automatic())),
    }
}

/// `--bot LEVELS` for a scenario of `rules`: one level a side, each one the rule set offers.
pub fn parse_bots(rules: RuleSetId, text: &str, sides: usize) -> Result<Vec<Level>, String> {
    let levels = Level::parse_sides(text, sides)?;
    if let Some(l) = levels.iter().find(|l| !self::levels(rules).contains(l)) {
        return Err(format!("--bot {text}: {} has one automatic player (novice), not {l}", rules.title()));
    }
    Ok(levels)
}

/// Makes one player a side of `levels` for a game of `rules`.
fn players_of(rules: RuleSetId, levels: Vec<Level>) -> impl Fn(&dyn Engine) -> Box<dyn Player> + Sync {
    move |game: &dyn Engine| -> Box<dyn Player> {
        match rules {
            RuleSetId::Otp => super::otp::bot::players(&levels),
            _ => Box::new(BySide(levels.iter().map(|&l| player(game, l)).collect())),
        }
    }
}

/// One automatic game under `rules` with one player a side of `levels` (see `simulate::play`).
pub fn simulate_levels(rules: RuleSetId, levels: Vec<Level>, scenario: &Scenario, seed: u64, turns: Option<u32>, log: Option<&mut dyn std::io::Write>) -> Result<GameOutcome, String> {
    let make = players_of(rules, levels);
    simulate::play_with(&opener(rules), Some(&make), scenario, seed, turns, log)
}

/// Many automatic games under `rules` with one player a side of `levels`.
pub fn simulate_many_levels(rules: RuleSetId, levels: Vec<Level>, scenario: &Scenario, first_seed: u64, games: usize, turns: Option<u32>, progress: impl FnMut(usize, &GameOutcome)) -> Result<Spread, String> {
    let make = players_of(rules, levels);
    simulate::play_many_with(&opener(rules), Some(&make), scenario, first_seed, games, turns, progress)
}

/// `otp simulate --balance --bot LEVELS`: the balance table with one player a side of `levels`.
pub fn balance_table_levels(rules: RuleSetId, levels: Vec<Level>, scenario: &Scenario, seed: u64, games: usize, turns: Option<u32>, progress: impl FnMut(usize)) -> Result<(String, usize), String> {
    match rules {
        RuleSetId::Otp => {
            let table = super::otp::balance::balance_levels(scenario, &levels, seed, games, turns, progress);
            Ok((table.markdown(), table.refusals))
        }
        other => {
            let mut progress = progress;
            let spread = simulate_many_levels(other, levels, scenario, seed, games, turns, |n, _| progress(n))?;
            Ok((simulate::balance_markdown(other, scenario, &spread), spread.refusals))
        }
    }
}

/// A new game of `rules` (see [`open`]), for the automatic players of `simulate`.
fn opener(rules: RuleSetId) -> impl Fn(Scenario, u64) -> Result<Box<dyn Engine>, String> {
    move |scenario, seed| open(rules, scenario, seed)
}

/// One automatic game under `rules` (see `simulate::play`).
pub fn simulate(rules: RuleSetId, scenario: &Scenario, seed: u64, turns: Option<u32>, log: Option<&mut dyn std::io::Write>) -> Result<GameOutcome, String> {
    simulate::play(&opener(rules), scenario, seed, turns, log)
}

/// Many automatic games under `rules` (see `simulate::play_many`).
pub fn simulate_many(rules: RuleSetId, scenario: &Scenario, first_seed: u64, games: usize, turns: Option<u32>, progress: impl FnMut(usize, &GameOutcome)) -> Result<Spread, String> {
    simulate::play_many(&opener(rules), scenario, first_seed, games, turns, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn teaching() -> Scenario {
        crate::scenario::default_scenario()
    }

    // Issue 22: the side-by-side judgement is each rule set's own preview, not a second copy.
    #[test]
    fn every_rule_set_judges_the_shot_as_its_own_preview_does() {
        let s = teaching();
        for (command, unit, target) in [(PreviewCommand::Fire { ball: false }, "23rd Foot", "1st Maryland"), (PreviewCommand::Melee { special: false }, "British Legion Infantry", "Delaware Light Infantry")] {
            let judged = judge_everywhere(read_as(&s), command, unit, target, false);
            assert_eq!(judged.iter().map(|j| j.rules).collect::<Vec<_>>(), COMPARED.to_vec());
            for j in &judged {
                let mut own = s.clone();
                own.rules = j.rules;
                match (&j.printed, crate::scenario::validate::validate(&own).is_empty()) {
                    (Ok(p), true) => assert_eq!(p, &preview_command(j.rules, command, &own, unit, target, false), "{:?}", j.rules),
                    (Err(why), false) => assert!(!why.is_empty()),
                    (got, readable) => panic!("{:?}: judged {got:?}, readable {readable}", j.rules),
                }
            }
            // The AWI teaching battle is read by the AWI rule sets and the orders sheet, not by
            // the quick ACW rules (QK10: a side is Union or Confederate).
            let read: Vec<RuleSetId> = judged.iter().filter(|j| j.printed.is_ok()).map(|j| j.rules).collect();
            assert!(read.contains(&RuleSetId::Otp) && read.contains(&RuleSetId::Purky) && read.contains(&RuleSetId::Revolution), "{read:?}");
            assert!(judged.iter().any(|j| j.rules == RuleSetId::AcwQuick && j.printed.as_ref().is_err_and(|w| w.contains("QK"))));
        }
    }

    // PK1, PK3, OR5, OR4: a preview at set-up is judged in the step where the unit's side fires
    // (or charges), so it is never refused for the step alone.
    #[test]
    fn previews_at_set_up_are_judged_in_the_step_that_allows_them() {
        let s = teaching();
        for rules in [RuleSetId::Purky, RuleSetId::AcwOrders] {
            let mut own = s.clone();
            own.rules = rules;
            for (command, unit, target) in [(PreviewCommand::Fire { ball: false }, "23rd Foot", "1st Maryland"), (PreviewCommand::Melee { special: false }, "British Legion Infantry", "Delaware Light Infantry")] {
                let p = preview_command(rules, command, &own, unit, target, true);
                let v: serde_json::Value = serde_json::from_str(&p.stdout).unwrap_or_default();
                // A refusal for the step names it ("this is the initiative step", "it is step 1").
                let reason = v["refused"]["reason"].as_str().unwrap_or_default();
                assert!(!reason.contains("step"), "{rules:?} {command:?}: refused for the step: {}", p.stdout);
            }
        }
    }

    #[test]
    fn judgements_print_as_text_and_as_one_json_document() {
        let s = teaching();
        let judged = judge_everywhere(read_as(&s), PreviewCommand::Fire { ball: false }, "23rd Foot", "1st Maryland", true);
        let p = print_judgements(&judged, "23rd Foot", "1st Maryland", true);
        assert!(p.success);
        let v: serde_json::Value = serde_json::from_str(&p.stdout).expect("one JSON document");
        let sets = v["rule_sets"].as_array().expect("an array");
        assert_eq!(sets.len(), COMPARED.len());
        assert!(sets.iter().any(|o| o["rules"] == "acw-quick" && o["cannot_read"].is_string()));
        assert!(sets.iter().any(|o| o["rules"] == "otp" && o["judged"].is_object()));
        let text = print_judgements(&judge_everywhere(read_as(&s), PreviewCommand::Fire { ball: false }, "23rd Foot", "1st Maryland", false), "23rd Foot", "1st Maryland", false).stdout;
        for r in COMPARED {
            assert!(text.contains(&format!("══ {} ({}) ══", r.title(), r.key())), "{text}");
        }
    }
}

#[cfg(test)]
mod place_tests {
    use super::*;
    use crate::scenario::spawn::Unit;
    use crate::table::footprint::Footprint;
    use bevy::math::Vec2;

    // Issue 22: every rule set lets the window place a unit outside the rules (what-if), and
    // judges the table as it then stands; a mismatched placing changes nothing.
    #[test]
    fn every_rule_set_places_a_unit_where_it_is_put() {
        for file in ["teaching.ron", "acw_teaching.ron"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(file);
            let text = std::fs::read_to_string(&path).expect("shipped");
            for rules in super::super::cite::PLAYABLE {
                let Ok(scenario) = crate::scenario::parse_under(&text, file, Some(rules)) else { continue };
                let Ok(mut game) = open(rules, scenario, 1) else { continue };
                let (e, stands) = {
                    let w = game.world();
                    let mut q = w.try_query::<(bevy::ecs::entity::Entity, &Unit)>().expect("units");
                    let (e, u) = q.iter(w).next().expect("a unit");
                    (e, u.stands.iter().map(|&s| *w.get::<Footprint>(s).expect("footprint")).collect::<Vec<_>>())
                };
                let before = game.snapshot();
                assert!(!game.place(e, &stands[1..]), "{rules:?}: too few stands is refused");
                assert_eq!(game.snapshot(), before, "{rules:?}: and changes nothing");
                let moved: Vec<Footprint> = stands.iter().map(|f| Footprint { centre: f.centre + Vec2::new(2.0, -3.0), ..*f }).collect();
                assert!(game.place(e, &moved), "{rules:?}");
                let w = game.world();
                let now: Vec<Footprint> = w.get::<Unit>(e).expect("unit").stands.iter().map(|&s| *w.get::<Footprint>(s).expect("footprint")).collect();
                assert_eq!(now, moved, "{rules:?} {file}");
                assert_eq!(game.action_count(), 0, "{rules:?}: nothing added to the game");
            }
        }
    }
}
