#!/usr/bin/python3
"""Regenerates the BMP fixtures and their references: run from this folder with Debian's python3 (Pillow 9.4)
and ImageMagick 6.9 `convert` on the PATH. Each NAME.bmp gets NAME.rgba: the pixels, RGBA8, rows top to
bottom, decoded by Pillow, or computed by hand (in this script) where Pillow cannot read the file or misreads
it (see README.md)."""
import os
import struct
import subprocess
import tempfile

from PIL import Image

W, H = 33, 17  # odd width: every depth's rows need padding
TMP = tempfile.mkdtemp()


def source():
    im = Image.new("RGBA", (W, H))
    for y in range(H):
        for x in range(W):
            alpha = 255 if x < 16 else (x * y * 3) % 256
            im.putpixel((x, y), (x * 255 // (W - 1), y * 255 // (H - 1), (x * 7 + y * 13) % 256, alpha))
    return im


def tmp(name):
    return os.path.join(TMP, name)


def convert(*args):
    subprocess.run(["convert", *args], check=True)


def pillow_reference(name):
    with Image.open(name + ".bmp") as im:
        open(name + ".rgba", "wb").write(im.convert("RGBA").tobytes())


def bitfield_reference(name, masks):
    """By hand for 16-bit V5 bit-field files: each channel v of n bits reads as v * 255 // (2^n - 1) (Pillow's
    rule for 5 and 6 bits; exact for 1 and 4). ImageMagick 6.9 is no reference here: it reads its own 4-bit
    channels as v * 16 and a 1-bit alpha of 1 as 128."""
    data = open(name + ".bmp", "rb").read()
    offset = struct.unpack("<I", data[10:14])[0]
    width, height = struct.unpack("<ii", data[18:26])
    stride = (width * 16 + 31) // 32 * 4
    pixels = []
    for y in range(height):
        row = offset + (height - 1 - y) * stride
        for x in range(width):
            value = struct.unpack("<H", data[row + 2 * x:row + 2 * x + 2])[0]
            pixel = []
            for mask in masks:
                shift = (mask & -mask).bit_length() - 1
                top = mask >> shift
                pixel.append(((value & mask) >> shift) * 255 // top)
            pixels.append(tuple(pixel))
    write_rgba(name, pixels)


def write_rgba(name, pixels):
    open(name + ".rgba", "wb").write(bytes(b for p in pixels for b in p))


def file_header(pixel_offset, total):
    return b"BM" + struct.pack("<IHHI", total, 0, 0, pixel_offset)


def info_header(size, width, height, bits, compression, image_size=0, colours=0, masks=(0, 0, 0, 0)):
    header = struct.pack("<IiiHHIIiiII", size, width, height, 1, bits, compression, image_size, 2835, 2835,
                         colours, 0)
    if size >= 52:
        header += struct.pack("<3I", *masks[:3])
    if size >= 56:
        header += struct.pack("<I", masks[3])
    if size >= 108:
        header += struct.pack("<I", 0x73524742) + b"\0" * 48  # sRGB, no endpoints or gamma
    if size >= 124:
        header += struct.pack("<4I", 4, 0, 0, 0)
    assert len(header) == size
    return header


def bmp(name, info, palette, pixels):
    offset = 14 + len(info) + len(palette)
    open(name + ".bmp", "wb").write(file_header(offset, offset + len(pixels)) + info + palette + pixels)


def rows_bottom_up(rows):
    return b"".join(reversed(rows))


def pad(row):
    return row + b"\0" * (-len(row) % 4)


src = source()
src.save(tmp("rgba.png"))
src.convert("RGB").save(tmp("rgb.png"))
src.convert("RGB").quantize(200).convert("RGB").save(tmp("c200.png"))
src.convert("RGB").quantize(12).convert("RGB").save(tmp("c12.png"))
src.convert("RGB").quantize(2).convert("RGB").save(tmp("c2.png"))

# ImageMagick writes, Pillow reads.
convert(tmp("rgb.png"), "BMP3:im-rgb24.bmp")
convert(tmp("rgb.png"), "BMP2:im-core24.bmp")
convert(tmp("c200.png"), "-type", "palette", "BMP2:im-core-pal8.bmp")
convert(tmp("c200.png"), "-type", "palette", "-compress", "none", "BMP3:im-pal8.bmp")
convert(tmp("c12.png"), "-type", "palette", "-compress", "none", "BMP3:im-pal4.bmp")
convert(tmp("c2.png"), "-type", "palette", "-compress", "none", "BMP3:im-pal1.bmp")
convert(tmp("c200.png"), "-type", "palette", "-compress", "RLE", "BMP3:im-rle8.bmp")
convert(tmp("rgb.png"), "-define", "bmp:subtype=RGB565", "BMP:im-v5-rgb565.bmp")
convert(tmp("rgb.png"), "-define", "bmp:subtype=RGB555", "BMP:im-v5-rgb555.bmp")
convert(tmp("rgba.png"), "BMP:im-v5-argb32.bmp")
for name in ["im-rgb24", "im-core24", "im-core-pal8", "im-pal8", "im-pal4", "im-pal1", "im-rle8", "im-v5-rgb565",
             "im-v5-rgb555", "im-v5-argb32"]:
    pillow_reference(name)

# ImageMagick writes, references by hand (Pillow has no 4-4-4-4 or 1-5-5-5 bit fields).
convert(tmp("rgba.png"), "-define", "bmp:subtype=ARGB4444", "BMP:im-v5-argb4444.bmp")
convert(tmp("rgba.png"), "-define", "bmp:subtype=ARGB1555", "BMP:im-v5-argb1555.bmp")
bitfield_reference("im-v5-argb4444", (0xF00, 0xF0, 0xF, 0xF000))
bitfield_reference("im-v5-argb1555", (0x7C00, 0x3E0, 0x1F, 0x8000))

rgb = list(src.convert("RGB").getdata())
rgba = list(src.getdata())
rows24 = [pad(b"".join(bytes((b, g, r)) for r, g, b in rgb[y * W:(y + 1) * W])) for y in range(H)]

# Top-down 24-bit: negative height, rows stored top first. Pillow reads it.
bmp("topdown-rgb24", info_header(40, W, -H, 24, 0), b"", b"".join(rows24))
pillow_reference("topdown-rgb24")

# 16-bit BI_RGB (5-5-5 by default): the V5 bit-field file with compression 0 and a 40-byte header.
rows555 = [pad(b"".join(struct.pack("<H", (r >> 3) << 10 | (g >> 3) << 5 | b >> 3) for r, g, b in rgb[y * W:(y + 1) * W]))
           for y in range(H)]
bmp("info-rgb555", info_header(40, W, H, 16, 0), b"", rows_bottom_up(rows555))
pillow_reference("info-rgb555")

# 32-bit BI_RGB, 40-byte header, a non-zero fourth byte: padding, so opaque. Pillow reads it (BGRX).
rows32 = [b"".join(bytes((b, g, r, 0x7F)) for r, g, b in rgb[y * W:(y + 1) * W]) for y in range(H)]
bmp("info-bgrx32", info_header(40, W, H, 32, 0), b"", rows_bottom_up(rows32))
pillow_reference("info-bgrx32")

# 32-bit BI_RGB, V5 header naming an alpha mask, all fourth bytes zero: opaque. Pillow reads it (BGRX).
rows32z = [b"".join(bytes((b, g, r, 0)) for r, g, b in rgb[y * W:(y + 1) * W]) for y in range(H)]
bmp("v5-bgr0-rgb32", info_header(124, W, H, 32, 0, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000)), b"",
    rows_bottom_up(rows32z))
pillow_reference("v5-bgr0-rgb32")

# 32-bit BI_RGB, V5 header naming an alpha mask, real alpha: used (by hand: the source pixels).
rows32a = [b"".join(bytes((b, g, r, a)) for r, g, b, a in rgba[y * W:(y + 1) * W]) for y in range(H)]
bmp("v5-bgra-rgb32", info_header(124, W, H, 32, 0, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000)), b"",
    rows_bottom_up(rows32a))
write_rgba("v5-bgra-rgb32", rgba)

# V4 (108-byte) header, 32-bit bit fields with alpha. Pillow reads it.
bmp("v4-argb32", info_header(108, W, H, 32, 3, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000)), b"",
    rows_bottom_up(rows32a))
