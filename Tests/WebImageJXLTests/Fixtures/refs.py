"""Writes each djxl-decoded PNG (argv: png rgba) as raw RGBA8 bytes, every frame of an APNG one after another."""
import sys
from PIL import Image, ImageSequence
png, out = sys.argv[1], sys.argv[2]
with open(out, "wb") as f:
    for frame in ImageSequence.Iterator(Image.open(png)):
        f.write(frame.convert("RGBA").tobytes())
