#!/usr/bin/python3
"""Regenerates the ICO/CUR fixtures and their references: run from this folder with Debian's python3 (Pillow
9.4) and ImageMagick 6.9 `convert` on the PATH. NAME-WxH.rgba holds the pixels of the WxH entry of NAME.ico
(RGBA8, rows top to bottom), decoded by Pillow or written out by hand for the hand-crafted files."""
import io
import os
import struct
import subprocess
import tempfile

from PIL import Image, IcoImagePlugin

TMP = tempfile.mkdtemp()


def source(size):
    im = Image.new("RGBA", (size, size))
    for y in range(size):
        for x in range(size):
            inside = (x - size / 2) ** 2 + (y - size / 2) ** 2 < (size / 2.2) ** 2
            alpha = 255 if inside else (0 if x < size / 2 else 96)
            im.putpixel((x, y), ((x * 255) // (size - 1), (y * 255) // (size - 1), 128 if inside else 30, alpha))
    return im


def pillow_reference(name, size):
    with Image.open(name + ".ico") as im:
        im.size = size
        open(f"{name}-{size[0]}x{size[1]}.rgba", "wb").write(im.convert("RGBA").tobytes())


def pillow_reference_png(name, size):
    """For entries too big for a raw reference: Pillow's decode saved as PNG."""
    with Image.open(name + ".ico") as im:
        im.size = size
        im.convert("RGBA").save(f"{name}-{size[0]}x{size[1]}.png")


def write_rgba(name, pixels):
    open(name + ".rgba", "wb").write(bytes(b for p in pixels for b in p))


def icon_file(entries, kind=1, hotspots=None):
    """entries: (width, height, bit depth, bytes) of each image, written in order after the directory."""
    out = struct.pack("<HHH", 0, kind, len(entries))
    offset = 6 + 16 * len(entries)
    for index, (width, height, bits, data) in enumerate(entries):
        planes, depth = hotspots[index] if hotspots else (1, bits)
        out += struct.pack("<BBBBHHII", width & 0xFF, height & 0xFF, 0, 0, planes, depth, len(data), offset)
        offset += len(data)
    return out + b"".join(e[3] for e in entries)


def pad(row):
    return row + b"\0" * (-len(row) % 4)


def dib(width, height, bits, palette, rows, mask_rows):
    """An icon DIB: 40-byte header with the height doubled, palette, XOR rows and AND rows, bottom-up."""
    colours = len(palette) // 4 if bits <= 8 else 0
    header = struct.pack("<IiiHHIIiiII", 40, width, 2 * height, 1, bits, 0, 0, 0, 0, colours, 0)
    xor = b"".join(pad(r) for r in reversed(rows))
    andmask = b"".join(pad(r) for r in reversed(mask_rows))
    return header + palette + xor + andmask


def mask_row(bits):
    out = bytearray((len(bits) + 7) // 8)
    for x, bit in enumerate(bits):
        if bit:
            out[x // 8] |= 0x80 >> (x % 8)
    return bytes(out)


def pack_indices(indices, bits):
    out = bytearray((len(indices) * bits + 7) // 8)
    for x, index in enumerate(indices):
        shift = 8 - bits * (x % (8 // bits) + 1)
        out[x * bits // 8] |= index << shift
    return bytes(out)


# Pillow writes PNG entries; Pillow reads each back.
big = source(48)
big.save("pil-png.ico", sizes=[(16, 16), (32, 32), (48, 48)])
for s in (16, 32, 48):
    pillow_reference("pil-png", (s, s))

# ImageMagick writes 32-bit bitmap entries (with AND masks) below 256 and a PNG entry at 256.
big.save(os.path.join(TMP, "48.png"))
subprocess.run(["convert", os.path.join(TMP, "48.png"), "-define", "icon:auto-resize=48,32,16", "im-bmp.ico"],
               check=True)
for s in (16, 32, 48):
    pillow_reference("im-bmp", (s, s))
flat = Image.new("RGBA", (256, 256), (200, 30, 60, 255))
for y in range(64, 192):
    for x in range(32, 224):
        flat.putpixel((x, y), (20, 90, 200, 0 if x < 64 else 160))
flat.save(os.path.join(TMP, "256.png"))
subprocess.run(["convert", os.path.join(TMP, "256.png"), "-define", "icon:auto-resize=256,32", "im-256.ico"],
               check=True)
pillow_reference_png("im-256", (256, 256))
pillow_reference("im-256", (32, 32))

# Hand-crafted bitmap entries, references by hand. Palette: black, red, green, blue, white, grey.
palette = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (128, 128, 128)]
pal_bytes = b"".join(bytes((b, g, r, 0)) for r, g, b in palette)


def indexed_entry(size, bits, table):
    idx = [[(x + 2 * y) % len(table) for x in range(size)] for y in range(size)]
    masked = [[(x + y) % 5 == 0 for x in range(size)] for y in range(size)]
    table_bytes = b"".join(bytes((b, g, r, 0)) for r, g, b in table) + b"\0" * 4 * ((1 << bits) - len(table))
    data = dib(size, size, bits, table_bytes, [pack_indices(r, bits) for r in idx], [mask_row(r) for r in masked])
    pixels = [table[i] + ((0,) if m else (255,)) for ri, rm in zip(idx, masked) for i, m in zip(ri, rm)]
    return data, pixels


# mixed.ico: 1-bit 8x8, 4-bit 16x16, 8-bit 16x16 (deeper, same area: chosen over the 4-bit one at 16), 24-bit
# 20x20 (largest: the default). The directory claims 0x0 (256) for the 24-bit entry and 1x1 for the others: the
# embedded headers are what count.
e1, p1 = indexed_entry(8, 1, palette[:2])
e4, p4 = indexed_entry(16, 4, palette)
e8, p8 = indexed_entry(16, 8, palette[::-1])
rgb = [[((x * 12) % 256, (y * 12) % 256, 77) for x in range(20)] for y in range(20)]
m24 = [[x >= 15 and y < 5 for x in range(20)] for y in range(20)]
e24 = dib(20, 20, 24, b"", [b"".join(bytes((b, g, r)) for r, g, b in row) for row in rgb],
          [mask_row(r) for r in m24])
p24 = [c + ((0,) if m else (255,)) for rr, rm in zip(rgb, m24) for c, m in zip(rr, rm)]
open("mixed.ico", "wb").write(icon_file([(1, 1, 1, e1), (1, 1, 4, e4), (1, 1, 8, e8), (0, 0, 24, e24)]))
write_rgba("mixed-8x8", p1)
write_rgba("mixed-16x16-4bit", p4)
write_rgba("mixed-16x16", p8)
write_rgba("mixed-20x20", p24)

# zero-alpha32.ico: a 32-bit entry whose alpha bytes are all 0, so its AND mask decides (opaque elsewhere).
z = [[(x * 20 % 256, y * 20 % 256, 200) for x in range(12)] for y in range(12)]
mz = [[x < 3 for x in range(12)] for y in range(12)]
ez = dib(12, 12, 32, b"", [b"".join(bytes((b, g, r, 0)) for r, g, b in row) for row in z], [mask_row(r) for r in mz])
open("zero-alpha32.ico", "wb").write(icon_file([(12, 12, 32, ez)]))
write_rgba("zero-alpha32-12x12", [c + ((0,) if m else (255,)) for rr, rm in zip(z, mz) for c, m in zip(rr, rm)])

# cursor.cur: the 4-bit entry as a cursor (type 2, hot spot 3,5 in place of planes and depth).
open("cursor.cur", "wb").write(icon_file([(16, 16, 4, e4)], kind=2, hotspots=[(3, 5)]))
