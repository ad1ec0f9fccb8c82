// The matrix-shaper colour conversion (three tone curves, a 3×3 matrix, the destination's curve inverted) run on 64
// RGBA pixels at a time with AVX-512, for CPUs that have it (Ice Lake and later, Zen 4 and later). It computes
// exactly what the scalar loop in MatrixShaperConversion.swift computes, in the same fixed point, so the two give
// the same bytes: the scalar loop converts whatever this leaves (the tail, or everything on other CPUs).
#ifndef WI_MATRIX_SHAPER_KERNEL_H
#define WI_MATRIX_SHAPER_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Whether this CPU and OS run the kernel (AVX-512 F, BW and VBMI, with the vector state saved by the OS).
bool wi_matrix_shaper_kernel_available(void);

// Converts the longest prefix of `count` RGBA pixels that is a multiple of 64 and returns its length (0 where the
// kernel is not available). `linear` holds 3 × 256 linear values (red's codes, then green's, then blue's; 14
// fraction bits, at most 16 384), `matrix` the 3×3 matrix row by row (output channel by input channel, 14 fraction
// bits, each within an int16), `output` the destination's code for each of the 16 384 linear steps followed by
// three bytes of padding (four bytes are read at a time). `destination` may be `source`.
size_t wi_matrix_shaper_convert(const uint16_t *linear, const int16_t *matrix, const uint8_t *output,
                                const uint8_t *source, uint8_t *destination, size_t count);

#endif
