#include <tiffio.h>

// TIFFGetFieldDefaulted is variadic, which Swift cannot call: one typed wrapper per shape of tag this package
// reads outside libtiff's RGBA reader. Each returns 1 when the tag (or its default) is there, 0 otherwise.
static inline int webimage_tiff_get_uint16(TIFF *tiff, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(tiff, tag, value);
}

static inline int webimage_tiff_get_uint32(TIFF *tiff, uint32_t tag, uint32_t *value) {
    return TIFFGetFieldDefaulted(tiff, tag, value);
}

// The embedded ICC profile (tag 34675): its size and a pointer into libtiff's copy, valid while the directory is.
static inline int webimage_tiff_get_icc_profile(TIFF *tiff, uint32_t *count, void **data) {
    return TIFFGetField(tiff, TIFFTAG_ICCPROFILE, count, data);
}
