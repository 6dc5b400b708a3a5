# Games with the doubling cube in C (docs/rules.md, The doubling cube; Match play): the games of a cubeful duel
# or rollout played with their cube and match state as nardy_fast.cubeloop plays them (a cube phase at the
# start of each turn, the match's games one after another), the same decisions on the same dice.
# Uses: tables, memory, results, hint, games, seats, cubeplay.
# Offers: nothing.

# --- the games: nardy_fast.cubeloop's loop -----------------------------------------------------------------------


cdef int cube_phase(const CubeSession *S, Seat **seats, const int *strategies, const Pos *p, CubeState *c,
                    bint *passed) noexcept nogil:
    """``CubeLockstep.cube_phase`` of one game at the start of a turn of ``p``'s side to move, whose seat and
    strategy are ``seats[side]`` and ``strategies[side]``: where it may double (``CubeLockstep.may_double``),
    its double and the other side's answer; ``passed`` where the game ends by a pass. 0 or an ``E_*`` code."""
    cdef int side = p.turn, answer = ANSWER_TAKE, status
    cdef int64_t mine, theirs
    cdef bint double_ = False, post
    passed[0] = False
    if not (c.owner < 0 or c.owner == side) or 2 * c.value > CUBE_MAX:
        return 0
    if S.length:
        mine = S.length - c.score[side]
        theirs = S.length - c.score[1 - side]
        post = not c.crawford and (mine == 1 or theirs == 1)
        if c.crawford or mine <= c.value or (post and mine == 1):
            return 0
    status = doubles(S, seats[side], strategies[side], p, c, &double_)
    if status < 0 or not double_:
        return status
    status = answers(S, seats[1 - side], strategies[1 - side], p, c, &answer)
    if status < 0:
        return status
    if answer == ANSWER_BEAVER and S.length == 0 and S.beavers and 4 * c.value <= CUBE_MAX:
        c.value *= 4
        c.owner = 1 - side
    elif answer != ANSWER_PASS:
        c.value *= 2
        c.owner = 1 - side
    else:
        passed[0] = True
    return 0


cdef int cube_game(GameLoop *L, const CubeSession *S, Seat **seats, const int *strategies, const Pos *start,
                   uint64_t game, bint hold, CubeState *c, int8_t *winner, int64_t *points,
                   int64_t *plies_played) noexcept nogil:
    """Game ``game`` from ``start`` with the cube ``c`` (its value and owner move with the game's cube
    actions), as ``nardy_fast.cubeloop.play_cubeful`` plays it: a cube phase at the start of each turn (not
    before the first ply of a variant's start, whose opening is rolled; nor, with ``hold``, before the first
    ply: a rollout's no-double line), then the ply by ``ply_choice``. ``winner`` the side that won (-1: given
    up at a ply over max_results or at MAX_PLIES) and ``points`` its multiple times the cube (the cube's value
    for a pass; a money game under the Jacoby rule with the cube centred scores 1); the plies it played are
    added to ``plies_played`` (a playout's records count them). 0, an ``E_*`` code or ``GAMES_STOPPED``."""
    cdef Pos p, after
    cdef int d1 = 0, d2 = 0, white = 0, black = 0, count, status, last = -1, side, multiple
    cdef int32_t plies = 0
    cdef uint64_t rolls = 0
    cdef bint passed = False, start_of_turn
    memcpy(&p, start, sizeof(Pos))
    winner[0] = -1
    points[0] = 0
    if L.from_start:
        who_starts(L.seed, game, &white, &black)
        p.turn = 1 if black > white else 0
        opening_roll(white, black, L.single_dice, &d1, &d2)
    if d1 == 0 and rolls_next(&p):
        game_roll(L.seed, game, rolls, L.stratify, &d1, &d2)
        rolls += 1
    while not is_over(&p) and plies < GAME_MAX_PLIES:
        if L.stop[0]:
            return GAMES_STOPPED
        side = p.turn
        start_of_turn = d1 != 0 and (last != side if plies > 0 else not L.from_start)
        if start_of_turn and not (hold and plies == 0):
            status = cube_phase(S, seats, strategies, &p, c, &passed)
            if status < 0:
                L.failed = seats[side].search
                return status
            if passed:
                winner[0] = side
                points[0] = c.value
                plies_played[0] += plies
                return 0
        count = ply_choice(L, seats[side], &p, d1, d2, game, plies, &after)
        if count == E_LIMIT:
            plies_played[0] += plies
            return 0
        if count < 0:
            return count
        last = side
        plies += 1
        p = after
        d1 = 0
        d2 = 0
        if rolls_next(&p):
            game_roll(L.seed, game, rolls, L.stratify, &d1, &d2)
            rolls += 1
    plies_played[0] += plies
    if is_over(&p):
        winner[0] = 0 if p.off[0] == 15 else 1
        multiple = game_points(&p)
        if S.jacoby and c.owner < 0 and multiple > 1:
            multiple = 1
        points[0] = multiple * c.value
    return 0


