# The two-sided bear-off tables in C (docs/rules.md, Bear-off tables; nardy_fast.bearoff.tables states the
# recurrences): each pair of layouts' chance that the side to move wins, and its exact cubeful equities at
# money play, over every layout's results for every roll, found once.
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


cdef inline double bo_cube(double nd, double dt) noexcept nogil:
    """The side to roll's value per unit of the cube, doubling where that is worth more (GNU Backgammon's
    ``CubeEquity``): ``nd`` its no-double value, ``dt`` its value per unit of the doubled cube, owned by the
    other side; a pass is worth 1."""
    if 2.0 * dt >= nd and 1.0 >= nd:
        return 1.0 if 2.0 * dt >= 1.0 else 2.0 * dt
    return nd


cdef void bo_pair(const BoMoves *m, int32_t n, int32_t x, int32_t y, double *out, int cubeful) noexcept nogil:
    """One pair's entry: ``win[x, y]``, or with ``cubeful`` its three cubeful equities (centred, own,
    opponent, each a plane of ``n * n``), from the entries of pairs of fewer pips."""
    cdef int64_t plane = <int64_t> n * n, at = <int64_t> x * n + y, mine, theirs
    cdef int32_t k, r
    cdef int a, b, roll = 0, w, s
    cdef double total[3]
    cdef double best[3]
    cdef double v[3]
    cdef double nd_c, nd_o, dt
    if x == 0 or y == 0:  # a side with none left has won: the side to move (x == 0), else the other
        for s in range(3 if cubeful else 1):
            out[s * plane + at] = (1.0 if x == 0 else -1.0) if cubeful else (1.0 if x == 0 else 0.0)
        return
    total[0] = total[1] = total[2] = 0.0
    for a in range(6, 0, -1):
        for b in range(a, 0, -1):
            w = 1 if a == b else 2
            best[0] = best[1] = best[2] = -2.0
            for k in range(m.start[21 * x + roll], m.start[21 * x + roll + 1]):
                r = m.ids[k]
                mine, theirs = <int64_t> r * n + y, <int64_t> y * n + r
                if r == 0:
                    v[0] = v[1] = v[2] = 1.0
                elif m.extra[k]:  # the same side rolls again, its cube as it was (no double mid-turn)
                    for s in range(3 if cubeful else 1):
                        v[s] = out[s * plane + mine]
                elif not cubeful:
                    v[0] = 1.0 - out[theirs]
                else:  # the other side to roll: it doubles where that pays, its double-take owned by us
                    nd_c, nd_o, dt = out[theirs], out[plane + theirs], out[2 * plane + theirs]
                    v[0] = -bo_cube(nd_c, dt)
                    v[1] = -dt
                    v[2] = -bo_cube(nd_o, dt)
                for s in range(3 if cubeful else 1):
                    if v[s] > best[s]:  # each cube state plays its own best move
                        best[s] = v[s]
            for s in range(3):
                total[s] += w * best[s]
            roll += 1
    for s in range(3 if cubeful else 1):
        out[s * plane + at] = total[s] / 36.0


cdef void bo_two_sided(const BoGen *g, const BoMoves *m, const int32_t *order, double *out,
                       int cubeful) noexcept nogil:
    """Every pair's entry in order of their pip counts added up (every value a pair reads has fewer pips), as
    ``nardy_fast.bearoff.tables`` states."""
    cdef int32_t n = g.n, i, j
    cdef int32_t lo[38], hi[38]
    cdef int s, px
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
                for j in range(lo[s - px], hi[s - px]):
                    bo_pair(m, n, order[i], order[j], out, cubeful)


cdef _bo_fill(const int8_t[:, ::1] layouts, str extra_roll, int ladder, double *out, int cubeful):
    """Fill a two-sided table of ``layouts`` (all of those of up to 6 checkers at most, in id order) under a
    ``Semantics``'s ``extra_roll`` and ``ladder``, without the GIL."""
    cdef int32_t n = layouts.shape[0], i
    cdef int extra_kind = _EXTRA_KINDS.get(extra_roll, -1)
    cdef int32_t *order
    cdef BoGen g
    cdef BoMoves m
    cdef int status = 0
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
                bo_two_sided(&g, &m, order, out, cubeful)
        bo_close(&g)
        free(order)
        free(m.start)
        free(m.ids)
        free(m.extra)
    if status:
        raise MemoryError("bear-off table: out of memory")


cdef int _bo_rules(int32_t n, str extra_roll, int ladder) except -1:
    """Whether a table's sizes and rules can be built (else a NardyError naming ``table``)."""
    cdef int extra_kind = _EXTRA_KINDS.get(extra_roll, -1)
    if n < 1 or n > 924 or extra_kind not in (0, EXTRA_SIX_ONE, EXTRA_FULL_DOUBLE) or ladder not in (0, 2, 4):
        raise _field_error(_NardyError, "table", "arrays and rules do not agree", (n, extra_kind, ladder))
    return 0


def bearoff_two_sided(const int8_t[:, ::1] layouts, str extra_roll, int ladder, double[:, ::1] win):
    """Fill a two-sided table (``nardy_fast.bearoff.tables``) of the layouts ``layouts`` (all of those of up
    to 6 checkers at most, in id order) under a ``Semantics``'s ``extra_roll`` and ``ladder``, without the
    GIL."""
    cdef int32_t n = layouts.shape[0]
    if layouts.shape[1] != 6 or win.shape[0] != n or win.shape[1] != n:
        raise _field_error(_NardyError, "table", "arrays and rules do not agree", (n, win.shape[0], win.shape[1]))
    _bo_rules(n, extra_roll, ladder)
    _bo_fill(layouts, extra_roll, ladder, &win[0, 0], 0)


def bearoff_two_sided_cubeful(const int8_t[:, ::1] layouts, str extra_roll, int ladder, double[:, :, ::1] values):
    """Fill the cubeful two-sided table (``nardy_fast.bearoff.tables``): ``values[0]``, ``[1]``, ``[2]`` the
    money equities per unit of the cube of the side to move with the cube centred, its own, the opponent's,
    for the layouts ``layouts`` under a ``Semantics``'s ``extra_roll`` and ``ladder``, without the GIL."""
    cdef int32_t n = layouts.shape[0]
    if layouts.shape[1] != 6 or values.shape[0] != 3 or values.shape[1] != n or values.shape[2] != n:
        raise _field_error(_NardyError, "table", "arrays and rules do not agree", (n, values.shape[0], values.shape[1]))
    _bo_rules(n, extra_roll, ladder)
    _bo_fill(layouts, extra_roll, ladder, &values[0, 0, 0], 1)
