# The one-sided bear-off table in C (docs/rules.md, Bear-off tables; nardy_fast.bearoff.tables states the
# recurrences and the order of their float operations, which the reference follows too): each layout's
# distribution of turns to bear off, by dynamic programming over the layouts in order of pips.
# Uses: tables, memory, api_moves, bearoff.
# Offers: nothing.


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
