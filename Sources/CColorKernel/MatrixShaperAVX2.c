// The AVX2 kernel: 8 pixels a step, every table read with gathers. For x86 CPUs without AVX-512 VBMI (before Ice
// Lake, Zen 3 and earlier), where it is about three times the scalar loop.
#if defined(__x86_64__)
#include "MatrixShaperKernels.h"

#include <immintrin.h>

#define WI_AVX2 __attribute__((target("avx2")))

// The destination code of 8 sums: the scalar loop's shift, clip to 0...16 383, and table (four bytes are read at
// each index, the first is the code).
WI_AVX2 static inline __m256i code_of(const uint8_t *output, __m256i sum) {
    __m256i index = _mm256_min_epi32(_mm256_max_epi32(_mm256_srai_epi32(sum, 14), _mm256_setzero_si256()),
                                     _mm256_set1_epi32(16383));
    return _mm256_and_si256(_mm256_i32gather_epi32((const int *)output, index, 1), _mm256_set1_epi32(0xFF));
}

WI_AVX2 size_t wi_matrix_shaper_convert_avx2(const uint16_t *linear, const int16_t *matrix, const uint8_t *output,
                                             const uint8_t *source, uint8_t *destination, size_t count) {
    const __m256i byte = _mm256_set1_epi32(0xFF), word = _mm256_set1_epi32(0xFFFF);
    const __m256i alphaBits = _mm256_set1_epi32((int32_t)0xFF000000u), blueOne = _mm256_set1_epi32(1 << 16);
    // Per output channel, the weights of the (red, green) and (blue, 1) word pairs; blue's adds the half step.
    __m256i redGreenWeights[3], blueWeights[3];
    for (int channel = 0; channel < 3; channel++) {
        const int16_t *row = matrix + 3 * channel;
        redGreenWeights[channel] =
            _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)row[0] | ((uint32_t)(uint16_t)row[1] << 16)));
        blueWeights[channel] = _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)row[2] | (8192u << 16)));
    }
    size_t done = 0;
    for (; done + 8 <= count; done += 8) {
        __m256i pixels = _mm256_loadu_si256((const __m256i *)(source + done * 4));
        __m256i red = _mm256_and_si256(pixels, byte);
        __m256i green = _mm256_and_si256(_mm256_srli_epi32(pixels, 8), byte);
        __m256i blue = _mm256_and_si256(_mm256_srli_epi32(pixels, 16), byte);
        // Linear values, two bytes each: gathered four bytes at a time, the upper two dropped.
        red = _mm256_and_si256(_mm256_i32gather_epi32((const int *)linear, red, 2), word);
        green = _mm256_and_si256(_mm256_i32gather_epi32((const int *)(linear + 256), green, 2), word);
        blue = _mm256_and_si256(_mm256_i32gather_epi32((const int *)(linear + 512), blue, 2), word);
        __m256i redGreen = _mm256_or_si256(red, _mm256_slli_epi32(green, 16));
        __m256i blueAndOne = _mm256_or_si256(blue, blueOne);
        __m256i result = _mm256_and_si256(pixels, alphaBits);
        for (int channel = 0; channel < 3; channel++) {
            __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(redGreen, redGreenWeights[channel]),
                                           _mm256_madd_epi16(blueAndOne, blueWeights[channel]));
            result = _mm256_or_si256(result, _mm256_slli_epi32(code_of(output, sum), 8 * channel));
        }
        _mm256_storeu_si256((__m256i *)(destination + done * 4), result);
    }
    return done;
}

#endif
