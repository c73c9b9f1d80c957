//! The table's unchanging layer (cloth, terrain, grid) rasterised once on the CPU with tiny-skia
//! from the same picture shapes, into one texture that egui draws as a single image under the
//! troops. It is painted again only when the battlefield or the zoom changes, or the view leaves
//! the painted region: a software renderer (llvmpipe) cannot afford to fill thousands of
//! overlapping anti-aliased terrain triangles every frame, and a drag need not repaint them.
//!
//! Not a plugin: `table_view` owns the `Backdrop` resource and calls `draw`.

use std::time::{Duration, Instant};

use bevy::math::Vec2;
use bevy::prelude::Resource;
use bevy_egui::egui::{self, Color32, Rect};
use resvg::tiny_skia::{self, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, StrokeDash, Transform};

use super::camera::View;
use super::paint::{self, Prepared};
use crate::picture::Shape;

/// The longest side of the texture, in pixels; beyond it only the view and a margin are painted.
const MAX_SIDE: f32 = 4096.0;
/// Margin painted around the view when the whole table would be too large, as a share of the
/// view's size on each side: panning that far needs no new painting.
const MARGIN: f32 = 0.5;
/// How far past the table's edge the layer reaches (the edge's stroke), inches.
const BLEED: f32 = 0.5;

/// What the texture shows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Painted {
    /// The table region, inches.
    lo: Vec2,
    hi: Vec2,
    /// Screen points an inch, and physical pixels a point, it was painted at.
    ppi: f32,
    pixels_per_point: f32,
    /// `TableCache`'s count of rebuilds: a new battlefield is painted afresh.
    generation: u64,
    /// The pixmap's size.
    pixels: [usize; 2],
}

/// The static layer's texture and what it shows.
#[derive(Resource, Default)]
pub(crate) struct Backdrop {
    texture: Option<egui::TextureHandle>,
    painted: Option<Painted>,
    /// How many times it was painted, and how long the last painting took (rasterising and
    /// handing the pixels to egui): figures for docs/performance.md.
    pub paintings: u32,
    pub last_paint: Duration,
    /// `OTP_BACKDROP=vector`: paint the terrain as shapes every frame, as before the layer was
    /// cached (a frame-cost comparison, docs/performance.md).
    vector: Option<bool>,
}

impl Backdrop {
    /// False under `OTP_BACKDROP=vector`.
    pub fn cached(&mut self) -> bool {
        !*self.vector.get_or_insert_with(|| std::env::var("OTP_BACKDROP").is_ok_and(|v| v == "vector"))
    }

    /// The static layer for this view, as one image shape (painted again first if it must be).
    pub fn draw(&mut self, ctx: &egui::Context, view: &View, body: &[Prepared], generation: u64, (width, depth): (f32, f32), out: &mut Vec<egui::Shape>) {
        let ppp = ctx.pixels_per_point();
        let table_lo = Vec2::splat(-BLEED);
        let table_hi = Vec2::new(width + BLEED, depth + BLEED);
        let seen_lo = view.to_table(view.rect.left_bottom()).max(table_lo);
        let seen_hi = view.to_table(view.rect.right_top()).min(table_hi);
        if seen_lo.x >= seen_hi.x || seen_lo.y >= seen_hi.y {
            return;
        }
        let fresh = self.painted.is_some_and(|p| {
            p.generation == generation && p.ppi == view.ppi && p.pixels_per_point == ppp && p.lo.cmple(seen_lo).all() && p.hi.cmpge(seen_hi).all()
        });
        if !fresh || self.texture.is_none() {
            let k = view.ppi * ppp;
            let (lo, hi) = if (table_hi - table_lo).max_element() * k <= MAX_SIDE {
                (table_lo, table_hi)
            } else {
                let margin = (seen_hi - seen_lo) * MARGIN;
                let (lo, hi) = ((seen_lo - margin).max(table_lo), (seen_hi + margin).min(table_hi));
                // Never more than MAX_SIDE pixels a side: the margin gives way first.
                let over = ((hi - lo) * k - Vec2::splat(MAX_SIDE)).max(Vec2::ZERO) / k / 2.0;
                (lo + over, hi - over)
            };
            let started = Instant::now();
            let Some(image) = rasterise(body, view.ppi, ppp, lo, hi) else { return };
            let pixels = image.size;
            match &mut self.texture {
                Some(t) => t.set(image, egui::TextureOptions::LINEAR),
                None => self.texture = Some(ctx.load_texture("table_backdrop", image, egui::TextureOptions::LINEAR)),
            }
            self.painted = Some(Painted { lo, hi, ppi: view.ppi, pixels_per_point: ppp, generation, pixels });
            self.paintings += 1;
            self.last_paint = started.elapsed();
        }
        let (Some(p), Some(texture)) = (self.painted, &self.texture) else { return };
        // Pixel-aligned, so that at the zoom it was painted for each texel is one pixel: no blur.
        let min = view.to_screen(Vec2::new(p.lo.x, p.hi.y));
        let min = egui::pos2((min.x * ppp).round() / ppp, (min.y * ppp).round() / ppp);
        let size = egui::vec2(p.pixels[0] as f32, p.pixels[1] as f32) / ppp * (view.ppi / p.ppi);
        let uv = Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
        out.push(egui::Shape::image(texture.id(), Rect::from_min_size(min, size), uv, Color32::WHITE));
    }
}

fn colour(c: Color32) -> tiny_skia::Color {
    let [r, g, b, a] = c.to_srgba_unmultiplied();
    tiny_skia::Color::from_rgba8(r, g, b, a)
}

fn paint_of(c: Color32) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(colour(c));
    p.anti_alias = true;
    p
}

