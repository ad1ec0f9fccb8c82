/* libvips called in-process for the transform suite's Lanczos resizes: each source is decoded once into an 8-bit
 * RGB memory image (as the JPEG loads; Pillow's rows are RGB too), then only vips_resize (kernel lanczos3, the
 * exact target size through scale and vscale) and writing every output pixel to memory are timed. One worker
 * thread (vips_concurrency_set(1)), the operation cache off so each run computes afresh.
 * Prints the median CPU time (at least 15 runs and 1 s) as one JSON line per case for Benchmarks/report.py.
 * Usage: vips_resize_bench DATA_FOLDER */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vips/vips.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Resizes and computes every output pixel into memory; returns 0 on success and the output size through w, h. */
static int resize(VipsImage *in, double hscale, double vscale, int *w, int *h) {
    VipsImage *out;
    if (vips_resize(in, &out, hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL)) return -1;
    size_t size;
    void *pixels = vips_image_write_to_memory(out, &size);
    *w = vips_image_get_width(out);
    *h = vips_image_get_height(out);
    g_object_unref(out);
    if (!pixels) return -1;
    g_free(pixels);
    return 0;
}

/* The source decoded fully into memory as 8-bit RGB, or NULL. */
static VipsImage *load(const char *path) {
    VipsImage *file = vips_image_new_from_file(path, NULL), *rgb = NULL, *memory = NULL;
    if (!file) return NULL;
    if (vips_image_get_format(file) == VIPS_FORMAT_UCHAR && vips_image_get_bands(file) == 3 &&
        vips_image_get_interpretation(file) == VIPS_INTERPRETATION_sRGB) {
        rgb = file;
        g_object_ref(rgb);
    } else {
        VipsImage *srgb;
        if (!vips_colourspace(file, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) {
            vips_cast_uchar(srgb, &rgb, NULL);
            g_object_unref(srgb);
        }
    }
    if (rgb) memory = vips_image_copy_memory(rgb);
    if (rgb) g_object_unref(rgb);
    g_object_unref(file);
    return memory;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA_FOLDER\n", argv[0]);
        return 2;
    }
    if (VIPS_INIT(argv[0])) vips_error_exit(NULL);
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    static const struct { const char *name, *file; int width, height; } cases[] = {
        { "resize 12 MP to 1920x1440 (Lanczos)", "photo-12mp.jpg", 1920, 1440 },
        { "resize 800x600 to 256x192 (Lanczos)", "photo-800x600.jpg", 256, 192 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], cases[c].file);
        VipsImage *in = load(path);
        if (!in) {
            fprintf(stderr, "%s: %s", path, vips_error_buffer());
            return 1;
        }
        double hscale = (double)cases[c].width / vips_image_get_width(in);
        double vscale = (double)cases[c].height / vips_image_get_height(in);
        int w, h;
        if (resize(in, hscale, vscale, &w, &h)) {  // also the warm-up run
            fprintf(stderr, "%s: %s", cases[c].name, vips_error_buffer());
            return 1;
        }
        if (w != cases[c].width || h != cases[c].height) {
            fprintf(stderr, "%s: vips_resize gave %dx%d\n", cases[c].name, w, h);
            return 1;
        }
        double samples[10000], total = 0;
        int runs = 0;
        while ((runs < 15 || total < 1000) && runs < 10000) {
            double start = now_ms();
            if (resize(in, hscale, vscale, &w, &h)) {
                fprintf(stderr, "%s: %s", cases[c].name, vips_error_buffer());
                return 1;
            }
            samples[runs] = now_ms() - start;
            total += samples[runs++];
        }
        qsort(samples, runs, sizeof samples[0], compare);
        double median = runs % 2 ? samples[runs / 2] : (samples[runs / 2 - 1] + samples[runs / 2]) / 2;
        printf("{\"suite\":\"transform\",\"name\":\"%s\",\"impl\":\"libvips %s (in-process, 1 thread)\","
               "\"value\":%.3f,\"unit\":\"ms\"}\n", cases[c].name, vips_version_string(), median);
        fflush(stdout);
        g_object_unref(in);
    }
    vips_shutdown();
    return 0;
}
