# Bear-off positions in C (docs/rules.md, Races and bear-off positions; Bear-off tables): the race and
# bear-off tests of a position, a layout's id (nardy_fast.bearoff.layouts), and a move generator of its own
# for a side whose checkers are all home (every die can be played there, no opponent matters), which the
# table builders (bearoff_one.pxi, bearoff_two.pxi) run over every layout.
# Uses: tables, memory.
# Offers: pos_is_race, pos_is_bearoff, bo_id, bo_open, bo_close, bo_dice, bo_results, bo_extra, bo_checkers,
# bo_pips, bo_by_pips.

cdef enum:
    BO_POINTS = 6
    BO_TURNS = 33      # a distribution's columns: 0..MAX_TURNS turns (nardy_fast.bearoff.semantics)
    BO_MAX_STEPS = 24  # the longest dice list: crazy gulbar's 1-1 ladder with 4 values a rung

# C(n, r), n <= 21, r <= 6: the terms of a layout's id (nardy_fast.bearoff.layouts)
cdef int32_t BO_BINOMIAL[22][7]


cdef void _init_bearoff() noexcept:
    cdef int n, r
    for n in range(22):
        BO_BINOMIAL[n][0] = 1
        for r in range(1, 7):
            BO_BINOMIAL[n][r] = 0 if n == 0 else BO_BINOMIAL[n - 1][r - 1] + BO_BINOMIAL[n - 1][r]


_init_bearoff()


cdef inline int32_t bo_id(const int8_t *c) noexcept nogil:
    """The id of the layout ``c[0..5]`` (points 1..6): ``sum C(5 - k + S_k, 6 - k)``, ``S_k = c[k] + .. + c[5]``."""
    cdef int32_t id = 0
    cdef int k, s = 0
    for k in range(BO_POINTS - 1, -1, -1):
        NARDY_CHECK(0 <= c[k] <= 15, "a bear-off layout count out of 0..15")
        s += c[k]
        id += BO_BINOMIAL[BO_POINTS - 1 - k + s][BO_POINTS - k]
    NARDY_CHECK(s <= 15, "a bear-off layout of more than 15 checkers")
    return id


cdef struct BoGen:
    const int8_t *layouts   # (n, 6): the counts of each id
    int32_t n
    int32_t *stamp          # (n,): the level a layout was last seen at, for de-duplication
    int32_t serial
    int32_t *level          # two frontiers of up to n ids
    int32_t *next_level
    int32_t nres            # the candidates, then the legal results, of the last bo_results: ids (0 = all
    int32_t cap             # off) and the steps each played
    int32_t *res
    int32_t *res_steps
    int32_t finished        # bit s: a sequence of s steps bore off the last checker (in the current pass)


cdef int bo_dice(int a, int b, int ladder, int *dice) noexcept nogil:
    """The dice list of roll a-b (docs/rules.md, Rolls and the dice list): a and b; four copies of a double;
    with ``ladder`` values a rung, the ladder a, .., 6 (Crazy gulbar ladders). Returns its length."""
    cdef int n = 0, v, j
    if a != b:
        dice[0] = a
        dice[1] = b
        return 2
    if ladder == 0:
        for j in range(4):
            dice[j] = a
        return 4
    for v in range(a, 7):
        for j in range(ladder):
            dice[n] = v
            n += 1
    return n


