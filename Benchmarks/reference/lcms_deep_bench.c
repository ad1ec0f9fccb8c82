/* Little CMS's cost for the conversion a deep source needs: 1600×1200 RGBA of 16 bits a sample to 8-bit sRGB, from
 * a Display P3 profile (parametric sRGB curves) and from a BT.2020 profile whose curves are a 4 096-entry table
 * (the shape of the library's PQ profiles), relative colorimetric with black-point compensation as the library
 * asks. Each once as Little CMS optimises it (a resampled grid) and once evaluated exactly (cmsFLAGS_NOOPTIMIZE).
 * Prints the best of several runs in ns a pixel.
 * Build: gcc -O2 lcms_deep_bench.c -o lcms_deep_bench -llcms2 -lm */
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double best_ns_per_pixel(cmsHTRANSFORM transform, const void *in, void *out, int pixels, int runs) {
    double best = 1e9;
    for (int run = 0; run < runs; run++) {
        double start = seconds();
        cmsDoTransform(transform, in, out, pixels);
        double elapsed = seconds() - start;
        if (elapsed < best) best = elapsed;
    }
    return best / pixels * 1e9;
}

int main(void) {
    const int pixels = 1600 * 1200;
    unsigned short *in = malloc((size_t)pixels * 8);
    unsigned char *out = malloc((size_t)pixels * 4);
    for (int i = 0; i < pixels; i++) {
        in[i * 4] = (i * 37) & 0xffff;
        in[i * 4 + 1] = (i * 101) & 0xffff;
        in[i * 4 + 2] = (i * 7919) & 0xffff;
        in[i * 4 + 3] = 65535;
    }
    cmsCIExyY white = {0.3127, 0.3290, 1};
    cmsCIExyYTRIPLE p3 = {{0.680, 0.320, 1}, {0.265, 0.690, 1}, {0.150, 0.060, 1}};
    cmsCIExyYTRIPLE bt2020 = {{0.708, 0.292, 1}, {0.170, 0.797, 1}, {0.131, 0.046, 1}};
    double srgb_parameters[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *srgb = cmsBuildParametricToneCurve(NULL, 4, srgb_parameters);
    float table[4096];
    for (int i = 0; i < 4096; i++) {
        /* ST 2084 to cd/m², over a 1 000 cd/m² peak, clipped: a steep table like the library's. */
        double e = i / 4095.0, m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
        double p = pow(e, 1 / m2), light = pow(fmax(p - c1, 0) / (c2 - c3 * p), 1 / m1) * 10;
        table[i] = light > 1 ? 1 : (float)light;
    }
    cmsToneCurve *pq = cmsBuildTabulatedToneCurveFloat(NULL, 4096, table);
    cmsToneCurve *srgb_curves[3] = {srgb, srgb, srgb}, *pq_curves[3] = {pq, pq, pq};
    cmsHPROFILE sources[2] = {cmsCreateRGBProfile(&white, &p3, srgb_curves),
                              cmsCreateRGBProfile(&white, &bt2020, pq_curves)};
    const char *names[2] = {"Display P3", "BT.2020, 4096-entry table curves"};
    cmsHPROFILE destination = cmsCreate_sRGBProfile();
    for (int s = 0; s < 2; s++) {
        cmsUInt32Number flags = cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE | cmsFLAGS_BLACKPOINTCOMPENSATION;
        cmsHTRANSFORM optimised = cmsCreateTransform(sources[s], TYPE_RGBA_16, destination, TYPE_RGBA_8,
                                                     INTENT_RELATIVE_COLORIMETRIC, flags);
        cmsHTRANSFORM exact = cmsCreateTransform(sources[s], TYPE_RGBA_16, destination, TYPE_RGBA_8,
                                                 INTENT_RELATIVE_COLORIMETRIC, flags | cmsFLAGS_NOOPTIMIZE);
        printf("%s: optimised %.1f ns/px, exact %.1f ns/px\n", names[s],
               best_ns_per_pixel(optimised, in, out, pixels, 7), best_ns_per_pixel(exact, in, out, pixels, 3));
    }
    return 0;
}
