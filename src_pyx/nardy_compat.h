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
#define __builtin_clz(v) nardy_fast_clz(v)
#define __builtin_ctz(v) nardy_fast_ctz(v)
#define __builtin_bswap64(v) _byteswap_uint64(v)
#endif

#endif
