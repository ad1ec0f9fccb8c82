// See PNGIncremental.h. Each entry point that runs libpng code sets png_jmpbuf first, so libpng's error longjmp
// lands in this file and never crosses a Swift frame.
#include "PNGIncremental.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

struct wi_png {
    png_structp png;
    png_infop info;
    uint64_t max_pixels;
    char message[256];
    int failed;
    int too_large;
    int header_ready;
    int ended;
    wi_png_header header;
    uint8_t *canvas;
    size_t stride;
    int pass;
    uint32_t last_row;
    uint32_t rows_filled;
    uint64_t rows_delivered;
    int image_complete;  // the last row of the last pass was delivered
    uint8_t *exif;
    uint32_t exif_length;
};

static void wi_png_on_error(png_structp png, png_const_charp message) {
    wi_png *decoder = png_get_error_ptr(png);
    if (decoder->message[0] == 0) {
        strncpy(decoder->message, message, sizeof(decoder->message) - 1);
    }
    // Allocation failures and an ancillary chunk over the chunk limit are limits; a critical chunk "too large"
    // (IDAT longer than the image can need, PLTE over 16 MB) is damage. libpng prefixes the chunk's name.
    int ancillary = message[0] >= 'a' && message[0] <= 'z' && message[4] == ':';
    if (strstr(message, "memory") != NULL || strstr(message, "exceeds") != NULL ||
        (ancillary && strstr(message, "chunk data is too large") != NULL)) {
        decoder->too_large = 1;
    }
    png_longjmp(png, 1);
}

static void wi_png_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;  // libpng's warnings are about metadata it then ignores; never printed
}

static void wi_png_fail(wi_png *decoder, int too_large, const char *message) {
    strncpy(decoder->message, message, sizeof(decoder->message) - 1);
    decoder->too_large = too_large;
    png_longjmp(decoder->png, 1);
}

// The header is in: check the size, choose the transformations to RGBA8, then pause until Swift has checked
// the limits too and handed over a canvas.
static void wi_png_on_info(png_structp png, png_infop info) {
    wi_png *decoder = png_get_progressive_ptr(png);
    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    if ((uint64_t)width * (uint64_t)height > decoder->max_pixels) {
        wi_png_fail(decoder, 1, "the header declares more pixels than the limit");
    }
    decoder->header.width = width;
    decoder->header.height = height;
    decoder->header.bit_depth = bit_depth;
    decoder->header.color_type = color_type;
    decoder->header.interlaced = interlace != PNG_INTERLACE_NONE;
    decoder->header.has_alpha =
        (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0;

    png_set_expand(png);  // palette to RGB, gray below 8 bits to 8, tRNS to alpha
    if (bit_depth == 16) {
        // Rounds to nearest, (v * 255 + 32767) / 65535, as the PNG coder does (png_set_strip_16 would truncate).
        png_set_scale_16(png);
    }
    if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);  // only where there is no alpha channel yet
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) {
        wi_png_fail(decoder, 0, "unexpected row layout after transformations");
    }
    decoder->header_ready = 1;
    (void)png_process_data_pause(png, 1);  // libpng keeps the unread bytes until wi_png_process resumes
}

static void wi_png_on_row(png_structp png, png_bytep new_row, png_uint_32 row, int pass) {
    wi_png *decoder = png_get_progressive_ptr(png);
    if (row >= decoder->header.height) return;
    decoder->pass = pass;
    decoder->last_row = row;
    // With interlace handling libpng calls back for every row of every pass it runs, and Adam7's last pass
    // (index 6) always runs: the image is whole after its last row.
    if (row + 1 == decoder->header.height && pass == (decoder->header.interlaced ? 6 : 0)) {
        decoder->image_complete = 1;
    }
    if (new_row == NULL) return;
    png_progressive_combine_row(png, decoder->canvas + (size_t)row * decoder->stride, new_row);
    decoder->rows_delivered++;
    if (row + 1 > decoder->rows_filled) decoder->rows_filled = row + 1;
}

static void wi_png_on_end(png_structp png, png_infop info) {
    (void)info;
    wi_png *decoder = png_get_progressive_ptr(png);
    // Never hand out a canvas with rows libpng did not write (they would show recycled memory).
    if (!decoder->image_complete) wi_png_fail(decoder, 0, "the image data ends before the last row");
    decoder->ended = 1;
}

