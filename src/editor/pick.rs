//! What the pointer is over in the editor, and each item's outline for drawing it picked: the
//! same shapes the table draws (a unit's stands as the basing rules lay them out).

use bevy::math::Vec2;

use super::{Item, UnitRef, position, unit, vertices};
use crate::picture::inside;
use crate::scenario::basing;
use crate::scenario::model::{Scenario, Terrain};
use crate::scenario::validate::polyline_distance;
use crate::table::footprint::{Footprint, bearing_vector};

/// A unit's stands where the file puts them.
pub fn stands(s: &Scenario, r: UnitRef) -> Vec<Footprint> {
    unit(s, r).and_then(|u| basing::layout(u, &s.basing).ok()).map(|l| l.into_iter().map(|(f, _)| f).collect()).unwrap_or_default()
}

/// Every unit, by its place in the file.
pub fn units(s: &Scenario) -> impl Iterator<Item = UnitRef> + '_ {
    s.sides.iter().enumerate().flat_map(|(side, x)| x.brigades.iter().enumerate().flat_map(move |(brigade, b)| (0..b.units.len()).map(move |unit| UnitRef { side, brigade, unit })))
}

/// A building's four corners.
pub fn building_corners(t: &Terrain) -> Option<[Vec2; 4]> {
    let Terrain::Building { at, size, facing, .. } = t else {
        return None;
    };
    let (f, r) = (bearing_vector(*facing), bearing_vector(facing + 90.0));
    let (c, w, d) = (Vec2::from(*at), size[0] / 2.0, size[1] / 2.0);
    Some([c - r * w + f * d, c + r * w + f * d, c + r * w - f * d, c - r * w - f * d])
}

/// The outline to draw an item picked: a feature's corners or path, a unit's stands' corners
/// (four a stand), a marker's small square.
pub fn outline(s: &Scenario, item: Item) -> Vec<Vec2> {
    match item {
        Item::Terrain(i) => match s.terrain.get(i) {
            Some(t @ Terrain::Building { .. }) => building_corners(t).map(Vec::from).unwrap_or_default(),
            Some(t) => vertices(t).iter().map(|&p| p.into()).collect(),
            None => Vec::new(),
        },
        Item::Unit(r) => stands(s, r).iter().flat_map(|f| f.corners()).collect(),
        _ => position(s, item).map(|c| [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)].map(|(x, y)| c + Vec2::new(x, y)).to_vec()).unwrap_or_default(),
    }
}

/// The thing under `p` (`tolerance` inches, a few pixels): troops and markers before terrain,
/// the feature drawn last (on top) first, a small one before the area it lies in.
pub fn hit(s: &Scenario, p: Vec2, tolerance: f32) -> Option<Item> {
    if let Some(r) = units(s).filter(|&r| stands(s, r).iter().any(|f| f.contains(p) || f.corners().iter().any(|c| c.distance(p) < tolerance))).last() {
        return Some(Item::Unit(r));
    }
    let markers = s.sides.iter().enumerate().flat_map(|(side, x)| {
        let brigades = (0..x.brigades.len()).map(move |b| Item::Commander { side, brigade: Some(b) });
        let overall = x.commander.is_some().then_some(Item::Commander { side, brigade: None });
        let wagons = (0..x.wagons.len()).map(move |w| Item::Wagon { side, wagon: w });
        brigades.chain(overall).chain(wagons)
    });
    let near = |item: &Item, r: f32| position(s, *item).is_some_and(|c| c.distance(p) <= r + tolerance);
    if let Some(m) = markers.filter(|m| near(m, 0.5)).last() {
        return Some(m);
    }
    if let Some(o) = (0..s.objectives.len()).map(Item::Objective).filter(|o| near(o, 0.6)).last() {
        return Some(o);
    }
    let on = |t: &Terrain| match t {
        Terrain::Building { .. } => building_corners(t).is_some_and(|c| inside(&c, p)),
        Terrain::Stream { path, width, .. } | Terrain::Road { path, width, .. } => polyline_distance(path, p) <= width / 2.0 + tolerance.max(0.3),
        Terrain::Obstacle { path, .. } => polyline_distance(path, p) <= tolerance.max(0.3),
        _ => inside(&vertices(t).iter().map(|&q| q.into()).collect::<Vec<Vec2>>(), p),
    };
    // Lines and buildings lie on areas: they are picked first.
    let lines = s.terrain.iter().enumerate().rev().find(|(_, t)| !super::is_area(t) && on(t));
    let areas = || s.terrain.iter().enumerate().rev().find(|(_, t)| super::is_area(t) && on(t));
    lines.or_else(areas).map(|(i, _)| Item::Terrain(i))
}

