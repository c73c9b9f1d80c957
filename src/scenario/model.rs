//! The scenario file, as written by a scenario designer (RON via serde).
//!
//! Units of length are inches, the origin is the table's lower-left corner, y runs up the table.
//! Facings are compass bearings in degrees: 0 faces up the table (+y), 90 faces right (+x).

use serde::{Deserialize, Serialize};

pub use crate::rules::cite::RuleSetId;

/// A point on the table, in inches.
pub type Point = [f32; 2];

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// The rule set the scenario is played under (On to Philadelphia when the file names none).
    #[serde(default, skip_serializing_if = "RuleSetId::is_otp")]
    pub rules: RuleSetId,
    #[serde(default)]
    pub description: String,
    /// Historical note and sources, for historical battles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
    pub table: Table,
    /// Stand depths; frontages always follow the basing rules (OTP 1.1–1.3).
    #[serde(default)]
    pub basing: Basing,
    #[serde(default)]
    pub optional_rules: OptionalRules,
    #[serde(default)]
    pub terrain: Vec<Terrain>,
    pub sides: Vec<Side>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_limit: Option<u32>,
    #[serde(default)]
    pub objectives: Vec<Objective>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct History {
    pub date: String,
    pub note: String,
    #[serde(default)]
    pub sources: Vec<String>,
    /// The side that won historically, by its `name` (validated), for `otp simulate --balance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
}

/// The playing surface, in inches.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub width: f32,
    pub depth: f32,
}

/// Stand depths in inches. The rules fix frontages only; depth is a collector's choice.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Basing {
    pub infantry_depth: f32,
    pub cavalry_depth: f32,
    pub artillery_depth: f32,
}

impl Default for Basing {
    fn default() -> Self {
        Self { infantry_depth: 0.75, cavalry_depth: 1.5, artillery_depth: 2.0 }
    }
}

/// Optional rules of OTP, each a switch (all off unless the scenario turns them on).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct OptionalRules {
    /// 5.4 Loose order for Militia and Indian infantry.
    pub loose_order: bool,
    /// 5.5 Indians fight only in skirmish line.
    pub indians_skirmish_only: bool,
    /// 6.12 Commanders move as infantry in skirmish line through terrain.
    pub commanders_as_skirmishers: bool,
    /// 6.14 Militia lose stragglers when they retreat.
    pub militia_stragglers: bool,
    /// 7.6 Galloper guns move 6" unlimbered (or 3" and fire).
    pub galloper_guns: bool,
    /// 7.7 Civilian drivers: artillery once unlimbered stays unlimbered.
    pub civilian_drivers: bool,
    /// 10.6 Commanders must see a unit to reach it with a morale pass.
    pub visibility_restrictions: bool,
}

/// OTP 6.6: the four disordering terrain types, A the mildest, D the worst.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DisorderType {
    A,
    B,
    C,
    D,
}

/// OTP 8.7: woods by how far one can see into them.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WoodsDensity {
    /// Orchards, open forest: visibility 2AD+2", type B (6.6).
    Light,
    /// Some undergrowth: visibility 2AD-2", type C.
    Regular,
    /// Heavy undergrowth: visibility 1AD-1", type D.
    Dense,
}

impl WoodsDensity {
    /// The disordering type 6.6 gives these woods unless the scenario says otherwise.
    pub fn default_disorder(self) -> DisorderType {
        match self {
            WoodsDensity::Light => DisorderType::B,
            WoodsDensity::Regular => DisorderType::C,
            WoodsDensity::Dense => DisorderType::D,
        }
    }
}

