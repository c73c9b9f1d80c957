//! Checks a parsed scenario against the rules and common sense. Every problem names its place.

use std::collections::HashMap;

use bevy::math::Vec2;

use super::basing::{self, LOOSE_ORDER_GAP, SKIRMISH_GAP};
use super::locate::{Locus, Step};
use super::model::*;
use crate::table::footprint::Footprint;

/// The largest table a file may ask for, inches (40 feet: no club has a bigger one).
pub const MAX_TABLE: f32 = 480.0;
/// Stands may touch, not overlap, at set-up (6.5); this much is forgiven for rounding.
pub const OVERLAP_TOLERANCE: f32 = 0.02;

pub type Problem = (Locus, String);

/// The most men a unit may have (a big brigade: a unit is a regiment or battalion).
pub const MAX_MEN: u32 = 20_000;
/// The most figures a unit may have under Purky's rules.
pub const MAX_PURKY_FIGURES: u32 = 400;

/// An arm in a message's words.
fn arm_words(arm: Arm) -> &'static str {
    match arm {
        Arm::Infantry => "infantry",
        Arm::Cavalry => "cavalry",
        Arm::Artillery { .. } => "artillery",
    }
}

/// The longest name a file may give anything (a regiment's full title fits easily).
pub const MAX_NAME_CHARS: usize = 120;

struct Check<'a> {
    scenario: &'a Scenario,
    problems: Vec<Problem>,
}

/// Everything wrong with a scenario: the common checks, then what its rule set (`rules:`)
/// needs of it (a rule set this program plays, `RuleSetId::playable`).
pub fn validate(scenario: &Scenario) -> Vec<Problem> {
    let mut c = Check { scenario, problems: Vec::new() };
    c.name(&Locus::top("name"), &scenario.name, "the scenario");
    if let Err(why) = scenario.rules.playable() {
        c.problems.push((super::locate::Locus::top("rules"), format!("rules: {why}")));
    }
    if !c.table() {
        // Everything else is placed on the table: with no sound table, more messages would mislead.
        return c.problems;
    }
    c.terrain();
    c.sides();
    c.objectives();
    c.history();
    if scenario.rules == RuleSetId::AcwQuick {
        c.acw_quick();
    }
    c.problems
}

fn finite(p: Point) -> bool {
    p[0].is_finite() && p[1].is_finite()
}

impl<'a> Check<'a> {
    fn push(&mut self, locus: Locus, message: impl Into<String>) {
        self.problems.push((locus, message.into()));
    }

    /// Names are how players, actions and saves point at things: printable, not blank.
    fn name(&mut self, locus: &Locus, name: &str, what: &str) {
        let at = if locus.path.last() == Some(&Step::Field("name")) { locus.clone() } else { locus.clone().field("name") };
        if name.trim().is_empty() {
            self.push(at, format!("{what} needs a name, not {name:?}"));
        } else if let Some(c) = name.chars().find(|c| c.is_control()) {
            self.push(at, format!("{what}'s name {name:?} holds the control character {c:?}; a name is printable text on one line"));
        } else if name.chars().count() > MAX_NAME_CHARS {
            self.push(at, format!("{what}'s name is {} characters; {MAX_NAME_CHARS} is the most", name.chars().count()));
        }
    }

    fn on_table(&self, p: Point) -> bool {
        let t = self.scenario.table;
        finite(p) && p[0] >= 0.0 && p[1] >= 0.0 && p[0] <= t.width && p[1] <= t.depth
    }

    /// Checks the table, basing and turn limit; false when the table itself is unusable.
    fn table(&mut self) -> bool {
        let t = self.scenario.table;
        let before = self.problems.len();
        for (v, f) in [(t.width, "width"), (t.depth, "depth")] {
            if !v.is_finite() || !(6.0..=MAX_TABLE).contains(&v) {
                self.push(Locus::top("table").field(f), format!("table {f} must be 6 to {MAX_TABLE} inches, not {v}"));
            }
        }
        let b = self.scenario.basing;
        for (v, f) in [(b.infantry_depth, "infantry_depth"), (b.cavalry_depth, "cavalry_depth"), (b.artillery_depth, "artillery_depth")] {
            if !v.is_finite() || !(0.25..=6.0).contains(&v) {
                self.push(Locus::top("basing").field(f), format!("{f} must be 1/4\" to 6\", not {v}"));
            }
        }
        if let Some(turns) = self.scenario.turn_limit
            && !(1..=200).contains(&turns)
        {
            self.push(Locus::top("turn_limit"), format!("turn_limit must be 1 to 200, not {turns}"));
        }
        !self.problems[before..].iter().any(|(l, _)| l.path.first() == Some(&Step::Field("table")))
    }

