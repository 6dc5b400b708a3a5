# Bear-off tables in C (docs/rules.md, Bear-off tables; nardy_fast.bearoff.tables states the recurrences and
# the order of their float operations, which the reference follows too): a move generator of its own for a
# side whose checkers are all home (every die can be played there, no opponent matters), the one-sided and
# two-sided builders over it, and the bear-off test of a position (Races and bear-off positions).
# Uses: tables, memory, api_moves.
# Offers: pos_is_bearoff, bo_id.

cdef enum:
    BO_POINTS = 6
    BO_TURNS = 33      # a distribution's columns: 0..MAX_TURNS turns (nardy_fast.bearoff.semantics)
    BO_MAX_STEPS = 24  # the longest dice list: crazy gulbar's 1-1 ladder with 4 values a rung

# C(n, r), n <= 21, r <= 6: the terms of a layout's id (nardy_fast.bearoff.layouts)
cdef int32_t BO_BINOMIAL[22][7]


cdef void _init_bearoff() noexcept:
    cdef int n, r
    for n in range(22):
        BO_BINOMIAL[n][0] = 1
        for r in range(1, 7):
            BO_BINOMIAL[n][r] = 0 if n == 0 else BO_BINOMIAL[n - 1][r - 1] + BO_BINOMIAL[n - 1][r]


_init_bearoff()


cdef inline int32_t bo_id(const int8_t *c) noexcept nogil:
    """The id of the layout ``c[0..5]`` (points 1..6): ``sum C(5 - k + S_k, 6 - k)``, ``S_k = c[k] + .. + c[5]``."""
    cdef int32_t id = 0
    cdef int k, s = 0
    for k in range(BO_POINTS - 1, -1, -1):
        NARDY_CHECK(0 <= c[k] <= 15, "a bear-off layout count out of 0..15")
        s += c[k]
        id += BO_BINOMIAL[BO_POINTS - 1 - k + s][BO_POINTS - k]
    NARDY_CHECK(s <= 15, "a bear-off layout of more than 15 checkers")
    return id


cdef struct BoGen:
    const int8_t *layouts   # (n, 6): the counts of each id
    int32_t n
    int32_t *stamp          # (n,): the level a layout was last seen at, for de-duplication
    int32_t serial
    int32_t *level          # two frontiers of up to n ids
    int32_t *next_level
    int32_t nres            # the candidates, then the legal results, of the last bo_results: ids (0 = all
    int32_t cap             # off) and the steps each played
    int32_t *res
    int32_t *res_steps
    int32_t finished        # bit s: a sequence of s steps bore off the last checker (in the current pass)


cdef int bo_dice(int a, int b, int ladder, int *dice) noexcept nogil:
    """The dice list of roll a-b (docs/rules.md, Rolls and the dice list): a and b; four copies of a double;
    with ``ladder`` values a rung, the ladder a, .., 6 (Crazy gulbar ladders). Returns its length."""
    cdef int n = 0, v, j
    if a != b:
        dice[0] = a
        dice[1] = b
        return 2
    if ladder == 0:
        for j in range(4):
            dice[j] = a
        return 4
    for v in range(a, 7):
        for j in range(ladder):
            dice[n] = v
            n += 1
    return n


