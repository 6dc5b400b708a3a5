# Bit and byte helpers of the core: pure functions of their arguments, inlined where they are used.

from libc.stdint cimport int8_t, uint32_t, uint64_t


cdef extern from "nardy_compat.h":
    bint NARDY_FAST_DEBUG
    void NARDY_CHECK(bint cond, const char *what) nogil
    int __builtin_clz(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil
    int __builtin_ctzll(unsigned long long) nogil
    uint64_t __builtin_bswap64(uint64_t) nogil
    void *nardy_big_alloc(size_t size) nogil
    void nardy_prefetch(const void *p) nogil


cdef inline int hibit(uint32_t v) noexcept nogil:
    return 31 - __builtin_clz(v)


cdef inline int ctz(uint32_t v) noexcept nogil:
    return __builtin_ctz(v)


cdef inline int ctz64(uint64_t v) noexcept nogil:
    return __builtin_ctzll(v)


cdef inline uint64_t spread_bits(uint32_t bits) noexcept nogil:
    """The eight low bits of ``bits`` as the low bits of the eight bytes of a word, in order."""
    cdef uint64_t x = bits & 0xFF
    x = (x | (x << 28)) & 0x0000000F0000000FULL
    x = (x | (x << 14)) & 0x0003000300030003ULL
    return (x | (x << 7)) & 0x0101010101010101ULL


cdef inline uint64_t nonzero_bytes(uint64_t w) noexcept nogil:
    """The high bit of each nonzero byte of ``w``."""
    return (((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w) & 0x8080808080808080ULL


cdef inline uint32_t gather(uint64_t high) noexcept nogil:
    """Bit i set where byte i of ``high`` (only high bits set) has its high bit: a multiply moves the eight
    bits into the top byte without collisions."""
    return <uint32_t> (((high >> 7) * 0x0102040810204080ULL) >> 56)


cdef inline uint64_t negated(uint64_t x) noexcept nogil:
    """Each of the eight bytes of ``x`` negated (two's complement, no carry between bytes)."""
    cdef uint64_t n = ~x
    return ((n & 0x7F7F7F7F7F7F7F7FULL) + 0x0101010101010101ULL) ^ (n & 0x8080808080808080ULL)


cdef inline uint32_t byte_sum(uint64_t w) noexcept nogil:
    """The sum of the eight bytes of ``w``."""
    w = (w & 0x00FF00FF00FF00FFULL) + ((w >> 8) & 0x00FF00FF00FF00FFULL)
    return <uint32_t> ((w * 0x0001000100010001ULL) >> 48)


cdef inline uint64_t bytes_from(int start) noexcept nogil:
    """The bytes of a 64-bit word from byte ``start`` on: all when ``start <= 0``, none from 8."""
    if start <= 0:
        return ~<uint64_t> 0
    if start >= 8:
        return 0
    return ~<uint64_t> 0 << (8 * start)


cdef inline uint32_t half_turn(uint32_t mask) noexcept nogil:
    """A mask of points in White's numbering in Black's, long family (Black's M m is White's M m+12 mod 24)."""
    return (mask >> 12) | ((mask & 0xFFF) << 12)