    fn points(&mut self, locus: &Locus, field: &'static str, points: &[Point], min: usize) {
        if points.len() < min {
            self.push(locus.clone().field(field), format!("{field} needs at least {min} points, has {}", points.len()));
        } else if points.len() > 10_000 {
            self.push(locus.clone().field(field), format!("{field} has {} points; 10000 is the most", points.len()));
        } else if let Some(p) = points.iter().find(|p| !self.on_table(**p)) {
            self.push(locus.clone().field(field), format!("point {p:?} is off the {}\" x {}\" table", self.scenario.table.width, self.scenario.table.depth));
        } else if min >= 3 && self_intersects(points) {
            self.push(locus.clone().field(field), "outline crosses itself; list the corners in order around the edge");
        }
    }

    fn terrain(&mut self) {
        let mut names: HashMap<&str, usize> = HashMap::new();
        for (i, t) in self.scenario.terrain.iter().enumerate() {
            let locus = Locus::top("terrain").index(i).named(t.name());
            self.name(&locus, t.name(), &format!("{} {}", t.kind_name(), i + 1));
            *names.entry(t.name()).or_default() += 1;
            if names[t.name()] == 2 {
                self.push(locus.clone(), format!("two terrain features are called \"{}\"; names must be unique", t.name()));
            }
            match t {
                Terrain::Woods { outline, .. } | Terrain::Field { outline, .. } => self.points(&locus, "outline", outline, 3),
                Terrain::Hill { outline, elevation, .. } => {
                    self.points(&locus, "outline", outline, 3);
                    if !(1..=10).contains(elevation) {
                        self.push(locus.field("elevation"), format!("hill elevation must be 1 to 10 levels, not {elevation}"));
                    }
                }
                Terrain::Town { outline, capacity, .. } => {
                    self.points(&locus, "outline", outline, 3);
                    if !(1..=40).contains(capacity) {
                        self.push(locus.field("capacity"), format!("town capacity must be 1 to 40 stands (6.13), not {capacity}"));
                    }
                }
                Terrain::Stream { path, width, fords, .. } => {
                    self.points(&locus, "path", path, 2);
                    if !width.is_finite() || !(0.1..=12.0).contains(width) {
                        self.push(locus.clone().field("width"), format!("stream width must be 0.1\" to 12\", not {width}"));
                    }
                    for (k, ford) in fords.iter().enumerate() {
                        let ford_locus = locus.clone().field("fords").index(k);
                        let near = finite(ford.at)
                            && polyline_distance(path, Vec2::from(ford.at)) <= width / 2.0 + 0.5;
                        if !near {
                            self.push(ford_locus.clone().field("at"), format!("ford at {:?} is not on the stream", ford.at));
                        }
                        if !ford.width.is_finite() || !(0.5..=24.0).contains(&ford.width) {
                            self.push(ford_locus.field("width"), format!("ford width must be 1/2\" to 24\", not {}", ford.width));
                        }
                    }
                }
                Terrain::Road { path, width, .. } => {
                    self.points(&locus, "path", path, 2);
                    if !width.is_finite() || !(0.25..=6.0).contains(width) {
                        self.push(locus.field("width"), format!("road width must be 1/4\" to 6\", not {width}"));
                    }
                }
                Terrain::Obstacle { path, .. } => self.points(&locus, "path", path, 2),
                Terrain::Building { at, size, facing, capacity, .. } => {
                    if !self.on_table(*at) {
                        self.push(locus.clone().field("at"), format!("building at {at:?} is off the table"));
                    }
                    if !finite(*size) || !(0.25..=24.0).contains(&size[0]) || !(0.25..=24.0).contains(&size[1]) {
                        self.push(locus.clone().field("size"), format!("building size must be 1/4\" to 24\" each way, not {size:?}"));
                    }
                    if !facing.is_finite() {
                        self.push(locus.clone().field("facing"), "facing must be a number of degrees");
                    }
                    if !(1..=10).contains(capacity) {
                        self.push(locus.field("capacity"), format!("building capacity must be 1 to 10 stands (6.13), not {capacity}"));
                    }
                }
            }
        }
    }

