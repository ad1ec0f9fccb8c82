// See JPEGIncremental.h. Every function that calls into libjpeg sets a jump target first (GUARD), so libjpeg's
// error_exit longjmps back into this file and never through a Swift frame.
#include "JPEGIncremental.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

struct wi_error_manager {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int error_code;
    int error_parameter;  // the first numeric parameter of the error message (a marker code, say)
    int first_warning;
    char warning_message[JMSG_LENGTH_MAX];
};

struct wi_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct wi_error_manager errors;
    struct jpeg_source_mgr source;
    uint8_t *buffer;        // unconsumed input; source.next_input_byte points into it
    size_t capacity;
    size_t skip_pending;    // bytes skip_input_data still has to drop from data not yet appended
    int created;
    int failed;
    int started;
    int finish_output_pending;  // jpeg_finish_output suspended after a render; retried before more input
    int completed_scans;
    int end_reached;
    int finished;
    int strict;  // a first warning that is not harmless is an error (wi_jpeg_set_strict)
};

#define GUARD(decoder)                                   \
    if ((decoder)->failed) return WI_JPEG_ERROR;         \
    if (setjmp((decoder)->errors.jump)) {                \
        (decoder)->failed = 1;                           \
        return WI_JPEG_ERROR;                            \
    }

static void wi_error_exit(j_common_ptr cinfo) {
    struct wi_error_manager *errors = (struct wi_error_manager *)cinfo->err;
    errors->error_code = errors->pub.msg_code;
    errors->error_parameter = errors->pub.msg_parm.i[0];
    (*cinfo->err->format_message)(cinfo, errors->message);
    longjmp(errors->jump, 1);
}

static int is_harmless_warning(int code) {
    switch (code) {
    case -1:
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_JFIF_MAJOR:
    case JWRN_BOGUS_ICC:
    case JWRN_NOT_SEQUENTIAL:
        return 1;
    default:
        return 0;
    }
}

// Warnings are recorded, never printed; trace messages are dropped. The first warning decides whether the pixels
// count as intact, as TurboJPEG's first (and only reported) warning does for the coder's other decodes. A strict
// decoder turns that first warning, when it is not harmless, into an error here, inside the libjpeg call that
// found it (every such call runs under GUARD).
static void wi_emit_message(j_common_ptr cinfo, int level) {
    struct wi_error_manager *errors = (struct wi_error_manager *)cinfo->err;
    if (level >= 0) return;
    if (errors->pub.num_warnings == 0) {
        struct wi_jpeg *decoder = (struct wi_jpeg *)((char *)errors - offsetof(struct wi_jpeg, errors));
        if (decoder->strict && !is_harmless_warning(errors->pub.msg_code)) wi_error_exit(cinfo);
        errors->first_warning = errors->pub.msg_code;
        (*cinfo->err->format_message)(cinfo, errors->warning_message);
    }
    errors->pub.num_warnings++;
}

static void wi_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void wi_init_source(j_decompress_ptr cinfo) { (void)cinfo; }

// No more data for now: suspend. libjpeg backs up to where it can resume.
static boolean wi_fill_input_buffer(j_decompress_ptr cinfo) {
    (void)cinfo;
    return FALSE;
}

// Skips may not suspend: drop what is here and remember the rest for wi_jpeg_append.
static void wi_skip_input_data(j_decompress_ptr cinfo, long count) {
    struct wi_jpeg *decoder = (struct wi_jpeg *)((char *)cinfo - offsetof(struct wi_jpeg, cinfo));
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= source->bytes_in_buffer) {
        source->next_input_byte += count;
        source->bytes_in_buffer -= (size_t)count;
    } else {
        decoder->skip_pending += (size_t)count - source->bytes_in_buffer;
        source->next_input_byte += source->bytes_in_buffer;
        source->bytes_in_buffer = 0;
    }
}

static void wi_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

// jpeg_create_decompress can fail (out of memory) through error_exit.
static int create_decompressor(wi_jpeg *decoder) {
    if (setjmp(decoder->errors.jump)) return 0;
    jpeg_create_decompress(&decoder->cinfo);
    return 1;
}

wi_jpeg *wi_jpeg_create(void) {
    wi_jpeg *decoder = calloc(1, sizeof(wi_jpeg));
    if (decoder == NULL) return NULL;
    decoder->cinfo.err = jpeg_std_error(&decoder->errors.pub);
    decoder->errors.pub.error_exit = wi_error_exit;
    decoder->errors.pub.emit_message = wi_emit_message;
    decoder->errors.pub.output_message = wi_output_message;
    decoder->errors.first_warning = -1;
    if (!create_decompressor(decoder)) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    decoder->created = 1;
    decoder->source.init_source = wi_init_source;
    decoder->source.fill_input_buffer = wi_fill_input_buffer;
    decoder->source.skip_input_data = wi_skip_input_data;
    decoder->source.resync_to_restart = jpeg_resync_to_restart;
    decoder->source.term_source = wi_term_source;
    decoder->source.next_input_byte = NULL;
    decoder->source.bytes_in_buffer = 0;
    decoder->cinfo.src = &decoder->source;
    // The orientation lives in APP1; the JPEG coder reads only the first "Exif" one, as we do.
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    return decoder;
}

