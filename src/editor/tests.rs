use super::*;

const SHIPPED: &[(&str, &str)] = &[
    ("teaching.ron", include_str!("../../scenarios/teaching.ron")),
    ("acw_teaching.ron", include_str!("../../scenarios/acw_teaching.ron")),
    ("brandywine.ron", include_str!("../../scenarios/brandywine.ron")),
    ("camden.ron", include_str!("../../scenarios/camden.ron")),
    ("cowpens.ron", include_str!("../../scenarios/cowpens.ron")),
    ("germantown.ron", include_str!("../../scenarios/germantown.ron")),
    ("guilford.ron", include_str!("../../scenarios/guilford.ron")),
    ("mcphersons_ridge.ron", include_str!("../../scenarios/mcphersons_ridge.ron")),
    ("monmouth.ron", include_str!("../../scenarios/monmouth.ron")),
    ("princeton.ron", include_str!("../../scenarios/princeton.ron")),
];

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("otp-editor-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("scenario.ron")
}

/// A feature as the mouse draws it: its first corners clicked (an area three, a path two),
/// then each further corner inserted after the last, as a click on the outline's end adds one.
fn draw(editor: &mut Editor, t: &Terrain) {
    if matches!(t, Terrain::Building { .. }) {
        return editor.apply(&Edit::AddTerrain(t.clone())).unwrap();
    }
    let first = if is_area(t) { 3 } else { 2 };
    let mut start = t.clone();
    vertices_mut(&mut start).truncate(first);
    editor.apply(&Edit::AddTerrain(start)).unwrap();
    let i = editor.scenario.terrain.len() - 1;
    for (k, &p) in vertices(t).iter().enumerate().skip(first) {
        editor.apply(&Edit::InsertVertex { terrain: i, after: k - 1, at: p }).unwrap();
    }
}

