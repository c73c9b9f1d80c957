#!/usr/bin/env python3
"""The OTP eligibility matrix (8.1 range and 45-degree arcs, 8.4 measuring, 8.8 sight) computed
independently with shapely, on the battle the Rust `eligibility` bench generates, and compared
with the Rust answer pair by pair (issue #20).

Requires: Python 3.9+ and shapely 2 (`pip install -r tools/requirements.txt`).

    python3 tools/eligibility_shapely.py            # runs the bench's export, then compares
    python3 tools/eligibility_shapely.py FILE.json  # compares an export already written

The export (`OTP_ELIGIBILITY_EXPORT=FILE cargo bench --no-default-features --bench
eligibility`) holds each stand's centre, facing, frontage, depth and figures, the terrain as
the scenario gives it, each unit's fire mode and reach (numbers from the OTP charts: 8.1, 8.3,
8.4), the Rust matrix and the Rust time for one matrix. Everything geometric is worked out here
from the text, not from the Rust code:

- a stand's corners from its centre, compass facing (0 = up the table, clockwise), frontage, depth;
- 8.1 arc: the ground ahead of the front edge, out to 45 degrees beyond each end; a formed unit's
  front runs between the outer front corners of its end stands (a column's is its head stand),
  a skirmish line or bent line measures from each stand; a target is in the arc when some of it
  (more than a boundary touched) lies inside;
- 8.4 range: edge to edge, partial inches rounded up; a stand bears when the part of the target
  inside its arc is within its reach;
- 8.8 sight: a line from the firing stand's centre to a point of the target (corners, and points
  at most 1" apart along each edge) is blocked by a stand of any other unit it crosses, by a
  town or building it crosses between its ends (unless the firer is on higher ground and the
  building is nearer the firer than the target), and by a hill higher than both of its ends;
  woods and crops do not block (8.7 is a visibility roll). The target is seen when any line is
  clear; the stands and figures that bear and see are the ones that fire.

Exit status 0 when every pair agrees, 1 on a disagreement, 2 when shapely is missing.
"""

import json
import math
import os
import subprocess
import sys
import time

try:
    import shapely
    from shapely.geometry import LineString, Point, Polygon
except ImportError:
    sys.stderr.write("tools/eligibility_shapely.py needs shapely 2: pip install -r tools/requirements.txt\n")
    sys.exit(2)

EPS = 1e-3  # the table's tolerance (inches), as src/table/geom.rs
AREA_EPS = 1e-5  # less than this (square inches) inside an arc is a boundary touched
FAR = 1000.0  # beyond any table: the arc's sides are drawn this long


def bearing(deg):
    r = math.radians(deg)
    return (math.sin(r), math.cos(r))


def add(p, v, k=1.0):
    return (p[0] + v[0] * k, p[1] + v[1] * k)


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1]


class Stand:
    def __init__(self, d, widen=0.0):
        self.centre = tuple(d["centre"])
        self.facing = d["facing"]
        self.figures = d["figures"]
        fwd, right = bearing(self.facing), bearing(self.facing + 90.0)
        self.fwd, self.right = fwd, right
        half = d["frontage"] / 2.0 + widen
        front = add(self.centre, fwd, d["depth"] / 2.0)
        self.front_left = add(front, right, -half)
        self.front_right = add(front, right, half)
        rear_left = add(self.front_left, fwd, -d["depth"])
        rear_right = add(self.front_right, fwd, -d["depth"])
        self.corners = [self.front_right, self.front_left, rear_left, rear_right]
        self.poly = Polygon(self.corners)


def arc(front_left, front_right, facing):
    """8.1: ahead of the front edge, out to 45 degrees beyond each end."""
    return Polygon([front_left, add(front_left, bearing(facing - 45.0), FAR), add(front_right, bearing(facing + 45.0), FAR), front_right])


