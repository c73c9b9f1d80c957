//! The ACW orders sheet's charts as data (`assets/rules/acw-orders/*.ron`): movement, weapons
//! and guns, the combat dice (reconstructed: the sheet lost them), morale, the charge tables,
//! O'Neill's alternative table and officer casualties. Every entry carries its [`Source`]:
//! `Text { section }` where the surviving sheet prints it, `Reconstructed { why }` where it is
//! lost. The files are embedded; [`Charts::load_dir`] reads a folder of replacements, so a
//! player who owns the full rules can put the printed numbers in. Files are checked when read:
//! a syntax error reads `file:line:col: message`, a chart that parses but breaks a rule reads
//! `file: in <field>: message`.

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::rules::cite::Source;
use crate::scenario::model::{AcwGun, AcwQuality, AcwWeapon};

/// One number with its source.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

/// The terrain columns of the movement tables (OR12).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ground {
    Road,
    Open,
    Broken,
    Woods,
    Rough,
}

impl Ground {
    pub const ALL: [Ground; 5] = [Ground::Road, Ground::Open, Ground::Broken, Ground::Woods, Ground::Rough];
    pub fn name(self) -> &'static str {
        match self {
            Ground::Road => "road",
            Ground::Open => "open",
            Ground::Broken => "broken",
            Ground::Woods => "woods",
            Ground::Rough => "rough",
        }
    }
}

/// A row's numbers by terrain; `None` where the sheet says NA or NONE.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rates {
    pub road: Option<f32>,
    pub open: Option<f32>,
    pub broken: Option<f32>,
    pub woods: Option<f32>,
    pub rough: Option<f32>,
}

impl Rates {
    pub fn get(&self, g: Ground) -> Option<f32> {
        match g {
            Ground::Road => self.road,
            Ground::Open => self.open,
            Ground::Broken => self.broken,
            Ground::Woods => self.woods,
            Ground::Rough => self.rough,
        }
    }
}

/// The rows of the movement tables.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mover {
    InfSingleLine,
    InfDoubleLine,
    InfExtendedLine,
    InfSkirmish,
    InfAttackColumn,
    InfMarchColumn,
    InfDisordered,
    InfRouted,
    CavSingleLine,
    CavDoubleLine,
    CavColumn,
    CavSkirmish,
    CavDisordered,
    CavDismounted,
    CavRouted,
    GunsLimbered,
    GunsDeadHorse,
    GunsUnlimbered,
    GunsRouted,
}

