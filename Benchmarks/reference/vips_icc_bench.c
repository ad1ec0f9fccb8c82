/* libvips called in-process for the color suite: the 12 MP Display P3 photo is decoded once into an 8-bit RGB
 * memory image that keeps its embedded profile, then only vips_icc_transform to sRGB (the embedded profile as the
 * source, 8-bit output, libvips' default relative colorimetric intent) and writing every output pixel to memory
 * are timed. One worker thread, the operation cache off so each run computes afresh.
 * Prints the median CPU time (at least 15 runs and 1 s) as one JSON line for Benchmarks/report.py.
 * Usage: vips_icc_bench DATA_FOLDER */
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

/* Converts to sRGB and computes every output pixel into memory; returns 0 on success. */
static int convert(VipsImage *in) {
    VipsImage *out;
    if (vips_icc_transform(in, &out, "srgb", "embedded", TRUE, "depth", 8, NULL)) return -1;
    size_t size;
    void *pixels = vips_image_write_to_memory(out, &size);
    g_object_unref(out);
    if (!pixels) return -1;
    g_free(pixels);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA_FOLDER\n", argv[0]);
        return 2;
    }
    if (VIPS_INIT(argv[0])) vips_error_exit(NULL);
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    char path[4096];
    snprintf(path, sizeof path, "%s/photo-12mp-p3.jpg", argv[1]);
    VipsImage *file = vips_image_new_from_file(path, NULL);
    if (!file) {
        fprintf(stderr, "%s: %s", path, vips_error_buffer());
        return 1;
    }
    if (!vips_image_get_typeof(file, VIPS_META_ICC_NAME)) {
        fprintf(stderr, "%s: no embedded profile\n", path);
        return 1;
    }
    VipsImage *in = vips_image_copy_memory(file);
    g_object_unref(file);
    if (!in || convert(in)) {  /* also the warm-up run */
        fprintf(stderr, "%s: %s", path, vips_error_buffer());
        return 1;
    }
    double samples[10000], total = 0;
    int runs = 0;
    while ((runs < 15 || total < 1000) && runs < 10000) {
        double start = now_ms();
        if (convert(in)) {
            fprintf(stderr, "%s", vips_error_buffer());
            return 1;
        }
        samples[runs] = now_ms() - start;
        total += samples[runs++];
    }
    qsort(samples, runs, sizeof samples[0], compare);
    double median = runs % 2 ? samples[runs / 2] : (samples[runs / 2 - 1] + samples[runs / 2]) / 2;
    printf("{\"suite\":\"color\",\"name\":\"12 MP Display P3 → sRGB conversion alone (difference)\","
           "\"impl\":\"libvips %s icc_transform (in-process, 1 thread, write to memory included)\","
           "\"value\":%.3f,\"unit\":\"ms\"}\n", vips_version_string(), median);
    g_object_unref(in);
    vips_shutdown();
    return 0;
}
