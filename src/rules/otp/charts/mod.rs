//! The game charts of On to Philadelphia as data.
//!
//! The rules text cites charts that were printed separately and are lost: MOVEMENT, FIRE COMBAT,
//! MORALE RESULTS TABLE, COMMANDER VALUES, MELEE COMBAT, the closing die-roll modifiers and the
//! UNIT REBUILDING TABLE. The project ships its own as RON files under `assets/rules/otp/`, every
//! entry marked with its [`Source`]: fixed by a section of the text, or reconstructed by us with a
//! reason. The defaults are embedded in the binary; [`Charts::load_dir`] reads a folder of files
//! that replace any of them, so a player who owns the printed charts can use their numbers.
//!
//! Files are checked when read: a syntax or type error reads `file:line:col: message`; a chart that
//! parses but breaks a rule (a missing row, a fire table that is not monotone, a count out of
//! range…) reads `file: in <field>: message`.

pub mod commanders;
pub mod fire;
pub mod losses;
mod markdown;
pub mod melee;
pub mod morale;
pub mod movement;
pub mod rebuild;

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::scenario::Problem;

pub use commanders::{CommanderChart, CommanderValue};
pub use fire::{Ammo, ArtilleryBand, FireChart, FireColumn, FireKind, FireModifierId, FireResult};
pub use losses::{LossChart, Severity};
pub use melee::{ClosureModifierId, CvRollModifierId, MeleeChart, MeleeCvModifierId, MultiplierId, RatioRow};
pub use morale::{MoraleChart, MoraleClass, MoraleKind, MoraleModifiers, MoraleResult};
pub use movement::{ArmClass, MoveCostKind, MovementChart, ObstacleMover};
pub use rebuild::{RebuildChart, RebuildRefusal};
pub use crate::rules::cite::Source;

/// A source must say where it comes from (a section) or why it was reconstructed.
pub(crate) trait CheckSource {
    fn check(&self, c: &mut Check, place: &str);
}

impl CheckSource for Source {
    fn check(&self, c: &mut Check, place: &str) {
        match self {
        Source::Text { section } if section.trim().is_empty() => c.fail(place, "Text(section: …) must cite a section"),
            Source::Reconstructed { why } if why.trim().is_empty() => c.fail(place, "Reconstructed(why: …) must give a reason"),
            _ => {}
        }
    }
}

/// One number (or switch) with its source.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

/// A set of unit types with its source (militia, lights and Indians treat woods as type A…).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TypeSet {
    pub types: Vec<crate::scenario::model::UnitType>,
    pub source: Source,
}

/// Problems found in a chart after it parsed: `(place, message)`.
#[derive(Default)]
pub(crate) struct Check {
    problems: Vec<(String, String)>,
}

impl Check {
    pub(crate) fn fail(&mut self, place: impl Into<String>, message: impl Into<String>) {
        self.problems.push((place.into(), message.into()));
    }
    /// Fails unless `lo <= value <= hi`.
    pub(crate) fn range<T: PartialOrd + fmt::Display>(&mut self, place: impl Into<String>, what: &str, value: T, lo: T, hi: T) {
        if !(value >= lo && value <= hi) {
            self.fail(place, format!("{what} is {value}; it must be from {lo} to {hi}"));
        }
    }
    /// A column of bands read by a die: the bands' upper ends must rise from 0 and end at `last`
    /// (9 for a D10, 99 for 2D10). Returns false when there are no bands at all.
    pub(crate) fn rising_bands(&mut self, place: &str, tos: &[i32], last: i32) -> bool {
        let (Some(&first), Some(&end)) = (tos.first(), tos.last()) else {
            self.fail(place, "no bands");
            return false;
        };
        for w in tos.windows(2) {
            if w[1] <= w[0] {
                self.fail(place, format!("band to {} follows band to {}: bands must rise", w[1], w[0]));
            }
        }
        if first < 0 {
            self.fail(place, format!("the first band ends at {first}, below 0"));
        }
        if end != last {
            let die = if last == 9 { "a D10 reads up to 9" } else { "2D10 read up to 99" };
            self.fail(place, format!("the last band ends at {end}; it must end at {last} ({die})"));
        }
        true
    }
    /// A keyed list of chart rows: each of `all` exactly once, then `each` on every row at its
    /// place ("list (Key)"), and the row's source.
    pub(crate) fn keyed_rows<R, K: PartialEq + fmt::Debug + Copy>(
        &mut self,
        list: &str,
        what: &str,
        all: &[K],
        rows: &[R],
        key: impl Fn(&R) -> K,
        source: impl Fn(&R) -> &Source,
        mut each: impl FnMut(&mut Check, &R, &str),
    ) {
        let keys: Vec<K> = rows.iter().map(&key).collect();
        self.exactly_once(list, what, all, &keys);
        for r in rows {
            let place = format!("{list} ({:?})", key(r));
            each(self, r, &place);
            source(r).check(self, &place);
        }
    }
    /// Fails for each of `all` that `present` lacks or has more than once.
    pub(crate) fn exactly_once<K: PartialEq + fmt::Debug + Copy>(&mut self, place: &str, what: &str, all: &[K], present: &[K]) {
        for k in all {
            match present.iter().filter(|p| *p == k).count() {
                0 => self.fail(place, format!("missing {what} for {k:?}")),
                1 => {}
                n => self.fail(place, format!("{n} {what}s for {k:?}; there must be exactly one")),
            }
        }
    }
}

