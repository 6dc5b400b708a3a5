# The block rule (B) on bit masks (docs/rules.md, Block rule), twin of nardy_fast.board.block_is_legal: X's
# points along Y's track, 6-runs, Y's farthest checker.
# Uses: tables.
# Offers: block_is_legal, farthest_on_track, runs_ok.


cdef inline uint32_t track_mask(uint32_t xmask) noexcept nogil:
    """X's occupancy along Y's track (docs/rules.md, Block rule): bit t for T-index t."""
    return REV12[xmask & 0xFFF] | (REV12[xmask >> 12] << 12)


cdef inline bint block_is_legal(const Gen *g, uint32_t xmask) noexcept nogil:
    """(B) docs/rules.md, Block rule: no 6-run of X along Y's track unless a Y checker stands past its end."""
    return runs_ok(xmask, g.ymax_t)


cdef inline bint runs_ok(uint32_t xmask, int ymax_t) noexcept nogil:
    """(B) for X's points ``xmask`` and Y's farthest checker ``ymax_t`` along Y's track (-1: none)."""
    cdef uint32_t t, c
    if ymax_t < 0:
        return True
    t = track_mask(xmask)
    c = t & (t >> 1) & (t >> 2)
    c = c & (c >> 3)
    return c == 0 or hibit(c) + 5 < ymax_t


cdef inline int farthest_on_track(uint32_t ymask) noexcept nogil:
    """Y's farthest checker along Y's track (T = 12 - m on M1..M12, 36 - m on M13..M24) from Y's points in X's
    numbering (long family), -1 if none."""
    if ymask >> 12:
        return 23 - ctz(ymask >> 12)
    if ymask:
        return 11 - ctz(ymask)
    return -1