/// The table region `lo..hi` (inches) at `ppi` points an inch and `ppp` pixels a point, with the
/// window's own rules for strokes at this zoom (`paint::screen_stroke`), labels left out.
fn rasterise(body: &[Prepared], ppi: f32, ppp: f32, lo: Vec2, hi: Vec2) -> Option<egui::ColorImage> {
    let k = ppi * ppp;
    let (w, h) = (((hi.x - lo.x) * k).ceil().max(1.0) as u32, ((hi.y - lo.y) * k).ceil().max(1.0) as u32);
    let mut pixmap = Pixmap::new(w, h)?;
    // Inches to pixels, y down.
    let px = |p: Vec2| ((p.x - lo.x) * k, (hi.y - p.y) * k);
    let path = |points: &[Vec2], close: bool| {
        let mut b = PathBuilder::new();
        for (i, &p) in points.iter().enumerate() {
            let (x, y) = px(p);
            if i == 0 { b.move_to(x, y) } else { b.line_to(x, y) }
        }
        if close {
            b.close();
        }
        b.finish()
    };
    let stroke = |pixmap: &mut Pixmap, path: &tiny_skia::Path, s: &crate::picture::Stroke| {
        let es = paint::screen_stroke(s, ppi);
        let mut st = tiny_skia::Stroke { width: es.width * ppp, line_cap: LineCap::Butt, line_join: LineJoin::Round, ..Default::default() };
        if let Some(d) = s.dash {
            let dash = (d * ppi).max(2.0) * ppp;
            st.dash = StrokeDash::new(vec![dash, dash], 0.0);
        }
        pixmap.stroke_path(path, &paint_of(es.color), &st, Transform::identity(), None);
    };
    for p in body {
        let s = &p.shape;
        if paint::hidden_at(s, ppi) {
            continue;
        }
        match s {
            Shape::Polygon { points, fill, stroke: st } => {
                let Some(outline) = path(points, true) else { continue };
                if let Some(f) = fill {
                    pixmap.fill_path(&outline, &paint_of(paint::colour(*f)), FillRule::Winding, Transform::identity(), None);
                }
                if let Some(st) = st {
                    stroke(&mut pixmap, &outline, st);
                }
            }
            Shape::Line { points, stroke: st } => {
                if let Some(line) = path(points, false) {
                    stroke(&mut pixmap, &line, st);
                }
            }
            Shape::Circle { centre, radius, fill, stroke: st } => {
                let (x, y) = px(*centre);
                let Some(disc) = PathBuilder::from_circle(x, y, (radius * k).max(0.5)) else { continue };
                if let Some(f) = fill {
                    pixmap.fill_path(&disc, &paint_of(paint::colour(*f)), FillRule::Winding, Transform::identity(), None);
                }
                if let Some(st) = st {
                    stroke(&mut pixmap, &disc, st);
                }
            }
            Shape::Label { .. } => {}
        }
    }
    Some(egui::ColorImage::from_rgba_premultiplied([w as usize, h as usize], pixmap.data()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layer_is_painted_once_per_zoom_and_shows_the_cloth() {
        let scenario = crate::scenario::default_scenario();
        let picture = crate::picture::table(&scenario);
        let body: Vec<Prepared> = picture.shapes.into_iter().filter(|s| !matches!(s, Shape::Label { .. })).map(Prepared::new).collect();
        let ctx = egui::Context::default();
        let mut view = View { rect: Rect::from_min_size(egui::pos2(0.0, 40.0), egui::vec2(1000.0, 600.0)), ..View::default() };
        view.fit(picture.width, picture.depth);
        let mut backdrop = Backdrop::default();
        let mut out = Vec::new();
        let output = ctx.run_ui(egui::RawInput::default(), |_| {
            backdrop.draw(&ctx, &view, &body, 1, (picture.width, picture.depth), &mut out);
            // The same view again, and a pan: nothing new to paint.
            backdrop.draw(&ctx, &view, &body, 1, (picture.width, picture.depth), &mut out);
            view.pan_by_screen(egui::vec2(30.0, -20.0));
            backdrop.draw(&ctx, &view, &body, 1, (picture.width, picture.depth), &mut out);
            assert_eq!(backdrop.paintings, 1);
            // A new zoom, and a new battlefield, are painted afresh.
            view.zoom_at(view.rect.center(), 1.2);
            backdrop.draw(&ctx, &view, &body, 1, (picture.width, picture.depth), &mut out);
            backdrop.draw(&ctx, &view, &body, 2, (picture.width, picture.depth), &mut out);
            assert_eq!(backdrop.paintings, 3);
        });
        output.drop_without_applying_deltas();
        assert_eq!(out.len(), 5, "one image a frame");
        // The pixels: cloth in the middle of an empty stretch of the table, the table's edge.
        let image = rasterise(&body, 12.0, 1.0, Vec2::splat(-BLEED), Vec2::new(picture.width, picture.depth) + BLEED).expect("an image");
        assert_eq!(image.size, [((picture.width + 1.0) * 12.0).ceil() as usize, ((picture.depth + 1.0) * 12.0).ceil() as usize]);
        let at = |x: f32, y: f32| image.pixels[((picture.depth + BLEED - y) * 12.0) as usize * image.size[0] + ((x + BLEED) * 12.0) as usize];
        let cloth = crate::picture::palette::CLOTH;
        let c = at(36.5, 44.5).to_array();
        assert!((0..3).all(|i| (c[i] as i32 - cloth[i] as i32).abs() <= 12), "{c:?}");
        assert_eq!(at(-0.45, 20.0).a(), 0, "outside the table the window's background shows");
    }
}
