// A push decoder on libpng's progressive reader (png_process_data) for PNG data that arrives in pieces.
//
// libpng reports errors by longjmp-ing to png_jmpbuf. A longjmp must never cross Swift frames, so every entry
// point that runs libpng sets that jump target itself and returns a status: the longjmp stays inside this file.
// After WI_PNG_ERROR the decoder is dead; only the message accessors and wi_png_destroy may be called.
//
// Output is 8-bit RGBA whatever the source: palettes and low bit depths expanded, tRNS turned into alpha, gray
// copied to RGB, 16-bit samples rounded to the nearest 8-bit value, opaque alpha added where there is none.
// That is exactly what the PNG coder (libspng) produces.
//
// Not thread-safe: one decoder is used by one thread at a time.
#ifndef WI_PNG_INCREMENTAL_H
#define WI_PNG_INCREMENTAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct wi_png wi_png;

typedef enum {
    WI_PNG_OK = 0,     // every byte given was taken (or processing paused at the header, see below)
    WI_PNG_ERROR = 1,  // libpng failed; see wi_png_message and wi_png_error_is_too_large
} wi_png_status;

typedef struct {
    uint32_t width, height;
    int bit_depth;
    int color_type;
    int interlaced;
    int has_alpha;  // an alpha channel or a tRNS chunk
} wi_png_header;

// A decoder refusing images over `max_pixels` pixels and ancillary chunks over `max_chunk_bytes` once inflated.
wi_png *wi_png_create(uint64_t max_pixels, size_t max_chunk_bytes);
void wi_png_destroy(wi_png *decoder);

// Feeds bytes (NULL/0 resumes after wi_png_set_canvas). When the header has been read, processing pauses
// (libpng keeps the rest of the bytes) until a canvas is given.
wi_png_status wi_png_process(wi_png *decoder, const uint8_t *bytes, size_t count);

// 1 once the header is read and the decoder waits for a canvas; fills `header`.
int wi_png_wants_canvas(const wi_png *decoder, wi_png_header *header);
// The RGBA output, `stride` bytes per row, height rows. Owned by the caller; must outlive the decoding.
void wi_png_set_canvas(wi_png *decoder, uint8_t *canvas, size_t stride);

// Rows of the canvas holding decoded pixels (interlaced images: from the earliest pass, blocky before the last).
uint32_t wi_png_rows_filled(const wi_png *decoder);
// Rows final in every pixel: the count of rows before the first unfinished one.
uint32_t wi_png_rows_final(const wi_png *decoder);
// Rows delivered over all passes: grows whenever the canvas changes.
uint64_t wi_png_progress(const wi_png *decoder);
// 1 after the IEND chunk.
int wi_png_ended(const wi_png *decoder);

// The eXIf chunk, if libpng has read one; owned by the decoder.
const uint8_t *wi_png_exif(const wi_png *decoder, uint32_t *length);

const char *wi_png_message(const wi_png *decoder);
// 1 when the failure was a limit (pixels, chunk size) or memory, 0 for corrupt data.
int wi_png_error_is_too_large(const wi_png *decoder);

#endif