/// OTP 8.6: cover classes for fire combat, and for melee (9.12).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cover {
    Light,
    Medium,
    Heavy,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamKind {
    /// A narrow stream: a linear obstruction (6.7), crossed anywhere.
    Narrow,
    /// A large stream: fordable anywhere as type B disordering terrain (6.6).
    Large,
    /// A river: impassable except at its fords, which are type B (6.6).
    River,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObstacleKind {
    /// Wood fence: light cover, rest for muskets (8.6, 8.10).
    Fence,
    /// Stone wall: medium cover, rest.
    StoneWall,
    /// Prepared barricade, abatis: medium cover, rest.
    Barricade,
    /// Earthen breastwork: heavy cover, rest, and works for morale (8.6, 8.10, 10.3).
    Breastwork,
}

impl ObstacleKind {
    pub fn cover(self) -> Cover {
        match self {
            ObstacleKind::Fence => Cover::Light,
            ObstacleKind::StoneWall | ObstacleKind::Barricade => Cover::Medium,
            ObstacleKind::Breastwork => Cover::Heavy,
        }
    }
    /// 10.3: works give a bonus to morale rolls.
    pub fn is_works(self) -> bool {
        matches!(self, ObstacleKind::Breastwork)
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Construction {
    /// Wood buildings count as medium cover (6.13).
    Wood,
    /// Stone buildings count as heavy cover (6.13).
    Stone,
}

impl Construction {
    pub fn cover(self) -> Cover {
        match self {
            Construction::Wood => Cover::Medium,
            Construction::Stone => Cover::Heavy,
        }
    }
}

/// OTP 6.6 type A ground and swamps.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Full-grown wheat or corn: type A, and sight as light woods (8.7).
    TallCrops,
    /// Plowed fields: type A.
    Plowed,
    /// Rocky, uneven ground: type A.
    Rocky,
    /// Swampy ground: type C.
    Swamp,
    /// Open pasture: no effect; drawn for the look of the table.
    Pasture,
}

impl FieldKind {
    pub fn disorder(self) -> Option<DisorderType> {
        match self {
            FieldKind::TallCrops | FieldKind::Plowed | FieldKind::Rocky => Some(DisorderType::A),
            FieldKind::Swamp => Some(DisorderType::C),
            FieldKind::Pasture => None,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ford {
    pub at: Point,
    /// Width of the crossing along the stream, inches.
    pub width: f32,
}

/// One feature of terrain. Areas are simple polygons (corners in order, not repeated).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Terrain {
    Woods {
        name: String,
        density: WoodsDensity,
        outline: Vec<Point>,
        /// Overrides the disordering type that goes with the density (6.6).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disorder: Option<DisorderType>,
    },
    /// One contour of a hill: ground inside is at `elevation` (levels above the table).
    /// Crossing its edge is crossing a slope, disordering as `slope` (None: a slight slope, 6.6).
    Hill {
        name: String,
        elevation: u32,
        outline: Vec<Point>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        slope: Option<DisorderType>,
    },
    Stream {
        name: String,
        kind: StreamKind,
        path: Vec<Point>,
        #[serde(default = "default_stream_width")]
        width: f32,
        #[serde(default)]
        fords: Vec<Ford>,
    },
    Obstacle {
        name: String,
        kind: ObstacleKind,
        path: Vec<Point>,
        /// The scenario must say which obstructions artillery cannot cross (6.7).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        impassable_to_artillery: bool,
    },
    Road {
        name: String,
        path: Vec<Point>,
        #[serde(default = "default_road_width")]
        width: f32,
    },
    /// A built-up area: medium cover, column only, capacity in stands (6.13).
    Town {
        name: String,
        outline: Vec<Point>,
        capacity: u32,
    },
    /// A single building: cover by construction, capacity in stands (6.13).
    Building {
        name: String,
        at: Point,
        size: Point,
        #[serde(default)]
        facing: f32,
        construction: Construction,
        capacity: u32,
    },
    Field {
        name: String,
        kind: FieldKind,
        outline: Vec<Point>,
    },
}

fn default_stream_width() -> f32 {
    0.5
}
fn default_road_width() -> f32 {
    1.0
}

impl Terrain {
    pub fn name(&self) -> &str {
        match self {
            Terrain::Woods { name, .. }
            | Terrain::Hill { name, .. }
            | Terrain::Stream { name, .. }
            | Terrain::Obstacle { name, .. }
            | Terrain::Road { name, .. }
            | Terrain::Town { name, .. }
            | Terrain::Building { name, .. }
            | Terrain::Field { name, .. } => name,
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            Terrain::Woods { .. } => "Woods",
            Terrain::Hill { .. } => "Hill",
            Terrain::Stream { .. } => "Stream",
            Terrain::Obstacle { .. } => "Obstacle",
            Terrain::Road { .. } => "Road",
            Terrain::Town { .. } => "Town",
            Terrain::Building { .. } => "Building",
            Terrain::Field { .. } => "Field",
        }
    }

    /// The disordering type of moving into or through this feature (6.6), if any.
    pub fn disorder(&self) -> Option<DisorderType> {
        match self {
            Terrain::Woods { density, disorder, .. } => Some(disorder.unwrap_or(density.default_disorder())),
            Terrain::Hill { slope, .. } => *slope,
            Terrain::Stream { kind: StreamKind::Large | StreamKind::River, .. } => Some(DisorderType::B),
            Terrain::Field { kind, .. } => kind.disorder(),
            _ => None,
        }
    }

    /// Fire-combat cover given to units in or behind this feature (8.6, 6.13).
    pub fn cover(&self) -> Option<Cover> {
        match self {
            Terrain::Woods { .. } => Some(Cover::Light),
            Terrain::Obstacle { kind, .. } => Some(kind.cover()),
            Terrain::Town { .. } => Some(Cover::Medium),
            Terrain::Building { construction, .. } => Some(construction.cover()),
            _ => None,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    pub name: String,
    pub at: Point,
    #[serde(default = "default_objective_radius")]
    pub radius: f32,
    #[serde(default = "default_points")]
    pub points: u32,
}

fn default_objective_radius() -> f32 {
    3.0
}
fn default_points() -> u32 {
    1
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Side {
    pub name: String,
    /// Stand colour as RGB; each side gets a distinct default if omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<[u8; 3]>,
    /// The overall commander, who may use morale passes on any unit (10.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commander: Option<Commander>,
    pub brigades: Vec<Brigade>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Brigade {
    pub name: String,
    /// The numbered chit drawn from the cup to activate this brigade (4.3).
    pub chit: u32,
    pub commander: Commander,
    pub units: Vec<Unit>,
}

/// Which COMMANDER VALUES column the commander rolls on (2.0).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommanderKind {
    British,
    German,
    Continental,
    French,
    Loyalist,
    Militia,
}

/// Commander ratings named in 9.6 and 9.10.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rating {
    Exceptional,
    Firebrand,
    Aggressive,
    Cautious,
    Poltroon,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Commander {
    pub name: String,
    pub kind: CommanderKind,
    /// A fixed rating from history; otherwise rolled on COMMANDER VALUES before play (2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<Rating>,
    /// Where the commander's figure stands; by default beside his first unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Point>,
}

/// OTP 2.0 unit types.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnitType {
    Militia,
    StateLine,
    Line,
    Light,
    Indian,
    Elite,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GunSize {
    /// Under 6 lb.
    Light,
    /// 6–9 lb.
    Medium,
    /// 12 lb. and up.
    Heavy,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(deny_unknown_fields)]
pub enum Arm {
    Infantry,
    Cavalry,
    Artillery {
        gun: GunSize,
        /// 7.6 light "galloper" guns.
        #[serde(default)]
        galloper: bool,
    },
}

/// Small arms, OTP 8.3.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Weapon {
    Musket,
    Rifle,
    Carbine,
    Fusil,
    Bow,
}

impl Weapon {
    /// The weapon's name in plain words, as the rules write it.
    pub fn name(self) -> &'static str {
        match self {
            Weapon::Musket => "musket",
            Weapon::Rifle => "rifle",
            Weapon::Carbine => "carbine",
            Weapon::Fusil => "fusil",
            Weapon::Bow => "bow",
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Formation {
    /// March column, stands one behind the other (5.1).
    Column,
    /// Stands abreast in a single rank, edges touching (5.2).
    Line,
    /// Stands 1"–3" apart in a single rank (5.3).
    Skirmish,
    /// Optional 5.4: stands 1/2"–1" apart, moving as a line.
    LooseOrder,
    Limbered,
    Unlimbered,
    // Formations of the other rule sets (OTP knows none of them, 5.0), laid out by
    // `basing::layout`.
    /// One stand ahead, two behind it, three behind those...
    Wedge,
    /// Two thirds of the stands in a front rank, the rest centred behind it.
    ReinforcedLine,
    /// Two ranks, the front one the larger by at most a stand.
    DoubleLine,
    /// One rank, stands 1" apart (or the unit's gap).
    ExtendedLine,
    /// Two stands wide, rank behind rank.
    AttackColumn,
    /// Stands on four faces of a hollow square, each facing out: front, right, rear, left.
    Square,
    /// Troopers on foot: one rank, stands 1" apart (or the unit's gap).
    Dismounted,
}

impl Formation {
    /// On to Philadelphia's formations (5.0–5.4; guns limbered or unlimbered, 7.x). The others
    /// belong to other rule sets, and OTP refuses them (5.0).
    pub const OTP: [Formation; 6] = [Formation::Column, Formation::Line, Formation::Skirmish, Formation::LooseOrder, Formation::Limbered, Formation::Unlimbered];

    /// Every formation, OTP's first.
    pub const ALL: [Formation; 13] = [
        Formation::Column,
        Formation::Line,
        Formation::Skirmish,
        Formation::LooseOrder,
        Formation::Limbered,
        Formation::Unlimbered,
        Formation::Wedge,
        Formation::ReinforcedLine,
        Formation::DoubleLine,
        Formation::ExtendedLine,
        Formation::AttackColumn,
        Formation::Square,
        Formation::Dismounted,
    ];
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub name: String,
    #[serde(rename = "type")]
    pub unit_type: UnitType,
    pub arm: Arm,
    /// Small arms; artillery carries none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weapon: Option<Weapon>,
    /// Defaults: muskets carry bayonets except in Militia hands; other small arms do not (9.12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bayonets: Option<bool>,
    /// Figures (for artillery, crew figures: one a gun, 1.3).
    pub figures: u32,
    /// Figures on a full stand; defaults from the basing rules (1.1–1.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures_per_stand: Option<u32>,
    /// Overrides the CV from the unit type (2.0: a referee may assign values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cv: Option<u8>,
    /// Militia skirmish only when the scenario says so (5.3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub can_skirmish: bool,
    pub formation: Formation,
    /// Centre of the unit's front edge (for a column, the front of its head stand).
    pub at: Point,
    /// Compass bearing the unit faces, degrees.
    pub facing: f32,
    /// Gap between stands in skirmish line (1"–3") or loose order (1/2"–1").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<f32>,
    /// For artillery: the infantry unit it is attached to (7.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attached_to: Option<String>,
    /// Starts the game with a Morale Marker.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub morale_marker: bool,
}
