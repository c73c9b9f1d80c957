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
    /// ACW orders sheet OR21: charges resolved by P. J. O'Neill's alternative table. Not written
    /// when off, so the scenarios (and the digests of saves) of the other rule sets read as before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub acw_orders_oneill: bool,
    /// Purky's card (PK16): the optional skirmisher fire, a d10 a figure hitting on 2 or less at
    /// 18", for skirmishers of 6 figures or fewer. Not written when off, like the switch above.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub purky_skirmisher_fire: bool,
}

/// OTP 6.6: the four disordering terrain types, A the mildest, D the worst.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DisorderType {
    A,
    B,
    C,
    D,
}

impl DisorderType {
    pub const ALL: [DisorderType; 4] = [DisorderType::A, DisorderType::B, DisorderType::C, DisorderType::D];
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
    /// The feature's name, to change it (the editor's copies and gates).
    pub fn name_mut(&mut self) -> &mut String {
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
    /// The nation the side fights for, which other rule sets read (Purky's classes, the quick ACW
    /// rules' leaders and morale); by default its commander's kind ([`Side::nation_or_default`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nation: Option<Nation>,
    /// This side takes the first player-turn where the rules let the scenario choose (SG9: the
    /// British move first in the AWI; QK1: the Confederates in the ACW).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moves_first: bool,
    /// What the automatic player does with this side (`docs/scenario-format.md`); by default
    /// derived from the objectives: the side nearer them defends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub posture: Option<Posture>,
    pub brigades: Vec<Brigade>,
    /// The side's supply wagons, behind its line (`docs/scenario-format.md`). Only the ACW orders
    /// sheet reads them (OR12: they keep 1' from the battle line; OR15: ammunition is replaced
    /// near one); every other rule set ignores them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wagons: Vec<Wagon>,
}

/// A supply wagon (or a park of them) on the table: a name and where it stands, in inches.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Wagon {
    pub name: String,
    pub at: Point,
}

/// What a side or brigade is about, for the automatic player: attack the objectives, defend
/// them, hold its ground until a turn and then attack, or screen (keep at range and shoot).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Posture {
    Attack,
    Defend,
    HoldUntil(u32),
    Screen,
}

impl Side {
    /// The side's nation: as written, else its overall commander's kind, else its first
    /// brigade commander's ([`CommanderKind::nation`]).
    pub fn nation_or_default(&self) -> Option<Nation> {
        self.nation.or_else(|| self.commander.as_ref().or(self.brigades.first().map(|b| &b.commander)).map(|c| c.kind.nation()))
    }
}

/// The nation a side fights for (the AWI's and the ACW's).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Nation {
    British,
    Hessian,
    French,
    Continental,
    Loyalist,
    Militia,
    Indian,
    Union,
    Confederate,
}

