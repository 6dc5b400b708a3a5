# The row gate: every packed row from a user passes pos_ok before a search reads it (the checks of
# nardy_fast.state, so Position.from_array and the core accept the same rows); debug builds also assert it on
# the rows the core sets up and writes (Stockfish's pos_is_ok).
# Uses: tables, block.
# Offers: pos_ok.


cdef bint pending_ok(const Pos *p) noexcept nogil:
    """A pending list is one value, two different values (higher first), or a run of 2..4 equal values (gulbar;
    crazy under flag normal_doubles_first_rolls) or a ladder suffix (crazy), as ``nardy_fast.state`` requires."""
    cdef int n = p.npending, i, per, total, start
    cdef bint equal = True
    if n == 0:
        return True
    if not V_TRANSFERS[p.variant]:
        return False
    for i in range(n):
        if p.pending[i] < 1 or p.pending[i] > 6:
            return False
    if n == 1:
        return True
    if n == 2 and p.pending[0] != p.pending[1]:
        return p.pending[0] > p.pending[1]
    for i in range(1, n):
        equal = equal and p.pending[i] == p.pending[0]
    if (not V_LADDER[p.variant] or p.flags & FLAG_NORMAL_DOUBLES) and equal and n <= 4:
        return True
    if not V_LADDER[p.variant]:
        return False
    per = 4 if p.flags & FLAG_LADDER4 else 2
    total = 6 * per
    if n > total:
        return False
    start = total - n
    for i in range(n):
        if p.pending[i] != 1 + (start + i) // per:
            return False
    return True


cdef bint pos_ok(const Pos *p) noexcept nogil:
    """Whether a packed position passes every check of ``Position.from_array`` (those of nardy_fast.state).
    The gate of every packed row into the search; the board and the padding are checked eight bytes at a
    time."""
    cdef int i, white, black, start, counted
    cdef bint long_family
    cdef uint64_t w, neg, size, whites = 0, blacks = 0, wmask = 0, bmask = 0, bad = 0
    cdef uint64_t words[4]
    if p.variant < 0 or p.variant >= NVARIANTS or p.turn < 0 or p.turn > 1:
        return False
    long_family = not V_SHORT[p.variant]
    for i in range(2):
        if p.first[i] < 0 or p.first[i] > 1 or p.bar[i] < 0 or p.bar[i] > 15 or p.off[i] < 0 or p.off[i] > 15:
            return False
    if p.flags & ~V_FLAGS[p.variant]:
        return False
    if p.exc & ~63 or (p.exc and not V_EXCEPTION[p.variant]):
        return False
    if p.npending < 0 or p.npending > 24:
        return False
    # rolls played: counted up to the flag's count, 0 without it
    counted = NORMAL_DOUBLES if p.flags & FLAG_NORMAL_DOUBLES else 0
    for i in range(2):
        if p.rolls_played[i] < 0 or p.rolls_played[i] > counted:
            return False
    # the pending values past ``npending`` and the reserved bytes (row bytes 35 + npending .. 58, 61 .. 63) are
    # zero (bytes 59 and 60, the rolls played, left out of the last word)
    memcpy(<char *> words, <const char *> p + 32, 32)
    words[3] &= ~(<uint64_t> 0xFFFF << 24)
    start = 3 + p.npending
    for i in range(4):
        bad |= words[i] & bytes_from(start - 8 * i)
    # counts of -15..15; White's (> 0) and Black's (< 0) checkers, and their points as bit masks
    memcpy(<char *> words, p.board, 24)
    for i in range(3):
        w = words[i]
        neg = ((w >> 7) & 0x0101010101010101ULL) * 0xFF
        size = (w & ~neg) | (negated(w) & neg)
        bad |= size & 0xF0F0F0F0F0F0F0F0ULL
        whites += w & ~neg
        blacks += size & neg
        wmask |= <uint64_t> gather(nonzero_bytes(w & ~neg)) << (8 * i)
        bmask |= <uint64_t> gather(neg & 0x8080808080808080ULL) << (8 * i)
    if bad:
        return False
    white = byte_sum(whites) + p.bar[0] + p.off[0]
    black = byte_sum(blacks) + p.bar[1] + p.off[1]
    if white != 15 or black != 15:
        return False
    if long_family and (p.bar[0] or p.bar[1]):
        return False
    if p.off[0] == 15 and p.off[1] == 15:
        return False
    if not pending_ok(p) or (p.npending and (p.off[0] == 15 or p.off[1] == 15)):
        return False
    # (B) judged for each side from its own point of view: Black's M m is White's M m+12 (mod 24)
    if long_family:
        return (runs_ok(<uint32_t> wmask, farthest_on_track(<uint32_t> bmask))
                and runs_ok(half_turn(<uint32_t> bmask), farthest_on_track(half_turn(<uint32_t> wmask))))
    return True
