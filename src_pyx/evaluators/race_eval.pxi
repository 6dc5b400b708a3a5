# The race evaluator in C (docs/rules.md, Races and bear-off positions; Bear-off tables):
# nardy_fast.evaluation.race_formula states the values and holds the constants, filled in here at import;
# nardy_fast.reference.race_eval is the twin whose float operations this follows one for one, so that both
# give the same floats.
# Uses: tables, bearoff, twins.
# Offers: race_evaluate, race_from.

from libc.math cimport erfc, sqrt

from nardy_fast.evaluation import race_formula as _race

cdef enum:
    RACE_NC = 19       # nardy_fast.evaluation.race_formula.vector: mu, v, q, w_out, w0..w6, g1..g6, t1, t2
    RACE_MAX_KEYS = 8  # room for the kinds of dice

cdef double RACE_K[RACE_MAX_KEYS][RACE_NC]
# the kind of dice of a variant's races (its index in nardy_fast.evaluation.race_formula.KEYS), by
# ladder_per_value=4
cdef int RACE_KIND[MAX_VARIANTS][2]
cdef double RACE_CONTINUITY = _race.CONTINUITY
cdef double RACE_FLOOR = _race.VARIANCE_FLOOR
cdef int RACE_STACK = _race.STACK


cdef void _init_race() except *:
    cdef int i, j, v
    if _race.NC != RACE_NC or len(_race.KEYS) > RACE_MAX_KEYS:
        raise ImportError("nardy_fast._core: the race evaluator's constants outgrew the core's C tables")
    for i, key in enumerate(_race.KEYS):
        for j, value in enumerate(_race.vector(key)):
            RACE_K[i][j] = value
    for v, spec in enumerate(_VARIANT_SPECS):
        for j in range(2):
            RACE_KIND[v][j] = _race.KEYS.index(_race.key_of(spec.name, bool(j)))


_init_race()


cdef struct RaceSide:
    double e            # effective pips to bear off all
    double e1           # ... to bear off the first
    double ek           # ... to leave the winner's home (koks)
    bint full           # borne off none
    bint koks           # can still lose a koks


cdef void race_counts(const Pos *p, int side, int *c) noexcept nogil:
    """``c[m]``: the checkers of ``side`` on its own point ``m`` (1..24; ``c[0]`` is 0)."""
    cdef int fam = 1 if V_SHORT[p.variant] else 0
    cdef int m, v
    c[0] = 0
    for m in range(1, 25):
        v = p.board[MAP[fam][side][m]]
        if side:
            v = -v
        c[m] = v if v > 0 else 0


cdef void race_side(const int *c, const double *k, bint koks, RaceSide *s) noexcept nogil:
    """``E``, ``E1``, ``EK`` of one side (nardy_fast.evaluation.race_formula)."""
    cdef int n = 0, pips = 0, out = 0, low = 0, behind = 0, m, h
    cdef double q = k[2], w_out = k[3], waste, far, near, d
    for m in range(1, 25):
        n += c[m]
        pips += m * c[m]
        if m > 6:
            out += c[m]
        if low == 0 and c[m]:
            low = m
    waste = k[4]
    for m in range(1, 7):
        waste += k[4 + m] * c[m]
    waste += w_out * out
    waste += k[17] * (c[1] - RACE_STACK if c[1] > RACE_STACK else 0)
    waste += k[18] * (c[2] - RACE_STACK if c[2] > RACE_STACK else 0)
    s.e = pips + waste if n else 0.0
    far = 0.0
    for m in range(7, 25):
        d = m - 6.0
        if d < q:
            d = q
        far += c[m] * d
    h = low if low < 6 else 6
    s.e1 = (far + h) + k[10 + h] if n else 0.0
    near = 0.0
    for m in range(19, 25):
        d = m - 18.0
        if d < q:
            d = q
        near += c[m] * d
        behind += c[m]
    s.ek = near
    s.full = n == 15
    s.koks = koks and s.full and behind > 0


cdef inline double race_chance(double d, double a, double b, double v) noexcept nogil:
    """The normal chance that a difference of turns of mean ``d`` is positive, for sides of effective pips
    ``a`` and ``b``."""
    cdef double var = v * ((a if a > 0.0 else 0.0) + (b if b > 0.0 else 0.0)) + RACE_FLOOR
    return 0.5 * erfc(-d / sqrt(2.0 * var))


cdef inline void race_nested(double *out) noexcept nogil:
    """Clamp ``out`` into the nesting of nardy_fast.evaluation.OUTPUTS (win already in [0, 1])."""
    cdef double lose = 1.0 - out[0]
    if not out[1] < out[0]:
        out[1] = out[0]
    if not out[2] < out[1]:
        out[2] = out[1]
    if not out[3] < lose:
        out[3] = lose
    if not out[4] < out[3]:
        out[4] = out[3]


