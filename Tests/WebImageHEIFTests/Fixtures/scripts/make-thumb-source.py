# A smooth gradient (no detail finer than a few pixels), so that heif-enc's thumbnail scaler and an area
# average of the full image agree: thumb-src.png for thumb.heic.
from PIL import Image
w, h = 160, 120
im = Image.new("RGB", (w, h))
im.putdata([(int(255 * x / (w - 1)), int(255 * y / (h - 1)), 255 - int(200 * (x + y) / (w + h - 2)))
            for y in range(h) for x in range(w)])
im.save("thumb-src.png")
