//! Lessons: the window as a teacher. A lesson is a file (`lessons/*.ron`, format in
//! `docs/lessons.md`): a small scenario, a seed, actions played before it begins, and steps.
//! Each step says in plain words what it teaches, quotes the rule, asks for something ("wheel
//! the 7th so the enemy's flank is inside your arc"), and names a [`Goal`] the engine checks
//! through the common interface alone — so one lesson format serves every rule set. A step also
//! carries a hint, the overlays that show the answer, and the intended actions (`answer`): the
//! test plays every shipped lesson by them, and fails when a step's goal is met before them or
//! not after.

use serde::Deserialize;

use crate::rules::action::Action;
use crate::rules::cite::RuleSetId;
use crate::rules::engine::Engine;
use crate::rules::report::Report;
use crate::scenario::model::Formation;
use crate::scenario::spawn::Unit;
use crate::scenario::{self, Scenario};

/// The shipped lessons, by name, embedded so `otp play --lesson NAME` works from any folder.
pub const SHIPPED: &[(&str, &str)] = &[
    ("otp-the-turn", include_str!("../../lessons/otp-the-turn.ron")),
    ("otp-fire", include_str!("../../lessons/otp-fire.ron")),
    ("otp-formations", include_str!("../../lessons/otp-formations.ron")),
    ("otp-basing", include_str!("../../lessons/otp-basing.ron")),
    ("otp-arc", include_str!("../../lessons/otp-arc.ron")),
    ("otp-enfilade", include_str!("../../lessons/otp-enfilade.ron")),
    ("otp-sight", include_str!("../../lessons/otp-sight.ron")),
    ("otp-charge", include_str!("../../lessons/otp-charge.ron")),
    ("otp-morale", include_str!("../../lessons/otp-morale.ron")),
    ("otp-moving", include_str!("../../lessons/otp-moving.ron")),
    ("revolution-the-turn", include_str!("../../lessons/revolution-the-turn.ron")),
    ("revolution-morale", include_str!("../../lessons/revolution-morale.ron")),
    ("acw-orders-orders", include_str!("../../lessons/acw-orders-orders.ron")),
    ("acw-orders-charge", include_str!("../../lessons/acw-orders-charge.ron")),
    ("acw-quick-fire", include_str!("../../lessons/acw-quick-fire.ron")),
    ("acw-quick-charge", include_str!("../../lessons/acw-quick-charge.ron")),
    ("purky-fire", include_str!("../../lessons/purky-fire.ron")),
    ("purky-melee", include_str!("../../lessons/purky-melee.ron")),
];

/// The shipped scenarios a lesson may name by file name, embedded likewise.
const SCENARIOS: &[(&str, &str)] = &[
    ("teaching.ron", scenario::DEFAULT_SCENARIO),
    ("lesson-fire.ron", include_str!("../../lessons/lesson-fire.ron")),
    ("lesson-basing.ron", include_str!("../../lessons/lesson-basing.ron")),
    ("lesson-arc.ron", include_str!("../../lessons/lesson-arc.ron")),
    ("lesson-enfilade.ron", include_str!("../../lessons/lesson-enfilade.ron")),
    ("lesson-sight.ron", include_str!("../../lessons/lesson-sight.ron")),
    ("lesson-charge.ron", include_str!("../../lessons/lesson-charge.ron")),
    ("lesson-morale.ron", include_str!("../../lessons/lesson-morale.ron")),
    ("lesson-moving.ron", include_str!("../../lessons/lesson-moving.ron")),
    ("acw_teaching.ron", include_str!("../../scenarios/acw_teaching.ron")),
];