impl CommanderKind {
    /// The nation of a commander of this kind (OTP's "German" column is the Hessians').
    pub fn nation(self) -> Nation {
        match self {
            CommanderKind::British => Nation::British,
            CommanderKind::German => Nation::Hessian,
            CommanderKind::Continental => Nation::Continental,
            CommanderKind::French => Nation::French,
            CommanderKind::Loyalist => Nation::Loyalist,
            CommanderKind::Militia => Nation::Militia,
            CommanderKind::Union => Nation::Union,
            CommanderKind::Confederate => Nation::Confederate,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Brigade {
    pub name: String,
    /// The numbered chit drawn from the cup to activate this brigade (4.3).
    pub chit: u32,
    pub commander: Commander,
    /// The brigade's own posture for the automatic player, over its side's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub posture: Option<Posture>,
    pub units: Vec<Unit>,
}

/// Which COMMANDER VALUES column the commander rolls on (2.0). `Union` and `Confederate` are
/// the ACW rule sets' leaders: OTP has no column for them and refuses such a scenario.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommanderKind {
    British,
    German,
    Continental,
    French,
    Loyalist,
    Militia,
    Union,
    Confederate,
}

impl CommanderKind {
    /// A Civil War leader, read only by the ACW rule sets.
    pub fn is_acw(self) -> bool {
        matches!(self, CommanderKind::Union | CommanderKind::Confederate)
    }
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
    /// The leader under the ACW rule sets (one neutral rating serves both, rulesets.md §3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acw: Option<AcwLeader>,
}

/// A Civil War leader's ratings, each optional: the orders sheet's officer rating (OR8: −1, −2
/// or −3 to morale, written 1–3) and the quick rules' named bonus and radius (QK21: Longstreet
/// +3 / 7", Sickles +0 / 4"). A rule set fills what is missing from the side's nation.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AcwLeader {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bonus: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
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
    /// Men in the unit, for rule sets that count men (Purky's figures, the ACW rules' stands);
    /// by default OTP's scale, [`MEN_PER_FIGURE`] a figure ([`Unit::men_or_default`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub men: Option<u32>,
    /// The unit under Purky's AWI rules; by default [`Unit::purky_profile`] maps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purky: Option<PurkyProfile>,
    /// The unit under Simpson/Glidden's *Revolution*; by default [`Unit::revolution_profile`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revolution: Option<RevolutionProfile>,
    /// The unit under the two ACW rule sets (the orders sheet and the quick rules); by default
    /// [`Unit::acw_profile`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acw: Option<AcwProfile>,
}

// ---- per-rule-set profiles: data for the rule sets after OTP, each with a default mapping from
// the OTP fields (shared/design/rulesets.md §3), so every OTP scenario reads under them ----

/// Men a figure stands for at OTP's scale (1:20).
pub const MEN_PER_FIGURE: u32 = 20;
/// Men a figure stands for under Purky's rules (about 1:15, rulesets.md PK25).
pub const PURKY_MEN_PER_FIGURE: u32 = 15;

/// Purky's unit classes, the rows of its movement and combat table (rulesets.md §1.4).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PurkyClass {
    /// Grenadiers and Guards (the table's first row).
    Grenadiers,
    /// Light companies: the first row, and they alone of it skirmish.
    LightCompanies,
    /// British, Hessian and French regulars.
    Regulars,
    /// Continentals and Loyalists.
    Continentals,
    /// Riflemen and Jägers (unformed).
    Riflemen,
    Militia,
    /// Indians (unformed).
    Indians,
    Cavalry,
    HeavyGuns,
    MediumGuns,
    LightGuns,
    Amusettes,
}

impl PurkyClass {
    /// Every class, in the card's order.
    pub const ALL: [PurkyClass; 12] = [
        PurkyClass::Grenadiers,
        PurkyClass::LightCompanies,
        PurkyClass::Regulars,
        PurkyClass::Continentals,
        PurkyClass::Riflemen,
        PurkyClass::Militia,
        PurkyClass::Indians,
        PurkyClass::Cavalry,
        PurkyClass::HeavyGuns,
        PurkyClass::MediumGuns,
        PurkyClass::LightGuns,
        PurkyClass::Amusettes,
    ];
}

/// A unit under Purky's rules.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PurkyProfile {
    pub class: PurkyClass,
    /// Figures at Purky's scale (4 infantry a stand); by default men / 15, rounded (guns: one
    /// a gun, as in OTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<u32>,
}

/// Simpson/Glidden's kinds of unit (rulesets.md §1.1).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RevolutionKind {
    /// Elite infantry: may form wedge and reinforced line (SG4).
    Elite,
    Line,
    /// Always disordered (SG5), rout at the first failure (SG30).
    Militia,
    /// Cannot move and fire in one turn (SG7); fire at 24" (SG21).
    Rifles,
    Dragoons,
    Artillery,
}

impl RevolutionKind {
    pub const ALL: [RevolutionKind; 6] = [RevolutionKind::Elite, RevolutionKind::Line, RevolutionKind::Militia, RevolutionKind::Rifles, RevolutionKind::Dragoons, RevolutionKind::Artillery];
}

/// A unit under Simpson/Glidden's *Revolution*.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RevolutionProfile {
    pub kind: RevolutionKind,
}

/// Troop quality under the ACW orders sheet (OR7: base morale points Elite 2, Veteran 3,
/// Green 4, Militia 5).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AcwQuality {
    Elite,
    Veteran,
    Green,
    Militia,
}

impl AcwQuality {
    pub const ALL: [AcwQuality; 4] = [AcwQuality::Elite, AcwQuality::Veteran, AcwQuality::Green, AcwQuality::Militia];
}

/// Small arms of the ACW orders sheet's weapons table (OR12).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AcwWeapon {
    SmoothboreMusket,
    RifledMusket,
    MixedMuskets,
    Flintlock,
    SharpshooterRifle,
    MuzzleLoadingCarbine,
    BreechLoadingCarbine,
    Repeater,
    Pistol,
    Shotgun,
}

/// Guns of the ACW orders sheet's artillery table (OR12).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AcwGun {
    /// 10 lb. Parrott or 3" ordnance rifle.
    Parrott10,
    Gun6,
    Parrott20,
    MixedGuns,
    Howitzer12,
    Howitzer24,
    Whitworth12,
    Napoleon12,
}

