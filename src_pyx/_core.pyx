# cython: language_level=3, cdivision=True
"""The compiled core: the rules of RULES.md over fixed-size C arrays and bit masks, with no Python object in
the search. It mirrors :mod:`nardy_fast.reference.rules` rule by rule (the section of each is named), finds
the same results with the same canonical steps and the same Zobrist keys, and adds perft and a batch API
that work on packed positions (:mod:`nardy_fast.batch`)."""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

cimport numpy as cnp
from nardy_types cimport WIDTH, Gen, Node, NodeBuf, Pos, Table

from nardy_fast import zobrist as _zobrist
from nardy_fast.position import Move as _Move
from nardy_fast.reference.rules import Step as _Step
from nardy_fast.state import State as _State
from nardy_fast.state import check_roll as _check_roll
from nardy_fast.variants import VARIANTS as _VARIANTS

cnp.import_array()

cdef extern from *:
    int __builtin_clz(unsigned int) nogil

# --- constants and tables ------------------------------------------------------------------------------

cdef enum:
    LONG = 0
    SIXONE = 1
    SHORT = 2
    GULBAR = 3
    CRAZY = 4
    FLAG_PER_STEP = 1
    FLAG_LADDER4 = 2
    FLAG_SIXONE_REQUIRES = 4
    BAR_POINT = 25
    HEAD = 24

cdef uint64_t KEYS[1024]
cdef int K_POINT, K_BAR, K_OFF, K_BLACK, K_FIRST, K_PENDING, K_VARIANT, K_PER_STEP, K_LADDER4, K_EXC, K_SIXONE

# mover point m (1..24) -> White index 0..23, by family (0 long, 1 short) and mover colour (0 White, 1 Black)
cdef int8_t MAP[2][2][26]
# point keys of the mover's (X) or opponent's (Y) count c on M m: [family][colour][m * 16 + c]
cdef uint64_t KX[2][2][26 * 16]
cdef uint64_t KY[2][2][26 * 16]
# bar and off keys of side s holding n: [s][n]
cdef uint64_t KBAR[2][16]
cdef uint64_t KOFF[2][16]
# 12-bit reversal, for the block rule's view along Y's track
cdef uint32_t REV12[4096]


cdef uint64_t point_key(int index, int count):
    if count == 0:
        return 0
    return KEYS[K_POINT + 30 * index + (count + 15 if count < 0 else count + 14)]


cdef void _init_tables():
    global K_POINT, K_BAR, K_OFF, K_BLACK, K_FIRST, K_PENDING, K_VARIANT, K_PER_STEP, K_LADDER4, K_EXC, K_SIXONE
    cdef int i, fam, col, m, c, w, sign, s, n, b
    for i, key in enumerate(_zobrist.KEYS):
        KEYS[i] = key
    K_POINT, K_BAR, K_OFF = _zobrist.POINT, _zobrist.BAR, _zobrist.OFF
    K_BLACK, K_FIRST, K_PENDING = _zobrist.BLACK_TO_MOVE, _zobrist.FIRST_ROLL, _zobrist.PENDING
    K_VARIANT, K_PER_STEP, K_LADDER4 = _zobrist.VARIANT, _zobrist.PER_STEP, _zobrist.LADDER4
    K_EXC, K_SIXONE = _zobrist.EXCEPTION_DOUBLE, _zobrist.SIXONE_REQUIRES_PLAY
    for fam in range(2):
        for col in range(2):
            MAP[fam][col][0] = -1
            MAP[fam][col][25] = -1
            for m in range(1, 25):
                if col == 0:
                    w = m
                elif fam == 0:
                    w = m + 12 if m <= 12 else m - 12
                else:
                    w = 25 - m
                MAP[fam][col][m] = w - 1
            sign = 1 if col == 0 else -1
            for m in range(26):
                for c in range(16):
                    if 1 <= m <= 24:
                        KX[fam][col][m * 16 + c] = point_key(MAP[fam][col][m], sign * c)
                        KY[fam][col][m * 16 + c] = point_key(MAP[fam][col][m], -sign * c)
                    else:
                        KX[fam][col][m * 16 + c] = 0
                        KY[fam][col][m * 16 + c] = 0
    for s in range(2):
        KBAR[s][0] = 0
        KOFF[s][0] = 0
        for n in range(1, 16):
            KBAR[s][n] = KEYS[K_BAR + 15 * s + n - 1]
            KOFF[s][n] = KEYS[K_OFF + 15 * s + n - 1]
    for i in range(4096):
        r = 0
        for b in range(12):
            if i & (1 << b):
                r |= 1 << (11 - b)
        REV12[i] = r


_init_tables()

# --- small helpers ---------------------------------------------------------------------------------------


cdef inline int hibit(uint32_t v) noexcept nogil:
    return 31 - __builtin_clz(v)


cdef inline uint32_t track_mask(uint32_t xmask) noexcept nogil:
    """X's occupancy along Y's track (RULES §1.1): bit t for T-index t."""
    return REV12[xmask & 0xFFF] | (REV12[xmask >> 12] << 12)


cdef inline bint block_ok(const Gen *g, uint32_t xmask) noexcept nogil:
    """(B) RULES §1.7: no 6-run of X along Y's track unless a Y checker stands past its end."""
    cdef uint32_t t, c
    if g.ymax_t < 0:
        return True
    t = track_mask(xmask)
    c = t & (t >> 1) & (t >> 2)
    c = c & (c >> 3)
    return c == 0 or hibit(c) + 5 < g.ymax_t