/// The shipped lessons as a menu lists them: name, title and the rule set taught, read once.
pub fn catalogue() -> &'static [(&'static str, String, RuleSetId)] {
    static CATALOGUE: std::sync::OnceLock<Vec<(&'static str, String, RuleSetId)>> = std::sync::OnceLock::new();
    CATALOGUE.get_or_init(|| {
        SHIPPED
            .iter()
            .filter_map(|(name, _)| {
                let (lesson, path) = Lesson::find(name).ok()?;
                let rules = lesson.rules.or_else(|| lesson.scenario(&path).ok().map(|s| s.rules)).unwrap_or_default();
                Some((*name, lesson.title, rules))
            })
            .collect()
    })
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    pub title: String,
    /// What the lesson is about, a line or two.
    pub about: String,
    /// The scenario: a shipped one by file name (`teaching.ron`), else a path from the lesson.
    pub scenario: String,
    /// The rule set taught (default: the scenario's).
    #[serde(default)]
    pub rules: Option<RuleSetId>,
    #[serde(default = "first_seed")]
    pub seed: u64,
    /// Played before the first step, so the lesson begins where its first step needs the game.
    #[serde(default)]
    pub setup: Vec<Action>,
    pub steps: Vec<Step>,
}

fn first_seed() -> u64 {
    1
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub title: String,
    /// What the step teaches, in plain words.
    pub text: String,
    /// The rule it teaches, quoted.
    #[serde(default)]
    pub rule: Option<Quote>,
    /// What to do.
    pub task: String,
    pub goal: Goal,
    /// Given on request.
    pub hint: String,
    /// The teaching overlays that show the answer (arcs, enfilade, sight, movement).
    #[serde(default)]
    pub overlays: Vec<String>,
    /// The unit to select when the step begins.
    #[serde(default)]
    pub select: Option<String>,
    /// The intended actions: what the test plays, and the window's "show me".
    pub answer: Vec<Action>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Quote {
    /// "OTP 8.2", "QK12".
    pub cite: String,
    pub text: String,
}

/// What a step asks for, checked by the engine.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub enum Goal {
    /// The game has begun (its set-up rolls made).
    Started,
    /// Units may act: a brigade (a side) is phasing.
    Acting,
    /// The engine would take this action now (a shot in arc and range, a legal charge…).
    Allowed(Action),
    /// The engine previews this action with a fact or a factor citing `rule` (enfilade, a flank
    /// attack, cover…).
    Cites { action: Action, rule: String },
    /// Since the step began, an action of `unit` was taken whose report cites `rule` (or any
    /// action of it, with `rule` empty).
    Took { unit: String, rule: String },
    /// Since the step began, a report cites `rule` (a rout, a rally, the turn's end…).
    Reported(String),
    /// The unit is in this formation.
    Formation { unit: String, formation: Formation },
    /// Every one of these.
    All(Vec<Goal>),
}

/// The rules `report` cites: its dice, modifiers, changes and notes.
fn rules_of(report: &Report) -> Vec<&str> {
    let mut rules: Vec<&str> = report.dice.iter().map(|d| d.rule.as_str()).chain(report.modifiers.iter().map(|m| m.rule.as_str())).chain(report.changes.iter().chain(&report.notes).map(|e| e.rule.as_str())).collect();
    rules.sort();
    rules.dedup();
    rules
}

/// Does `text` name `rule` in parentheses: "(9.14)", "(9.14, 9.1)", "(x, 9.14)"?
fn names_rule(text: &str, rule: &str) -> bool {
    ["(", " "].iter().any(|before| [")", ","].iter().any(|after| text.contains(&format!("{before}{rule}{after}"))))
}

/// Does `report` cite `rule`: its dice, modifiers, changes, notes, or its title or the words of a
/// change or note "(… rule …)" (a charge's note "×2 attacking the target's flank (9.14, 9.1)")?
fn cites(report: &Report, rule: &str) -> bool {
    rules_of(report).contains(&rule) || names_rule(&report.title, rule) || report.changes.iter().chain(&report.notes).any(|e| names_rule(&e.text, rule))
}

impl Goal {
    /// Met in `game`, looking at the reports from `since` on; else why not yet.
    pub fn met(&self, game: &dyn Engine, since: usize) -> Result<(), String> {
        let later = game.reports().get(since..).unwrap_or_default();
        let names = |a: &Action| a.unit().map(str::to_string);
        match self {
            Goal::Started => game.sequence().started.then_some(()).ok_or_else(|| "the game has not begun".into()),
            Goal::Acting => (!game.sequence().acting.is_empty()).then_some(()).ok_or_else(|| "no one may act yet".into()),
            Goal::Allowed(action) => game.check(action).map_err(|r| r.to_string()),
            Goal::Cites { action, rule } => match game.preview(action) {
                Ok(Some(p)) if p.blocks.iter().any(|b| b.facts.iter().any(|f| f.rule.contains(rule.as_str())) || b.factors.iter().any(|f| f.rule.contains(rule.as_str()))) => Ok(()),
                Ok(_) => Err(format!("{action}: nothing in its preview cites {rule}")),
                Err(r) => Err(r.to_string()),
            },
            Goal::Took { unit, rule } => {
                let own: Vec<&Report> = later.iter().filter(|r| names(&r.action).as_deref() == Some(unit.as_str())).collect();
                match own.iter().any(|r| rule.is_empty() || cites(r, rule)) {
                    true => Ok(()),
                    false if own.is_empty() => Err(format!("{unit} has not done it yet")),
                    false => Err(format!("{unit}'s actions so far cite {:?}, not {rule}", own.iter().flat_map(|r| rules_of(r)).collect::<Vec<_>>())),
                }
            }
            Goal::Reported(rule) => later.iter().any(|r| cites(r, rule)).then_some(()).ok_or_else(|| format!("nothing yet under {rule}")),
            Goal::Formation { unit, formation } => {
                let world = game.world();
                let now = world.try_query::<&Unit>().and_then(|mut q| q.iter(world).find(|u| &u.name == unit).map(|u| u.formation));
                (now == Some(*formation)).then_some(()).ok_or_else(|| format!("{unit} is in {now:?}, not {formation:?}"))
            }
            Goal::All(goals) => goals.iter().try_for_each(|g| g.met(game, since)),
        }
    }
}

impl Lesson {
    /// A lesson's text read; `file` names it in messages (`file:line:col: message`).
    pub fn parse(text: &str, file: &str) -> Result<Lesson, String> {
        let lesson: Lesson = scenario::from_ron(text, file).map_err(|e| e.to_string())?;
        if lesson.steps.is_empty() {
            return Err(format!("{file}: a lesson needs at least one step"));
        }
        Ok(lesson)
    }

    /// A shipped lesson by name, or a lesson file by path.
    pub fn find(name: &str) -> Result<(Lesson, std::path::PathBuf), String> {
        if let Some((_, text)) = SHIPPED.iter().find(|(n, _)| *n == name) {
            return Ok((Lesson::parse(text, &format!("lessons/{name}.ron"))?, std::path::PathBuf::from(format!("lessons/{name}.ron"))));
        }
        let path = std::path::PathBuf::from(name);
        if !path.is_file() {
            let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
            return Err(format!("no lesson {name:?}: the lessons are {} (or a lesson file's path)", names.join(", ")));
        }
        let text = scenario::read_text(&path, scenario::MAX_FILE_BYTES).map_err(|e| e.to_string())?;
        Ok((Lesson::parse(&text, &path.display().to_string())?, path))
    }

    /// Its scenario, under its rule set: a shipped one by name, else read beside `from`.
    pub fn scenario(&self, from: &std::path::Path) -> Result<Scenario, String> {
        match SCENARIOS.iter().find(|(n, _)| *n == self.scenario) {
            Some((name, text)) => scenario::parse_under(text, name, self.rules).map_err(|e| e.to_string()),
            None => {
                let path = from.parent().unwrap_or(std::path::Path::new(".")).join(&self.scenario);
                scenario::load_under(&path, self.rules).map_err(|e| e.to_string())
            }
        }
    }

    /// A new game of the lesson, its set-up played.
    pub fn open(&self, from: &std::path::Path) -> Result<Box<dyn Engine>, String> {
        let scenario = self.scenario(from)?;
        let mut game = crate::rules::registry::open(scenario.rules, scenario, self.seed)?;
        for a in &self.setup {
            game.apply(a.clone()).map_err(|r| format!("{}: the lesson's set-up: {a}: refused ({r})", self.title))?;
        }
        Ok(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 22: every shipped lesson is completed by its intended actions, and no step is done
    // before them.
    #[test]
    fn every_shipped_lesson_is_completed_by_its_answers() {
        for (name, _) in SHIPPED {
            let (lesson, path) = Lesson::find(name).expect("a shipped lesson parses");
            let mut game = lesson.open(&path).expect("and opens");
            for (i, step) in lesson.steps.iter().enumerate() {
                let since = game.reports().len();
                assert!(step.goal.met(game.as_ref(), since).is_err(), "{name} step {}: {:?} is met before its answer", i + 1, step.title);
                for a in &step.answer {
                    if let Err(r) = game.apply(a.clone()) {
                        panic!("{name} step {} ({}): {a} refused: {r}", i + 1, step.title);
                    }
                }
                if let Err(why) = step.goal.met(game.as_ref(), since) {
                    panic!("{name} step {} ({}): not met after its answer: {why}", i + 1, step.title);
                }
            }
        }
    }

    // A report cites a rule by an entry's rule or by naming it in parentheses in its title or in
    // a change's or note's words; a longer section with the same start is not the rule.
    #[test]
    fn a_report_cites_the_rules_it_names_in_parentheses() {
        let mut report = Report::new(RuleSetId::Otp, 1, Action::Next, "23rd Foot declares a charge (6.9, 9.0)");
        report.note("9.8", "33rd Foot: 12 figures x CV 5 x2 attacking the target's flank (9.1) (9.14, 9.1) = melee value 120");
        for rule in ["9.8", "9.0", "6.9", "9.14", "9.1"] {
            assert!(cites(&report, rule), "{rule}");
        }
        for rule in ["9.4", "9.", "6", "14"] {
            assert!(!cites(&report, rule), "{rule}");
        }
        let mut flank = Report::new(RuleSetId::Otp, 1, Action::Next, "a charge");
        flank.change("6.11", "1st Maryland retreats (9.14)");
        assert!(cites(&flank, "9.14") && !cites(&flank, "9.1"));
    }

    #[test]
    fn a_bad_lesson_is_told_with_its_place() {
        let e = Lesson::parse("(title: \"x\", about: \"y\", scenario: \"teaching.ron\", steps: [(title: 1)])", "bad.ron").unwrap_err();
        assert!(e.starts_with("bad.ron:1:"), "{e}");
        assert!(Lesson::find("no-such-lesson").unwrap_err().contains("otp-the-turn"));
    }
}