cdef int bo_pass(BoGen *g, int32_t start, const int *dice, int ndice, int32_t *umax) noexcept nogil:
    """Every sequence of steps from layout ``start`` using ``dice`` in the given order (docs/rules.md,
    Bearing off, Normal step), level by level: appends to ``g.res`` each distinct candidate result with the
    number of steps it played (a sequence ends when it bears off the last checker, or when no step can use the
    next die), and raises ``umax`` to the most steps played. Returns -1 when the results overflow."""
    cdef int s, i, p, d, top
    cdef int32_t nlev = 1, nnext, id, child
    cdef int8_t c[6]
    cdef int32_t *swap
    cdef bint moved
    g.level[0] = start
    g.finished = 0
    for s in range(ndice + 1):
        g.serial += 1
        nnext = 0
        for i in range(nlev):
            id = g.level[i]
            if s == ndice:
                if bo_add(g, id, s, umax) < 0:
                    return -1
                continue
            memcpy(c, &g.layouts[6 * id], 6)
            d = dice[s]
            top = 5
            while top >= 0 and c[top] == 0:
                top -= 1
            moved = False
            for p in range(top, -1, -1):  # p is point p + 1
                if c[p] == 0:
                    continue
                if p + 1 > d:
                    c[p] -= 1
                    c[p - d] += 1
                    child = bo_id(c)
                    c[p - d] -= 1
                    c[p] += 1
                elif p + 1 == d or p == top:
                    c[p] -= 1
                    child = bo_id(c)
                    c[p] += 1
                else:
                    continue
                moved = True
                if child == 0:
                    if not g.finished & (1 << (s + 1)):
                        g.finished |= 1 << (s + 1)
                        if bo_add(g, 0, s + 1, umax) < 0:
                            return -1
                elif g.stamp[child] != g.serial:
                    g.stamp[child] = g.serial
                    g.next_level[nnext] = child
                    nnext += 1
            if not moved and bo_add(g, id, s, umax) < 0:
                return -1
        swap = g.level
        g.level = g.next_level
        g.next_level = swap
        nlev = nnext
        if nlev == 0:
            break
    return 0


cdef inline int bo_add(BoGen *g, int32_t id, int steps, int32_t *umax) noexcept nogil:
    """Append a candidate (a pass never repeats one: its levels are de-duplicated, and each count of steps
    that finishes is added once); -1 when memory ran out."""
    cdef int64_t cap
    if g.nres == g.cap:
        cap = grown(g.cap, g.nres + 1, 64)
        if resized(<void **> &g.res, cap, sizeof(int32_t)) < 0 or resized(<void **> &g.res_steps, cap, sizeof(int32_t)) < 0:
            return -1
        g.cap = <int32_t> cap
    g.res[g.nres] = id
    g.res_steps[g.nres] = steps
    g.nres += 1
    if steps > umax[0]:
        umax[0] = steps
    return 0


cdef int bo_results(BoGen *g, int32_t start, int a, int b, int ladder) noexcept nogil:
    """The legal results of layout ``start`` for roll a-b (docs/rules.md, Maximal use of the dice, Higher
    die; One move per result), left in ``g.res[0 .. g.nres - 1]`` (0 = all borne off); returns the steps they
    play, or -1 when they overflow."""
    cdef int dice[BO_MAX_STEPS]
    cdef int ndice = bo_dice(a, b, ladder, dice)
    cdef int32_t umax = 0, high_umax = 0
    cdef int i, j = 0, high_count
    g.nres = 0
    if bo_pass(g, start, dice, ndice, &high_umax) < 0:
        return -1
    high_count = g.nres
    umax = high_umax
    if a != b:
        dice[0] = b
        dice[1] = a
        if bo_pass(g, start, dice, ndice, &umax) < 0:
            return -1
    g.serial += 1
    for i in range(g.nres):
        # Higher die: when one die is all that can be played and the higher can, the lower alone is not legal
        if g.res_steps[i] != umax or (a != b and umax == 1 and high_umax == 1 and i >= high_count):
            continue
        if g.stamp[g.res[i]] == g.serial:
            continue
        g.stamp[g.res[i]] = g.serial
        g.res[j] = g.res[i]
        j += 1
    g.nres = j
    return umax