cdef inline int family(int variant) noexcept nogil:
    return 1 if variant == SHORT else 0


# --- growable buffers ------------------------------------------------------------------------------------


cdef inline int64_t grown(int64_t cap, int64_t need, int64_t first) noexcept nogil:
    """A capacity of at least ``need``: doubling ``cap``, starting from ``first``."""
    cap = cap * 2 if cap else first
    while cap < need:
        cap *= 2
    return cap


cdef int buf_reserve(NodeBuf *b, int32_t need) noexcept nogil:
    cdef int32_t cap
    cdef Node *data
    if need <= b.cap:
        return 0
    cap = <int32_t> grown(b.cap, need, 64)
    data = <Node *> realloc(b.data, cap * sizeof(Node))
    if data == NULL:
        return -1
    b.data = data
    b.cap = cap
    return 0


cdef int table_resize(Table *t, uint32_t cap) noexcept nogil:
    """Use ``cap`` slots (a power of two), all empty."""
    cdef uint64_t *slots
    t.stamp += 1
    if t.alloc < cap or t.stamp == 0:
        slots = <uint64_t *> calloc(max(cap, t.alloc), sizeof(uint64_t))
        if slots == NULL:
            return -1
        free(t.slots)
        t.slots = slots
        t.alloc = max(cap, t.alloc)
        t.stamp = 1
    t.mask = cap - 1
    t.n = 0
    return 0


cdef int table_reset(Table *t, int32_t expected) noexcept nogil:
    """An empty table sized for ``expected`` entries, in O(1) (the stamp changes; nothing is cleared)."""
    cdef uint32_t cap = 16
    while cap < <uint32_t> (expected * 2):
        cap *= 2
    return table_resize(t, cap)


cdef inline bint same_board(const Node *a, const Node *b) noexcept nogil:
    cdef const uint64_t *u = <const uint64_t *> a.x
    cdef const uint64_t *v = <const uint64_t *> b.x
    cdef int i
    if a.key != b.key or a.xbar != b.xbar or a.ybar != b.ybar or a.xoff != b.xoff:
        return False
    for i in range(8):  # x and y, 32 bytes each
        if u[i] != v[i]:
            return False
    return True


cdef inline uint64_t node_hash(const Node *n, bint with_search_state) noexcept nogil:
    cdef uint64_t h = n.key
    if with_search_state:
        h ^= (<uint64_t> n.used * 0x9E3779B97F4A7C15ULL) ^ (<uint64_t> n.heads * 0xC2B2AE3D27D4EB4FULL)
    return h


cdef int32_t table_find_or_add(Table *t, Node *nodes, int32_t idx, bint with_search_state) noexcept nogil:
    """Index of a node equal to ``nodes[idx]`` already in the table, or -1 after adding ``idx``; -2: no memory."""
    cdef uint64_t h64 = node_hash(&nodes[idx], with_search_state)
    cdef uint32_t h = <uint32_t> (h64 >> 32) & t.mask
    cdef uint64_t slot, live = <uint64_t> t.stamp << 32
    cdef int32_t other
    cdef Node *a = &nodes[idx]
    cdef Node *b
    while True:
        slot = t.slots[h]
        if (slot & 0xFFFFFFFF00000000ULL) != live:
            break
        other = <int32_t> (slot & 0xFFFFFFFFULL)
        b = &nodes[other]
        if node_hash(b, with_search_state) == h64 and same_board(a, b) and (
            not with_search_state or (a.used == b.used and a.heads == b.heads)
        ):
            return other
        h = (h + 1) & t.mask
    t.slots[h] = live | <uint32_t> idx
    t.n += 1
    if <uint32_t> t.n * 2 > t.mask:
        if _rehash(t, nodes, with_search_state) < 0:
            return -2
    return -1


cdef int _rehash(Table *t, const Node *nodes, bint with_search_state) noexcept nogil:
    """Double the slots in use and re-insert every entry."""
    cdef uint32_t old_cap = t.mask + 1, i, h, count = 0
    cdef uint64_t live = <uint64_t> t.stamp << 32
    cdef int32_t *entries = <int32_t *> malloc(t.n * sizeof(int32_t))
    cdef int32_t n = t.n
    if entries == NULL:
        return -1
    for i in range(old_cap):
        if (t.slots[i] & 0xFFFFFFFF00000000ULL) == live:
            entries[count] = <int32_t> (t.slots[i] & 0xFFFFFFFFULL)
            count += 1
    if table_resize(t, old_cap * 2) < 0:
        free(entries)
        return -1
    live = <uint64_t> t.stamp << 32
    for i in range(count):
        h = <uint32_t> (node_hash(&nodes[entries[i]], with_search_state) >> 32) & t.mask
        while (t.slots[h] & 0xFFFFFFFF00000000ULL) == live:
            h = (h + 1) & t.mask
        t.slots[h] = live | <uint32_t> entries[i]
    t.n = n
    free(entries)
    return 0


cdef void gen_free(Gen *g) noexcept nogil:
    cdef int i
    for i in range(25):
        free(g.levels[i].data)
        g.levels[i].data = NULL
        g.levels[i].cap = 0
    free(g.table.slots)
    g.table.slots = NULL
    g.table.alloc = 0
    free(g.results)
    g.results = NULL


cdef Gen *gen_new() noexcept nogil:
    cdef Gen *g = <Gen *> malloc(sizeof(Gen))
    if g != NULL:
        memset(g, 0, sizeof(Gen))
    return g


