//! Planned paths: what the rules have planned on the table and not yet resolved (a charge named
//! before it is made), drawn as the engine gives them (`Engine::planned_paths`): the path as a
//! dashed arrow in its side's colour, and each mark along it with its tag — a dot where the point
//! is known, a thick bar over the stretch a roll still to come will place it in. The pointer over
//! a mark shows what it means, with its rule. The window names no rule set: a rule set that plans
//! nothing draws nothing.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::rules::engine::{PlannedPath, Tone};
use crate::scenario::spawn::side_colour;
use crate::ui::UiSet;
use crate::ui::camera::View;
use crate::ui::session::Session;

/// The engine's planned paths, asked again only when the game changes.
#[derive(Resource, Default)]
pub(crate) struct Planned {
    pub paths: Vec<PlannedPath>,
    revision: Option<u64>,
}

impl super::EngineView for Planned {
    fn revision(&mut self) -> &mut Option<u64> {
        &mut self.revision
    }
    fn ask(&mut self, engine: &dyn crate::rules::engine::Engine) {
        self.paths = engine.planned_paths();
    }
}

/// The ways round the enemy's fire the automatic player's units have taken in the current step
/// of play (a brigade's activation), each from where the unit stood to the place it goes:
/// drawn with the planned paths while that step lasts, so that a player sees why a battalion
/// leaves the straight line (`Decision::way`; its tag, under the pointer at its start, gives
/// both lengths).
#[derive(Resource, Default)]
pub(crate) struct AutomaticWays {
    pub paths: Vec<PlannedPath>,
    /// The sequence's headline of the step they belong to.
    step: String,
}

impl AutomaticWays {
    /// A decision's way, if it has one, made in the step `headline`; a new step clears the last
    /// step's.
    pub(crate) fn note(&mut self, headline: &str, way: Option<PlannedPath>) {
        if self.step != headline {
            self.paths.clear();
            self.step = headline.to_string();
        }
        self.paths.extend(way);
    }

    /// The ways of the step the game is in now (none once it has moved on).
    fn now(&self, headline: &str) -> &[PlannedPath] {
        if self.step == headline { &self.paths } else { &[] }
    }
}

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Planned>().init_resource::<AutomaticWays>().add_systems(PostUpdate, super::refresh_view::<Planned>).add_systems(EguiPrimaryContextPass, draw.in_set(UiSet::Tools).run_if(crate::ui::fonts_ready));
}


const SHADOW: egui::Color32 = egui::Color32::from_rgba_premultiplied(20, 16, 10, 170);
/// A tag's ground: darker than the shadow, so red and pale words read on any ground.
const TAG_FILL: egui::Color32 = egui::Color32::from_rgba_premultiplied(20, 16, 10, 225);
const BAD: egui::Color32 = egui::Color32::from_rgb(235, 80, 60);
const INFO: egui::Color32 = egui::Color32::from_rgb(245, 225, 150);

