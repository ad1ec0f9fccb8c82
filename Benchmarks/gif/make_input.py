"""Makes the GIF benchmark inputs with Pillow. Usage: make_input.py FOLDER

anim-640x480-20.gif: 20 photo-like 640x480 frames (a slow pan over a textured scene), each with its own
adaptive palette, stored whole: the LZW decoder does all the work, as with most camera-made GIFs.
"""
import os
import sys
from PIL import Image, ImageDraw, ImageFilter

folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
path = os.path.join(folder, "anim-640x480-20.gif")
if not os.path.exists(path):
    width, height = 800, 600
    base = Image.merge("RGB", (
        Image.effect_noise((width // 40, height // 40), 90).convert("L").resize((width, height), Image.BICUBIC),
        Image.linear_gradient("L").resize((width, height)),
        Image.radial_gradient("L").resize((width, height)),
    ))
    draw = ImageDraw.Draw(base)
    for index in range(60):
        x, y = (index * 7919) % width, (index * 6007) % height
        draw.ellipse((x, y, x + 70, y + 40), fill=((index * 53) % 256, (index * 97) % 256, (index * 31) % 256))
    base = Image.blend(base.filter(ImageFilter.GaussianBlur(1.5)),
                       Image.effect_noise((width, height), 40).convert("RGB"), 0.2)
    frames = [base.crop((i * 8, i * 5, i * 8 + 640, i * 5 + 480)).quantize(256, dither=Image.Dither.NONE)
              for i in range(20)]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=50, loop=0, optimize=False,
                   disposal=1)
print(path)