void wi_jpeg_destroy(wi_jpeg *decoder) {
    if (decoder == NULL) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder->buffer);
    free(decoder);
}

int wi_jpeg_append(wi_jpeg *decoder, const uint8_t *bytes, size_t count) {
    if (decoder->skip_pending > 0) {
        size_t skipped = count < decoder->skip_pending ? count : decoder->skip_pending;
        decoder->skip_pending -= skipped;
        bytes += skipped;
        count -= skipped;
    }
    if (count == 0) return 0;
    size_t remaining = decoder->source.bytes_in_buffer;
    if (remaining > 0 && decoder->source.next_input_byte != decoder->buffer) {
        memmove(decoder->buffer, decoder->source.next_input_byte, remaining);
    }
    if (remaining + count > decoder->capacity) {
        size_t capacity = decoder->capacity < 16384 ? 16384 : decoder->capacity;
        while (capacity < remaining + count) capacity *= 2;
        uint8_t *grown = realloc(decoder->buffer, capacity);
        if (grown == NULL) return -1;
        decoder->buffer = grown;
        decoder->capacity = capacity;
    }
    memcpy(decoder->buffer + remaining, bytes, count);
    decoder->source.next_input_byte = decoder->buffer;
    decoder->source.bytes_in_buffer = remaining + count;
    return 0;
}

static void find_exif(wi_jpeg *decoder, wi_jpeg_header *header) {
    static const uint8_t signature[6] = {'E', 'x', 'i', 'f', 0, 0};
    for (jpeg_saved_marker_ptr marker = decoder->cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 &&
            memcmp(marker->data, signature, 6) == 0) {
            header->exif = marker->data;
            header->exif_length = marker->data_length;
            return;
        }
    }
}

wi_jpeg_status wi_jpeg_read_header(wi_jpeg *decoder, wi_jpeg_header *header) {
    GUARD(decoder);
    int result = jpeg_read_header(&decoder->cinfo, TRUE);
    if (result == JPEG_SUSPENDED) return WI_JPEG_SUSPENDED;
    if (result != JPEG_HEADER_OK) {
        // A tables-only stream: no image follows.
        strcpy(decoder->errors.message, "the JPEG stream holds tables but no image");
        decoder->errors.error_code = JERR_EMPTY_IMAGE;
        decoder->failed = 1;
        return WI_JPEG_ERROR;
    }
    memset(header, 0, sizeof(*header));
    header->width = decoder->cinfo.image_width;
    header->height = decoder->cinfo.image_height;
    header->components = decoder->cinfo.num_components;
    header->is_cmyk = decoder->cinfo.jpeg_color_space == JCS_CMYK || decoder->cinfo.jpeg_color_space == JCS_YCCK;
    header->has_adobe_marker = decoder->cinfo.saw_Adobe_marker;
    header->has_multiple_scans = jpeg_has_multiple_scans(&decoder->cinfo);
    find_exif(decoder, header);
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jpeg_start(wi_jpeg *decoder, unsigned scale_num, uint32_t *output_width, uint32_t *output_height) {
    GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    cinfo->dct_method = JDCT_ISLOW;
    cinfo->do_fancy_upsampling = TRUE;
    cinfo->scale_num = scale_num;
    cinfo->scale_denom = 8;
    cinfo->buffered_image = jpeg_has_multiple_scans(cinfo);
    jpeg_calc_output_dimensions(cinfo);
    // In buffered-image mode this never reads input; otherwise a single-scan file needs none to start either.
    if (!jpeg_start_decompress(cinfo)) return WI_JPEG_SUSPENDED;
    decoder->started = 1;
    *output_width = cinfo->output_width;
    *output_height = cinfo->output_height;
    return WI_JPEG_OK;
}

void wi_jpeg_output_size(const wi_jpeg *decoder, uint32_t *width, uint32_t *height) {
    *width = decoder->cinfo.output_width;
    *height = decoder->cinfo.output_height;
}

wi_jpeg_status wi_jpeg_read_rows(wi_jpeg *decoder, uint8_t *canvas, size_t stride, uint32_t *rows_done) {
    GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[8];
        JDIMENSION wanted = cinfo->output_height - cinfo->output_scanline;
        if (wanted > 8) wanted = 8;
        for (JDIMENSION index = 0; index < wanted; index++) {
            rows[index] = canvas + (size_t)(cinfo->output_scanline + index) * stride;
        }
        JDIMENSION read = jpeg_read_scanlines(cinfo, rows, wanted);
        *rows_done = cinfo->output_scanline;
        if (read == 0) return WI_JPEG_SUSPENDED;
    }
    *rows_done = cinfo->output_scanline;
    if (!decoder->finished) {
        if (!jpeg_finish_decompress(cinfo)) return WI_JPEG_SUSPENDED;
        decoder->finished = 1;
        decoder->end_reached = 1;
    }
    return WI_JPEG_OK;
}

