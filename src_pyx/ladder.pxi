# Crazy ladders' children (``plain_level``, ``flush_plain``): the level search's stage, and its fast path for
# ordered lists in the long family under the end-of-turn block check, where no step hits and (B) waits for
# the results (levels.pxi, ``node_legal``). A crazy ladder's levels are millions of children of which about
# half are new, so a child is staged as little as can be probed (its two words, the parent's plus a table's
# two: ``STEP_W``, ``OFF_W``; its hash and where it came from), and only a new one is made a node. A level is
# expanded in one loop (``plain_level``) that finds what is the level's once, not for each node. The tag and
# slot of the child ``PREFETCH`` places ahead in the stage are prefetched as a child is probed
# (``flush_plain``), and the branch on whether a child is new stays: the probes then overlap. A tag table
# apart from the slots tells a new child at once, from the processor's second-level cache. The deepest
# level's children are results (``direct_results``): a new one keeps its board and points alone, and
# ``plain_results`` keeps those that keep (B), as boards (``g.plain``) from which results.pxi writes the rows
# and keys. The stage's probes run in one loop for each kind of level (``probe_stage``), and a node's slot is
# its board alone (see STEP_W). Every choice here was measured against its alternatives, in instructions and
# time: docs/benchmarks.md, "Crazy ladders", "The staging loop's trials".
# Uses: tables, memory, block, frontier, rules.
# Offers: direct_results, flush_plain, plain_level, plain_results.


cdef enum:
    STAGE = 256        # children made before their probes, which then overlap
    PREFETCH = 16
    STAGE_ROOM = 64    # the most children of one node: 2 values at each of 15 points, 2 specials, 2 entries
    TICKS_AT_ONCE = 256  # nodes plain_level counts before it adds them to the work (ticks)


ctypedef struct Stage:
    Node nodes[STAGE + STAGE_ROOM]
    uint64_t word[STAGE + STAGE_ROOM]  # slot_word of each
    uint64_t hash[STAGE + STAGE_ROOM]
    # plain_level stages no nodes: a child's first word and where it came from (its parent's index, its
    # step's source << 32); flush_plain makes the node of a new one
    uint64_t w0[STAGE + STAGE_ROOM]
    uint64_t origin[STAGE + STAGE_ROOM]
    int n


# What a normal step of ``v`` from M src adds to a node's two words (modulo 2**64, which is exact since every
# count stays in 0..15): STEP_W[v][2 * src], STEP_W[v][2 * src + 1]; and a bear-off from M src, OFF_W[2 * src]
# and OFF_W[2 * src + 1]. Both are node_step's change to an empty board, so that the layout stays its. A plain
# node's slot is its board alone, without the head departures that ``slot_word`` adds elsewhere: in the long
# family nothing lands on the head (M24, the highest point, with no bar to enter from), so the departures are
# the root's head count less the node's, one board has one count of them, and ``plain_level`` reads the head
# rule (H) from the board: 3.5% fewer instructions over the crazy corpus (docs/benchmarks.md, "The core,
# seventh pass").
cdef uint64_t STEP_W[7][50]
cdef uint64_t OFF_W[14]
# plain_xmask's tables: the bit of the point a step of v from M src lands on (0 for a bear-off), and M src's
# nibble in a node's two words (with the all-off test read from a node's points, 1.7% fewer instructions than
# computing them for each new node)
cdef uint32_t LAND[7][25]
cdef uint64_t NIBBLE[50]        # M src's in words 0 and 1: NIBBLE[2 * src], NIBBLE[2 * src + 1]


cdef void _init_step_words() noexcept:
    cdef int src, v
    cdef Node empty, moved
    memset(&empty, 0, sizeof(Node))
    memset(STEP_W, 0, sizeof(STEP_W))
    memset(OFF_W, 0, sizeof(OFF_W))
    for src in range(1, 25):
        for v in range(1, min(src, 7)):
            node_step(&moved, &empty, src, src - v, False)
            STEP_W[v][2 * src] = moved.w[0]
            STEP_W[v][2 * src + 1] = moved.w[1]
    memset(LAND, 0, sizeof(LAND))
    for src in range(1, 25):
        NIBBLE[2 * src + ((src - 1) >> 4)] = <uint64_t> 15 << (4 * ((src - 1) & 15))
        NIBBLE[2 * src + 1 - ((src - 1) >> 4)] = 0
        for v in range(1, 7):
            LAND[v][src] = (1u << (src - 1)) >> v if src > v else 0
    for src in range(1, 7):
        node_step(&moved, &empty, src, 0, False)
        OFF_W[2 * src] = moved.w[0]
        OFF_W[2 * src + 1] = moved.w[1]


_init_step_words()


cdef inline void stage_words(Stage *st, int k, uint64_t w0, uint64_t word, int32_t index, int src) noexcept nogil:
    """Stage child ``k``: its first word, its slot's second (``slot_word``), their hash and where it came from."""
    st.w0[k] = w0
    st.word[k] = word
    st.hash[k] = slot_hash(w0, word)
    st.origin[k] = <uint32_t> index | (<uint64_t> src << 32)