def unit_arc(stands, column):
    head = stands[0]
    if column:
        return arc(head.front_left, head.front_right, head.facing)
    left = min((s.front_left for s in stands), key=lambda p: dot(p, head.right))
    right = max((s.front_right for s in stands), key=lambda p: dot(p, head.right))
    return arc(left, right, head.facing)


def measured(distance):
    """8.4: partial inches round up."""
    return max(math.ceil(distance - EPS), 0)


def within(distance, reach):
    return reach is not None and measured(distance) <= reach + EPS


def terrain_polygons(terrain):
    """(kind, name, polygon, elevation) of every area feature that matters to sight."""
    out = []
    for t in terrain:
        (kind, f), = t.items()
        if kind == "Building":
            st = Stand({"centre": f["at"], "facing": f["facing"], "frontage": f["size"][0], "depth": f["size"][1], "figures": 0})
            out.append(("blocks", f["name"], st.poly, 0))
        elif kind == "Town":
            out.append(("blocks", f["name"], Polygon(f["outline"]), 0))
        elif kind == "Hill":
            out.append(("hill", f["name"], Polygon(f["outline"]), f["elevation"]))
    return out


def pieces(line, poly):
    """The stretches of `line` inside `poly`, as (t0, t1) fractions of its length."""
    inter = line.intersection(poly)
    geoms = getattr(inter, "geoms", [inter])
    out = []
    for g in geoms:
        if g.geom_type == "LineString" and not g.is_empty:
            ts = sorted(line.project(Point(c), normalized=True) for c in g.coords)
            out.append((ts[0], ts[-1]))
    return out


