from PIL import Image
import random
random.seed(13)
W, H = 48, 32
# Opaque, asymmetric picture: gradients plus a red block in the top-left corner, a little noise.
img = Image.new("RGB", (W, H))
px = img.load()
for y in range(H):
    for x in range(W):
        r = (x * 255) // (W - 1); g = (y * 255) // (H - 1); b = (x * y * 7 + random.randint(0, 20)) % 256
        if x < 12 and y < 8: r, g, b = 250, 10, 10
        px[x, y] = (r, g, b)
img.save("src-rgb.png")
# With alpha: a horizontal alpha ramp and a fully transparent corner.
rgba = img.convert("RGBA")
p = rgba.load()
for y in range(H):
    for x in range(W):
        r, g, b, _ = p[x, y]
        a = 0 if (x >= 40 and y >= 24) else (x * 255) // (W - 1)
        p[x, y] = (r, g, b, a)
rgba.save("src-rgba.png")
# Three frames for a sequence: the picture shifted.
for i in range(3):
    f = Image.new("RGB", (32, 24))
    fp = f.load()
    for y in range(24):
        for x in range(32):
            fp[x, y] = (((x + 8 * i) * 8) % 256, (y * 10) % 256, 60 * i)
    f.save(f"src-frame{i}.png")
