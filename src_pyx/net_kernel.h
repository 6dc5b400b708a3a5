/* The vector loops of the network evaluator (src_pyx/evaluators/network.pxi), compiled twice on x86-64 with GCC or Clang:
   for AVX2 and for the baseline (SSE2, what a wheel may assume), the first chosen at import when the CPU has
   it. Both do the same float operations in the same order (fused multiply-adds are off: setup.py), so they
   give the same bits; AVX2 does eight lanes at a time where the baseline does four. */
#ifndef NARDY_NET_KERNEL_H
#define NARDY_NET_KERNEL_H

#include <string.h>

#define NARDY_NET_ARGS                                                                                      \
    float *h, float *total, const float *b1, const float *terms, const int *offsets, int nterms,          \
        const float *xs, const float *const *rows, int nrows, const float *w2t, const float *b2, int nh

#if defined(__GNUC__) || defined(__clang__)
/* Eight lanes of floats at any address: each lane's operation is the scalar one, so the bits are the same. */
typedef float nardy_v8 __attribute__((vector_size(32), aligned(4)));
#define NARDY_V8(p) (*(nardy_v8 *)(p))
#define NARDY_CV8(p) (*(const nardy_v8 *)(p))
#define NARDY_LANES(x) ((nardy_v8){(x), (x), (x), (x), (x), (x), (x), (x)})
#define NARDY_ADD_ROW(w)                                                                                    \
    for (k = 0; k + 8 <= nh; k += 8) NARDY_V8(h + k) = NARDY_CV8(h + k) + NARDY_CV8((w) + k);               \
    for (; k < nh; k++) h[k] += (w)[k];
#define NARDY_ADD_SCALED_ROW(x, w)                                                                          \
    for (k = 0; k + 8 <= nh; k += 8) NARDY_V8(h + k) = NARDY_CV8(h + k) + NARDY_LANES(x) * NARDY_CV8((w) + k); \
    for (; k < nh; k++) h[k] += (x) * (w)[k];
#define NARDY_OUTPUTS                                                                                       \
    {                                                                                                       \
        nardy_v8 sums = {b2[0], b2[1], b2[2], b2[3], b2[4], 0.0f, 0.0f, 0.0f};                            \
        for (k = 0; k < nh; k++)                                                                            \
            sums = sums + NARDY_LANES(h[k] > 0 ? h[k] : 0.0f) * NARDY_CV8(w2t + 8 * k);                      \
        memcpy(total, &sums, sizeof sums);                                                                  \
    }
#else
#define NARDY_ADD_ROW(w) for (k = 0; k < nh; k++) h[k] += (w)[k];
#define NARDY_ADD_SCALED_ROW(x, w) for (k = 0; k < nh; k++) h[k] += (x) * (w)[k];
#define NARDY_OUTPUTS                                                                                       \
    {                                                                                                       \
        int o;                                                                                              \
        for (o = 0; o < 8; o++) total[o] = o < 5 ? b2[o] : 0.0f;                                            \
        for (k = 0; k < nh; k++)                                                                            \
            for (o = 0; o < 8; o++) total[o] += w2t[8 * k + o] * (h[k] > 0 ? h[k] : 0.0f);                  \
    }
#endif

/* h = b1 + the point terms in order + xs[t] * rows[t] in order; total[0..7] = b2 (padded with 0) + the units
   above 0 times their row of w2t, unit by unit. A unit at 0 adds a zero, which leaves a sum as it is (a sum of
   zero may change the sign of its zero, which no sigmoid sees): no branch, whose outcome no CPU predicts. */
#define NARDY_NET_BODY                                                                                      \
    {                                                                                                       \
        int t, k;                                                                                           \
        memcpy(h, b1, (size_t)nh * sizeof(float));                                                         \
        for (t = 0; t < nterms; t++) {                                                                      \
            const float *w = terms + offsets[t];                                                            \
            NARDY_ADD_ROW(w)                                                                                \
        }                                                                                                   \
        for (t = 0; t < nrows; t++) {                                                                       \
            const float *w = rows[t];                                                                       \
            float x = xs[t];                                                                                \
            NARDY_ADD_SCALED_ROW(x, w)                                                                      \
        }                                                                                                   \
        NARDY_OUTPUTS                                                                                       \
    }

static void nardy_net_pass_base(NARDY_NET_ARGS) NARDY_NET_BODY

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("avx2"))) static void nardy_net_pass_avx2(NARDY_NET_ARGS) NARDY_NET_BODY

static void (*nardy_net_pass)(NARDY_NET_ARGS) = nardy_net_pass_base;

/* 1 when the AVX2 loops were chosen. */
static int nardy_net_choose(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        nardy_net_pass = nardy_net_pass_avx2;
        return 1;
    }
    return 0;
}
#else
static void (*nardy_net_pass)(NARDY_NET_ARGS) = nardy_net_pass_base;
static int nardy_net_choose(void) { return 0; }
#endif

#endif
