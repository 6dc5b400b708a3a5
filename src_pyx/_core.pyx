# cython: language_level=3, cdivision=True
"""The compiled core: the rules of RULES.md over fixed-size C arrays and bit masks, with no Python object in
the search. It mirrors :mod:`nardy_fast.reference.rules` rule by rule (the section of each is named), finds
the same results with the same canonical steps and the same Zobrist keys, and adds perft and a batch API
that work on packed positions (:mod:`nardy_fast.batch`)."""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset
cimport cython
from cpython.pycapsule cimport (PyCapsule_GetContext, PyCapsule_GetName, PyCapsule_GetPointer, PyCapsule_New,
                                PyCapsule_SetContext)

import numpy as np

cimport numpy as cnp
from nardy_types cimport WIDTH, Gen, Node, NodeBuf, Pos, Result, Table

from nardy_fast import zobrist as _zobrist
from nardy_fast.errors import InvalidDiceError as _InvalidDiceError
from nardy_fast.errors import InvalidPositionError as _InvalidPositionError
from nardy_fast.errors import NardyError as _NardyError
from nardy_fast.errors import field_error as _field_error
from nardy_fast.perft import check_depth as _check_depth
from nardy_fast.position import Move as _Move
from nardy_fast.position import Position as _BasePosition
from nardy_fast.position import _uninitialised
from nardy_fast.position import move_of as _move_of
from nardy_fast.reference.rules import Step as _Step
from nardy_fast.state import State as _State
from nardy_fast.state import limit_error as _limit_error
from nardy_fast.variants import VARIANTS as _VARIANTS

cnp.import_array()