// Issue 23: the teaching battle's terrain and a brigade built from an empty table through the
// editor's messages; saved, `otp check` accepts it, and it reads back identical.
#[test]
fn the_teaching_battle_is_built_from_an_empty_table_saved_checked_and_reloaded() {
    let teaching = crate::scenario::default_scenario();
    let mut ed = Editor::blank(72.0, 48.0, RuleSetId::Otp, &["British", "Americans"]);
    let mut details = Details::of(&ed.scenario);
    details.name = teaching.name.clone();
    details.description = teaching.description.clone();
    details.optional_rules = teaching.optional_rules.clone();
    details.turn_limit = teaching.turn_limit;
    ed.apply(&Edit::Details(Box::new(details))).unwrap();
    for t in &teaching.terrain {
        draw(&mut ed, t);
    }
    assert_eq!(ed.scenario.terrain, teaching.terrain, "every feature as the teaching battle has it");
    for o in &teaching.objectives {
        ed.apply(&Edit::AddObjective(o.clone())).unwrap();
    }
    // Webster's brigade: the side's commander, the brigade, its units from the palette, each
    // put where it stands.
    let british = &teaching.sides[0];
    ed.apply(&Edit::SetSide(0, Side { brigades: Vec::new(), ..british.clone() })).unwrap();
    let webster = &british.brigades[0];
    ed.apply(&Edit::AddBrigade { side: 0, brigade: Brigade { units: Vec::new(), ..webster.clone() } }).unwrap();
    for (k, u) in webster.units.iter().enumerate() {
        ed.apply(&Edit::AddUnit { side: 0, brigade: 0, unit: Unit { at: [36.0, 24.0], facing: 0.0, ..u.clone() } }).unwrap();
        let r = UnitRef { side: 0, brigade: 0, unit: k };
        ed.apply(&Edit::Place(Item::Unit(r), u.at)).unwrap();
        ed.apply(&Edit::Face(r, u.facing)).unwrap();
    }
    assert_eq!(ed.scenario.sides[0].brigades[0], *webster);
    // The Americans need a brigade before `otp check` accepts the table.
    ed.apply(&Edit::AddBrigade { side: 1, brigade: teaching.sides[1].brigades[0].clone() }).unwrap();
    assert!(ed.problems().is_empty(), "{:?}", ed.problems());
    assert!(ed.unsaved());

    let path = temp("built");
    ed.save(&path).unwrap();
    assert!(!ed.unsaved());
    let checked = crate::scenario::load(&path).expect("otp check accepts the saved file");
    assert_eq!(checked, ed.scenario);
    let text = std::fs::read_to_string(&path).unwrap();
    let again = Editor::open(&text, "scenario.ron").unwrap();
    assert_eq!(again.scenario, ed.scenario);
    assert_eq!(again.text(), text, "opened and saved unchanged: the same bytes");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

// Issue 23: every shipped scenario opened and saved unchanged is byte for byte the file; written
// anew by the serializer it reads back semantically identical.
#[test]
fn every_shipped_scenario_round_trips() {
    for (name, text) in SHIPPED {
        let ed = Editor::open(text, name).unwrap();
        assert!(!ed.unsaved());
        assert_eq!(ed.text(), *text, "{name}: unchanged, byte for byte");
        let written = crate::scenario::to_ron(&ed.scenario);
        let read = crate::scenario::parse(&written, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read, ed.scenario, "{name}: the serializer's text reads back the same");
    }
}

fn comments(text: &str) -> Vec<&str> {
    text.lines().filter_map(|l| l.find("//").map(|i| l[i..].trim())).collect()
}

// Issue 23: a save after edits keeps the designer's comments outside what changed, and only the
// changed items' lines differ.
#[test]
fn an_edited_save_keeps_the_comments_and_touches_only_what_changed() {
    for (name, text) in SHIPPED {
        let mut ed = Editor::open(text, name).unwrap();
        let r = UnitRef { side: 0, brigade: 0, unit: 0 };
        ed.apply(&Edit::Move(Item::Unit(r), [0.0, 4.0])).unwrap();
        ed.apply(&Edit::Turn(Item::Terrain(0), 15.0)).unwrap();
        let out = ed.text();
        let read = crate::scenario::from_ron::<Scenario>(&out, name).unwrap();
        assert_eq!(read, ed.scenario, "{name}");
        assert_eq!(comments(&out), comments(text), "{name}: every comment kept");
        let before: std::collections::HashSet<&str> = text.lines().collect();
        let changed = out.lines().filter(|l| !before.contains(l)).count();
        assert!(changed <= 30, "{name}: {changed} lines written anew for two edits:\n{out}");
    }
}

#[test]
fn added_and_deleted_items_are_spliced_in_the_siblings_style() {
    let text = SHIPPED[0].1;
    let mut ed = Editor::open(text, "teaching.ron").unwrap();
    // Delete the first unit (no comment above it), add a wood, add a unit to the last brigade,
    // drop the turn limit, rename the scenario.
    ed.apply(&Edit::Delete(Item::Unit(UnitRef { side: 0, brigade: 0, unit: 0 }))).unwrap();
    ed.apply(&Edit::AddTerrain(Terrain::Woods { name: "New Copse".into(), density: WoodsDensity::Light, outline: vec![[1.0, 1.0], [4.0, 1.0], [4.0, 4.0]], disorder: None })).unwrap();
    let dragoons = ed.scenario.sides[1].brigades[1].units[2].clone();
    ed.apply(&Edit::AddUnit { side: 1, brigade: 1, unit: Unit { name: "More Dragoons".into(), at: [60.0, 10.0], ..dragoons } }).unwrap();
    let mut d = Details::of(&ed.scenario);
    d.turn_limit = None;
    d.name = "Renamed".into();
    ed.apply(&Edit::Details(Box::new(d))).unwrap();
    let out = ed.text();
    assert_eq!(crate::scenario::from_ron::<Scenario>(&out, "x").unwrap(), ed.scenario);
    assert_eq!(comments(&out), comments(text));
    assert!(out.contains("Woods(name: \"New Copse\""), "a one-line sibling style:\n{out}");
    assert!(out.contains("turn_limit: None"));
    assert!(!out.contains("name: \"23rd Foot\""));
    // A comment above a deleted item goes with it.
    let mut ed = Editor::open(text, "teaching.ron").unwrap();
    ed.apply(&Edit::Delete(Item::Unit(UnitRef { side: 0, brigade: 1, unit: 2 }))).unwrap();
    let out = ed.text();
    assert!(!out.contains("Shaken before the battle"), "{out}");
    assert_eq!(crate::scenario::from_ron::<Scenario>(&out, "x").unwrap(), ed.scenario);
}

#[test]
fn undo_and_redo_step_through_every_edit() {
    let mut ed = Editor::open(SHIPPED[0].1, "teaching.ron").unwrap();
    let start = ed.scenario.clone();
    ed.apply(&Edit::Move(Item::Terrain(2), [3.0, 0.0])).unwrap();
    let moved = ed.scenario.clone();
    ed.apply(&Edit::Delete(Item::Objective(0))).unwrap();
    assert!(ed.undo());
    assert_eq!(ed.scenario, moved);
    assert!(ed.undo());
    assert_eq!(ed.scenario, start);
    assert!(!ed.undo() && !ed.unsaved());
    assert!(ed.redo() && ed.redo() && !ed.redo());
    assert_eq!(ed.scenario.objectives.len(), 1);
    // A drag is one step however many frames it took.
    ed.apply(&Edit::Move(Item::Objective(0), [1.0, 0.0])).unwrap();
    ed.apply_continuing(&Edit::Move(Item::Objective(0), [1.0, 0.0])).unwrap();
    assert!(ed.undo());
    assert_eq!(ed.scenario.objectives.len(), 1);
    assert!(ed.scenario.objectives[0].at == start.objectives[1].at);
}

#[test]
fn a_refused_edit_changes_nothing() {
    let mut ed = Editor::blank(48.0, 48.0, RuleSetId::Otp, &["A", "B"]);
    let tri = Terrain::Field { name: "F".into(), kind: FieldKind::Plowed, outline: vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0]] };
    assert!(ed.apply(&Edit::AddTerrain(Terrain::Field { name: "F".into(), kind: FieldKind::Plowed, outline: vec![[0.0, 0.0], [4.0, 0.0]] })).unwrap_err().contains("three corners"));
    ed.apply(&Edit::AddTerrain(tri)).unwrap();
    let before = ed.scenario.clone();
    assert!(ed.apply(&Edit::DeleteVertex { terrain: 0, vertex: 1 }).unwrap_err().contains("at least 3"));
    assert!(ed.apply(&Edit::Move(Item::Terrain(5), [1.0, 1.0])).is_err());
    assert!(ed.apply(&Edit::Details(Box::new(Details { table: Table { width: 0.0, depth: 4.0 }, ..Details::of(&before) }))).is_err());
    assert_eq!(ed.scenario, before);
    ed.undo();
    assert!(ed.scenario.terrain.is_empty(), "only the good edit was an undo step");
}

