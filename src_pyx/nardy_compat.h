/* What the core needs from its compiler and machine.

   - A little-endian machine: the core reads and writes boards eight points to a 64-bit word.
   - GCC's and Clang's bit builtins, which MSVC spells otherwise. */
#ifndef NARDY_FAST_COMPAT_H
#define NARDY_FAST_COMPAT_H

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "nardy_fast's core reads and writes boards eight points to a word: it needs a little-endian machine"
#endif

/* Debug builds (NARDY_FAST_DEBUG=1 or asan at build time) check the core's invariants, Stockfish-style: a
   broken one stops the process at once and names itself. Other builds compile the checks away. */
#include <stdio.h>
#include <stdlib.h>
#ifndef NARDY_FAST_DEBUG
#define NARDY_FAST_DEBUG 0
#endif
#define NARDY_CHECK(cond, what)                                                                  \
    do {                                                                                         \
        if (NARDY_FAST_DEBUG && !(cond)) {                                                       \
            fprintf(stderr, "nardy_fast core: invariant broken: %s (%s:%d)\n", what, __FILE__,  \
                    __LINE__);                                                                   \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#include <stdint.h>
static __forceinline int nardy_fast_clz(unsigned int v) {
    unsigned long index;
    _BitScanReverse(&index, v);
    return 31 - (int)index;
}
static __forceinline int nardy_fast_ctz(unsigned int v) {
    unsigned long index;
    _BitScanForward(&index, v);
    return (int)index;
}
static __forceinline int nardy_fast_ctzll(unsigned long long v) {
    unsigned long index;
    _BitScanForward64(&index, v);
    return (int)index;
}
#define __builtin_clz(v) nardy_fast_clz(v)
#define __builtin_ctzll(v) nardy_fast_ctzll(v)
#define __builtin_ctz(v) nardy_fast_ctz(v)
#define __builtin_bswap64(v) _byteswap_uint64(v)
#endif

/* A prefetch for writing (a no-op where the compiler has none). */
#if defined(_MSC_VER) && !defined(__clang__)
#define nardy_prefetch(p) ((void)(p))
#else
#define nardy_prefetch(p) __builtin_prefetch((p), 1)
#endif

/* Memory for a large hash table read at random (levels.pxi): on Linux in 2 MB pages where the kernel allows
   (transparent huge pages on request), because its probes otherwise miss the TLB one after another. Freed
   with free(). */
#if defined(__linux__)
#include <sys/mman.h>
#endif
static inline void *nardy_big_alloc(size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (size >= 2 * huge) {
        size_t rounded = (size + huge - 1) / huge * huge;
        void *memory = aligned_alloc(huge, rounded);
        if (memory != NULL) {
            madvise(memory, rounded, MADV_HUGEPAGE);
        }
        return memory;
    }
#endif
    return malloc(size);
}

#endif