cdef int bo_pass(BoGen *g, int32_t start, const int *dice, int ndice, int32_t *umax) noexcept nogil:
    """Every sequence of steps from layout ``start`` using ``dice`` in the given order (docs/rules.md,
    Bearing off, Normal step), level by level: appends to ``g.res`` each distinct candidate result with the
    number of steps it played (a sequence ends when it bears off the last checker, or when no step can use the
    next die), and raises ``umax`` to the most steps played. Returns -1 when the results overflow."""
    cdef int s, i, p, d, top
    cdef int32_t nlev = 1, nnext, id, child
    cdef int8_t c[6]
    cdef int32_t *swap
    cdef bint moved
    g.level[0] = start
    g.finished = 0
    for s in range(ndice + 1):
        g.serial += 1
        nnext = 0
        for i in range(nlev):
            id = g.level[i]
            if s == ndice:
                if bo_add(g, id, s, umax) < 0:
                    return -1
                continue
            memcpy(c, &g.layouts[6 * id], 6)
            d = dice[s]
            top = 5
            while top >= 0 and c[top] == 0:
                top -= 1
            moved = False
            for p in range(top, -1, -1):  # p is point p + 1
                if c[p] == 0:
                    continue
                if p + 1 > d:
                    c[p] -= 1
                    c[p - d] += 1
                    child = bo_id(c)
                    c[p - d] -= 1
                    c[p] += 1
                elif p + 1 == d or p == top:
                    c[p] -= 1
                    child = bo_id(c)
                    c[p] += 1
                else:
                    continue
                moved = True
                if child == 0:
                    if not g.finished & (1 << (s + 1)):
                        g.finished |= 1 << (s + 1)
                        if bo_add(g, 0, s + 1, umax) < 0:
                            return -1
                elif g.stamp[child] != g.serial:
                    g.stamp[child] = g.serial
                    g.next_level[nnext] = child
                    nnext += 1
            if not moved and bo_add(g, id, s, umax) < 0:
                return -1
        swap = g.level
        g.level = g.next_level
        g.next_level = swap
        nlev = nnext
        if nlev == 0:
            break
    return 0


cdef inline int bo_add(BoGen *g, int32_t id, int steps, int32_t *umax) noexcept nogil:
    """Append a candidate (a pass never repeats one: its levels are de-duplicated, and each count of steps
    that finishes is added once); -1 when memory ran out."""
    cdef int64_t cap
    if g.nres == g.cap:
        cap = grown(g.cap, g.nres + 1, 64)
        if resized(<void **> &g.res, cap, sizeof(int32_t)) < 0 or resized(<void **> &g.res_steps, cap, sizeof(int32_t)) < 0:
            return -1
        g.cap = <int32_t> cap
    g.res[g.nres] = id
    g.res_steps[g.nres] = steps
    g.nres += 1
    if steps > umax[0]:
        umax[0] = steps
    return 0


cdef int bo_results(BoGen *g, int32_t start, int a, int b, int ladder) noexcept nogil:
    """The legal results of layout ``start`` for roll a-b (docs/rules.md, Maximal use of the dice, Higher
    die; One move per result), left in ``g.res[0 .. g.nres - 1]`` (0 = all borne off); returns the steps they
    play, or -1 when they overflow."""
    cdef int dice[BO_MAX_STEPS]
    cdef int ndice = bo_dice(a, b, ladder, dice)
    cdef int32_t umax = 0, high_umax = 0
    cdef int i, j = 0, high_count
    g.nres = 0
    if bo_pass(g, start, dice, ndice, &high_umax) < 0:
        return -1
    high_count = g.nres
    umax = high_umax
    if a != b:
        dice[0] = b
        dice[1] = a
        if bo_pass(g, start, dice, ndice, &umax) < 0:
            return -1
    g.serial += 1
    for i in range(g.nres):
        # Higher die: when one die is all that can be played and the higher can, the lower alone is not legal
        if g.res_steps[i] != umax or (a != b and umax == 1 and high_umax == 1 and i >= high_count):
            continue
        if g.stamp[g.res[i]] == g.serial:
            continue
        g.stamp[g.res[i]] = g.serial
        g.res[j] = g.res[i]
        j += 1
    g.nres = j
    return umax


cdef inline bint bo_extra(int extra_kind, int a, int b, int ladder, int steps, int32_t result) noexcept nogil:
    """Whether the move earns an extra roll (docs/rules.md, Six-one extra roll; Gulbar extra roll): never when
    it bore off the last checker."""
    if result == 0:
        return False
    if extra_kind == EXTRA_SIX_ONE:
        return a == 6 and b == 1
    if extra_kind == EXTRA_FULL_DOUBLE:
        return a == b and ladder == 0 and steps == 4
    return False


cdef inline int bo_checkers(const int8_t *c) noexcept nogil:
    return c[0] + c[1] + c[2] + c[3] + c[4] + c[5]


cdef inline int bo_pips(const int8_t *c) noexcept nogil:
    return c[0] + 2 * c[1] + 3 * c[2] + 4 * c[3] + 5 * c[4] + 6 * c[5]