# --- setting up a problem: RULES §1.1 coordinates, §1.4 dice, §1.7 (H) -------------------------------------


cdef int setup(Gen *g, const Pos *p, int d1, int d2, Node *root) noexcept nogil:
    """Fill ``g`` and ``root`` for the side to move of ``p`` and the roll ``d1-d2`` (0-0: play the pending list).

    Returns the number of dice values (0 for a bad pending list).
    """
    cdef int variant = p.variant
    cdef int fam = family(variant)
    cdef int col = p.turn
    cdef int m, w, c, i, v, per, _copy
    g.variant = variant
    g.static_key = static_key(p)
    g.long_family = variant != SHORT
    g.color = col
    g.per_step = (p.flags & FLAG_PER_STEP) != 0 and g.long_family
    g.kx = &KX[fam][col][0]
    g.ky = &KY[fam][col][0]
    g.kxbar = &KBAR[col][0]
    g.kybar = &KBAR[1 - col][0]
    g.kxoff = &KOFF[col][0]
    memset(root, 0, sizeof(Node))
    for m in range(1, 25):
        w = MAP[fam][col][m]
        c = p.board[w] if col == 0 else -p.board[w]
        if c > 0:
            root.x[m] = c
            root.xmask |= 1u << (m - 1)
            root.key ^= g.kx[m * 16 + c]
        elif c < 0:
            root.y[m] = -c
            root.key ^= g.ky[m * 16 - c]
    root.xbar = p.bar[col]
    root.ybar = p.bar[1 - col]
    root.xoff = p.off[col]
    root.key ^= KBAR[0][p.bar[0]] ^ KBAR[1][p.bar[1]] ^ KOFF[0][p.off[0]] ^ KOFF[1][p.off[1]]
    root.legal = 1
    # the farthest Y checker along Y's track, for the block rule (B)
    g.ymax_t = -1
    if g.long_family:
        for m in range(1, 25):
            if root.y[m]:
                c = 12 - m if m <= 12 else 36 - m
                if c > g.ymax_t:
                    g.ymax_t = c
    # §1.4 the dice list; §1.8.1 pending lists
    if d1 == 0:
        g.ndice = p.npending
        for i in range(p.npending):
            g.dice[i] = p.pending[i]
    elif d1 != d2:
        g.ndice = 2
        g.dice[0] = d1 if d1 > d2 else d2
        g.dice[1] = d2 if d1 > d2 else d1
    elif variant == CRAZY:
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
    g.ordered = not (g.ndice == 2 and g.dice[0] != g.dice[1])
    # (H) RULES §1.7, §2.3, §3.2: one head departure, two on an exception first roll; none in short
    if not g.long_family:
        g.head_limit = -1
    elif (d1 != 0 and d1 == d2 and variant != SIXONE and p.first[col]
          and (p.exc >> (d1 - 1)) & 1):
        g.head_limit = 2
    else:
        g.head_limit = 1
    return g.ndice


# --- §1.6 steps and the level-by-level search of §1.7 (M) and §1.8 -----------------------------------------


cdef inline int add_child(Gen *g, NodeBuf *nxt, const Node *parent, int32_t parent_index, int src, int dst,
                          int die, int dice_index, bint special) noexcept nogil:
    """Append ``parent`` + one step to the next level unless an equal node is there already (§1.8 order)."""
    cdef Node *n
    cdef int hit = 0
    cdef int32_t found
    if buf_reserve(nxt, nxt.n + 1) < 0:
        return -1
    n = &nxt.data[nxt.n]
    memcpy(n, parent, sizeof(Node))
    if src == BAR_POINT:
        n.key ^= g.kxbar[n.xbar] ^ g.kxbar[n.xbar - 1]
        n.xbar -= 1
    else:
        n.key ^= g.kx[src * 16 + n.x[src]] ^ g.kx[src * 16 + n.x[src] - 1]
        n.x[src] -= 1
        if n.x[src] == 0:
            n.xmask &= ~(1u << (src - 1))
        if src == HEAD and not special and g.long_family:
            n.heads += 1
    if dst == 0:
        n.key ^= g.kxoff[n.xoff] ^ g.kxoff[n.xoff + 1]
        n.xoff += 1
    else:
        if not g.long_family and n.y[dst] == 1:
            n.key ^= g.ky[dst * 16 + 1] ^ g.kybar[n.ybar] ^ g.kybar[n.ybar + 1]
            n.y[dst] = 0
            n.ybar += 1
            hit = 1
        n.key ^= g.kx[dst * 16 + n.x[dst]] ^ g.kx[dst * 16 + n.x[dst] + 1]
        n.x[dst] += 1
        n.xmask |= 1u << (dst - 1)
    n.used |= 1u << dice_index
    n.step = <uint16_t> (src | (die << 5) | (special << 8) | (hit << 9))
    n.parent = parent_index
    n.nsteps += 1
    n.legal = block_ok(g, n.xmask) if g.long_family else 1
    if g.per_step and not n.legal:
        return 0
    found = table_find_or_add(&g.table, nxt.data, nxt.n, True)
    if found == -2:
        return -1
    if found == -1:
        nxt.n += 1
    return 0


