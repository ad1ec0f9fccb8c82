"""Writes the benchmark's 200-frame 480x360 animation as GIF (Pillow) and animated WebP (img2webp, lossy q75).

A static background (a coarse gradient with a grid, few colours as GIF content is) with three shapes moving over
it, so most frames change only part of the canvas: the usual shape of animated GIFs and WebPs on the web.
Usage: make_animation.py OUTPUT_DIR   (skips files that already exist)
"""
import math, os, subprocess, sys, tempfile
from PIL import Image, ImageDraw

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
gif, webp = f"{out}/anim-480x360-200.gif", f"{out}/anim-480x360-200.webp"
if os.path.exists(gif) and os.path.exists(webp):
    sys.exit(0)

W, H, N = 480, 360, 200
background = Image.new("RGB", (W, H))
draw = ImageDraw.Draw(background)
for y in range(0, H, 12):
    for x in range(0, W, 16):
        draw.rectangle([x, y, x + 15, y + 11], fill=(x * 255 // W // 16 * 16, y * 255 // H // 16 * 16, 120))
frames = []
for i in range(N):
    frame = background.copy()
    d = ImageDraw.Draw(frame)
    t = i / N * 2 * math.pi
    cx, cy = W / 2 + 180 * math.cos(t), H / 2 + 120 * math.sin(2 * t)
    d.ellipse([cx - 40, cy - 40, cx + 40, cy + 40], fill=(250, 200, 30))
    bx = (i * 7) % (W + 100) - 100
    d.rectangle([bx, 40, bx + 90, 110], fill=(30, 220, 240))
    d.polygon([(W - 60 - (i * 3) % 300, 300), (W - 20 - (i * 3) % 300, 220), (W + 20 - (i * 3) % 300, 300)],
              fill=(220, 40, 90))
    frames.append(frame)

frames[0].save(gif, save_all=True, append_images=frames[1:], duration=40, loop=0, optimize=False)
with tempfile.TemporaryDirectory() as work:
    arguments = ["img2webp", "-loop", "0", "-lossy", "-q", "75"]
    for i, frame in enumerate(frames):
        path = f"{work}/{i:03d}.png"
        frame.save(path)
        arguments += ["-d", "40", path]
    subprocess.run(arguments + ["-o", webp], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(gif, os.path.getsize(gif), webp, os.path.getsize(webp))