    fn commander(&mut self, c: &'a Commander, locus: &Locus) {
        self.name(locus, &c.name, "a commander");
        if self.scenario.rules == RuleSetId::Otp && c.kind.is_acw() {
            self.push(locus.clone().field("kind"), format!("commander {} is a {:?} leader: OTP 2.0's COMMANDER VALUES has no column for the Civil War; play this scenario under an ACW rule set (rules: AcwQuick or AcwOrders)", c.name, c.kind));
        }
        if let Some(at) = c.at
            && !self.on_table(at)
        {
            self.push(locus.clone().field("at"), format!("commander {} at {at:?} is off the table", c.name));
        }
    }

    fn sides(&mut self) {
        let s = self.scenario;
        if s.sides.len() != 2 {
            self.push(Locus::top("sides"), format!("a battle needs exactly two sides, this file has {}", s.sides.len()));
        }
        let mut chits: HashMap<u32, &str> = HashMap::new();
        let mut unit_names: HashMap<&str, usize> = HashMap::new();
        let mut brigade_names: HashMap<&str, usize> = HashMap::new();
        let mut side_names: HashMap<&str, usize> = HashMap::new();
        let mut wagon_names: HashMap<&str, usize> = HashMap::new();
        let mut commanders: Vec<(&'a Commander, Locus)> = Vec::new();
        let mut placed: Vec<(&'a Unit, Locus, Vec<Footprint>)> = Vec::new();
        for (si, side) in s.sides.iter().enumerate() {
            let side_locus = Locus::top("sides").index(si).named(&side.name);
            self.name(&side_locus, &side.name, "a side");
            *side_names.entry(&side.name).or_default() += 1;
            if side_names[side.name.as_str()] == 2 {
                self.push(side_locus.clone().field("name"), format!("two sides are called \"{}\"", side.name));
            }
            if side.moves_first && s.sides[..si].iter().any(|other| other.moves_first) {
                self.push(side_locus.clone().field("moves_first"), "only one side can move first: remove moves_first from one of them");
            }
            if let Some(c) = &side.commander {
                commanders.push((c, side_locus.clone().field("commander").named(&c.name)));
            }
            if side.brigades.is_empty() {
                self.push(side_locus.clone().field("brigades"), format!("side {} has no brigades", side.name));
            }
            for (bi, brigade) in side.brigades.iter().enumerate() {
                let locus = side_locus.clone().field("brigades").index(bi).named(&brigade.name);
                self.name(&locus, &brigade.name, "a brigade");
                *brigade_names.entry(&brigade.name).or_default() += 1;
                if brigade_names[brigade.name.as_str()] == 2 {
                    self.push(locus.clone(), format!("two brigades are called \"{}\"", brigade.name));
                }
                if let Some(other) = chits.insert(brigade.chit, &brigade.name) {
                    self.push(locus.clone().field("chit"), format!("chit {} is already brigade {other}'s: each brigade needs its own numbered chit (4.3)", brigade.chit));
                }
                commanders.push((&brigade.commander, locus.clone().field("commander").named(&brigade.commander.name)));
                if brigade.units.is_empty() {
                    self.push(locus.clone().field("units"), format!("brigade {} has no units (4.1)", brigade.name));
                }
                for (ui, unit) in brigade.units.iter().enumerate() {
                    let locus = locus.clone().field("units").index(ui).named(&unit.name);
                    self.name(&locus, &unit.name, "a unit");
                    *unit_names.entry(&unit.name).or_default() += 1;
                    if unit_names[unit.name.as_str()] == 2 {
                        self.push(locus.clone(), format!("two units are called \"{}\"; unit names must be unique", unit.name));
                    }
                    if let Some(stands) = self.unit(unit, &locus) {
                        placed.push((unit, locus, stands));
                    }
                }
            }
            // Supply wagons: named (orders move them by name) and on the table.
            for (wi, wagon) in side.wagons.iter().enumerate() {
                let locus = side_locus.clone().field("wagons").index(wi).named(&wagon.name);
                self.name(&locus, &wagon.name, "a wagon");
                *wagon_names.entry(&wagon.name).or_default() += 1;
                if wagon_names[wagon.name.as_str()] == 2 {
                    self.push(locus.clone().field("name"), format!("two wagons are called \"{}\"; wagon names must be unique", wagon.name));
                }
                if !self.on_table(wagon.at) {
                    self.push(locus.field("at"), format!("wagon {} at {:?} is off the table", wagon.name, wagon.at));
                }
            }
        }
        self.commanders(&commanders, &unit_names);
        self.attachments(&placed);
        self.overlaps(&placed);
    }

    /// The quick ACW rules (src/rules/acw_quick): each side fights for the Union or the
    /// Confederacy (QK1 order, QK10 morale, QK21 leaders), and units are in the sheet's formations
    /// (QK6: foot line or column; cavalry line, column or dismounted; guns limbered or unlimbered).
    fn acw_quick(&mut self) {
        for (si, side) in self.scenario.sides.iter().enumerate() {
            let side_locus = Locus::top("sides").index(si).named(&side.name);
            if !matches!(side.nation_or_default(), Some(Nation::Union | Nation::Confederate)) {
                self.push(side_locus.clone().field("nation"), format!("side {} fights for neither the Union nor the Confederacy: the quick ACW rules read a side's nation for its morale and leaders (QK10, QK21); write nation: Some(Union) or Some(Confederate)", side.name));
            }
            for (bi, brigade) in side.brigades.iter().enumerate() {
                for (ui, u) in brigade.units.iter().enumerate() {
                    let fits = match u.arm {
                        Arm::Infantry => matches!(u.formation, Formation::Line | Formation::Column),
                        Arm::Cavalry => matches!(u.formation, Formation::Line | Formation::Column | Formation::Dismounted),
                        Arm::Artillery { .. } => true,
                    };
                    if !fits {
                        let locus = side_locus.clone().field("brigades").index(bi).named(&brigade.name).field("units").index(ui).named(&u.name).field("formation");
                        self.push(locus, format!("the quick ACW rules know no {} for {} (QK6: foot line or column; cavalry line, column or Dismounted)", crate::table::words::formation(u.formation), arm_words(u.arm)));
                    }
                }
            }
        }
    }

    /// Actions and saves name commanders and units alike: each name points at one figure (10.4, 6.12).
    fn commanders(&mut self, commanders: &[(&'a Commander, Locus)], unit_names: &HashMap<&str, usize>) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (c, locus) in commanders {
            self.commander(c, locus);
            *seen.entry(&c.name).or_default() += 1;
            if seen[c.name.as_str()] == 2 {
                self.push(locus.clone().field("name"), format!("two commanders are called \"{}\"; commander names must be unique", c.name));
            }
            if unit_names.contains_key(c.name.as_str()) {
                self.push(locus.clone().field("name"), format!("commander \"{}\" has the name of a unit; orders name both, so they must differ", c.name));
            }
        }
    }

    /// One unit's own checks; returns its stands when it can be laid out.
    fn unit(&mut self, u: &Unit, locus: &Locus) -> Option<Vec<Footprint>> {
        let rules = self.scenario.optional_rules;
        let problems_before = self.problems.len();
        let is_artillery = matches!(u.arm, Arm::Artillery { .. });
        // The ACW orders sheet's formations: the rows of its movement and impact tables (OR12, OR18).
        if self.scenario.rules == RuleSetId::AcwOrders {
            let sheet = match u.arm {
                Arm::Infantry => matches!(u.formation, Formation::Line | Formation::DoubleLine | Formation::ExtendedLine | Formation::Skirmish | Formation::AttackColumn | Formation::Column),
                Arm::Cavalry => matches!(u.formation, Formation::Line | Formation::DoubleLine | Formation::Skirmish | Formation::Column | Formation::Dismounted),
                Arm::Artillery { .. } => true,
            };
            if !sheet {
                self.push(locus.clone().field("formation"), format!("the ACW orders sheet has no {} for {} (OR12)", crate::table::words::formation(u.formation), arm_words(u.arm)));
            }
        }
        match (u.arm, u.formation) {
            // Purky's card (PK6): march and attack column, line, skirmish, square; guns limbered or not.
            (_, f) if self.scenario.rules == RuleSetId::Purky && matches!(f, Formation::Wedge | Formation::ReinforcedLine | Formation::DoubleLine | Formation::ExtendedLine | Formation::Dismounted) => {
                self.push(locus.clone().field("formation"), format!("Purky's card has no {} formation (PK6)", crate::table::words::formation(f)))
            }
            (_, f) if self.scenario.rules == RuleSetId::Otp && !Formation::OTP.contains(&f) => {
                self.push(locus.clone().field("formation"), format!("On to Philadelphia has no {} formation (5.0)", crate::table::words::formation(f)))
            }
            (Arm::Artillery { .. }, Formation::Limbered | Formation::Unlimbered) => {}
            (Arm::Artillery { .. }, f) => self.push(locus.clone().field("formation"), format!("artillery is Limbered or Unlimbered (5.0), not {f:?}")),
            (_, f @ (Formation::Limbered | Formation::Unlimbered)) => self.push(locus.clone().field("formation"), format!("only artillery can be {f:?} (5.0)")),
            (Arm::Cavalry, f @ (Formation::Skirmish | Formation::LooseOrder)) => self.push(locus.clone().field("formation"), format!("cavalry form column or line, not {f:?} (5.0)")),
            (Arm::Infantry, Formation::Skirmish) => {
                let able = matches!(u.unit_type, UnitType::Light | UnitType::Indian) || (u.unit_type == UnitType::Militia && u.can_skirmish);
                if !able {
                    let why = if u.unit_type == UnitType::Militia { "militia skirmish only when the scenario gives them can_skirmish: true" } else { "only Light, Indian and some Militia infantry can form skirmish line" };
                    self.push(locus.clone().field("formation"), format!("{:?} infantry cannot skirmish: {why} (5.3)", u.unit_type));
                }
            }
            (Arm::Infantry, Formation::LooseOrder) => {
                if !rules.loose_order {
                    self.push(locus.clone().field("formation"), "loose order is optional rule 5.4: turn on optional_rules.loose_order");
                } else if !matches!(u.unit_type, UnitType::Militia | UnitType::Indian) {
                    self.push(locus.clone().field("formation"), format!("only Militia and Indian infantry adopt loose order (5.4), not {:?}", u.unit_type));
                }
            }
            _ => {}
        }
        if rules.indians_skirmish_only && u.unit_type == UnitType::Indian && u.formation != Formation::Skirmish {
            self.push(locus.clone().field("formation"), "with optional rule 5.5 Indians can only be in skirmish line");
        }
        if u.can_skirmish && u.unit_type != UnitType::Militia {
            self.push(locus.clone().field("can_skirmish"), "can_skirmish is for Militia (5.3); Lights and Indians skirmish anyway, others never");
        }
        match (is_artillery, u.weapon) {
            (true, Some(w)) => self.push(locus.clone().field("weapon"), format!("artillery carries no small arms; remove weapon: Some({w:?})")),
            (false, None) => self.push(locus.clone().field("name"), format!("{} needs a weapon (8.3: Musket, Rifle, Carbine, Fusil or Bow)", u.name)),
            _ => {}
        }
        if let Arm::Artillery { gun, galloper: true } = u.arm
            && gun != GunSize::Light
        {
            self.push(locus.clone().field("arm"), "galloper guns are light guns of 3-4 lb (7.6)");
        }
        if is_artillery && u.figures_per_stand.is_some() {
            self.push(locus.clone().field("figures_per_stand"), "an artillery unit is one stand with a crew figure a gun (1.3)");
        }
        if u.arm == Arm::Infantry && u.figures_per_stand == Some(3) && !rules.loose_order {
            self.push(locus.clone().field("figures_per_stand"), "3 militia to a 2\" stand comes with optional rule 5.4 (loose_order)");
        }
        if let Some(cv) = u.cv
            && !(1..=9).contains(&cv)
        {
            self.push(locus.clone().field("cv"), format!("cv must be 1 to 9 (a D10 reads 0-9), not {cv}"));
        }
        if let Some(gap) = u.gap {
            let range = match u.formation {
                Formation::Skirmish => Some(SKIRMISH_GAP),
                Formation::LooseOrder => Some(LOOSE_ORDER_GAP),
                _ => None,
            };
            match range {
                None => self.push(locus.clone().field("gap"), format!("gap is only for skirmish line or loose order; {:?} stands touch", u.formation)),
                Some((lo, hi)) if !gap.is_finite() || gap < lo || gap > hi => {
                    self.push(locus.clone().field("gap"), format!("a {:?} gap is {lo}\" to {hi}\" (5.3, 5.4), not {gap}", u.formation))
                }
                _ => {}
            }
        }
        self.profiles(u, locus);
        if u.attached_to.is_some() && !is_artillery {
            self.push(locus.clone().field("attached_to"), "only an artillery stand can be attached to a unit (7.5)");
        }
        if !u.facing.is_finite() {
            self.push(locus.clone().field("facing"), "facing must be a bearing in degrees");
        }
        if !finite(u.at) {
            self.push(locus.clone().field("at"), "position must be two finite numbers of inches");
        }
        let stands = match basing::layout(u, &self.scenario.basing) {
            Ok(stands) => stands,
            Err(e) => {
                self.push(locus.clone().field("figures"), e.to_string());
                return None;
            }
        };
        if self.problems.len() > problems_before {
            return None;
        }
        let stands: Vec<Footprint> = stands.into_iter().map(|(f, _)| f).collect();
        let t = self.scenario.table;
        let off = stands.iter().flat_map(|s| s.corners()).find(|c| c.x < -0.01 || c.y < -0.01 || c.x > t.width + 0.01 || c.y > t.depth + 0.01);
        if let Some(c) = off {
            self.push(locus.clone().field("at"), format!("{} has a stand off the table (a corner at {:.1}, {:.1})", u.name, c.x, c.y));
            return None;
        }
        Some(stands)
    }

    /// The numbers other rule sets read: men, and what the profiles say of the unit's arm.
    fn profiles(&mut self, u: &Unit, locus: &Locus) {
        let is_artillery = matches!(u.arm, Arm::Artillery { .. });
        if let Some(men) = u.men
            && !(1..=MAX_MEN).contains(&men)
        {
            self.push(locus.clone().field("men"), format!("men must be 1 to {MAX_MEN}, not {men}"));
        }
        if let Some(figures) = u.purky.and_then(|p| p.figures)
            && !(1..=MAX_PURKY_FIGURES).contains(&figures)
        {
            self.push(locus.clone().field("purky"), format!("purky figures must be 1 to {MAX_PURKY_FIGURES}, not {figures}"));
        }
        if let Some(p) = u.purky {
            let gun_class = matches!(p.class, PurkyClass::HeavyGuns | PurkyClass::MediumGuns | PurkyClass::LightGuns | PurkyClass::Amusettes);
            if gun_class != is_artillery || (p.class == PurkyClass::Cavalry) != (u.arm == Arm::Cavalry) {
                self.push(locus.clone().field("purky"), format!("purky class {:?} is not a class of {}", p.class, arm_words(u.arm)));
            }
        }
        if let Some(p) = u.revolution {
            let fits = match p.kind {
                RevolutionKind::Artillery => is_artillery,
                RevolutionKind::Dragoons => u.arm == Arm::Cavalry,
                _ => u.arm == Arm::Infantry,
            };
            if !fits {
                self.push(locus.clone().field("revolution"), format!("revolution kind {:?} is not a kind of {}", p.kind, arm_words(u.arm)));
            }
        }
        if let Some(p) = u.acw {
            if p.gun.is_some() && !is_artillery {
                self.push(locus.clone().field("acw"), "acw gun is for artillery; foot and horse carry a weapon");
            }
            if p.weapon.is_some() && is_artillery {
                self.push(locus.clone().field("acw"), "acw weapon is for foot and horse; artillery has a gun");
            }
        }
    }

    fn attachments(&mut self, placed: &[(&Unit, Locus, Vec<Footprint>)]) {
        for (u, locus, stands) in placed {
            let Some(host) = &u.attached_to else { continue };
            let side_of = |name: &str| self.scenario.sides.iter().position(|s| s.brigades.iter().any(|b| b.units.iter().any(|x| x.name == name)));
            match placed.iter().find(|(h, _, _)| &h.name == host) {
                None => self.push(locus.clone().field("attached_to"), format!("no unit called \"{host}\" to attach to")),
                Some((h, _, host_stands)) => {
                    if h.arm != Arm::Infantry {
                        self.push(locus.clone().field("attached_to"), format!("artillery attaches to infantry (7.5); {host} is {:?}", h.arm));
                    } else if side_of(host) != side_of(&u.name) {
                        self.push(locus.clone().field("attached_to"), format!("{host} is on the other side"));
                    } else {
                        let gap = stands.iter().flat_map(|a| host_stands.iter().map(|b| a.distance(b))).fold(f32::INFINITY, f32::min);
                        if gap > 0.05 {
                            self.push(locus.clone().field("attached_to"), format!("an attached gun must touch its unit (7.5); it is {gap:.1}\" from {host}"));
                        }
                    }
                }
            }
        }
    }

    fn overlaps(&mut self, placed: &[(&Unit, Locus, Vec<Footprint>)]) {
        for (i, (a, locus, sa)) in placed.iter().enumerate() {
            for (b, _, sb) in &placed[i + 1..] {
                if sa.iter().any(|x| sb.iter().any(|y| x.overlaps(y, OVERLAP_TOLERANCE))) {
                    self.push(locus.clone().field("at"), format!("{} overlaps {} at set-up: units may not interpenetrate (6.5)", a.name, b.name));
                }
            }
        }
    }

    /// The historical winner, when given, must be one of the two sides.
    fn history(&mut self) {
        let s = self.scenario;
        if let Some(winner) = s.history.as_ref().and_then(|h| h.winner.as_deref())
            && !s.sides.iter().any(|side| side.name == winner)
        {
            let names: Vec<String> = s.sides.iter().map(|side| format!("\"{}\"", side.name)).collect();
            self.push(Locus::top("history").field("winner"), format!("winner \"{winner}\" is not a side of this battle: name one of {}", names.join(" or ")));
        }
    }

    fn objectives(&mut self) {
        for (i, o) in self.scenario.objectives.iter().enumerate() {
            let locus = Locus::top("objectives").index(i).named(&o.name);
            self.name(&locus, &o.name, "an objective");
            if !self.on_table(o.at) {
                self.push(locus.clone().field("at"), format!("objective at {:?} is off the table", o.at));
            }
            if !o.radius.is_finite() || !(0.5..=48.0).contains(&o.radius) {
                self.push(locus.field("radius"), format!("objective radius must be 1/2\" to 48\", not {}", o.radius));
            }
        }
    }
}

/// Shortest distance from a point to a polyline.
pub fn polyline_distance(path: &[Point], p: Vec2) -> f32 {
    path.windows(2)
        .map(|w| {
            let (a, b) = (Vec2::from(w[0]), Vec2::from(w[1]));
            let ab = b - a;
            let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
            p.distance(a + ab * t)
        })
        .fold(f32::INFINITY, f32::min)
}

/// Whether any two non-adjacent edges of a closed outline cross.
fn self_intersects(points: &[Point]) -> bool {
    let n = points.len();
    let p = |i: usize| Vec2::from(points[i % n]);
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    (0..n).any(|i| {
        ((i + 2)..n).filter(|&j| !(i == 0 && j == n - 1)).any(|j| {
            let (a, b, c, d) = (p(i), p(i + 1), p(j), p(j + 1));
            let (d1, d2) = (cross(c, d, a), cross(c, d, b));
            let (d3, d4) = (cross(a, b, c), cross(a, b, d));
            d1 * d2 < 0.0 && d3 * d4 < 0.0
        })
    })
}
