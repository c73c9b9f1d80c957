//! What the editor adds: a feature of each kind drawn with the mouse, and units from a palette
//! of the scenario format's unit types (every rule set reads them through its default profile:
//! `scenario::model`'s `purky_profile`, `revolution_profile`, `acw_profile`).

use crate::scenario::model::*;

/// The kinds of terrain drawn with the mouse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    Woods,
    Hill,
    Field,
    Swamp,
    Town,
    Stream,
    Road,
    Fence,
    Wall,
    Breastwork,
    Building,
}

impl Feature {
    pub const ALL: [Feature; 11] = [Feature::Woods, Feature::Hill, Feature::Field, Feature::Swamp, Feature::Town, Feature::Stream, Feature::Road, Feature::Fence, Feature::Wall, Feature::Breastwork, Feature::Building];

    pub fn name(self) -> &'static str {
        match self {
            Feature::Woods => "Woods",
            Feature::Hill => "Hill",
            Feature::Field => "Field",
            Feature::Swamp => "Swamp",
            Feature::Town => "Town",
            Feature::Stream => "Stream",
            Feature::Road => "Road",
            Feature::Fence => "Fence",
            Feature::Wall => "Stone wall",
            Feature::Breastwork => "Breastwork",
            Feature::Building => "Building",
        }
    }

    /// Drawn as an area (corners), not a line (points along it); a building is one click.
    pub fn area(self) -> bool {
        matches!(self, Feature::Woods | Feature::Hill | Feature::Field | Feature::Swamp | Feature::Town)
    }

    /// Corners (or points) it needs.
    pub fn least(self) -> usize {
        match self {
            Feature::Building => 1,
            f if f.area() => 3,
            _ => 2,
        }
    }

    /// The feature through `points`, named `name`, with the plainest values of its kind (the
    /// form changes them).
    pub fn make(self, name: String, points: Vec<Point>) -> Terrain {
        match self {
            Feature::Woods => Terrain::Woods { name, density: WoodsDensity::Regular, outline: points, disorder: None },
            Feature::Hill => Terrain::Hill { name, elevation: 1, outline: points, slope: None },
            Feature::Field => Terrain::Field { name, kind: FieldKind::Plowed, outline: points },
            Feature::Swamp => Terrain::Field { name, kind: FieldKind::Swamp, outline: points },
            Feature::Town => Terrain::Town { name, outline: points, capacity: 4 },
            Feature::Stream => Terrain::Stream { name, kind: StreamKind::Narrow, path: points, width: 0.5, fords: Vec::new() },
            Feature::Road => Terrain::Road { name, path: points, width: 1.0 },
            Feature::Fence | Feature::Wall | Feature::Breastwork => {
                let kind = match self {
                    Feature::Fence => ObstacleKind::Fence,
                    Feature::Wall => ObstacleKind::StoneWall,
                    _ => ObstacleKind::Breastwork,
                };
                Terrain::Obstacle { name, kind, path: points, impassable_to_artillery: false }
            }
            Feature::Building => Terrain::Building { name, at: points.first().copied().unwrap_or_default(), size: [2.0, 2.0], facing: 0.0, construction: Construction::Wood, capacity: 1 },
        }
    }
}

/// A unit of the palette: its label and the unit (named and placed when added), with the
/// profile the rule set reads when it is not the default mapping's.
pub struct Template {
    pub label: &'static str,
    pub unit_type: UnitType,
    pub arm: Arm,
    pub weapon: Option<Weapon>,
    pub figures: u32,
    pub formation: Formation,
    pub can_skirmish: bool,
    pub purky: Option<PurkyClass>,
    pub revolution: Option<RevolutionKind>,
    pub acw: Option<(AcwQuality, Option<AcwWeapon>, Option<AcwGun>)>,
}

const fn t(label: &'static str, unit_type: UnitType, arm: Arm, weapon: Option<Weapon>, figures: u32, formation: Formation, can_skirmish: bool) -> Template {
    Template { label, unit_type, arm, weapon, figures, formation, can_skirmish, purky: None, revolution: None, acw: None }
}

