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

// The kinds of the extra samples (tag 338): alpha associated, unassociated, or unspecified; `count` is 0 without
// the tag. The array is libtiff's, valid while the directory is.
static inline int webimage_tiff_get_extra_samples(TIFF *tiff, uint16_t *count, uint16_t **kinds) {
    return TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, count, kinds);
}

// TIFFSetField is variadic too: the setters the TIFF encoder needs. Each returns 1 when libtiff took the value.
static inline int webimage_tiff_set_uint16(TIFF *tiff, uint32_t tag, uint16_t value) {
    return TIFFSetField(tiff, tag, value);
}

static inline int webimage_tiff_set_uint32(TIFF *tiff, uint32_t tag, uint32_t value) {
    return TIFFSetField(tiff, tag, value);
}

static inline int webimage_tiff_set_extra_samples(TIFF *tiff, uint16_t count, const uint16_t *kinds) {
    return TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, count, kinds);
}