/// A unit under the ACW rule sets: one neutral order of battle serves both (rulesets.md §3).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AcwProfile {
    pub quality: AcwQuality,
    /// Small arms; none for artillery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weapon: Option<AcwWeapon>,
    /// The gun type of a battery; none for foot and horse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gun: Option<AcwGun>,
}

impl Unit {
    fn rifle_armed(&self) -> bool {
        self.weapon == Some(Weapon::Rifle)
    }

    /// Men in the unit: as written, else [`MEN_PER_FIGURE`] a figure (artillery: a crew
    /// figure a gun, so a gun's crew).
    pub fn men_or_default(&self) -> u32 {
        self.men.unwrap_or(self.figures.saturating_mul(MEN_PER_FIGURE))
    }

    /// The unit under Purky's rules, every field filled: as written, else mapped (rulesets.md
    /// §3): Elite → Grenadiers; Light → light companies; Line → Regulars on a British, Hessian or
    /// French side, Continentals on any other; StateLine → Continentals; Militia → Militia;
    /// Indian → Indians; rifle-armed foot → Riflemen; cavalry → Cavalry; guns by size (a
    /// galloper → Amusettes). Figures: men / 15, rounded, at least 1; guns keep theirs.
    pub fn purky_profile(&self, side: &Side) -> PurkyProfile {
        let class = match self.purky {
            Some(p) => p.class,
            None => match (self.arm, self.unit_type) {
                (Arm::Artillery { galloper: true, .. }, _) => PurkyClass::Amusettes,
                (Arm::Artillery { gun: GunSize::Light, .. }, _) => PurkyClass::LightGuns,
                (Arm::Artillery { gun: GunSize::Medium, .. }, _) => PurkyClass::MediumGuns,
                (Arm::Artillery { gun: GunSize::Heavy, .. }, _) => PurkyClass::HeavyGuns,
                (Arm::Cavalry, _) => PurkyClass::Cavalry,
                _ if self.rifle_armed() => PurkyClass::Riflemen,
                (_, UnitType::Elite) => PurkyClass::Grenadiers,
                (_, UnitType::Light) => PurkyClass::LightCompanies,
                (_, UnitType::Line) => match side.nation_or_default() {
                    Some(Nation::British | Nation::Hessian | Nation::French) => PurkyClass::Regulars,
                    _ => PurkyClass::Continentals,
                },
                (_, UnitType::StateLine) => PurkyClass::Continentals,
                (_, UnitType::Militia) => PurkyClass::Militia,
                (_, UnitType::Indian) => PurkyClass::Indians,
            },
        };
        let figures = self.purky.and_then(|p| p.figures).unwrap_or_else(|| match self.arm {
            Arm::Artillery { .. } => self.figures,
            _ => ((self.men_or_default() + PURKY_MEN_PER_FIGURE / 2) / PURKY_MEN_PER_FIGURE).max(1),
        });
        PurkyProfile { class, figures: Some(figures) }
    }

    /// The unit under *Revolution*: as written, else mapped (rulesets.md §3): Elite → Elite;
    /// Light, Line, StateLine → Line; Militia, Indian → Militia; rifle-armed foot → Rifles;
    /// cavalry → Dragoons; guns → Artillery.
    pub fn revolution_profile(&self) -> RevolutionProfile {
        if let Some(p) = self.revolution {
            return p;
        }
        let kind = match (self.arm, self.unit_type) {
            (Arm::Artillery { .. }, _) => RevolutionKind::Artillery,
            (Arm::Cavalry, _) => RevolutionKind::Dragoons,
            _ if self.rifle_armed() => RevolutionKind::Rifles,
            (_, UnitType::Elite) => RevolutionKind::Elite,
            (_, UnitType::Light | UnitType::Line | UnitType::StateLine) => RevolutionKind::Line,
            (_, UnitType::Militia | UnitType::Indian) => RevolutionKind::Militia,
        };
        RevolutionProfile { kind }
    }