cdef inline bint bo_extra(int extra_kind, int a, int b, int ladder, int steps, int32_t result) noexcept nogil:
    """Whether the move earns an extra roll (docs/rules.md, Six-one extra roll; Gulbar extra roll): never when
    it bore off the last checker."""
    if result == 0:
        return False
    if extra_kind == EXTRA_SIX_ONE:
        return a == 6 and b == 1
    if extra_kind == EXTRA_FULL_DOUBLE:
        return a == b and ladder == 0 and steps == 4
    return False


cdef inline int bo_checkers(const int8_t *c) noexcept nogil:
    return c[0] + c[1] + c[2] + c[3] + c[4] + c[5]


cdef inline int bo_pips(const int8_t *c) noexcept nogil:
    return c[0] + 2 * c[1] + 3 * c[2] + 4 * c[3] + 5 * c[4] + 6 * c[5]


cdef int32_t *bo_by_pips(const int8_t *layouts, int32_t n) noexcept nogil:
    """The ids 0..n-1 sorted by pip count (stable): every result of a layout comes before it."""
    cdef int32_t *order = <int32_t *> malloc(n * sizeof(int32_t))
    cdef int32_t start[92]
    cdef int32_t i, p
    if order == NULL:
        return NULL
    memset(start, 0, sizeof(start))
    for i in range(n):
        start[bo_pips(&layouts[6 * i]) + 1] += 1
    for p in range(1, 92):
        start[p] += start[p - 1]
    for i in range(n):
        p = bo_pips(&layouts[6 * i])
        order[start[p]] = i
        start[p] += 1
    return order


cdef int bo_open(BoGen *g, const int8_t *layouts, int32_t n) noexcept nogil:
    memset(g, 0, sizeof(BoGen))
    g.layouts = layouts
    g.n = n
    g.stamp = <int32_t *> calloc(n, sizeof(int32_t))
    g.level = <int32_t *> malloc(n * sizeof(int32_t))
    g.next_level = <int32_t *> malloc(n * sizeof(int32_t))
    return -1 if g.stamp == NULL or g.level == NULL or g.next_level == NULL else 0


cdef void bo_close(BoGen *g) noexcept nogil:
    free(g.res)
    free(g.res_steps)
    free(g.stamp)
    free(g.level)
    free(g.next_level)


cdef bint pos_is_race(const Pos *p) noexcept nogil:
    """Whether the sides can never touch again (docs/rules.md, Races and bear-off positions;
    nardy_fast.layout.is_race): long family, every checker on its own points 1..12 (White's on W1..W12,
    Black's on W13..W24); short nardy, both bars empty and every White checker below every Black one; a
    finished game."""
    cdef int i, top = -1, low = 24
    if p.off[0] == 15 or p.off[1] == 15:
        return True
    if V_SHORT[p.variant]:
        if p.bar[0] or p.bar[1]:
            return False
        for i in range(24):
            if p.board[i] > 0:
                top = i
            elif p.board[i] < 0 and low == 24:
                low = i
        return top < low
    for i in range(24):
        if (p.board[i] > 0 and i >= 12) or (p.board[i] < 0 and i < 12):
            return False
    return True


cdef inline bint pos_is_bearoff(const Pos *p) noexcept nogil:
    """Whether every checker on the board of both sides is on its own points 1..6 and none is on the bar
    (docs/rules.md, Races and bear-off positions): White's home is White's 1..6; Black's is White's 13..18 in
    the long family, 19..24 in short nardy."""
    cdef int i, home = 18 if V_SHORT[p.variant] else 12
    if p.bar[0] or p.bar[1]:
        return False
    for i in range(24):
        if p.board[i] > 0 and i >= 6:
            return False
        if p.board[i] < 0 and not home <= i < home + 6:
            return False
    return True


def is_bearoff_row(const int8_t[::1] row):
    """``pos_is_bearoff`` of one checked row (for the tests that compare it with nardy_fast.race)."""
    if row.shape[0] != WIDTH:
        raise _field_error(_NardyError, "row", "must hold 64 values", row.shape[0])
    return pos_is_bearoff(<const Pos *> &row[0])