class Battle:
    def __init__(self, doc):
        self.units = doc["units"]
        self.stands = [[Stand(s) for s in u["stands"]] for u in self.units]
        # 8.8: a line of stands touching end to end lets no sight line slip between them.
        self.walls = [[Stand(s, widen=EPS) for s in u["stands"]] for u in self.units]
        self.features = terrain_polygons(doc["terrain"])
        self.hills = [(p, e) for kind, _, p, e in self.features if kind == "hill"]

    def ground(self, p):
        pt = Point(p)
        return max([e for poly, e in self.hills if poly.covers(pt)], default=0)

    def samples(self, target):
        out = []
        for st in self.stands[target]:
            c = st.corners
            for i in range(4):
                a, b = c[i], c[(i + 1) % 4]
                n = max(math.ceil(math.dist(a, b) - EPS), 1)
                out.extend((a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n) for k in range(n))
        return out

    def clear(self, firer, a, target, b):
        length = math.dist(a, b)
        if length <= EPS:
            return True
        line = LineString([a, b])
        for u, walls in enumerate(self.walls):
            if u in (firer, target):
                continue
            for w in walls:
                if line.intersection(w.poly).length > EPS:
                    return False
        ea = self.ground(a)
        eb = None
        for kind, _, poly, e in self.features:
            if not line.intersects(poly):
                continue
            if kind == "hill":
                if e <= ea:
                    continue
                if eb is None:
                    eb = self.ground(b)
                if e <= eb:
                    continue
            for t0, t1 in pieces(line, poly):
                if (t1 - t0) * length <= EPS:
                    continue
                if kind == "hill":
                    return False
                mid = (a[0] + (b[0] - a[0]) * (t0 + t1) / 2, a[1] + (b[1] - a[1]) * (t0 + t1) / 2)
                seen_over = ea > self.ground(mid) and t1 < 0.5
                if t0 * length > EPS and t1 * length < length - EPS and not seen_over:
                    return False
        return True

    def assess(self, f, t):
        """(range, in_range, in_arc, stands_bearing, figures_bearing, stands_firing, figures_firing)."""
        fu = self.units[f]
        mode, reach = fu["mode"], fu["reach"]
        fs, ts = self.stands[f], self.stands[t]
        whole = unit_arc(fs, fu["column"]) if mode == "Unit" else None
        rng = min(a.poly.distance(b.poly) for a in fs for b in ts)
        in_arc_any = False
        counts = [0, 0, 0, 0]
        samples = None
        for st in fs:
            area = whole if mode == "Unit" else (arc(st.front_left, st.front_right, st.facing) if mode == "PerStand" else None)
            if area is None:
                continue
            to_unit = min(st.poly.distance(b.poly) for b in ts)
            may_bear = within(to_unit, reach)
            in_arc = bears = False
            for b in ts:
                part = b.poly.intersection(area)
                if part.is_empty or part.area <= AREA_EPS:
                    continue
                in_arc = True
                if may_bear and within(st.poly.distance(part), reach):
                    bears = True
                    break
            in_arc_any |= in_arc
            if bears:
                counts[0] += 1
                counts[1] += st.figures
                if samples is None:
                    samples = self.samples(t)
                if any(self.clear(f, st.centre, t, p) for p in samples):
                    counts[2] += 1
                    counts[3] += st.figures
        return rng, within(rng, reach), in_arc_any, *counts

    def matrix(self):
        out = {}
        for f, fu in enumerate(self.units):
            if fu["mode"] == "None" or fu["reach"] is None:
                continue
            for t, tu in enumerate(self.units):
                if tu["side"] == fu["side"]:
                    continue
                # Units whose centres are far beyond any reach: skip the polygons (as a user would).
                fc, tc = self.stands[f][0].centre, self.stands[t][0].centre
                if math.dist(fc, tc) > fu["reach"] + 30.0:
                    continue
                r = self.assess(f, t)
                if r[1]:
                    out[(f, t)] = r
        return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(sys.argv) > 1:
        path = sys.argv[1]
    else:
        path = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target")), "eligibility-battle.json")
        env = dict(os.environ, OTP_ELIGIBILITY_EXPORT=path)
        subprocess.run(["cargo", "bench", "--no-default-features", "--bench", "eligibility"], cwd=root, env=env, check=True)
    with open(path) as f:
        doc = json.load(f)
    battle = Battle(doc)
    started = time.perf_counter()
    ours = battle.matrix()
    seconds = time.perf_counter() - started
    rust = {(e["firer"], e["target"]): e for e in doc["rust"]["matrix"]}
    name = lambda i: battle.units[i]["name"]
    disagreements = []
    for pair in sorted(set(ours) | set(rust)):
        o, r = ours.get(pair), rust.get(pair)
        if o is None or r is None:
            disagreements.append(f"{name(pair[0])} -> {name(pair[1])}: in range: rust {r is not None}, shapely {o is not None}"
                                 + (f" (rust range {r['range']:.4f})" if r else f" (shapely range {o[0]:.4f})"))
            continue
        mine = {"in_arc": o[2], "stands_bearing": o[3], "figures_bearing": o[4], "stands_firing": o[5], "figures_firing": o[6]}
        theirs = {k: r[k] for k in mine}
        if mine != theirs or abs(o[0] - r["range"]) > 1e-3:
            disagreements.append(f"{name(pair[0])} -> {name(pair[1])}: rust range {r['range']:.4f} {theirs}; shapely range {o[0]:.4f} {mine}")
    rust_s = doc["rust"]["seconds"]
    print(f"{len(battle.units)} units; pairs in range: rust {len(rust)}, shapely {len(ours)}; {len(set(ours) | set(rust))} pairs compared")
    if doc["rust"]["runs"]:
        print(f"time for the matrix: rust {rust_s * 1e3:.3f} ms (mean of {doc['rust']['runs']}), python+shapely {shapely.__version__} {seconds * 1e3:.1f} ms; rust {seconds / rust_s:.0f}x faster")
    else:  # the geometry test's export: a comparison, not a timing
        print(f"time for the matrix: python+shapely {shapely.__version__} {seconds * 1e3:.1f} ms (rust not timed in this export)")
    for d in disagreements:
        print("DISAGREE", d)
    print(f"{len(disagreements)} disagreements")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
