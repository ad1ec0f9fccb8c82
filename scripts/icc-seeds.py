"""Writes seed inputs for the FuzzColorProfile harness: real ICC profiles made by Little CMS (through ctypes, so
nothing but the system library is needed), each behind the harness's mode byte. Usage: icc-seeds.py CORPUS_DIR"""
import ctypes
import os
import struct
import sys
import zlib

lcms = ctypes.CDLL("liblcms2.so.2")
lcms.cmsBuildParametricToneCurve.restype = ctypes.c_void_p
lcms.cmsCreateRGBProfile.restype = ctypes.c_void_p
lcms.cmsCreateGrayProfile.restype = ctypes.c_void_p
lcms.cmsCreateLab4Profile.restype = ctypes.c_void_p
lcms.cmsCreate_sRGBProfile.restype = ctypes.c_void_p


class XYY(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]


def curve(kind, *params):
    values = (ctypes.c_double * len(params))(*params)
    return lcms.cmsBuildParametricToneCurve(None, kind, values)


def rgb(primaries, tone):
    white = XYY(0.3127, 0.3290, 1.0)
    triple = (XYY * 3)(*(XYY(x, y, 1.0) for x, y in primaries))
    curves = (ctypes.c_void_p * 3)(tone, tone, tone)
    return lcms.cmsCreateRGBProfile(ctypes.byref(white), triple, curves)


def save(profile):
    size = ctypes.c_uint32(0)
    lcms.cmsSaveProfileToMem(ctypes.c_void_p(profile), None, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    lcms.cmsSaveProfileToMem(ctypes.c_void_p(profile), buffer, ctypes.byref(size))
    return buffer.raw


srgb_curve = curve(4, 2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)
white = XYY(0.3127, 0.3290, 1.0)
profiles = {
    "p3": save(rgb([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], srgb_curve)),
    "adobe": save(rgb([(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)], curve(1, 563 / 256))),
    "gray": save(lcms.cmsCreateGrayProfile(ctypes.byref(white), ctypes.c_void_p(curve(1, 2.2)))),
    "srgb": save(lcms.cmsCreate_sRGBProfile()),
    "lab": save(lcms.cmsCreateLab4Profile(None)),
}
corpus = sys.argv[1]
for name, icc in profiles.items():
    with open(os.path.join(corpus, "icc-" + name), "wb") as handle:
        handle.write(b"\x00" + icc)
    with open(os.path.join(corpus, "iccp-" + name), "wb") as handle:
        handle.write(b"\x01" + b"seed\x00\x00" + zlib.compress(icc))
    with open(os.path.join(corpus, "app2-" + name), "wb") as handle:
        handle.write(b"\x02" + struct.pack("B", 200) + b"\x00" + icc)
