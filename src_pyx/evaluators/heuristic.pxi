# The built-in evaluator "heuristic" (docs/rules.md, Evaluation): the formula of
# nardy_fast.evaluation.heuristic (its docstring is the specification, its tables the coefficients), the twin
# of nardy_fast.reference.heuristic with the same floats in the same order. One pass over the 24 points
# gathers each side's counts and its points as bit masks; the runs of blocks and the shots are bit tricks.
# Uses: tables, twins.
# Offers: nothing.

from libc.math cimport exp, sqrt

from nardy_fast.evaluation.heuristic import CLAMP as _HEUR_CLAMP
from nardy_fast.evaluation.heuristic import COEFFICIENTS as _HEUR_COEFFICIENTS
from nardy_fast.evaluation.heuristic import FEATURES as _HEUR_FEATURES
from nardy_fast.evaluation.heuristic import HITS as _HEUR_HITS
from nardy_fast.evaluation.heuristic import Coefficients as _HeurCoefficients

# one variant's row of COEFFICIENTS (the fields of nardy_fast.evaluation.heuristic.Coefficients, by name)
ctypedef struct HeurCoef:
    double race_weight
    double tempo
    double race_base
    double pending
    double head
    double run1
    double run2
    double run3
    double run4
    double run5
    double bar_closed
    double shot
    double risk
    int hit_base
    double mars_weight
    double mars_offset
    double mars_tempo
    double mars_base
    double mars_struct
    double koks_weight
    double koks_scale
    double koks_offset
    double koks_base
    double koks_struct

cdef HeurCoef HEUR[MAX_VARIANTS]
# HITS: the rolls of 36 that hit at some distance of a 12-bit mask
cdef uint8_t HEUR_HITS[4096]
# the opponent's own point of the mover's point m, by family (0 long, 1 short)
cdef int8_t HEUR_YPOINT[2][25]
cdef double HEUR_CLAMP = _HEUR_CLAMP
# the structure features in the order heuristic_evaluate accumulates them
_HEUR_ORDER = ("head", "run1", "run2", "run3", "run4", "run5", "bar_closed", "shot", "risk")


cdef void _init_heuristic() except *:
    cdef int v, m, fam
    if tuple(_HEUR_FEATURES) != _HEUR_ORDER or len(_HEUR_HITS) != 4096:
        raise ImportError("nardy_fast._core: the heuristic's features are not the ones its C code accumulates")
    for v, name in enumerate(_VARIANTS):
        HEUR[v] = _HEUR_COEFFICIENTS[name]._asdict()
    fields = HEUR[0]
    if set(fields) != set(_HeurCoefficients._fields):
        raise ImportError("nardy_fast._core: the heuristic's C coefficients are not nardy_fast's")
    for m in range(4096):
        HEUR_HITS[m] = _HEUR_HITS[m]
    for fam in range(2):
        geometry = next(spec.name for spec in _VARIANT_SPECS if (spec.family == "short") == fam)
        HEUR_YPOINT[fam][0] = 0
        for m in range(1, 25):
            HEUR_YPOINT[fam][m] = _board.mover_point(geometry, m)


_init_heuristic()


cdef inline int heur_popcount(uint32_t v) noexcept nogil:
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    return <int> ((((v + (v >> 4)) & 0x0F0F0F0F) * 0x01010101) >> 24)


cdef inline uint32_t heur_below(int rear) noexcept nogil:
    """The points 1 <= b < rear as bits b - 1."""
    return ((<uint32_t> 1 << (rear - 1)) - 1) if rear >= 1 else 0


cdef inline void heur_runs(uint32_t blocks, int *run) noexcept nogil:
    """run[k - 1]: the windows of k consecutive blocks, k = 1..5."""
    cdef uint32_t a = blocks
    cdef int k
    run[0] = heur_popcount(a)
    for k in range(1, 5):
        a &= blocks >> k
        run[k] = heur_popcount(a)


cdef inline double heur_logistic(double u) noexcept nogil:
    if u < -HEUR_CLAMP:
        u = -HEUR_CLAMP
    elif u > HEUR_CLAMP:
        u = HEUR_CLAMP
    return 1.0 / (1.0 + exp(-u))


