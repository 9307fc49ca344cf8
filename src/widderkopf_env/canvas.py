"""Drawing primitives and their two back ends: SVG text (replay pages) and Pillow (rgb_array).

A picture is a list of primitives in logical pixels (origin top left): :class:`Rect`,
:class:`Circle`, :class:`Poly`, :class:`Text` and :class:`Use` (an instance of a named
symbol, e.g. one card face, drawn from a table of symbols). :func:`to_svg` writes them as
SVG elements (a symbol becomes ``<use href="#name">`` so a page holds each card face once);
:func:`to_rgb` paints them with Pillow's ``ImageDraw`` into a ``uint8 (H, W, 3)`` array.
Both back ends draw the same list, so the page and the env show one drawing.

Pillow is imported only by :func:`to_rgb` (the ``[render]`` extra). Shapes and symbols are
painted at twice the size and halved with a box filter, which smooths their edges (each
symbol is painted once and then pasted); the top-level texts are painted afterwards at the
final size, over the shapes (a layout must not cover a text with a later shape), with
Pillow's TrueType renderer and DejaVu Sans when the system has it, else Pillow's own font.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import NamedTuple


class Rect(NamedTuple):
    x: float
    y: float
    w: float
    h: float
    fill: str | None
    stroke: str | None = None
    width: float = 1.0  #: stroke width
    radius: float = 0.0  #: corner radius
    attrs: tuple = ()  #: extra SVG attributes, ``(("data-role", "slot"),)``


class Circle(NamedTuple):
    cx: float
    cy: float
    r: float
    fill: str


class Poly(NamedTuple):
    points: tuple  #: ``((x, y), ...)``
    fill: str


class Text(NamedTuple):
    x: float
    y: float  #: the vertical middle of the text
    text: str
    size: float
    fill: str
    anchor: str = "start"  #: ``start``, ``middle`` or ``end`` (as in SVG)
    bold: bool = False
    attrs: tuple = ()


class Use(NamedTuple):
    x: float
    y: float
    ref: str  #: the symbol's name in the ``symbols`` table given to the back end
    attrs: tuple = ()


# --- SVG -------------------------------------------------------------------------------------

def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _attrs(pairs) -> str:
    return "".join(f' {k}="{escape(str(v))}"' for k, v in pairs)


def _svg_item(p) -> str:
    if isinstance(p, Rect):
        stroke = f' stroke="{p.stroke}" stroke-width="{_num(p.width)}"' if p.stroke else ""
        rx = f' rx="{_num(p.radius)}"' if p.radius else ""
        return (f'<rect x="{_num(p.x)}" y="{_num(p.y)}" width="{_num(p.w)}" '
                f'height="{_num(p.h)}"{rx} fill="{p.fill or "none"}"{stroke}{_attrs(p.attrs)}/>')
    if isinstance(p, Circle):
        return f'<circle cx="{_num(p.cx)}" cy="{_num(p.cy)}" r="{_num(p.r)}" fill="{p.fill}"/>'
    if isinstance(p, Poly):
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in p.points)
        return f'<polygon points="{pts}" fill="{p.fill}"/>'
    if isinstance(p, Text):
        weight = ' font-weight="bold"' if p.bold else ""
        return (f'<text x="{_num(p.x)}" y="{_num(p.y)}" font-size="{_num(p.size)}" '
                f'fill="{p.fill}" text-anchor="{p.anchor}" dominant-baseline="central"'
                f'{weight}{_attrs(p.attrs)}>{escape(p.text)}</text>')
    if isinstance(p, Use):
        return f'<use href="#{p.ref}" x="{_num(p.x)}" y="{_num(p.y)}"{_attrs(p.attrs)}/>'
    raise TypeError(f"not a drawing primitive: {p!r}")


def svg_symbols(symbols: dict, size: tuple[float, float]) -> str:
    """``<symbol>`` definitions for every entry of ``symbols`` (name -> primitives drawn
    in a box of ``size``); put them once in a page's ``<defs>``."""
    w, h = size
    return "".join(
        f'<symbol id="{name}" width="{_num(w)}" height="{_num(h)}" '
        f'viewBox="0 0 {_num(w)} {_num(h)}">' + "".join(map(_svg_item, items)) + "</symbol>"
        for name, items in symbols.items())


def svg_open(size: tuple[int, int], attrs: tuple = ()) -> str:
    """The opening ``<svg ...>`` tag of a picture of ``size``."""
    w, h = size
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
            f'viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Verdana, Arial, sans-serif"'
            f'{_attrs(attrs)}>')


def svg_elements(items) -> list[str]:
    """Each primitive as one SVG element (``to_svg`` joins them inside ``svg_open``)."""
    return [_svg_item(p) for p in items]


