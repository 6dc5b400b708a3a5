# The cube players' decisions in C (docs/rules.md, The doubling cube; Match play): twins of nardy_fast.cube's
# formulas (Janowski's money equities, Thyssen's match winning chances, the match equity table's lookups) and
# of nardy_fast.cubeplay's strategies (Janowski's formulas at the score or at money play, wildbg's
# thresholds), deciding from a seat's 0-ply evaluation, with their names and their float order, so that the
# C loop turns the cube in the same games as the Python one.
# Uses: tables, numbering, results, bearoff, evaluate, hint.
# Offers: doubles, answers.

from nardy_fast.cube.decision import OPTIONAL as _OPTIONAL
from nardy_fast.cube.janowski import EPSILON as _EPSILON
from nardy_fast.cube.players import BEAVER as _BEAVER, DOUBLE_WINDOW as _WINDOW, PASS as _PASS
from nardy_fast.cube.players import STRATEGIES as _STRATEGIES, TAKE as _TAKE, TAKE_BELOW as _TAKE_BELOW
from nardy_fast.cube.state import MAX_CUBE as _MAX_CUBE

cdef int STRATEGY_JANOWSKI = _STRATEGIES.index("janowski")
cdef int STRATEGY_MONEY = _STRATEGIES.index("money")
cdef int STRATEGY_THRESHOLD = _STRATEGIES.index("threshold")
cdef int STRATEGY_NEVER = _STRATEGIES.index("never")
cdef int ANSWER_PASS = _PASS
cdef int ANSWER_TAKE = _TAKE
cdef int ANSWER_BEAVER = _BEAVER
cdef double CUBE_EPSILON = _EPSILON
cdef double CUBE_OPTIONAL = _OPTIONAL
cdef double WINDOW_LOW = _WINDOW[0]
cdef double WINDOW_HIGH = _WINDOW[1]
cdef double TAKE_BELOW = _TAKE_BELOW
cdef int64_t CUBE_MAX = _MAX_CUBE

cdef enum:
    MET_ROOM = 32      # the longest match a table here may cover (the shipped tables cover 25)
    CUBE_LEVELS = 8    # cube levels cash_points looks up (2**7 > MET_ROOM)
    # the cube's owner seen from the side on roll (nardy_fast.cube.janowski's owner words)
    OWNER_CENTRED = 0
    OWNER_OWN = 1
    OWNER_OPPONENT = 2
    # an efficiency row of one variant (nardy_fast.cube.janowski.Efficiencies at 0 and 1 ply)
    EFF_CONTACT = 0
    EFF_FACTOR = 1
    EFF_COEFFICIENT = 2
    EFF_MIN = 3
    EFF_MAX = 4
    EFF_BEAROFF = 5
    EFF_FIELDS = 6


cdef struct CubeSession:
    # a cubeful duel's or rollout's rules (nardy_fast.cubeargs.CubeArgs): money play (length 0) or a match
    # from its score, the players' strategies (a's and b's), the match equity table and the efficiencies
    int64_t length
    int64_t score[2]
    bint crawford
    bint jacoby
    bint beavers
    bint single                        # a rollout's trial: one game, whose cube and match stay as given
    int64_t per_match                  # games numbered per match (nardy_fast.cubeloop.GAMES_PER_MATCH)
    int strategy[2]
    int32_t size
    double pre[MET_ROOM * MET_ROOM]
    double post[MET_ROOM]
    double eff[MAX_VARIANTS][EFF_FIELDS]


cdef struct CubeState:
    # one game's cube (owner -1 centred, else the side) and its match's score and Crawford flag
    int64_t value
    int owner
    int64_t score[2]
    bint crawford


cdef struct Score:
    # a match score seen from the side on roll (nardy_fast.cube.matchplay.Score)
    const CubeSession *S
    int64_t away
    int64_t opponent_away
    bint crawford


# --- the match equity table and the formulas: twins of nardy_fast.cube's ------------------------------------


cdef double table_after(const CubeSession *S, int64_t away, int64_t opponent_away, bint crawford, int64_t won,
                        int64_t lost) noexcept nogil:
    """``MatchEquityTable.after``."""
    cdef int64_t a = away - won, b = opponent_away - lost
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if crawford or away == 1 or opponent_away == 1:
        return 1.0 - S.post[b - 1] if a == 1 else S.post[a - 1]
    return S.pre[(a - 1) * S.size + (b - 1)]