/// The corner of `t` within `tolerance` of `p`.
pub fn vertex_at(t: &Terrain, p: Vec2, tolerance: f32) -> Option<usize> {
    if matches!(t, Terrain::Building { .. }) {
        return None;
    }
    vertices(t).iter().position(|&v| Vec2::from(v).distance(p) <= tolerance)
}

/// The side of `t` nearest `p`: the corner it starts at, and how far `p` is from it. An area's
/// last side runs back to its first corner.
pub fn nearest_side(t: &Terrain, p: Vec2) -> Option<(usize, f32)> {
    let v: Vec<Vec2> = vertices(t).iter().map(|&q| q.into()).collect();
    let n = v.len();
    let sides = if super::is_area(t) { n } else { n.saturating_sub(1) };
    (0..sides).map(|i| (i, polyline_distance(&[v[i].into(), v[(i + 1) % n].into()], p))).min_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pointer_picks_troops_before_terrain_and_lines_before_areas() {
        let s = crate::scenario::default_scenario();
        // The 23rd Foot stands in line at (20, 38) facing down the table.
        let foot = hit(&s, Vec2::new(20.0, 38.2), 0.1);
        assert!(matches!(foot, Some(Item::Unit(r)) if unit(&s, r).unwrap().name == "23rd Foot"), "{foot:?}");
        // The churchyard wall lies on nothing; the fence of the wheat field on the field's edge.
        let fence = hit(&s, Vec2::new(24.0, 28.5), 0.1).unwrap();
        assert!(matches!(fence, Item::Terrain(i) if s.terrain[i].name() == "Wheat Field fence"), "{fence:?}");
        let field = hit(&s, Vec2::new(24.0, 31.0), 0.1).unwrap();
        assert!(matches!(field, Item::Terrain(i) if s.terrain[i].name() == "Wheat Field"));
        // The crest lies inside the ridge, drawn after it: picked first.
        let crest = hit(&s, Vec2::new(17.0, 17.0), 0.1).unwrap();
        assert!(matches!(crest, Item::Terrain(i) if s.terrain[i].name() == "Long Ridge crest"));
        assert!(matches!(hit(&s, Vec2::new(35.5, 20.5), 0.1), Some(Item::Objective(0))));
        assert_eq!(hit(&s, Vec2::new(70.0, 25.0), 0.1), None);
    }

    #[test]
    fn corners_and_sides_are_found_near_the_pointer() {
        let s = crate::scenario::default_scenario();
        let orchard = &s.terrain[2];
        assert_eq!(vertex_at(orchard, Vec2::new(48.4, 11.1), 0.3), Some(1));
        assert_eq!(vertex_at(orchard, Vec2::new(45.0, 14.0), 0.3), None);
        // The closing side, from the last corner back to the first.
        assert_eq!(nearest_side(orchard, Vec2::new(42.1, 14.0)).map(|(i, _)| i), Some(3));
        assert_eq!(outline(&s, Item::Terrain(2)).len(), 4);
        let r = units(&s).find(|&r| unit(&s, r).unwrap().name == "23rd Foot").unwrap();
        assert_eq!(outline(&s, Item::Unit(r)).len(), 4 * 4, "four stands of four figures");
    }
}