    /// The unit under the ACW rules, every field that applies filled: as written, else mapped:
    /// quality Elite → Elite, Light and Line → Veteran, StateLine → Green, Militia and Indian →
    /// Militia; weapon Musket and Fusil → smoothbore musket, Rifle → rifled musket, Carbine →
    /// muzzle-loading carbine, Bow → none (the ACW knows no bow: write one); guns Light → 6 lb.
    /// gun, Medium → 12 lb. Napoleon, Heavy → 20 lb. Parrott.
    pub fn acw_profile(&self) -> AcwProfile {
        let quality = self.acw.map_or(
            match self.unit_type {
                UnitType::Elite => AcwQuality::Elite,
                UnitType::Light | UnitType::Line => AcwQuality::Veteran,
                UnitType::StateLine => AcwQuality::Green,
                UnitType::Militia | UnitType::Indian => AcwQuality::Militia,
            },
            |p| p.quality,
        );
        let weapon = self.acw.and_then(|p| p.weapon).or(match self.weapon {
            Some(Weapon::Musket | Weapon::Fusil) => Some(AcwWeapon::SmoothboreMusket),
            Some(Weapon::Rifle) => Some(AcwWeapon::RifledMusket),
            Some(Weapon::Carbine) => Some(AcwWeapon::MuzzleLoadingCarbine),
            Some(Weapon::Bow) | None => None,
        });
        let gun = self.acw.and_then(|p| p.gun).or(match self.arm {
            Arm::Artillery { gun: GunSize::Light, .. } => Some(AcwGun::Gun6),
            Arm::Artillery { gun: GunSize::Medium, .. } => Some(AcwGun::Napoleon12),
            Arm::Artillery { gun: GunSize::Heavy, .. } => Some(AcwGun::Parrott20),
            _ => None,
        });
        AcwProfile { quality, weapon, gun }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cowpens() -> Scenario {
        crate::scenario::parse(include_str!("../../scenarios/cowpens.ron"), "cowpens.ron").expect("Cowpens is valid")
    }

    /// The side and the unit of that name.
    fn find<'a>(s: &'a Scenario, name: &str) -> (&'a Side, &'a Unit) {
        s.sides.iter().flat_map(|side| side.brigades.iter().flat_map(move |b| b.units.iter().map(move |u| (side, u)))).find(|(_, u)| u.name == name).unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn a_side_is_of_its_commanders_nation_unless_it_says() {
        let s = cowpens();
        // Tarleton is British, Morgan Continental (OTP 2.0 commander kinds).
        assert_eq!(s.sides[0].nation_or_default(), Some(Nation::British));
        assert_eq!(s.sides[1].nation_or_default(), Some(Nation::Continental));
        assert!(s.sides.iter().all(|side| side.nation.is_none() && !side.moves_first), "Cowpens names neither");
        let mut hessians = s.sides[0].clone();
        hessians.commander = None;
        hessians.brigades[0].commander.kind = CommanderKind::German;
        assert_eq!(hessians.nation_or_default(), Some(Nation::Hessian), "no C-in-C: the first brigade's commander");
        hessians.nation = Some(Nation::Loyalist);
        assert_eq!(hessians.nation_or_default(), Some(Nation::Loyalist));
    }

    // rulesets.md §3, the default mapping table, on the Cowpens order of battle.
    #[test]
    fn cowpens_units_map_to_purky_classes_as_the_design_table_says() {
        let s = cowpens();
        let class = |name: &str| {
            let (side, u) = find(&s, name);
            u.purky_profile(side).class
        };
        assert_eq!(class("7th Foot (Royal Fusiliers)"), PurkyClass::Regulars, "Line, British side");
        assert_eq!(class("Maryland Continentals"), PurkyClass::Continentals, "Line, Continental side");
        assert_eq!(class("British Legion Infantry"), PurkyClass::Continentals, "StateLine");
        assert_eq!(class("Light Infantry (16th, 71st, PWAR)"), PurkyClass::LightCompanies);
        assert_eq!(class("Brandon's Fair Forest Regiment"), PurkyClass::Militia, "Militia musket");
        assert_eq!(class("McDowell's North Carolina Riflemen"), PurkyClass::Riflemen, "rifle-armed");
        assert_eq!(class("17th Light Dragoons"), PurkyClass::Cavalry);
        assert_eq!(class("Grasshopper (7th)"), PurkyClass::Amusettes, "a galloper 3-pounder");
        // Figures: OTP's 1:20 men at Purky's 1:15, rounded; 10 OTP figures are 200 men, 13 Purky figures.
        let (side, fusiliers) = find(&s, "7th Foot (Royal Fusiliers)");
        assert_eq!((fusiliers.figures, fusiliers.men_or_default()), (10, 200));
        assert_eq!(fusiliers.purky_profile(side).figures, Some(13));
        let (side, gun) = find(&s, "Grasshopper (7th)");
        assert_eq!(gun.purky_profile(side).figures, Some(gun.figures), "guns keep one figure a gun");
    }

    #[test]
    fn cowpens_units_map_to_revolution_kinds_and_acw_profiles() {
        let s = cowpens();
        let kind = |name: &str| find(&s, name).1.revolution_profile().kind;
        assert_eq!(kind("Light Infantry (16th, 71st, PWAR)"), RevolutionKind::Line, "Light → Line");
        assert_eq!(kind("Maryland Continentals"), RevolutionKind::Line);
        assert_eq!(kind("Brandon's Fair Forest Regiment"), RevolutionKind::Militia);
        assert_eq!(kind("Augusta Riflemen"), RevolutionKind::Rifles);
        assert_eq!(kind("3rd Continental Light Dragoons"), RevolutionKind::Dragoons);
        assert_eq!(kind("Grasshopper (Legion)"), RevolutionKind::Artillery);
        let acw = |name: &str| find(&s, name).1.acw_profile();
        assert_eq!(acw("Maryland Continentals"), AcwProfile { quality: AcwQuality::Veteran, weapon: Some(AcwWeapon::SmoothboreMusket), gun: None });
        assert_eq!(acw("NC & Virginia State Troops").quality, AcwQuality::Green);
        assert_eq!(acw("Augusta Riflemen"), AcwProfile { quality: AcwQuality::Militia, weapon: Some(AcwWeapon::RifledMusket), gun: None });
        assert_eq!(acw("17th Light Dragoons").weapon, Some(AcwWeapon::MuzzleLoadingCarbine));
        assert_eq!(acw("Grasshopper (7th)"), AcwProfile { quality: AcwQuality::Veteran, weapon: None, gun: Some(AcwGun::Gun6) });
    }

    #[test]
    fn written_profiles_and_men_override_the_mapping_field_by_field() {
        let s = cowpens();
        let (side, u) = find(&s, "Maryland Continentals");
        let mut u = u.clone();
        u.men = Some(300);
        assert_eq!(u.purky_profile(side), PurkyProfile { class: PurkyClass::Continentals, figures: Some(20) }, "300 men at 1:15");
        u.purky = Some(PurkyProfile { class: PurkyClass::Grenadiers, figures: None });
        assert_eq!(u.purky_profile(side), PurkyProfile { class: PurkyClass::Grenadiers, figures: Some(20) }, "figures still from men");
        u.purky = Some(PurkyProfile { class: PurkyClass::Grenadiers, figures: Some(12) });
        assert_eq!(u.purky_profile(side).figures, Some(12));
        u.revolution = Some(RevolutionProfile { kind: RevolutionKind::Elite });
        assert_eq!(u.revolution_profile().kind, RevolutionKind::Elite);
        u.acw = Some(AcwProfile { quality: AcwQuality::Elite, weapon: None, gun: None });
        assert_eq!(u.acw_profile(), AcwProfile { quality: AcwQuality::Elite, weapon: Some(AcwWeapon::SmoothboreMusket), gun: None }, "an unwritten weapon still maps");
    }

    #[test]
    fn the_new_fields_parse_default_and_are_written_only_when_given() {
        let s = cowpens();
        let plain = crate::scenario::to_ron(&s);
        for field in ["nation:", "moves_first:", "men:", "purky:", "revolution:", "acw:"] {
            assert!(!plain.contains(field), "{field} is not written when absent");
        }
        let (_, u) = find(&s, "Maryland Continentals");
        assert_eq!((u.men, u.purky, u.revolution, u.acw), (None, None, None, None));
        let text = plain
            .replacen("name: \"British\",", "name: \"British\",\n    nation: Some(Hessian),\n    moves_first: true,", 1)
            .replacen(
                "name: \"Maryland Continentals\",",
                "name: \"Maryland Continentals\", men: Some(280), purky: Some((class: Regulars, figures: Some(18))), revolution: Some((kind: Elite)), acw: Some((quality: Green, weapon: Some(Repeater), gun: None)),",
                1,
            );
        let read = crate::scenario::parse(&text, "edited").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((read.sides[0].nation, read.sides[0].moves_first), (Some(Nation::Hessian), true));
        let (_, u) = find(&read, "Maryland Continentals");
        assert_eq!(u.men, Some(280));
        assert_eq!(u.purky, Some(PurkyProfile { class: PurkyClass::Regulars, figures: Some(18) }));
        assert_eq!(u.revolution, Some(RevolutionProfile { kind: RevolutionKind::Elite }));
        assert_eq!(u.acw, Some(AcwProfile { quality: AcwQuality::Green, weapon: Some(AcwWeapon::Repeater), gun: None }));
        assert_eq!(crate::scenario::parse(&crate::scenario::to_ron(&read), "again").unwrap(), read, "round trip");
    }
}
