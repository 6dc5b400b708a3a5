# The expert features of the "expert" encoding (nardy_fast.expert, whose docstring defines them): the twin of
# nardy_fast.expert.expert_features, one position at a time without the GIL. Integer counts, then one float
# division by the field's scale, as the NumPy features are made, so that both implementations give the same
# bits. About 24 steps a side and a mask test a roll: a small part of a network's evaluation.
# Uses: tables.
# Offers: encode_expert, expert_of_seen.

from nardy_fast import expert as _expert

cdef enum:
    EXPERT_PER_SIDE = 7
    EXPERT_ROLLS = 21

cdef int64_t EXPERT_ROLL_MASK[EXPERT_ROLLS]
cdef int EXPERT_ROLL_WEIGHT[EXPERT_ROLLS]
cdef float EXPERT_SCALE[EXPERT_PER_SIDE]
# the shots of each set of distances 1..12 (bit d - 1 for distance d): the rolls of 36 that reach one of them;
# the rolls reaching farther are the doubles 4-4, 5-5 and 6-6 (EXPERT_FAR: the rolls, their far and near reach)
cdef uint8_t EXPERT_NEAR_SHOTS[4096]
cdef int EXPERT_NFAR = 0
cdef uint32_t EXPERT_FAR[3][2]
cdef uint32_t EXPERT_BIT[24]            # bit q + 1: point q + 1's
cdef int EXPERT_OTHER_POINT[2][24]      # [family][q]: the other side's number of the point q + 1


cdef void _init_expert() except *:
    cdef int k
    if _expert.PER_SIDE != EXPERT_PER_SIDE or len(_expert.ROLL_MASKS) != EXPERT_ROLLS:
        raise ImportError("nardy_fast._core: the expert features of nardy_fast.expert are not the core's")
    if [name for name, _ in _expert.EXPERT_FIELDS] != ["pips", "blots", "shots", "prime", "trapped", "contact",
                                                       "mobility"]:
        raise ImportError("nardy_fast._core: the expert features of nardy_fast.expert are not the core's")
    for k in range(EXPERT_ROLLS):
        EXPERT_ROLL_MASK[k] = int(_expert.ROLL_MASKS[k])
        EXPERT_ROLL_WEIGHT[k] = int(_expert.ROLL_WEIGHTS[k])
    for k in range(EXPERT_PER_SIDE):
        EXPERT_SCALE[k] = _expert.EXPERT_FIELDS[k][1]
    _init_shots()
    for k in range(24):
        EXPERT_BIT[k] = (<uint32_t> 1) << (k + 1)
        # the numbering is an involution: Black's point of White's k + 1 is the board index of Black's k + 1
        EXPERT_OTHER_POINT[0][k] = MAP[0][1][k + 1] + 1
        EXPERT_OTHER_POINT[1][k] = MAP[1][1][k + 1] + 1


cdef void _init_shots() except *:
    global EXPERT_NFAR
    cdef int r, bits, total
    cdef uint32_t near = 0x1FFE  # distances 1..12
    for bits in range(4096):
        total = 0
        for r in range(EXPERT_ROLLS):
            if (bits << 1) & EXPERT_ROLL_MASK[r]:
                total += EXPERT_ROLL_WEIGHT[r]
        EXPERT_NEAR_SHOTS[bits] = total
    for r in range(EXPERT_ROLLS):
        if EXPERT_ROLL_MASK[r] & ~near:
            if EXPERT_NFAR == 3 or EXPERT_ROLL_WEIGHT[r] != 1:
                raise ImportError("nardy_fast._core: a roll the expert shots cannot table")
            EXPERT_FAR[EXPERT_NFAR][0] = EXPERT_ROLL_MASK[r] & ~near
            EXPERT_FAR[EXPERT_NFAR][1] = EXPERT_ROLL_MASK[r] & near
            EXPERT_NFAR += 1


_init_expert()


cdef inline uint32_t other_numbering(uint32_t bits, bint short) noexcept nogil:
    """Points 1..24 as bits (bit q for point q) in the other side's numbering: q -> 25 - q in short nardy (the
    bits reversed), q -> q + 12 or q - 12 in the long family (the halves swapped)."""
    if not short:
        return ((bits & 0x1FFE) << 12) | ((bits >> 12) & 0x1FFE)
    bits = ((bits >> 1) & 0x55555555) | ((bits & 0x55555555) << 1)
    bits = ((bits >> 2) & 0x33333333) | ((bits & 0x33333333) << 2)
    bits = ((bits >> 4) & 0x0F0F0F0F) | ((bits & 0x0F0F0F0F) << 4)
    bits = ((bits >> 8) & 0x00FF00FF) | ((bits & 0x00FF00FF) << 8)
    bits = (bits >> 16) | (bits << 16)
    return bits >> 6


cdef inline int longest_run(uint32_t bits) noexcept nogil:
    cdef int n = 0
    while bits:
        bits &= bits << 1
        n += 1
    return n


cdef inline int bit_count(uint32_t v) noexcept nogil:
    # the baseline x86-64 has no popcnt instruction: the bits summed in parallel
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    return <int> ((((v + (v >> 4)) & 0x0F0F0F0F) * 0x01010101) >> 24)


cdef inline int bit_count64(uint64_t v) noexcept nogil:
    v = v - ((v >> 1) & 0x5555555555555555ULL)
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL)
    return <int> ((((v + (v >> 4)) & 0x0F0F0F0F0F0F0F0FULL) * 0x0101010101010101ULL) >> 56)


