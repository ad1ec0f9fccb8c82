/* giflib called directly: DGifSlurp from memory, then every frame drawn onto one reused RGBA canvas (position,
 * palette and transparent index honoured; disposal is not, which only makes this faster than a full decoder).
 * Prints the median CPU time of a full decode as one JSON line per file for Benchmarks/report.py.
 * Usage: giflib_bench FILE... */
#include <gif_lib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct source { const unsigned char *bytes; size_t size, offset; };

static int read_bytes(GifFileType *gif, GifByteType *out, int count) {
    struct source *s = gif->UserData;
    size_t left = s->size - s->offset, n = (size_t)count < left ? (size_t)count : left;
    memcpy(out, s->bytes + s->offset, n);
    s->offset += n;
    return (int)n;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint32_t *canvas;
static size_t canvas_size;

static int decode(const unsigned char *bytes, size_t size) {
    struct source s = { bytes, size, 0 };
    int error = 0;
    GifFileType *gif = DGifOpen(&s, read_bytes, &error);
    if (!gif) return -1;
    if (DGifSlurp(gif) != GIF_OK) { DGifCloseFile(gif, &error); return -1; }
    size_t pixels = (size_t)gif->SWidth * gif->SHeight;
    if (pixels > canvas_size) { free(canvas); canvas = calloc(pixels, 4); canvas_size = pixels; }
    for (int i = 0; i < gif->ImageCount; i++) {
        SavedImage *frame = &gif->SavedImages[i];
        GraphicsControlBlock gcb;
        int transparent = DGifSavedExtensionToGCB(gif, i, &gcb) == GIF_OK ? gcb.TransparentColor : -1;
        ColorMapObject *map = frame->ImageDesc.ColorMap ? frame->ImageDesc.ColorMap : gif->SColorMap;
        uint32_t colors[256] = {0};
        for (int c = 0; map && c < map->ColorCount; c++) {
            GifColorType e = map->Colors[c];
            colors[c] = e.Red | e.Green << 8 | e.Blue << 16 | 0xFFu << 24;
        }
        GifImageDesc *d = &frame->ImageDesc;
        for (int y = 0; y < d->Height && d->Top + y < gif->SHeight; y++) {
            const unsigned char *row = frame->RasterBits + (size_t)y * d->Width;
            uint32_t *out = canvas + (size_t)(d->Top + y) * gif->SWidth + d->Left;
            for (int x = 0; x < d->Width && d->Left + x < gif->SWidth; x++)
                if (row[x] != transparent) out[x] = colors[row[x]];
        }
    }
    int frames = gif->ImageCount;
    DGifCloseFile(gif, &error);
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
        unsigned char *bytes = malloc(size);
        if (fread(bytes, 1, size, file) != size) return 1;
        fclose(file);
        int frames = decode(bytes, size);
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
        printf("{\"suite\":\"animated\",\"name\":\"%s, %d frames, all to RGBA\",\"impl\":\"giflib %d.%d.%d "
               "(DGifSlurp + RGBA)\",\"value\":%f,\"unit\":\"ms\"}\n",
               name, frames, GIFLIB_MAJOR, GIFLIB_MINOR, GIFLIB_RELEASE, samples[n / 2]);
        free(bytes);
    }
    return 0;
}