cdef inline uint32_t plain_xmask(uint32_t xmask, uint64_t w0, uint64_t w1, intptr_t src, const uint32_t *land
                                 ) noexcept nogil:
    """X's points (``Node.xmask``) after one step from M ``src`` (to M src - v, or off; ``land`` is ``LAND[v]``)
    from points ``xmask``, the board after it being ``w0, w1``: the landing point's bit set, the source's
    cleared when its last checker left."""
    cdef uint32_t bit = 1u << (src - 1)
    xmask |= land[src]
    return xmask ^ (bit & (0u - <uint32_t> (((w0 & NIBBLE[2 * src]) | (w1 & NIBBLE[2 * src + 1])) == 0)))


cdef inline void plain_node(Node *c, const Node *p, uint64_t w0, uint64_t w1, intptr_t src, int v,
                            uint32_t used, int32_t parent) noexcept nogil:
    """The node of ``p``'s child by one step of ``v`` from M ``src`` (to M src - v, or off), whose board is
    ``w0, w1`` and whose dice used are ``used`` (those of its level, as the list is ordered): plain_level."""
    c.w[0] = w0
    c.w[1] = w1
    c.xmask = plain_xmask(p.xmask, w0, w1, src, LAND[v])
    c.step = <uint16_t> (src | (v << 5))
    c.legal = 2
    c.used = used
    c.parent = parent


cdef inline bint direct_results(const Gen *g, int level) noexcept nogil:
    """Whether ``plain_level`` writes the children of ``level`` as results, without nodes: it is the deepest,
    whose nodes would be the results, and no steps are walked back from them."""
    return level + 1 == g.ndice and not g.steps_wanted


cdef inline int32_t probe_stage(Gen *g, Stage *st, const Node *parents, Node *out, int32_t m, int level,
                                bint merge, bint direct) noexcept nogil:
    """``flush_plain``'s loop over the stage, made once for each case (``merge``, ``direct``: constants where it
    is called, so that the compiler drops the other cases' branches, with 64-bit indices: 4% fewer instructions
    over the crazy corpus): the new children's nodes written from ``out[m]`` on; returns the nodes' end. The
    table's fields are read into locals first: a tag's one-byte store may alias anything, and the compiler
    would read them again after each."""
    cdef intptr_t j, count = st.n
    cdef intptr_t src, parent
    cdef int v = g.dice[level]
    cdef const uint32_t *land = LAND[v]
    cdef uint64_t w0, w1
    cdef uint64_t origin
    cdef uint32_t used = (2u << level) - 1
    cdef Slot *slots = g.seen.slots
    cdef uint8_t *tags = g.seen.tags
    cdef uint32_t mask = g.seen.mask
    cdef uintptr_t h
    for j in range(count):
        if merge and j + PREFETCH < count:
            h = <uint32_t> st.hash[j + PREFETCH] & mask
            nardy_prefetch(&tags[h])
            nardy_prefetch(&slots[h])
        w0 = st.w0[j]
        w1 = st.word[j]
        if merge and not slot_put(slots, tags, mask, w0, w1, st.hash[j]):
            continue
        origin = st.origin[j]
        parent = <uint32_t> origin
        src = <intptr_t> (origin >> 32)
        if direct:
            # the board and points alone: (B) and the result's board and key come from them (plain_results)
            out[m].w[0] = w0
            out[m].w[1] = w1
            out[m].xmask = plain_xmask(parents[parent].xmask, w0, w1, src, land)
        else:
            plain_node(&out[m], &parents[parent], w0, w1, src, v, used, <int32_t> parent)
        m += 1
    return m


cdef int flush_plain(Gen *g, Stage *st, const NodeBuf *cur, NodeBuf *nxt, int level) noexcept nogil:
    """``flush`` for ``plain_level``'s stage: the nodes of the new children made, of the root's all of them; -1
    when memory ran out. On the deepest level (``direct_results``) a new child's node holds its board and
    points alone, for ``plain_results``."""
    cdef int32_t m
    cdef bint merge = level > 0
    cdef bint direct = direct_results(g, level)
    NARDY_CHECK(st.n <= STAGE + STAGE_ROOM, "more children staged than the stage holds")
    if buf_reserve(nxt, nxt.n + st.n) < 0:
        return -1
    if merge and slots_room(&g.seen, st.n) < 0:
        return -1
    if not merge:
        m = probe_stage(g, st, cur.data, nxt.data, nxt.n, level, False, direct)
    elif direct:
        m = probe_stage(g, st, cur.data, nxt.data, nxt.n, level, True, True)
    else:
        m = probe_stage(g, st, cur.data, nxt.data, nxt.n, level, True, False)
    if merge:
        g.seen.n += m - nxt.n
    nxt.n = m
    st.n = 0
    return 0