impl Mover {
    pub const ALL: [Mover; 19] = [
        Mover::InfSingleLine,
        Mover::InfDoubleLine,
        Mover::InfExtendedLine,
        Mover::InfSkirmish,
        Mover::InfAttackColumn,
        Mover::InfMarchColumn,
        Mover::InfDisordered,
        Mover::InfRouted,
        Mover::CavSingleLine,
        Mover::CavDoubleLine,
        Mover::CavColumn,
        Mover::CavSkirmish,
        Mover::CavDisordered,
        Mover::CavDismounted,
        Mover::CavRouted,
        Mover::GunsLimbered,
        Mover::GunsDeadHorse,
        Mover::GunsUnlimbered,
        Mover::GunsRouted,
    ];
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoveRow {
    pub mover: Mover,
    pub rates: Rates,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArmKey {
    Infantry,
    Cavalry,
    Artillery,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BonusRow {
    pub arm: ArmKey,
    /// Dice by terrain; a half is a D6 halved, rounded up.
    pub dice: Rates,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MovementChart {
    pub rows: Vec<MoveRow>,
    pub bonus: Vec<BonusRow>,
    pub face_flank_steady: Sourced<f32>,
    pub face_flank_green: Sourced<f32>,
    pub form_slow: Sourced<f32>,
    pub form_quick: Sourced<f32>,
    pub guns_from_infantry: Sourced<f32>,
    pub guns_from_others: Sourced<f32>,
    pub skirmishers_from_enemy: Sourced<f32>,
    pub conditional_hold_near: Sourced<f32>,
    pub leader_move: Sourced<f32>,
    /// OR12, OR15: a supply wagon's move, its distance from the battle line, its reach for the
    /// step 2c ammunition roll.
    pub wagon_move: Sourced<f32>,
    pub wagon_clearance: Sourced<f32>,
    pub wagon_supply: Sourced<f32>,
}

impl MovementChart {
    pub fn row(&self, mover: Mover) -> &MoveRow {
        self.rows.iter().find(|r| r.mover == mover).expect("checked: every mover has a row")
    }
    pub fn bonus(&self, arm: ArmKey) -> &BonusRow {
        self.bonus.iter().find(|r| r.arm == arm).expect("checked: every arm has bonus dice")
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeaponRow {
    pub weapon: AcwWeapon,
    pub drm: i32,
    pub melee_drm: i32,
    pub close: f32,
    pub close_drm: i32,
    pub normal: f32,
    pub long: f32,
    pub long_die: bool,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GunRow {
    pub gun: AcwGun,
    pub drm: i32,
    pub canister: Option<f32>,
    pub normal: f32,
    pub long: f32,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeaponsChart {
    pub weapons: Vec<WeaponRow>,
    pub guns: Vec<GunRow>,
}

impl WeaponsChart {
    pub fn weapon(&self, w: AcwWeapon) -> &WeaponRow {
        self.weapons.iter().find(|r| r.weapon == w).expect("checked: every weapon has a row")
    }
    pub fn gun(&self, g: AcwGun) -> &GunRow {
        self.guns.iter().find(|r| r.gun == g).expect("checked: every gun has a row")
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DiceRow {
    pub at_least: u32,
    pub dice: u32,
}

/// A result of the combat dice (OR13): M, 1*, or figures lost.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireResult {
    Nothing,
    /// M: guns or sharpshooters cause a morale check, no loss.
    Morale,
    /// 1*: a D6 of 4-6 is a hit; a gun or sharpshooter miss forces a morale check.
    OneStar,
    Figures(u32),
}

impl FireResult {
    pub fn label(self) -> String {
        match self {
            FireResult::Nothing => "-".into(),
            FireResult::Morale => "M".into(),
            FireResult::OneStar => "1*".into(),
            FireResult::Figures(n) => n.to_string(),
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ResultRow {
    pub at_least: i32,
    pub result: FireResult,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CombatChart {
    pub small_arms_dice: Vec<DiceRow>,
    pub small_arms_dice_source: Source,
    pub gun_dice: Vec<DiceRow>,
    pub gun_dice_source: Source,
    pub close_die: Sourced<i32>,
    pub long_die: Sourced<i32>,
    pub results: Vec<ResultRow>,
    pub results_source: Source,
    pub target_formed_deep: Sourced<i32>,
    pub flank_partial: Sourced<i32>,
    pub flank_full: Sourced<i32>,
    pub flank_rear: Sourced<i32>,
    pub cover_woods: Sourced<i32>,
    pub cover_town: Sourced<i32>,
    pub shaken_firer: Sourced<i32>,
    pub one_star_hits_on: Sourced<i32>,
    pub horse_up_to: Sourced<i32>,
    pub crew_figures_a_section: Sourced<u32>,
    pub infantry_on_infantry: Sourced<u32>,
    pub cavalry_on_infantry: Sourced<u32>,
    pub infantry_on_cavalry: Sourced<u32>,
    pub others_in_melee: Sourced<u32>,
    pub low_on_ammo_from: Sourced<u8>,
    pub rapid_low_from_breechloaders: Sourced<u8>,
    pub rapid_low_from_repeaters: Sourced<u8>,
    pub rapid_fire_die: Sourced<i32>,
    pub low_ammo_die: Sourced<i32>,
}

impl CombatChart {
    /// Dice for `count` stands (or sections) by a dice table; 0 below its first row.
    pub fn dice_for(rows: &[DiceRow], count: u32) -> u32 {
        rows.iter().filter(|r| count >= r.at_least).map(|r| r.dice).next_back().unwrap_or(0)
    }
    /// The result of a modified total.
    pub fn result(&self, total: i32) -> FireResult {
        self.results.iter().filter(|r| total >= r.at_least).map(|r| r.result).next_back().unwrap_or(FireResult::Nothing)
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BmpRow {
    pub quality: AcwQuality,
    pub points: i32,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoraleChart {
    pub bmp: Vec<BmpRow>,
    pub officer_per_rating: Sourced<i32>,
    pub cover: Sourced<i32>,
    pub hasty_works: Sourced<i32>,
    pub works: Sourced<i32>,
    pub behind_friends: Sourced<i32>,
    pub per_stand_lost: Sourced<i32>,
    pub brigadier_lost: Sourced<i32>,
    pub per_regiment_lost: Sourced<i32>,
    pub shaken: Sourced<i32>,
    pub routed: Sourced<i32>,
    pub hit_partial_flank: Sourced<i32>,
    pub hit_full_flank: Sourced<i32>,
    pub hit_rear: Sourced<i32>,
    pub disorder: Sourced<i32>,
    pub charging: Sourced<i32>,
    pub per_gun_hit: Sourced<i32>,
    pub natural_rout: Sourced<i32>,
    pub natural_rally: Sourced<i32>,
    pub rout_margin: Sourced<i32>,
    pub nearby: Sourced<f32>,
    pub shaken_fall_back_dice: Sourced<u32>,
    pub officer_present: Sourced<f32>,
    pub behind_friends_within: Sourced<f32>,
}

impl MoraleChart {
    pub fn bmp(&self, q: AcwQuality) -> &BmpRow {
        self.bmp.iter().find(|r| r.quality == q).expect("checked: every quality has a BMP")
    }
}

/// The rows of FORMATION IMPACT MORALE MODIFIERS (OR18).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImpactKey {
    InfSingleLine,
    InfExtendedLine,
    InfDoubleLine,
    InfAttackColumn,
    InfSkirmish,
    InfMarchColumn,
    InfDisorder,
    CavSingleLine,
    CavDoubleLine,
    CavSkirmish,
    CavMarchColumn,
    CavDisorder,
    CavDismounted,
    ArtSupported,
    ArtUnsupported,
    ArtLimbered,
}

impl ImpactKey {
    pub const ALL: [ImpactKey; 16] = [
        ImpactKey::InfSingleLine,
        ImpactKey::InfExtendedLine,
        ImpactKey::InfDoubleLine,
        ImpactKey::InfAttackColumn,
        ImpactKey::InfSkirmish,
        ImpactKey::InfMarchColumn,
        ImpactKey::InfDisorder,
        ImpactKey::CavSingleLine,
        ImpactKey::CavDoubleLine,
        ImpactKey::CavSkirmish,
        ImpactKey::CavMarchColumn,
        ImpactKey::CavDisorder,
        ImpactKey::CavDismounted,
        ImpactKey::ArtSupported,
        ImpactKey::ArtUnsupported,
        ImpactKey::ArtLimbered,
    ];
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactRow {
    pub key: ImpactKey,
    /// `None`: surrenders when charged (limbered guns, "SRNDRR").
    pub value: Option<i32>,
    pub source: Source,
}

/// The defender's state after its falls back (OR19).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FallsBack {
    Steady,
    Shaken,
    Routed,
    PickedUp,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FallsBackRow {
    pub at_least: i32,
    pub result: FallsBack,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ChargeChart {
    pub formation: Vec<ImpactRow>,
    pub supported_flank_or_rear: Sourced<i32>,
    pub mounted_in_charge: Sourced<i32>,
    pub charged_partial_flank: Sourced<i32>,
    pub charged_full_flank: Sourced<i32>,
    pub charged_rear: Sourced<i32>,
    pub charged_forming: Sourced<i32>,
    pub charged_conditional_hold: Sourced<i32>,
    pub support_within: Sourced<f32>,
    pub steady_disorder_share: Sourced<f32>,
    pub volley_pip_steady: Sourced<f32>,
    pub volley_pip_green: Sourced<f32>,
    pub volley_adjust_most: Sourced<f32>,
    pub pip_open: Sourced<f32>,
    pub pip_woods_rough: Sourced<f32>,
    pub loser_attacker_infantry_dice: Sourced<u32>,
    pub loser_attacker_cavalry_dice: Sourced<u32>,
    pub loser_defender_dice: Sourced<u32>,
    pub falls_back: Vec<FallsBackRow>,
    pub falls_back_source: Source,
    pub falls_back_elite: Sourced<i32>,
    pub falls_back_officer: Sourced<i32>,
    pub falls_back_green: Sourced<i32>,
    pub falls_back_militia: Sourced<i32>,
    pub impact_volley_dice: Sourced<u32>,
    pub first_round_support_share: Sourced<f32>,
    pub support_stands: Sourced<u32>,
    pub most_melee_rounds: Sourced<u32>,
}

impl ChargeChart {
    pub fn formation(&self, key: ImpactKey) -> &ImpactRow {
        self.formation.iter().find(|r| r.key == key).expect("checked: every formation has a row")
    }
    /// The falls back result of a modified 2D6 total.
    pub fn falls_back(&self, total: i32) -> FallsBack {
        self.falls_back.iter().filter(|r| total >= r.at_least).map(|r| r.result).next_back().unwrap_or(FallsBack::Steady)
    }
}

/// What O'Neill's table does to the loser of an impact (OR21).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Loss {
    pub picked_up: bool,
    pub routs: bool,
    pub stands: u32,
    pub figures: u32,
    /// Dice of inches it retreats.
    pub retreat_dice: u32,
    pub shaken: bool,
    pub disordered: bool,
    /// A margin of 0: melee.
    pub melee: bool,
}

/// How far the attacker goes on after winning (O'Neill: "charges full remaining distance", "½
/// remaining distance", "charge stops").
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Advance {
    #[default]
    Full,
    Half,
    Stop,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ONeillRow {
    pub margin: i32,
    pub loser: Loss,
    #[serde(default)]
    pub advance: Advance,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ONeillChart {
    pub defender_wins: Vec<ONeillRow>,
    pub attacker_wins: Vec<ONeillRow>,
}

impl ONeillChart {
    /// The row for a win by `margin` (0: a tie).
    pub fn row(rows: &[ONeillRow], margin: i32) -> &ONeillRow {
        rows.iter().find(|r| margin >= r.margin).expect("checked: a row for a margin of 0")
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wound {
    Minor,
    Serious,
    Severe,
    Mortal,
    Killed,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WoundRow {
    pub face: u8,
    pub wound: Wound,
    /// Turns without benefits; `None`: out of the battle.
    pub turns: Option<u32>,
    pub source: Source,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OfficerChart {
    pub within_far: Sourced<f32>,
    pub far_hit_on_2d6: Sourced<i32>,
    pub within_near: Sourced<f32>,
    pub near_hit_on_d6: Sourced<i32>,
    pub melee_hit_on_d6: Sourced<i32>,
    pub wounds: Vec<WoundRow>,
    pub morale_within: Sourced<f32>,
    pub replacement_rating: Sourced<u8>,
    pub default_rating: Sourced<u8>,
}

impl OfficerChart {
    pub fn wound(&self, face: i32) -> &WoundRow {
        self.wounds.iter().find(|r| r.face as i32 == face).expect("checked: a row for every face")
    }
}

/// Every chart of the sheet.
#[derive(Clone, Debug, PartialEq)]
pub struct Charts {
    pub movement: MovementChart,
    pub weapons: WeaponsChart,
    pub combat: CombatChart,
    pub morale: MoraleChart,
    pub charge: ChargeChart,
    pub oneill: ONeillChart,
    pub officers: OfficerChart,
}

/// The chart files, their names and embedded texts.
pub const FILES: [(&str, &str); 7] = [
    ("movement.ron", include_str!("../../../assets/rules/acw-orders/movement.ron")),
    ("weapons.ron", include_str!("../../../assets/rules/acw-orders/weapons.ron")),
    ("combat.ron", include_str!("../../../assets/rules/acw-orders/combat.ron")),
    ("morale.ron", include_str!("../../../assets/rules/acw-orders/morale.ron")),
    ("charge.ron", include_str!("../../../assets/rules/acw-orders/charge.ron")),
    ("oneill.ron", include_str!("../../../assets/rules/acw-orders/oneill.ron")),
    ("officers.ron", include_str!("../../../assets/rules/acw-orders/officers.ron")),
];

fn parse<T: serde::de::DeserializeOwned>(text: &str, file: &str) -> Result<T, String> {
    crate::scenario::from_ron(crate::scenario::without_bom(text), file).map_err(|e| e.to_string())
}

impl Charts {
    /// The charts shipped with the program.
    pub fn embedded() -> &'static Charts {
        static CHARTS: OnceLock<Charts> = OnceLock::new();
        CHARTS.get_or_init(|| {
            let texts: Vec<(String, String)> = FILES.iter().map(|(f, t)| (format!("assets/rules/acw-orders/{f}"), t.to_string())).collect();
            Charts::from_texts(&texts).unwrap_or_else(|e| panic!("the embedded ACW orders charts are checked by the tests: {e}"))
        })
    }

    /// Charts from the seven texts in the order of [`FILES`] (file name, text), checked.
    pub fn from_texts(texts: &[(String, String)]) -> Result<Charts, String> {
        let text = |i: usize| (&texts[i].1, texts[i].0.as_str());
        let charts = Charts {
            movement: parse(text(0).0, text(0).1)?,
            weapons: parse(text(1).0, text(1).1)?,
            combat: parse(text(2).0, text(2).1)?,
            morale: parse(text(3).0, text(3).1)?,
            charge: parse(text(4).0, text(4).1)?,
            oneill: parse(text(5).0, text(5).1)?,
            officers: parse(text(6).0, text(6).1)?,
        };
        let problems = charts.problems(&texts.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>());
        if problems.is_empty() { Ok(charts) } else { Err(problems.join("\n")) }
    }

    /// The embedded charts with any file of that name in `dir` read in its place.
    pub fn load_dir(dir: &Path) -> Result<Charts, String> {
        let mut texts = Vec::new();
        for (file, embedded) in FILES {
            let path = dir.join(file);
            if path.exists() {
                let text = crate::scenario::read_text(&path, 1 << 20).map_err(|e| e.to_string())?;
                texts.push((path.display().to_string(), text));
            } else {
                texts.push((format!("assets/rules/acw-orders/{file}"), embedded.to_string()));
            }
        }
        Charts::from_texts(&texts)
    }

    /// What is wrong with charts that parsed: `file: in <field>: message` each.
    fn problems(&self, files: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let mut fail = |file: usize, field: &str, message: String| out.push(format!("{}: in {field}: {message}", files[file]));
        let mut sources: Vec<(usize, String, &Source)> = Vec::new();
        for m in Mover::ALL {
            if !self.movement.rows.iter().any(|r| r.mover == m) {
                fail(0, "rows", format!("no row for {m:?}"));
            }
        }
        for r in &self.movement.rows {
            for g in Ground::ALL {
                if r.rates.get(g).is_some_and(|x| !(0.0..=60.0).contains(&x)) {
                    fail(0, "rows", format!("{:?} {}: a rate from 0 to 60 inches", r.mover, g.name()));
                }
            }
            sources.push((0, format!("rows {:?}", r.mover), &r.source));
        }
        for a in [ArmKey::Infantry, ArmKey::Cavalry, ArmKey::Artillery] {
            if !self.movement.bonus.iter().any(|r| r.arm == a) {
                fail(0, "bonus", format!("no bonus dice for {a:?}"));
            }
        }
        for w in [
            AcwWeapon::SmoothboreMusket,
            AcwWeapon::RifledMusket,
            AcwWeapon::MixedMuskets,
            AcwWeapon::Flintlock,
            AcwWeapon::SharpshooterRifle,
            AcwWeapon::MuzzleLoadingCarbine,
            AcwWeapon::BreechLoadingCarbine,
            AcwWeapon::Repeater,
            AcwWeapon::Pistol,
            AcwWeapon::Shotgun,
        ] {
            match self.weapons.weapons.iter().find(|r| r.weapon == w) {
                None => fail(1, "weapons", format!("no row for {w:?}")),
                Some(r) if !(r.close <= r.normal && r.normal <= r.long) => fail(1, "weapons", format!("{w:?}: ranges must rise close <= normal <= long")),
                Some(r) => sources.push((1, format!("weapons {w:?}"), &r.source)),
            }
        }
        for g in [AcwGun::Parrott10, AcwGun::Gun6, AcwGun::Parrott20, AcwGun::MixedGuns, AcwGun::Howitzer12, AcwGun::Howitzer24, AcwGun::Whitworth12, AcwGun::Napoleon12] {
            match self.weapons.guns.iter().find(|r| r.gun == g) {
                None => fail(1, "guns", format!("no row for {g:?}")),
                Some(r) if r.canister.is_some_and(|c| c > r.normal) || r.normal > r.long => fail(1, "guns", format!("{g:?}: ranges must rise canister <= normal <= long")),
                Some(r) => sources.push((1, format!("guns {g:?}"), &r.source)),
            }
        }
        for (field, rows) in [("small_arms_dice", &self.combat.small_arms_dice), ("gun_dice", &self.combat.gun_dice)] {
            if rows.first().is_none_or(|r| r.at_least != 1) || rows.windows(2).any(|w| w[1].at_least <= w[0].at_least || w[1].dice < w[0].dice) {
                fail(2, field, "rows must start at 1 and rise in both columns".into());
            }
        }
        if self.combat.results.windows(2).any(|w| w[1].at_least <= w[0].at_least) || self.combat.results.is_empty() {
            fail(2, "results", "rows must rise".into());
        }
        for q in [AcwQuality::Elite, AcwQuality::Veteran, AcwQuality::Green, AcwQuality::Militia] {
            if !self.morale.bmp.iter().any(|r| r.quality == q) {
                fail(3, "bmp", format!("no BMP for {q:?}"));
            }
        }
        for k in ImpactKey::ALL {
            if !self.charge.formation.iter().any(|r| r.key == k) {
                fail(4, "formation", format!("no row for {k:?}"));
            }
        }
        if self.charge.falls_back.windows(2).any(|w| w[1].at_least <= w[0].at_least) || self.charge.falls_back.is_empty() {
            fail(4, "falls_back", "rows must rise".into());
        }
        for (field, rows) in [("defender_wins", &self.oneill.defender_wins), ("attacker_wins", &self.oneill.attacker_wins)] {
            if rows.last().is_none_or(|r| r.margin != 0) || rows.windows(2).any(|w| w[1].margin >= w[0].margin) {
                fail(5, field, "rows must fall from the largest margin to 0".into());
            }
        }
        for face in 1..=6 {
            if !self.officers.wounds.iter().any(|r| r.face == face) {
                fail(6, "wounds", format!("no row for a {face}"));
            }
        }
        for (file, place, source) in sources {
            match source {
                Source::Text { section } if section.trim().is_empty() => fail(file, &place, "Text(section: ...) must cite a section".into()),
                Source::Reconstructed { why } if why.trim().is_empty() => fail(file, &place, "Reconstructed(why: ...) must give a reason".into()),
                _ => {}
            }
        }
        out
    }

    /// The reason of every entry marked `Reconstructed` in the embedded files, as (file, why),
    /// for the coverage document and its test.
    pub fn reconstructions() -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        for (file, text) in FILES {
            for piece in text.split("Reconstructed(why: \"").skip(1) {
                out.push((file, piece.split("\")").next().unwrap_or("").replace("\\\"", "\"")));
            }
        }
        out
    }
}
