#include <zlib.h>

/* inflateInit is a macro; this gives Swift a function with the library's own version and struct size. */
static inline int webimage_inflate_init(z_stream *stream) { return inflateInit(stream); }
/* The same for inflateInit2 with automatic zlib or gzip header detection (window bits 15 + 32). */
static inline int webimage_inflate_init_zlib_or_gzip(z_stream *stream) { return inflateInit2(stream, 15 + 32); }
