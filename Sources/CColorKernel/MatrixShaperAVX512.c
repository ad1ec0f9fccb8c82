// The AVX-512 kernel (F, BW and VBMI): 64 pixels a step.
#if defined(__x86_64__)
#include "MatrixShaperKernels.h"

#include <immintrin.h>

#define WI_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// Two registers of one quantity for a block of pixels, in the order the unpack instructions leave them.
typedef struct { __m512i low, high; } halves;

// Each channel's 256 linear values (16 bits) as two byte tables, low bytes and high bytes, in four registers each.
typedef struct { __m512i low[4], high[4]; } curve_table;

WI_AVX512 static inline curve_table load_curve(const uint16_t *values) {
    uint8_t low[256], high[256];
    for (int code = 0; code < 256; code++) {
        low[code] = (uint8_t)values[code];
        high[code] = (uint8_t)(values[code] >> 8);
    }
    curve_table table;
    for (int part = 0; part < 4; part++) {
        table.low[part] = _mm512_loadu_si512(low + part * 64);
        table.high[part] = _mm512_loadu_si512(high + part * 64);
    }
    return table;
}

// The linear values of 64 codes, as 16-bit words in two registers: pixels 0-7, 16-23, 32-39, 48-55 in `low` and
// 8-15, 24-31, 40-47, 56-63 in `high` (how unpacking bytes to words orders them). Byte permutes look up 128
// entries at a time; the codes' top bit picks between the two halves of the table.
WI_AVX512 static inline halves look_up(const curve_table *table, __m512i codes) {
    __mmask64 top = _mm512_movepi8_mask(codes);
    __m512i low = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(table->low[0], codes, table->low[1]),
                                         _mm512_permutex2var_epi8(table->low[2], codes, table->low[3]));
    __m512i high = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(table->high[0], codes, table->high[1]),
                                          _mm512_permutex2var_epi8(table->high[2], codes, table->high[3]));
    halves words = {_mm512_unpacklo_epi8(low, high), _mm512_unpackhi_epi8(low, high)};
    return words;
}

// The destination code of 16 sums: the scalar loop's sum of three products plus half a step, shifted down, clipped
// to 0...16 383 and looked up in `output` (four bytes are read at each index, the first is the code).
WI_AVX512 static inline __m512i code_of(const uint8_t *output, __m512i sum) {
    __m512i index = _mm512_min_epi32(_mm512_max_epi32(_mm512_srai_epi32(sum, 14), _mm512_setzero_si512()),
                                     _mm512_set1_epi32(16383));
    return _mm512_and_si512(_mm512_i32gather_epi32(index, (const void *)output, 1), _mm512_set1_epi32(0xFF));
}

// One output channel's codes for 32 pixels, from their (red, green) and (blue, 1) word pairs.
WI_AVX512 static inline halves channel(const uint8_t *output, halves rg, halves b, const int16_t *row) {
    // Each 32-bit lane multiplies a pair of words by a pair of weights and adds the two products; blue's pair adds
    // the half step (1 × 8192).
    __m512i rgWeights = _mm512_set1_epi32((int32_t)((uint32_t)(uint16_t)row[0] | ((uint32_t)(uint16_t)row[1] << 16)));
    __m512i bWeights = _mm512_set1_epi32((int32_t)((uint32_t)(uint16_t)row[2] | (8192u << 16)));
    __m512i low = _mm512_add_epi32(_mm512_madd_epi16(rg.low, rgWeights), _mm512_madd_epi16(b.low, bWeights));
    __m512i high = _mm512_add_epi32(_mm512_madd_epi16(rg.high, rgWeights), _mm512_madd_epi16(b.high, bWeights));
    halves codes = {code_of(output, low), code_of(output, high)};
    return codes;
}

// One channel of 64 pixels (256 bytes in four registers) as 64 bytes in pixel order.
WI_AVX512 static inline __m512i channel_bytes(const __m512i pixels[4], __m512i pick) {
    // The same pick takes pixels 0-31 from the first pair into the low half and 32-63 from the second into the high.
    return _mm512_mask_blend_epi8(0xFFFFFFFF00000000ull, _mm512_permutex2var_epi8(pixels[0], pick, pixels[1]),
                                  _mm512_permutex2var_epi8(pixels[2], pick, pixels[3]));
}