const MUSKET: Option<Weapon> = Some(Weapon::Musket);
const fn gun(gun: GunSize) -> Arm {
    Arm::Artillery { gun, galloper: false }
}

/// On to Philadelphia's unit types (2.0), the commonest first.
pub const TEMPLATES: &[Template] = &[
    t("Line infantry, 16 figures", UnitType::Line, Arm::Infantry, MUSKET, 16, Formation::Line, false),
    t("State line infantry, 12", UnitType::StateLine, Arm::Infantry, MUSKET, 12, Formation::Line, false),
    t("Militia, 12", UnitType::Militia, Arm::Infantry, MUSKET, 12, Formation::Line, false),
    t("Elite infantry (grenadiers), 12", UnitType::Elite, Arm::Infantry, MUSKET, 12, Formation::Line, false),
    t("Light infantry, 8, skirmishing", UnitType::Light, Arm::Infantry, MUSKET, 8, Formation::Skirmish, false),
    t("Riflemen, 8, skirmishing", UnitType::Militia, Arm::Infantry, Some(Weapon::Rifle), 8, Formation::Skirmish, true),
    t("Indians, 8, skirmishing", UnitType::Indian, Arm::Infantry, MUSKET, 8, Formation::Skirmish, false),
    t("Cavalry, 8 figures", UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 8, Formation::Line, false),
    t("Light gun (under 6 lb.)", UnitType::Line, gun(GunSize::Light), None, 1, Formation::Unlimbered, false),
    t("Medium gun (6-9 lb.)", UnitType::Line, gun(GunSize::Medium), None, 2, Formation::Unlimbered, false),
    t("Heavy gun (12 lb. and up)", UnitType::Line, gun(GunSize::Heavy), None, 2, Formation::Unlimbered, false),
];

const fn purky(label: &'static str, class: PurkyClass, base: Template) -> Template {
    Template { label, purky: Some(class), ..base }
}

/// Purky's classes (PK card), each on the file's nearest OTP type.
pub const PURKY: &[Template] = &[
    purky("Grenadiers", PurkyClass::Grenadiers, t("", UnitType::Elite, Arm::Infantry, MUSKET, 12, Formation::Line, false)),
    purky("Regulars", PurkyClass::Regulars, t("", UnitType::Line, Arm::Infantry, MUSKET, 16, Formation::Line, false)),
    purky("Continentals", PurkyClass::Continentals, t("", UnitType::Line, Arm::Infantry, MUSKET, 16, Formation::Line, false)),
    purky("Light companies", PurkyClass::LightCompanies, t("", UnitType::Light, Arm::Infantry, MUSKET, 8, Formation::Skirmish, false)),
    purky("Riflemen", PurkyClass::Riflemen, t("", UnitType::Militia, Arm::Infantry, Some(Weapon::Rifle), 8, Formation::Skirmish, true)),
    purky("Militia", PurkyClass::Militia, t("", UnitType::Militia, Arm::Infantry, MUSKET, 12, Formation::Line, false)),
    purky("Indians", PurkyClass::Indians, t("", UnitType::Indian, Arm::Infantry, MUSKET, 8, Formation::Skirmish, false)),
    purky("Cavalry", PurkyClass::Cavalry, t("", UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 8, Formation::Line, false)),
    purky("Heavy guns", PurkyClass::HeavyGuns, t("", UnitType::Line, gun(GunSize::Heavy), None, 2, Formation::Unlimbered, false)),
    purky("Medium guns", PurkyClass::MediumGuns, t("", UnitType::Line, gun(GunSize::Medium), None, 2, Formation::Unlimbered, false)),
    purky("Light guns", PurkyClass::LightGuns, t("", UnitType::Line, gun(GunSize::Light), None, 1, Formation::Unlimbered, false)),
    purky("Amusettes", PurkyClass::Amusettes, t("", UnitType::Light, gun(GunSize::Light), None, 1, Formation::Unlimbered, false)),
];

