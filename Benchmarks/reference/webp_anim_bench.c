/* libwebp called directly for an animated WebP: WebPAnimDecoderNew (the demuxer parses the container) and
 * WebPAnimDecoderGetNext for every frame, RGBA, one thread, each composited canvas copied out into one reused
 * buffer (swift-web-image keeps a bitmap per frame, which costs a little more).
 * Prints the median CPU time of a full decode as one JSON line per file for Benchmarks/report.py.
 * Usage: webp_anim_bench FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <webp/demux.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint8_t *copy;
static size_t copy_size;

static int decode(const uint8_t *bytes, size_t size) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return -1;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData data = { bytes, size };
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&data, &options);
    if (!decoder) return -1;
    WebPAnimInfo info;
    if (!WebPAnimDecoderGetInfo(decoder, &info)) { WebPAnimDecoderDelete(decoder); return -1; }
    size_t canvas = (size_t)info.canvas_width * info.canvas_height * 4;
    if (canvas > copy_size) { free(copy); copy = malloc(canvas); copy_size = canvas; }
    int frames = 0;
    while (WebPAnimDecoderHasMoreFrames(decoder)) {
        uint8_t *pixels;
        int timestamp;
        if (!WebPAnimDecoderGetNext(decoder, &pixels, &timestamp)) { frames = -1; break; }
        memcpy(copy, pixels, canvas);
        frames++;
    }
    WebPAnimDecoderDelete(decoder);
    return frames;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    for (int f = 1; f < argc; f++) {
        FILE *file = fopen(argv[f], "rb");
        if (!file) return 1;
        fseek(file, 0, SEEK_END);
        size_t size = ftell(file);
        fseek(file, 0, SEEK_SET);
        uint8_t *bytes = malloc(size);
        if (fread(bytes, 1, size, file) != size) return 1;
        fclose(file);
        int frames = decode(bytes, size);
        if (frames < 0) return 1;
        double samples[2000];
        int n = 0;
        double start = now_ms();
        while (n < 2000 && (n < 15 || now_ms() - start < 1000)) {
            double before = now_ms();
            decode(bytes, size);
            samples[n++] = now_ms() - before;
        }
        qsort(samples, n, sizeof(double), compare);
        const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
        int version = WebPGetDemuxVersion();
        printf("{\"suite\":\"animated\",\"name\":\"%s, %d frames, all to RGBA\",\"impl\":\"libwebp %d.%d.%d "
               "(demux + WebPAnimDecoder)\",\"value\":%f,\"unit\":\"ms\"}\n",
               name, frames, version >> 16, (version >> 8) & 0xFF, version & 0xFF, samples[n / 2]);
        free(bytes);
    }
    return 0;
}