// OTP 6.5 (no interpenetration at set-up) and the table's edge: shown on the unit concerned.
#[test]
fn problems_are_told_on_the_item_they_concern() {
    let mut ed = Editor::open(SHIPPED[0].1, "teaching.ron").unwrap();
    assert!(ed.problems().is_empty());
    let a = UnitRef { side: 0, brigade: 0, unit: 1 };
    ed.apply(&Edit::Place(Item::Unit(a), [20.0, 38.0])).unwrap();
    let problems = ed.problems();
    assert!(problems.iter().any(|(item, m)| *item == Some(Item::Unit(a)) || m.contains("overlaps")), "{problems:?}");
    assert!(problems.iter().all(|(_, m)| !m.is_empty()));
    ed.undo();
    ed.apply(&Edit::Place(Item::Unit(a), [71.5, 38.0])).unwrap();
    assert!(ed.problems().iter().any(|(item, m)| *item == Some(Item::Unit(a)) && m.contains("off the table")), "{:?}", ed.problems());
    // The messages are `otp check`'s own.
    let text = ed.text();
    let check = crate::scenario::parse(&text, "t.ron").unwrap_err().to_string();
    assert!(ed.problems().iter().all(|(_, m)| check.contains(m.as_str())), "{check}");
}

#[test]
fn align_with_and_form_on_the_flank_of_a_friend() {
    let mut ed = Editor::open(SHIPPED[0].1, "teaching.ron").unwrap();
    // The 1st Maryland faces up the table at (18, 22), 16 figures in line: 8" of front.
    let md = UnitRef { side: 1, brigade: 0, unit: 0 };
    let va = UnitRef { side: 1, brigade: 0, unit: 1 };
    ed.apply(&Edit::AlignWith { unit: va, friend: md }).unwrap();
    let v = unit(&ed.scenario, va).unwrap();
    assert_eq!((v.at[1], v.facing), (22.0, 0.0), "on the Marylanders' front line");
    assert_eq!(v.at[0], 27.5, "as far along it as it stood");
    ed.apply(&Edit::FormOnFlank { unit: va, friend: md, right: true }).unwrap();
    let v = unit(&ed.scenario, va).unwrap().clone();
    let m = unit(&ed.scenario, md).unwrap();
    let gap = v.at[0] - m.at[0];
    assert!((gap - (half_front(m, &ed.scenario.basing) + half_front(&v, &ed.scenario.basing))).abs() < 1e-4);
    assert!((gap - 7.0).abs() < 1e-3, "4\" of Marylanders and 3\" of Virginians: {gap}");
    ed.apply(&Edit::FormOnFlank { unit: va, friend: md, right: false }).unwrap();
    assert!((unit(&ed.scenario, va).unwrap().at[0] - 11.0).abs() < 1e-3);
    assert!(ed.apply(&Edit::AlignWith { unit: md, friend: md }).is_err());
}

