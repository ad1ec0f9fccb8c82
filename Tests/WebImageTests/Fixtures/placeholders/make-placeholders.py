#!/usr/bin/env python3
"""Makes the placeholder fixtures: two small images and what independent BlurHash and ThumbHash
implementations make of them, so the library's own encoders and decoders are checked against outputs it did
not write.

Needs PyPI's blurhash-python (1.2.2, a binding of the BlurHash authors' C encoder and decoder), thumbhash
(0.1.2, a Python port of ThumbHash's reference), ImageHash (4.3.1, its DCT perceptual hash, with SciPy) and
scikit-image (0.25.2, its SSIM):
pip install blurhash-python==1.2.2 thumbhash==0.1.2 imagehash==4.3.1 scikit-image==0.25.2
Run from this folder: python3 make-placeholders.py
"""
import json
import math

import inspect
import types

import io

import blurhash
import imagehash
import numpy
import thumbhash
from PIL import Image, ImageFilter
from skimage.metrics import structural_similarity

# thumbhash 0.1.2 has two slips against the reference it ports: its encoder makes a tuple of three values for
# images with alpha, and its decoder never clears the per-pixel cosines, so every pixel gets the first pixel's
# colour. The port is loaded with those two lines corrected (and a debugging print dropped), and is otherwise used
# as published; it rounds the decoded channels where the reference truncates them, so pictures differ by one level.
_source = inspect.getsource(thumbhash)
for wrong, right in (("if has_alpha else 1.0, [], 1.0", "if has_alpha else (1.0, [], 1.0)"),
                     ("            a = a_dc\n", "            a = a_dc\n            fx, fy = [], []\n"),
                     ("    print(ratio)\n", "")):
    assert wrong in _source, wrong
    _source = _source.replace(wrong, right)
thumbhash = types.ModuleType("thumbhash_corrected")
exec(compile(_source, "thumbhash_corrected", "exec"), thumbhash.__dict__)

# A photo, reduced to placeholder size (the encoders read these exact pixels back from the lossless PNG).
photo = Image.open("../prefix/progressive-photo.jpg").convert("RGB")
photo.thumbnail((100, 100), Image.LANCZOS)
photo.save("photo.png")

# A transparent image: a soft red disc and a green bar over a transparent background whose hidden colour is blue.
alpha = Image.new("RGBA", (72, 48), (0, 0, 255, 0))
pixels = alpha.load()
for y in range(48):
    for x in range(72):
        d = math.hypot(x - 24, y - 24)
        if d < 20:
            pixels[x, y] = (220, 40, 30, max(0, min(255, int(255 * (20 - d) / 6))))
        elif 50 <= x < 64:
            pixels[x, y] = (30, 180, 60, 128 + y)
alpha.save("alpha.png")

# A 32x32 grey image, the size a perceptual hash reads (so the hash compares the DCT and median alone), and the
# photo's own hash, for which the two sides' resizing filters also count.
grey = photo.convert("L").resize((32, 32), Image.LANCZOS)
grey.save("grey-32.png")

# Two altered copies of the photo, kept lossless, and their SSIM against it as the paper defines it: Gaussian
# window of sigma 1.5, variances over the weights (not sample variances), on the 8-bit grey.
buffer = io.BytesIO()
photo.save(buffer, "JPEG", quality=30)
Image.open(io.BytesIO(buffer.getvalue())).convert("RGB").save("photo-jpeg30.png")
photo.filter(ImageFilter.GaussianBlur(1)).save("photo-blurred.png")


def ssim(name):
    grey = numpy.asarray(photo.convert("L"), dtype=numpy.float64)
    other = numpy.asarray(Image.open(name).convert("L"), dtype=numpy.float64)
    return round(float(structural_similarity(grey, other, gaussian_weights=True, sigma=1.5,
                                             use_sample_covariance=False, data_range=255)), 8)


references = {"ssim": {"photo-jpeg30": ssim("photo-jpeg30.png"), "photo-blurred": ssim("photo-blurred.png")},
              "blurhash": {}, "thumbhash": {}, "phash": {
    "grey-32": str(imagehash.phash(grey)),
    "photo": str(imagehash.phash(photo)),
    "alpha": str(imagehash.phash(alpha)),
}}
for name, image in (("photo", photo), ("alpha", alpha)):
    hashes = {}
    for (cx, cy) in ((1, 1), (4, 3), (9, 9), (3, 7)):
        hashes[f"{cx}x{cy}"] = blurhash.encode(image.copy(), cx, cy)  # it closes what it is given
    references["blurhash"][name] = hashes
    # The reference decoder's pixels for one of them, at 32x32 and at 20x30 with punch 2.
    blurhash.decode(hashes["4x3"], 32, 32).save(f"{name}-blurhash-4x3-32x32.png")
    blurhash.decode(hashes["4x3"], 20, 30, punch=2).save(f"{name}-blurhash-4x3-20x30-punch2.png")

    rgba = list(image.convert("RGBA").tobytes())
    hash_bytes = thumbhash.rgba_to_thumb_hash(image.width, image.height, rgba)
    average = thumbhash.thumb_hash_to_average_rgba(hash_bytes)
    ratio = thumbhash.thumb_hash_to_approximate_aspect_ratio(hash_bytes)
    width, height, decoded = thumbhash.thumb_hash_to_rgba(hash_bytes)
    Image.frombytes("RGBA", (width, height), bytes(decoded)).save(f"{name}-thumbhash.png")
    references["thumbhash"][name] = {
        "hash": bytes(hash_bytes).hex(),
        "average": [round(channel, 6) for channel in average],
        "aspectRatio": round(ratio, 6),
        "decodedSize": [width, height],
    }

with open("references.json", "w") as file:
    json.dump(references, file, indent=2, sort_keys=True)
    file.write("\n")