// Chunks libpng's push reader does not handle itself (eXIf among them, and APNG's) and the ones listed as
// ignored: the first eXIf is kept, the rest dropped. An unknown critical chunk is left to libpng, which fails.
static int wi_png_on_unknown_chunk(png_structp png, png_unknown_chunkp chunk) {
    wi_png *decoder = png_get_user_chunk_ptr(png);
    if ((chunk->name[0] & 0x20) == 0) return 0;
    if (memcmp(chunk->name, "eXIf", 4) == 0 && decoder->exif == NULL && chunk->size > 0) {
        decoder->exif = malloc(chunk->size);
        if (decoder->exif != NULL) {
            memcpy(decoder->exif, chunk->data, chunk->size);
            decoder->exif_length = (uint32_t)chunk->size;
        }
    }
    return 1;
}

wi_png *wi_png_create(uint64_t max_pixels, size_t max_chunk_bytes) {
    wi_png *decoder = calloc(1, sizeof(wi_png));
    if (decoder == NULL) return NULL;
    decoder->max_pixels = max_pixels;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, wi_png_on_error, wi_png_on_warning);
    if (decoder->png == NULL) {
        free(decoder);
        return NULL;
    }
    decoder->info = png_create_info_struct(decoder->png);
    if (decoder->info == NULL) {
        png_destroy_read_struct(&decoder->png, NULL, NULL);
        free(decoder);
        return NULL;
    }
    // Sides are limited by the pixel count in wi_png_on_info, not by libpng's default 1,000,000 per side
    // (libspng, behind the PNG coder, has no such default either).
    png_set_user_limits(decoder->png, 0x7fffffff, 0x7fffffff);
    png_set_chunk_malloc_max(decoder->png, max_chunk_bytes);
    // Text and ICC profiles are never used here; skipping them also skips inflating compressed ones.
    static const png_byte ignored[] = "tEXt\0zTXt\0iTXt\0iCCP\0sPLT\0";
    png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, ignored, 5);
    // Damage libpng would only warn about (a bad checksum, a broken ancillary chunk) fails the decode, as it
    // does in libspng.
    png_set_benign_errors(decoder->png, 0);
    png_set_read_user_chunk_fn(decoder->png, decoder, wi_png_on_unknown_chunk);
    png_set_progressive_read_fn(decoder->png, decoder, wi_png_on_info, wi_png_on_row, wi_png_on_end);
    return decoder;
}

void wi_png_destroy(wi_png *decoder) {
    if (decoder == NULL) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder->exif);
    free(decoder);
}

wi_png_status wi_png_process(wi_png *decoder, const uint8_t *bytes, size_t count) {
    if (decoder->failed) return WI_PNG_ERROR;
    if (decoder->header_ready && decoder->canvas == NULL) {
        strncpy(decoder->message, "no canvas was given after the header", sizeof(decoder->message) - 1);
        decoder->failed = 1;
        return WI_PNG_ERROR;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->failed = 1;
        return WI_PNG_ERROR;
    }
    png_process_data(decoder->png, decoder->info, (png_bytep)bytes, count);
    return WI_PNG_OK;
}

int wi_png_wants_canvas(const wi_png *decoder, wi_png_header *header) {
    if (!decoder->header_ready || decoder->canvas != NULL) return 0;
    *header = decoder->header;
    return 1;
}

void wi_png_set_canvas(wi_png *decoder, uint8_t *canvas, size_t stride) {
    decoder->canvas = canvas;
    decoder->stride = stride;
}

uint32_t wi_png_rows_filled(const wi_png *decoder) { return decoder->rows_filled; }

uint32_t wi_png_rows_final(const wi_png *decoder) {
    if (decoder->ended) return decoder->header.height;
    if (!decoder->header.interlaced) return decoder->rows_filled;
    // Adam7's last pass (index 6) fills the odd rows; the even ones are complete before it starts.
    return decoder->pass == 6 ? decoder->last_row + 1 : 0;
}

uint64_t wi_png_progress(const wi_png *decoder) { return decoder->rows_delivered; }

int wi_png_ended(const wi_png *decoder) { return decoder->ended; }

const uint8_t *wi_png_exif(const wi_png *decoder, uint32_t *length) {
    *length = decoder->exif_length;
    return decoder->exif;
}

const char *wi_png_message(const wi_png *decoder) { return decoder->message; }

int wi_png_error_is_too_large(const wi_png *decoder) { return decoder->too_large; }