cdef inline bint in_order(const Gen *g, const Node *n, int src, int die, bint special) noexcept nogil:
    """Whether a step may follow the node's last step.

    Two consecutive steps with the same die value are tried only in descending canonical order. Any legal
    sequence sorted that way within a run of equal values is legal too and reaches the same result (landing
    points do not depend on X's own checkers, a head count does not depend on order, entries and higher
    points go first), and it is the lexicographically greater one (RULES §1.8), so nothing is lost. Under
    ``block_check = per_step`` intermediate positions matter, and every order is tried.
    """
    cdef uint16_t last = n.step
    if n.nsteps == 0 or g.per_step or ((last >> 5) & 7) != die:
        return True
    return src * 2 + (not special) <= (last & 31) * 2 + (not ((last >> 8) & 1))


cdef int expand(Gen *g, const Node *n, int32_t index, NodeBuf *nxt) noexcept nogil:
    """All children of ``n`` in descending canonical order (RULES §1.6 steps, §1.8 order)."""
    cdef int values[2]
    cdef int indices[2]
    cdef int nvalues = 0
    cdef int i, k, v, src, dst
    cdef uint32_t rest
    cdef bint home
    if g.ordered:
        values[0] = g.dice[n.nsteps]
        indices[0] = n.nsteps
        nvalues = 1
    else:
        for i in range(2):
            if not (n.used >> i) & 1:
                values[nvalues] = g.dice[i]
                indices[nvalues] = i
                nvalues += 1
    if n.xbar > 0:
        # (E) bar entry, short only: bar -> 25-d onto an open point
        for k in range(nvalues):
            dst = BAR_POINT - values[k]
            if n.y[dst] <= 1 and in_order(g, n, BAR_POINT, values[k], False):
                if add_child(g, nxt, n, index, BAR_POINT, dst, values[k], indices[k], False) < 0:
                    return -1
        return 0
    home = (n.xmask & ~<uint32_t> 0x3F) == 0
    rest = n.xmask
    while rest:
        src = hibit(rest) + 1
        rest &= ~(1u << (src - 1))
        for k in range(nvalues):
            v = values[k]
            if src > v:
                # (N) normal step onto an open point; (H) head departures counted
                dst = src - v
                if g.long_family:
                    if (n.y[dst] == 0 and (src != HEAD or n.heads < g.head_limit)
                            and in_order(g, n, src, v, False)):
                        if add_child(g, nxt, n, index, src, dst, v, indices[k], False) < 0:
                            return -1
                elif n.y[dst] <= 1 and in_order(g, n, src, v, False):
                    if add_child(g, nxt, n, index, src, dst, v, indices[k], False) < 0:
                        return -1
            elif home and (src == v or (n.xmask >> src) == 0) and in_order(g, n, src, v, False):
                # (O) bear-off: all home; exact, or a higher die from the farthest point
                if add_child(g, nxt, n, index, src, 0, v, indices[k], False) < 0:
                    return -1
            if (src == HEAD and g.variant == SIXONE and (v == 1 or v == 6) and n.y[v] == 0
                    and in_order(g, n, HEAD, v, True)):
                # (S) six-one special 24/ds
                if add_child(g, nxt, n, index, HEAD, v, v, indices[k], True) < 0:
                    return -1
    return 0


cdef int search(Gen *g, const Node *root) noexcept nogil:
    """Find the legal moves (RULES §1.7 M, D, P; §1.8): fills ``g.results`` with one node per distinct result.

    Returns the number of results, or -1 when memory ran out.
    """
    cdef int level = 0
    cdef int best = 0
    cdef int32_t i, found
    cdef NodeBuf *cur
    cdef NodeBuf *nxt
    cdef Node *n
    cdef bint any_high
    if buf_reserve(&g.levels[0], 1) < 0:
        return -1
    memcpy(&g.levels[0].data[0], root, sizeof(Node))
    g.levels[0].n = 1
    while level < g.ndice:
        cur = &g.levels[level]
        nxt = &g.levels[level + 1]
        nxt.n = 0
        if table_reset(&g.table, cur.n * 16) < 0:
            return -1
        for i in range(cur.n):
            n = &cur.data[i]
            if n.xoff == 15 or (g.per_step and not n.legal):
                continue
            if expand(g, n, i, nxt) < 0:
                return -1
        if nxt.n == 0:
            break
        level += 1
        for i in range(nxt.n):
            if nxt.data[i].legal:
                best = level
                break
    # the deepest level with a candidate; (D) the higher die when only one of two values can be played
    cur = &g.levels[best]
    any_high = False
    if not g.ordered and best == 1:
        for i in range(cur.n):
            if cur.data[i].legal and cur.data[i].used == 1:
                any_high = True
                break
    if g.results_cap < cur.n:
        free(g.results)
        g.results = <int32_t *> malloc(cur.n * sizeof(int32_t))
        if g.results == NULL:
            g.results_cap = 0
            return -1
        g.results_cap = cur.n
    if table_reset(&g.table, cur.n) < 0:
        return -1
    g.nresults = 0
    g.result_level = best
    for i in range(cur.n):
        n = &cur.data[i]
        if not n.legal or (any_high and n.used != 1):
            continue
        found = table_find_or_add(&g.table, cur.data, i, False)
        if found == -2:
            return -1
        if found == -1:
            g.results[g.nresults] = i
            g.nresults += 1
    return g.nresults


# --- §1.8.1, §3.4, §5.2, §5.3: the next state of each result -----------------------------------------------


