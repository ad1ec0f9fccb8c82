#!/usr/bin/python3
"""Writes an XYB JPEG as jpegli lays one out, from a picture of known sRGB colours.

XYB is the JPEG XL colour space (an LMS-like opsin absorbance with a cube-root response). jpegli stores it in a
JPEG as three components named R, G, B (so no YCbCr transform applies) with the third at half resolution both
ways (sampling 2x2, 2x2, 1x1), each scaled into 0..1, and embeds an ICC profile whose A2B0 table (lutAtoBType: a
2x2x2 grid, cube curves, a matrix with offsets) turns the stored samples back into XYZ. Without the profile the
samples look green and purple; through it they are the picture.

Usage: make_xyb.py OUT_DIR  (writes xyb-source.png, the sRGB picture, and xyb.jpg)
"""
import math, os, struct, subprocess, sys, tempfile
import numpy as np
from PIL import Image

# The XYB constants as libjxl and jpegli publish them.
OPSIN = np.array([[0.30, 0.622, 0.078],
                  [0.23, 0.692, 0.078],
                  [0.24342268924547819, 0.20476744424496821, 1 - 0.24342268924547819 - 0.20476744424496821]])
BIAS = 0.0037930732552754493
SCALED_OFFSET = [0.015386134, 0.0, 0.27770459]
SCALED_SCALE = [22.995788804, 1.183000077, 1.502141333]
# The profile's grid outputs are the cube-root responses (L', M', S') mapped into 0..1 by these.
def reciprocal_sum(a, b): return a * b / (a + b)
RESPONSE_OFFSET = [SCALED_OFFSET[0] + SCALED_OFFSET[1],
                   SCALED_OFFSET[1] - SCALED_OFFSET[0] + 1 / SCALED_SCALE[0],
                   SCALED_OFFSET[1] + SCALED_OFFSET[2]]
RESPONSE_SCALE = [reciprocal_sum(SCALED_SCALE[0], SCALED_SCALE[1])] * 2 + [reciprocal_sum(SCALED_SCALE[1], SCALED_SCALE[2])]
# Opsin absorbance (biased) to PCS XYZ as the profile encodes it (lutAtoBType XYZ: 1.0 is 0x8000).
TO_XYZ = [[1.5170095, -1.1065225, 0.071623],
          [-0.050022, 0.5683655, -0.018344],
          [-1.387676, 1.1145555, 0.6857255]]

def picture(width=96, height=64):
    """Hue ramps across, darker and paler downwards, a gray ramp along the top: every region of the gamut."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    u, v = x / (width - 1), y / (height - 1)
    hue = u * 6
    rgb = np.stack([np.clip(np.abs(hue - 3) - 1, 0, 1), np.clip(2 - np.abs(hue - 2), 0, 1),
                    np.clip(2 - np.abs(hue - 4), 0, 1)], axis=-1)
    rgb = rgb * (1 - 0.6 * v[..., None]) + 0.25 * v[..., None]
    rgb[: height // 8] = u[: height // 8, :, None]
    return np.round(np.clip(rgb, 0, 1) * 255).astype(np.uint8)

def to_scaled_xyb(srgb8):
    c = srgb8.astype(np.float64) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    mixed = linear @ OPSIN.T + BIAS
    response = np.cbrt(mixed) - np.cbrt(BIAS)
    x, y, b = (response[..., 0] - response[..., 1]) / 2, (response[..., 0] + response[..., 1]) / 2, response[..., 2]
    scaled = np.stack([(x + SCALED_OFFSET[0]) * SCALED_SCALE[0], (y + SCALED_OFFSET[1]) * SCALED_SCALE[1],
                       (b - y + SCALED_OFFSET[2]) * SCALED_SCALE[2]], axis=-1)
    return np.round(np.clip(scaled, 0, 1) * 255).astype(np.uint8)

def s15(value): return struct.pack(">i", int(round(value * 65536)))
def pad4(data): return data + b"\0" * (-len(data) % 4)

def mluc(text):
    encoded = text.encode("utf-16-be")
    return b"mluc" + struct.pack(">IIIHHII", 0, 1, 12, 0x656E, 0x5553, len(encoded), 28) + encoded

def para(function, parameters):
    return b"para" + struct.pack(">IHH", 0, function, 0) + b"".join(s15(p) for p in parameters)

def a_to_b():
    identity = para(0, [1.0]) * 3                       # 48 bytes at offset 32, used as the A and B curves
    grid = bytes([2, 2, 2] + [0] * 13) + bytes([2, 0, 0, 0])
    for corner in [(x, y, b) for x in (0, 1) for y in (0, 1) for b in (0, 1)]:
        stored = [corner[i] / SCALED_SCALE[i] - SCALED_OFFSET[i] for i in range(3)]
        response = [stored[1] + stored[0], stored[1] - stored[0], stored[2] + stored[1]]
        for i in range(3):
            grid += struct.pack(">H", round(65535 * (response[i] + RESPONSE_OFFSET[i]) * RESPONSE_SCALE[i]))
    cube_curves = b""
    for i in range(3):
        b = -RESPONSE_OFFSET[i] + math.cbrt(BIAS)
        cube_curves += para(3, [3, 1 / RESPONSE_SCALE[i], b, 0, max(0, -b * RESPONSE_SCALE[i])])
    matrix = b"".join(s15(v) for row in TO_XYZ for v in row)
    matrix += b"".join(s15(sum(TO_XYZ[i][j] * -BIAS for j in range(3))) for i in range(3))
    head = b"mAB " + struct.pack(">IBBHIIIII", 0, 3, 3, 0, 32, 244, 148, 80, 32)
    body = head + identity + grid + cube_curves + matrix
    assert len(head + identity) == 80 and len(head + identity + grid) == 148 and len(body) == 292
    return body

def profile():
    d50 = (0.964203, 1.0, 0.824905)
    tags = [(b"desc", mluc("XYB_Per")), (b"cprt", mluc("CC0")),
            (b"wtpt", b"XYZ \0\0\0\0" + b"".join(s15(v) for v in d50)), (b"A2B0", a_to_b())]
    table_size = 4 + 12 * len(tags)
    offset = 128 + table_size
    table, data = struct.pack(">I", len(tags)), b""
    for signature, tag in tags:
        table += signature + struct.pack(">II", offset + len(data), len(tag))
        data += pad4(tag)
    size = 128 + table_size + len(data)
    header = struct.pack(">I4sI4s4s4s6H4s4sIIIQI", size, b"\0\0\0\0", 0x04300000, b"scnr", b"RGB ", b"XYZ ",
                         2026, 11, 27, 0, 0, 0, b"acsp", b"\0\0\0\0", 0, 0, 0, 0, 0)
    header += s15(d50[0]) + s15(d50[1]) + s15(d50[2])
    header += b"\0" * (128 - len(header))
    return header + table + data

def main():
    out = sys.argv[1]
    source = picture()
    Image.fromarray(source).save(os.path.join(out, "xyb-source.png"))
    with tempfile.TemporaryDirectory() as work:
        ppm, icc = os.path.join(work, "xyb.ppm"), os.path.join(work, "xyb.icc")
        Image.fromarray(to_scaled_xyb(source)).save(ppm)
        open(icc, "wb").write(profile())
        subprocess.run(["cjpeg", "-rgb", "-sample", "2x2,2x2,1x1", "-quality", "95", "-icc", icc,
                        "-outfile", os.path.join(out, "xyb.jpg"), ppm], check=True)

if __name__ == "__main__":
    main()
