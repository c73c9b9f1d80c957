//! What an action did, in full: every die with its faces, every modifier, every chart cell read,
//! the outcome and the changes to the table, each with its rule section. The log, the dice
//! overlay, `--json` and the tests read these; [`Refusal`] says why an action was not allowed.

use std::fmt;

use serde::Serialize;

use super::action::Action;
pub use super::refusal::Refusal;
use super::cite::{RuleSetId, Source};
use super::dice::Roll;


/// One throw of the dice, what it was for and the rule that called for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DieRecord {
    pub rule: String,
    pub purpose: String,
    pub roll: Roll,
}

/// A die-roll modifier applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Modifier {
    pub rule: String,
    pub name: String,
    pub value: i32,
}

/// One cell of a chart read: which chart, which column and row, what it said and where that
/// number comes from (the text or our reconstruction).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChartRead {
    pub chart: String,
    pub column: String,
    pub row: String,
    pub result: String,
    pub provenance: Source,
}

/// A line of the report with its rule: a change to the game, or a note (a measurement, a rule
/// applied, something left to the players).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub rule: String,
    pub text: String,
}

impl Entry {
    pub fn new(rule: &str, text: impl Into<String>) -> Self {
        Entry { rule: rule.into(), text: text.into() }
    }
}

/// One side at the end of the game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideSummary {
    pub side: String,
    pub figures_lost: u32,
    /// Units with no figures left.
    pub units_broken: Vec<String>,
    pub units_off_table: Vec<String>,
    /// Objectives this side holds: a unit of it within the radius and no enemy (4.5, scenario).
    pub objectives_held: Vec<String>,
    pub points: u32,
}

/// The end of the game at the scenario's turn limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub turns_played: u32,
    pub sides: Vec<SideSummary>,
    /// Objectives nobody holds (empty, or contested).
    pub objectives_unheld: Vec<String>,
    /// The side that won, by the rule set's own verdict (an index of `sides`); `None` for a
    /// draw, or when the rule set leaves the verdict to the points (On to Philadelphia, 4.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<usize>,
    /// The rule set's verdict in words, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Game over after {} turns.", self.turns_played)?;
        let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
        for s in &self.sides {
            writeln!(
                f,
                "  {}: {} figures lost; broken: {}; off the table: {}; objectives held: {} ({} points)",
                s.side,
                s.figures_lost,
                list(&s.units_broken),
                list(&s.units_off_table),
                list(&s.objectives_held),
                s.points
            )?;
        }
        write!(f, "  objectives held by nobody: {}", list(&self.objectives_unheld))?;
        if let Some(result) = &self.result {
            write!(f, "\n  {result}")?;
        }
        Ok(())
    }
}

/// A die, modifier, chart cell or note of a report, by its index in that list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Die(usize),
    Modifier(usize),
    Chart(usize),
    Note(usize),
}

/// What one action did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The rule set whose sections the report cites (not written for On to Philadelphia, so its
    /// JSON reads as it always did).
    #[serde(skip_serializing_if = "RuleSetId::is_otp")]
    pub rules: RuleSetId,
    /// The turn the action was taken in (0 before the game starts).
    pub turn: u32,
    pub action: Action,
    /// One line: what was done, with its rule.
    pub title: String,
    pub dice: Vec<DieRecord>,
    pub modifiers: Vec<Modifier>,
    pub charts: Vec<ChartRead>,
    pub outcome: String,
    pub changes: Vec<Entry>,
    pub notes: Vec<Entry>,
    /// At the end of the game.
    pub summary: Option<Summary>,
    #[serde(skip)]
    order: Vec<Item>,
}

impl Report {
    /// The report of `action` under `rules`.
    pub fn new(rules: RuleSetId, turn: u32, action: impl Into<Action>, title: impl Into<String>) -> Self {
        Report {
            rules,
            turn,
            action: action.into(),
            title: title.into(),
            dice: Vec::new(),
            modifiers: Vec::new(),
            charts: Vec::new(),
            outcome: String::new(),
            changes: Vec::new(),
            notes: Vec::new(),
            summary: None,
            order: Vec::new(),
        }
    }

    pub fn die(&mut self, rule: &str, purpose: impl Into<String>, roll: &Roll) {
        self.order.push(Item::Die(self.dice.len()));
        self.dice.push(DieRecord { rule: rule.into(), purpose: purpose.into(), roll: roll.clone() });
    }

    pub fn modifier(&mut self, rule: &str, name: impl Into<String>, value: i32) {
        self.order.push(Item::Modifier(self.modifiers.len()));
        self.modifiers.push(Modifier { rule: rule.into(), name: name.into(), value });
    }

    pub fn chart(&mut self, chart: &str, column: impl Into<String>, row: impl Into<String>, result: impl Into<String>, provenance: &Source) {
        self.order.push(Item::Chart(self.charts.len()));
        self.charts.push(ChartRead { chart: chart.into(), column: column.into(), row: row.into(), result: result.into(), provenance: provenance.clone() });
    }

    pub fn change(&mut self, rule: &str, text: impl Into<String>) {
        self.changes.push(Entry::new(rule, text));
    }

    pub fn note(&mut self, rule: &str, text: impl Into<String>) {
        self.order.push(Item::Note(self.notes.len()));
        self.notes.push(Entry::new(rule, text));
    }
}

impl Report {
    /// Every die, modifier, chart cell and note in the order the action met them (the log and
    /// the dice overlay tell the story in this order); anything pushed onto the lists directly
    /// comes after.
    pub fn items(&self) -> Vec<Item> {
        let mut items = self.order.clone();
        let listed = |k: fn(usize) -> Item, n: usize| (0..n).map(k).filter(|i| !self.order.contains(i)).collect::<Vec<_>>();
        items.extend(listed(Item::Die, self.dice.len()));
        items.extend(listed(Item::Modifier, self.modifiers.len()));
        items.extend(listed(Item::Chart, self.charts.len()));
        items.extend(listed(Item::Note, self.notes.len()));
        items
    }
}

impl Report {
    /// A section of the report's rule set as its lines print it: bare for On to Philadelphia
    /// ("8.3", as replays always read), "QK12" for the others.
    pub fn section(&self, rule: &str) -> String {
        if self.rules.is_otp() { rule.to_string() } else { self.rules.cite(rule).to_string() }
    }
}

impl fmt::Display for Report {
    /// The report in plain words, one fact a line, each with its rule section.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Turn {}: {}", self.turn, self.title)?;
        for item in self.items() {
            match item {
                Item::Die(i) => {
                    let d = &self.dice[i];
                    writeln!(f, "  die {} for {} ({})", d.roll, d.purpose, self.section(&d.rule))?
                }
                Item::Modifier(i) => {
                    let m = &self.modifiers[i];
                    writeln!(f, "  modifier {:+} {} ({})", m.value, m.name, self.section(&m.rule))?
                }
                Item::Chart(i) => {
                    let c = &self.charts[i];
                    writeln!(f, "  chart {}, column {}, row {}: {} [{}]", c.chart, c.column, c.row, c.result, c.provenance.cited(self.rules))?
                }
                Item::Note(i) => {
                    let n = &self.notes[i];
                    writeln!(f, "  - {} ({})", n.text, self.section(&n.rule))?
                }
            }
        }
        if !self.outcome.is_empty() {
            writeln!(f, "  => {}", self.outcome)?;
        }
        for c in &self.changes {
            writeln!(f, "  * {} ({})", c.text, self.section(&c.rule))?;
        }
        if let Some(s) = &self.summary {
            writeln!(f, "{s}")?;
        }
        Ok(())
    }
}