cdef uint64_t static_key(const Pos *p) noexcept nogil:
    """Key of the fields that no move changes: variant and flags."""
    cdef uint64_t key = KEYS[K_VARIANT + p.variant]
    cdef int d
    if p.flags & FLAG_PER_STEP:
        key ^= KEYS[K_PER_STEP]
    if p.flags & FLAG_LADDER4:
        key ^= KEYS[K_LADDER4]
    if p.flags & FLAG_SIXONE_REQUIRES:
        key ^= KEYS[K_SIXONE]
    for d in range(6):
        if (p.exc >> d) & 1:
            key ^= KEYS[K_EXC + d]
    return key


cdef uint64_t result_pos(const Gen *g, const Pos *p, const Node *n, int d1, int d2, Pos *out,
                         int *extra) noexcept nogil:
    """Write the position after result ``n`` into ``out`` and return its full Zobrist key."""
    cdef int fam = family(p.variant)
    cdef int col = p.turn
    cdef int m, i, segment = d1 == 0
    cdef bint finished = n.xoff == 15
    cdef bint again = False
    cdef uint64_t key = n.key ^ g.static_key
    memcpy(out, p, sizeof(Pos))
    # the board back in White's numbering (RULES §1.1), as straight loops the compiler can vectorise
    if col == 0:
        for m in range(24):
            out.board[m] = n.x[m + 1] - n.y[m + 1]
    elif fam == 1:
        for m in range(24):
            out.board[m] = n.y[24 - m] - n.x[24 - m]
    else:
        for m in range(12):
            out.board[m] = n.y[m + 13] - n.x[m + 13]
            out.board[m + 12] = n.y[m + 1] - n.x[m + 1]
    out.bar[col] = n.xbar
    out.bar[1 - col] = n.ybar
    out.off[col] = n.xoff
    if not segment:
        out.first[col] = 0
    # §5.2 remainder (gulbar, crazy; not after a segment or a finish)
    out.npending = 0
    if (p.variant == GULBAR or p.variant == CRAZY) and not segment and not finished:
        for i in range(g.ndice):
            if not (n.used >> i) & 1:
                out.pending[out.npending] = g.dice[i]
                out.npending += 1
    memset(&out.pending[out.npending], 0, 24 - out.npending)
    # §3.4, §5.3 extra roll
    if not segment and not finished:
        if p.variant == SIXONE:
            again = ((d1 == 6 and d2 == 1) or (d1 == 1 and d2 == 6)) and (
                not (p.flags & FLAG_SIXONE_REQUIRES) or n.nsteps == 2)
        elif p.variant == GULBAR:
            again = d1 == d2 and n.nsteps == 4
    extra[0] = again
    # §1.8.1 who moves next
    if finished or not (again or segment) or out.npending:
        out.turn = 1 - col
    else:
        out.turn = col
    if out.turn:
        key ^= KEYS[K_BLACK]
    for i in range(2):
        if out.first[i]:
            key ^= KEYS[K_FIRST + i]
    for i in range(out.npending):
        key ^= KEYS[K_PENDING + 6 * i + out.pending[i] - 1]
    return key


cdef inline bint is_over(const Pos *p) noexcept nogil:
    return p.off[0] == 15 or p.off[1] == 15


# --- packing: State <-> Pos --------------------------------------------------------------------------------

_FLAG_BITS = {("block_check", "per_step"): FLAG_PER_STEP, ("ladder_per_value", 4): FLAG_LADDER4,
              ("sixone_extra_roll_requires_play", True): FLAG_SIXONE_REQUIRES}
_VARIANT_INDEX = {name: i for i, name in enumerate(_VARIANTS)}


cdef void pack(object state, Pos *p) except *:
    cdef int i
    memset(p, 0, sizeof(Pos))
    for i in range(24):
        p.board[i] = state.board[i]
    p.bar[0], p.bar[1] = state.bar
    p.off[0], p.off[1] = state.off
    p.turn = state.turn == "black"
    p.first[0], p.first[1] = state.first_roll
    p.variant = _VARIANT_INDEX[state.variant]
    for name, value in state.flags:
        if name == "first_roll_exception_doubles":
            for d in value:
                p.exc |= 1 << (d - 1)
        else:
            p.flags |= _FLAG_BITS.get((name, value), 0)
    p.npending = len(state.pending)
    for i in range(p.npending):
        p.pending[i] = state.pending[i]


cdef tuple _SMALL = tuple(range(-15, 16))
cdef tuple _PAIRS = tuple((a, b) for a in range(16) for b in range(16))
cdef tuple _FIRSTS = ((False, False), (True, False), (False, True), (True, True))
cdef dict _PENDING_CACHE = {}


cdef object unpack(const Pos *p, object flags):
    """The ``State`` of a packed position (``flags`` is reused from the parent: moves never change it)."""
    cdef list board = [None] * 24
    cdef int i
    for i in range(24):
        board[i] = _SMALL[p.board[i] + 15]
    pending = ()
    if p.npending:
        pending = tuple([p.pending[i] for i in range(p.npending)])
        pending = _PENDING_CACHE.setdefault(pending, pending)
    return _State(
        _VARIANTS[p.variant],
        "black" if p.turn else "white",
        tuple(board),
        _PAIRS[p.bar[0] * 16 + p.bar[1]],
        _PAIRS[p.off[0] * 16 + p.off[1]],
        _FIRSTS[p.first[0] + 2 * p.first[1]],
        pending,
        flags,
    )


# Step objects by their packed code (src | die << 5 | special << 8 | hit << 9)
cdef list _STEPS = [None] * 1024


