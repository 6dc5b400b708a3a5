# The level-by-level search (docs/rules.md, Normal step to Canonical step order): every node of a level
# expanded into the next, equal nodes merged; for crazy ladders, the per-step block check, and searches
# bounded by max_results.
#
# Built for crazy gulbar's ladders, whose levels reach millions of nodes (measured by tools/ladder_bench.py;
# docs/benchmarks.md, "Crazy ladders"):
# * A node is 32 bytes (frontier.pxi) and a slot of the level's table 16, the board whole, so that a probe
#   reads one slot and no node, and only where the slot's tag (7 bits of its hash, a byte apart) matches: a
#   level's reset clears the tags alone. The table lives in 2 MB pages where the system allows: its probes
#   are random, and with 4 kB pages each missed the TLB.
# * The sources of an ordered list's step are found with masks, a level's value at a time (``expand_ordered``),
#   and the block rule (B) is left to the nodes that may be results (``node_legal``). Crazy ladders, where no
#   step hits, stage a child's words alone and make nodes of the new ones only (ladder.pxi).
# * Children equal to an earlier one are never written, and the deepest level merges by board alone, so that
#   its nodes are the results, written once (a crazy ladder's kept as those nodes' boards, whose rows
#   results.pxi makes from them: ladder.pxi, ``plain_results``). The steps are walked back only for callers
#   that read them (legal_moves); the others keep three levels, not all of them, and a level's parents are
#   dropped with it.
# * Children are staged, a few hundred at a time, and then probed in a loop of their own, where the probes,
#   independent of one another, overlap (8.7 s on the 3.4-million-result ladder, 14.3 s probing each child as
#   it is made). Prefetching each staged child's slot as it is made was slower (10.9 s): the prefetches
#   stalled the loop that makes them.
# Uses: tables, memory, block, frontier, rules, ladder.
# Offers: levels_search.


cdef inline bint in_order(const Gen *g, const Node *n, int level, int src, int die, bint special) noexcept nogil:
    """Whether a step may follow the node's last step.

    Two consecutive steps with the same die value are tried only in descending canonical order. Any legal
    sequence sorted that way within a run of equal values is legal too and reaches the same result (landing
    points do not depend on X's own checkers, a head count does not depend on order, entries and higher
    points go first), and it is the lexicographically greater one (Canonical step order), so nothing is lost.
    Under ``block_check = per_step`` intermediate positions matter, and every order is tried.
    """
    cdef uint16_t last = n.step
    if level == 0 or g.per_step or ((last >> 5) & 7) != die:
        return True
    return src * 2 + (not special) <= (last & 31) * 2 + (not ((last >> 8) & 1))


cdef inline bint node_legal(const Gen *g, Node *n) noexcept nogil:
    """(B) at ``n``, found once: a node made without it (``legal`` 2) learns it here."""
    if n.legal == 2:
        n.legal = runs_ok(n.xmask, g.ymax_t)
    return n.legal


cdef inline void add_child(Gen *g, Stage *st, const Node *n, int32_t index, bint last, int src, int dst, int die,
                           int dice_index, bint special) noexcept nogil:
    """Stage ``n`` + one step for the next level unless (B) under ``per_step`` refuses it. ``last``: the child
    is on the deepest level, where only the board counts."""
    cdef Node *c = &st.nodes[st.n]
    cdef bint hit = (dst != 0 and (g.ylone >> (dst - 1)) & 1 and not (n.w[1] >> (HIT_BIT + dst - 1)) & 1)
    node_step(c, n, src, dst, hit)
    c.heads = n.heads
    if src == HEAD and not special and g.long_family:
        c.heads += 1
    c.used = n.used | (1u << dice_index)
    c.step = <uint16_t> (src | (die << 5) | (special << 8) | (hit << 9))
    c.parent = index
    if g.per_step:
        c.legal = runs_ok(c.xmask, g.ymax_t)
        if not c.legal:
            return
    else:
        c.legal = 2 if g.long_family else 1
    st.word[st.n] = slot_word(c, last)
    st.hash[st.n] = slot_hash(c.w[0], st.word[st.n])
    st.n += 1


cdef int flush(Gen *g, Stage *st, NodeBuf *nxt, bint merge) noexcept nogil:
    """Probe the staged children in the order made (the probes, independent of one another, overlap in the
    processor): each new one joins the next level (all of them when not ``merge``); -1 when memory ran out.
    The table is grown first, for all of them, so that no probe grows it."""
    cdef int j
    cdef int32_t m
    cdef Slots *t = &g.seen
    NARDY_CHECK(st.n <= STAGE + STAGE_ROOM, "more children staged than the stage holds")
    if buf_reserve(nxt, nxt.n + st.n) < 0:
        return -1
    if not merge:
        memcpy(&nxt.data[nxt.n], st.nodes, <size_t> st.n * sizeof(Node))
        nxt.n += st.n
        st.n = 0
        return 0
    if slots_room(t, st.n) < 0:
        return -1
    m = nxt.n
    for j in range(st.n):
        if slot_put(t.slots, t.tags, t.mask, st.nodes[j].w[0], st.word[j], st.hash[j]):
            nxt.data[m] = st.nodes[j]
            m += 1
    t.n += m - nxt.n
    nxt.n = m
    st.n = 0
    return 0


