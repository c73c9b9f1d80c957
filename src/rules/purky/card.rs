//! The card's unit table as data (`assets/rules/purky/units.ron`): every class with its rates,
//! ranges and the numbers of charts A to E for fire, melee and morale, each entry with its
//! [`Source`]. Read and checked once; a broken file is a located error, never a panic at play.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::rules::cite::Source;
use crate::scenario::model::{Formation, PurkyClass};

/// The charts, best for the firer (or the tester) first (PK14, PK18, PK21).
pub const CHARTS: [char; 5] = ['A', 'B', 'C', 'D', 'E'];

/// One row of the card.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClassRow {
    pub class: PurkyClass,
    /// The card's row label.
    pub row: String,
    /// Road march, skirmish, (attack) column, line and square rates, inches (PK6).
    pub road: u32,
    pub skirmish: Option<u32>,
    pub column: Option<u32>,
    pub line: Option<u32>,
    pub square: Option<u32>,
    /// Range (guns: short range), inches (PK12, PK13).
    pub range: u32,
    pub long_range: Option<u32>,
    /// Charts A–E: `None` is the card's "~", no hit (PK15).
    pub fire: Vec<Option<u8>>,
    pub long_fire: Option<Vec<Option<u8>>>,
    pub melee: Vec<u8>,
    pub morale: Vec<u8>,
    /// The card marks the class "(unformed)" (PK10).
    pub unformed: bool,
    /// The card's "•" under Square: light guns and amusettes shelter in a square (PK4).
    pub square_shelter: bool,
    pub source: Source,
}

impl ClassRow {
    /// Guns: the card's artillery rows.
    pub fn is_gun(&self) -> bool {
        self.long_range.is_some()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CardFile {
    classes: Vec<ClassRow>,
}

/// The embedded card.
pub const UNITS_RON: &str = include_str!("../../../assets/rules/purky/units.ron");

/// Every class's row, checked: one row a class, numbers on a d10, charts worsening from A to E.
pub fn parse(text: &str, file: &str) -> Result<Vec<ClassRow>, String> {
    let card: CardFile = crate::scenario::from_ron(text, file).map_err(|e| e.to_string())?;
    let mut problems = Vec::new();
    for (i, row) in card.classes.iter().enumerate() {
        let at = format!("{file}: in classes[{i}] ({:?})", row.class);
        if card.classes.iter().filter(|r| r.class == row.class).count() > 1 {
            problems.push(format!("{at}: the class has more than one row"));
        }
        if [row.fire.len(), row.melee.len(), row.morale.len(), row.long_fire.as_ref().map_or(5, Vec::len)].iter().any(|&n| n != 5) {
            problems.push(format!("{at}: every chart row has five numbers, A to E"));
            continue;
        }
        let d10 = |n: u8| (1..=10).contains(&n);
        let fire: Vec<u8> = row.fire.iter().chain(row.long_fire.iter().flatten()).flatten().copied().collect();
        if !fire.iter().chain(&row.melee).chain(&row.morale).all(|&n| d10(n)) {
            problems.push(format!("{at}: chart numbers are read on a d10: 1 to 10"));
        }
        let worsening = |v: Vec<u8>| v.windows(2).all(|w| w[0] >= w[1]);
        let read = |c: &Vec<Option<u8>>| c.iter().map(|n| n.unwrap_or(0)).collect::<Vec<u8>>();
        if !worsening(read(&row.fire)) || !worsening(row.melee.to_vec()) || !worsening(row.morale.to_vec()) || row.long_fire.as_ref().is_some_and(|l| !worsening(read(l))) {
            problems.push(format!("{at}: chart A is the best and E the worst: numbers may not rise from A to E"));
        }
        if row.long_range.is_some() != row.long_fire.is_some() {
            problems.push(format!("{at}: a long range needs long-range fire numbers, and the reverse"));
        }
        match &row.source {
            Source::Text { section } if section.trim().is_empty() => problems.push(format!("{at}: Text(section: …) must cite a section")),
            Source::Reconstructed { why } if why.trim().is_empty() => problems.push(format!("{at}: Reconstructed(why: …) must give a reason")),
            _ => {}
        }
    }
    for class in ALL_CLASSES {
        if !card.classes.iter().any(|r| r.class == class) {
            problems.push(format!("{file}: no row for {class:?}"));
        }
    }
    if problems.is_empty() { Ok(card.classes) } else { Err(problems.join("\n")) }
}

/// Every class of `PurkyClass`, in the card's order.
pub const ALL_CLASSES: [PurkyClass; 12] = PurkyClass::ALL;

/// The embedded card, read once (a test proves it reads).
pub fn card() -> &'static [ClassRow] {
    static CARD: OnceLock<Vec<ClassRow>> = OnceLock::new();
    CARD.get_or_init(|| parse(UNITS_RON, "assets/rules/purky/units.ron").expect("the embedded card reads (tested)"))
}

/// The row of a class.
pub fn row(class: PurkyClass) -> &'static ClassRow {
    card().iter().find(|r| r.class == class).expect("every class has a row (checked when read)")
}

/// The rate of a formation for a class (PK6): march column off the road at the Column rate, or
/// the road-march rate where the class has none; guns limbered at the road-march rate,
/// unlimbered by prolonge at the Line rate (PK4); `None` where the card gives none.
pub fn rate(class: PurkyClass, formation: Formation) -> Option<u32> {
    let r = row(class);
    match formation {
        Formation::Column => Some(r.column.unwrap_or(r.road)),
        Formation::Limbered => Some(r.road),
        Formation::AttackColumn => r.column.filter(|_| !r.is_gun()),
        Formation::Line => r.line.filter(|_| !r.is_gun()),
        Formation::Unlimbered => r.line.filter(|_| r.is_gun()),
        Formation::Skirmish => r.skirmish,
        Formation::Square => r.square,
        _ => None,
    }
}

/// A chart letter's index.
pub fn chart_index(chart: char) -> usize {
    CHARTS.iter().position(|&c| c == chart).unwrap_or(4)
}