WI_AVX512 static inline __m512i picker(int channel) {
    uint8_t picks[64];
    for (int i = 0; i < 64; i++) picks[i] = (uint8_t)((i % 32) * 4 + channel);
    return _mm512_loadu_si512(picks);
}

// 32 pixels' red, green and blue linear words (in one unpack order) to their three codes, as dwords in the order
// unpacking words to dwords leaves them.
WI_AVX512 static inline halves convert_words(const uint8_t *output, const int16_t *matrix, __m512i red,
                                             __m512i green, __m512i blue) {
    const __m512i ones = _mm512_set1_epi16(1);
    halves rg = {_mm512_unpacklo_epi16(red, green), _mm512_unpackhi_epi16(red, green)};
    halves b1 = {_mm512_unpacklo_epi16(blue, ones), _mm512_unpackhi_epi16(blue, ones)};
    halves outRed = channel(output, rg, b1, matrix);
    halves outGreen = channel(output, rg, b1, matrix + 3);
    halves outBlue = channel(output, rg, b1, matrix + 6);
    halves pixels = {
        _mm512_or_si512(_mm512_or_si512(outRed.low, _mm512_slli_epi32(outGreen.low, 8)),
                        _mm512_slli_epi32(outBlue.low, 16)),
        _mm512_or_si512(_mm512_or_si512(outRed.high, _mm512_slli_epi32(outGreen.high, 8)),
                        _mm512_slli_epi32(outBlue.high, 16)),
    };
    return pixels;
}

WI_AVX512 size_t wi_matrix_shaper_convert_avx512(const uint16_t *linear, const int16_t *matrix, const uint8_t *output,
                                       const uint8_t *source, uint8_t *destination, size_t count) {
    const curve_table redCurve = load_curve(linear), greenCurve = load_curve(linear + 256),
                      blueCurve = load_curve(linear + 512);
    const __m512i pickRed = picker(0), pickGreen = picker(1), pickBlue = picker(2);
    const __m512i alphaBits = _mm512_set1_epi32((int32_t)0xFF000000u);

    size_t done = 0;
    for (; done + 64 <= count; done += 64) {
        __m512i pixels[4];
        for (int part = 0; part < 4; part++) pixels[part] = _mm512_loadu_si512(source + done * 4 + part * 64);
        halves red = look_up(&redCurve, channel_bytes(pixels, pickRed));
        halves green = look_up(&greenCurve, channel_bytes(pixels, pickGreen));
        halves blue = look_up(&blueCurve, channel_bytes(pixels, pickBlue));
        // Lane k of these holds pixels 16k + 0-3, 4-7, 8-11 and 12-15: a 4 × 4 transpose of 128-bit lanes puts
        // pixels 16k...16k + 15 in register k.
        halves first = convert_words(output, matrix, red.low, green.low, blue.low);
        halves second = convert_words(output, matrix, red.high, green.high, blue.high);
        __m512i t0 = _mm512_shuffle_i64x2(first.low, first.high, 0x44);
        __m512i t1 = _mm512_shuffle_i64x2(first.low, first.high, 0xEE);
        __m512i t2 = _mm512_shuffle_i64x2(second.low, second.high, 0x44);
        __m512i t3 = _mm512_shuffle_i64x2(second.low, second.high, 0xEE);
        __m512i ordered[4] = {
            _mm512_shuffle_i64x2(t0, t2, 0x88), _mm512_shuffle_i64x2(t0, t2, 0xDD),
            _mm512_shuffle_i64x2(t1, t3, 0x88), _mm512_shuffle_i64x2(t1, t3, 0xDD),
        };
        for (int part = 0; part < 4; part++) {
            __m512i alpha = _mm512_and_si512(pixels[part], alphaBits);
            _mm512_storeu_si512(destination + done * 4 + part * 64, _mm512_or_si512(ordered[part], alpha));
        }
    }
    return done;
}

#endif
