//! Scenario files: the model, the basing rules that turn figures into stands, validation with
//! located errors, and the plugin that puts a scenario's stands on the table as entities.

pub mod basing;
pub mod locate;
pub mod model;
pub mod spawn;
pub mod validate;

use std::fmt;
use std::path::Path;

pub use model::{RuleSetId, Scenario};

/// The teaching battle the app opens with, embedded so the binary runs from any folder.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/teaching.ron");
pub const DEFAULT_SCENARIO_NAME: &str = "scenarios/teaching.ron";

/// One problem in a scenario file.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub file: String,
    /// 1-based line and column, when the text shows where.
    pub position: Option<(usize, usize)>,
    /// Where in the scenario, when the text could not be searched.
    pub place: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = one_line(&self.message);
        match self.position {
            Some((line, col)) => write!(f, "{}:{line}:{col}: {message}", self.file),
            None if self.place.is_empty() => write!(f, "{}: {message}", self.file),
            None => write!(f, "{}: in {}: {message}", self.file, one_line(&self.place)),
        }
    }
}

/// A message on one line: control characters a file put in a quoted name (a newline, NUL) are
/// shown escaped, as `\n`, so every problem stays one `file:line:col: message` line.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars().map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }).collect::<String>().into()
}

/// Everything wrong with a scenario file, one `file:line:col: message` a line.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub problems: Vec<Problem>,
}

/// Problems one a line, as `otp check` prints them (shared by every file the app reads).
pub fn write_problems(f: &mut fmt::Formatter<'_>, problems: &[Problem]) -> fmt::Result {
    let lines: Vec<String> = problems.iter().map(Problem::to_string).collect();
    write!(f, "{}", lines.join("\n"))
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_problems(f, &self.problems)
    }
}

impl std::error::Error for ScenarioError {}

impl ScenarioError {
    fn one(file: &str, position: Option<(usize, usize)>, message: impl Into<String>) -> Self {
        ScenarioError { problems: vec![Problem { file: file.into(), position, place: String::new(), message: message.into() }] }
    }
}

/// The largest scenario file read (a big battle is well under 1 MiB).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Text without the byte order mark a Windows editor puts first (positions are counted after it).
pub fn without_bom(src: &str) -> &str {
    src.strip_prefix('\u{feff}').unwrap_or(src)
}

/// Deserialise RON text, a syntax or type error located as ron found it.
pub fn from_ron<T: serde::de::DeserializeOwned>(src: &str, file: &str) -> Result<T, ScenarioError> {
    ron::Options::default().from_str(src).map_err(|e| {
        let start = e.span.start;
        let position = (start.line > 0).then_some((start.line, start.col));
        ScenarioError::one(file, position, e.code.to_string())
    })
}

/// Validation problems placed in the text: `spans` are the scenario's part of `src`'s spans.
pub fn locate_problems(src: &str, spans: Option<&locate::Spans>, file: &str, problems: Vec<validate::Problem>) -> ScenarioError {
    ScenarioError {
        problems: problems
            .into_iter()
            .map(|(locus, message)| Problem {
                file: file.into(),
                position: spans.and_then(|spans| locate::locate(src, spans, &locus)),
                place: locus.describe(),
                message,
            })
            .collect(),
    }
}

/// Parse and validate scenario text; `file` names it in messages. A leading byte order mark and
/// CRLF line ends are accepted.
pub fn parse(src: &str, file: &str) -> Result<Scenario, ScenarioError> {
    parse_under(src, file, None)
}

/// [`parse`], played under `rules` (`--rules`) when given, whatever the file's `rules:` says:
/// the scenario is validated for that rule set and carries it.
pub fn parse_under(src: &str, file: &str, rules: Option<RuleSetId>) -> Result<Scenario, ScenarioError> {
    let src = without_bom(src);
    let mut scenario: Scenario = from_ron(src, file)?;
    if let Some(rules) = rules {
        scenario.rules = rules;
    }
    let problems = validate::validate(&scenario);
    if problems.is_empty() {
        return Ok(scenario);
    }
    Err(locate_problems(src, locate::Spans::of(src).as_ref(), file, problems))
}

/// Read a text file as the app reads every file: at most `max_bytes` (read so, not trusted from
/// the file system: a device never ends), and UTF-8, a bad byte shown by its line and column.
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, ScenarioError> {
    use std::io::Read;
    let file = path.display().to_string();
    let io = |e: std::io::Error| ScenarioError::one(&file, None, e.to_string());
    let mut bytes = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(max_bytes + 1).read_to_end(&mut bytes)).map_err(io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(ScenarioError::one(&file, None, format!("the file is over {max_bytes} bytes; that is not a file this app wrote")));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let position = locate::line_col(without_bom(prefix), without_bom(prefix).len());
        ScenarioError::one(&file, Some(position), format!("invalid UTF-8 (byte 0x{:02X}): save the file as UTF-8 text", bytes[valid]))
    })
}

/// Read, parse and validate a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    load_under(path, None)
}

/// [`load`] under `rules` when given (see [`parse_under`]).
pub fn load_under(path: &Path, rules: Option<RuleSetId>) -> Result<Scenario, ScenarioError> {
    parse_under(&read_text(path, MAX_FILE_BYTES)?, &path.display().to_string(), rules)
}

/// The embedded teaching scenario.
pub fn default_scenario() -> Scenario {
    parse(DEFAULT_SCENARIO, DEFAULT_SCENARIO_NAME).expect("the embedded scenario is valid (tested)")
}

/// RON text of a scenario, as a designer would write it.
pub fn to_ron(scenario: &Scenario) -> String {
    let config = ron::ser::PrettyConfig::new().struct_names(false).indentor("    ".to_string());
    ron::Options::default().to_string_pretty(scenario, config).expect("scenarios always serialise")
}

/// Write a file atomically: a temporary file beside it, then a rename, so a crash leaves the old one.
pub fn write_atomically(path: &Path, contents: &str) -> std::io::Result<()> {
    write_bytes_atomically(path, contents.as_bytes())
}

/// [`write_atomically`] for bytes (PNG, PDF).
pub fn write_bytes_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| std::io::Error::other("no file name"))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(contents)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

pub fn save(path: &Path, scenario: &Scenario) -> std::io::Result<()> {
    write_atomically(path, &to_ron(scenario))
}
