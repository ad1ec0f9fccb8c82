/* librsvg called directly, as rsvg-convert's library does: parse the SVG from memory (no base URI), draw it at its
 * intrinsic size (96 dpi) on a fresh ARGB32 cairo surface, free everything; N times. Prints the mean CPU time
 * per parse+render as one row for Benchmarks/report.py, the baseline for WebImageSVG (which adds the conversion to straight RGBA).
 * Usage: svg_bench FILE.svg [N=200]
 * Build: cc -O2 -o svg_bench svg_bench.c $(pkg-config --cflags --libs librsvg-2.0) */
#include <librsvg/rsvg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int render(const guint8 *bytes, gsize size) {
    GError *error = NULL;
    RsvgHandle *handle = rsvg_handle_new_from_data(bytes, size, &error);
    if (!handle) { g_error_free(error); return -1; }
    rsvg_handle_set_dpi(handle, 96);
    double width = 0, height = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height)) width = height = 512;
    int w = (int)ceil(width - 1e-6), h = (int)ceil(height - 1e-6);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *context = cairo_create(surface);
    RsvgRectangle viewport = { 0, 0, width, height };
    int ok = rsvg_handle_render_document(handle, context, &viewport, &error);
    if (!ok) g_error_free(error);
    cairo_surface_flush(surface);
    cairo_destroy(context);
    cairo_surface_destroy(surface);
    g_object_unref(handle);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: svg_bench FILE.svg [N]\n"); return 2; }
    int iterations = argc > 2 ? atoi(argv[2]) : 200;
    gchar *bytes = NULL;
    gsize size = 0;
    if (!g_file_get_contents(argv[1], &bytes, &size, NULL)) { fprintf(stderr, "cannot read %s\n", argv[1]); return 1; }
    if (render((const guint8 *)bytes, size) != 0) { fprintf(stderr, "librsvg cannot render %s\n", argv[1]); return 1; }
    double start = now_seconds();
    for (int i = 0; i < iterations; i++) render((const guint8 *)bytes, size);
    double seconds = (now_seconds() - start) / (iterations > 0 ? iterations : 1);
    printf("{\"suite\":\"formats\",\"name\":\"SVG render at its size\",\"impl\":\"librsvg (C)\",\"value\":%.4f,\"unit\":\"ms\"}\n",
           seconds * 1000);
    g_free(bytes);
    return 0;
}