/// A chart checks itself after parsing.
pub(crate) trait Validate {
    fn validate(&self, c: &mut Check);
}

/// Everything wrong with a set of chart files, one problem a line.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartError {
    pub problems: Vec<Problem>,
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::scenario::write_problems(f, &self.problems)
    }
}

impl std::error::Error for ChartError {}

impl ChartError {
    fn one(file: &str, message: impl Into<String>) -> Self {
        ChartError { problems: vec![Problem { file: file.into(), position: None, place: String::new(), message: message.into() }] }
    }
}

/// The chart files, by name, with the embedded defaults.
pub const FILES: [&str; 7] = ["movement.ron", "fire.ron", "morale.ron", "commanders.ron", "melee.ron", "rebuild.ron", "losses.ron"];

/// Where the defaults live in the source tree (the name embedded charts are reported under).
pub const ASSET_DIR: &str = "assets/rules/otp";

const EMBEDDED: [&str; 7] = [
    include_str!("../../../../assets/rules/otp/movement.ron"),
    include_str!("../../../../assets/rules/otp/fire.ron"),
    include_str!("../../../../assets/rules/otp/morale.ron"),
    include_str!("../../../../assets/rules/otp/commanders.ron"),
    include_str!("../../../../assets/rules/otp/melee.ron"),
    include_str!("../../../../assets/rules/otp/rebuild.ron"),
    include_str!("../../../../assets/rules/otp/losses.ron"),
];

/// The embedded text of a chart file (`"fire.ron"`…).
pub fn embedded_text(name: &str) -> Option<&'static str> {
    FILES.iter().position(|f| *f == name).map(|i| EMBEDDED[i])
}

/// The largest chart file read.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// All the OTP charts.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Charts {
    pub movement: MovementChart,
    pub fire: FireChart,
    pub morale: MoraleChart,
    pub commanders: CommanderChart,
    pub melee: MeleeChart,
    pub rebuild: RebuildChart,
    pub losses: LossChart,
}

impl Default for Charts {
    fn default() -> Self {
        Charts::embedded().clone()
    }
}

fn parse_one<T: DeserializeOwned + Validate>(file: &str, src: &str, problems: &mut Vec<Problem>) -> Option<T> {
    match ron::Options::default().from_str::<T>(src) {
        Err(e) => {
            let start = e.span.start;
            let position = (start.line > 0).then_some((start.line, start.col));
            problems.push(Problem { file: file.into(), position, place: String::new(), message: e.code.to_string() });
            None
        }
        Ok(chart) => {
            let mut check = Check::default();
            chart.validate(&mut check);
            problems.extend(check.problems.into_iter().map(|(place, message)| Problem { file: file.into(), position: None, place, message }));
            Some(chart)
        }
    }
}