fn draw(mut contexts: EguiContexts, planned: Res<Planned>, ways: Res<AutomaticWays>, session: Option<Res<Session>>, view: Res<View>) -> Result {
    let Some(session) = session else { return Ok(()) };
    let ways = if ways.paths.is_empty() { &[] } else { ways.now(&session.engine().sequence().headline) };
    if planned.paths.is_empty() && ways.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let painter = egui::Painter::new(ctx.clone(), egui::LayerId::background(), view.rect);
    let sides = &session.engine().scenario().sides;
    let pointer = ctx.pointer_hover_pos().filter(|p| view.rect.contains(*p));
    let font = egui::FontId::proportional(12.0);
    let mut shapes = Vec::new();
    let mut tags = Vec::new();
    let mut hovered: Option<&str> = None;
    for path in planned.paths.iter().chain(ways) {
        let rgb = sides.get(path.side).map_or([220, 220, 220], |s| side_colour(s, path.side));
        let [r, g, b] = rgb.map(|c| (c as f32 + (255.0 - c as f32) * 0.35) as u8);
        let colour = egui::Color32::from_rgb(r, g, b);
        let points: Vec<egui::Pos2> = path.points.iter().map(|&p| view.to_screen(p)).collect();
        if points.len() >= 2 {
            shapes.extend(egui::Shape::dashed_line(&points, egui::Stroke::new(4.5, SHADOW), 10.0, 5.0));
            shapes.extend(egui::Shape::dashed_line(&points, egui::Stroke::new(2.5, colour), 10.0, 5.0));
            let (tip, before) = (points[points.len() - 1], points[points.len() - 2]);
            let along = tip - before;
            if along.length() > 1.0 {
                let dir = along.normalized();
                let side = egui::vec2(-dir.y, dir.x);
                shapes.push(egui::Shape::convex_polygon(vec![tip, tip - dir * 12.0 + side * 6.0, tip - dir * 12.0 - side * 6.0], colour, egui::Stroke::new(1.0, SHADOW)));
            }
        }
        for (i, mark) in path.marks.iter().enumerate() {
            let tone = if mark.tone == Tone::Bad { BAD } else { INFO };
            let at = view.to_screen(mark.at);
            let near = match mark.until {
                Some(until) => {
                    let end = view.to_screen(until);
                    shapes.push(egui::Shape::line_segment([at, end], egui::Stroke::new(9.0, SHADOW)));
                    shapes.push(egui::Shape::line_segment([at, end], egui::Stroke::new(6.0, tone)));
                    for p in [at, end] {
                        shapes.push(egui::Shape::circle_filled(p, 3.5, tone));
                    }
                    pointer.is_some_and(|p| distance_to_segment(p, at, end) < 9.0)
                }
                None => {
                    shapes.push(egui::Shape::circle_filled(at, 6.0, SHADOW));
                    shapes.push(egui::Shape::circle_filled(at, 4.5, tone));
                    pointer.is_some_and(|p| p.distance(at) < 9.0)
                }
            };
            if near {
                hovered = Some(&mark.detail);
            }
            // Tags start on alternate sides of the path; `place_tags` keeps them apart.
            let mid = mark.until.map_or(at, |u| at + (view.to_screen(u) - at) * 0.5);
            let normal = points.windows(2).next().map_or(egui::vec2(0.0, -1.0), |w| {
                let d = (w[1] - w[0]).normalized();
                egui::vec2(-d.y, d.x)
            });
            tags.push((mid, if i % 2 == 0 { normal } else { -normal }, mark.label.clone(), tone));
        }
        if let Some(&start) = points.first()
            && pointer.is_some_and(|p| p.distance(start) < 9.0)
        {
            hovered = Some(&path.label);
        }
    }
    painter.extend(shapes);
    let galleys: Vec<_> = tags.iter().map(|(_, _, text, colour)| painter.layout_no_wrap(text.clone(), font.clone(), *colour)).collect();
    let asks: Vec<TagAsk> = tags.iter().zip(&galleys).map(|((at, away, _, _), g)| TagAsk { anchor: *at, size: g.size() + egui::vec2(4.0, 4.0), away: *away }).collect();
    for ((rect, galley), (_, _, _, colour)) in place_tags(&asks).into_iter().zip(galleys).zip(&tags) {
        painter.rect_filled(rect, 3.0, TAG_FILL);
        painter.galley(rect.min + egui::vec2(2.0, 2.0), galley, *colour);
    }
    if let (Some(text), Some(p)) = (hovered, pointer) {
        super::table_tooltip(&painter, p, text, font);
    }
    Ok(())
}

/// A tag to place: the point it names (a mark, or the middle of a stretch), its size with its
/// padding, and the side of the path it goes to (a unit vector), all on screen.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TagAsk {
    pub anchor: egui::Pos2,
    pub size: egui::Vec2,
    pub away: egui::Vec2,
}

/// Screen pixels kept between two tags.
const TAG_GAP: f32 = 3.0;
/// Screen pixels from a mark's centre line to its tag's near edge: clear of the 9-pixel bar.
const MARK_CLEAR: f32 = 8.0;

/// Where each tag goes: beside its anchor on its side of the path, its near edge `MARK_CLEAR`
/// off the anchor (clear of the bar drawn there), then pushed further out that way until it overlaps no tag placed before it. Two
/// marks on one stretch (the disorder and the volley of a charge over the same inches, which
/// alternate sides only while the path runs across the screen) stack outward instead of
/// overlapping, whatever way the path runs.
pub(crate) fn place_tags(asks: &[TagAsk]) -> Vec<egui::Rect> {
    let mut placed: Vec<egui::Rect> = Vec::with_capacity(asks.len());
    for ask in asks {
        let away = if ask.away.length() > 1e-3 { ask.away.normalized() } else { egui::vec2(0.0, -1.0) };
        // Half the tag's extent along `away`: how far its centre must be for its edge to clear the anchor.
        let half = (away.x.abs() * ask.size.x + away.y.abs() * ask.size.y) / 2.0;
        let mut distance = half + MARK_CLEAR;
        let mut rect = egui::Rect::from_center_size(ask.anchor + away * distance, ask.size);
        // Each step clears at least one pixel more; the bound only guards a bad input (NaN).
        for _ in 0..10_000 {
            let Some(hit) = placed.iter().find(|p| p.expand(TAG_GAP / 2.0).intersects(rect.expand(TAG_GAP / 2.0))) else { break };
            // Far enough along `away` to clear the tag in the way, measured on that axis.
            let past = (away.x.abs() * (hit.width() + ask.size.x) + away.y.abs() * (hit.height() + ask.size.y)) / 2.0;
            let along = (hit.center() - ask.anchor).dot(away);
            distance = (along + past + TAG_GAP).max(distance + 1.0);
            rect = egui::Rect::from_center_size(ask.anchor + away * distance, ask.size);
        }
        placed.push(rect);
    }
    placed
}

