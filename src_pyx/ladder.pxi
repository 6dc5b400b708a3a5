# Crazy ladders' children (``expand_plain``, ``flush_plain``): the level search's stage, and its fast path for
# ordered lists in the long family under the end-of-turn block check, where no step hits and (B) waits for
# the results (levels.pxi, ``node_legal``). A crazy ladder's levels are millions of children of which about
# half are new (the rest reach a board of the level again: the 276 1-1 ladders of the crazy corpus made 9.2
# million children for 1.4 million results), so a child is staged as little as can be probed, its two words
# (the parent's plus a table's two: ``STEP_W``, ``OFF_W``), its hash and where it came from, and only a new
# one is made a node. Measured by instructions (docs/benchmarks.md, "Crazy ladders"): the generic staging made
# each child whole in about 70, with the cases of hits, six-one and the per-step check; this stages one in
# about 45 and makes a new one's node in about 30 more. The branch on whether a child is new stays: a
# version without it, which wrote every node and kept the new ones by counting, was 25% slower (227 against
# 181 ns per crazy corpus result), since each node's place then waited on the probe before it and the probes
# no longer overlapped.
# Uses: tables, memory, frontier.
# Offers: expand_plain, flush_plain.


cdef enum:
    STAGE = 256        # children made before their probes, which then overlap
    STAGE_ROOM = 64    # the most children of one node: 2 values at each of 15 points, 2 specials, 2 entries


ctypedef struct Stage:
    Node nodes[STAGE + STAGE_ROOM]
    uint64_t word[STAGE + STAGE_ROOM]  # slot_word of each
    uint64_t hash[STAGE + STAGE_ROOM]
    # expand_plain stages no nodes: a child's first word and where it came from (its parent's index, its
    # step's source << 32); flush_plain makes the node of a new one
    uint64_t w0[STAGE + STAGE_ROOM]
    uint64_t origin[STAGE + STAGE_ROOM]
    int n


# What a normal step of ``v`` from M src adds to a node's two words (modulo 2**64, which is exact since every
# count stays in 0..15): STEP_W[v][2 * src], STEP_W[v][2 * src + 1]; and a bear-off from M src, OFF_W[2 * src]
# and OFF_W[2 * src + 1]. Both are node_step's change to an empty board, so that the layout stays its.
cdef uint64_t STEP_W[7][50]
cdef uint64_t OFF_W[14]


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


cdef void expand_plain(Gen *g, const Node *n, int level, int32_t index, Stage *st) noexcept nogil:
    """``expand_ordered`` in the long family under the end-of-turn block check (crazy ladders), where a step
    hits nothing and (B) waits for the results: a child is staged as its parent's words plus ``STEP_W``'s (or
    ``OFF_W``'s) two, and where it came from; ``flush_plain`` makes the nodes of the new ones only."""
    cdef int v = g.dice[level]
    cdef int src, k = st.n
    cdef bint last = level + 1 == g.ndice
    cdef uint32_t allowed = 0xFFFFFF, normal, xmask = n.xmask
    cdef uint64_t w0 = n.w[0], w1 = n.w[1], word
    cdef uint64_t word_heads = 0 if last else <uint64_t> n.heads << HIT_BIT
    cdef uint64_t head_step = 0 if last else <uint64_t> 1 << HIT_BIT
    cdef const uint64_t *sw = STEP_W[v]
    if level > 0 and ((n.step >> 5) & 7) == v:
        allowed = (1u << (n.step & 31)) - 1  # in_order: no source above the last step's
    normal = xmask & allowed & ~(g.yblock << v) & ~((1u << v) - 1)
    if n.heads >= g.head_limit:
        normal &= ~(1u << (HEAD - 1))
    while normal:
        src = hibit(normal) + 1
        normal ^= 1u << (src - 1)
        word = ((w1 + sw[2 * src + 1]) | word_heads) + (head_step & (0 - <uint64_t> (src == HEAD)))
        stage_words(st, k, w0 + sw[2 * src], word, index, src)
        k += 1
    st.n = k
    if xmask & ~<uint32_t> 0x3F:
        return
    # (O) bear-off, all home: exactly v, or a higher die from the farthest point
    if (xmask >> (v - 1)) & 1:
        src = v
    elif xmask and hibit(xmask) + 1 < v:
        src = hibit(xmask) + 1
    else:
        return
    if (allowed >> (src - 1)) & 1:
        stage_words(st, k, w0 + OFF_W[2 * src], (w1 + OFF_W[2 * src + 1]) | word_heads, index, src)
        st.n = k + 1


cdef inline void plain_node(Node *c, const Node *p, uint64_t w0, uint64_t w1, int src, int v, int level,
                            int32_t parent) noexcept nogil:
    """The node of ``p``'s child by one step of ``v`` from M ``src`` (to M src - v, or off), whose board is
    ``w0, w1`` (expand_plain)."""
    cdef uint32_t bit = 1u << (src - 1)
    cdef uint32_t xmask = p.xmask | (bit >> v if src > v else 0)
    # the source's bit goes when its last checker left
    xmask ^= bit & (0u - <uint32_t> ((((w0 if src <= 16 else w1) >> (4 * ((src - 1) & 15))) & 15) == 0))
    c.w[0] = w0
    c.w[1] = w1
    c.xmask = xmask
    c.step = <uint16_t> (src | (v << 5))
    c.heads = <uint8_t> (p.heads + (src == HEAD))
    c.legal = 2
    c.used = p.used | (1u << level)
    c.parent = parent


cdef int flush_plain(Gen *g, Stage *st, const NodeBuf *cur, NodeBuf *nxt, int level) noexcept nogil:
    """``flush`` for ``expand_plain``'s stage: the nodes of the new children made, of the root's all of them; -1
    when memory ran out."""
    cdef int j, src, v = g.dice[level]
    cdef int32_t m, parent
    cdef uint64_t w0, w1, board1 = (<uint64_t> 1 << HIT_BIT) - 1  # a word less the head departures
    cdef Slots *t = &g.seen
    NARDY_CHECK(st.n <= STAGE + STAGE_ROOM, "more children staged than the stage holds")
    if buf_reserve(nxt, nxt.n + st.n) < 0:
        return -1
    if level > 0 and slots_room(t, st.n) < 0:
        return -1
    m = nxt.n
    for j in range(st.n):
        w0 = st.w0[j]
        w1 = st.word[j]
        if level > 0 and not slot_put(t.slots, t.tags, t.mask, w0, w1, st.hash[j]):
            continue
        parent = <int32_t> <uint32_t> st.origin[j]
        src = <int> (st.origin[j] >> 32)
        plain_node(&nxt.data[m], &cur.data[parent], w0, w1 & board1, src, v, level, parent)
        m += 1
    if level > 0:
        t.n += m - nxt.n
    nxt.n = m
    st.n = 0
    return 0