cdef void expert_side(bint short, uint32_t occupied, uint32_t blots, uint32_t foes, uint32_t foes_hold,
                      uint32_t held_against, uint32_t foes_own, int pips, int bar, int foe_bar, int on_board,
                      const int *counts, int step, float *o) noexcept nogil:
    """The features of a side S into ``o[0..EXPERT_PER_SIDE)``, in nardy_fast.expert's order. In S's own
    numbering (bit q for its point q): the points it occupies, its blots, the points O occupies and those O
    holds; in O's numbering: the points S holds and those O occupies. ``on_board`` are S's checkers on the
    points, ``counts[step * q]`` those on its point q."""
    cdef int64_t values[EXPERT_PER_SIDE]
    cdef uint32_t present, reached = 0, bits, open_points
    cdef int q, d, r, rearmost, top = 0
    for d in range(EXPERT_PER_SIDE):
        values[d] = 0
    values[0] = pips + 25 * bar
    if short:
        # O's checkers in S's numbering, its bar at 0; the rearmost of them (25: none)
        present = foes | (<uint32_t> (foe_bar > 0))
        rearmost = ctz(present) if present else 25
        values[1] = bit_count(blots >> (rearmost + 1)) if rearmost < 24 else 0
        bits = present
        while bits:
            reached |= blots >> ctz(bits)
            bits &= bits - 1
        values[2] = EXPERT_NEAR_SHOTS[(reached >> 1) & 0xFFF]
        for r in range(EXPERT_NFAR):  # a double reaching only farther than 12
            values[2] += ((reached & EXPERT_FAR[r][0]) != 0) & ((reached & EXPERT_FAR[r][1]) == 0)
        if rearmost < 25:
            # the side's checkers less those on its points up to O's rearmost (few, usually)
            values[5] = on_board + bar
            for q in range(1, rearmost + 1):
                values[5] -= counts[step * q]
    # runs of points S holds along O's way; the trapped ones have a checker of O above them in O's numbering
    if foes_own:
        top = hibit(foes_own)
    if short and foe_bar > 0:
        top = 25
    values[3] = longest_run(held_against)
    values[4] = longest_run(held_against & (((<uint32_t> 1) << top) - 1))
    occupied |= (<uint32_t> (bar > 0)) << 25
    open_points = ~foes_hold & (<uint32_t> 0x1FFFFFE)
    # the six dice's landing points two to a word
    for d in range(1, 4):
        values[6] += bit_count64(((<uint64_t> (occupied & (open_points << d))) << 32)
                                 | (occupied & (open_points << (d + 3))))
    for d in range(EXPERT_PER_SIDE):
        o[d] = <float> values[d] / EXPERT_SCALE[d]


cdef void encode_expert(const Pos *p, float *o) noexcept nogil:
    """The expert features of ``p`` into ``o[0..2 * EXPERT_PER_SIDE)``: the side to move's, then its opponent's."""
    cdef int fam = 1 if V_SHORT[p.variant] else 0
    cdef int sign = -1 if p.turn else 1
    cdef int8_t seen[24]
    cdef int q
    for q in range(24):
        seen[q] = sign * p.board[MAP[fam][p.turn][q + 1]]
    expert_of_seen(p, seen, o)


cdef void expert_of_seen(const Pos *p, const int8_t *seen, float *o) noexcept nogil:
    """The expert features of ``p`` whose board in the mover's numbering is ``seen`` (``seen[m - 1]``: the
    checkers on M m, the mover's positive), as ``encode_expert`` writes them. One pass over the board; the
    opponent's bits are renumbered (``other_numbering``)."""
    cdef bint short = V_SHORT[p.variant]
    cdef int fam = 1 if short else 0
    cdef int me = p.turn
    cdef int need = 2 if short else 1
    cdef int mine[25]
    cdef int theirs[26]
    cdef int q, c, m, t, pips_m = 0, pips_o = 0
    cdef uint32_t occ_m = 0, blot_m = 0, held_m = 0, occ_o = 0, blot_o = 0, held_o = 0
    mine[0] = theirs[0] = theirs[25] = 0
    # sums of bits over a contiguous array, without branches: the compiler makes it vector code
    for q in range(24):
        c = seen[q]
        m = c if c > 0 else 0
        t = -c if c < 0 else 0
        pips_m += (q + 1) * m
        pips_o += EXPERT_OTHER_POINT[fam][q] * t
        occ_m += EXPERT_BIT[q] * (m > 0)
        blot_m += EXPERT_BIT[q] * (m == 1)
        held_m += EXPERT_BIT[q] * (m >= need)
        occ_o += EXPERT_BIT[q] * (t > 0)
        blot_o += EXPERT_BIT[q] * (t == 1)
        held_o += EXPERT_BIT[q] * (t >= need)
    for q in range(24):
        c = seen[q]
        mine[q + 1] = c if c > 0 else 0
        theirs[q + 1] = -c if c < 0 else 0
    # the opponent's counts in its own numbering are theirs[25 - q] (short nardy; contact is short nardy's only)
    expert_side(short, occ_m, blot_m, occ_o, held_o, other_numbering(held_m, short), other_numbering(occ_o, short),
                pips_m, p.bar[me], p.bar[1 - me], 15 - p.bar[me] - p.off[me], mine, 1, o)
    expert_side(short, other_numbering(occ_o, short), other_numbering(blot_o, short), other_numbering(occ_m, short),
                other_numbering(held_m, short), held_o, occ_m, pips_o, p.bar[1 - me], p.bar[me],
                15 - p.bar[1 - me] - p.off[1 - me], &theirs[25], -1,
                o + EXPERT_PER_SIDE)