cdef void expand_ordered(Gen *g, const Node *n, int level, int32_t index, Stage *st) noexcept nogil:
    """The children of ``n`` for an ordered list without six-one specials and with no X checker on the bar,
    in descending canonical order (docs/rules.md, Canonical step order): ``expand`` with the sources of the
    level's one value found as masks."""
    cdef int v = g.dice[level]
    cdef int src, last = level + 1 == g.ndice
    cdef uint32_t allowed = 0xFFFFFF, normal, bear, xmask = n.xmask
    if level > 0 and not g.per_step and ((n.step >> 5) & 7) == v:
        allowed = (1u << (n.step & 31)) - 1  # in_order: no source above the last step's
    # (N) sources above v whose landing point is open; (H) the head while departures are left
    normal = xmask & allowed & ~(g.yblock << v) & ~((1u << v) - 1)
    if g.long_family and n.heads >= g.head_limit:
        normal &= ~(1u << (HEAD - 1))
    while normal:
        src = hibit(normal) + 1
        normal &= ~(1u << (src - 1))
        add_child(g, st, n, index, last, src, src - v, v, level, False)
    # (O) bear-off, all home: exactly v, or a higher die from the farthest point
    bear = bear_off_sources(xmask, v) & allowed
    if bear:
        add_child(g, st, n, index, last, hibit(bear) + 1, 0, v, level, False)


cdef void expand(Gen *g, const Node *n, int level, int32_t index, Stage *st) noexcept nogil:
    """Stage all children of ``n`` (on ``level``) in descending canonical order (docs/rules.md, Canonical step
    order)."""
    cdef int values[2]
    cdef int indices[2]
    cdef int nvalues = 0
    cdef int i, k, v, src, dst
    cdef int last = level + 1 == g.ndice
    cdef uint32_t rest
    cdef bint home
    if g.ordered:
        values[0] = g.dice[level]
        indices[0] = level
        nvalues = 1
    else:
        for i in range(2):
            if not (n.used >> i) & 1:
                values[nvalues] = g.dice[i]
                indices[nvalues] = i
                nvalues += 1
    if count_at(n, NIB_BAR) > 0:
        # (E) bar entry, short only: bar -> 25-d onto an open point
        for k in range(nvalues):
            dst = BAR_POINT - values[k]
            if not (g.yblock >> (dst - 1)) & 1 and in_order(g, n, level, BAR_POINT, values[k], False):
                add_child(g, st, n, index, last, BAR_POINT, dst, values[k], indices[k], False)
        return
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
                if (not (g.yblock >> (dst - 1)) & 1
                        and (src != HEAD or not g.long_family or n.heads < g.head_limit)
                        and in_order(g, n, level, src, v, False)):
                    add_child(g, st, n, index, last, src, dst, v, indices[k], False)
            elif home and (src == v or (n.xmask >> src) == 0) and in_order(g, n, level, src, v, False):
                # (O) bear-off: all home; exact, or a higher die from the farthest point
                add_child(g, st, n, index, last, src, 0, v, indices[k], False)
            if (src == HEAD and V_SPECIAL[g.variant] and (v == 1 or v == 6) and not (g.yblock >> (v - 1)) & 1
                    and in_order(g, n, level, HEAD, v, True)):
                # (S) six-one special 24/ds
                add_child(g, st, n, index, last, HEAD, v, v, indices[k], True)


cdef void root_node(Gen *g, Node *n) noexcept nogil:
    """The node of the board ``setup`` made, the lone Y checkers X may hit (short nardy), and the root's key less
    X's part and Y's checkers (``node_result``)."""
    cdef int m
    memset(n, 0, sizeof(Node))
    g.ylone = 0
    for m in range(1, 25):
        if g.b[m] > 0:
            n.w[(m - 1) >> 4] |= <uint64_t> g.b[m] << (4 * ((m - 1) & 15))
        elif g.b[m] == -1 and not g.long_family:
            g.ylone |= 1u << (m - 1)
    n.w[1] |= (<uint64_t> g.b[BAR_POINT] << (4 * (NIB_BAR - 16))) | (<uint64_t> g.b[XOFF] << (4 * (NIB_OFF - 16)))
    n.xmask = g.xmask
    n.parent = -1
    n.legal = 1
    g.kbase = g.key ^ x_key(g.kxb, n.w)
    memcpy(g.yroot, &g.b[1], 24)
    for m in range(3):
        g.yroot[m] &= ((g.yroot[m] & 0x8080808080808080ULL) >> 7) * 0xFF


