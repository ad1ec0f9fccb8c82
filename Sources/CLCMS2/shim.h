#include <lcms2.h>

// lcms describes pixel layouts with function-like macros, which Swift cannot import: the layouts the library
// converts, as functions.
static inline cmsUInt32Number wi_type_rgba_8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number wi_type_rgb_8(void) { return TYPE_RGB_8; }
static inline cmsUInt32Number wi_type_rgba_16(void) { return TYPE_RGBA_16; }
static inline cmsUInt32Number wi_type_rgba_flt(void) { return TYPE_RGBA_FLT; }
static inline cmsUInt32Number wi_type_cmyk_8(void) { return TYPE_CMYK_8; }
static inline cmsUInt32Number wi_type_cmyk_8_rev(void) { return TYPE_CMYK_8_REV; }
// One gray sample followed by three bytes lcms leaves alone (the G, B and A of an RGBA pixel whose R holds it).
static inline cmsUInt32Number wi_type_gray_in_rgba_8(void) {
    return COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
}
// The same with 16-bit samples (an RGBA16 pixel whose R holds the gray).
static inline cmsUInt32Number wi_type_gray_in_rgba_16(void) {
    return COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(2) | EXTRA_SH(3);
}
