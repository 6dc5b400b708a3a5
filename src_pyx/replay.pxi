# The replay of written moves (nardy_fast.matfast): each game's plies matched to their legal moves in C, as
# nardy_fast.records.find_move matches them one at a time in Python (a file of thousands of games holds some
# hundred thousand plies, and a Python call per ply was most of the reading's time).
# Uses: tables, memory, gate, rules, search, results, api_moves.
# Offers: nothing.

cdef enum:
    MAX_WRITTEN = 16   # written pairs of one ply the kernel compares; more is the caller's slow path


cdef inline void step_pair(uint16_t code, int *src, int *dst) noexcept nogil:
    """A step code's (from, to) in the mover's numbering, as ``rows.step_object`` reads it."""
    cdef int die = (code >> 5) & 7, special = (code >> 8) & 1
    src[0] = code & 31
    dst[0] = src[0] - die
    if dst[0] < 0 or (src[0] == HEAD and special):
        dst[0] = die if special else 0


cdef void sort_pairs(int *src, int *dst, int n, bint canonical) noexcept nogil:
    """Insertion sort of ``n`` pairs: ``canonical``, by (from, from - to) from the highest, the order of
    ``find_move``'s first comparison; else by (from, to) from the lowest, a multiset's order."""
    cdef int i, j, s, d
    cdef bint before
    for i in range(1, n):
        s = src[i]
        d = dst[i]
        j = i - 1
        while j >= 0:
            if canonical:
                before = src[j] < s or (src[j] == s and src[j] - dst[j] < s - d)
            else:
                before = src[j] > s or (src[j] == s and dst[j] > d)
            if not before:
                break
            src[j + 1] = src[j]
            dst[j + 1] = dst[j]
            j -= 1
        src[j + 1] = s
        dst[j + 1] = d


cdef int match_written(const Gen *g, int count, const int *ws, const int *wd, int n) noexcept nogil:
    """The index of the first result whose canonical steps are the written pairs in the canonical order, else
    of the first whose steps are the same pairs in another order (``find_move``'s two comparisons), else -1.
    ``ws``, ``wd``: the pairs sorted canonically."""
    cdef int i, s, level = g.best
    cdef int ms[MAX_WRITTEN]
    cdef int md[MAX_WRITTEN]
    cdef int os[MAX_WRITTEN]
    cdef int od[MAX_WRITTEN]
    cdef const uint16_t *codes
    if level != n:  # neither comparison matches a move of another number of steps
        return -1
    for i in range(count):
        codes = &g.steps[i * g.ndice]
        for s in range(level):
            step_pair(codes[s], &ms[s], &md[s])
            if ms[s] != ws[s] or md[s] != wd[s]:
                break
        else:
            return i
    for s in range(n):
        os[s] = ws[s]
        od[s] = wd[s]
    sort_pairs(os, od, n, False)
    for i in range(count):
        codes = &g.steps[i * g.ndice]
        for s in range(level):
            step_pair(codes[s], &ms[s], &md[s])
        sort_pairs(ms, md, level, False)
        for s in range(level):
            if ms[s] != os[s] or md[s] != od[s]:
                break
        else:
            return i
    return -1


def replay_plies(const int8_t[:, ::1] starts, const int64_t[::1] first, const int64_t[::1] last,
                 const int8_t[:, ::1] rolls, const int8_t[:, ::1] pairs, const int8_t[::1] npairs,
                 int8_t[:, ::1] results, uint16_t[:, ::1] steps, int8_t[::1] levels, int64_t[::1] stops):
    """Replay game ``k`` from the checked row ``starts[k]`` through plies ``first[k]`` up to ``last[k]`` of
    the ply arrays: ply ``j`` rolled ``rolls[j]`` (two dice 1..6) and was written as ``npairs[j]`` pairs
    (from, to), ``pairs[j, 2 * i]`` and ``pairs[j, 2 * i + 1]``, in the mover's numbering. Each ply's legal
    move is the one ``nardy_fast.records.find_move`` finds by comparing steps; its result goes to
    ``results[j]``, its canonical step codes (``src | die << 5 | special << 8 | hit << 9``) to ``steps[j]``
    and their number to ``levels[j]``. ``stops[k]`` is -1 when every ply was matched, else the first ply the
    kernel leaves to the caller: a finished game, a pending list, a roll it does not take, no move of those
    steps (a split of the dice other than the written one, an illegal move), more pairs or steps than the
    arrays hold. A search out of memory, or interrupted, raises."""
    cdef Py_ssize_t games = starts.shape[0], k
    cdef int64_t j, stop
    cdef int count, n, s, index, d1, d2, extra, width = steps.shape[1], failed = 0
    cdef int ws[MAX_WRITTEN]
    cdef int wd[MAX_WRITTEN]
    cdef Pos p, child
    cdef Result made
    cdef Generator workspace
    cdef Gen *g
    if (starts.shape[1] != WIDTH or results.shape[1] != WIDTH or rolls.shape[1] != 2 or first.shape[0] != games
            or last.shape[0] != games or stops.shape[0] != games or pairs.shape[1] < 2 * MAX_WRITTEN
            or rolls.shape[0] != pairs.shape[0] or rolls.shape[0] != npairs.shape[0]
            or rolls.shape[0] != results.shape[0] or rolls.shape[0] != steps.shape[0]
            or rolls.shape[0] != levels.shape[0]):
        raise _field_error(_NardyError, "replay_plies", "the arrays' shapes do not agree", None)
    for k in range(games):
        if not (0 <= first[k] <= last[k] <= rolls.shape[0]):
            raise _field_error(_NardyError, "replay_plies", "a game's plies are out of range", k)
    workspace = take_workspace(0)
    g = workspace.g
    try:
        with nogil:
            for k in range(games):
                memcpy(&p, &starts[k, 0], sizeof(Pos))
                stop = -1 if pos_ok(&p) else first[k]
                j = first[k]
                while stop < 0 and j < last[k]:
                    d1 = rolls[j, 0]
                    d2 = rolls[j, 1]
                    n = npairs[j]
                    if is_over(&p) or p.npending or not (1 <= d1 <= 6 and 1 <= d2 <= 6) or not 0 <= n <= MAX_WRITTEN:
                        stop = j
                        break
                    for s in range(n):
                        ws[s] = pairs[j, 2 * s]
                        wd[s] = pairs[j, 2 * s + 1]
                    sort_pairs(ws, wd, n, True)
                    setup(g, &p, d1, d2)
                    g.want_steps = 1
                    count = search(g)
                    if count < 0:  # no memory, or Ctrl-C: raised below, the replay given up
                        failed = count
                        break
                    index = match_written(g, count, ws, wd, n)
                    if index < 0 or g.best > width:
                        stop = j
                        break
                    # the matched result's row alone (write_results would make every result's)
                    result_pos(g, &p, result_at(g, index, &made), d1, d2, &child, &extra)
                    memcpy(&p, &child, sizeof(Pos))
                    memcpy(&results[j, 0], &p, sizeof(Pos))
                    for s in range(g.best):
                        steps[j, s] = g.steps[index * g.ndice + s]
                    levels[j] = g.best
                    j += 1
                stops[k] = stop
                if failed:
                    break
    finally:
        give_back(workspace)
    search_status(failed, 0)
