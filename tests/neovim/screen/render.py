"""Renders a `tmux capture-pane -p -e` capture (text with SGR colour
escapes) to a PNG, cell by cell in a monospace font.

    python render.py SCREEN.ansi OUT.png [COLUMNS ROWS]

Needs Pillow and the DejaVu Sans Mono font (Debian's fonts-dejavu-core).
"""

import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 15
# Neovim 0.11's default dark colour scheme: Normal's background and text.
DEFAULT_BG = (20, 22, 27)
DEFAULT_FG = (224, 226, 234)
BASIC = [
    (7, 8, 13), (255, 132, 148), (179, 246, 192), (252, 227, 152),
    (166, 219, 255), (255, 202, 255), (140, 248, 247), (224, 226, 234),
]
SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def color_256(n):
    if n < 8:
        return BASIC[n]
    if n < 16:
        return BASIC[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    level = 8 + (n - 232) * 10
    return (level, level, level)


def apply_sgr(params, style):
    codes = [int(p) if p else 0 for p in re.split("[;:]", params)] if params else [0]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 0:
            style.update(fg=None, bg=None, bold=False, underline=False, reverse=False)
        elif code == 1:
            style["bold"] = True
        elif code == 22:
            style["bold"] = False
        elif code in (4, 21):
            style["underline"] = True
        elif code == 24:
            style["underline"] = False
        elif code == 7:
            style["reverse"] = True
        elif code == 27:
            style["reverse"] = False
        elif 30 <= code <= 37:
            style["fg"] = BASIC[code - 30]
        elif 90 <= code <= 97:
            style["fg"] = BASIC[code - 90]
        elif 40 <= code <= 47:
            style["bg"] = BASIC[code - 40]
        elif 100 <= code <= 107:
            style["bg"] = BASIC[code - 100]
        elif code == 39:
            style["fg"] = None
        elif code == 49:
            style["bg"] = None
        elif code in (38, 48) and i + 1 < len(codes):
            key = "fg" if code == 38 else "bg"
            if codes[i + 1] == 2 and i + 4 < len(codes):
                style[key] = tuple(codes[i + 2 : i + 5])
                i += 4
            elif codes[i + 1] == 5 and i + 2 < len(codes):
                style[key] = color_256(codes[i + 2])
                i += 2
        i += 1


def cells(text):
    """Rows of (char, style) cells."""
    style = dict(fg=None, bg=None, bold=False, underline=False, reverse=False)
    rows = []
    for line in text.split("\n"):
        row = []
        pos = 0
        for match in SGR.finditer(line):
            for ch in line[pos : match.start()]:
                row.append((ch, dict(style)))
            apply_sgr(match.group(1), style)
            pos = match.end()
        for ch in line[pos:]:
            row.append((ch, dict(style)))
        rows.append(row)
    while rows and not rows[-1]:
        rows.pop()
    return rows


def render(text, out, columns=None, rows_wanted=None):
    regular = ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", SIZE)
    bold = ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", SIZE)
    width = round(regular.getlength("M"))
    height = SIZE + 5
    grid = cells(text)
    columns = columns or max(len(r) for r in grid)
    rows_wanted = rows_wanted or len(grid)
    pad = 8
    image = Image.new("RGB", (columns * width + 2 * pad, rows_wanted * height + 2 * pad), DEFAULT_BG)
    draw = ImageDraw.Draw(image)
    for y, row in enumerate(grid[:rows_wanted]):
        for x, (ch, style) in enumerate(row[:columns]):
            fg = style["fg"] or DEFAULT_FG
            bg = style["bg"] or DEFAULT_BG
            if style["reverse"]:
                fg, bg = bg, fg
            left, top = pad + x * width, pad + y * height
            if bg != DEFAULT_BG:
                draw.rectangle([left, top, left + width - 1, top + height - 1], fill=bg)
            if ch != " ":
                draw.text((left, top + 2), ch, font=bold if style["bold"] else regular, fill=fg)
            if style["underline"]:
                draw.line([left, top + height - 3, left + width - 1, top + height - 3], fill=fg)
    # Few colours: a palette PNG is a fraction of the size.
    image.quantize(colors=64).save(out, optimize=True)


if __name__ == "__main__":
    source, target = sys.argv[1], sys.argv[2]
    size = [int(a) for a in sys.argv[3:5]] if len(sys.argv) >= 5 else [None, None]
    with open(source, encoding="utf-8") as f:
        render(f.read(), target, *size)