impl Charts {
    /// The charts built into the binary (parsed once; they are valid, which the tests check).
    pub fn embedded() -> &'static Charts {
        static CHARTS: OnceLock<Charts> = OnceLock::new();
        CHARTS.get_or_init(|| Charts::parse_files(&[]).unwrap_or_else(|e| panic!("the embedded OTP charts are invalid:\n{e}")))
    }

    /// Parse chart files given as `(file, text)`; a file is matched to its chart by its base name
    /// (`…/fire.ron`), and any chart not given keeps its embedded default.
    pub fn parse_files(files: &[(&str, &str)]) -> Result<Charts, ChartError> {
        let mut texts: Vec<(String, Cow<str>)> = FILES.iter().zip(EMBEDDED).map(|(name, src)| (format!("{ASSET_DIR}/{name}"), Cow::Borrowed(src))).collect();
        let mut problems = Vec::new();
        for (file, src) in files {
            let base = Path::new(file).file_name().and_then(|n| n.to_str()).unwrap_or(file);
            match FILES.iter().position(|f| *f == base) {
                Some(i) => texts[i] = (file.to_string(), Cow::Owned(src.to_string())),
                None => problems.push(Problem {
                    file: file.to_string(),
                    position: None,
                    place: String::new(),
                    message: format!("not an OTP chart file; the charts are {}", FILES.join(", ")),
                }),
            }
        }
        let movement = parse_one::<MovementChart>(&texts[0].0, &texts[0].1, &mut problems);
        let fire = parse_one::<FireChart>(&texts[1].0, &texts[1].1, &mut problems);
        let morale = parse_one::<MoraleChart>(&texts[2].0, &texts[2].1, &mut problems);
        let commanders = parse_one::<CommanderChart>(&texts[3].0, &texts[3].1, &mut problems);
        let melee = parse_one::<MeleeChart>(&texts[4].0, &texts[4].1, &mut problems);
        let rebuild = parse_one::<RebuildChart>(&texts[5].0, &texts[5].1, &mut problems);
        let losses = parse_one::<LossChart>(&texts[6].0, &texts[6].1, &mut problems);
        match (movement, fire, morale, commanders, melee, rebuild, losses) {
            (Some(movement), Some(fire), Some(morale), Some(commanders), Some(melee), Some(rebuild), Some(losses)) if problems.is_empty() => {
                Ok(Charts { movement, fire, morale, commanders, melee, rebuild, losses })
            }
            _ => Err(ChartError { problems }),
        }
    }

    /// Read the chart files in `dir` (any of movement.ron, fire.ron, morale.ron, commanders.ron,
    /// melee.ron, rebuild.ron, losses.ron); charts without a file keep their embedded default.
    /// Any other `.ron` file in the folder is an error, so a misspelt name is not silently ignored.
    pub fn load_dir(dir: &Path) -> Result<Charts, ChartError> {
        let dir_name = dir.display().to_string();
        let entries = std::fs::read_dir(dir).map_err(|e| ChartError::one(&dir_name, e.to_string()))?;
        let mut files: Vec<(String, String)> = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| ChartError::one(&dir_name, e.to_string()))?.path();
            if path.extension().is_none_or(|e| e != "ron") || !path.is_file() {
                continue;
            }
            let file = path.display().to_string();
            let meta = std::fs::metadata(&path).map_err(|e| ChartError::one(&file, e.to_string()))?;
            if meta.len() > MAX_FILE_BYTES {
                return Err(ChartError::one(&file, format!("file is {} bytes; a chart is at most {MAX_FILE_BYTES}", meta.len())));
            }
            let src = std::fs::read_to_string(&path).map_err(|e| ChartError::one(&file, e.to_string()))?;
            files.push((file, src));
        }
        files.sort();
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(f, s)| (f.as_str(), s.as_str())).collect();
        Charts::parse_files(&borrowed)
    }

    /// Every chart as Markdown tables, reconstructed entries marked † with their reasons listed
    /// (the text of `docs/otp-charts.md`).
    pub fn markdown(&self) -> String {
        markdown::render(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_charts_parse_and_validate() {
        let charts = Charts::parse_files(&[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&charts, Charts::embedded());
    }

    #[test]
    fn the_charts_round_trip_through_ron() {
        let charts = Charts::embedded();
        let config = ron::ser::PrettyConfig::new();
        for (name, text) in [
            ("movement.ron", ron::ser::to_string_pretty(&charts.movement, config.clone())),
            ("fire.ron", ron::ser::to_string_pretty(&charts.fire, config.clone())),
            ("morale.ron", ron::ser::to_string_pretty(&charts.morale, config.clone())),
            ("commanders.ron", ron::ser::to_string_pretty(&charts.commanders, config.clone())),
            ("melee.ron", ron::ser::to_string_pretty(&charts.melee, config.clone())),
            ("rebuild.ron", ron::ser::to_string_pretty(&charts.rebuild, config.clone())),
            ("losses.ron", ron::ser::to_string_pretty(&charts.losses, config.clone())),
        ] {
            let text = text.unwrap();
            let again = Charts::parse_files(&[(name, &text)]).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            assert_eq!(&again, charts, "{name}");
        }
    }

    #[test]
    fn unknown_files_are_named() {
        let err = Charts::parse_files(&[("mine/fires.ron", "()")]).unwrap_err().to_string();
        assert!(err.starts_with("mine/fires.ron: not an OTP chart file"), "{err}");
    }
}