pillow_reference("v4-argb32")

# 40-byte header + BI_ALPHABITFIELDS (6): four masks after the header, 16-bit 4-4-4-4, top-down. By hand:
# a 4-bit value v reads as v * 17.
q = [tuple(c >> 4 for c in p) for p in rgba]
rows4444 = [pad(b"".join(struct.pack("<H", a << 12 | r << 8 | g << 4 | b) for r, g, b, a in q[y * W:(y + 1) * W]))
            for y in range(H)]
bmp("alphabitfields-argb4444", info_header(40, W, -H, 16, 6) + struct.pack("<4I", 0xF00, 0xF0, 0xF, 0xF000), b"",
    b"".join(rows4444))
write_rgba("alphabitfields-argb4444", [tuple(c * 17 for c in p) for p in q])

# 32-bit 2-10-10-10 bit fields (V5): 10-bit channels keep their top 8 bits, 2-bit alpha v reads as v * 85.
# By hand: each 8-bit channel c is stored as c << 2 | 2, alpha as a >> 6.
def pack1010102(p):
    r, g, b, a = p
    return struct.pack("<I", (a >> 6) << 30 | (r << 2 | 2) << 20 | (g << 2 | 2) << 10 | (b << 2 | 2))
rows1010102 = [b"".join(pack1010102(p) for p in rgba[y * W:(y + 1) * W]) for y in range(H)]
bmp("v5-a2r10g10b10", info_header(124, W, H, 32, 3, masks=(0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000)), b"",
    rows_bottom_up(rows1010102))
