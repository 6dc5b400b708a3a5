# The depth-first search of up to four dice (docs/rules.md, Normal step to Canonical step order) over one
# board, undoing each step.
# Uses: tables, memory, block, rules.
# Offers: depth_first_search.
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
    """The first result ``depth`` steps deep: the shallower ones go (Maximal use of the dice); -1 when memory
    ran out."""
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
    cdef int limit
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
    bear[0] = bear_off_sources(xmask, v)
    # (S) six-one special 24/ds
    special[0] = (V_SPECIAL[g.variant] and (v == 1 or v == 6) and (xmask >> (HEAD - 1)) & 1
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
    """Play one step (docs/rules.md, Normal step): ``after`` (a copy of ``before``, or the same board) gets
    the board after it, ``key`` and X's ``xmask`` are updated; returns the step's code. Counts are read from
    ``before`` only: a byte read back from a copy just written in wider stores waits for the copy."""
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
    # a candidate when (B) holds (docs/rules.md, Block rule)
    if g.long_family and not block_is_legal(g, xmask):
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
    # a candidate when (B) holds (docs/rules.md, Block rule)
    if g.depth >= g.best and (not g.long_family or block_is_legal(g, g.xmask)):
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
    """The depth-first search over the one board ``g.b`` (docs/rules.md, Maximal use of the dice): the same
    results in the same order with the same canonical steps as ``levels_search``, without a node copy per
    step; -1 when memory ran out. Visiting steps in canonical order finds each result first by its canonical
    steps. (D) is applied by ``search``, for both searches."""
    # One die value and no special step: sources are tried in descending order (``in_order``), and the counts
    # of steps from each point follow from the result (from M24 down, steps from M m = steps from M m+d less
    # the change on M m), so no two tried sequences reach one result.
    g.distinct = not V_SPECIAL[g.variant] and g.dice[0] == g.dice[g.ndice - 1] and g.ordered
    g.used = 0
    g.heads = 0
    g.depth = 0
    g.best = 0
    g.nres = 0
    g.path = 0
    g.steps_wanted = 1
    if (results_reserve(g, 1) < 0 or table_reset(&g.table, 128) < 0
            or record(g, g.b, g.key, 0, 0, False) < 0):
        return -1
    if g.ndice and g.b[XOFF] != 15 and visit_steps(g) < 0:
        return -1
    return 0
