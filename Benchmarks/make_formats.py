"""Inputs of the formats suite that no encoder tool makes directly: a 1 000-frame GIF, an SVG of many shapes and
gradients (no text, so fonts do not matter), and 1 000 small files of the built-in formats for `info`.

Usage: make_formats.py FOLDER — files that exist already are kept.
"""
import io
import os
import random
import sys

from PIL import Image

folder = sys.argv[1]
rng = random.Random(13)

gif = os.path.join(folder, "frames-1000.gif")
if not os.path.exists(gif):
    frames = [Image.new("P", (64, 48), i % 200) for i in range(1000)]
    for i, frame in enumerate(frames):
        frame.putpalette([(c * 7 + i) % 256 for c in range(768)])
    frames[0].save(gif, save_all=True, append_images=frames[1:], duration=40, loop=0, optimize=False)

svg = os.path.join(folder, "shapes.svg")
if not os.path.exists(svg):
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600">',
             '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">'
             '<stop offset="0" stop-color="#1e88e5"/><stop offset="1" stop-color="#fdd835"/></linearGradient></defs>',
             '<rect width="800" height="600" fill="url(#g)"/>']
    for _ in range(300):
        x, y, r = rng.randrange(800), rng.randrange(600), rng.randrange(4, 60)
        colour = "#%06x" % rng.randrange(1 << 24)
        parts.append(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{colour}" fill-opacity="0.6"/>')
    for _ in range(100):
        points = " ".join(f"{rng.randrange(800)},{rng.randrange(600)}" for _ in range(5))
        parts.append(f'<polygon points="{points}" fill="none" stroke="#222" stroke-width="2"/>')
    parts.append("</svg>")
    with open(svg, "w") as handle:
        handle.write("\n".join(parts))

many = os.path.join(folder, "many")
if not os.path.isdir(many):
    os.makedirs(many)
    kinds = [("jpg", "JPEG"), ("png", "PNG"), ("gif", "GIF"), ("webp", "WEBP")]
    for i in range(1000):
        extension, name = kinds[i % 4]
        image = Image.new("RGB", (rng.randrange(64, 640), rng.randrange(64, 480)), tuple(rng.randrange(256) for _ in range(3)))
        image.save(os.path.join(many, f"image{i:04d}.{extension}"), name)