write_rgba("v5-a2r10g10b10", [(r, g, b, (a >> 6) * 85) for r, g, b, a in rgba])

# RLE4, 7x5, by hand. Palette: 0 black, 1 red, 2 green, 3 blue, 4 white. Stream, bottom row first:
#   row 0: run 5 of (1,2) alternating, EOL           -> 1 2 1 2 1 0 0
#   row 1: literal 3 of 3 4 3 (2 bytes + 0 pad), run 4 of (4,4) -> 3 4 3 4 4 4 4 (no EOL: the row is full)
#   ... then an explicit EOL
#   row 2: delta right 2 up 1 -> row 3 at x=2 (row 2 stays palette 0)
#   row 3: run 3 of (2,2) at x=2, EOL                 -> 0 0 2 2 2 0 0
#   row 4: run 9 of (4,1) clipped at the edge, EOB     -> 4 1 4 1 4 1 4
palette5 = b"".join(bytes((b, g, r, 0)) for r, g, b in [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255),
                                                         (255, 255, 255)])
stream = bytes([5, 0x12, 0, 0,
                0, 3, 0x34, 0x30, 4, 0x44, 0, 0,
                0, 2, 2, 1,
                3, 0x22, 0, 0,
                9, 0x41, 0, 1])
bmp("rle4", info_header(40, 7, 5, 4, 2, image_size=len(stream), colours=5), palette5, stream)
colours = [(0, 0, 0, 255), (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 255)]
rows_rle4 = [[1, 2, 1, 2, 1, 0, 0], [3, 4, 3, 4, 4, 4, 4], [0] * 7, [0, 0, 2, 2, 2, 0, 0], [4, 1, 4, 1, 4, 1, 4]]
write_rgba("rle4", [colours[i] for row in reversed(rows_rle4) for i in row])

# RLE8, 6x4, with a delta and an early end of bitmap, by hand (Pillow 9.4 misreads deltas: it reads their two
# bytes twice; ImageMagick agrees with the hand-made pixels):
#   row 0: run 2 of 1, literal 3 (1 2 3 + pad), EOL  -> 1 1 1 2 3 0
#   row 1: delta right 4 up 1 -> row 2 at x=4
#   row 2: run 2 of 4, EOL (x=4..5)                  -> 0 0 0 0 4 4
#   row 3: run 1 of 2, EOB                           -> 2 0 0 0 0 0
stream8 = bytes([2, 1, 0, 3, 1, 2, 3, 0, 0, 0,
                 0, 2, 4, 1,
                 2, 4, 0, 0,
                 1, 2, 0, 1])
bmp("rle8-delta", info_header(40, 6, 4, 8, 1, image_size=len(stream8), colours=5), palette5, stream8)
rows_rle8 = [[1, 1, 1, 2, 3, 0], [0] * 6, [0, 0, 0, 0, 4, 4], [2, 0, 0, 0, 0, 0]]
write_rgba("rle8-delta", [colours[i] for row in reversed(rows_rle8) for i in row])

# 8-bit palette of 3 entries (biClrUsed 3) with indices past it: they read as black. By hand.
idx = [[(x + y) % 5 for x in range(5)] for y in range(3)]
bmp("pal8-short-table", info_header(40, 5, 3, 8, 0, colours=3), palette5[:12],
    rows_bottom_up([pad(bytes(row)) for row in idx]))
write_rgba("pal8-short-table", [colours[i] if i < 3 else (0, 0, 0, 255) for row in idx for i in row])
