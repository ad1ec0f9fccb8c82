// The reference for the AVIF decode benchmark: libavif called directly, as an application would, to set
// beside AVIFCoder's decode of the same file in a release build.
//
// Each round parses the file from memory, decodes the primary image (avifDecoderRead: dav1d, one thread,
// libavif's defaults) and converts it to 8-bit RGBA (avifImageYUVToRGB), which is what AVIFCoder hands back.
//
// Build: cc -O2 -o avif_bench avif_bench.c $(pkg-config --cflags --libs libavif)
// Run:   ./avif_bench file.avif [rounds]    (default 50 rounds)
// Prints one row for Benchmarks/report.py: the mean CPU milliseconds per decode.
#include <avif/avif.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  // CPU time, as the Swift side measures
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int decodeOnce(const uint8_t *data, size_t size, uint8_t *pixels, size_t capacity) {
    avifDecoder *decoder = avifDecoderCreate();
    avifImage *image = avifImageCreateEmpty();
    int ok = 0;
    if (decoder && image && avifDecoderReadMemory(decoder, image, data, size) == AVIF_RESULT_OK) {
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, image);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.rowBytes = image->width * 4;
        rgb.pixels = pixels;
        ok = (size_t)rgb.rowBytes * image->height <= capacity && avifImageYUVToRGB(image, &rgb) == AVIF_RESULT_OK;
    }
    if (image) avifImageDestroy(image);
    if (decoder) avifDecoderDestroy(decoder);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s file.avif [rounds]\n", argv[0]);
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

    // Room for the largest image the benchmark uses (libavif's default limit is far larger).
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
    printf("{\"suite\":\"formats\",\"name\":\"1 MP AVIF decode\",\"impl\":\"libavif (C)\",\"value\":%.4f,\"unit\":\"ms\"}\n", seconds * 1000);
    free(pixels);
    free(data);
    return 0;
}