cdef void race_formula(const Pos *p, const int *cx, const int *cy, double *out) noexcept nogil:
    cdef const double *k = RACE_K[RACE_KIND[p.variant][1 if p.flags & FLAG_LADDER4 else 0]]
    cdef double mu = k[0], v = k[1], ex, e1x, ekx
    cdef bint koks = V_KOKS[p.variant]
    cdef RaceSide x, y
    cdef int pending = 0, i
    race_side(cx, k, koks, &x)
    race_side(cy, k, koks, &y)
    for i in range(p.npending):
        pending += p.pending[i]
    ex = x.e - pending
    e1x = x.e1 - pending
    ekx = x.ek - pending
    out[0] = race_chance((y.e - ex) / mu + RACE_CONTINUITY, ex, y.e, v)
    out[1] = race_chance((y.e1 - ex) / mu + RACE_CONTINUITY, ex, y.e1, v) if y.full else 0.0
    out[2] = race_chance((y.ek - ex) / mu + RACE_CONTINUITY, ex, y.ek, v) if y.koks else 0.0
    out[3] = race_chance((e1x - y.e) / mu - RACE_CONTINUITY, y.e, e1x, v) if x.full else 0.0
    out[4] = race_chance((ekx - y.e) / mu - RACE_CONTINUITY, y.e, ekx, v) if x.koks else 0.0
    race_nested(out)


cdef inline int race_checkers(int64_t count) noexcept nogil:
    """The most checkers whose layouts all lie among ``count`` table rows (-1 for none)."""
    cdef int k = 0
    if count < 1:
        return -1
    while k < 15 and BO_BINOMIAL[k + 7][6] <= count:
        k += 1
    return k


cdef void race_one_sided(const Evaluator *e, int32_t x, bint x_full, int32_t y, bint y_full,
                         double *out) noexcept nogil:
    """win, win_mars, lose_mars by the one-sided convolution (nardy_fast.bearoff.tables.race_outcomes),
    tail sums from the last turn down."""
    cdef const double *px = e.dist + <int64_t> x * BO_TURNS
    cdef const double *py = e.dist + <int64_t> y * BO_TURNS
    cdef const double *fx = e.dist_first + <int64_t> x * BO_TURNS
    cdef const double *fy = e.dist_first + <int64_t> y * BO_TURNS
    cdef double win = 0.0, win_mars = 0.0, lose_mars = 0.0, tail_y = 0.0, tail_first_y = 0.0, later_x = 0.0
    cdef int t
    for t in range(BO_TURNS - 1, -1, -1):
        tail_y += py[t]
        tail_first_y += fy[t]
        win += px[t] * tail_y
        win_mars += px[t] * tail_first_y
        lose_mars += py[t] * later_x
        later_x += fx[t]
    if win < 0.0:
        win = 0.0
    elif win > 1.0:
        win = 1.0
    out[0] = win
    out[1] = win_mars if y_full else 0.0
    out[2] = 0.0
    out[3] = lose_mars if x_full else 0.0
    out[4] = 0.0


cdef int race_evaluate(const Evaluator *e, const Pos *p, double *out) noexcept nogil:
    """``out[0..4]`` for the side to move of the valid, unfinished race ``p``
    (nardy_fast.evaluation.race_formula): from ``e``'s bear-off tables (of ``p``'s variant and flags) where
    they apply, else the formula; 0, or ``E_EVALUATOR`` when ``p`` is not a race."""
    cdef int cx[25]
    cdef int cy[25]
    cdef int8_t lx[6]
    cdef int8_t ly[6]
    cdef int nx = 0, ny = 0, m, k1, k2
    cdef int32_t x, y
    if not pos_is_race(p):
        return E_EVALUATOR
    race_counts(p, p.turn, cx)
    race_counts(p, 1 - p.turn, cy)
    for m in range(1, 25):
        nx += cx[m]
        ny += cy[m]
    if e.n1 > 0 and p.npending == 0 and pos_is_bearoff(p):
        k1 = race_checkers(e.n1)
        k2 = race_checkers(e.n2) if e.two_win != NULL else -1
        for m in range(6):
            lx[m] = <int8_t> cx[m + 1]
            ly[m] = <int8_t> cy[m + 1]
        x = bo_id(lx)
        y = bo_id(ly)
        if nx <= k2 and ny <= k2:
            memset(out, 0, 5 * sizeof(double))
            out[0] = e.two_win[<int64_t> x * e.n2 + y]
            return 0
        if nx <= k1 and ny <= k1:
            race_one_sided(e, x, nx == 15, y, ny == 15, out)
            race_nested(out)
            return 0
    race_formula(p, cx, cy, out)
    return 0


cdef int race_from(Evaluator *e, object tables) except -1:
    """Point ``e`` at the race evaluator's ``tables``: ``None`` (none) or ``(dist, dist_first, two_win)``,
    C-contiguous float64 arrays the caller keeps alive while ``e`` is used (``two_win`` may be ``None``)."""
    cdef const double[:, ::1] dist
    cdef const double[:, ::1] first
    cdef const double[:, ::1] two
    if tables is None:
        return 0
    # a tuple of the caller's keeps the arrays alive while e points into them (an iterable might not)
    if type(tables) is not tuple or len(<tuple> tables) != 3:
        raise _field_error(_NardyError, "tables", "are not the race evaluator's tables", type(tables).__name__)
    dist, first, two_win = <tuple> tables
    if (dist.shape[0] != first.shape[0] or dist.shape[1] != BO_TURNS or first.shape[1] != BO_TURNS
            or dist.shape[0] < 1):
        raise _field_error(_NardyError, "tables", "do not have the shape of one-sided tables", dist.shape[0])
    e.n1 = dist.shape[0]
    e.dist = &dist[0, 0]
    e.dist_first = &first[0, 0]
    if two_win is not None:
        two = two_win
        if two.shape[0] != two.shape[1] or two.shape[0] < 1:
            raise _field_error(_NardyError, "tables", "do not have the shape of a two-sided table", two.shape[0])
        e.n2 = two.shape[0]
        e.two_win = &two[0, 0]
    return 0


register_twin("race", race_evaluate, race_from)