cdef int cube_record(GameLoop *L, const CubeSession *S, int64_t number, bint swap, CubeState *c, bint hold,
                     double *result, int8_t *winner, int64_t *points, int64_t *tally) noexcept nogil:
    """One record of a cubeful duel or rollout (``CubeLockstep``'s slot): a money game, a rollout's trial (one
    game from ``c``), or a whole match from the session's score, game ``j`` numbered ``number * per_match +
    j``; ``swap``: ``a`` plays Black. ``result``: a money game's points for ``a``, or 1 for a match ``a`` won,
    0 for one it lost, 0.5 for one left undecided; ``winner`` and ``points``: its last game's; ``tally``: the
    plies of all its games and how many games it played (a playout's records; ``c`` ends with the final score)."""
    cdef Seat *seats[2]
    cdef int strategies[2]
    cdef int64_t played = 0, game
    cdef int status, w
    cdef bint was_post, was_crawford
    seats[0] = &L.players[<int> swap]
    seats[1] = &L.players[1 - <int> swap]
    strategies[0] = S.strategy[<int> swap]
    strategies[1] = S.strategy[1 - <int> swap]
    tally[0] = 0
    tally[1] = 0
    while True:
        game = number if S.length == 0 or S.single else number * S.per_match + played
        status = cube_game(L, S, seats, strategies, &L.starts[game % L.nstarts], <uint64_t> game, hold and played == 0,
                           c, winner, points, &tally[0])
        if status < 0:
            return status
        tally[1] += 1
        w = winner[0]
        if S.length == 0 or S.single:
            result[0] = 0.0 if w < 0 else <double> (points[0] if w == <int> swap else -points[0])
            return 0
        if w >= 0:
            was_post = not c.crawford and (S.length - c.score[0] == 1 or S.length - c.score[1] == 1)
            was_crawford = c.crawford
            c.score[w] = min(S.length, c.score[w] + points[0])
            if c.score[w] >= S.length:
                result[0] = 1.0 if w == <int> swap else 0.0
                return 0
            c.crawford = not was_post and not was_crawford and S.length - c.score[w] == 1
        played += 1
        if played >= S.per_match:
            result[0] = 0.5
            return 0
        c.value = 1
        c.owner = -1


cdef int session_open(CubeSession *S, object cube, object seats) except -1:
    """``S`` from ``cube`` (``nardy_fast.cubeargs.CubeArgs``), checked: a strategy per seat (one that evaluates
    needs a greedy seat's search), the table (square, at most ``MET_ROOM``, covering the match) and the
    efficiencies (finite, one row per variant)."""
    cdef const double[:, ::1] pre = np.ascontiguousarray(cube.pre, dtype=np.float64)
    cdef const double[::1] post = np.ascontiguousarray(cube.post, dtype=np.float64)
    cdef const double[:, ::1] eff = np.ascontiguousarray(cube.efficiencies, dtype=np.float64)
    cdef int k, i, j
    memset(S, 0, sizeof(CubeSession))
    S.length = cube.length
    S.score[0], S.score[1] = cube.score
    S.crawford = cube.crawford
    S.jacoby = cube.jacoby
    S.beavers = cube.beavers
    S.single = cube.single
    S.per_match = cube.per_match
    S.size = pre.shape[0]
    if not (0 < S.size <= MET_ROOM and pre.shape[1] == S.size and post.shape[0] == S.size):
        raise _field_error(_NardyError, "table", f"must be square, 1 to {MET_ROOM} long", (pre.shape[0], pre.shape[1]))
    if not (S.length == 0 or (S.length <= S.size and 0 <= S.score[0] < S.length and 0 <= S.score[1] < S.length)):
        raise _field_error(_NardyError, "match", "must be covered by the table, its score below its length",
                           (S.length, cube.score))
    if S.length == 0 and (S.score[0] or S.score[1] or S.crawford):
        raise _field_error(_NardyError, "match", "money play has no score", cube.score)
    if S.per_match < 1 or eff.shape[0] < NVARIANTS or eff.shape[1] != EFF_FIELDS:
        raise _field_error(_NardyError, "cube", "per_match and efficiencies do not agree", (S.per_match, eff.shape[0]))
    for i in range(S.size):
        S.post[i] = post[i]
        for j in range(S.size):
            S.pre[i * S.size + j] = pre[i, j]
    for i in range(NVARIANTS):
        for j in range(EFF_FIELDS):
            if not 0.0 <= eff[i, j] <= 1.0:
                raise _field_error(_NardyError, "efficiencies", "must be in [0, 1]", (i, j))
            S.eff[i][j] = eff[i, j]
    for k in range(2):
        S.strategy[k] = cube.strategies[k]
        if not 0 <= S.strategy[k] < len(_STRATEGIES):
            raise _field_error(_NardyError, "strategies", f"must be codes of {_STRATEGIES}", cube.strategies)
        if S.strategy[k] != STRATEGY_NEVER and seats[k].evaluator < 0:
            raise _field_error(_NardyError, "strategies", "need a seat with an evaluator", cube.strategies)
    return 0


