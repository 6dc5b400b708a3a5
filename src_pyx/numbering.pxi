# The mover's numbering on whole words (docs/rules.md, The mover's numbering): a board from White's numbering to
# the side to move's and back, eight points a word. MAP (tables.pxi) is built from nardy_fast.board's
# mover_point; _check_numbering proves at import that the word shuffles here are that same map.
# Uses: tables.
# Offers: family, renumber, renumbered, renumbered_words.


cdef inline void renumbered_words(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t *w, int col, bint long_family
                                  ) noexcept nogil:
    """``renumbered`` of the 24 counts given as three words of eight points."""
    if col == 0:
        w[0] = w0
        w[1] = w1
        w[2] = w2
    elif long_family:
        # White's M1..M12 are Black's M13..M24 and the other way round: bytes 12..23, then 0..11
        w[0] = negated((w1 >> 32) | (w2 << 32))
        w[1] = negated((w2 >> 32) | (w0 << 32))
        w[2] = negated((w0 >> 32) | (w1 << 32))
    else:
        # White's M m is Black's M 25-m
        w[0] = negated(__builtin_bswap64(w2))
        w[1] = negated(__builtin_bswap64(w1))
        w[2] = negated(__builtin_bswap64(w0))


cdef inline void renumbered(const int8_t *board, uint64_t *w, int col, bint long_family) noexcept nogil:
    """24 signed counts from White's numbering to the mover's, X positive (docs/rules.md, The mover's
    numbering), as three words of eight points; the same map takes them back. Words are loaded whole: a wide
    load of bytes just stored in narrower pieces waits for them."""
    cdef uint64_t w0, w1, w2
    memcpy(&w0, board, 8)
    memcpy(&w1, board + 8, 8)
    memcpy(&w2, board + 16, 8)
    renumbered_words(w0, w1, w2, w, col, long_family)


cdef inline void renumber(const int8_t *board, int8_t *out, int col, bint long_family) noexcept nogil:
    """``renumbered`` into ``out``, stored in whole words."""
    cdef uint64_t w[3]
    renumbered(board, w, col, long_family)
    memcpy(out, &w[0], 8)
    memcpy(out + 8, &w[1], 8)
    memcpy(out + 16, &w[2], 8)


cdef inline int family(int variant) noexcept nogil:
    """The geometry's index in the key and numbering tables: 0 long family, 1 short."""
    return 1 if V_SHORT[variant] else 0


# --- setting up a problem: the mover's numbering, the dice list, the head rule (H) -------------------------


cdef void _check_numbering() except *:
    """The word shuffles of ``renumbered`` are MAP, the shared numbering, for both geometries and colours."""
    cdef int8_t board[24]
    cdef int8_t out[24]
    cdef int fam, col, m
    for m in range(24):
        board[m] = m + 1
    for fam in range(2):
        for col in range(2):
            renumber(board, out, col, fam == 0)
            for m in range(1, 25):
                if out[m - 1] != (-1 if col else 1) * board[MAP[fam][col][m]]:
                    raise ImportError("nardy_fast._core: the board's word shuffles are not nardy_fast.board's "
                                      f"numbering (geometry {fam}, colour {col}, point {m})")


_check_numbering()
