#!/usr/bin/env python3
"""The automatic players' round robin (issue 19, docs/bot.md): every level against every level,
playing both sides, on each scenario given, N seeded games a pairing through `otp simulate`.

    python3 tools/round_robin.py --games 200 scenarios/teaching.ron scenarios/cowpens.ron ...

Prints Markdown: a table a scenario (wins, draws, mean figures lost, the historical winner's
share, refusals), then the stronger level's share of the decided games of each unequal pairing.
Only the standard library; `otp` is target/release/otp unless --otp says otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

LEVELS = ["novice", "standard", "strong"]


def history_winner(path):
    """The `history.winner` of a scenario file, read without a RON parser (its one `winner:`)."""
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if s.startswith("winner:"):
            return s.split('"')[1] if '"' in s else None
    return None


def play(otp, scenario, games, first, second):
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
        log = f.name
    try:
        subprocess.run([otp, "simulate", scenario, "--games", str(games), "--seed", "1", "--bot", f"{first}:{second}", "--log", log], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return [json.loads(line) for line in open(log, encoding="utf-8") if line.strip()]
    finally:
        os.unlink(log)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenarios", nargs="+")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--otp", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "otp"))
    a = p.parse_args()
    rank = {l: i for i, l in enumerate(LEVELS)}
    pairs = [(x, x) for x in LEVELS] + [(x, y) for x in LEVELS for y in LEVELS if x != y]
    summary = []
    # [scenario][side][level] -> (wins, games): how a level does on a side against every level.
    by_side = {}
    for scenario in a.scenarios:
        name = os.path.splitext(os.path.basename(scenario))[0]
        hist = history_winner(scenario)
        print(f"### {name}\n\n{a.games} games a pairing, seeds 1–{a.games}. Historical winner: {hist or 'none named'}.\n")
        sides = None
        rows = []
        for first, second in pairs:
            out = play(a.otp, scenario, a.games, first, second)
            sides = sides or [s["side"] for s in out[0]["sides"]]
            wins = [sum(1 for o in out if o["winner"] == i) for i in range(2)]
            draws = sum(1 for o in out if o["winner"] is None)
            lost = [sum(o["sides"][i]["figures_lost"] for o in out) / len(out) for i in range(2)]
            hist_share = f"{100 * wins[sides.index(hist)] / len(out):.0f}%" if hist in (sides or []) else "—"
            refusals = sum(o["refusals"] for o in out)
            for side, level in ((0, first), (1, second)):
                w, n = by_side.setdefault(name, [{}, {}])[side].get(level, (0, 0))
                by_side[name][side][level] = (w + wins[side], n + len(out))
            rows.append(f"| {first} | {second} | {wins[0]} | {wins[1]} | {draws} | {lost[0]:.1f} / {lost[1]:.1f} | {hist_share} | {refusals} |")
            if first != second:
                strong_first = rank[first] > rank[second]
                sw, ww = (wins[0], wins[1]) if strong_first else (wins[1], wins[0])
                summary.append((name, first, second, sw, ww, "first" if strong_first else "second"))
            else:
                summary.append((name, first, second, wins[0], wins[1], "equal", draws, len(out)))
            print(f"  {name} {first}:{second} done", file=sys.stderr)
        print(f"| {sides[0]} | {sides[1]} | {sides[0]} wins | {sides[1]} wins | draws | mean figures lost {sides[0]} / {sides[1]} | historical result | refusals |")
        print("|---|---|---:|---:|---:|---|---:|---:|")
        print("\n".join(rows) + "\n")
    print("### Stronger against weaker, decided games\n")
    print("| scenario | pairing (first : second side) | stronger plays | stronger wins | weaker wins | stronger's share of decided |")
    print("|---|---|---|---:|---:|---:|")
    tot = {"first": [0, 0], "second": [0, 0]}
    for row in summary:
        if row[5] == "equal":
            continue
        name, first, second, sw, ww, where = row
        tot[where][0] += sw
        tot[where][1] += ww
        share = f"{100 * sw / (sw + ww):.0f}%" if sw + ww else "—"
        print(f"| {name} | {first} : {second} | {where} side | {sw} | {ww} | {share} |")
    for where, (sw, ww) in tot.items():
        print(f"| **all** | | {where} side | {sw} | {ww} | {100 * sw / max(1, sw + ww):.0f}% |")
    print("\n### Each level on each side, against all three levels\n")
    print("| scenario | side | novice wins | standard wins | strong wins |")
    print("|---|---|---:|---:|---:|")
    for name, per_side in by_side.items():
        for side, levels in enumerate(per_side):
            cells = " | ".join(f"{100 * levels[l][0] / levels[l][1]:.0f}%" for l in LEVELS)
            print(f"| {name} | {'first' if side == 0 else 'second'} | {cells} |")
    print("\n### Equal levels\n")
    print("| scenario | level | first side wins | second side wins | draws |")
    print("|---|---|---:|---:|---:|")
    for row in summary:
        if row[5] == "equal":
            name, first, _, w0, w1, _, draws, n = row
            print(f"| {name} | {first} | {w0} | {w1} | {draws} ({100 * draws / n:.0f}%) |")


if __name__ == "__main__":
    main()
