# perft over packed positions, without Python objects or the GIL.
# Uses: memory, rules, search, results, rows, api_moves.
# Offers: nothing.


cdef int64_t perft_roll(Gen *g, const Pos *p, int d1, int d2, int depth) noexcept nogil:
    """perft below one roll (0-0: the pending list); an ``E_*`` code (< 0) when the search stopped. Recursion
    goes at most ``MAX_PERFT_DEPTH`` deep, which the caller checks."""
    cdef int64_t total = 0, sub
    cdef int count, i
    cdef Pos *children
    setup(g, p, d1, d2)
    count = search(g)
    if count < 0 or depth == 1:
        return count
    children = <Pos *> malloc(count * sizeof(Pos))
    if children == NULL:
        return -1
    write_results(g, p, d1, d2, children, NULL, NULL)
    for i in range(count):
        sub = perft_pos(g, &children[i], depth - 1)
        if sub < 0:
            total = sub
            break
        total += sub
    free(children)
    return total


cdef int64_t perft_pos(Gen *g, const Pos *p, int depth) noexcept nogil:
    """perft over packed positions: the 21 rolls, or the pending list alone; an ``E_*`` code when the search
    stopped."""
    cdef int64_t total = 0, sub
    cdef int a, b
    if depth == 0:
        return 1
    if is_over(p):
        return 0
    if p.npending:
        return perft_roll(g, p, 0, 0, depth)
    for a in range(6, 0, -1):
        for b in range(a, 0, -1):
            sub = perft_roll(g, p, a, b, depth)
            if sub < 0:
                return sub
            total += sub
    return total


def perft(state, depth):
    """perft of a ``State`` (see :func:`nardy_fast.perft`), computed without Python objects and without the
    GIL; Ctrl-C stops it."""
    cdef Pos p
    cdef int64_t total
    cdef int levels
    cdef Generator workspace
    levels = _check_depth(depth)
    pack(state, &p)
    workspace = take_workspace(0)
    try:
        with nogil:
            total = perft_pos(workspace.g, &p, levels)
        search_status(<int> total if total < 0 else 0, 0)
    finally:
        give_back(workspace)
    return total
