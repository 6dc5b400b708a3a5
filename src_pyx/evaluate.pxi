# The evaluator seam in C (docs/rules.md, Evaluation): one call that values a position for its side to move
# with the five probabilities of nardy_fast.evaluation.OUTPUTS, whichever built-in evaluator it is (its twin,
# by kind, from twins.pxi: the seam names none), the composite "net" (dispatching each position by its
# class), and the batch entry points over packed rows.
# Uses: tables, memory, gate, results, api_moves, bearoff, race_eval, twins.
# Offers: evaluate_pos, evaluator_from, equity_of, flip_into.

from nardy_fast.evaluation import classes as _classes
from nardy_fast.evaluation.constants import CHECK_ONLY as _CHECK_ONLY

# the kind that asks evaluate_rows only to check its rows (nardy_fast.evaluation.evaluators.CHECK_ONLY)
cdef int EVAL_CHECK_ONLY = _CHECK_ONLY
# by kind, the facts the seam reads (nardy_fast.evaluation.outcomes.BuiltinFacts): whether the evaluator weighs
# a move by the position before it, and whether a composite may value contact with it
cdef bint EVAL_BY_PARENT[MAX_KINDS]
cdef bint EVAL_CONTACT[MAX_KINDS]

# the position classes (nardy_fast.evaluation.classes)
cdef int CLASS_OVER = _classes.OVER
cdef int CLASS_BEAROFF = _classes.BEAROFF
cdef int CLASS_RACE = _classes.RACE
cdef int CLASS_CONTACT = _classes.CONTACT
cdef int CLASS_TWO_SIDED = _classes.TWO_SIDED_CHECKERS


cdef void terminal_probabilities(const Pos *p, double *out) noexcept nogil:
    """A finished game's outcome for its side to move: certain, by who bore off all and the points scored
    (docs/rules.md, Game end and scoring)."""
    cdef int winner = 0 if p.off[0] == 15 else 1
    cdef int points = game_points(p)
    cdef int at = 0 if winner == p.turn else 3
    memset(out, 0, 5 * sizeof(double))
    if at == 0:
        out[0] = 1.0
        out[1] = 1.0 if points >= 2 else 0.0
        out[2] = 1.0 if points >= 3 else 0.0
    else:
        out[3] = 1.0 if points >= 2 else 0.0
        out[4] = 1.0 if points >= 3 else 0.0


cdef int position_class(const Pos *p) noexcept nogil:
    """The class of the valid ``p`` (nardy_fast.evaluation.classes; docs/rules.md, Evaluation, Position
    classes): over, a bear-off inside the exact two-sided tables, a race, or contact."""
    if is_over(p):
        return CLASS_OVER
    if not pos_is_race(p):
        return CLASS_CONTACT
    if (15 - p.off[0] <= CLASS_TWO_SIDED and 15 - p.off[1] <= CLASS_TWO_SIDED and p.npending == 0
            and pos_is_bearoff(p)):
        return CLASS_BEAROFF
    return CLASS_RACE


cdef int evaluate_pos(const Evaluator *e, const Pos *p, double *out) noexcept nogil:
    """``out[0..4]`` for the side to move of ``p``: the outcome of a finished game, else the values of the
    evaluator's twin (twins.pxi); 0, or ``E_EVALUATOR`` where the evaluator cannot value ``p``."""
    if is_over(p):
        terminal_probabilities(p, out)
        return 0
    return TWIN_EVALUATE[e.kind](e, p, out)


cdef int composite_evaluate(const Evaluator *e, const Pos *p, double *out) noexcept nogil:
    """The composite "net" of the unfinished ``p``: the race evaluator's values in the bear-off and race
    classes (its exact two-sided table in the first), its contact part's in contact."""
    if position_class(p) != CLASS_CONTACT:
        return race_evaluate(e, p, out)
    return TWIN_EVALUATE[e.contact](e, p, out)


cdef inline double equity_of(const double *v) noexcept nogil:
    """``nardy_fast.evaluation.equity`` of one row."""
    return 2.0 * v[0] - 1.0 + v[1] + v[2] - v[3] - v[4]


cdef inline void flip_into(const double *v, double *out) noexcept nogil:
    """``nardy_fast.evaluation.outcomes.flipped`` of one row (``out`` may not be ``v``)."""
    out[0] = 1.0 - v[0]
    out[1] = v[3]
    out[2] = v[4]
    out[3] = v[1]
    out[4] = v[2]