cdef int32_t *bo_by_pips(const int8_t *layouts, int32_t n) noexcept nogil:
    """The ids 0..n-1 sorted by pip count (stable): every result of a layout comes before it."""
    cdef int32_t *order = <int32_t *> malloc(n * sizeof(int32_t))
    cdef int32_t start[92]
    cdef int32_t i, p
    if order == NULL:
        return NULL
    memset(start, 0, sizeof(start))
    for i in range(n):
        start[bo_pips(&layouts[6 * i]) + 1] += 1
    for p in range(1, 92):
        start[p] += start[p - 1]
    for i in range(n):
        p = bo_pips(&layouts[6 * i])
        order[start[p]] = i
        start[p] += 1
    return order


cdef int bo_open(BoGen *g, const int8_t *layouts, int32_t n) noexcept nogil:
    memset(g, 0, sizeof(BoGen))
    g.layouts = layouts
    g.n = n
    g.stamp = <int32_t *> calloc(n, sizeof(int32_t))
    g.level = <int32_t *> malloc(n * sizeof(int32_t))
    g.next_level = <int32_t *> malloc(n * sizeof(int32_t))
    return -1 if g.stamp == NULL or g.level == NULL or g.next_level == NULL else 0


cdef void bo_close(BoGen *g) noexcept nogil:
    free(g.res)
    free(g.res_steps)
    free(g.stamp)
    free(g.level)
    free(g.next_level)


cdef struct BoMemo:
    # A double's best results, by dynamic programming over (steps played, layout): the same for every layout
    # that reaches a layout after the same steps, so each is worked out once per table
    int ndice
    int dice[BO_MAX_STEPS]
    int8_t *rel      # (ndice, n): the most steps playable from there (-1: not yet known)
    int32_t *best    # the best result among the sequences that play that many
    int8_t *done     # whether one of them bore a checker off (the first-off question's end)


cdef int bo_memo_open(BoMemo *m, int d, int ladder, int32_t n) noexcept nogil:
    m.ndice = bo_dice(d, d, ladder, m.dice)
    m.rel = <int8_t *> malloc(<int64_t> m.ndice * n)
    m.best = <int32_t *> malloc(<int64_t> m.ndice * n * sizeof(int32_t))
    m.done = <int8_t *> malloc(<int64_t> m.ndice * n)
    if m.rel == NULL or m.best == NULL or m.done == NULL:
        return -1
    memset(m.rel, 0xFF, <int64_t> m.ndice * n)
    return 0


cdef void bo_memo_close(BoMemo *m) noexcept nogil:
    free(m.rel)
    free(m.best)
    free(m.done)


cdef inline bint bo_better(int32_t r, int32_t than, const double *mean) noexcept nogil:
    """Whether result ``r`` beats ``than``: all off first, then the lower mean, then the lower id."""
    if than < 0 or r == 0:
        return than != 0
    if than == 0:
        return False
    return mean[r] < mean[than] or (mean[r] == mean[than] and r < than)


cdef void bo_dp(const BoGen *g, BoMemo *m, int32_t c, int s, const double *mean) noexcept nogil:
    """Fill ``m`` at (``s`` steps played, layout ``c``): of the sequences of the remaining dice, the most steps
    any plays (Maximal use of the dice: a sequence ends when it bears off the last checker), and among those
    that play that many the best result and whether one bore a checker off (docs/rules.md, Bearing off)."""
    cdef int64_t at = <int64_t> s * g.n + c, below
    cdef int8_t cnt[6]
    cdef int p, top, d = m.dice[s]
    cdef int32_t child, best = -1, b
    cdef int rel = -1, r
    cdef bint done = False, bore, dn
    if m.rel[at] >= 0:
        return
    memcpy(cnt, &g.layouts[6 * c], 6)
    top = 5
    while top >= 0 and cnt[top] == 0:
        top -= 1
    for p in range(top, -1, -1):
        if cnt[p] == 0:
            continue
        if p + 1 > d:
            cnt[p] -= 1
            cnt[p - d] += 1
            child = bo_id(cnt)
            cnt[p - d] -= 1
            cnt[p] += 1
            bore = False
        elif p + 1 == d or p == top:
            cnt[p] -= 1
            child = bo_id(cnt)
            cnt[p] += 1
            bore = True
        else:
            continue
        if child == 0:
            r, b, dn = 1, 0, True
        elif s + 1 == m.ndice:
            r, b, dn = 1, child, bore
        else:
            bo_dp(g, m, child, s + 1, mean)
            below = <int64_t> (s + 1) * g.n + child
            r, b, dn = 1 + m.rel[below], m.best[below], m.done[below] or bore
        if r > rel:
            rel, best, done = r, b, dn
        elif r == rel:
            done = done or dn
            if bo_better(b, best, mean):
                best = b
    if rel < 0:  # no step can use the die: the sequence stops here
        rel, best, done = 0, c, False
    m.rel[at] = <int8_t> rel
    m.best[at] = best
    m.done[at] = done


