#include <tiffio.h>

// TIFFGetFieldDefaulted is variadic, which Swift cannot call: one typed wrapper per shape of tag this package
// reads outside libtiff's RGBA reader. Each returns 1 when the tag (or its default) is there, 0 otherwise.
static inline int webimage_tiff_get_uint16(TIFF *tiff, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(tiff, tag, value);
}

static inline int webimage_tiff_get_uint32(TIFF *tiff, uint32_t tag, uint32_t *value) {
    return TIFFGetFieldDefaulted(tiff, tag, value);
}
