// The matrix-shaper colour conversion (three tone curves, a 3×3 matrix, the destination's curve inverted) in vector
// instructions where the CPU has them: AVX-512 (F, BW and VBMI: Ice Lake and later, Zen 4 and later), 64 pixels a
// step, else AVX2, 8 a step. Both compute exactly what the scalar loop in MatrixShaperConversion.swift computes, in
// the same fixed point, so every path gives the same bytes: the scalar loop converts whatever a kernel leaves (the
// tail, or everything on other CPUs).
#ifndef WI_MATRIX_SHAPER_KERNEL_H
#define WI_MATRIX_SHAPER_KERNEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    WI_MATRIX_SHAPER_SCALAR = 0,  // no kernel: the caller's scalar loop does it all
    WI_MATRIX_SHAPER_AVX2 = 1,
    WI_MATRIX_SHAPER_AVX512 = 2,
} wi_matrix_shaper_kernel;

// The widest kernel this CPU and OS run (the vector state saved by the OS included).
wi_matrix_shaper_kernel wi_matrix_shaper_widest_kernel(void);

// Converts, with `kernel` (or the widest this CPU runs, if narrower), the longest prefix of `count` RGBA pixels that
// is a whole number of the kernel's steps, and returns its length (0 for WI_MATRIX_SHAPER_SCALAR). `linear` holds
// 3 × 256 linear values (red's codes, then green's, then blue's; 14 fraction bits, at most 16 384) and one more
// entry of padding, `matrix` the 3×3 matrix row by row (output channel by input channel, 14 fraction bits, each
// within an int16), `output` the destination's code for each of the 16 384 linear steps followed by three bytes of
// padding (gathers read four bytes at a time). `destination` may be `source`.
size_t wi_matrix_shaper_convert(wi_matrix_shaper_kernel kernel, const uint16_t *linear, const int16_t *matrix,
                                const uint8_t *output, const uint8_t *source, uint8_t *destination, size_t count);

#endif
