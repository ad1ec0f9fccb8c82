// The reference for the HEIC decode benchmark: libheif called directly, as an application would, to set beside
// HEIFCoder's decode of the same file in a release build.
//
// Each round does what HEIFCoder.decode does: parse the file from memory without a copy
// (heif_context_read_from_memory_without_copy), take the primary image handle, decode it with libheif's defaults
// (libde265; transformations applied) to 8-bit interleaved RGBA, and copy the rows out into one reused buffer.
//
// Build: cc -O2 -o heif_bench heif_bench.c -lheif
// Run:   ./heif_bench file.heic [rounds]    (default 50 rounds)
// Prints one row for Benchmarks/report.py (the mean CPU milliseconds per decode) that also carries
// "bench":"heic-decode-libheif" and "seconds_per_op".
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  // CPU time, as the Swift side measures
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int decodeOnce(const uint8_t *data, size_t size, uint8_t *pixels, size_t capacity) {
    struct heif_context *context = heif_context_alloc();
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int ok = 0;
    if (context && heif_context_read_from_memory_without_copy(context, data, size, NULL).code == heif_error_Ok
        && heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok
        && heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, NULL).code
               == heif_error_Ok) {
        int width = heif_image_get_width(image, heif_channel_interleaved);
        int height = heif_image_get_height(image, heif_channel_interleaved);
        int stride = 0;
        const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
        size_t rowBytes = (size_t)width * 4;
        if (plane && width > 0 && height > 0 && rowBytes * (size_t)height <= capacity) {
            for (int row = 0; row < height; row++) {
                memcpy(pixels + (size_t)row * rowBytes, plane + (size_t)row * (size_t)stride, rowBytes);
            }
            ok = 1;
        }
    }
    if (image) heif_image_release(image);
    if (handle) heif_image_handle_release(handle);
    if (context) heif_context_free(context);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s file.heic [rounds]\n", argv[0]);
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 50;
    if (rounds < 1) rounds = 1;
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)size);
    if (!data || fread(data, 1, (size_t)size, file) != (size_t)size) { fclose(file); return 1; }
    fclose(file);

    // Room for the largest image the benchmark uses (libheif's own limit is far larger).
    size_t capacity = (size_t)64 << 20;
    uint8_t *pixels = malloc(capacity);
    if (!pixels || !decodeOnce(data, (size_t)size, pixels, capacity)) {  // warm-up, and a check the file decodes
        fprintf(stderr, "%s: cannot decode\n", argv[1]);
        return 1;
    }
    double start = now();
    for (int round = 0; round < rounds; round++) {
        if (!decodeOnce(data, (size_t)size, pixels, capacity)) return 1;
    }
    double seconds = (now() - start) / rounds;
    printf("{\"suite\":\"formats\",\"name\":\"1 MP HEIC decode\",\"impl\":\"libheif (C)\",\"value\":%.4f,"
           "\"unit\":\"ms\",\"bench\":\"heic-decode-libheif\",\"seconds_per_op\":%.6f}\n",
           seconds * 1000, seconds);
    free(pixels);
    free(data);
    return 0;
}
