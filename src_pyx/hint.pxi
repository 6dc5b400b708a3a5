# The n-ply search over the built-in evaluators (docs/rules.md, Evaluation and search), the twin of the shared
# NumPy search: value(row, d), choose(row, roll, d) and the ranking of a hint, in C without the GIL or a Python
# object; greedy playouts (games.pxi) play the first move of the same ranking.
# Uses: tables, memory, gate, rules, search, results, api_batch, api_moves, bearoff, evaluate.
# Offers: hint_rank, hint_status, search_open, search_close, value0, value_of.

from nardy_fast.bearoff.semantics import ROLL_ORDER as _ROLL_ORDER
from nardy_fast.bearoff.semantics import ROLL_WEIGHTS as _ROLL_WEIGHTS
from nardy_fast.evaluation.constants import INNER_FILTER as _INNER_FILTER
from nardy_fast.evaluation.constants import MAX_PLIES as _SEARCH_MAX_PLIES
from nardy_fast.evaluation.constants import TOP_FILTER as _TOP_FILTER

cdef enum:
    NROLLS = 21
    HINT_LEVELS = 16        # room for the workspaces of one search (search_levels(SEARCH_MAX_PLIES) of them)
    FILTER_ROOM = 64        # room for the candidates a move filter keeps
    # a search that would need more workspaces than it took (search_levels): a pending list whose moves leave
    # another pending list, which the rules never make (docs/rules.md, Gulbar transfers: a segment leaves no
    # remainder)
    E_SEARCH_DEPTH = -5
    # workspaces beyond one per ply and pending list, for that case
    PENDING_ALLOWANCE = 2

# the rolls of a ply in the order their values are summed, and their weights in 36
cdef int ROLL_D1[NROLLS]
cdef int ROLL_D2[NROLLS]
cdef double ROLL_W[NROLLS]
for _i, (_a, _b) in enumerate(_ROLL_ORDER):
    ROLL_D1[_i] = _a
    ROLL_D2[_i] = _b
    ROLL_W[_i] = _ROLL_WEIGHTS[_i]
if len(_ROLL_ORDER) != NROLLS:
    raise ImportError("nardy_fast.bearoff.semantics.ROLL_ORDER does not hold the 21 rolls")

# the move filters (nardy_fast.evaluation.search)
cdef int SEARCH_MAX_PLIES = _SEARCH_MAX_PLIES
cdef int TOP_KEEP = _TOP_FILTER.keep
cdef double TOP_WIDTH = _TOP_FILTER.width
cdef int INNER_KEEP = _INNER_FILTER.keep
cdef double INNER_WIDTH = _INNER_FILTER.width
if not (1 <= TOP_KEEP <= FILTER_ROOM and 1 <= INNER_KEEP <= FILTER_ROOM
        and 2 * SEARCH_MAX_PLIES + 1 + PENDING_ALLOWANCE <= HINT_LEVELS):
    raise ImportError("the move filters or MAX_PLIES of nardy_fast.evaluation.search exceed the core's room")


cdef struct SearchLevel:
    # one level of the recursion: its own move generator, and the children of its row copied out of it (a
    # deeper level searches with another generator while these are being valued)
    Gen *g
    Pos *rows
    double *probs          # 5 per child: a value of the child seen from the row's side to move
    double *eq             # the equity of those
    int8_t *reached        # the plies the value was searched to (the top level: a hint's plies_reached)
    int32_t cap


cdef struct SearchCtx:
    Evaluator e
    int nlevels            # the workspaces taken
    int level              # the levels in use
    SearchLevel lv[HINT_LEVELS]
    Pos failed             # the position the evaluator could not value (E_EVALUATOR)


cdef inline int search_levels(int plies) noexcept nogil:
    """The workspaces a search of ``plies`` takes: the hint's own, one per ply, one per pending list played on
    the way (at most one per ply) and the allowance."""
    return 1 + 2 * plies + PENDING_ALLOWANCE


