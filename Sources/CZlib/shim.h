#include <zlib.h>

/* inflateInit is a macro; this gives Swift a function with the library's own version and struct size. */
static inline int webimage_inflate_init(z_stream *stream) { return inflateInit(stream); }
