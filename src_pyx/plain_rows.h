/* The row of a crazy ladder's result from its board's two words (src_pyx/results.pxi, plain_unfinished_rows), in
   SSE2, which every x86-64 processor has: X's 24 nibbles spread to bytes by one unpack instead of three
   shift-and-mask ladders, the board turned to White's numbering by byte shifts, and the row stored in four
   16-byte stores. Elsewhere NARDY_ROWS_SIMD is 0 and the scalar words of results.pxi make the row; at import
   the core checks that both make the same rows (_check_plain_rows). */
#ifndef NARDY_PLAIN_ROWS_H
#define NARDY_PLAIN_ROWS_H

#include <stdint.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define NARDY_ROWS_SIMD 1

/* The eight bytes at p (any address) as the low half of a vector. */
static inline __m128i nardy_low8(const void *p) { return _mm_loadl_epi64((const __m128i *)p); }

/* The nibbles of the low half of x as sixteen bytes, in order (nibble k to byte k). */
static inline __m128i nardy_nibbles(__m128i x) {
    const __m128i m = _mm_set1_epi8(0x0F);
    return _mm_unpacklo_epi8(_mm_and_si128(x, m), _mm_and_si128(_mm_srli_epi16(x, 4), m));
}

/* Row `row` (64 bytes, any address) of the node whose board words are w[0], w[1] (a long-family
   board without hits): X's counts over Y's at the root (`yroot`, Gen.yroot: 24 bytes) in White's numbering
   for mover `col` (0 as they are; 1 Black, whose M1..M12 are White's M13..M24 and the other way round, the
   counts negated: renumbered_words), then `word3` (the bars, off and what follows: row_tail's word 3), then
   `base`'s words 4 to 7. */
static inline void nardy_plain_row(const uint64_t *w, const uint64_t *yroot, uint64_t word3,
                                   const uint64_t *base, int col, void *row) {
    uint32_t high = (uint32_t)w[1]; /* M17..M24: nibbles 16..23 */
    __m128i a = _mm_or_si128(nardy_nibbles(nardy_low8(w)), _mm_loadu_si128((const __m128i *)yroot));
    __m128i b = _mm_or_si128(nardy_nibbles(_mm_cvtsi32_si128((int)high)), nardy_low8(yroot + 2));
    __m128i lo = a, hi = b;
    char *out = (char *)row;
    if (col) {
        /* bytes 12..23 of the board, then 0..11; b's high half is zero */
        const __m128i zero = _mm_setzero_si128();
        lo = _mm_sub_epi8(zero, _mm_or_si128(_mm_or_si128(_mm_srli_si128(a, 12), _mm_slli_si128(b, 4)),
                                             _mm_slli_si128(a, 12)));
        hi = _mm_sub_epi8(zero, _mm_srli_si128(a, 4));
    }
    _mm_storeu_si128((__m128i *)out, lo);
    _mm_storeu_si128((__m128i *)(out + 16), _mm_unpacklo_epi64(hi, nardy_low8(&word3)));
    _mm_storeu_si128((__m128i *)(out + 32), _mm_loadu_si128((const __m128i *)(base + 4)));
    _mm_storeu_si128((__m128i *)(out + 48), _mm_loadu_si128((const __m128i *)(base + 6)));
}

#else
#define NARDY_ROWS_SIMD 0
/* Never called (the scalar words of results.pxi make the rows here): declared so that the core compiles. */
static inline void nardy_plain_row(const uint64_t *w, const uint64_t *yroot, uint64_t word3,
                                   const uint64_t *base, int col, void *row) {
    (void)w, (void)yroot, (void)word3, (void)base, (void)col, (void)row;
}
#endif

#endif