cdef int bo_one_sided(BoGen *g, const int32_t *order, int extra_kind, int ladder, bint first, double *mean,
                      double *dist) noexcept nogil:
    """One half of a one-sided table (``first``: the first checker off, else all of them) over ``order``;
    0, E_MEMORY when memory ran out, E_SIGNAL when a signal handler raised (Ctrl-C: its exception is set), or
    1 when a distribution ran past BO_TURNS - 1 turns. A double's best
    result comes from ``bo_dp`` (its dice list is long on a ladder), another roll's from ``bo_results``."""
    cdef int a, status = 0
    cdef BoMemo memo[6]
    memset(memo, 0, sizeof(memo))
    for a in range(6):
        if bo_memo_open(&memo[a], a + 1, ladder, g.n) < 0:
            status = E_MEMORY
    if status == 0:
        status = bo_one_sided_rows(g, order, extra_kind, ladder, first, mean, dist, memo)
    for a in range(6):
        bo_memo_close(&memo[a])
    return status


cdef int bo_one_sided_rows(BoGen *g, const int32_t *order, int extra_kind, int ladder, bint first, double *mean,
                           double *dist, BoMemo *memo) noexcept nogil:
    cdef int32_t i, L, best, r
    cdef int a, b, k, steps, t, w, own
    cdef double total, cost, acc[BO_TURNS]
    cdef double *row
    cdef const double *src
    cdef bint extra, done
    mean[0] = 0.0
    memset(dist, 0, BO_TURNS * sizeof(double))
    dist[0] = 1.0
    for i in range(1, g.n):
        # a layout is about 9 us of work (the 15-checker table's 54,264 take half a second): a look for
        # signals every 2048 of them is one every 20 ms or so
        if (i & 2047) == 0 and signals_raised() < 0:
            return E_SIGNAL
        L = order[i]
        own = bo_checkers(&g.layouts[6 * L])
        total = 0.0
        memset(acc, 0, sizeof(acc))
        for a in range(6, 0, -1):
            for b in range(a, 0, -1):
                w = 1 if a == b else 2
                # the result of least expected turns; one that ends the count wins outright
                best = -1
                done = False
                if a == b:
                    bo_dp(g, &memo[a - 1], L, 0, mean)
                    steps = memo[a - 1].rel[L]
                    best = memo[a - 1].best[L]
                    done = memo[a - 1].done[L] if first else best == 0
                else:
                    steps = bo_results(g, L, a, b, ladder)
                    if steps < 0:
                        return E_MEMORY
                    for k in range(g.nres):
                        r = g.res[k]
                        if (bo_checkers(&g.layouts[6 * r]) < own) if first else r == 0:
                            done = True
                            break
                        if bo_better(r, best, mean):
                            best = r
                if done:
                    acc[1] += w
                    continue
                extra = bo_extra(extra_kind, a, b, ladder, steps, best)
                cost = mean[best] - 1.0 if extra else mean[best]
                total += w * cost
                src = &dist[BO_TURNS * best]
                if extra:
                    for t in range(BO_TURNS):
                        acc[t] += w * src[t]
                else:
                    if src[BO_TURNS - 1] != 0.0:
                        return 1
                    for t in range(1, BO_TURNS):
                        acc[t] += w * src[t - 1]
        mean[L] = 1.0 + total / 36.0
        row = &dist[BO_TURNS * L]
        total = 0.0
        for t in range(BO_TURNS):
            row[t] = acc[t] / 36.0
            total += row[t]
        NARDY_CHECK(-1e-9 < total - 1.0 < 1e-9, "a bear-off distribution that does not add up to 1")
    return 0


