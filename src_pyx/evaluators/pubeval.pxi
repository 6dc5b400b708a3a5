# Tesauro's pubeval, the built-in evaluator "pubeval" of short nardy (docs/rules.md, Evaluation): the twin of
# nardy_fast.reference.pubeval. The weights, the encoding, the choice of weight set and the map to the outputs
# are nardy_fast.evaluation.pubeval's (its docstring); the terms are its own doubles, copied at import, and
# are added here in its order, so that both implementations give the same bits.
# Uses: bearoff, twins.
# Offers: nothing.

from libc.math cimport exp

from nardy_fast.evaluation.pubeval import BAR_TERMS as _PUB_BAR_TERMS
from nardy_fast.evaluation.pubeval import MAX_COUNT as _PUB_MAX_COUNT
from nardy_fast.evaluation.pubeval import OFF_TERMS as _PUB_OFF_TERMS
from nardy_fast.evaluation.pubeval import POINT_TERMS as _PUB_POINT_TERMS
from nardy_fast.evaluation.pubeval import SCALE as _PUB_SCALE

cdef enum:
    PUB_COUNTS = 31  # counts -15..15 on a point

# [weight set: 0 contact, 1 race][block k = our point 24 - k][count + 15], and [set][checkers]
cdef double PUB_POINT[2][24][PUB_COUNTS]
cdef double PUB_BAR[2][16]
cdef double PUB_OFF[2][16]
cdef double PUB_SCALE = _PUB_SCALE


cdef void _init_pubeval() except *:
    cdef int s, k, c
    if _PUB_MAX_COUNT != 15 or len(_PUB_POINT_TERMS) != 2:
        raise ImportError("nardy_fast._core: pubeval's tables are not the shape of the core's copy")
    for s in range(2):
        for k in range(24):
            for c in range(PUB_COUNTS):
                PUB_POINT[s][k][c] = _PUB_POINT_TERMS[s][k][c]
        for c in range(16):
            PUB_BAR[s][c] = _PUB_BAR_TERMS[s][c]
            PUB_OFF[s][c] = _PUB_OFF_TERMS[s][c]


_init_pubeval()


cdef int pubeval_evaluate(const Evaluator *e, const Pos *p, double *out) noexcept nogil:
    """``out[0..4]`` for the side to move of the unfinished short nardy position ``p``: ``win`` the logistic
    of minus the score of the side that has just moved ("we") over PUB_SCALE, no mars, no koks; always 0."""
    cdef int we = 1 - p.turn
    cdef int s = e.parent_race if e.parent_race >= 0 else (1 if pos_is_race(p) else 0)
    cdef int k, point, n
    cdef double score = 0.0
    for k in range(24):
        point = 24 - k  # our point; White's point is ours for White, 25 - ours for Black (short nardy)
        if we == 0:
            n = p.board[point - 1]
        else:
            n = -p.board[24 - point]
        score += PUB_POINT[s][k][n + 15]
    score += PUB_BAR[s][p.bar[p.turn]]
    score += PUB_OFF[s][p.off[we]]
    out[0] = 1.0 / (1.0 + exp(score / PUB_SCALE))
    out[1] = 0.0
    out[2] = 0.0
    out[3] = 0.0
    out[4] = 0.0
    return 0


cdef int pubeval_from(Evaluator *e, object tables) except -1:
    """Set ``e``'s weight set from ``tables``: ``None``, each position's own, or whether the positions before
    the moves were races (nardy_fast.evaluation.pubeval)."""
    if tables is not None:
        e.parent_race = 1 if tables else 0
    return 0


register_twin("pubeval", pubeval_evaluate, pubeval_from)