cdef object step_object(uint16_t code):
    cdef object step = _STEPS[code]
    cdef int src, die, dst
    if step is None:
        src = code & 31
        die = (code >> 5) & 7
        dst = src - die
        if dst < 0 or (src == HEAD and (code >> 8) & 1):
            dst = die if (code >> 8) & 1 else 0
        step = _Step(src, dst, die, bool((code >> 8) & 1), bool((code >> 9) & 1))
        _STEPS[code] = step
    return step


# --- the per-call API ------------------------------------------------------------------------------------


cdef class Generator:
    """A reusable search workspace (not thread-safe: one per thread)."""

    cdef Gen *g

    def __cinit__(self):
        self.g = gen_new()
        if self.g == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g != NULL:
            gen_free(self.g)
            free(self.g)


cdef Generator _shared = Generator()


cdef class Children:
    """The results of one ``legal_moves`` call, kept packed; moves read them lazily."""

    cdef Pos *rows
    cdef uint64_t *keys
    cdef uint16_t *steps     # count x level step codes, canonical order
    cdef uint8_t *extra
    cdef int level
    cdef object parent
    cdef object roll

    def __dealloc__(self):
        free(self.rows)
        free(self.keys)
        free(self.steps)
        free(self.extra)


cdef class Move:
    """A legal move of the core: the same interface as ``nardy_fast.Move`` (registered as one), with its steps and
    result built on first access."""

    cdef Children _children
    cdef int _index
    cdef object _result
    cdef object _steps

    @property
    def parent(self):
        """The position the move was made from."""
        return self._children.parent

    @property
    def roll(self):
        """The roll the move was made for; ``None`` for a pending transfer list."""
        return self._children.roll

    @property
    def steps(self):
        """The canonical step sequence, in the mover's own numbering."""
        cdef int s
        cdef uint16_t *codes
        if self._steps is None:
            codes = &self._children.steps[self._index * self._children.level]
            self._steps = tuple([step_object(codes[s]) for s in range(self._children.level)])
        return self._steps

    @property
    def result(self):
        """The next position."""
        cdef Pos *row
        if self._result is None:
            row = &self._children.rows[self._index]
            parent = self._children.parent
            self._result = type(parent)(unpack(row, parent.state.flags), self._children.keys[self._index],
                                        (<char *> row)[:sizeof(Pos)])
        return self._result

    @property
    def remainder(self):
        """The unplayed values passed to the opponent (gulbar, crazy; RULES §5.2)."""
        cdef Pos *row = &self._children.rows[self._index]
        if row.npending == 0:
            return ()
        return self.result.pending

    @property
    def extra_roll(self):
        """Whether the same side rolls again (RULES §3.4, §5.3)."""
        return bool(self._children.extra[self._index])

    def __str__(self):
        return " ".join(map(str, self.steps)) or "pass"

    def __repr__(self):
        roll = self._children.roll
        return f"<Move {self} ({'pending' if roll is None else f'{roll[0]}-{roll[1]}'})>"

    def __eq__(self, other):
        if not isinstance(other, _Move):
            return NotImplemented
        return (self.parent, self.roll, self.result) == (other.parent, other.roll, other.result)

    def __hash__(self):
        return hash((self.parent, self.roll, self.result))


_Move.register(Move)


cdef list moves_of(object position, const Pos *p, int d1, int d2, object roll):
    """Search and wrap the results as lazy moves."""
    cdef Gen *g = _shared.g
    cdef Node root
    cdef const Node *n
    cdef int count, i, level, s, extra
    cdef int32_t index
    cdef Children children = Children.__new__(Children)
    cdef Move move
    cdef list moves
    setup(g, p, d1, d2, &root)
    count = search(g, &root)
    if count < 0:
        raise MemoryError()
    level = g.result_level
    children.parent = position
    children.roll = roll
    children.level = level
    children.rows = <Pos *> malloc(max(count, 1) * sizeof(Pos))
    children.keys = <uint64_t *> malloc(max(count, 1) * sizeof(uint64_t))
    children.steps = <uint16_t *> malloc(max(count * level, 1) * sizeof(uint16_t))
    children.extra = <uint8_t *> malloc(max(count, 1))
    if children.rows == NULL or children.keys == NULL or children.steps == NULL or children.extra == NULL:
        raise MemoryError()
    moves = [None] * count
    for i in range(count):
        index = g.results[i]
        children.keys[i] = result_pos(g, p, &g.levels[level].data[index], d1, d2, &children.rows[i], &extra)
        children.extra[i] = extra
        for s in range(level, 0, -1):
            n = &g.levels[s].data[index]
            children.steps[i * level + s - 1] = n.step
            index = n.parent
        move = Move.__new__(Move)
        move._children = children
        move._index = i
        moves[i] = move
    return moves


cdef void packed_of(object position, Pos *p) except *:
    """The packed form of a core position (cached on the position)."""
    cdef bytes packed = position._packed
    if packed is None:
        pack(position.state, p)
        position._packed = (<char *> p)[:sizeof(Pos)]
    else:
        memcpy(p, <char *> packed, sizeof(Pos))


def engine(position, roll):
    """All legal moves of a core ``position`` for a checked ``roll`` (``None``: the pending list)."""
    cdef Pos p
    packed_of(position, &p)
    if roll is None:
        return moves_of(position, &p, 0, 0, None)
    return moves_of(position, &p, roll[0], roll[1], roll)


