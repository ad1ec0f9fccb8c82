// A push decoder on libjpeg's API for JPEG data that arrives in pieces.
//
// libjpeg reports errors by calling error_exit, whose default ends in exit() and whose usual replacement
// longjmps. A longjmp must never cross Swift frames, so every entry point here sets its own jump target and
// returns a status instead: libjpeg's longjmp stays inside this file. After WI_JPEG_ERROR the decoder is dead;
// only wi_jpeg_message / wi_jpeg_error_kind / wi_jpeg_destroy may be called.
//
// Input is copied into a buffer owned by the decoder. The source manager suspends (fill_input_buffer returns
// FALSE) when that buffer runs dry, so libjpeg backs up to the start of the unit it was reading and resumes there
// when more bytes are appended; only the bytes libjpeg has not consumed yet are kept.
//
// Not thread-safe: one decoder is used by one thread at a time.
#ifndef WI_JPEG_INCREMENTAL_H
#define WI_JPEG_INCREMENTAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct wi_jpeg wi_jpeg;

typedef enum {
    WI_JPEG_OK = 0,         // the step is done
    WI_JPEG_SUSPENDED = 1,  // the step needs more data; call again after wi_jpeg_append
    WI_JPEG_ERROR = 2,      // libjpeg failed; see wi_jpeg_message and wi_jpeg_error_kind
} wi_jpeg_status;

typedef enum {
    WI_JPEG_KIND_NONE = 0,
    WI_JPEG_KIND_CORRUPT = 1,      // bad or inconsistent data
    WI_JPEG_KIND_UNSUPPORTED = 2,  // a valid JPEG libjpeg cannot decode (12-bit, lossless, hierarchical)
    WI_JPEG_KIND_TOO_LARGE = 3,    // over libjpeg's size limit, or out of memory
} wi_jpeg_error_kind;

typedef struct {
    uint32_t width, height;  // the frame size from SOF
    int components;
    int is_cmyk;             // CMYK or YCCK: needs CMYK output and a conversion
    int has_adobe_marker;    // an Adobe APP14 segment (CMYK samples stored inverted)
    int has_multiple_scans;  // progressive or multi-scan: decoded in buffered-image mode
    const uint8_t *exif;     // the first APP1 segment starting "Exif\0\0", or NULL; owned by the decoder
    size_t exif_length;
} wi_jpeg_header;

wi_jpeg *wi_jpeg_create(void);
void wi_jpeg_destroy(wi_jpeg *decoder);

// Copies `count` bytes after the ones already given. Returns 0, or -1 when out of memory.
int wi_jpeg_append(wi_jpeg *decoder, const uint8_t *bytes, size_t count);

// Reads the markers up to the first scan.
wi_jpeg_status wi_jpeg_read_header(wi_jpeg *decoder, wi_jpeg_header *header);

// Starts decompression to RGBA (CMYK for CMYK/YCCK sources) at DCT scale scale_num/8, with the accurate
// integer IDCT and smooth upsampling (TurboJPEG's defaults). Writes the output size. Allocates libjpeg's
// working memory, so limits must be checked before.
wi_jpeg_status wi_jpeg_start(wi_jpeg *decoder, unsigned scale_num, uint32_t *output_width, uint32_t *output_height);

// The output size chosen by wi_jpeg_start.
void wi_jpeg_output_size(const wi_jpeg *decoder, uint32_t *width, uint32_t *height);

// Single-scan files: decodes as many rows as the data allows into `canvas` (rows of `stride` bytes) and sets
// *rows_done to the number of rows finished so far. Returns OK once every row is done and the end-of-image
// marker was read.
wi_jpeg_status wi_jpeg_read_rows(wi_jpeg *decoder, uint8_t *canvas, size_t stride, uint32_t *rows_done);

// Multi-scan files: absorbs every byte available into the coefficient buffer. Returns OK once the end-of-image
// marker was read, SUSPENDED while more is expected.
wi_jpeg_status wi_jpeg_consume(wi_jpeg *decoder);

// Scans whose data is completely in the coefficient buffer (multi-scan files).
int wi_jpeg_completed_scans(const wi_jpeg *decoder);
// Scan being read now (1-based; equals the completed count at a scan boundary).
int wi_jpeg_input_scan(const wi_jpeg *decoder);

// Multi-scan files: one output pass over the coefficient buffer as of scan `scan` into `output`. Block
// smoothing on or off (TurboJPEG decodes with it on). SUSPENDED means the pass could not be finished without
// more data (nothing useful was written).
wi_jpeg_status wi_jpeg_render(wi_jpeg *decoder, int scan, int block_smoothing, uint8_t *output, size_t stride);

// Releases libjpeg's working memory after the end of the image (jpeg_finish_decompress).
wi_jpeg_status wi_jpeg_finish(wi_jpeg *decoder);

// The first warning libjpeg gave, as its message code, or -1 when none. Whether it is harmless: see
// wi_jpeg_first_warning_is_harmless.
int wi_jpeg_first_warning(const wi_jpeg *decoder);
// 1 when there was no warning or the first one leaves the pixels intact (stray bytes between segments, an
// unknown JFIF version, a bad ICC segment, meaningless scan parameters in a sequential file): the same policy as
// the JPEG coder's.
int wi_jpeg_first_warning_is_harmless(const wi_jpeg *decoder);
// The text of the first warning, or "" when none.
const char *wi_jpeg_warning_message(const wi_jpeg *decoder);

// Makes a first warning that is not harmless (see wi_jpeg_first_warning_is_harmless) an error the moment libjpeg
// gives it, instead of a note read after the decode: for a whole file, where such a warning refuses the pixels
// anyway, so that a flood of repeated refinement scans (each one a warning) stops at its first, not after
// seconds of decoding the rest. Call before wi_jpeg_read_header.
void wi_jpeg_set_strict(wi_jpeg *decoder);

// The most scans a file may have. Real progressive files have about ten (libjpeg's and mozjpeg's scripts);
// every scan walks every block of its components, so a file of many tiny scans costs its pixel count once per
// scan: at 500 (TurboJPEG's TJFLAG_LIMITSCANS limit) a flat 50-megapixel file of 135 KB took 20 s to decode.
#define WI_JPEG_MAX_SCANS 100

const char *wi_jpeg_message(const wi_jpeg *decoder);
wi_jpeg_error_kind wi_jpeg_error_kind_of(const wi_jpeg *decoder);

#endif
