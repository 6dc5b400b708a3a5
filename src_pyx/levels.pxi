# The level-by-level search (docs/rules.md, Normal step to Canonical step order): every node of a level
# expanded into the next, equal nodes merged; for crazy ladders, the per-step block check, and searches
# bounded by max_results.
# Uses: tables, memory, block.
# Offers: levels_search.


cdef inline int add_child(Gen *g, NodeBuf *nxt, const Node *parent, int32_t parent_index, int src, int dst,
                          int die, int dice_index, bint special) noexcept nogil:
    """Append ``parent`` + one step to the next level unless an equal node is there already (canonical
    order)."""
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
    n.legal = block_is_legal(g, n.xmask) if g.long_family else 1
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
    points go first), and it is the lexicographically greater one (Canonical step order), so nothing is lost.
    Under ``block_check = per_step`` intermediate positions matter, and every order is tried.
    """
    cdef uint16_t last = n.step
    if n.nsteps == 0 or g.per_step or ((last >> 5) & 7) != die:
        return True
    return src * 2 + (not special) <= (last & 31) * 2 + (not ((last >> 8) & 1))


cdef int expand(Gen *g, const Node *n, int32_t index, NodeBuf *nxt) noexcept nogil:
    """All children of ``n`` in descending canonical order (docs/rules.md, Canonical step order)."""
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
            if (src == HEAD and V_SPECIAL[g.variant] and (v == 1 or v == 6) and n.y[v] == 0
                    and in_order(g, n, HEAD, v, True)):
                # (S) six-one special 24/ds
                if add_child(g, nxt, n, index, HEAD, v, v, indices[k], True) < 0:
                    return -1
    return 0


cdef int levels_search(Gen *g) noexcept nogil:
    """The level-by-level search (docs/rules.md, Maximal use of the dice to Canonical step order), for long
    dice lists and the per-step block check, where merging equal nodes of a level keeps the work small: fills
    the results; -1 when memory ran out."""
    cdef int level = 0
    cdef int best = 0
    cdef int32_t i, found, index
    cdef int s, m
    cdef NodeBuf *cur
    cdef NodeBuf *nxt
    cdef Node *n
    cdef Result *r
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
    # the deepest level with a candidate, its legal nodes merged by board (the first of equal boards carries the
    # greatest step sequence: at one source the higher die comes first, which (D) keeps; see ``higher_die``)
    cur = &g.levels[best]
    g.best = best
    g.nres = 0
    if table_reset(&g.table, cur.n) < 0:
        return -1
    for i in range(cur.n):
        n = &cur.data[i]
        if not n.legal:
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