def cube_games(object args, object cube, int64_t first, int64_t last, double[::1] result, int8_t[::1] winner,
               int64_t[::1] points, int64_t[::1] value, int64_t[:, ::1] tally, int32_t[::1] stop):
    """Play records ``first`` up to ``last`` of a cubeful duel or rollout, ``args`` its checked playout
    (``nardy_fast.kernels.PlayoutArgs``: the starts, options and seats) and ``cube`` its records and rules
    (``nardy_fast.cubeargs.CubeArgs``), into the given columns, without the GIL (threads may run other ranges
    of the same columns at once): each record's ``result`` (``cube_record``), its last game's ``winner`` and
    ``points``, the cube's ``value`` at its end and its ``tally`` (the plies of all its games, the games it
    played, and the final score: White's, Black's; money play's stays 0-0). ``stop`` as for ``playout_games``: once set, this returns
    within a ply, its columns part-filled."""
    # copies of our own: what is checked here is what the games read without the GIL, whatever another
    # thread does to the caller's arrays meanwhile
    cdef const int64_t[::1] numbers = np.array(cube.numbers, dtype=np.int64, order="C", copy=True)
    cdef const uint8_t[::1] swap = np.array(cube.swap, dtype=np.uint8, order="C", copy=True)
    cdef const int64_t[::1] values = np.array(cube.values, dtype=np.int64, order="C", copy=True)
    cdef const int8_t[::1] owners = np.array(cube.owners, dtype=np.int8, order="C", copy=True)
    cdef const uint8_t[::1] hold = np.array(cube.hold, dtype=np.uint8, order="C", copy=True)
    cdef const int8_t[:, ::1] starts = np.array(args.rows, dtype=np.int8, order="C", copy=True)  # checked once: ours
    cdef int64_t n = numbers.shape[0], limit = args.limit, i
    cdef CubeSession *S = <CubeSession *> calloc(1, sizeof(CubeSession))
    cdef CubeState c
    cdef GameLoop L
    cdef SearchCtx ctx[2]
    cdef Generator workspace = None
    cdef list held = []
    cdef int status = 0
    if S == NULL:
        raise MemoryError()
    memset(ctx, 0, sizeof(ctx))
    try:
        if (not 0 <= first <= last <= n or swap.shape[0] != n or values.shape[0] != n or owners.shape[0] != n
                or hold.shape[0] != n or result.shape[0] < n or winner.shape[0] < n or points.shape[0] < n
                or value.shape[0] < n or tally.shape[0] < n or tally.shape[1] != 4):
            raise _field_error(_NardyError, "cube", "columns and ranges do not agree", (first, last, n))
        loop_options(&L, args, starts, stop)
        session_open(S, cube, args.seats)
        for i in range(n):
            if numbers[i] < 0 or numbers[i] > ((<int64_t> 1 << 62) - S.per_match) // S.per_match:
                raise _field_error(_NardyError, "numbers", "must be game numbers below 2**62", numbers[i])
            if values[i] < 1 or values[i] > CUBE_MAX or values[i] & (values[i] - 1) or not -1 <= owners[i] <= 1:
                raise _field_error(_NardyError, "cube", "must be a power of two up to MAX_CUBE and an owner",
                                   (values[i], owners[i]))
        workspace = take_workspace(limit)
        seats_open(&L, ctx, held, args.seats, limit)
        L.g = workspace.g
        with nogil:
            for i in range(first, last):
                c.value = values[i]
                c.owner = owners[i]
                c.score[0] = S.score[0]
                c.score[1] = S.score[1]
                c.crawford = S.crawford
                status = cube_record(&L, S, numbers[i], swap[i] != 0, &c, hold[i] != 0, &result[i], &winner[i],
                                     &points[i], &tally[i, 0])
                if status < 0:
                    break
                value[i] = c.value
                tally[i, 2] = c.score[0]
                tally[i, 3] = c.score[1]
        if status == GAMES_STOPPED:
            return None
        hint_status(status, L.failed if L.failed != NULL else &ctx[0])
        return None
    finally:
        search_close(&ctx[0], held)
        search_close(&ctx[1], held)
        if workspace is not None:
            give_back(workspace)
        free(S)
