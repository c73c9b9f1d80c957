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

/// A unit of the palette: its label and the unit (named and placed when added).
pub struct Template {
    pub label: &'static str,
    pub unit_type: UnitType,
    pub arm: Arm,
    pub weapon: Option<Weapon>,
    pub figures: u32,
    pub formation: Formation,
    pub can_skirmish: bool,
}

const fn t(label: &'static str, unit_type: UnitType, arm: Arm, weapon: Option<Weapon>, figures: u32, formation: Formation, can_skirmish: bool) -> Template {
    Template { label, unit_type, arm, weapon, figures, formation, can_skirmish }
}

/// The palette, the commonest first.
pub const TEMPLATES: &[Template] = &[
    t("Line infantry, 16 figures", UnitType::Line, Arm::Infantry, Some(Weapon::Musket), 16, Formation::Line, false),
    t("State line infantry, 12", UnitType::StateLine, Arm::Infantry, Some(Weapon::Musket), 12, Formation::Line, false),
    t("Militia, 12", UnitType::Militia, Arm::Infantry, Some(Weapon::Musket), 12, Formation::Line, false),
    t("Elite infantry (grenadiers), 12", UnitType::Elite, Arm::Infantry, Some(Weapon::Musket), 12, Formation::Line, false),
    t("Light infantry, 8, skirmishing", UnitType::Light, Arm::Infantry, Some(Weapon::Musket), 8, Formation::Skirmish, false),
    t("Riflemen, 8, skirmishing", UnitType::Militia, Arm::Infantry, Some(Weapon::Rifle), 8, Formation::Skirmish, true),
    t("Indians, 8, skirmishing", UnitType::Indian, Arm::Infantry, Some(Weapon::Musket), 8, Formation::Skirmish, false),
    t("Cavalry, 8 figures", UnitType::Line, Arm::Cavalry, Some(Weapon::Carbine), 8, Formation::Line, false),
    t("Light gun (under 6 lb.)", UnitType::Line, Arm::Artillery { gun: GunSize::Light, galloper: false }, None, 1, Formation::Unlimbered, false),
    t("Medium gun (6-9 lb.)", UnitType::Line, Arm::Artillery { gun: GunSize::Medium, galloper: false }, None, 2, Formation::Unlimbered, false),
    t("Heavy gun (12 lb. and up)", UnitType::Line, Arm::Artillery { gun: GunSize::Heavy, galloper: false }, None, 2, Formation::Unlimbered, false),
];

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
            purky: None,
            revolution: None,
            acw: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // OTP 1.1-1.3: every template is a unit the basing rules lay out, and every feature drawn
    // with its least corners is a shape the editor takes.
    #[test]
    fn every_template_and_feature_is_valid_on_a_table() {
        let mut ed = super::super::Editor::blank(48.0, 48.0, RuleSetId::Otp, &["A", "B"]);
        ed.apply(&super::super::Edit::AddBrigade {
            side: 0,
            brigade: Brigade { name: "B1".into(), chit: 1, commander: Commander { name: "C".into(), kind: CommanderKind::British, rating: None, at: None, acw: None }, posture: None, units: Vec::new() },
        })
        .unwrap();
        for (i, t) in TEMPLATES.iter().enumerate() {
            let at = [6.0 + (i % 4) as f32 * 10.0, 6.0 + (i / 4) as f32 * 8.0];
            ed.apply(&super::super::Edit::AddUnit { side: 0, brigade: 0, unit: t.unit(t.label.into(), at, 0.0) }).unwrap();
        }
        for (i, f) in Feature::ALL.iter().enumerate() {
            let points: Vec<Point> = [[0.0, 0.0], [3.0, 0.0], [3.0, 3.0]][..f.least()].iter().map(|p| [p[0] + 4.0 * i as f32, p[1] + 40.0]).collect();
            ed.apply(&super::super::Edit::AddTerrain(f.make(f.name().into(), points))).unwrap();
        }
        let problems: Vec<String> = ed.problems().into_iter().map(|(_, m)| m).filter(|m| !m.contains("side B")).collect();
        assert!(problems.is_empty() || problems.iter().all(|m| m.contains("B") && m.contains("brigade")), "{problems:?}");
    }
}
