#include "MatrixShaperKernel.h"

#if defined(__x86_64__)
#include "MatrixShaperKernels.h"

#include <cpuid.h>

static wi_matrix_shaper_kernel detect(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX)) return WI_MATRIX_SHAPER_SCALAR;
    if (__get_cpuid_max(0, 0) < 7) return WI_MATRIX_SHAPER_SCALAR;
    uint32_t low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    (void)high;
    // The OS saves the vector registers the kernel uses: XMM and YMM state (XCR0 bits 1 and 2), and for AVX-512
    // the mask registers and all 32 full-width registers too (bits 5, 6 and 7).
    if ((low & 0x06) != 0x06) return WI_MATRIX_SHAPER_SCALAR;
    __cpuid_count(7, 0, a, b, c, d);
    if ((b & bit_AVX512F) && (b & bit_AVX512BW) && (c & bit_AVX512VBMI) && (low & 0xE6) == 0xE6)
        return WI_MATRIX_SHAPER_AVX512;
    return (b & bit_AVX2) ? WI_MATRIX_SHAPER_AVX2 : WI_MATRIX_SHAPER_SCALAR;
}

wi_matrix_shaper_kernel wi_matrix_shaper_widest_kernel(void) {
    // Computed once; threads that race here all store the same answer.
    static int widest = -1;
    int known = __atomic_load_n(&widest, __ATOMIC_RELAXED);
    if (known < 0) {
        known = (int)detect();
        __atomic_store_n(&widest, known, __ATOMIC_RELAXED);
    }
    return (wi_matrix_shaper_kernel)known;
}

size_t wi_matrix_shaper_convert(wi_matrix_shaper_kernel kernel, const uint16_t *linear, const int16_t *matrix,
                                const uint8_t *output, const uint8_t *source, uint8_t *destination, size_t count) {
    // Never past what this CPU runs, whatever the caller asks for.
    if (kernel > wi_matrix_shaper_widest_kernel()) kernel = wi_matrix_shaper_widest_kernel();
    switch (kernel) {
    case WI_MATRIX_SHAPER_AVX512:
        return wi_matrix_shaper_convert_avx512(linear, matrix, output, source, destination, count);
    case WI_MATRIX_SHAPER_AVX2:
        return wi_matrix_shaper_convert_avx2(linear, matrix, output, source, destination, count);
    case WI_MATRIX_SHAPER_SCALAR: return 0;
    }
    return 0;
}

#else

wi_matrix_shaper_kernel wi_matrix_shaper_widest_kernel(void) { return WI_MATRIX_SHAPER_SCALAR; }

size_t wi_matrix_shaper_convert(wi_matrix_shaper_kernel kernel, const uint16_t *linear, const int16_t *matrix,
                                const uint8_t *output, const uint8_t *source, uint8_t *destination, size_t count) {
    (void)kernel, (void)linear, (void)matrix, (void)output, (void)source, (void)destination, (void)count;
    return 0;
}

#endif