cdef inline double score_mwc(const Score *s, int player, int64_t won, int64_t lost) noexcept nogil:
    """``Score.mwc``."""
    if player == 0:
        return table_after(s.S, s.away, s.opponent_away, s.crawford, won, lost)
    return table_after(s.S, s.opponent_away, s.away, s.crawford, won, lost)


cdef double money_cubeful(const double *p, double x, int owner, bint jacoby) noexcept nogil:
    """``nardy_fast.cube.janowski.money_cubeful`` of one row: dead x (1 - x) + live x x (``_money_live``)."""
    cdef double dead = 2.0 * p[0] - 1.0, w, lo, tp, cp, live, win = p[0], lose
    if not (jacoby and owner == OWNER_CENTRED):
        dead = dead + p[1] + p[2] - p[3] - p[4]
    if not (win > CUBE_EPSILON and win < 1.0 - CUBE_EPSILON):
        return dead
    lose = 1.0 - win
    w = 1.0 + (p[1] + p[2]) / win
    lo = 1.0 + (p[3] + p[4]) / lose
    tp = (lo - 0.5) / (w + lo + 0.5)
    cp = (lo + 1.0) / (w + lo + 0.5)
    if owner == OWNER_CENTRED:
        if win < tp:
            live = -1.0 if jacoby else -lo + (-1.0 + lo) * win / tp
        elif win < cp:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        else:
            live = 1.0 if jacoby else 1.0 + (w - 1.0) * (win - cp) / (1.0 - cp)
    elif owner == OWNER_OWN:
        live = -lo + (1.0 + lo) * win / cp if win < cp else 1.0 + (w - 1.0) * (win - cp) / (1.0 - cp)
    else:
        live = -lo + (-1.0 + lo) * win / tp if win < tp else -1.0 + (w + 1.0) * (win - tp) / (1.0 - tp)
    return dead * (1.0 - x) + live * x


cdef void ratios(const double *p, double *g, double *b) noexcept nogil:
    """``nardy_fast.cube.matchplay._ratios``: the mars-but-not-koks and koks shares of games won by the side on
    roll (``g[0]``, ``b[0]``) and by the other (``g[1]``, ``b[1]``)."""
    cdef double win = p[0], lose = 1.0 - p[0]
    g[0] = (p[1] - p[2]) / win if win > 0.0 else 0.0
    b[0] = p[2] / win if win > 0.0 else 0.0
    g[1] = (p[3] - p[4]) / lose if lose > 0.0 else 0.0
    b[1] = p[4] / lose if lose > 0.0 else 0.0


cdef inline int64_t cube_prime(int64_t mine, int64_t theirs, int64_t value) noexcept nogil:
    """``nardy_fast.cube.matchplay._prime``."""
    return 2 * value if mine < 2 * value <= theirs else value


cdef void cash_points(const double *p, const Score *s, int64_t cube, double *mine, double *theirs) noexcept nogil:
    """``nardy_fast.cube.matchplay.cash_points``."""
    cdef double g[2]
    cdef double b[2]
    cdef double live[2][CUBE_LEVELS + 1]
    cdef double gk, bk, go, bo, single_k, single_o, cash, lose, win, pass_redouble
    cdef int64_t i = s.away - 1, j = s.opponent_away - 1, dead = cube, value, v
    cdef int64_t primes[2]
    cdef int top = 0, level, k
    ratios(p, g, b)
    while i >= 2 * dead and j >= 2 * dead:
        top += 1
        dead *= 2
    value = dead
    level = top
    while value >= cube:
        primes[0] = cube_prime(i, j, value)
        primes[1] = cube_prime(j, i, value)
        for k in range(2):
            gk = g[k]
            bk = b[k]
            go = g[1 - k]
            bo = b[1 - k]
            single_k = 1.0 - gk - bk
            single_o = 1.0 - go - bo
            cash = score_mwc(s, k, value, 0)
            if i < 2 * value or j < 2 * value:
                v = primes[k]
                lose = (single_o * score_mwc(s, k, 0, 2 * v) + go * score_mwc(s, k, 0, 4 * v)
                        + bo * score_mwc(s, k, 0, 6 * v))
                win = (single_k * score_mwc(s, k, 2 * v, 0) + gk * score_mwc(s, k, 4 * v, 0)
                       + bk * score_mwc(s, k, 6 * v, 0))
                live[k][level] = (lose - cash) / (lose - win)
            else:
                pass_redouble = score_mwc(s, k, 0, 2 * value)
                win = (single_k * score_mwc(s, k, 2 * value, 0) + gk * score_mwc(s, k, 4 * value, 0)
                       + bk * score_mwc(s, k, 6 * value, 0))
                live[k][level] = 1.0 - live[1 - k][level + 1] * (cash - win) / (pass_redouble - win)
        value //= 2
        level -= 1
    mine[0] = live[0][0]
    theirs[0] = live[1][0]


