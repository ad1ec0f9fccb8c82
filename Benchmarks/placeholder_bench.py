#!/usr/bin/env python3
"""The reference side of `Benchmarks/run.sh placeholders`: the BlurHash authors' C encoder and decoder (PyPI
blurhash-python, called through its C binding with the pixels already in a C buffer, so the C code is what is
timed), a Python port of ThumbHash's reference (pure Python: no C ThumbHash exists to compare with), and Pillow's
draft-mode JPEG decode to 100 px before the C BlurHash, on the thumbnail the Swift side wrote.

Usage: placeholder_bench.py DATA_FOLDER   (run in a venv with blurhash-python==1.2.2 thumbhash==0.1.2)
"""
import json
import os
import sys

import blurhash
import thumbhash
from PIL import Image

from pillow_bench import median


def emit(name, implementation, value):
    print(json.dumps({"suite": "placeholders", "name": name, "impl": implementation, "value": value, "unit": "ms"}),
          flush=True)


def c_blurhash(image, x_components, y_components):
    """A call of the C encoder on `image`'s pixels, prepared once."""
    ffi, lib = blurhash._ffi, blurhash._lib
    rgb = ffi.new("uint8_t[]", image.convert("RGB").tobytes())
    destination = ffi.new("char[]", 2 + 4 + (9 * 9 - 1) * 2 + 1)
    width, height = image.size

    def run():
        lib.create_hash_from_pixels(x_components, y_components, width, height, rgb, width * 3, destination)
    return run


def main(folder):
    c_name = "BlurHash C (blurhash-python " + blurhash.__version__ + ")"
    thumbnail = Image.open(os.path.join(folder, "placeholder-100.png"))
    thumbnail.load()
    size = f"{thumbnail.width}x{thumbnail.height}"
    emit(f"BlurHash 4x3 of {size} px", c_name, median(c_blurhash(thumbnail, 4, 3), minimum_runs=200))
    emit(f"BlurHash 9x9 of {size} px", c_name, median(c_blurhash(thumbnail, 9, 9), minimum_runs=200))
    hash_43 = blurhash.encode(thumbnail.copy(), 4, 3)
    ffi, lib = blurhash._ffi, blurhash._lib
    pixels = ffi.new("uint8_t[]", 32 * 32 * 3)
    encoded = hash_43.encode()
    emit("BlurHash 4x3 drawn at 32x32", c_name,
         median(lambda: lib.create_pixels_from_blurhash(encoded, 32, 32, 1, 3, pixels), minimum_runs=200))
    rgba = list(thumbnail.convert("RGBA").tobytes())
    emit(f"ThumbHash of {size} px", "thumbhash 0.1.2 (pure Python)",
         median(lambda: thumbhash.rgba_to_thumb_hash(thumbnail.width, thumbnail.height, rgba)))

    with open(os.path.join(folder, "photo-12mp.jpg"), "rb") as handle:
        photo = handle.read()

    def pillow_thumbnail():
        import io
        image = Image.open(io.BytesIO(photo))
        image.draft("RGB", (100, 100))
        image.thumbnail((100, 100), Image.BOX)
        return image
    pillow = "Pillow " + Image.__version__ + " + " + c_name
    emit("12 MP JPEG → 100 px decode", "Pillow " + Image.__version__, median(pillow_thumbnail))
    emit("12 MP JPEG → 100 px → BlurHash 4x3", pillow,
         median(lambda: c_blurhash(pillow_thumbnail(), 4, 3)()))

    import numpy
    import skimage
    from skimage.metrics import structural_similarity
    original = Image.open(os.path.join(folder, "ssim-original.png"))
    lossy = Image.open(os.path.join(folder, "ssim-jpeg50.png"))
    grey = [numpy.asarray(image.convert("L"), dtype=numpy.float64) for image in (original, lossy)]
    emit(f"SSIM of {original.width}x{original.height} px", "scikit-image " + skimage.__version__,
         median(lambda: structural_similarity(grey[0], grey[1], gaussian_weights=True, sigma=1.5,
                                              use_sample_covariance=False, data_range=255)))


if __name__ == "__main__":
    main(sys.argv[1])