#[test]
fn turning_terrain_turns_it_about_its_middle_and_snapping_rounds() {
    let mut ed = Editor::open(SHIPPED[0].1, "teaching.ron").unwrap();
    let orchard = Item::Terrain(2);
    let before = middle(&ed.scenario.terrain[2]);
    ed.apply(&Edit::Turn(orchard, 90.0)).unwrap();
    assert!((middle(&ed.scenario.terrain[2]) - before).length() < 0.01);
    let first = Vec2::from(vertices(&ed.scenario.terrain[2])[0]);
    // (42, 11) was 3.25" left and 3.25" below the middle; a quarter turn clockwise puts it left and above.
    assert!((first - (before + Vec2::new(-3.25, 3.25))).length() < 0.01, "{first}");
    assert_eq!(snap(Vec2::new(3.4, 7.6)), Vec2::new(3.0, 8.0));
    assert_eq!(snap_bearing(187.0), 180.0);
    assert_eq!(snap_bearing(353.0), 0.0);
    ed.apply(&Edit::Copy(orchard)).unwrap();
    assert_eq!(ed.scenario.terrain.last().unwrap().name(), "Thompson's Orchard (2)");
}

// OTP 6.7: a gate cut in the churchyard wall leaves two lengths of wall with a 2" gap where the
// pointer was; the ends of the wall are where they were.
#[test]
fn a_gate_is_a_gap_cut_in_a_wall() {
    let mut ed = Editor::open(SHIPPED[0].1, "teaching.ron").unwrap();
    let i = ed.scenario.terrain.iter().position(|t| t.name() == "Churchyard wall").unwrap();
    let n = ed.scenario.terrain.len();
    ed.apply(&Edit::Gate { terrain: i, at: [46.0, 28.3], width: 2.0 }).unwrap();
    assert_eq!(ed.scenario.terrain.len(), n + 1);
    assert_eq!(vertices(&ed.scenario.terrain[i]), &[[43.5, 28.0], [45.0, 28.0]]);
    assert_eq!(vertices(&ed.scenario.terrain[i + 1]), &[[47.0, 28.0], [48.5, 28.0]]);
    assert_eq!(ed.scenario.terrain[i + 1].name(), "Churchyard wall (beyond the gate)");
    assert!(ed.problems().is_empty(), "{:?}", ed.problems());
    // Too near an end, or not an obstruction: refused, nothing changed.
    let before = ed.scenario.clone();
    assert!(ed.apply(&Edit::Gate { terrain: i, at: [43.6, 28.0], width: 2.0 }).unwrap_err().contains("does not fit"));
    assert!(ed.apply(&Edit::Gate { terrain: 2, at: [45.0, 14.0], width: 2.0 }).unwrap_err().contains("a gate is cut in"));
    assert_eq!(ed.scenario, before);
    // A bend inside the gap goes with it.
    let (a, b) = cut(&[[0.0, 0.0], [5.0, 0.0], [5.0, 5.0]], Vec2::new(5.2, 0.3), 2.0).unwrap();
    // Nearest the pointer is (5, 0.3) on the second leg, 5.3" along: the gap runs 4.3" to 6.3".
    assert_eq!((a, b), (vec![[0.0, 0.0], [4.3, 0.0]], vec![[5.0, 1.3], [5.0, 5.0]]));
}

// OTP 7.5: a unit dragged takes the guns attached to it along, so they still touch it.
#[test]
fn a_unit_moved_carries_its_attached_guns() {
    let mut ed = Editor::open(SHIPPED[0].1, "teaching.ron").unwrap();
    let foot = UnitRef { side: 0, brigade: 0, unit: 0 };
    let gun = UnitRef { side: 0, brigade: 0, unit: 2 };
    assert_eq!(unit(&ed.scenario, gun).unwrap().attached_to.as_deref(), Some("23rd Foot"));
    let before = Vec2::from(unit(&ed.scenario, gun).unwrap().at);
    ed.apply(&Edit::Place(Item::Unit(foot), [20.0, 30.0])).unwrap();
    ed.apply(&Edit::Move(Item::Unit(foot), [1.0, 0.0])).unwrap();
    assert_eq!(Vec2::from(unit(&ed.scenario, gun).unwrap().at), before + Vec2::new(1.0, -8.0));
    assert!(ed.problems().is_empty(), "{:?}", ed.problems());
    // Another unit moves alone.
    let other = UnitRef { side: 0, brigade: 0, unit: 1 };
    ed.apply(&Edit::Move(Item::Unit(other), [0.0, 1.0])).unwrap();
    assert_eq!(Vec2::from(unit(&ed.scenario, gun).unwrap().at), before + Vec2::new(1.0, -8.0));
}