cdef double dead_mwc(const double *p, const Score *s, int64_t cube) noexcept nogil:
    """``nardy_fast.cube.matchplay.dead_mwc``."""
    cdef double single_win = p[0] - p[1], single_loss = 1.0 - p[0] - p[3]
    return (single_win * score_mwc(s, 0, cube, 0)
            + (p[1] - p[2]) * score_mwc(s, 0, 2 * cube, 0)
            + p[2] * score_mwc(s, 0, 3 * cube, 0)
            + single_loss * score_mwc(s, 0, 0, cube)
            + (p[3] - p[4]) * score_mwc(s, 0, 0, 2 * cube)
            + p[4] * score_mwc(s, 0, 0, 3 * cube))


cdef inline bint cube_is_live(const Score *s, int64_t cube) noexcept nogil:
    """``nardy_fast.cube.matchplay.cube_is_live``."""
    if s.away <= cube and s.opponent_away <= cube:
        return False
    if s.away == 2 and s.opponent_away == 2:
        return False
    return not s.crawford


cdef double cubeful_mwc(const double *p, const Score *s, int64_t cube, int owner, double x) noexcept nogil:
    """``nardy_fast.cube.matchplay.cubeful_mwc`` of one row."""
    cdef double dead = dead_mwc(p, s, cube), mine, theirs, cash, opp_cash, lose_all, win_all
    cdef double opp_too_good, too_good, below, above, live, win_p = p[0]
    cdef double g[2]
    cdef double b[2]
    if not cube_is_live(s, cube):
        return dead
    ratios(p, g, b)
    cash_points(p, s, cube, &mine, &theirs)
    cash = score_mwc(s, 0, cube, 0)
    opp_cash = score_mwc(s, 0, 0, cube)
    lose_all = ((1.0 - g[1] - b[1]) * opp_cash + g[1] * score_mwc(s, 0, 0, 2 * cube)
                + b[1] * score_mwc(s, 0, 0, 3 * cube))
    win_all = (1.0 - g[0] - b[0]) * cash + g[0] * score_mwc(s, 0, 2 * cube, 0) + b[0] * score_mwc(s, 0, 3 * cube, 0)
    opp_too_good = 1.0 - theirs
    too_good = mine
    if win_p <= opp_too_good and owner != OWNER_OWN:
        below = lose_all + (opp_cash - lose_all) * win_p / opp_too_good if opp_too_good > 0.0 else lose_all
        live = below
    elif owner == OWNER_CENTRED and win_p < too_good:
        live = opp_cash + (cash - opp_cash) * (win_p - opp_too_good) / (too_good - opp_too_good)
    elif owner == OWNER_OWN and win_p <= too_good:
        live = lose_all + (cash - lose_all) * win_p / too_good if too_good > 0.0 else lose_all
    elif owner == OWNER_OPPONENT:
        if win_p != opp_too_good:
            live = opp_cash + (win_all - opp_cash) * (win_p - opp_too_good) / (1.0 - opp_too_good)
        else:
            live = win_all
    else:
        above = cash + (win_all - cash) * (win_p - too_good) / (1.0 - too_good) if too_good < 1.0 else win_all
        live = above
    return dead * (1.0 - x) + live * x


cdef double efficiency(const CubeSession *S, const Pos *p) noexcept nogil:
    """``nardy_fast.cubeful.efficiencies`` of one row at 0 ply: by its variant and class, a race's in the pips
    of the side on roll (single precision, as GNU Backgammon computes it)."""
    cdef const double *e = S.eff[p.variant]
    cdef int8_t own[24]
    cdef int i, pips
    cdef float x
    cdef double xd
    if is_over(p):
        return 0.0
    if not pos_is_race(p):
        return e[EFF_CONTACT]
    if pos_is_bearoff(p) and p.npending == 0:
        return e[EFF_BEAROFF]
    renumber(p.board, own, p.turn, not V_SHORT[p.variant])
    pips = 25 * p.bar[p.turn]
    for i in range(24):
        if own[i] > 0:
            pips += own[i] * (i + 1)
    x = (<float> pips) * (<float> e[EFF_FACTOR]) + (<float> e[EFF_COEFFICIENT])
    xd = <double> x
    xd = xd if xd > e[EFF_MIN] else e[EFF_MIN]
    return xd if xd < e[EFF_MAX] else e[EFF_MAX]