def bearoff_one_sided(const int8_t[:, ::1] layouts, str extra_roll, int ladder, double[::1] mean,
                      double[:, ::1] dist, double[::1] mean_first, double[:, ::1] dist_first):
    """Fill a one-sided table (``nardy_fast.bearoff.tables``) of the layouts ``layouts`` (all of those of up
    to some number of checkers, in id order) under a ``Semantics``'s ``extra_roll`` and ``ladder``, without the
    GIL; a signal handler's exception (Ctrl-C) is raised within a few tens of milliseconds. (A two-sided
    table, of 6 checkers at most, is built in a tenth of a second: its loops need no look for signals.)"""
    cdef int32_t n = layouts.shape[0]
    cdef int extra_kind = _EXTRA_KINDS.get(extra_roll, -1)
    cdef int32_t *order
    cdef BoGen g
    cdef int status = 0
    if (layouts.shape[1] != 6 or n < 1 or mean.shape[0] != n or mean_first.shape[0] != n or dist.shape[0] != n
            or dist_first.shape[0] != n or dist.shape[1] != BO_TURNS or dist_first.shape[1] != BO_TURNS
            or extra_kind not in (0, EXTRA_SIX_ONE, EXTRA_FULL_DOUBLE) or ladder not in (0, 2, 4)):
        raise _field_error(_NardyError, "table", "arrays and rules do not agree", (n, extra_kind, ladder))
    memset(&g, 0, sizeof(BoGen))
    with nogil:
        order = bo_by_pips(&layouts[0, 0], n)
        if order == NULL or bo_open(&g, &layouts[0, 0], n) < 0:
            status = E_MEMORY
        else:
            status = bo_one_sided(&g, order, extra_kind, ladder, False, &mean[0], &dist[0, 0])
            if status == 0:
                status = bo_one_sided(&g, order, extra_kind, ladder, True, &mean_first[0], &dist_first[0, 0])
        bo_close(&g)
        free(order)
    if status == E_MEMORY:
        raise MemoryError("bear-off table: out of memory")
    if status == E_SIGNAL:
        raise_set()
    if status:
        raise _field_error(_NardyError, "table", "needs more turns than a distribution holds", status)


cdef struct BoMoves:
    int32_t *start   # (n * 21 + 1,): the results of layout L for roll j are ids[start[21 L + j] ..]
    int32_t *ids
    int8_t *extra


cdef int bo_all_results(BoGen *g, int extra_kind, int ladder, BoMoves *m) noexcept nogil:
    """Every layout's legal results for every roll, in CSR form, for the two-sided table."""
    cdef int64_t cap = 16 * g.n * 21, used = 0
    cdef int32_t L
    cdef int a, b, j, k, steps
    m.start = <int32_t *> malloc((g.n * 21 + 1) * sizeof(int32_t))
    m.ids = <int32_t *> malloc(cap * sizeof(int32_t))
    m.extra = <int8_t *> malloc(cap)
    if m.start == NULL or m.ids == NULL or m.extra == NULL:
        return E_MEMORY
    for L in range(g.n):
        j = 0
        for a in range(6, 0, -1):
            for b in range(a, 0, -1):
                m.start[21 * L + j] = <int32_t> used
                j += 1
                if L == 0:
                    continue
                steps = bo_results(g, L, a, b, ladder)
                if steps < 0:
                    return E_MEMORY
                if used + g.nres > cap:
                    cap = 2 * cap + g.nres
                    if resized(<void **> &m.ids, cap, sizeof(int32_t)) < 0 or resized(<void **> &m.extra, cap, 1) < 0:
                        return E_MEMORY
                for k in range(g.nres):
                    m.ids[used] = g.res[k]
                    m.extra[used] = bo_extra(extra_kind, a, b, ladder, steps, g.res[k])
                    used += 1
    m.start[21 * g.n] = <int32_t> used
    return 0


