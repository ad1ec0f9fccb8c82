#include <zlib.h>

/* inflateInit is a macro; this gives Swift a function with the library's own version and struct size. */
static inline int webimage_inflate_init(z_stream *stream) { return inflateInit(stream); }

/* The same for a gzip stream (RFC 1952 header and trailer, CRC-32 checked): window bits 16 + 15. */
static inline int webimage_inflate_init_gzip(z_stream *stream) { return inflateInit2(stream, 16 + MAX_WBITS); }

/* deflateInit2 is a macro too: a gzip stream (header and trailer written by zlib) at `level`. */
static inline int webimage_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