# --- the players' cube actions: twins of nardy_fast.cubeplay's -------------------------------------------------


cdef int cube_lines(const CubeSession *S, Seat *seat, int strategy, const Pos *p, const CubeState *c,
                    double *e, double *v, bint *money) noexcept nogil:
    """``nardy_fast.cubeplay._decisions`` of one row for ``seat`` playing ``strategy`` (janowski or money): the
    outputs ``v`` of ``p``'s side to move by the seat's evaluator at 0 ply, and the normalised equities ``e`` of
    no double, double-take and double-pass (``money``: the game seen as a money game: janowski at money play,
    or the money strategy); 0 or the evaluator's ``E_*`` code."""
    cdef int side = p.turn, owner
    cdef double x, win, lose
    cdef Score s
    cdef int status = value0(seat.search, NULL, p, v)
    if status < 0:
        return status
    x = efficiency(S, p)
    owner = OWNER_CENTRED if c.owner < 0 else OWNER_OWN if c.owner == side else OWNER_OPPONENT
    money[0] = S.length == 0 or strategy == STRATEGY_MONEY
    if money[0]:
        e[0] = money_cubeful(v, x, owner, S.jacoby and S.length == 0)
        e[1] = 2.0 * money_cubeful(v, x, OWNER_OPPONENT, False)
        e[2] = 1.0
        return 0
    s.S = S
    s.away = S.length - c.score[side]
    s.opponent_away = S.length - c.score[1 - side]
    s.crawford = c.crawford
    win = score_mwc(&s, 0, c.value, 0)
    lose = score_mwc(&s, 0, 0, c.value)
    e[0] = (2.0 * cubeful_mwc(v, &s, c.value, owner, x) - (win + lose)) / (win - lose)
    e[1] = (2.0 * cubeful_mwc(v, &s, 2 * c.value, OWNER_OPPONENT, x) - (win + lose)) / (win - lose)
    e[2] = (2.0 * win - (win + lose)) / (win - lose)
    return 0


cdef int doubles(const CubeSession *S, Seat *seat, int strategy, const Pos *p, const CubeState *c,
                 bint *double_) noexcept nogil:
    """``nardy_fast.cubeplay.doubles`` of one row whose side to move may double: by the thresholds, or the
    proper action of ``proper_actions`` turning the cube (``is_double``)."""
    cdef double e[3]
    cdef double v[5]
    cdef double nd, dt, dp
    cdef bint money, doubling, takes, beaverable
    cdef int status
    double_[0] = False
    if strategy == STRATEGY_NEVER:
        return 0
    if strategy == STRATEGY_THRESHOLD:
        status = value0(seat.search, NULL, p, v)
        if status == 0:
            double_[0] = WINDOW_LOW < equity_of(v) < WINDOW_HIGH
        return status
    status = cube_lines(S, seat, strategy, p, c, e, v, &money)
    if status < 0:
        return status
    nd, dt, dp = e[0], e[1], e[2]
    doubling = dt >= nd and dp >= nd
    takes = doubling and dp > dt
    beaverable = money and S.beavers and S.length == 0 and -2.0 <= dt <= 0.0
    # the actions that turn the cube, in proper_actions's order: every double but "No double, beaver" and,
    # where the side on roll cannot win, "No double, take"
    double_[0] = doubling and (not takes or (beaverable and not dt * 2.0 < nd) or (not beaverable and v[0] > 0.0))
    return 0


cdef int answers(const CubeSession *S, Seat *seat, int strategy, const Pos *p, const CubeState *c,
                 int *answer) noexcept nogil:
    """``nardy_fast.cubeplay.responses`` of one row: how ``seat``, doubled by ``p``'s side to move, answers."""
    cdef double e[3]
    cdef double v[5]
    cdef bint money
    cdef int status
    answer[0] = ANSWER_TAKE
    if strategy == STRATEGY_NEVER:
        return 0
    if strategy == STRATEGY_THRESHOLD:
        status = value0(seat.search, NULL, p, v)
        if status == 0 and not equity_of(v) < TAKE_BELOW:
            answer[0] = ANSWER_PASS
        return status
    status = cube_lines(S, seat, strategy, p, c, e, v, &money)
    if status < 0:
        return status
    if not e[1] <= e[2]:
        answer[0] = ANSWER_PASS
    elif S.length == 0 and S.beavers and e[1] < 0.0:
        answer[0] = ANSWER_BEAVER
    return 0