cdef int write_level_results(Gen *g, const int *which, int best, bint walk) noexcept nogil:
    """The results: the legal nodes of level ``best`` (in buffer ``which[best]``), merged by board unless it
    is the deepest level (merged so already); the first of equal boards carries the greatest step sequence (at
    one source the higher die comes first, which (D) keeps; see ``higher_die``). ``walk``: with their steps.
    -1 when memory ran out."""
    cdef NodeBuf *cur = &g.levels[which[best]]
    cdef bint merge = best != g.ndice
    cdef int32_t i, index
    cdef int s, found
    cdef Node *n
    cdef Result *r
    g.best = best
    g.nres = 0
    # room for the steps of as many results as the buffer holds (next_result makes more only as it grows)
    if (merge and slots_reset(&g.seen, cur.n) < 0) or results_reserve(g, 1) < 0:
        return -1
    for i in range(cur.n):
        n = &cur.data[i]
        if not node_legal(g, n):
            continue
        if merge:
            found = slots_add(&g.seen, n.w[0], n.w[1], slot_hash(n.w[0], n.w[1]))
            if found < 0:
                return -1
            if found == 0:
                continue
        r = next_result(g)
        if r == NULL:
            return -1
        node_result(g, n, best, r)
        if walk:
            index = i
            for s in range(best, 0, -1):
                g.steps[g.nres * g.ndice + s - 1] = g.levels[s].data[index].step
                index = g.levels[s].data[index].parent
        g.nres += 1
    return 0


cdef int levels_search(Gen *g) noexcept nogil:
    """The level-by-level search (docs/rules.md, Maximal use of the dice to Canonical step order), for long
    dice lists and the per-step block check, where merging equal nodes of a level keeps the work small: fills
    the results; ``E_MEMORY``, ``E_LIMIT`` or ``E_SIGNAL`` when it cannot."""
    cdef int level = 0, best = 0, k
    cdef int which[25]           # the buffer of each level: its own when walking, else one of three
    cdef bint walk = g.want_steps or not g.ordered
    cdef bint fast = g.ordered and not V_SPECIAL[g.variant]
    cdef bint plain = fast and g.long_family and not g.per_step
    cdef bint direct = False
    cdef int32_t i
    cdef int32_t sizes[25]
    cdef double growth
    cdef int64_t expected
    cdef NodeBuf *cur
    cdef NodeBuf *nxt
    cdef Node *n
    cdef int status = 0
    cdef Stage *st = <Stage *> malloc(sizeof(Stage))
    g.steps_wanted = walk
    which[0] = 0
    if st == NULL or buf_reserve(&g.levels[0], 1) < 0:
        free(st)
        return E_MEMORY
    st.n = 0
    root_node(g, &g.levels[0].data[0])
    g.levels[0].n = 1
    while level < g.ndice:
        cur = &g.levels[which[level]]
        if walk:
            which[level + 1] = level + 1
        else:
            k = 0
            while k == which[level] or k == which[best]:
                k += 1
            which[level + 1] = k
        nxt = &g.levels[which[level + 1]]
        nxt.n = 0
        # the table sized for this level grown as the last one grew (it doubles itself when 5/8 full); sized
        # for the most a level can grow (16 times), it made crazy ladders fault in hundreds of megabytes of
        # pages for each batch. The root's children need no merging: two steps from one board reach two
        # boards, or (bearing off one checker with either of two dice) two searches that differ in the die left.
        sizes[level] = cur.n
        growth = 1.0 if level == 0 else min(max(<double> cur.n / sizes[level - 1], 1.0), 4.0)
        expected = <int64_t> (cur.n * growth)
        if g.limit:
            expected = min(expected, g.limit + STAGE + STAGE_ROOM)  # max_results bounds the table too
        if level > 0 and slots_reset(&g.seen, expected) < 0:
            status = E_MEMORY
            break
        direct = plain and direct_results(g, level)
        if plain:
            status = plain_level(g, cur, nxt, level, st)
        for i in range(0 if plain else cur.n):
            n = &cur.data[i]
            if count_at(n, NIB_OFF) == 15 or (g.per_step and not n.legal):
                continue
            if fast and count_at(n, NIB_BAR) == 0:
                expand_ordered(g, n, level, i, st)
            else:
                expand(g, n, level, i, st)
            if st.n >= STAGE:
                if flush(g, st, nxt, level > 0) < 0:
                    status = E_MEMORY
                    break
                if g.limit and nxt.n > g.limit:
                    status = E_LIMIT
                    break
            if tick(g) < 0:
                status = E_SIGNAL
                break
        if status == 0 and (flush_plain(g, st, cur, nxt, level) if plain else flush(g, st, nxt, level > 0)) < 0:
            status = E_MEMORY
        if status == 0 and g.limit and nxt.n > g.limit:
            status = E_LIMIT
        if direct:
            # the deepest level, its results written from boards and points (its nodes hold no more)
            if status == 0:
                plain_results(g, nxt)
            if status == 0 and g.nres:
                best = level + 1
            break
        if status != 0 or nxt.n == 0:
            break
        level += 1
        for i in range(nxt.n):
            if node_legal(g, &nxt.data[i]):
                best = level
                break
    free(st)
    if status != 0:
        return status
    if direct and g.nres:
        g.best = best
        return 0
    return E_MEMORY if write_level_results(g, which, best, walk) < 0 else 0