cdef int evaluator_from(Evaluator *e, int kind, object tables) except -1:
    """Fill ``e`` for evaluator ``kind`` with what its twin's ``tables_from`` reads of ``tables`` (twins.pxi;
    nardy_fast.evaluation.evaluators.tables_for): for the race evaluator ``None`` or ``(dist, dist_first,
    two_win)``, C-contiguous float64 arrays the caller keeps alive while ``e`` is used (``two_win`` may be
    ``None``); for pubeval, whether the positions before the moves were races (the weight set to use:
    nardy_fast.evaluation.pubeval); for the network, its weights (``network_from``); for the composite,
    ``(race tables, contact kind, contact tables)``, its contact part one a composite may value contact with."""
    memset(e, 0, sizeof(Evaluator))
    if not 0 <= kind < len(_EVALUATORS):
        raise _field_error(_NardyError, "evaluator", "is not a built-in evaluator", kind)
    e.kind = kind
    e.parent_race = -1
    if TWIN_FROM[kind] == NULL:
        return 0
    return TWIN_FROM[kind](e, tables)


cdef int composite_from(Evaluator *e, object tables) except -1:
    """Point ``e`` at the composite's ``(race tables, contact kind, contact tables)``."""
    # a tuple of the caller's keeps the arrays alive while e points into them (an iterable might not)
    if type(tables) is not tuple or len(<tuple> tables) != 3:
        raise _field_error(_NardyError, "tables", "are not the composite's tables", type(tables).__name__)
    race, contact, contact_tables = <tuple> tables
    if type(contact) is not int or not 0 <= contact < len(_EVALUATORS) or not EVAL_CONTACT[<int> contact]:
        raise _field_error(_NardyError, "tables", "name no evaluator a composite values contact with", contact)
    e.contact = contact
    if TWIN_FROM[e.contact] != NULL:
        TWIN_FROM[e.contact](e, contact_tables)
    return race_from(e, race)


register_twin("net", composite_evaluate, composite_from)


cdef void _init_seam() except *:
    cdef int kind
    for kind in range(len(_BUILTINS)):
        if TWIN_EVALUATE[kind] == NULL:
            raise ImportError(f"nardy_fast._core: the built-in evaluator {_EVALUATORS[kind]!r} has no C twin")
        EVAL_BY_PARENT[kind] = _BUILTINS[kind].by_parent
        EVAL_CONTACT[kind] = _BUILTINS[kind].contact


_init_seam()


cdef inline uint64_t work_of_evaluator(const Evaluator *e) noexcept nogil:
    """The units of work (``LOOK_WORK``'s, about 20 ns) of valuing one row with ``e``: a network's cost grows
    with its hidden units (512 of them, 3.6 us a row), the other evaluators' is about 0.3 us."""
    return 16 + <uint64_t> e.hidden // 4 if e.hidden else 16


def evaluate_rows(const int8_t[:, ::1] rows, int kind, object tables, double[:, ::1] out):
    """Evaluate checked rows (N, 64) with built-in evaluator ``kind`` into ``out`` (N, 5), without the GIL:
    -1, or the index of the first row the evaluator cannot value. The rows are read once each, into memory of
    our own, so a row changed meanwhile by another thread is valued as read or is an error, never a crash.
    ``kind`` ``EVAL_CHECK_ONLY`` values nothing: -1, or the first row that fails the gate (``pos_ok``). A
    signal handler's exception (Ctrl-C) is raised within a few tens of milliseconds, whatever N."""
    cdef Evaluator e
    cdef Pos p
    cdef Py_ssize_t n = rows.shape[0], i = 0
    cdef int status = 0
    cdef bint check_only = kind == EVAL_CHECK_ONLY
    cdef uint64_t work = 0, cost = 1
    if rows.shape[1] != WIDTH or out.shape[0] != n or out.shape[1] != 5:
        raise _field_error(_NardyError, "rows", "and out do not agree", (n, out.shape[0]))
    if not check_only:
        evaluator_from(&e, kind, tables)
        cost = work_of_evaluator(&e)
    with nogil:
        for i in range(n):
            work += cost
            if work >= LOOK_WORK:
                work = 0
                if signals_raised() < 0:
                    status = E_SIGNAL
                    break
            memcpy(&p, &rows[i, 0], sizeof(Pos))
            if not pos_ok(&p):
                status = E_EVALUATOR
            elif not check_only:
                status = evaluate_pos(&e, &p, &out[i, 0])
            if status < 0:
                break
    if status == E_SIGNAL:
        raise_set()
    return i if status < 0 else -1


def classify_rows(const int8_t[:, ::1] rows, int8_t[::1] out):
    """The class of each checked row (N, 64) into ``out`` (N,) (``position_class``; the numbers of
    nardy_fast.evaluation.classes.CLASSES), without the GIL: -1, or the index of the first row that fails the
    gate (``pos_ok``)."""
    cdef Pos p
    cdef Py_ssize_t n = rows.shape[0], i = 0
    cdef int status = 0
    if rows.shape[1] != WIDTH or out.shape[0] != n:
        raise _field_error(_NardyError, "rows", "and out do not agree", (n, out.shape[0]))
    with nogil:
        for i in range(n):
            memcpy(&p, &rows[i, 0], sizeof(Pos))
            if not pos_ok(&p):
                status = E_EVALUATOR
                break
            out[i] = <int8_t> position_class(&p)
    return i if status < 0 else -1