def to_svg(items, size: tuple[int, int], symbols: dict | None = None,
           symbol_size: tuple[float, float] = (0, 0), attrs: tuple = ()) -> str:
    """One ``<svg>`` element. With ``symbols`` its definitions are included (a standalone
    picture); without, the ``<use>`` elements refer to definitions elsewhere in the page."""
    defs = f"<defs>{svg_symbols(symbols, symbol_size)}</defs>" if symbols else ""
    return svg_open(size, attrs) + defs + "".join(svg_elements(items)) + "</svg>"


# --- Pillow ----------------------------------------------------------------------------------

_SUPERSAMPLE = 2
_ANCHORS = {"start": "lm", "middle": "mm", "end": "rm"}


@lru_cache(maxsize=64)
def _font(size: int, bold: bool):
    from PIL import ImageFont

    for name in (("DejaVuSans-Bold.ttf",) if bold else ()) + ("DejaVuSans.ttf",):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, bold: bool, anchor: str):
    """A text's coverage mask (made once) and its offset from the anchor point."""
    from PIL import Image, ImageDraw

    font = _font(size, bold)
    left, top, right, bottom = font.getbbox(text, anchor=_ANCHORS[anchor])
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=font, anchor=_ANCHORS[anchor])
    return mask, (left, top)


def text_box(t: Text) -> tuple[int, int, int, int]:
    """The box ``(left, top, right, bottom)`` that :func:`to_rgb` paints text ``t`` in,
    in pixels of the picture (needs Pillow)."""
    left, top, right, bottom = _font(round(t.size), t.bold).getbbox(
        t.text, anchor=_ANCHORS[t.anchor])
    x, y = round(t.x), round(t.y)
    return x + left, y + top, x + right, y + bottom


@lru_cache(maxsize=64)
def _rgb(colour: str) -> tuple:
    from PIL import ImageColor

    return ImageColor.getrgb(colour)


@lru_cache(maxsize=256)
def _symbol_image(items: tuple, w: float, h: float, scale: int):
    """One symbol painted once on a transparent (RGBA) image, pasted wherever it is used."""
    from PIL import Image

    image = Image.new("RGBA", (round(w * scale), round(h * scale)), (0, 0, 0, 0))
    _paint(image, items, {}, (w, h), scale, shapes=True, texts=True)
    return image


def _paint(image, items, symbols, symbol_size, scale: int, shapes: bool, texts: bool) -> None:
    """Paint the shapes and symbols, or the texts, or both, of ``items`` at ``scale``."""
    from PIL import ImageDraw

    draw, s = ImageDraw.Draw(image), scale
    for p in items:
        if isinstance(p, Text):
            if texts:
                mask, (left, top) = _text_mask(p.text, round(p.size * s), p.bold, p.anchor)
                x, y = round(p.x * s) + left, round(p.y * s) + top
                image.paste(_rgb(p.fill), (x, y, x + mask.width, y + mask.height), mask)
        elif not shapes:
            continue
        elif isinstance(p, Rect):
            box = (p.x * s, p.y * s, (p.x + p.w) * s - 1, (p.y + p.h) * s - 1)
            draw.rounded_rectangle(box, radius=p.radius * s, fill=p.fill, outline=p.stroke,
                                   width=round(p.width * s) if p.stroke else 0)
        elif isinstance(p, Circle):
            cx, cy, r = p.cx * s, p.cy * s, p.r * s
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=p.fill)
        elif isinstance(p, Poly):
            draw.polygon([(x * s, y * s) for x, y in p.points], fill=p.fill)
        elif isinstance(p, Use):
            sym = _symbol_image(tuple(symbols[p.ref]), *symbol_size, s)
            image.paste(sym, (round(p.x * s), round(p.y * s)), sym)
        else:
            raise TypeError(f"not a drawing primitive: {p!r}")


def to_rgb(items, size: tuple[int, int], symbols: dict | None = None,
           symbol_size: tuple[float, float] = (0, 0), background="#000000"):
    """The picture as a ``uint8`` numpy array of shape ``(height, width, 3)``."""
    try:
        from PIL import Image
    except ImportError as err:
        from .cli import missing_extra

        raise ImportError(missing_extra("rgb_array pictures (Pillow)", "render", err)) from None
    import numpy as np

    w, h = size
    image = Image.new("RGB", (w * _SUPERSAMPLE, h * _SUPERSAMPLE), background)
    _paint(image, items, symbols or {}, symbol_size, _SUPERSAMPLE, shapes=True, texts=False)
    image = image.reduce(_SUPERSAMPLE)
    _paint(image, items, symbols or {}, symbol_size, 1, shapes=False, texts=True)
    return np.asarray(image, dtype=np.uint8)