cdef int search_open(SearchCtx *s, list held, int kind, object tables, int plies) except -1:
    """Set ``s`` up for searches of up to ``plies`` with evaluator ``kind`` (``evaluator_from``), taking its
    workspaces into ``held`` (``search_close`` gives them back, also after a failure here)."""
    cdef Generator workspace
    cdef int i
    memset(s, 0, sizeof(SearchCtx))
    evaluator_from(&s.e, kind, tables)
    if not 0 <= plies <= SEARCH_MAX_PLIES:
        raise _field_error(_NardyError, "plies", f"must be one of {tuple(range(SEARCH_MAX_PLIES + 1))}", plies)
    for i in range(search_levels(plies)):
        workspace = take_workspace(0)
        held.append(workspace)
        s.lv[i].g = workspace.g
        s.nlevels = i + 1
    return 0


cdef void search_close(SearchCtx *s, list held) noexcept:
    """Free the children buffers of ``s`` and give its workspaces back."""
    cdef Generator workspace
    cdef int i
    for i in range(HINT_LEVELS):
        free(s.lv[i].rows)
        free(s.lv[i].probs)
        free(s.lv[i].eq)
        free(s.lv[i].reached)
        s.lv[i].rows = NULL
        s.lv[i].probs = NULL
        s.lv[i].eq = NULL
        s.lv[i].reached = NULL
        s.lv[i].cap = 0
        s.lv[i].g = NULL
    s.nlevels = 0
    for workspace in held:
        give_back(workspace)
    del held[:]


cdef int level_children(SearchLevel *L, const Pos *p, int d1, int d2) noexcept nogil:
    """The children of the unfinished ``p`` for ``d1-d2`` (0-0: its pending list), in legal_moves order, into
    ``L.rows``: their number (one, "no move", when nothing can be played), or an ``E_*`` code."""
    cdef int32_t count, cap
    setup(L.g, p, d1, d2)
    count = search(L.g)
    if count < 0:
        return count
    if count > L.cap:
        cap = <int32_t> grown(L.cap, count, 64)
        if (resized(<void **> &L.rows, cap, sizeof(Pos)) < 0 or resized(<void **> &L.probs, cap, 5 * sizeof(double)) < 0
                or resized(<void **> &L.eq, cap, sizeof(double)) < 0 or resized(<void **> &L.reached, cap, 1) < 0):
            return E_MEMORY
        L.cap = cap
    write_results(L.g, p, d1, d2, L.rows, NULL, NULL)
    return count


cdef inline void view_into(const Pos *p, const Pos *c, const double *v, double *out) noexcept nogil:
    """view(c, v): values ``v`` of child ``c`` (for its side to move) seen by ``p``'s side to move."""
    if c.turn == p.turn:
        memcpy(out, v, 5 * sizeof(double))
    else:
        flip_into(v, out)


cdef inline int value0(SearchCtx *s, const Pos *parent, const Pos *p, double *out) noexcept nogil:
    """value(p, 0) of a child of ``parent`` (NULL: none known): a finished game's outcome, else the
    evaluator's values (``s.failed`` records a position it cannot value). An evaluator whose facts say
    ``by_parent`` (pubeval) weighs the children of a position by that position (its weight set, as Tesauro's
    program does: nardy_fast.evaluation.pubeval)."""
    cdef int status
    s.e.parent_race = -1
    if parent != NULL and EVAL_BY_PARENT[s.e.kind]:
        s.e.parent_race = 1 if pos_is_race(parent) else 0
    status = evaluate_pos(&s.e, p, out)
    if status < 0:
        memcpy(&s.failed, p, sizeof(Pos))
    return status


cdef int32_t next_ranked(const double *eq, int32_t n, int32_t after) noexcept nogil:
    """The child ranked right after child ``after`` (-1: the first) by equity, best first, equal equities the
    earlier child first; -1 when none is."""
    cdef int32_t j, best = -1
    cdef double top = eq[after] if after >= 0 else 0.0
    for j in range(n):
        if after >= 0 and not (eq[j] < top or (eq[j] == top and j > after)):
            continue
        if best < 0 or eq[j] > eq[best]:
            best = j
    return best