cdef void bo_two_sided(const BoGen *g, const BoMoves *m, const int32_t *order, double *win) noexcept nogil:
    """``win[x, y]`` for every pair, in order of their pip counts added up (every value a pair reads has
    fewer pips), as ``nardy_fast.bearoff.tables`` states."""
    cdef int32_t n = g.n, x, y, i, j, k, r
    cdef int32_t lo[38], hi[38]
    cdef int s, px, a, b, roll, w
    cdef double total, best, v
    for s in range(38):
        lo[s] = n
        hi[s] = 0
    for i in range(n):
        px = bo_pips(&g.layouts[6 * order[i]])
        if i < lo[px]:
            lo[px] = i
        hi[px] = i + 1
    for s in range(73):
        for px in range(max(0, s - 36), min(s, 36) + 1):
            for i in range(lo[px], hi[px]):
                x = order[i]
                for j in range(lo[s - px], hi[s - px]):
                    y = order[j]
                    if x == 0:
                        win[<int64_t> x * n + y] = 1.0
                        continue
                    if y == 0:
                        win[<int64_t> x * n + y] = 0.0
                        continue
                    total = 0.0
                    roll = 0
                    for a in range(6, 0, -1):
                        for b in range(a, 0, -1):
                            w = 1 if a == b else 2
                            best = -1.0
                            for k in range(m.start[21 * x + roll], m.start[21 * x + roll + 1]):
                                r = m.ids[k]
                                if r == 0:
                                    v = 1.0
                                elif m.extra[k]:
                                    v = win[<int64_t> r * n + y]
                                else:
                                    v = 1.0 - win[<int64_t> y * n + r]
                                if v > best:
                                    best = v
                            total += w * best
                            roll += 1
                    win[<int64_t> x * n + y] = total / 36.0


def bearoff_two_sided(const int8_t[:, ::1] layouts, str extra_roll, int ladder, double[:, ::1] win):
    """Fill a two-sided table (``nardy_fast.bearoff.tables``) of the layouts ``layouts`` (all of those of up
    to 6 checkers at most, in id order) under a ``Semantics``'s ``extra_roll`` and ``ladder``, without the
    GIL."""
    cdef int32_t n = layouts.shape[0], i
    cdef int extra_kind = _EXTRA_KINDS.get(extra_roll, -1)
    cdef int32_t *order
    cdef BoGen g
    cdef BoMoves m
    cdef int status = 0
    if (layouts.shape[1] != 6 or n < 1 or n > 924 or win.shape[0] != n or win.shape[1] != n
            or extra_kind not in (0, EXTRA_SIX_ONE, EXTRA_FULL_DOUBLE) or ladder not in (0, 2, 4)):
        raise _field_error(_NardyError, "table", "arrays and rules do not agree", (n, extra_kind, ladder))
    for i in range(n):
        if bo_checkers(&layouts[i, 0]) > 6:
            raise _field_error(_NardyError, "table", "holds a layout of more than 6 checkers", i)
    memset(&m, 0, sizeof(BoMoves))
    memset(&g, 0, sizeof(BoGen))
    with nogil:
        order = bo_by_pips(&layouts[0, 0], n)
        if order == NULL or bo_open(&g, &layouts[0, 0], n) < 0:
            status = E_MEMORY
        else:
            status = bo_all_results(&g, extra_kind, ladder, &m)
            if status == 0:
                bo_two_sided(&g, &m, order, &win[0, 0])
        bo_close(&g)
        free(order)
        free(m.start)
        free(m.ids)
        free(m.extra)
    if status:
        raise MemoryError("bear-off table: out of memory")


cdef inline bint pos_is_bearoff(const Pos *p) noexcept nogil:
    """Whether every checker on the board of both sides is on its own points 1..6 and none is on the bar
    (docs/rules.md, Races and bear-off positions): White's home is White's 1..6; Black's is White's 13..18 in
    the long family, 19..24 in short nardy."""
    cdef int i, home = 18 if V_SHORT[p.variant] else 12
    if p.bar[0] or p.bar[1]:
        return False
    for i in range(24):
        if p.board[i] > 0 and i >= 6:
            return False
        if p.board[i] < 0 and not home <= i < home + 6:
            return False
    return True


def is_bearoff_row(const int8_t[::1] row):
    """``pos_is_bearoff`` of one checked row (for the tests that compare it with nardy_fast.race)."""
    if row.shape[0] != WIDTH:
        raise _field_error(_NardyError, "row", "must hold 64 values", row.shape[0])
    return pos_is_bearoff(<const Pos *> &row[0])
