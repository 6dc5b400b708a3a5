# The entry point of both searches: search picks the depth-first search (few dice, no level bound) or the
# level-by-level one (ladders, per-step block checks, max_results), then applies the higher-die rule (D) to
# the results of either. After both searches, so that neither calls forward.
# Uses: tables, memory, levels, depth_first.
# Offers: search.


cdef void higher_die(Gen *g) noexcept nogil:
    """(D) docs/rules.md, Higher die, for the results of either search: with two different values of which
    only one can be played, the higher. When some one-step result played the higher value (``used == 1``), the
    others go."""
    cdef int32_t i, kept = 0
    cdef bint any_high = False
    if g.ordered or g.best != 1:
        return
    for i in range(g.nres):
        if g.res[i].used == 1:
            any_high = True
            break
    if any_high:
        for i in range(g.nres):
            if g.res[i].used == 1:
                g.res[kept] = g.res[i]
                g.steps[kept * g.ndice] = g.steps[i * g.ndice]  # walked by both searches: not ordered
                kept += 1
        g.nres = kept


cdef int search(Gen *g) noexcept nogil:
    """Find the legal moves (docs/rules.md, Maximal use of the dice to Canonical step order) from the board
    ``setup`` made: fills ``g.res`` with the distinct results, in order of their canonical steps
    (``g.steps``), all of ``g.best`` steps.

    Returns the number of results, or an ``E_*`` code (< 0). Bounded by ``g.limit`` (max_results), counted in
    the levels of ``levels_search``: the depth-first search, whose levels are never that large, serves only
    searches without a limit below ``DFS_LEVEL_BOUND``.
    """
    cdef int status
    g.plain = NULL
    if tick(g) < 0:
        return E_SIGNAL
    if g.ndice <= 4 and not g.per_step and (g.limit == 0 or g.limit >= DFS_LEVEL_BOUND):
        if depth_first_search(g) < 0:
            return E_MEMORY
    else:
        status = levels_search(g)
        if status < 0:
            return status
    higher_die(g)
    return g.nres
