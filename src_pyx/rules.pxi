# The rules that set a search up, twins of nardy_fast.reference.rules and nardy_fast.board: the board in the
# mover's numbering, the dice list, the head limit (H; docs/rules.md names each), and the keys of the fields
# no move changes.
# Uses: tables, numbering, block, gate.
# Offers: bear_off_sources, full_extra_key, setup.
cdef inline uint32_t bear_off_sources(uint32_t xmask, int v) noexcept nogil:
    """(O) docs/rules.md, Bearing off, the reference's ``bear_off_step`` for every source at once: the point X
    bears off from with ``v``, as a bit mask of X's points ``xmask`` (bit m-1: M m). None unless every
    checker is home (M1..M6); M v itself, else the farthest point when it is below v."""
    cdef int top
    if xmask - 1 >= 0x3F:  # none on M1..M6 alone: a checker outside, or none left (0 - 1 wraps)
        return 0
    top = hibit(xmask) + 1
    return (xmask & (1u << (v - 1))) | ((1u << (top - 1)) if top < v else 0)


cdef int setup(Gen *g, const Pos *p, int d1, int d2) noexcept nogil:
    """Fill ``g`` for the side to move of ``p`` and the roll ``d1-d2`` (0-0: play the pending list): the board
    (``to_mover``), the dice list (``dice_list``) and the head limit (``head_limit``). Returns the number of
    dice values."""
    NARDY_CHECK(pos_ok(p), "a search set up on a row that fails the row gate (pos_ok)")
    to_mover(g, p)
    g.want_steps = 0
    dice_list(g, p, d1, d2)
    head_limit(g, p, d1, d2)
    return g.ndice


cdef void to_mover(Gen *g, const Pos *p) noexcept nogil:
    """The board seen by the side to move (docs/rules.md, The mover's numbering), its key, X's points and the
    points closed to X, and what no step changes (the key tables of the geometry and colour, the variant's and
    flags' key)."""
    cdef int variant = p.variant
    cdef int fam = family(variant)
    cdef int col = p.turn
    cdef int m, i
    cdef uint32_t xmask = 0, yblock = 0
    cdef uint64_t key, closed
    cdef uint64_t words[3]
    g.variant = variant
    g.static_key = static_key(p)
    g.long_family = not V_SHORT[variant]
    g.color = col
    g.per_step = (p.flags & FLAG_PER_STEP) != 0 and g.long_family
    g.kx = &KX[fam][col][0]
    g.ky = &KY[fam][col][0]
    g.ks = &KS[fam][col][0]
    g.kd = &KD[fam][col][0]
    g.kxbar = &KBAR[col][0]
    g.kybar = &KBAR[1 - col][0]
    g.kxoff = &KOFF[col][0]
    g.kxb = &KXB[fam][col][0]
    key = KBAR[0][p.bar[0]] ^ KBAR[1][p.bar[1]] ^ KOFF[0][p.off[0]] ^ KOFF[1][p.off[1]]
    g.b[0] = 0
    renumber(p.board, &g.b[1], col, g.long_family)
    for m in range(1, 25):
        key ^= g.ks[m * 32 + 16 + g.b[m]]
    # X's points, and (N) the points closed to X: one Y checker in the long family, two in short (not -1)
    memcpy(<char *> words, &g.b[1], 24)
    for i in range(3):
        xmask |= gather(nonzero_bytes(words[i]) & ~words[i]) << (8 * i)
        closed = words[i] & 0x8080808080808080ULL
        if V_SHORT[variant]:
            closed &= nonzero_bytes(~words[i])
        yblock |= gather(closed) << (8 * i)
    g.b[BAR_POINT] = p.bar[col]
    g.b[YBAR] = p.bar[1 - col]
    g.b[XOFF] = p.off[col]
    memset(&g.b[XOFF + 1], 0, 32 - XOFF - 1)
    g.xmask = xmask
    g.yblock = yblock
    g.key = key
    # for the block rule (B): Y holds exactly the closed points in the long family
    g.ymax_t = farthest_on_track(yblock) if g.long_family else -1


cdef void dice_list(Gen *g, const Pos *p, int d1, int d2) noexcept nogil:
    """The values to play (docs/rules.md, Rolls and the dice list; a pending list for 0-0): {a, b} higher
    first; four of a double; a crazy ladder, unless flag normal_doubles_first_rolls keeps the mover's first
    rolls' doubles normal (``plays_ladder``)."""
    cdef int i, v, per, _copy
    if d1 == 0:
        g.ndice = p.npending
        for i in range(p.npending):
            g.dice[i] = p.pending[i]
    elif d1 != d2:
        g.ndice = 2
        g.dice[0] = d1 if d1 > d2 else d2
        g.dice[1] = d2 if d1 > d2 else d1
    elif V_LADDER[p.variant] and not (p.flags & FLAG_NORMAL_DOUBLES and p.rolls_played[p.turn] < NORMAL_DOUBLES):
        per = 4 if p.flags & FLAG_LADDER4 else 2
        g.ndice = 0
        for v in range(d1, 7):
            for _copy in range(per):
                g.dice[g.ndice] = v
                g.ndice += 1
    else:
        g.ndice = 4
        for i in range(4):
            g.dice[i] = d1
    NARDY_CHECK(0 < g.ndice <= 24 or (d1 == 0 and g.ndice == 0), "a dice list out of its 24 places")
    # is_ordered: only two different values may be played in either order (docs/rules.md, Maximal use of the
    # dice)
    g.ordered = not (g.ndice == 2 and g.dice[0] != g.dice[1])


cdef void head_limit(Gen *g, const Pos *p, int d1, int d2) noexcept nogil:
    """(H) docs/rules.md, Head rule and First-roll exception: how many normal steps may leave the head: one,
    two on an exception double of the mover's first roll (not in a transfer segment); no limit (-1) in short
    nardy."""
    if not g.long_family:
        g.head_limit = -1
    elif (d1 != 0 and d1 == d2 and V_EXCEPTION[p.variant] and p.first[p.turn]
          and (p.exc >> (d1 - 1)) & 1):
        g.head_limit = 2
    else:
        g.head_limit = 1


cdef uint64_t static_key(const Pos *p) noexcept nogil:
    """Key of the fields that no move changes: variant and flags."""
    return VARIANT_KEY[p.variant] ^ FLAGS_KEY[<uint8_t> p.flags] ^ EXC_KEY[p.exc & 63]


cdef uint64_t full_extra_key(const Pos *p) noexcept nogil:
    cdef uint64_t key = static_key(p)
    cdef int i
    if p.turn:
        key ^= KEYS[K_BLACK]
    for i in range(2):
        if p.first[i]:
            key ^= KEYS[K_FIRST + i]
    for i in range(p.npending):
        key ^= KEYS[K_PENDING + 6 * i + p.pending[i] - 1]
    key ^= PLAYED_KEY[0][p.rolls_played[0]] ^ PLAYED_KEY[1][p.rolls_played[1]]
    return key