cdef int heuristic_evaluate(const Evaluator *e, const Pos *p, double *out) noexcept nogil:
    """``out[0..4]`` for the side to move (X) of the unfinished position ``p``."""
    cdef const HeurCoef *k = &HEUR[p.variant]
    cdef int fam = 1 if V_SHORT[p.variant] else 0
    cdef int me = p.turn
    cdef int sign = -1 if me else 1
    cdef int hold = 2 if fam else 1
    cdef int xbar = p.bar[me], ybar = p.bar[1 - me]
    cdef int m, c, yp, i, pending = 0, shots = 0, risk = 0, value, head_x = 0, head_y = 0
    cdef int closed_x = 0, closed_y = 0
    cdef int pips_x = 25 * xbar, need_x = 19 * xbar, back_x = 7 * xbar
    cdef int pips_y = 25 * ybar, need_y = 19 * ybar, back_y = 7 * ybar
    cdef int rear_x = 25 if xbar else 0, rear_y = 25 if ybar else 0
    # X numbering (bit m - 1): X's points, held points, blots; Y's held points and blots
    cdef uint32_t xocc = 0, xheld = 0, xblot = 0, yheld = 0, yblot = 0
    # Y numbering: X's held points (bit b - 1), Y's points (bit b)
    cdef uint32_t xheld_y = 0, yown = 0, src, bl
    cdef int run_x[5]
    cdef int run_y[5]
    cdef double lead, race, t, win, mars_x, mars_y, koks, win_mars, lose_mars, win_koks, lose_koks
    for m in range(1, 25):
        c = sign * p.board[MAP[fam][me][m]]
        if c > 0:
            pips_x += m * c
            if m > 6:
                need_x += (m - 6) * c
                if m > 18:
                    back_x += (m - 18) * c
            xocc |= <uint32_t> 1 << (m - 1)
            if c >= hold:
                xheld |= <uint32_t> 1 << (m - 1)
                xheld_y |= <uint32_t> 1 << (HEUR_YPOINT[fam][m] - 1)
            elif c == 1:
                xblot |= <uint32_t> 1 << (m - 1)
            if m > rear_x:
                rear_x = m
        elif c < 0:
            c = -c
            yp = HEUR_YPOINT[fam][m]
            pips_y += yp * c
            if yp > 6:
                need_y += (yp - 6) * c
                if yp > 18:
                    back_y += (yp - 18) * c
            yown |= <uint32_t> 1 << yp
            if c >= hold:
                yheld |= <uint32_t> 1 << (m - 1)
            elif c == 1:
                yblot |= <uint32_t> 1 << (m - 1)
            if yp > rear_y:
                rear_y = yp
    for i in range(p.npending):
        pending += p.pending[i]
    heur_runs(xheld_y & heur_below(rear_y), run_x)
    heur_runs(yheld & heur_below(rear_x), run_y)
    if not fam:
        c = sign * p.board[MAP[fam][me][HEAD]]
        head_x = c if c > 0 else 0
        c = -sign * p.board[MAP[fam][me][HEUR_YPOINT[fam][HEAD]]]
        head_y = c if c > 0 else 0
    else:
        if ybar:
            closed_x = heur_popcount(xheld & 0x3F)
        if xbar:
            closed_y = heur_popcount(yheld & (<uint32_t> 0x3F << 18))
        # X hits Y's blot on X's m from its sources q (bit q; the bar alone while X has a checker there)
        src = (<uint32_t> 1 << 25) if xbar else (xocc << 1)
        bl = yblot
        while bl:
            m = ctz(bl) + 1
            bl &= bl - 1
            value = HEUR_HITS[(src >> (m + 1)) & 0xFFF] * (m + k.hit_base)
            if value > shots:
                shots = value
        # Y hits X's blot on X's m = Y's 25 - m
        src = (<uint32_t> 1 << 25) if ybar else yown
        bl = xblot
        while bl:
            m = ctz(bl) + 1
            bl &= bl - 1
            value = HEUR_HITS[(src >> (26 - m)) & 0xFFF] * (25 - m + k.hit_base)
            if value > risk:
                risk = value

    lead = <double> (pips_y - pips_x) + k.tempo + k.pending * <double> pending
    race = k.race_weight * lead / sqrt(<double> (pips_x + pips_y) + k.race_base)
    t = 0.0
    t = t + k.head * <double> (head_y - head_x)
    t = t + k.run1 * <double> (run_x[0] - run_y[0])
    t = t + k.run2 * <double> (run_x[1] - run_y[1])
    t = t + k.run3 * <double> (run_x[2] - run_y[2])
    t = t + k.run4 * <double> (run_x[3] - run_y[3])
    t = t + k.run5 * <double> (run_x[4] - run_y[4])
    t = t + k.bar_closed * <double> (closed_x - closed_y)
    t = t + k.shot * (<double> shots / 36.0)
    t = t + k.risk * (<double> risk / 36.0)
    win = heur_logistic(race + t)

    mars_x = heur_logistic(k.mars_weight * (<double> (need_y - pips_x) + k.mars_offset + k.mars_tempo)
                           / sqrt(<double> (pips_x + need_y) + k.mars_base) + k.mars_struct * t)
    mars_y = heur_logistic(k.mars_weight * (<double> (need_x - pips_y) + k.mars_offset - k.mars_tempo)
                           / sqrt(<double> (pips_y + need_x) + k.mars_base) - k.mars_struct * t)
    win_mars = 0.0
    if p.off[1 - me] == 0:
        win_mars = win if win < mars_x else mars_x
    lose_mars = 0.0
    if p.off[me] == 0:
        lose_mars = 1.0 - win
        if mars_y < lose_mars:
            lose_mars = mars_y
    win_koks = 0.0
    lose_koks = 0.0
    if V_KOKS[p.variant] and back_y > 0:
        koks = heur_logistic(k.koks_weight * (k.koks_scale * <double> back_y - <double> pips_x + k.koks_offset)
                             / sqrt(<double> (pips_x + back_y) + k.koks_base) + k.koks_struct * t)
        win_koks = win_mars if win_mars < koks else koks
    if V_KOKS[p.variant] and back_x > 0:
        koks = heur_logistic(k.koks_weight * (k.koks_scale * <double> back_x - <double> pips_y + k.koks_offset)
                             / sqrt(<double> (pips_y + back_x) + k.koks_base) - k.koks_struct * t)
        lose_koks = lose_mars if lose_mars < koks else koks
    out[0] = win
    out[1] = win_mars
    out[2] = win_koks
    out[3] = lose_mars
    out[4] = lose_koks
    return 0


register_twin("heuristic", heuristic_evaluate, NULL)