const fn revolution(label: &'static str, kind: RevolutionKind, base: Template) -> Template {
    Template { label, revolution: Some(kind), ..base }
}

/// Revolution's kinds of unit (SG), each on the file's nearest OTP type.
pub const REVOLUTION: &[Template] = &[
    revolution("Elite infantry", RevolutionKind::Elite, t("", UnitType::Elite, Arm::Infantry, MUSKET, 12, Formation::Line, false)),
    revolution("Line infantry", RevolutionKind::Line, t("", UnitType::Line, Arm::Infantry, MUSKET, 16, Formation::Line, false)),
    revolution("Militia", RevolutionKind::Militia, t("", UnitType::Militia, Arm::Infantry, MUSKET, 12, Formation::Line, false)),
    revolution("Rifles", RevolutionKind::Rifles, t("", UnitType::Militia, Arm::Infantry, Some(Weapon::Rifle), 8, Formation::Skirmish, true)),
    revolution("Dragoons", RevolutionKind::Dragoons, t("", UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 8, Formation::Line, false)),
    revolution("Artillery", RevolutionKind::Artillery, t("", UnitType::Line, gun(GunSize::Medium), None, 2, Formation::Unlimbered, false)),
];

const fn acw(label: &'static str, quality: AcwQuality, weapon: Option<AcwWeapon>, gun: Option<AcwGun>, base: Template) -> Template {
    Template { label, acw: Some((quality, weapon, gun)), ..base }
}

/// The two ACW sheets' troops: infantry and cavalry by quality and arm, batteries by gun.
pub const ACW: &[Template] = &[
    acw("Veteran infantry, rifled muskets", AcwQuality::Veteran, Some(AcwWeapon::RifledMusket), None, t("", UnitType::Line, Arm::Infantry, MUSKET, 16, Formation::Line, false)),
    acw("Green infantry, rifled muskets", AcwQuality::Green, Some(AcwWeapon::RifledMusket), None, t("", UnitType::StateLine, Arm::Infantry, MUSKET, 16, Formation::Line, false)),
    acw("Elite infantry, rifled muskets", AcwQuality::Elite, Some(AcwWeapon::RifledMusket), None, t("", UnitType::Elite, Arm::Infantry, MUSKET, 16, Formation::Line, false)),
    acw("Militia, smoothbores", AcwQuality::Militia, Some(AcwWeapon::SmoothboreMusket), None, t("", UnitType::Militia, Arm::Infantry, MUSKET, 12, Formation::Line, false)),
    acw("Sharpshooters", AcwQuality::Veteran, Some(AcwWeapon::SharpshooterRifle), None, t("", UnitType::Light, Arm::Infantry, Some(Weapon::Rifle), 8, Formation::Line, false)),
    acw("Veteran cavalry, breech-loading carbines", AcwQuality::Veteran, Some(AcwWeapon::BreechLoadingCarbine), None, t("", UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 8, Formation::Line, false)),
    acw("Battery, 12-pdr Napoleons", AcwQuality::Veteran, None, Some(AcwGun::Napoleon12), t("", UnitType::Line, gun(GunSize::Heavy), None, 2, Formation::Unlimbered, false)),
    acw("Battery, 10-pdr Parrotts", AcwQuality::Veteran, None, Some(AcwGun::Parrott10), t("", UnitType::Line, gun(GunSize::Medium), None, 2, Formation::Unlimbered, false)),
];

/// The rule sets a scenario may be laid out for (the test rule set is not one).
pub fn rule_sets() -> impl Iterator<Item = RuleSetId> {
    crate::rules::cite::PLAYABLE.into_iter().filter(|r| *r != RuleSetId::Tiny)
}

/// The kind of a new brigade's commander on side `side` (the first side British or Union).
pub fn commander_kind(rules: RuleSetId, side: usize) -> CommanderKind {
    match (matches!(rules, RuleSetId::AcwOrders | RuleSetId::AcwQuick), side) {
        (true, 0) => CommanderKind::Union,
        (true, _) => CommanderKind::Confederate,
        (false, 0) => CommanderKind::British,
        (false, _) => CommanderKind::Continental,
    }
}

