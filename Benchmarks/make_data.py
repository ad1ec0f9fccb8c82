"""Makes the benchmark inputs (photo-like, reproducible) with Pillow. Usage: make_data.py FOLDER"""
import os
import sys
from PIL import Image, ImageDraw, ImageFilter

folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)


def photo(width, height, seed):
    """Smooth colour fields, edges and sensor-like noise: what JPEG coders see in real photos."""
    small = Image.effect_noise((width // 64 + 1, height // 64 + 1), 90).convert("L")
    red = small.resize((width, height), Image.BICUBIC)
    green = Image.linear_gradient("L").resize((width, height), Image.BILINEAR)
    blue = Image.radial_gradient("L").resize((width, height), Image.BILINEAR)
    image = Image.merge("RGB", (red, green, blue))
    draw = ImageDraw.Draw(image)
    for index in range(40):
        x = (index * 7919 + seed * 104729) % width
        y = (index * 6007 + seed * 7127) % height
        size = width // 12
        draw.ellipse((x, y, x + size, y + size // 2), fill=((index * 53) % 256, (index * 97) % 256, (index * 31) % 256))
    image = image.filter(ImageFilter.GaussianBlur(1.2))
    # Texture at two scales (foliage, fabric) and fine sensor noise.
    coarse = Image.effect_noise((width // 3, height // 3), 70).resize((width, height), Image.BICUBIC)
    fine = Image.effect_noise((width, height), 50)
    texture = Image.merge("RGB", (coarse, fine, Image.blend(coarse, fine, 0.5)))
    return Image.blend(image, texture, 0.3)


def write(name, make, **options):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        make().save(path, **options)


made = {}


def shared_photo(width, height, seed):
    """A photo made once for the several files written from it."""
    def make():
        if (width, height, seed) not in made:
            made[(width, height, seed)] = photo(width, height, seed)
        return made[(width, height, seed)]
    return make


photo_12mp = shared_photo(4000, 3000, 1)
write("photo-12mp.jpg", photo_12mp, quality=85, subsampling=2)
write("photo-12mp-progressive.jpg", photo_12mp, quality=85, subsampling=2, progressive=True)
write("photo-800x600.jpg", lambda: photo(800, 600, 2), quality=85, subsampling=2)
write("photo-1080p.webp", lambda: photo(1920, 1080, 3), quality=80)


def rgba_1080p():
    image = photo(1920, 1080, 4).convert("RGBA")
    alpha = Image.radial_gradient("L").resize((1920, 1080), Image.BILINEAR)
    image.putalpha(alpha)
    return image


write("rgba-1080p.png", rgba_1080p)



def screenshot_1080p():
    """Flat panels, lines of text and buttons: what most PNGs on the web are (long runs, repeated strings)."""
    image = Image.new("RGB", (1920, 1080), (246, 246, 248))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 1920, 64), fill=(36, 41, 47))
    draw.rectangle((0, 64, 280, 1080), fill=(232, 234, 238))
    for line in range(40):
        y = 90 + line * 24
        draw.text((300 + (line * 37) % 120, y), f"Line {line}: the quick brown fox jumps over the lazy dog " * 3,
                  fill=(30, 30, 60))
        draw.text((20, y), f"Item {line}", fill=(60, 60, 90))
    for button in range(12):
        draw.rounded_rectangle((300 + button * 130, 1010, 410 + button * 130, 1050), 8,
                               fill=(40 + button * 15, 110, 220 - button * 10))
    return image


write("ui-1080p.png", screenshot_1080p)
# Streaming thumbnails (issue 17): a 4K frame as PNG (no alpha), as lossy WebP and as a 256-colour GIF.
photo_4k = shared_photo(3840, 2160, 5)
write("photo-4k.png", photo_4k)
write("photo-4k.webp", photo_4k, quality=80)
write("photo-4k.gif", lambda: photo_4k().quantize(256))


def pan_gif():
    """20 photo-like 640x480 frames (a slow pan over a textured scene), each with its own adaptive palette,
    stored whole: the LZW decoder does all the work, as with most camera-made GIFs."""
    width, height = 800, 600
    base = photo(width, height, 5)
    return [base.crop((i * 8, i * 5, i * 8 + 640, i * 5 + 480)).quantize(256, dither=Image.Dither.NONE)
            for i in range(20)]


gif_path = os.path.join(folder, "pan-640x480-20.gif")
if not os.path.exists(gif_path):
    frames = pan_gif()
    frames[0].save(gif_path, save_all=True, append_images=frames[1:], duration=50, loop=0, optimize=False,
                   disposal=1)


webp_path = os.path.join(folder, "pan-640x480-20.webp")
if not os.path.exists(webp_path):
    # The same pan as lossy WebP frames (quality 80), each stored whole: libwebp's decoder does all the work.
    width, height = 800, 600
    base = photo(width, height, 5)
    frames = [base.crop((i * 8, i * 5, i * 8 + 640, i * 5 + 480)) for i in range(20)]
    frames[0].save(webp_path, save_all=True, append_images=frames[1:], duration=50, loop=0, quality=80,
                   minimize_size=False, allow_mixed=False)
