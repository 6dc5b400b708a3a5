# The two-sided bear-off table in C (docs/rules.md, Bear-off tables; nardy_fast.bearoff.tables states the
# recurrence): each pair of layouts' chance that the side to move wins, over every layout's results for every
# roll, found once.
# Uses: tables, memory, bearoff.
# Offers: nothing.


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