def legal_moves(position, dice=None):
    """``Position.legal_moves`` of the core: the common case checked in C, anything else by the shared code."""
    cdef Pos p
    cdef object d1, d2
    packed_of(position, &p)
    if p.npending == 0 and type(dice) is tuple and len(<tuple> dice) == 2:
        d1 = (<tuple> dice)[0]
        d2 = (<tuple> dice)[1]
        if type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6:
            if is_over(&p):
                return []
            return moves_of(position, &p, d1, d2, dice)
    roll = _check_roll(dice, position.state.pending)
    if is_over(&p):
        return []
    if roll is None:
        return moves_of(position, &p, 0, 0, None)
    return moves_of(position, &p, roll[0], roll[1], roll)


def position_key(state):
    """The Zobrist key of a ``State``, computed by the core (equals ``nardy_fast.zobrist.position_key``)."""
    cdef Pos p
    cdef Node root
    cdef Gen g
    pack(state, &p)
    setup(&g, &p, 1, 2, &root)
    return root.key ^ full_extra_key(&p)


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
    return key


# --- perft -------------------------------------------------------------------------------------------------


cdef int64_t perft_roll(Gen *g, const Pos *p, int d1, int d2, int depth) noexcept nogil:
    """perft below one roll (0-0: the pending list); -1 when memory ran out."""
    cdef int64_t total = 0, sub
    cdef int count, i, extra
    cdef Node root
    cdef Pos *children
    setup(g, p, d1, d2, &root)
    count = search(g, &root)
    if count < 0 or depth == 1:
        return count
    children = <Pos *> malloc(count * sizeof(Pos))
    if children == NULL:
        return -1
    for i in range(count):
        result_pos(g, p, &g.levels[g.result_level].data[g.results[i]], d1, d2, &children[i], &extra)
    for i in range(count):
        sub = perft_pos(g, &children[i], depth - 1)
        if sub < 0:
            total = -1
            break
        total += sub
    free(children)
    return total


cdef int64_t perft_pos(Gen *g, const Pos *p, int depth) noexcept nogil:
    """perft over packed positions: the 21 rolls, or the pending list alone; -1 when memory ran out."""
    cdef int64_t total = 0, sub
    cdef int a, b
    if depth == 0:
        return 1
    if is_over(p):
        return 0
    if p.npending:
        return perft_roll(g, p, 0, 0, depth)
    for a in range(6, 0, -1):
        for b in range(a, 0, -1):
            sub = perft_roll(g, p, a, b, depth)
            if sub < 0:
                return -1
            total += sub
    return total


def perft(state, int depth):
    """perft of a ``State`` (see :func:`nardy_fast.perft`), computed without Python objects."""
    cdef Pos p
    cdef int64_t total
    cdef Gen *g = gen_new()
    if g == NULL:
        raise MemoryError()
    pack(state, &p)
    with nogil:
        total = perft_pos(g, &p, depth)
        gen_free(g)
        free(g)
    if total < 0:
        raise MemoryError()
    return total


# --- the batch API (packed positions, nardy_fast.batch) ----------------------------------------------------


cdef bint pending_ok(const Pos *p) noexcept nogil:
    """A pending list is one value, two different values (higher first), or a run of equal values (gulbar,
    2..4) or a ladder suffix (crazy), as ``nardy_fast.state`` requires."""
    cdef int n = p.npending, i, per, total, start
    if n == 0:
        return True
    if p.variant != GULBAR and p.variant != CRAZY:
        return False
    for i in range(n):
        if p.pending[i] < 1 or p.pending[i] > 6:
            return False
    if n == 1:
        return True
    if n == 2 and p.pending[0] != p.pending[1]:
        return p.pending[0] > p.pending[1]
    if p.variant == GULBAR:
        if n > 4:
            return False
        for i in range(1, n):
            if p.pending[i] != p.pending[0]:
                return False
        return True
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
    """Whether a packed position passes every check of ``Position.from_array`` (RULES §1.3 invariants)."""
    cdef int i, side, count
    cdef int long_family
    cdef Gen g
    cdef Node root
    if p.variant < 0 or p.variant > 4 or p.turn < 0 or p.turn > 1:
        return False
    long_family = p.variant != SHORT
    for i in range(2):
        if p.first[i] < 0 or p.first[i] > 1 or p.bar[i] < 0 or p.bar[i] > 15 or p.off[i] < 0 or p.off[i] > 15:
            return False
    if p.flags & ~7 or (p.flags & FLAG_PER_STEP and not long_family):
        return False
    if (p.flags & FLAG_LADDER4 and p.variant != CRAZY) or (p.flags & FLAG_SIXONE_REQUIRES and p.variant != SIXONE):
        return False
    if p.exc & ~63 or (p.exc and (p.variant == SHORT or p.variant == SIXONE)):
        return False
    if p.npending < 0 or p.npending > 24:
        return False
    for i in range(p.npending, 24):
        if p.pending[i] != 0:
            return False
    for i in range(5):
        if p.reserved[i] != 0:
            return False
    for side in range(2):
        count = p.bar[side] + p.off[side]
        for i in range(24):
            if p.board[i] < -15 or p.board[i] > 15:
                return False
            if side == 0 and p.board[i] > 0:
                count += p.board[i]
            elif side == 1 and p.board[i] < 0:
                count -= p.board[i]
        if count != 15:
            return False
    if long_family and (p.bar[0] or p.bar[1]):
        return False
    if p.off[0] == 15 and p.off[1] == 15:
        return False
    if not pending_ok(p) or (p.npending and (p.off[0] == 15 or p.off[1] == 15)):
        return False
    if long_family:
        for side in range(2):
            # judge each side's blocks (B) from its own point of view
            setup_view(&g, p, side, &root)
            if not block_ok(&g, root.xmask):
                return False
    return True


