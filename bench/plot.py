#!/usr/bin/env python3
"""Draw the timelines that `compare_run.py --timeline FILE` recorded: one SVG
per crate, mutants finished over time, cargo-mutants and mutiny on the same
axes. Plain SVG, no plotting library needed.

Usage:
    bench/plot.py TIMELINE_FILE OUT_DIR

Writes OUT_DIR/CRATE.svg for each JSON line (a later line for the same crate
replaces an earlier one) and prints the files written.
"""

import json
import os
import sys

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 60, 20, 30, 50
COLOURS = {"cargo-mutants": "#c0392b", "mutiny": "#2471a3"}


def nice_step(span, target=6):
    """A round tick step giving about `target` ticks over `span`."""
    raw = max(span, 1e-9) / target
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def svg(record):
    tools = [t for t in ("cargo-mutants", "mutiny") if t in record]
    max_t = max(record[t]["seconds"] for t in tools) or 1
    max_n = max(max(n for _, n in record[t]["timeline"]) for t in tools) or 1
    x = lambda t: LEFT + (WIDTH - LEFT - RIGHT) * t / max_t
    y = lambda n: HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * n / max_n
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="18" text-anchor="middle" font-size="14">'
           f'{record["crate"]}: mutants finished over time (-j {record["jobs"]})</text>']
    step = nice_step(max_t)
    t = 0.0
    while t <= max_t + 1e-9:
        out.append(f'<line x1="{x(t):.1f}" y1="{TOP}" x2="{x(t):.1f}" y2="{HEIGHT - BOTTOM}" stroke="#eee"/>')
        out.append(f'<text x="{x(t):.1f}" y="{HEIGHT - BOTTOM + 15}" text-anchor="middle">{t:g}</text>')
        t += step
    step = nice_step(max_n)
    n = 0.0
    while n <= max_n + 1e-9:
        out.append(f'<line x1="{LEFT}" y1="{y(n):.1f}" x2="{WIDTH - RIGHT}" y2="{y(n):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(n) + 4:.1f}" text-anchor="end">{n:g}</text>')
        n += step
    out.append(f'<text x="{WIDTH / 2}" y="{HEIGHT - 12}" text-anchor="middle">seconds</text>')
    out.append(f'<text x="16" y="{HEIGHT / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {HEIGHT / 2})">mutants finished</text>')
    for index, tool in enumerate(tools):
        points = []
        last = 0
        for t, count in record[tool]["timeline"]:
            points.append(f"{x(t):.1f},{y(last):.1f}")
            points.append(f"{x(t):.1f},{y(count):.1f}")
            last = count
        points.append(f"{x(record[tool]['seconds']):.1f},{y(last):.1f}")
        colour = COLOURS[tool]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(points)}"/>')
        label_y = TOP + 16 + 16 * index
        out.append(f'<line x1="{LEFT + 10}" y1="{label_y - 4}" x2="{LEFT + 30}" y2="{label_y - 4}" '
                   f'stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{LEFT + 36}" y="{label_y}">{tool}: {record[tool]["seconds"]:.1f} s</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    records = {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                records[record["crate"]] = record
    os.makedirs(sys.argv[2], exist_ok=True)
    for crate, record in records.items():
        path = os.path.join(sys.argv[2], f"{crate}.svg")
        with open(path, "w") as f:
            f.write(svg(record))
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