cdef int filtered(const double *eq, int32_t n, int keep, double width, int32_t *out) noexcept nogil:
    """A move filter (nardy_fast.evaluation.search.MoveFilter) on the 0-ply equities ``eq``: into ``out``, the
    best child and the next ones in rank, up to ``keep`` in all, whose equity is within ``width`` of the best's
    (``best - equity <= width``); returns their number."""
    cdef int count = 1
    cdef int32_t j
    out[0] = next_ranked(eq, n, -1)
    while count < keep:
        j = next_ranked(eq, n, out[count - 1])
        if j < 0 or not (eq[out[0]] - eq[j] <= width):
            break
        out[count] = j
        count += 1
    return count


cdef int choose(SearchCtx *s, const Pos *p, int d1, int d2, int depth, double *out) noexcept nogil:
    """choose(p, d1-d2, depth) (0-0: the pending list) into ``out``, seen by ``p``'s side to move: the view of
    the best child's 0-ply value at depth 0; deeper, of the best by value(c, depth) among the INNER filter's
    candidates (equal equities: the earlier child). 0 or an ``E_*`` code."""
    cdef SearchLevel *L
    cdef int32_t n, i, j, best = 0
    cdef int status = 0, ncand, k
    cdef int32_t cand[FILTER_ROOM]
    cdef double v[5]
    cdef double w[5]
    cdef double e, best_eq = 0.0
    if s.level >= s.nlevels:
        return E_SEARCH_DEPTH
    L = &s.lv[s.level]
    n = level_children(L, p, d1, d2)
    if n < 0:
        return n
    s.level += 1
    for i in range(n):
        status = value0(s, p, &L.rows[i], v)
        if status < 0:
            break
        view_into(p, &L.rows[i], v, &L.probs[5 * i])
        L.eq[i] = equity_of(&L.probs[5 * i])
    if status >= 0 and depth == 0:
        best = next_ranked(L.eq, n, -1)
        memcpy(out, &L.probs[5 * best], 5 * sizeof(double))
    elif status >= 0:
        ncand = filtered(L.eq, n, INNER_KEEP, INNER_WIDTH, cand)
        best = -1
        for k in range(ncand):
            j = cand[k]
            status = value_of(s, &L.rows[j], depth, v)
            if status < 0:
                break
            view_into(p, &L.rows[j], v, w)
            e = equity_of(w)
            if best < 0 or e > best_eq or (e == best_eq and j < best):
                best = j
                best_eq = e
                memcpy(out, w, 5 * sizeof(double))
    s.level -= 1
    return status if status < 0 else 0


cdef int value_of(SearchCtx *s, const Pos *p, int depth, double *out) noexcept nogil:
    """value(p, depth) for the side to move of ``p`` into ``out``: a finished game's outcome; the evaluator's
    values at depth 0; a pending list's choose (a transfer is not a ply); else the mean over the 21 rolls of
    choose(p, roll, depth - 1), summed in ROLL_ORDER and divided by 36. 0 or an ``E_*`` code."""
    cdef double acc[5]
    cdef double v[5]
    cdef int r, k, status
    if depth == 0 or is_over(p):
        return value0(s, NULL, p, out)
    if p.npending:
        return choose(s, p, 0, 0, depth, out)
    memset(acc, 0, 5 * sizeof(double))
    for r in range(NROLLS):
        status = choose(s, p, ROLL_D1[r], ROLL_D2[r], depth - 1, v)
        if status < 0:
            return status
        for k in range(5):
            acc[k] += ROLL_W[r] * v[k]
    for k in range(5):
        out[k] = acc[k] / 36.0
    return 0


