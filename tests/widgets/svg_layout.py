"""Where the texts of a generated SVG fall: boxes estimated from font size and
character count, so a test can tell that no two texts overlap without a browser.

The estimate is generous (0.6 of the font size per character, 0.64 in bold: wider
than the digits and most letters of any sans-serif), so a layout that passes here has
room to spare in a browser.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Rect", "TextBox", "layout_of", "overlaps"]


@dataclass(frozen=True)
class Rect:
    x0: float
    y0: float
    x1: float
    y1: float

    def intersects(self, other: Rect) -> bool:
        return (self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1
                and other.y0 < self.y1)

    def inside(self, other: Rect) -> bool:
        return (self.x0 >= other.x0 and self.x1 <= other.x1 and self.y0 >= other.y0
                and self.y1 <= other.y1)


@dataclass
class TextBox:
    text: str
    rect: Rect
    box: str  # the diagram box it is drawn in ("" outside any)


@dataclass
class Layout:
    texts: list[TextBox] = field(default_factory=list)
    boxes: dict[str, Rect] = field(default_factory=dict)
    lines: list[tuple[tuple[float, float], tuple[float, float]]] = field(default_factory=list)
    heads: list[Rect] = field(default_factory=list)  # arrowheads


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.layout = Layout()
        self.group = ""
        self.text: dict[str, str] | None = None
        self.runs: list[tuple[float, float, str, float, bool]] = []  # x, y, text, size, bold
        self.cursor: tuple[float, float] = (0.0, 0.0)
        self.bold: list[bool] = []
        self.depth_in_title = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "g" and "data-box" in a:
            self.group = a["data-box"]
        elif tag == "rect" and self.group:
            x, y = float(a["x"]), float(a["y"])
            self.layout.boxes[self.group] = Rect(x, y, x + float(a["width"]),
                                                 y + float(a["height"]))
        elif tag == "polyline":
            pts = [tuple(map(float, p.split(","))) for p in a["points"].split()]
            self.layout.lines += list(itertools.pairwise(pts))
            ends = [pts[-1]] + ([pts[0]] if "marker-start" in a else [])
            self.layout.heads += [Rect(x - 6, y - 6, x + 6, y + 6) for x, y in ends]
        elif tag == "title":
            self.depth_in_title += 1
        elif tag == "text":
            self.text = a
            self.runs = []
            self.cursor = (float(a["x"]), float(a["y"]))
            self.bold = [a.get("font-weight") == "bold"]
        elif tag == "tspan" and self.text is not None:
            x, y = self.cursor
            if "x" in a:
                x = float(a["x"])
            if "dy" in a:
                y += float(a["dy"])
            if "x" in a or "dy" in a:
                self._flush_line()
            self.cursor = (x, y)
            self.bold.append(a.get("font-weight") == "bold" or self.bold[-1])

    def handle_endtag(self, tag: str) -> None:
        if tag == "g":
            self.group = "" if self.text is None else self.group
        elif tag == "title":
            self.depth_in_title -= 1
        elif tag == "tspan" and self.text is not None:
            self.bold.pop()
        elif tag == "text" and self.text is not None:
            self._flush_line()
            self.text = None

    def handle_data(self, data: str) -> None:
        if self.text is None or self.depth_in_title:
            return
        size = float(self.text.get("font-size", "12"))
        x, y = self.cursor
        self.runs.append((x, y, data, size, self.bold[-1]))

    def _flush_line(self) -> None:
        """One line of text (runs on the same baseline) becomes one box."""
        if not self.runs or self.text is None:
            self.runs = []
            return
        x, y = self.runs[0][0], self.runs[0][1]
        size = max(r[3] for r in self.runs)
        width = sum(len(r[2]) * r[3] * (0.64 if r[4] else 0.6) for r in self.runs)
        anchor = self.text.get("text-anchor", "start")
        x0 = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
        words = "".join(r[2] for r in self.runs)
        if words.strip():
            self.layout.texts.append(TextBox(words, Rect(x0, y - 0.8 * size, x0 + width,
                                                         y + 0.22 * size), self.group))
        self.runs = []


def layout_of(svg: str) -> Layout:
    """Every line of text in `svg` with its estimated box, and the diagram's boxes and
    arrow segments."""
    parser = _Parser()
    parser.feed(svg)
    return parser.layout


def _segment_hits(rect: Rect, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether an axis-parallel or diagonal segment crosses `rect` (sampled finely)."""
    steps = 200
    for i in range(steps + 1):
        x = a[0] + (b[0] - a[0]) * i / steps
        y = a[1] + (b[1] - a[1]) * i / steps
        if rect.x0 < x < rect.x1 and rect.y0 < y < rect.y1:
            return True
    return False


def overlaps(svg: str) -> list[str]:
    """What is drawn on top of what: two texts, a text leaving its box (or entering a
    box it is not part of), a text on an arrow's line. [] when the picture is tidy."""
    layout = layout_of(svg)
    found = []
    texts = layout.texts
    for i, one in enumerate(texts):
        for other in texts[i + 1:]:
            if one.rect.intersects(other.rect):
                found.append(f"{one.text!r} overlaps {other.text!r}")
        for name, rect in layout.boxes.items():
            inner = Rect(rect.x0 + 2, rect.y0 + 2, rect.x1 - 2, rect.y1 - 2)
            if one.box == name and not one.rect.inside(inner):
                found.append(f"{one.text!r} leaves its box {name}")
            elif one.box != name and one.rect.intersects(rect):
                found.append(f"{one.text!r} runs into the box {name}")
        if not one.box:
            for a, b in layout.lines:
                if _segment_hits(one.rect, a, b):
                    found.append(f"{one.text!r} sits on the arrow {a}->{b}")
            for head in layout.heads:
                if one.rect.intersects(head):
                    found.append(f"{one.text!r} sits on an arrowhead at {head}")
    return found
