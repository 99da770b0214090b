"""Draw the site's favicon and app icons into static/icons/ (committed; run again after a change).

One drawing, three rising bars on the club's navy: written as SVG by hand and painted with
Pillow at each size a browser or a phone's home screen asks for. Needs Pillow (dev extra):
    .venv/bin/python deploy/make_icons.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "static" / "icons"
NAVY = "#12325e"
WHITE = "#ffffff"
GOLD = "#f2b705"
# On a 64-unit square: (x, top, colour) of three bars 12 wide resting on y=50.
BARS = ((12, 34, WHITE), (26, 24, WHITE), (40, 12, GOLD))
BAR_WIDTH, BASE, CORNER = 12, 50, 14


def svg() -> str:
    bars = "".join(
        f'<rect x="{x}" y="{top}" width="{BAR_WIDTH}" height="{BASE - top}" rx="2" fill="{colour}"/>'
        for x, top, colour in BARS
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
        f'<rect width="64" height="64" rx="{CORNER}" fill="{NAVY}"/>{bars}</svg>\n'
    )


def png(size: int, *, maskable: bool = False) -> Image.Image:
    """The icon at size×size; maskable: full-bleed navy with the bars inside the safe zone."""
    scale = 4  # draw large, then shrink: smooth edges without an anti-aliasing pass
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    unit = big / 64
    if maskable:
        draw.rectangle((0, 0, big, big), fill=NAVY)
        unit *= 0.72  # the bars within the central 80 % circle a launcher may crop to
    else:
        draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=CORNER * unit, fill=NAVY)
    offset = (big - 64 * unit) / 2
    for x, top, colour in BARS:
        box = (
            offset + x * unit,
            offset + top * unit,
            offset + (x + BAR_WIDTH) * unit,
            offset + BASE * unit,
        )
        draw.rounded_rectangle(box, radius=2 * unit, fill=colour)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "icon.svg").write_text(svg())
    png(32).save(OUT / "favicon.ico", sizes=[(32, 32)])
    for size in (192, 512):
        png(size).save(OUT / f"icon-{size}.png", optimize=True)
    png(512, maskable=True).save(OUT / "icon-maskable-512.png", optimize=True)
    # iOS fills transparent corners with black: its icon is full-bleed and it rounds them itself.
    png(180, maskable=True).convert("RGB").save(OUT / "apple-touch-icon.png", optimize=True)
    print(f"wrote the icons to {OUT}")


if __name__ == "__main__":
    main()