cdef int hint_rank(SearchCtx *s, const Pos *p, int d1, int d2, int plies, int32_t *best) noexcept nogil:
    """A hint of the unfinished ``p`` for ``d1-d2`` (0-0: its pending list) at ``plies`` into the top level
    ``s.lv[0]``: every child, its value seen by ``p``'s side to move and the plies it was searched to (at 2
    plies and more, only the TOP filter's candidates; the others keep their 0-ply value, 0). ``best``: the
    first move of the hint's ranking (searched deepest first, then by equity, equal equities the earlier
    child). Returns the number of children or an ``E_*`` code."""
    cdef SearchLevel *L = &s.lv[0]
    cdef int32_t n, i, j
    cdef int status = 0, ncand, k
    cdef int32_t cand[FILTER_ROOM]
    cdef double v[5]
    s.level = 0
    n = level_children(L, p, d1, d2)
    if n < 0:
        return n
    s.level = 1
    for i in range(n):
        status = value_of(s, &L.rows[i], 1, v) if plies == 1 else value0(s, p, &L.rows[i], v)
        if status < 0:
            break
        view_into(p, &L.rows[i], v, &L.probs[5 * i])
        L.eq[i] = equity_of(&L.probs[5 * i])
        L.reached[i] = <int8_t> (plies == 1)
    if status >= 0 and plies >= 2:
        ncand = filtered(L.eq, n, TOP_KEEP, TOP_WIDTH, cand)
        for k in range(ncand):
            j = cand[k]
            status = value_of(s, &L.rows[j], plies, v)
            if status < 0:
                break
            view_into(p, &L.rows[j], v, &L.probs[5 * j])
            L.eq[j] = equity_of(&L.probs[5 * j])
            L.reached[j] = <int8_t> plies
    s.level = 0
    if status < 0:
        return status
    best[0] = 0
    for i in range(1, n):
        j = best[0]
        if L.reached[i] > L.reached[j] or (L.reached[i] == L.reached[j] and L.eq[i] > L.eq[j]):
            best[0] = i
    return n


cdef int hint_status(int status, const SearchCtx *s) except -1:
    """Raise for a failed search (``search_status``), or one whose evaluator could not value a position it
    reached."""
    if status == E_EVALUATOR:
        row = np.frombuffer((<char *> &s.failed)[:sizeof(Pos)], dtype=np.int8)
        from nardy_fast.notation import format_position
        raise _field_error(_NardyError, "evaluator", "cannot value a position the search reached",
                           format_position(_layout.unpack(row)))
    if status == E_SEARCH_DEPTH:
        raise _field_error(_NardyError, "plies", "reach a chain of pending lists deeper than the search allows",
                           s.nlevels)
    return search_status(status, 0)


def hint_values(const int8_t[::1] row, int d1, int d2, int plies, int kind, object tables):
    """Every legal move of the packed ``row`` for the roll ``d1-d2`` (0-0: its pending list) valued at ``plies``
    with built-in evaluator ``kind`` (``tables``: see ``evaluator_from``), without the GIL: ``(children (k, 64)
    int8, probabilities (k, 5) float64, plies_reached (k,) int8)``, children in legal_moves order, each one's
    probabilities seen by the row's side to move, plies_reached ``plies`` or, for a move the TOP filter cut, 0.
    A finished game has no moves (k = 0)."""
    cdef Pos p
    cdef SearchCtx s
    cdef list held = []
    cdef int32_t n = 0, best = 0
    cdef cnp.npy_intp dims[2]
    if row.shape[0] != WIDTH:
        raise _field_error(_NardyError, "row", "must have 64 columns", row.shape[0])
    memcpy(&p, &row[0], sizeof(Pos))
    if not pos_ok(&p):
        raise _field_error(_InvalidPositionError, "row", "is not a valid position", bytes(row))
    if not roll_ok(&p, d1, d2):
        raise _field_error(_InvalidDiceError, "dice", "is not a roll of this position", (d1, d2))
    try:
        search_open(&s, held, kind, tables, plies)
        if not is_over(&p):
            with nogil:
                n = hint_rank(&s, &p, d1, d2, plies, &best)
            if n < 0:
                hint_status(n, &s)
        dims[0] = n
        dims[1] = WIDTH
        children = cnp.PyArray_SimpleNew(2, dims, cnp.NPY_INT8)
        dims[1] = 5
        probabilities = cnp.PyArray_SimpleNew(2, dims, cnp.NPY_FLOAT64)
        reached = cnp.PyArray_SimpleNew(1, dims, cnp.NPY_INT8)
        if n:
            memcpy(cnp.PyArray_DATA(children), s.lv[0].rows, n * sizeof(Pos))
            memcpy(cnp.PyArray_DATA(probabilities), s.lv[0].probs, n * 5 * sizeof(double))
            memcpy(cnp.PyArray_DATA(reached), s.lv[0].reached, n)
        return children, probabilities, reached
    finally:
        search_close(&s, held)