cdef void setup_view(Gen *g, const Pos *p, int side, Node *root) noexcept nogil:
    """``root`` and the block-rule data of ``g`` for ``side`` as the mover."""
    cdef Pos view
    memcpy(&view, p, sizeof(Pos))
    view.turn = side
    view.npending = 0
    setup(g, &view, 1, 2, root)


cdef struct Out:
    Pos *rows
    uint64_t *keys
    int64_t n
    int64_t cap


cdef int out_reserve(Out *o, int64_t need) noexcept nogil:
    cdef int64_t cap
    cdef Pos *rows
    cdef uint64_t *keys
    if need <= o.cap:
        return 0
    cap = grown(o.cap, need, 256)
    rows = <Pos *> realloc(o.rows, cap * sizeof(Pos))
    if rows == NULL:
        return -1
    o.rows = rows
    keys = <uint64_t *> realloc(o.keys, cap * sizeof(uint64_t))
    if keys == NULL:
        return -1
    o.keys = keys
    o.cap = cap
    return 0


cdef int64_t children_into(Gen *g, const Pos *p, int d1, int d2, Out *o) noexcept nogil:
    """Append the children of one checked position and roll to ``o``; -1 when memory ran out."""
    cdef Node root
    cdef int count, i, extra
    if is_over(p):
        return 0
    setup(g, p, d1, d2, &root)
    count = search(g, &root)
    if count < 0 or out_reserve(o, o.n + count) < 0:
        return -1
    for i in range(count):
        o.keys[o.n] = result_pos(g, p, &g.levels[g.result_level].data[g.results[i]], d1, d2, &o.rows[o.n],
                                 &extra)
        o.n += 1
    return count


cdef inline bint roll_ok(const Pos *p, int d1, int d2) noexcept nogil:
    if p.npending:
        return d1 == 0 and d2 == 0
    return 1 <= d1 <= 6 and 1 <= d2 <= 6


def batch_children(const int8_t[:, ::1] positions, const int8_t[:, ::1] rolls):
    """Children of N packed positions (rows of 64 int8) for N rolls (rows ``d1, d2``; ``0, 0`` plays the
    pending list). Returns ``(children, offsets, keys, bad)``: ``bad`` is -1, or the first row that failed
    its checks (``bad + N`` when it was the roll), to be explained by the caller."""
    cdef Py_ssize_t n = positions.shape[0], i
    cdef Py_ssize_t roll_stride = 0 if rolls.shape[0] == 1 else 1
    cdef Gen *g
    cdef Out o
    cdef int64_t bad = -1, got
    cdef const Pos *p
    cdef int d1, d2
    cdef bint failed = False
    if positions.shape[1] != WIDTH or rolls.shape[1] != 2:
        raise ValueError("positions must have 64 columns and rolls 2")
    offsets = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] offs = offsets
    memset(&o, 0, sizeof(Out))
    g = gen_new()
    if g == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            p = <const Pos *> &positions[i, 0]
            d1 = rolls[i * roll_stride, 0]
            d2 = rolls[i * roll_stride, 1]
            if not pos_ok(p):
                bad = i
                break
            if not roll_ok(p, d1, d2):
                bad = i + n
                break
            got = children_into(g, p, d1, d2, &o)
            if got < 0:
                failed = True
                break
            offs[i + 1] = o.n
        gen_free(g)
        free(g)
    try:
        if failed:
            raise MemoryError()
        children = np.empty((o.n, WIDTH), dtype=np.int8)
        keys = np.empty(o.n, dtype=np.uint64)
        if o.n:
            memcpy(cnp.PyArray_DATA(children), o.rows, o.n * sizeof(Pos))
            memcpy(cnp.PyArray_DATA(keys), o.keys, o.n * sizeof(uint64_t))
    finally:
        free(o.rows)
        free(o.keys)
    return children, offsets, keys, bad


def children(position, dice=None):
    """The children of one packed row (see ``nardy_fast.children``), or ``None`` for anything but a valid
    C-contiguous int8 row with a valid roll, which the caller then explains."""
    cdef const int8_t[::1] row
    cdef const Pos *p
    cdef Out o
    cdef int64_t got
    cdef int d1 = 0, d2 = 0
    if type(position) is not np.ndarray or position.dtype != np.int8 or position.ndim != 1:
        return None
    if dice is not None:
        if type(dice) is not tuple or len(<tuple> dice) != 2:
            return None
        if type((<tuple> dice)[0]) is not int or type((<tuple> dice)[1]) is not int:
            return None
        d1 = (<tuple> dice)[0]
        d2 = (<tuple> dice)[1]
    try:
        row = position
    except ValueError:
        return None
    if row.shape[0] != WIDTH:
        return None
    p = <const Pos *> &row[0]
    if not pos_ok(p) or not roll_ok(p, d1, d2):
        return None
    memset(&o, 0, sizeof(Out))
    got = children_into(_shared.g, p, d1, d2, &o)
    try:
        if got < 0:
            raise MemoryError()
        result = np.empty((o.n, WIDTH), dtype=np.int8)
        if o.n:
            memcpy(cnp.PyArray_DATA(result), o.rows, o.n * sizeof(Pos))
    finally:
        free(o.rows)
        free(o.keys)
    return result
