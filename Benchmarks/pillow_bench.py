"""Pillow doing the same work as webimage-bench, printing the same JSON lines. Usage: pillow_bench.py SUITE FOLDER"""
import io
import json
import os
import sys
import time

from PIL import Image


def median(body, minimum_runs=15, minimum_seconds=1.0):
    body()
    samples = []
    start = time.process_time()
    while len(samples) < minimum_runs or time.process_time() - start < minimum_seconds:
        before = time.process_time()
        body()
        samples.append((time.process_time() - before) * 1000)
        if len(samples) >= 2000:
            break
    samples.sort()
    return samples[len(samples) // 2]


def emit(suite, name, value, unit="ms"):
    print(json.dumps({"suite": suite, "name": name, "impl": "Pillow " + Image.__version__, "value": value, "unit": unit}),
          flush=True)


def decode(folder):
    def load(name):
        with open(os.path.join(folder, name), "rb") as handle:
            return handle.read()

    cases = [
        ("12 MP JPEG", "photo-12mp.jpg"),
        ("12 MP progressive JPEG", "photo-12mp-progressive.jpg"),
        ("800x600 JPEG", "photo-800x600.jpg"),
        ("1080p RGBA PNG", "rgba-1080p.png"),
        ("1080p screenshot PNG", "ui-1080p.png"),
        ("1080p lossy WebP", "photo-1080p.webp"),
    ]
    for name, file in cases:
        data = load(file)
        emit("decode", name, median(lambda: Image.open(io.BytesIO(data)).load()))

    photo = load("photo-12mp.jpg")

    def thumbnail():
        image = Image.open(io.BytesIO(photo))
        image.draft("RGB", (256, 256))
        image.thumbnail((256, 256))

    emit("decode", "12 MP JPEG to 256 px", median(thumbnail))


def animated(folder):
    from PIL import ImageSequence
    with open(os.path.join(folder, "pan-640x480-20.gif"), "rb") as handle:
        data = handle.read()

    def decode_all():
        image = Image.open(io.BytesIO(data))
        return [frame.convert("RGBA") for frame in ImageSequence.Iterator(image)]

    emit("animated", f"pan-640x480-20.gif, {len(decode_all())} frames, all to RGBA", median(decode_all))

    def frame_ten():
        # Pillow seeks by decoding every frame before the one asked for, as a GIF needs.
        image = Image.open(io.BytesIO(data))
        image.seek(10)
        return image.convert("RGBA")

    emit("animated", "pan-640x480-20.gif, frame 10 alone to RGBA", median(frame_ten))


def encode(folder):
    # GIF only: Pillow's save of an RGB image quantizes by median cut and dithers Floyd-Steinberg, as ours does.
    photo = Image.open(os.path.join(folder, "photo-800x600.jpg")).convert("RGB")
    pan = Image.open(os.path.join(folder, "pan-640x480-20.gif")).convert("RGB").resize((200, 150), Image.BOX)

    def gif(image):
        def save():
            output = io.BytesIO()
            image.save(output, format="GIF")
        return save

    emit("encode", "800x600 photo to GIF", median(gif(photo), minimum_runs=11, minimum_seconds=0.5))
    emit("encode", "pan-640x480-20.gif frame 0 at 200x150 to GIF", median(gif(pan), minimum_runs=11,
                                                                       minimum_seconds=0.5))


def transform(folder):
    from PIL import ImageFilter

    def open_rgb(name):
        image = Image.open(os.path.join(folder, name))
        image.load()
        return image.convert("RGB")

    photo, small, hd = open_rgb("photo-12mp.jpg"), open_rgb("photo-800x600.jpg"), open_rgb("photo-1080p.webp")
    cases = [
        ("resize 12 MP to 1920x1440 (Lanczos)", lambda: photo.resize((1920, 1440), Image.LANCZOS)),
        ("resize 800x600 to 256x192 (Lanczos)", lambda: small.resize((256, 192), Image.LANCZOS)),
        ("Gaussian blur sigma 10, 1080p", lambda: hd.filter(ImageFilter.GaussianBlur(10))),
        ("rotate 30 degrees with expand, 1080p", lambda: hd.rotate(30, Image.BILINEAR, expand=True)),
    ]
    for name, body in cases:
        emit("transform", name, median(body))
    proxy_effects(hd)


def proxy_effects(hd):
    """The proxy's trim, repeated watermark and pixelate done the usual Pillow way (no 3x3 median in the trim)."""
    from PIL import ImageChops

    width, height = hd.size
    bordered = Image.new("RGB", (width + 200, height + 200), (255, 255, 255))
    bordered.paste(hd, (100, 100))
    white = Image.new("RGB", bordered.size, (255, 255, 255))

    def trim():
        mask = ImageChops.difference(bordered, white).point(lambda value: 255 if value > 10 else 0)
        box = mask.getbbox()
        return bordered.crop(box) if box else bordered

    mark = Image.new("RGBA", (256, 256))
    mark.putdata([(255, x, y, 200 if (x // 32 + y // 32) % 2 == 0 else 0) for y in range(256) for x in range(256)])
    base = hd.convert("RGBA")

    def watermark():
        layer = Image.new("RGBA", hd.size)
        for top in range(0, height, 256):
            for left in range(0, width, 256):
                layer.paste(mark, (left, top))
        layer.putalpha(layer.getchannel("A").point(lambda value: value // 2))
        return Image.alpha_composite(base, layer)

    def pixelate():
        small = hd.resize(((width + 15) // 16, (height + 15) // 16), Image.BOX)
        return small.resize((small.width * 16, small.height * 16), Image.NEAREST).crop((0, 0, width, height))

    emit("transform", "proxy trim t:10, 1080p in a 100-pixel white border", median(trim))
    emit("transform", "proxy watermark 256x256 repeated at 50% (wm:0.5:re), 1080p", median(watermark))
    emit("transform", "proxy pixelate 16 px (pix:16), 1080p", median(pixelate))


def color(folder):
    """Pillow's ImageCms (Little CMS) on the Display P3 photo the Swift side wrote: the decode, and the transform
    to sRGB of the decoded pixels with the embedded profile (built once, as a server would cache it)."""
    from PIL import ImageCms
    with open(os.path.join(folder, "photo-12mp-p3.jpg"), "rb") as handle:
        data = handle.read()
    image = Image.open(io.BytesIO(data))
    image.load()
    source = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
    transform = ImageCms.buildTransform(source, ImageCms.createProfile("sRGB"), "RGB", "RGB")
    emit("color", "12 MP Display P3 JPEG decode, samples kept", median(lambda: Image.open(io.BytesIO(data)).load()))
    emit("color", "12 MP Display P3 → sRGB conversion alone (difference)",
         median(lambda: ImageCms.applyTransform(image, transform)))


if __name__ == "__main__":
    suites = {"color": color, "decode": decode, "animated": animated, "encode": encode, "transform": transform}
    suites[sys.argv[1]](sys.argv[2])