/// Screen distance from `p` to the segment `a`–`b`.
fn distance_to_segment(p: egui::Pos2, a: egui::Pos2, b: egui::Pos2) -> f32 {
    let ab = b - a;
    let t = if ab.length_sq() > 0.0 { ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0) } else { 0.0 };
    p.distance(a + ab * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The window asks the engine once a change, and keeps what a rule set that plans nothing
    // gives: nothing.
    #[test]
    fn paths_follow_the_game_and_a_rule_set_without_plans_draws_none() {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<crate::ui::table_view::Selection>()
            .init_resource::<View>()
            .insert_resource(crate::ui::session::Opening::Scenario { scenario: Box::new(crate::scenario::default_scenario()), source: "teaching".into() })
            .add_plugins(crate::ui::session::plugin)
            .init_resource::<Planned>()
            .add_systems(PostUpdate, crate::ui::overlays::refresh_view::<Planned>);
        app.update();
        app.world_mut().resource_mut::<Session>().autosave = None;
        app.update();
        let revision = app.world().resource::<Session>().revision;
        assert_eq!(app.world().resource::<Planned>().revision, Some(revision));
        assert!(app.world().resource::<Planned>().paths.is_empty(), "On to Philadelphia plans no path ahead");
        assert!(distance_to_segment(egui::pos2(5.0, 3.0), egui::pos2(0.0, 0.0), egui::pos2(10.0, 0.0)) - 3.0 < 1e-4);
    }

    // Issue 19: the automatic player's ways round the enemy's fire are drawn while the step of
    // play they were taken in lasts (its brigade's activation); a new step clears them.
    #[test]
    fn the_automatic_players_ways_last_their_step() {
        let way = |label: &str| PlannedPath { label: label.into(), cite: "automatic player".into(), side: 0, points: vec![Vec2::ZERO, Vec2::new(10.0, 20.0)], marks: Vec::new() };
        let mut ways = AutomaticWays::default();
        let step = "Tarleton's Brigade (chit 2) is phasing";
        ways.note(step, Some(way("71st")));
        ways.note(step, None);
        ways.note(step, Some(way("Legion")));
        assert_eq!(ways.now(step).iter().map(|p| p.label.as_str()).collect::<Vec<_>>(), ["71st", "Legion"]);
        assert!(ways.now("Howard's Continentals (chit 3) is phasing").is_empty(), "the game has moved on: drawn no more");
        ways.note("Howard's Continentals (chit 3) is phasing", None);
        assert!(ways.paths.is_empty(), "a new step clears the last one's");
    }

    // OR16-OR17's marks: the disorder and volley tags of a charge, on the same stretch or close
    // together, never overlap one another or cover their marks, whichever way the path runs
    // on the screen (across, up, slanting) and however many tags share the spot.
    #[test]
    fn tags_on_one_stretch_never_overlap() {
        let size = egui::vec2(58.0, 18.0);
        for d in [egui::vec2(1.0, 0.0), egui::vec2(0.0, 1.0), egui::vec2(0.6, 0.8), egui::vec2(-0.8, 0.6)] {
            let normal = egui::vec2(-d.y, d.x);
            for n in 2..=5 {
                // Marks a few pixels apart along the path, alternating sides as `draw` asks.
                let asks: Vec<TagAsk> = (0..n).map(|i| TagAsk { anchor: egui::pos2(300.0, 300.0) + d * (i as f32 * 4.0), size, away: if i % 2 == 0 { normal } else { -normal } }).collect();
                let rects = place_tags(&asks);
                assert_eq!(rects.len(), n);
                for (i, a) in rects.iter().enumerate() {
                    // Clear of its mark's bar (9 px wide about the anchor).
                    assert!(!a.expand(4.5).contains(asks[i].anchor), "{d:?}: tag {i} covers its mark");
                    assert!((a.size() - size).length() < 1e-3, "tags keep their size");
                    for b in &rects[i + 1..] {
                        assert!(!a.intersects(*b), "{d:?}, {n} tags: {a:?} overlaps {b:?}");
                    }
                }
            }
        }
        // The two-tag case of a vertical path: before, both sat 16 px either side of the line,
        // each 58 px wide, one over the other. Now they stand clear, each on its own side.
        let asks = [TagAsk { anchor: egui::pos2(100.0, 100.0), size, away: egui::vec2(1.0, 0.0) }, TagAsk { anchor: egui::pos2(100.0, 104.0), size, away: egui::vec2(-1.0, 0.0) }];
        let r = place_tags(&asks);
        assert!(r[0].left() > 100.0 && r[1].right() < 100.0, "{r:?}");
        // Both on one side: the second is stacked beyond the first.
        let asks = [TagAsk { anchor: egui::pos2(100.0, 100.0), size, away: egui::vec2(0.0, -1.0) }, TagAsk { anchor: egui::pos2(102.0, 100.0), size, away: egui::vec2(0.0, -1.0) }];
        let r = place_tags(&asks);
        assert!(r[1].bottom() <= r[0].top(), "{r:?}");
    }
}