cdef void plain_results(Gen *g, NodeBuf *last) noexcept nogil:
    """The results of the deepest level, whose children ``flush_plain`` kept as boards and points alone
    (``direct_results``): the boards of those that keep (B), in the order made, moved to the front of ``last``
    as ``g.plain``, whose rows ``write_results`` makes from them. A loop of its own, after the probes: writing them
    among the probes took as few instructions and was no faster. A ``Result`` of each, written here and read
    back by ``write_results``, cost 3.5% of the crazy corpus's time (docs/benchmarks.md, "The core, seventh
    pass")."""
    cdef int32_t i, nres = 0, count = last.n
    cdef int ymax_t = g.ymax_t
    cdef Node *n = last.data
    for i in range(count):
        if runs_ok(n[i].xmask, ymax_t):
            n[nres].w[0] = n[i].w[0]
            n[nres].w[1] = n[i].w[1]
            nres += 1
    g.nres = nres
    g.plain = n if nres else NULL


cdef int plain_level(Gen *g, const NodeBuf *cur, NodeBuf *nxt, int level, Stage *st) noexcept nogil:
    """Every child of the nodes of ``level`` (``cur``) staged and flushed into ``nxt``: ``expand_ordered`` in the
    long family under the end-of-turn block check (crazy ladders), where a step hits nothing and (B) waits for
    the results. A child is staged as its parent's words plus ``STEP_W``'s (or ``OFF_W``'s) two, and where it
    came from; ``flush_plain`` makes the nodes of the new ones only. What is the level's (its value, table,
    open points and whether it continues a run) is found once, not for each node, and kept in locals, as is
    the stage's count between flushes. 0, or ``E_MEMORY``, ``E_LIMIT``, ``E_SIGNAL``; the last stage is left to
    the caller's flush."""
    cdef int v = g.dice[level]
    cdef int src, k = st.n
    cdef int32_t i, count = cur.n
    # in_order: a step of the value of the node's last one comes from no source above the last one's
    cdef bint run = level > 0 and g.dice[level - 1] == v
    cdef uint32_t lands = ~(g.yblock << v) & ~((1u << v) - 1)  # (N) sources above v landing on open points
    # (H): no checker leaves the head once its count is down to this (its departures are the root's count less
    # the node's, see STEP_W)
    cdef int head_floor = max(<int> g.b[HEAD], 0) - g.head_limit
    cdef uint32_t head_closed
    cdef uint32_t expanded = 0  # nodes not yet counted (tick)
    cdef uint32_t allowed, normal, bear, xmask
    cdef uint64_t w0, w1, a0, a1, origin
    cdef const uint64_t *sw = STEP_W[v]
    cdef const Node *nodes = cur.data
    cdef const Node *n
    for i in range(count):
        n = &nodes[i]
        # a level's nodes are read in order, but too few instructions apart for the processor's own prefetch:
        # 2 to 4% faster over the crazy corpus, 32 nodes (1 kB) ahead
        nardy_prefetch(&nodes[i + 32])
        xmask = n.xmask
        if xmask == 0:  # all borne off (no bar in the long family)
            continue
        allowed = (1u << (n.step & 31)) - 1 if run else 0xFFFFFF
        w0 = n.w[0]
        w1 = n.w[1]
        # the head's count from the word in hand: count_at(n, HEAD - 1) made 4% more instructions here
        head_closed = <uint32_t> (<int> ((w1 >> (4 * (HEAD - 17))) & 15) <= head_floor) << (HEAD - 1)
        normal = xmask & allowed & lands & ~head_closed
        origin = <uint32_t> i
        # the sources from the highest, as the lowest bits of the mask reversed (bit 24 - src): clearing the lowest
        # bit is one short step, where clearing the highest waited on the bit scan
        normal = (REV12[normal & 0xFFF] << 12) | REV12[normal >> 12]
        while normal:
            src = 24 - ctz(normal)
            normal &= normal - 1
            a0 = w0 + sw[2 * src]
            a1 = w1 + sw[2 * src + 1]
            st.w0[k] = a0
            st.word[k] = a1
            st.hash[k] = slot_hash(a0, a1)
            st.origin[k] = origin | (<uint64_t> src << 32)
            k += 1
        # (O) bear-off, all home: exactly v, or a higher die from the farthest point
        bear = bear_off_sources(xmask, v) & allowed
        if bear:
            src = hibit(bear) + 1
            stage_words(st, k, w0 + OFF_W[2 * src], w1 + OFF_W[2 * src + 1], i, src)
            k += 1
        if k >= STAGE:
            st.n = k
            if flush_plain(g, st, cur, nxt, level) < 0:
                return E_MEMORY
            k = 0
            if g.limit and nxt.n > g.limit:
                return E_LIMIT
        expanded += 1
        if expanded == TICKS_AT_ONCE:
            expanded = 0
            if ticks(g, TICKS_AT_ONCE) < 0:
                st.n = k
                return E_SIGNAL
    st.n = k
    return E_SIGNAL if ticks(g, expanded) < 0 else 0