/// The palette a scenario played under `rules` offers: that rule set's own kinds of unit as
/// the file records them (its profile), or On to Philadelphia's types.
pub fn palette(rules: RuleSetId) -> &'static [Template] {
    match rules {
        RuleSetId::Purky => PURKY,
        RuleSetId::Revolution => REVOLUTION,
        RuleSetId::AcwOrders | RuleSetId::AcwQuick => ACW,
        _ => TEMPLATES,
    }
}

impl Template {
    /// The unit, named, its front edge's centre at `at`, facing `facing`.
    pub fn unit(&self, name: String, at: Point, facing: f32) -> Unit {
        Unit {
            name,
            unit_type: self.unit_type,
            arm: self.arm,
            weapon: self.weapon,
            bayonets: None,
            figures: self.figures,
            figures_per_stand: None,
            cv: None,
            can_skirmish: self.can_skirmish,
            formation: self.formation,
            at,
            facing,
            gap: None,
            attached_to: None,
            morale_marker: false,
            men: None,
            purky: self.purky.map(|class| PurkyProfile { class, figures: None }),
            revolution: self.revolution.map(|kind| RevolutionProfile { kind }),
            acw: self.acw.map(|(quality, weapon, gun)| AcwProfile { quality, weapon, gun }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // OTP 1.1-1.3 and each rule set's own kinds of unit (PK card, SG, QK/OR): every template of
    // each palette makes a table `otp check` accepts and that rule set opens as a game; every
    // feature drawn with its least corners is a shape the editor takes.
    #[test]
    fn every_palette_makes_a_playable_table_under_its_rule_set() {
        use super::super::{Edit, Editor};
        for rules in [RuleSetId::Otp, RuleSetId::Purky, RuleSetId::Revolution, RuleSetId::AcwQuick, RuleSetId::AcwOrders] {
            let mut ed = Editor::blank(72.0, 48.0, rules, &["A", "B"]);
            let acw = matches!(rules, RuleSetId::AcwQuick | RuleSetId::AcwOrders);
            for (side, kind) in [(0, if acw { CommanderKind::Union } else { CommanderKind::British }), (1, if acw { CommanderKind::Confederate } else { CommanderKind::Continental })] {
                let commander = Commander { name: format!("General {side}"), kind, rating: None, at: None, acw: None };
                ed.apply(&Edit::AddBrigade { side, brigade: Brigade { name: format!("Brigade {side}"), chit: side as u32 + 1, commander, posture: None, units: Vec::new() } }).unwrap();
            }
            let palette = palette(rules);
            for (i, t) in palette.iter().enumerate() {
                let at = [6.0 + (i % 6) as f32 * 11.0, 4.0 + (i / 6) as f32 * 5.0];
                ed.apply(&Edit::AddUnit { side: 0, brigade: 0, unit: t.unit(t.label.into(), at, 0.0) }).unwrap();
            }
            ed.apply(&Edit::AddUnit { side: 1, brigade: 0, unit: palette[0].unit("Enemy".into(), [36.0, 44.0], 180.0) }).unwrap();
            for (i, f) in Feature::ALL.iter().enumerate() {
                let points: Vec<Point> = [[0.0, 0.0], [3.0, 0.0], [3.0, 3.0]][..f.least()].iter().map(|p| [p[0] + 4.0 * i as f32 + 8.0, p[1] + 30.0]).collect();
                ed.apply(&Edit::AddTerrain(f.make(f.name().into(), points))).unwrap();
            }
            assert!(ed.problems().is_empty(), "{rules:?}: {:?}", ed.problems());
            let s = ed.scenario.clone();
            assert!(crate::rules::registry::open(rules, s, 1).is_ok(), "{rules:?} opens the table");
        }
        assert_eq!(palette(RuleSetId::Purky)[0].unit("G".into(), [0.0, 0.0], 0.0).purky.unwrap().class, PurkyClass::Grenadiers);
    }
}
