from PIL import Image, ImageDraw
import math
# still RGB gradient with shapes
im = Image.new("RGB", (64, 48))
px = im.load()
for y in range(48):
    for x in range(64):
        px[x, y] = (x * 4, y * 5, (x * y) % 256)
ImageDraw.Draw(im).ellipse((10, 8, 40, 38), fill=(250, 30, 60))
im.save("still.png")
# RGBA with alpha gradient
im = Image.new("RGBA", (40, 30))
px = im.load()
for y in range(30):
    for x in range(40):
        px[x, y] = (200, x * 6, y * 8, min(255, x * 7))
im.save("alpha.png")
# photo-ish lossy source
im = Image.new("RGB", (96, 64))
px = im.load()
for y in range(64):
    for x in range(96):
        v = 128 + 100 * math.sin(x / 7.0) * math.cos(y / 9.0)
        px[x, y] = (int(v), int(255 - v), int((x + y) * 1.5) % 256)
im.save("photo.png")
# animation: 3 frames, 100/200/300 ms, 2 loops
frames = []
for i, c in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255)]):
    f = Image.new("RGBA", (32, 24), (0, 0, 0, 0))
    ImageDraw.Draw(f).rectangle((i * 8, 4, i * 8 + 12, 18), fill=c + (255,))
    frames.append(f)
frames[0].save("anim.png", save_all=True, append_images=frames[1:], duration=[100, 200, 300], loop=2, disposal=1)
# orientation: JPEG with EXIF orientation 6 (stored 40x24, shown 24x40)
im = Image.new("RGB", (40, 24), (30, 60, 90))
ImageDraw.Draw(im).rectangle((0, 0, 15, 7), fill=(250, 250, 0))
exif = Image.Exif(); exif[0x0112] = 6
im.save("oriented.jpg", quality=90, exif=exif.tobytes())
# grey gradient
im = Image.new("L", (33, 17))
px = im.load()
for y in range(17):
    for x in range(33):
        px[x, y] = (x * 7 + y * 3) % 256
im.save("gray.png")