static void check_scan_count(wi_jpeg *decoder) {
    if (decoder->cinfo.input_scan_number > WI_JPEG_MAX_SCANS) {
        snprintf(decoder->errors.message, sizeof(decoder->errors.message),
                 "Progressive JPEG image has more than %d scans", WI_JPEG_MAX_SCANS);
        decoder->errors.error_code = JERR_BAD_SCAN_SCRIPT;
        longjmp(decoder->errors.jump, 1);
    }
}

wi_jpeg_status wi_jpeg_consume(wi_jpeg *decoder) {
    GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (decoder->finish_output_pending) {
        if (!jpeg_finish_output(cinfo)) return WI_JPEG_SUSPENDED;
        decoder->finish_output_pending = 0;
    }
    while (!decoder->end_reached) {
        int result = jpeg_consume_input(cinfo);
        check_scan_count(decoder);
        switch (result) {
        case JPEG_SUSPENDED:
            return WI_JPEG_SUSPENDED;
        case JPEG_SCAN_COMPLETED:
            decoder->completed_scans = cinfo->input_scan_number;
            break;
        case JPEG_REACHED_EOI:
            decoder->completed_scans = cinfo->input_scan_number;
            decoder->end_reached = 1;
            break;
        default:
            break;
        }
    }
    return WI_JPEG_OK;
}

int wi_jpeg_completed_scans(const wi_jpeg *decoder) { return decoder->completed_scans; }

int wi_jpeg_input_scan(const wi_jpeg *decoder) { return decoder->cinfo.input_scan_number; }

wi_jpeg_status wi_jpeg_render(wi_jpeg *decoder, int scan, int block_smoothing, uint8_t *output, size_t stride) {
    GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (decoder->finish_output_pending) {
        if (!jpeg_finish_output(cinfo)) return WI_JPEG_SUSPENDED;
        decoder->finish_output_pending = 0;
    }
    cinfo->do_block_smoothing = block_smoothing ? TRUE : FALSE;
    if (!jpeg_start_output(cinfo, scan)) return WI_JPEG_SUSPENDED;
    wi_jpeg_status status = WI_JPEG_OK;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[8];
        JDIMENSION wanted = cinfo->output_height - cinfo->output_scanline;
        if (wanted > 8) wanted = 8;
        for (JDIMENSION index = 0; index < wanted; index++) {
            rows[index] = output + (size_t)(cinfo->output_scanline + index) * stride;
        }
        if (jpeg_read_scanlines(cinfo, rows, wanted) == 0) {
            // The pass wanted input that has not arrived: abandon it (jpeg_finish_output ends a pass early).
            status = WI_JPEG_SUSPENDED;
            break;
        }
    }
    if (!jpeg_finish_output(cinfo)) decoder->finish_output_pending = 1;
    return status;
}

wi_jpeg_status wi_jpeg_finish(wi_jpeg *decoder) {
    GUARD(decoder);
    if (decoder->finished) return WI_JPEG_OK;
    if (decoder->finish_output_pending) {
        if (!jpeg_finish_output(&decoder->cinfo)) return WI_JPEG_SUSPENDED;
        decoder->finish_output_pending = 0;
    }
    if (!jpeg_finish_decompress(&decoder->cinfo)) return WI_JPEG_SUSPENDED;
    decoder->finished = 1;
    return WI_JPEG_OK;
}

int wi_jpeg_first_warning(const wi_jpeg *decoder) { return decoder->errors.first_warning; }

int wi_jpeg_first_warning_is_harmless(const wi_jpeg *decoder) {
    return is_harmless_warning(decoder->errors.first_warning);
}

void wi_jpeg_set_strict(wi_jpeg *decoder) { decoder->strict = 1; }

const char *wi_jpeg_warning_message(const wi_jpeg *decoder) { return decoder->errors.warning_message; }

const char *wi_jpeg_message(const wi_jpeg *decoder) { return decoder->errors.message; }

wi_jpeg_error_kind wi_jpeg_error_kind_of(const wi_jpeg *decoder) {
    if (!decoder->failed) return WI_JPEG_KIND_NONE;
    switch (decoder->errors.error_code) {
    case JERR_BAD_PRECISION:
    case JERR_ARITH_NOTIMPL:
        return WI_JPEG_KIND_UNSUPPORTED;
    case JERR_SOF_UNSUPPORTED:
        // A lossless or hierarchical frame header is a JPEG we cannot decode; the same error for the reserved JPG
        // marker (0xC8), or for any of them after the header, is damage. The JPEG coder decides the same way.
        return !decoder->started && decoder->errors.error_parameter != 0xC8 ? WI_JPEG_KIND_UNSUPPORTED
                                                                             : WI_JPEG_KIND_CORRUPT;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
    case JERR_OUT_OF_MEMORY:
        return WI_JPEG_KIND_TOO_LARGE;
    default:
        return WI_JPEG_KIND_CORRUPT;
    }
}