cdef extern from *:
    """
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    #error "nardy_fast's core reads and writes boards eight points to a word: it needs a little-endian machine"
    #endif
    """
    # not ``cpython.exc``'s declaration: that one makes Cython report and clear, in a ``noexcept`` function,
    # the very exception (KeyboardInterrupt) that the caller must raise
    int PyErr_CheckSignals() noexcept
    int __builtin_clz(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil
    uint64_t __builtin_bswap64(uint64_t) nogil

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
    # what a search returns when it stops early
    E_MEMORY = -1      # memory ran out
    E_LIMIT = -2       # a level needed more nodes than Gen.limit (max_results)
    E_SIGNAL = -3      # a signal handler raised (Ctrl-C): its exception is set
    # a depth-first search of up to four dice never holds this many positions after one number of steps
    # (after k equal dice a board is a multiset of k step kinds: 24 points, the bar and the special,
    # C(26 + 4 - 1, 4) = 23,751 at k = 4; two different dice give at most (26 * 2)^2), so a search with a
    # limit at least this large needs no level counts
    DFS_LEVEL_BOUND = 100000
    TICK_MASK = 4095   # a look for signals every 4096 ticks
    BAR_POINT = 25     # X's bar, as a step's source and as an index of Result.b
    YBAR = 26
    XOFF = 27
    HEAD = 24

cdef uint64_t KEYS[1024]
cdef int K_POINT, K_BAR, K_OFF, K_BLACK, K_FIRST, K_PENDING, K_VARIANT, K_PER_STEP, K_LADDER4, K_EXC, K_SIXONE

# mover point m (1..24) -> White index 0..23, by family (0 long, 1 short) and mover colour (0 White, 1 Black)
cdef int8_t MAP[2][2][26]
# point keys of the mover's (X) or opponent's (Y) count c on M m: [family][colour][m * 16 + c]
cdef uint64_t KX[2][2][26 * 16]
cdef uint64_t KY[2][2][26 * 16]
# the same keys by signed count (X > 0, Y < 0): [family][colour][m * 32 + 16 + c]
cdef uint64_t KS[2][2][26 * 32]
# what a step changes: KD[..][m * 32 + 16 + c] = KS[..][m * 32 + 16 + c] ^ KS[..][m * 32 + 15 + c] (c > -16)
cdef uint64_t KD[2][2][26 * 32]
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
                    KS[fam][col][m * 32 + 16 + c] = KX[fam][col][m * 16 + c]
                    KS[fam][col][m * 32 + 16 - c] = KY[fam][col][m * 16 + c]
                KS[fam][col][m * 32] = 0
                KD[fam][col][m * 32] = 0
                for c in range(1, 32):
                    KD[fam][col][m * 32 + c] = KS[fam][col][m * 32 + c] ^ KS[fam][col][m * 32 + c - 1]
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


cdef inline int ctz(uint32_t v) noexcept nogil:
    return __builtin_ctz(v)


cdef inline uint64_t nonzero_bytes(uint64_t w) noexcept nogil:
    """The high bit of each nonzero byte of ``w``."""
    return (((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w) & 0x8080808080808080ULL


cdef inline uint32_t gather(uint64_t high) noexcept nogil:
    """Bit i set where byte i of ``high`` (only high bits set) has its high bit: a multiply moves the eight
    bits into the top byte without collisions."""
    return <uint32_t> (((high >> 7) * 0x0102040810204080ULL) >> 56)


cdef inline uint32_t track_mask(uint32_t xmask) noexcept nogil:
    """X's occupancy along Y's track (RULES §1.1): bit t for T-index t."""
    return REV12[xmask & 0xFFF] | (REV12[xmask >> 12] << 12)


cdef inline bint block_ok(const Gen *g, uint32_t xmask) noexcept nogil:
    """(B) RULES §1.7: no 6-run of X along Y's track unless a Y checker stands past its end."""
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


cdef inline int family(int variant) noexcept nogil:
    return 1 if variant == SHORT else 0


# --- growable buffers ------------------------------------------------------------------------------------


cdef inline int64_t grown(int64_t cap, int64_t need, int64_t first) noexcept nogil:
    """A capacity of at least ``need``: doubling ``cap``, starting from ``first``."""
    cap = cap * 2 if cap else first
    while cap < need:
        cap *= 2
    return cap


cdef int resized(void **data, int64_t count, size_t size) noexcept nogil:
    """Reallocate ``*data`` to ``count`` items of ``size`` bytes; -1 (``*data`` kept) when memory ran out."""
    cdef void *moved = realloc(data[0], count * size)
    if moved == NULL:
        return -1
    data[0] = moved
    return 0


cdef int buf_reserve(NodeBuf *b, int32_t need) noexcept nogil:
    cdef int32_t cap
    if need <= b.cap:
        return 0
    cap = <int32_t> grown(b.cap, need, 64)
    if resized(<void **> &b.data, cap, sizeof(Node)) < 0:
        return -1
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
    free(g.res)
    free(g.steps)
    g.res = NULL
    g.steps = NULL
    g.res_cap = 0


cdef size_t gen_bytes(const Gen *g) noexcept nogil:
    """The bytes that the workspace's buffers hold."""
    cdef size_t total = <size_t> g.table.alloc * sizeof(uint64_t)
    cdef int i
    for i in range(25):
        total += <size_t> g.levels[i].cap * sizeof(Node)
    return total + <size_t> g.res_cap * (sizeof(Result) + 24 * sizeof(uint16_t))


cdef Gen *gen_new() noexcept nogil:
    cdef Gen *g = <Gen *> malloc(sizeof(Gen))
    if g != NULL:
        memset(g, 0, sizeof(Gen))
    return g


# --- setting up a problem: RULES §1.1 coordinates, §1.4 dice, §1.7 (H) -------------------------------------


cdef int setup(Gen *g, const Pos *p, int d1, int d2) noexcept nogil:
    """Fill ``g`` (the board ``g.b`` to search, in the mover's numbering) for the side to move of ``p`` and the
    roll ``d1-d2`` (0-0: play the pending list).

    Returns the number of dice values (0 for a bad pending list).
    """
    cdef int variant = p.variant
    cdef int fam = family(variant)
    cdef int col = p.turn
    cdef int m, i, v, per, _copy
    cdef uint32_t xmask = 0, yblock = 0
    cdef uint64_t key, closed
    cdef uint64_t words[3]
    g.variant = variant
    g.static_key = static_key(p)
    g.long_family = variant != SHORT
    g.color = col
    g.per_step = (p.flags & FLAG_PER_STEP) != 0 and g.long_family
    g.kx = &KX[fam][col][0]
    g.ky = &KY[fam][col][0]
    g.ks = &KS[fam][col][0]
    g.kd = &KD[fam][col][0]
    g.kxbar = &KBAR[col][0]
    g.kybar = &KBAR[1 - col][0]
    g.kxoff = &KOFF[col][0]
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
        if variant == SHORT:
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


cdef int levels_search(Gen *g) noexcept nogil:
    """The level-by-level search (RULES §1.7 M, D, P; §1.8), for long dice lists and the per-step block check,
    where merging equal nodes of a level keeps the work small: fills the results; -1 when memory ran out."""
    cdef int level = 0
    cdef int best = 0
    cdef int32_t i, found, index
    cdef int s, m
    cdef NodeBuf *cur
    cdef NodeBuf *nxt
    cdef Node *n
    cdef Result *r
    cdef bint any_high
    if buf_reserve(&g.levels[0], 1) < 0:
        return -1
    # the root node from the board
    n = &g.levels[0].data[0]
    memset(n, 0, sizeof(Node))
    for m in range(1, 25):
        if g.b[m] > 0:
            n.x[m] = g.b[m]
        else:
            n.y[m] = -g.b[m]
    n.xbar = g.b[BAR_POINT]
    n.ybar = g.b[YBAR]
    n.xoff = g.b[XOFF]
    n.xmask = g.xmask
    n.key = g.key
    n.legal = 1
    g.levels[0].n = 1
    while level < g.ndice:
        cur = &g.levels[level]
        nxt = &g.levels[level + 1]
        nxt.n = 0
        # sized for twice this level's nodes, it doubles itself when half full: sized for the most a level can
        # grow (16 times), it made crazy ladders fault in hundreds of megabytes of pages for each batch
        if table_reset(&g.table, cur.n * 2) < 0:
            return E_MEMORY
        for i in range(cur.n):
            n = &cur.data[i]
            if n.xoff == 15 or (g.per_step and not n.legal):
                continue
            if expand(g, n, i, nxt) < 0:
                return E_MEMORY
            if g.limit and nxt.n > g.limit:
                return E_LIMIT
            if tick(g) < 0:
                return E_SIGNAL
        if nxt.n == 0:
            break
        level += 1
        for i in range(nxt.n):
            if nxt.data[i].legal:
                best = level
                break
    # the deepest level with a candidate, its legal nodes merged by board; (D) the higher die when only one of
    # two values can be played
    cur = &g.levels[best]
    g.best = best
    g.nres = 0
    any_high = False
    if not g.ordered and best == 1:
        for i in range(cur.n):
            if cur.data[i].legal and cur.data[i].used == 1:
                any_high = True
                break
    if table_reset(&g.table, cur.n) < 0:
        return -1
    for i in range(cur.n):
        n = &cur.data[i]
        if not n.legal or (any_high and n.used != 1):
            continue
        found = table_find_or_add(&g.table, cur.data, i, False)
        if found == -2 or (found == -1 and results_reserve(g, g.nres + 1) < 0):
            return -1
        if found != -1:
            continue
        r = &g.res[g.nres]
        memset(r.b, 0, sizeof(r.b))
        for m in range(1, 25):
            r.b[m] = n.x[m] - n.y[m]
        r.b[BAR_POINT] = n.xbar
        r.b[YBAR] = n.ybar
        r.b[XOFF] = n.xoff
        r.key = n.key
        r.used = n.used
        r.nsteps = best
        index = i
        for s in range(best, 0, -1):
            g.steps[g.nres * g.ndice + s - 1] = g.levels[s].data[index].step
            index = g.levels[s].data[index].parent
        g.nres += 1
    return 0


# --- the results, and the depth-first search of up to four dice (§1.6-§1.8) --------------------------------


cdef int results_reserve(Gen *g, int32_t need) noexcept nogil:
    """Room for ``need`` results, and for the steps of each at a stride of up to 24 (4 more at the end)."""
    cdef int32_t cap
    if need <= g.res_cap:
        return 0
    cap = <int32_t> grown(g.res_cap, need, 64)
    if (resized(<void **> &g.res, cap, sizeof(Result)) < 0
            or resized(<void **> &g.steps, cap * 24 + 4, sizeof(uint16_t)) < 0):
        return -1
    g.res_cap = cap
    return 0


cdef inline Result *next_result(Gen *g) noexcept nogil:
    """The place of the next result (``g.res[g.nres]``), made room for; NULL when memory ran out."""
    if g.nres == g.res_cap and results_reserve(g, g.nres + 1) < 0:
        return NULL
    return &g.res[g.nres]


cdef inline bint same_result(const Result *r, const int8_t *b) noexcept nogil:
    cdef const uint64_t *u = <const uint64_t *> r.b
    cdef const uint64_t *v = <const uint64_t *> b
    return u[0] == v[0] and u[1] == v[1] and u[2] == v[2] and u[3] == v[3]


cdef inline uint16_t step_at(const Gen *g, int i) noexcept nogil:
    """Step ``i`` of the path that led to the board being searched."""
    return <uint16_t> (g.path >> (16 * i))


cdef inline void set_step(Gen *g, int i, uint16_t code) noexcept nogil:
    g.path = (g.path & ~(<uint64_t> 0xFFFF << (16 * i))) | (<uint64_t> code << (16 * i))


cdef inline int deeper(Gen *g, int depth, bint look) noexcept nogil:
    """The first result ``depth`` steps deep: the shallower ones go (RULES §1.7 M); -1 when memory ran out."""
    g.best = depth
    g.nres = 0
    if look and table_reset(&g.table, 128) < 0:
        return -1
    return 0


cdef inline int record(Gen *g, const int8_t *board, uint64_t key, uint32_t used, int depth,
                       bint look) noexcept nogil:
    """Keep ``board`` (reached by the first ``depth`` steps of ``g.path``) as a result unless it is one already
    (``keep``). Nothing is looked up when ``g.distinct``."""
    cdef Result *r
    look = look and not g.distinct
    if depth > g.best and deeper(g, depth, look) < 0:
        return -1
    r = next_result(g)
    if r == NULL:
        return -1
    memcpy(r.b, board, sizeof(r.b))
    return keep(g, r, key, used, depth, look)


cdef inline int keep(Gen *g, Result *r, uint64_t key, uint32_t used, int depth, bint look) noexcept nogil:
    """Keep the board written at ``r`` (``g.res[g.nres]``, reached by the first ``depth`` steps of ``g.path``)
    as a result unless it is one already. Only results that may meet another are looked up (``look``), and only
    they enter the table; -1 when memory ran out."""
    cdef int found
    r.key = key
    r.used = used
    r.nsteps = depth
    if look:
        found = look_up(g, r)
        if found:
            return -1 if found < 0 else 0
    memcpy(&g.steps[g.nres * g.ndice], &g.path, sizeof(g.path))  # all four: a fixed-size copy
    g.nres += 1
    return 0


cdef int look_up(Gen *g, const Result *r) noexcept nogil:
    """1 when the result at ``r`` (the next one, not kept yet) equals a kept one; else 0, and it is entered in
    the table (-1 when memory ran out). After one of two different dice, results differ by the die too, for
    (D)."""
    cdef Table *t = &g.table
    cdef uint32_t h, i
    cdef uint64_t slot, live = <uint64_t> t.stamp << 32
    cdef const Result *other
    cdef bint by_die = not g.ordered and r.nsteps == 1
    h = <uint32_t> (r.key >> 32) & t.mask
    while True:
        slot = t.slots[h]
        if (slot & 0xFFFFFFFF00000000ULL) != live:
            break
        i = <uint32_t> slot
        # (a slot may name a result of a shallower level, dropped since, when the table was not reset)
        if i < <uint32_t> g.nres:
            other = &g.res[i]
            if other.key == r.key and same_result(other, r.b) and (not by_die or other.used == r.used):
                return 1
        h = (h + 1) & t.mask
    t.slots[h] = live | <uint32_t> g.nres
    t.n += 1
    if <uint32_t> t.n * 2 > t.mask:
        # double the slots and put every result in (those not looked up are harmless there)
        if table_resize(t, (t.mask + 1) * 2) < 0:
            return -1
        live = <uint64_t> t.stamp << 32
        for i in range(<uint32_t> g.nres + 1):
            h = <uint32_t> (g.res[i].key >> 32) & t.mask
            while (t.slots[h] & 0xFFFFFFFF00000000ULL) == live:
                h = (h + 1) & t.mask
            t.slots[h] = live | i
        t.n = g.nres + 1
    return 0


cdef int visit_steps(Gen *g) noexcept nogil:
    """Take every step from the board being searched, in the canonical order of ``expand`` (sources from the
    highest point; at each, the dice in order, a normal step or bear-off, then the six-one special): with one
    die value to play (``visit_one``), or the first of two different dice (``visit_two``)."""
    cdef uint16_t last
    cdef uint32_t swapped = 0
    cdef int index
    if g.ordered:
        return visit_one(g, g.depth, 0)
    if g.depth == 0:
        return visit_two(g)
    # Two different dice played from points p then q reach what q then p reaches, and when neither step is
    # the special and q stands at or above p, both orders are legal (the checker was there before, landing
    # points do not change, a bear-off finds the same home and farthest point, the head count is the same).
    # The order met first in canonical order (the higher source first; at one source, the higher die first)
    # is kept: after the lower die from p, the higher die from q >= p is not tried; after the higher die from
    # p, the lower die from q > p. ``swapped`` holds those q's (bit q-1).
    last = step_at(g, 0)
    index = 1 if g.used == 1 else 0
    if not (last >> 8) & 1:
        swapped = ~((1u << ((last & 31) - (g.used == 2))) - 1)
    return visit_one(g, index, swapped)


cdef inline uint32_t die_sources(const Gen *g, int v, uint32_t *normal, uint32_t *bear, bint *special
                                 ) noexcept nogil:
    """The sources of die ``v`` as bit masks (bit m-1 for M m; bit 24 for the bar): X's points, less those whose
    landing point ``yblock`` closes, less the head when its departures are used up, less what ``in_order``
    forbids after a step of the same die. Returns their union."""
    cdef uint32_t xmask = g.xmask, allowed
    cdef uint16_t last = step_at(g, g.depth - 1) if g.depth else 0
    cdef bint after_same = g.depth and ((last >> 5) & 7) == v
    cdef int top, limit
    if g.b[BAR_POINT] > 0:
        # (E) bar entry, short only: from the bar to 25-d onto an open point; in order after an entry of the
        # same die only
        normal[0] = ~(g.yblock << v) & (1u << (BAR_POINT - 1))
        if after_same and (last & 31) != BAR_POINT:
            normal[0] = 0
        bear[0] = 0
        special[0] = False
        return normal[0]
    # (N) normal steps onto open points; (H) head departures counted
    normal[0] = xmask & ~(g.yblock << v) & ~((1u << v) - 1)
    if g.head_limit >= 0 and g.heads >= g.head_limit:
        normal[0] &= ~(1u << (HEAD - 1))
    # (O) bear-off: all home; exact, or a higher die from the farthest point
    bear[0] = 0
    if (xmask & ~<uint32_t> 0x3F) == 0:
        top = hibit(xmask) + 1
        bear[0] = xmask & (1u << (v - 1))
        if top < v:
            bear[0] |= 1u << (top - 1)
    # (S) six-one special 24/ds
    special[0] = (g.variant == SIXONE and (v == 1 or v == 6) and (xmask >> (HEAD - 1)) & 1
                  and not (g.yblock >> (v - 1)) & 1)
    if after_same:
        # in_order: src * 2 + (not special) <= limit
        limit = (last & 31) * 2 + (not ((last >> 8) & 1))
        allowed = (1u << ((limit - 1) >> 1)) - 1
        normal[0] &= allowed
        bear[0] &= allowed
        special[0] = special[0] and limit >= 2 * HEAD
    return normal[0] | bear[0] | (<uint32_t> special[0] << (HEAD - 1))


cdef int visit_one(Gen *g, int index, uint32_t skip) noexcept nogil:
    """The steps of ``g.dice[index]``, less the normal steps and bear-offs from the sources in ``skip``."""
    cdef int v = g.dice[index], src, dst, j
    cdef uint32_t normal, bear, bit, sources
    cdef bint special
    die_sources(g, v, &normal, &bear, &special)
    normal &= ~skip
    bear &= ~skip
    sources = normal | bear | (<uint32_t> special << (HEAD - 1))
    while sources:
        src = hibit(sources) + 1
        bit = 1u << (src - 1)
        sources &= ~bit
        # a normal step or a bear-off, then the special (one call site, for the compiler to inline)
        for j in range(2):
            if j == 0:
                if normal & bit:
                    dst = src - v
                elif bear & bit:
                    dst = 0
                else:
                    continue
            elif special and src == HEAD:
                dst = v
            else:
                break
            if step_or_leaf(g, src, dst, v, index, j == 1) < 0:
                return -1
    return 0


cdef int visit_two(Gen *g) noexcept nogil:
    """The first step of two different dice: at each source, the higher die, then the lower."""
    cdef uint32_t normal[2]
    cdef uint32_t bear[2]
    cdef bint special[2]
    cdef uint32_t sources, bit
    cdef int src, dst, j, k, v
    sources = die_sources(g, g.dice[0], &normal[0], &bear[0], &special[0])
    sources |= die_sources(g, g.dice[1], &normal[1], &bear[1], &special[1])
    while sources:
        src = hibit(sources) + 1
        bit = 1u << (src - 1)
        sources &= ~bit
        for k in range(2):
            v = g.dice[k]
            for j in range(2):
                if j == 0:
                    if normal[k] & bit:
                        dst = src - v
                    elif bear[k] & bit:
                        dst = 0
                    else:
                        continue
                elif special[k] and src == HEAD:
                    dst = v
                else:
                    break
                if step_or_leaf(g, src, dst, v, k, j == 1) < 0:
                    return -1
    return 0


cdef inline int step_or_leaf(Gen *g, int src, int dst, int die, int dice_index, bint special) noexcept nogil:
    """``take_step``, or ``leaf_step`` when the step plays the last die."""
    if g.depth + 1 == g.ndice:
        return leaf_step(g, src, dst, die, dice_index, special)
    return take_step(g, src, dst, die, dice_index, special)


cdef inline uint16_t play(const Gen *g, const int8_t *before, int8_t *after, uint64_t *key, uint32_t *xmask,
                          int src, int dst, int die, bint special) noexcept nogil:
    """Play one step (RULES §1.6): ``after`` (a copy of ``before``, or the same board) gets the board after it,
    ``key`` and X's ``xmask`` are updated; returns the step's code. Counts are read from ``before`` only: a
    byte read back from a copy just written in wider stores waits for the copy."""
    cdef int c = before[src]
    cdef int hit = 0
    if src == BAR_POINT:
        key[0] ^= g.kxbar[c] ^ g.kxbar[c - 1]
    else:
        key[0] ^= g.kd[src * 32 + 16 + c]
        if c == 1:
            xmask[0] &= ~(1u << (src - 1))
    after[src] = c - 1
    if dst == 0:
        c = before[XOFF]
        key[0] ^= g.kxoff[c] ^ g.kxoff[c + 1]
        after[XOFF] = c + 1
    else:
        c = before[dst]
        if c == -1:
            # a hit (short): Y's blot to Y's bar
            key[0] ^= g.kd[dst * 32 + 16] ^ g.kybar[before[YBAR]] ^ g.kybar[before[YBAR] + 1]
            after[YBAR] = before[YBAR] + 1
            c = 0
            hit = 1
        key[0] ^= g.kd[dst * 32 + 17 + c]
        after[dst] = c + 1
        xmask[0] |= 1u << (dst - 1)
    return <uint16_t> (src | (die << 5) | (special << 8) | (hit << 9))


cdef inline int leaf_step(Gen *g, int src, int dst, int die, int dice_index, bint special) noexcept nogil:
    """A step that plays the last die: it is played straight into the next result's place (read from
    ``g.b`` and written there: see ``play``), with nothing to undo and nothing to search below it."""
    cdef uint32_t xmask = g.xmask
    cdef uint64_t key = g.key
    cdef int depth = g.depth + 1
    cdef bint look
    cdef Result *r
    r = next_result(g)
    if r == NULL:
        return -1
    memcpy(r.b, g.b, 32)
    set_step(g, g.depth, play(g, g.b, r.b, &key, &xmask, src, dst, die, special))
    # a candidate when (B) holds (RULES §1.7)
    if g.long_family and not block_ok(g, xmask):
        return 0
    look = not g.distinct and may_meet(g, src, dst, special)
    if depth > g.best:
        if g.nres:
            g.res[0] = r[0]
            r = &g.res[0]
        if deeper(g, depth, look) < 0:
            return -1
    return keep(g, r, key, g.used | (1u << dice_index), depth, look)


cdef inline bint may_meet(const Gen *g, int src, int dst, bint special) noexcept nogil:
    """Whether the result of the last step may equal another result of the search. With two different dice,
    after ``visit_steps`` dropped one of each pair of orders, two results meet only when they move one checker
    with both dice (the second step leaves where the first landed) or bear off twice, or with the special
    step: results differ in the X checkers moved, and a checker's landing point fixes its die unless it was
    borne off. Other dice lists are looked up whenever ``g.distinct`` does not rule it out."""
    if g.ordered or g.depth != 1:
        return True
    return special or (step_at(g, 0) >> 8) & 1 or src == g.landing or (dst == 0 and g.landing == 0)


cdef inline int take_step(Gen *g, int src, int dst, int die, int dice_index, bint special) noexcept nogil:
    """Play one step on the board being searched, record the result and search on, then take the step back."""
    cdef int8_t saved[32]
    cdef uint32_t xmask = g.xmask, used = g.used
    cdef uint64_t key = g.key
    cdef int heads = g.heads, result = 0
    memcpy(saved, g.b, 32)
    set_step(g, g.depth, play(g, g.b, g.b, &g.key, &g.xmask, src, dst, die, special))
    if g.depth == 0:
        g.landing = dst
    if src == HEAD and not special and g.long_family:
        g.heads += 1
    g.used |= 1u << dice_index
    g.depth += 1
    # a candidate when (B) holds (RULES §1.7)
    if g.depth >= g.best and (not g.long_family or block_ok(g, g.xmask)):
        result = record(g, g.b, g.key, g.used, g.depth, g.depth > 1)
    if result == 0 and g.depth < g.ndice and g.b[XOFF] != 15:
        result = visit_steps(g)
    g.depth -= 1
    memcpy(g.b, saved, 32)
    g.xmask = xmask
    g.used = used
    g.key = key
    g.heads = heads
    return result


cdef int depth_first_search(Gen *g) noexcept nogil:
    """The depth-first search over the one board ``g.b`` (RULES §1.7 M, D; §1.8): the same results in the same
    order with the same canonical steps as ``levels_search``, without a node copy per step; -1 when memory ran
    out. Visiting steps in canonical order finds each result first by its canonical steps."""
    cdef int32_t i, kept = 0
    cdef bint any_high = False
    # One die value and no special step: sources are tried in descending order (``in_order``), and the counts
    # of steps from each point follow from the result (from M24 down, steps from M m = steps from M m+d less
    # the change on M m), so no two tried sequences reach one result.
    g.distinct = g.variant != SIXONE and g.dice[0] == g.dice[g.ndice - 1] and g.ordered
    g.used = 0
    g.heads = 0
    g.depth = 0
    g.best = 0
    g.nres = 0
    g.path = 0
    if table_reset(&g.table, 128) < 0 or record(g, g.b, g.key, 0, 0, False) < 0:
        return -1
    if g.ndice and g.b[XOFF] != 15 and visit_steps(g) < 0:
        return -1
    # (D) the higher die when only one of two values can be played
    if not g.ordered and g.best == 1:
        for i in range(g.nres):
            if g.res[i].used == 1:
                any_high = True
                break
        if any_high:
            for i in range(g.nres):
                if g.res[i].used == 1:
                    g.res[kept] = g.res[i]
                    g.steps[kept * g.ndice] = g.steps[i * g.ndice]
                    kept += 1
            g.nres = kept
    return 0


cdef int tick(Gen *g) noexcept nogil:
    """Count one unit of work; every ``TICK_MASK + 1`` of them, run the signal handlers (with the GIL, which
    this thread may hold already): -1 when one raised (its exception is set), else 0."""
    cdef int status = 0
    g.ticks += 1
    if (g.ticks & TICK_MASK) == 0:
        with gil:
            status = PyErr_CheckSignals()
    return status


cdef int search(Gen *g) noexcept nogil:
    """Find the legal moves (RULES §1.7 M, D, P; §1.8) from the board ``setup`` made: fills ``g.res`` with the
    distinct results, in order of their canonical steps (``g.steps``), all of ``g.best`` steps.

    Returns the number of results, or an ``E_*`` code (< 0). Bounded by ``g.limit`` (max_results), counted in
    the levels of ``levels_search``: the depth-first search, whose levels are never that large, serves only
    searches without a limit below ``DFS_LEVEL_BOUND``.
    """
    cdef int status
    if tick(g) < 0:
        return E_SIGNAL
    if g.ndice <= 4 and not g.per_step and (g.limit == 0 or g.limit >= DFS_LEVEL_BOUND):
        if depth_first_search(g) < 0:
            return E_MEMORY
    else:
        status = levels_search(g)
        if status < 0:
            return status
    return g.nres


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


cdef uint64_t result_pos(const Gen *g, const Pos *p, const Result *n, int d1, int d2, Pos *out,
                         int *extra) noexcept nogil:
    """Write the position after result ``n`` into ``out`` and return its full Zobrist key."""
    cdef int col = p.turn
    cdef int i, segment = d1 == 0
    cdef bint finished = n.b[XOFF] == 15
    cdef bint again = False
    cdef uint64_t key = n.key ^ g.static_key
    cdef uint64_t base[8]
    memcpy(base, p, sizeof(Pos))
    result_row(n, base, out, col, g.long_family)
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


cdef inline uint64_t negated(uint64_t x) noexcept nogil:
    """Each of the eight bytes of ``x`` negated (two's complement, no carry between bytes)."""
    cdef uint64_t n = ~x
    return ((n & 0x7F7F7F7F7F7F7F7FULL) + 0x0101010101010101ULL) ^ (n & 0x8080808080808080ULL)


cdef inline void renumbered(const int8_t *board, uint64_t *w, int col, bint long_family) noexcept nogil:
    """24 signed counts from White's numbering to the mover's, X positive (RULES §1.1), as three words of eight
    points; the same map takes them back. Words are loaded whole: a wide load of bytes just stored in narrower
    pieces waits for them."""
    cdef uint64_t w0, w1, w2
    memcpy(&w0, board, 8)
    memcpy(&w1, board + 8, 8)
    memcpy(&w2, board + 16, 8)
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


cdef inline void renumber(const int8_t *board, int8_t *out, int col, bint long_family) noexcept nogil:
    """``renumbered`` into ``out``, stored in whole words."""
    cdef uint64_t w[3]
    renumbered(board, w, col, long_family)
    memcpy(out, &w[0], 8)
    memcpy(out + 8, &w[1], 8)
    memcpy(out + 16, &w[2], 8)


cdef inline void store_word(Pos *row, int index, uint64_t word) noexcept nogil:
    """Bytes ``8 * index`` up to ``8 * index + 7`` of ``row`` (rows need no alignment)."""
    memcpy((<char *> row) + 8 * index, &word, 8)


cdef inline void result_row(const Result *r, const uint64_t *base, Pos *row, int col, bint long_family
                            ) noexcept nogil:
    """The row of result ``r``: its board (back in White's numbering), bars and X's off laid into ``base`` (the
    eight words of the row searched, or of its first result), made in registers and stored a word at a time."""
    cdef uint64_t w[3]
    cdef uint32_t u
    renumbered(&r.b[1], w, col, long_family)
    store_word(row, 0, w[0])
    store_word(row, 1, w[1])
    store_word(row, 2, w[2])
    # row bytes 24..27 are bar[0], bar[1], off[0], off[1]; u holds r.b[24..27]: M24, X's bar, Y's bar, X's off
    memcpy(&u, &r.b[HEAD], 4)
    if col == 0:
        store_word(row, 3, (base[3] & 0xFFFFFFFFFF000000ULL) | (u >> 8))
    else:
        store_word(row, 3, (base[3] & 0xFFFFFFFF00FF0000ULL) | ((u >> 16) & 0xFF) | (u & 0xFF00FF00u))
    store_word(row, 4, base[4])
    store_word(row, 5, base[5])
    store_word(row, 6, base[6])
    store_word(row, 7, base[7])


cdef inline int32_t unfinished_rows(const Result *res, int32_t start, int32_t end, const uint64_t *template,
                                    uint64_t template_key, Pos *rows, uint64_t *keys, uint8_t *extras, int extra,
                                    int col, bint long_family) noexcept nogil:
    """``result_row`` on the ``template`` for results ``start`` up to ``end``, until one ends the game; returns
    where it stopped."""
    cdef int32_t i = start
    while i < end and res[i].b[XOFF] != 15:
        result_row(&res[i], template, &rows[i], col, long_family)
        if keys != NULL:
            keys[i] = res[i].key ^ template_key
        if extras != NULL:
            extras[i] = extra
        i += 1
    return i


cdef void write_results(const Gen *g, const Pos *p, int d1, int d2, Pos *rows, uint64_t *keys,
                        uint8_t *extras) noexcept nogil:
    """Every result's next position, key and extra roll (``keys`` and ``extras`` may be NULL). The results of
    one search played the same dice, so all but finished games share every field besides the board, bars and
    off: the first unfinished one serves as a template for the others (``unfinished_rows``, one copy for each
    way to renumber the board, so that each loop knows its own)."""
    cdef uint64_t template[8]
    cdef uint64_t template_key = 0, key
    cdef int template_extra = 0, extra, have = 0
    cdef int32_t i = 0, n = g.nres
    cdef const Result *res = g.res
    while i < n:
        if have and res[i].b[XOFF] != 15:
            if g.color == 0:
                i = unfinished_rows(res, i, n, template, template_key, rows, keys, extras, template_extra, 0,
                                    False)
            elif g.long_family:
                i = unfinished_rows(res, i, n, template, template_key, rows, keys, extras, template_extra, 1,
                                    True)
            else:
                i = unfinished_rows(res, i, n, template, template_key, rows, keys, extras, template_extra, 1,
                                    False)
            continue
        key = result_pos(g, p, &res[i], d1, d2, &rows[i], &extra)
        if res[i].b[XOFF] != 15:
            memcpy(template, &rows[i], sizeof(Pos))
            template_key = key ^ res[i].key
            template_extra = extra
            have = 1
        if keys != NULL:
            keys[i] = key
        if extras != NULL:
            extras[i] = extra
        i += 1


cdef inline bint is_over(const Pos *p) noexcept nogil:
    return p.off[0] == 15 or p.off[1] == 15


# --- packing: State <-> Pos --------------------------------------------------------------------------------

_FLAG_BITS = {("block_check", "per_step"): FLAG_PER_STEP, ("ladder_per_value", 4): FLAG_LADDER4,
              ("sixone_extra_roll_requires_play", True): FLAG_SIXONE_REQUIRES}
_VARIANT_INDEX = {name: i for i, name in enumerate(_VARIANTS)}


cdef void pack(object state, Pos *p) except *:
    """The packed form of a ``State``, which must pass ``pos_ok``: every state the package builds does, and
    anything else (a hand-made state given straight to this module) is refused before a search reads it."""
    cdef int i
    memset(p, 0, sizeof(Pos))
    try:
        if len(state.board) != 24 or len(state.pending) > 24:
            raise ValueError
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
                    if not 1 <= d <= 6:
                        raise ValueError
                    p.exc |= 1 << (d - 1)
            else:
                p.flags |= _FLAG_BITS.get((name, value), 0)
        p.npending = len(state.pending)
        for i in range(p.npending):
            p.pending[i] = state.pending[i]
    except (TypeError, ValueError, OverflowError, KeyError, AttributeError):
        p.variant = -1
    if not pos_ok(p):
        raise _field_error(_InvalidPositionError, "state", "is not a valid position", state)


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


@cython.auto_pickle(False)
cdef class Generator:
    """A search workspace. A call takes one from ``_WORKSPACES`` (or a new one) and owns it until it has read
    its results back, so that a call made meanwhile (another thread, a garbage-collector callback, a
    finaliser) never shares it."""

    cdef Gen *g

    def __cinit__(self):
        self.g = gen_new()
        if self.g == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g != NULL:
            gen_free(self.g)
            free(self.g)


# Idle workspaces, kept across calls: list.pop and list.append are atomic, with or without the GIL.
cdef list _WORKSPACES = []
cdef int MAX_WORKSPACES = 8
# A workspace that grew past this many bytes (a huge crazy ladder) is emptied before it is kept.
cdef size_t WORKSPACE_KEEP = 16 << 20


cdef Generator take_workspace(int64_t limit):
    cdef Generator workspace
    try:
        workspace = _WORKSPACES.pop()
    except IndexError:
        workspace = Generator()
    workspace.g.limit = limit
    return workspace


cdef void give_back(Generator workspace) noexcept:
    if gen_bytes(workspace.g) > WORKSPACE_KEEP:
        gen_free(workspace.g)
    if len(_WORKSPACES) < MAX_WORKSPACES:
        _WORKSPACES.append(workspace)


cdef int raise_set() except -1:
    """Propagate the exception a signal handler set (``E_SIGNAL``)."""
    return -1


cdef int search_status(int count, int64_t limit) except -1:
    """Raise for a failed search: no memory, ``max_results`` exceeded, or a signal handler's exception."""
    if count == E_MEMORY:
        raise MemoryError()
    if count == E_LIMIT:
        raise _limit_error(limit)
    if count == E_SIGNAL:
        return raise_set()
    return 0


@cython.auto_pickle(False)
cdef class Children:
    """The results of one ``legal_moves`` call, kept packed; moves read them lazily."""

    cdef Pos *rows
    cdef uint64_t *keys
    cdef uint16_t *steps     # count x level step codes, canonical order
    cdef uint8_t *extra
    cdef int level
    cdef int count
    cdef object parent
    cdef object roll

    def __dealloc__(self):
        free(self.rows)
        free(self.keys)
        free(self.steps)
        free(self.extra)


@cython.auto_pickle(False)
cdef class Move:
    """A legal move of the core: the same interface as ``nardy_fast.Move`` (registered as one), with its steps and
    result built on first access. Only ``legal_moves`` makes working ones; pickling goes through the position
    and the roll, so the move is found again among the legal moves."""

    cdef Children _children
    cdef int _index
    cdef object _result
    cdef object _steps

    cdef Children made(self):
        """The move's results; an uninitialised move (``Move()``, ``Move.__new__(Move)``) raises."""
        if self._children is None or not 0 <= self._index < self._children.count:
            raise _uninitialised("Move")
        return self._children

    @property
    def parent(self):
        """The position the move was made from."""
        return self.made().parent

    @property
    def roll(self):
        """The roll the move was made for; ``None`` for a pending transfer list."""
        return self.made().roll

    @property
    def steps(self):
        """The canonical step sequence, in the mover's own numbering."""
        cdef int s
        cdef uint16_t *codes
        cdef Children children = self.made()
        if self._steps is None:
            codes = &children.steps[self._index * children.level]
            self._steps = tuple([step_object(codes[s]) for s in range(children.level)])
        return self._steps

    @property
    def result(self):
        """The next position."""
        cdef Pos *row
        cdef Children children = self.made()
        if self._result is None:
            row = &children.rows[self._index]
            parent = children.parent
            self._result = type(parent)._trusted(unpack(row, parent.state.flags), children.keys[self._index],
                                                 (<char *> row)[:sizeof(Pos)])
        return self._result

    @property
    def remainder(self):
        """The unplayed values passed to the opponent (gulbar, crazy; RULES §5.2)."""
        cdef Pos *row = &self.made().rows[self._index]
        if row.npending == 0:
            return ()
        return self.result.pending

    @property
    def extra_roll(self):
        """Whether the same side rolls again (RULES §3.4, §5.3)."""
        return bool(self.made().extra[self._index])

    def __reduce__(self):
        return (_move_of, (self.parent, self.roll, self.result))

    def __str__(self):
        return " ".join(map(str, self.steps)) or "pass"

    def __repr__(self):
        roll = self.roll
        return f"<Move {self} ({'pending' if roll is None else f'{roll[0]}-{roll[1]}'})>"

    def __eq__(self, other):
        if not isinstance(other, _Move):
            return NotImplemented
        return (self.parent, self.roll, self.result) == (other.parent, other.roll, other.result)

    def __hash__(self):
        return hash((self.parent, self.roll, self.result))


_Move.register(Move)


cdef list moves_of(object position, const Pos *p, int d1, int d2, object roll, int64_t limit):
    """Search and wrap the results as lazy moves. The workspace is this call's until every result is copied
    out; a long search (a crazy ladder, the per-step block check) runs without the GIL."""
    cdef Generator workspace = take_workspace(limit)
    cdef Gen *g = workspace.g
    cdef int count, i, level
    cdef Children children = Children.__new__(Children)
    cdef Move move
    cdef list moves
    try:
        setup(g, p, d1, d2)
        if g.ndice > 4 or g.per_step:
            with nogil:
                count = search(g)
        else:
            count = search(g)
        search_status(count, limit)
        level = g.best
        children.parent = position
        children.roll = roll
        children.level = level
        children.rows = <Pos *> malloc(max(count, 1) * sizeof(Pos))
        children.keys = <uint64_t *> malloc(max(count, 1) * sizeof(uint64_t))
        children.steps = <uint16_t *> malloc(max(count * level, 1) * sizeof(uint16_t))
        children.extra = <uint8_t *> malloc(max(count, 1))
        if children.rows == NULL or children.keys == NULL or children.steps == NULL or children.extra == NULL:
            raise MemoryError()
        write_results(g, p, d1, d2, children.rows, children.keys, children.extra)
        for i in range(count):
            memcpy(&children.steps[i * level], &g.steps[i * g.ndice], level * sizeof(uint16_t))
        children.count = count
    finally:
        give_back(workspace)
    moves = [None] * count
    for i in range(count):
        move = Move.__new__(Move)
        move._children = children
        move._index = i
        moves[i] = move
    return moves


cdef void packed_of(object position, Pos *p) except *:
    """The packed form of a core position (cached on the position, and checked again when read back: the
    cache is an attribute a user can reach)."""
    cdef object packed = position._packed
    if packed is None:
        pack(position.state, p)
        position._packed = (<char *> p)[:sizeof(Pos)]
    elif type(packed) is not bytes or len(<bytes> packed) != sizeof(Pos):
        raise _field_error(_InvalidPositionError, "position", "has a damaged packed form", packed)
    else:
        memcpy(p, <char *> packed, sizeof(Pos))
        if not pos_ok(p):
            raise _field_error(_InvalidPositionError, "position", "has a damaged packed form", packed)


def engine(position, roll, limit=0):
    """All legal moves of a core ``position`` for a checked ``roll`` (``None``: the pending list), bounded by
    ``limit`` (0: none)."""
    cdef Pos p
    packed_of(position, &p)
    if is_over(&p):
        return []
    if roll is None:
        if p.npending == 0:
            raise _field_error(_InvalidDiceError, "dice", "a roll of two dice is required", roll)
        return moves_of(position, &p, 0, 0, None, limit)
    if p.npending or not (1 <= roll[0] <= 6 and 1 <= roll[1] <= 6):
        raise _field_error(_InvalidDiceError, "dice", "must be a checked roll", roll)
    return moves_of(position, &p, roll[0], roll[1], roll, limit)


def legal_moves(position, dice=None, *, max_results=None):
    """Every legal move for ``dice``, one per distinct result (RULES §1.8), canonical steps.

    ``dice`` is a roll ``(d1, d2)``; it must be omitted when :attr:`pending` is non-empty. A finished game
    has no legal moves; a side that cannot play gets one empty move.

    ``max_results`` bounds the search (crazy ladders can have millions of results): when it would hold
    more than ``max_results`` positions reached by the same number of steps, the call raises
    :class:`~nardy_fast.SearchLimitError`. The moves are such positions, so a call that returns has at
    most ``max_results`` of them.
    """
    cdef Pos p
    cdef object d1, d2
    packed_of(position, &p)
    if p.npending == 0 and max_results is None and type(dice) is tuple and len(<tuple> dice) == 2:
        # the common case, checked here; anything else by the shared code
        d1 = (<tuple> dice)[0]
        d2 = (<tuple> dice)[1]
        if type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6:
            if is_over(&p):
                return []
            return moves_of(position, &p, d1, d2, dice, 0)
    return _BasePosition.legal_moves(position, dice, max_results=max_results)


def position_key(state):
    """The Zobrist key of a ``State``, computed by the core (equals ``nardy_fast.zobrist.position_key``)."""
    cdef Pos p
    cdef Gen g
    pack(state, &p)
    setup(&g, &p, 1, 2)
    return g.key ^ full_extra_key(&p)


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
    """perft below one roll (0-0: the pending list); an ``E_*`` code (< 0) when the search stopped. Recursion
    goes at most ``MAX_PERFT_DEPTH`` deep, which the caller checks."""
    cdef int64_t total = 0, sub
    cdef int count, i
    cdef Pos *children
    setup(g, p, d1, d2)
    count = search(g)
    if count < 0 or depth == 1:
        return count
    children = <Pos *> malloc(count * sizeof(Pos))
    if children == NULL:
        return -1
    write_results(g, p, d1, d2, children, NULL, NULL)
    for i in range(count):
        sub = perft_pos(g, &children[i], depth - 1)
        if sub < 0:
            total = sub
            break
        total += sub
    free(children)
    return total


cdef int64_t perft_pos(Gen *g, const Pos *p, int depth) noexcept nogil:
    """perft over packed positions: the 21 rolls, or the pending list alone; an ``E_*`` code when the search
    stopped."""
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
                return sub
            total += sub
    return total


def perft(state, depth):
    """perft of a ``State`` (see :func:`nardy_fast.perft`), computed without Python objects and without the
    GIL; Ctrl-C stops it."""
    cdef Pos p
    cdef int64_t total
    cdef int levels
    cdef Generator workspace
    levels = _check_depth(depth)
    pack(state, &p)
    workspace = take_workspace(0)
    try:
        with nogil:
            total = perft_pos(workspace.g, &p, levels)
        search_status(<int> total if total < 0 else 0, 0)
    finally:
        give_back(workspace)
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


cdef inline uint32_t byte_sum(uint64_t w) noexcept nogil:
    """The sum of the eight bytes of ``w``."""
    w = (w & 0x00FF00FF00FF00FFULL) + ((w >> 8) & 0x00FF00FF00FF00FFULL)
    return <uint32_t> ((w * 0x0001000100010001ULL) >> 48)


cdef bint pos_ok(const Pos *p) noexcept nogil:
    """Whether a packed position passes every check of ``Position.from_array`` (RULES §1.3 invariants). The
    gate of every packed row into the search; the board and the padding are checked eight bytes at a time."""
    cdef int i, white, black, start
    cdef bint long_family
    cdef uint64_t w, neg, size, whites = 0, blacks = 0, wmask = 0, bmask = 0, bad = 0
    cdef uint64_t words[4]
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
    # the pending values past ``npending`` and the reserved bytes (row bytes 35 + npending .. 63) are zero
    memcpy(<char *> words, <const char *> p + 32, 32)
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


cdef struct Out:
    Pos *rows
    uint64_t *keys
    int64_t n
    int64_t cap


cdef int out_reserve(Out *o, int64_t need) noexcept nogil:
    """Room for ``need`` rows and keys."""
    cdef int64_t cap
    if need <= o.cap:
        return 0
    cap = grown(o.cap, need, 256)
    if resized(<void **> &o.rows, cap, sizeof(Pos)) < 0 or resized(<void **> &o.keys, cap, sizeof(uint64_t)) < 0:
        return -1
    # No huge pages (madvise): Linux moves a grown buffer with mremap, without a copy, but not one backed by
    # huge pages, whose every growth then held the old and the new buffer at once (a 2.5 GB output peaked at
    # 4.7 GB); the spare buffers already spare repeated batches their page faults.
    o.cap = cap
    return 0


cdef int64_t children_into(Gen *g, const Pos *p, int d1, int d2, Out *o) noexcept nogil:
    """Append the children of one checked position and roll to ``o``; an ``E_*`` code when the search
    stopped."""
    cdef int count
    if is_over(p):
        return 0
    setup(g, p, d1, d2)
    count = search(g)
    if count < 0:
        return count
    if out_reserve(o, o.n + count) < 0:
        return E_MEMORY
    write_results(g, p, d1, d2, &o.rows[o.n], &o.keys[o.n], NULL)
    o.n += count
    return count


cdef inline bint roll_ok(const Pos *p, int d1, int d2) noexcept nogil:
    if p.npending:
        return d1 == 0 and d2 == 0
    return 1 <= d1 <= 6 and 1 <= d2 <= 6


def batch_children(const int8_t[:, ::1] positions, const int8_t[:, ::1] rolls, int64_t limit=0):
    """Children of N packed positions (rows of 64 int8) for N rolls (rows ``d1, d2``; ``0, 0`` plays the
    pending list), each search bounded by ``limit`` (max_results; 0 for none). Returns ``(children, offsets,
    keys, bad, over)``: ``bad`` is -1, or the first row that failed its checks (``bad + N`` when it was the
    roll), to be explained by the caller, or whose search needed more than ``limit`` (``over``).

    Each row and roll is copied once into memory of this call before it is checked, and only the copy is
    read: the caller's arrays may be changed by another thread meanwhile."""
    cdef Py_ssize_t n = positions.shape[0], i
    cdef Py_ssize_t roll_stride = 0 if rolls.shape[0] == 1 else 1
    cdef Generator workspace
    cdef Gen *g
    cdef Out o
    cdef int64_t bad = -1, got = 0
    cdef Pos p
    cdef int d1, d2
    # room for a typical number of children up front, so that the buffers rarely move (pages that are never
    # written are never mapped)
    cdef int64_t room = 24 * n + 1
    if positions.shape[1] != WIDTH or rolls.shape[1] != 2 or rolls.shape[0] not in (1, n) or limit < 0:
        raise _field_error(_NardyError, "positions", "must have 64 columns, and rolls 2 and one or N rows",
                           (positions.shape[0], positions.shape[1], rolls.shape[0], rolls.shape[1]))
    offsets = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] offs = offsets
    memset(&o, 0, sizeof(Out))
    take_spares(&o, room)
    workspace = take_workspace(limit)
    g = workspace.g
    with nogil:
        if out_reserve(&o, room) < 0:
            got = E_MEMORY
        for i in range(0 if got < 0 else n):
            memcpy(&p, &positions[i, 0], sizeof(Pos))
            d1 = rolls[i * roll_stride, 0]
            d2 = rolls[i * roll_stride, 1]
            if not pos_ok(&p):
                bad = i
                break
            if not roll_ok(&p, d1, d2):
                bad = i + n
                break
            got = children_into(g, &p, d1, d2, &o)
            if got < 0:
                break
            offs[i + 1] = o.n
    give_back(workspace)
    if got < 0:
        free(o.rows)
        free(o.keys)
        if got == E_LIMIT:
            return None, None, None, i, True
        search_status(<int> got, limit)
    keys = owned_array(o.keys, o.n, o.cap, 0, cnp.NPY_UINT64)
    children = owned_array(o.rows, o.n, o.cap, WIDTH, cnp.NPY_INT8)
    return children, offsets, keys, bad, False


# Buffers of batch outputs freed (kind 0 rows, 1 keys), kept for the next batches: their pages are mapped
# already, where a fresh buffer costs a page fault per page (megabytes per call in a loop of batches). A few
# of each kind (one per thread that runs batches at once), up to SPARE_LIMIT bytes in all; used with the GIL.
DEF MAX_SPARES = 4
cdef void *SPARE[2][MAX_SPARES]
cdef size_t SPARE_BYTES[2][MAX_SPARES]
cdef int NSPARE[2]
cdef size_t SPARE_TOTAL[2]
cdef size_t SPARE_LIMIT = 64 << 20
cdef const char *CAPSULE_NAMES[2]
CAPSULE_NAMES[0] = "nardy_fast._core rows"
CAPSULE_NAMES[1] = "nardy_fast._core keys"


cdef void take_spares(Out *o, int64_t need) noexcept:
    """Start ``o`` on spare buffers, when there is one of each kind: of each, the smallest with room for ``need``
    rows (else the largest), so that batches of different sizes in turn, or on several threads, each find
    theirs."""
    cdef int kind, i, pick
    cdef size_t want, size
    cdef void *data[2]
    cdef size_t room[2]
    if NSPARE[0] == 0 or NSPARE[1] == 0:
        return
    for kind in range(2):
        want = <size_t> need * (sizeof(Pos) if kind == 0 else sizeof(uint64_t))
        pick = 0
        for i in range(1, NSPARE[kind]):
            size = SPARE_BYTES[kind][i]
            if (size >= want and (size < SPARE_BYTES[kind][pick] or SPARE_BYTES[kind][pick] < want)) or (
                    size < want and SPARE_BYTES[kind][pick] < size):
                pick = i
        data[kind] = SPARE[kind][pick]
        room[kind] = SPARE_BYTES[kind][pick]
        NSPARE[kind] -= 1
        SPARE[kind][pick] = SPARE[kind][NSPARE[kind]]
        SPARE_BYTES[kind][pick] = SPARE_BYTES[kind][NSPARE[kind]]
        SPARE_TOTAL[kind] -= room[kind]
    o.rows = <Pos *> data[0]
    o.keys = <uint64_t *> data[1]
    o.cap = <int64_t> min(room[0] // sizeof(Pos), room[1] // sizeof(uint64_t))


cdef void free_capsule(object capsule) noexcept:
    """Free an output buffer when its array goes, or keep it as a spare of its kind."""
    cdef const char *name = PyCapsule_GetName(capsule)
    cdef int kind = name == CAPSULE_NAMES[1]
    cdef void *data = PyCapsule_GetPointer(capsule, name)
    cdef size_t size = <size_t> PyCapsule_GetContext(capsule)
    if NSPARE[kind] < MAX_SPARES and SPARE_TOTAL[kind] + size <= SPARE_LIMIT:
        SPARE[kind][NSPARE[kind]] = data
        SPARE_BYTES[kind][NSPARE[kind]] = size
        SPARE_TOTAL[kind] += size
        NSPARE[kind] += 1
    else:
        free(data)


cdef object owned_array(void *data, int64_t n, int64_t cap, int width, int typenum):
    """An array of ``n`` rows (of ``width`` columns, or a vector for 0) over malloc'ed ``data`` (room for ``cap``),
    which it then owns and frees: the batch output is handed over, not copied."""
    cdef cnp.npy_intp dims[2]
    cdef object capsule
    cdef size_t size = cap * (WIDTH if width else sizeof(uint64_t))
    try:
        capsule = PyCapsule_New(data, CAPSULE_NAMES[width == 0], free_capsule)
    except BaseException:
        free(data)
        raise
    PyCapsule_SetContext(capsule, <void *> size)
    dims[0] = n
    dims[1] = width
    array = cnp.PyArray_SimpleNewFromData(2 if width else 1, dims, typenum, data)
    cnp.set_array_base(array, capsule)
    return array


def children(position, dice=None, int64_t limit=0):
    """The children of one packed row (see ``nardy_fast.children``), or ``None`` for anything but a valid
    C-contiguous int8 row with a valid roll, which the caller then explains; the search bounded by ``limit``
    (max_results; 0 for none)."""
    cdef Pos p
    cdef Generator workspace
    cdef Gen *g
    cdef int count = 0
    cdef int d1 = 0, d2 = 0
    cdef cnp.npy_intp dims[2]
    if type(position) is not np.ndarray:
        return None
    array = <cnp.ndarray> position
    if (cnp.PyArray_TYPE(array) != cnp.NPY_INT8 or cnp.PyArray_NDIM(array) != 1
            or cnp.PyArray_DIM(array, 0) != WIDTH or not cnp.PyArray_IS_C_CONTIGUOUS(array)):
        return None
    if dice is not None:
        if type(dice) is not tuple or len(<tuple> dice) != 2:
            return None
        if type((<tuple> dice)[0]) is not int or type((<tuple> dice)[1]) is not int:
            return None
        if not (0 <= (<tuple> dice)[0] <= 6 and 0 <= (<tuple> dice)[1] <= 6):
            return None
        d1 = (<tuple> dice)[0]
        d2 = (<tuple> dice)[1]
    memcpy(&p, cnp.PyArray_DATA(array), sizeof(Pos))
    if not pos_ok(&p) or not roll_ok(&p, d1, d2):
        return None
    result = None
    workspace = take_workspace(limit)
    g = workspace.g
    try:
        if not is_over(&p):
            setup(g, &p, d1, d2)
            if g.ndice > 4 or g.per_step:
                with nogil:
                    count = search(g)
            else:
                count = search(g)
            if count == E_LIMIT:
                return None  # explained by the caller's search, with the row's index
            search_status(count, limit)
        dims[0] = count
        dims[1] = WIDTH
        result = cnp.PyArray_SimpleNew(2, dims, cnp.NPY_INT8)
        if count:
            write_results(g, &p, d1, d2, <Pos *> cnp.PyArray_DATA(result), NULL, NULL)
    finally:
        give_back(workspace)
    return result
