// The vector kernels behind wi_matrix_shaper_convert, one file each (each compiled for its own instruction set
// through target attributes; the dispatcher calls one only on a CPU that has it).
#ifndef WI_MATRIX_SHAPER_KERNELS_H
#define WI_MATRIX_SHAPER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

size_t wi_matrix_shaper_convert_avx512(const uint16_t *linear, const int16_t *matrix, const uint8_t *output,
                                       const uint8_t *source, uint8_t *destination, size_t count);
size_t wi_matrix_shaper_convert_avx2(const uint16_t *linear, const int16_t *matrix, const uint8_t *output,
                                     const uint8_t *source, uint8_t *destination, size_t count);

#endif
