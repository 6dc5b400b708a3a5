# The C game loop's Python entry: a checked playout or duel (nardy_fast.kernels.PlayoutArgs) set up as one
# GameLoop, a policy per seat (random, first, or greedy with a built-in evaluator and its own search), and
# one thread's range of its games played without the GIL.
# Uses: memory, gate, results, hint, games.
# Offers: loop_options, seats_open.


cdef int seat_open(Seat *seat, SearchCtx *ctx, list held, object spec, int64_t limit) except -1:
    """``seat`` as ``spec`` (a ``nardy_fast.kernels.Seat``) says: with a built-in evaluator (``spec.evaluator``
    >= 0, its ``tables``) a search of ``spec.plies`` in ``ctx``, its workspaces taken into ``held``, the ply's
    own search bounded by ``limit`` (0: none; the look-ahead is not bounded); else the first move or a random
    one."""
    cdef int kind = spec.evaluator
    if kind < 0 and spec.policy < 0:
        raise _field_error(_NardyError, "seat", "is played by its chooser in lock-step, not by the game loop", spec)
    memset(seat, 0, sizeof(Seat))
    seat.first = spec.policy == POLICY_FIRST
    if kind >= 0:
        seat.plies = spec.plies
        search_open(ctx, held, kind, spec.tables, seat.plies)
        ctx.lv[0].g.limit = limit
        seat.search = ctx
    return 0


cdef int loop_options(GameLoop *L, object args, const int8_t[:, ::1] starts, int32_t[::1] stop) except -1:
    """``L`` cleared and set to the starts, options and stop flag of ``args``, a checked playout, duel or
    cubeful game loop (``nardy_fast.kernels.PlayoutArgs``), which holds ``starts`` (``args.rows``)."""
    cdef int64_t i
    memset(L, 0, sizeof(GameLoop))
    L.nstarts = starts.shape[0]
    if starts.shape[1] != WIDTH or L.nstarts < 1 or stop.shape[0] != 1:
        raise _field_error(_NardyError, "playout", "columns and ranges do not agree", L.nstarts)
    L.starts = <const Pos *> &starts[0, 0]
    for i in range(L.nstarts):
        if not pos_ok(&L.starts[i]) or is_over(&L.starts[i]):
            raise _field_error(_NardyError, "start", "is not a valid unfinished position", i)
    if args.limit < 0:
        raise _field_error(_NardyError, "max_results", "must be a positive integer or None", args.limit)
    L.seed = args.seed
    L.from_start = args.from_start
    L.single_dice = args.opening == OPENING_SINGLE_DICE
    L.stratify = args.stratify
    L.stop = &stop[0]
    return 0


cdef int seats_open(GameLoop *L, SearchCtx *ctx, list held, object seats, int64_t limit) except -1:
    """``L.players`` as ``seats`` (a and b) say, a greedy seat's search in ``ctx[0]`` or ``ctx[1]`` (one
    policy in both seats: one search)."""
    a, b = seats
    seat_open(&L.players[0], &ctx[0], held, a, limit)
    if b is a:
        L.players[1] = L.players[0]
    else:
        seat_open(&L.players[1], &ctx[1], held, b, limit)
    return 0


def playout_games(object args, int64_t first, int64_t last, int8_t[::1] winner, int8_t[::1] points,
                  int32_t[::1] plies, int32_t[::1] turns, int32_t[::1] stop):
    """Play records ``first`` up to ``last`` of ``args``, a checked playout or duel
    (``nardy_fast.kernels.PlayoutArgs``: record ``i`` is game number ``first_game + i``, or in a duel
    ``first_game + i // 2`` with its players swapped in odd records), into the given columns, without the GIL
    (threads may run other ranges of the same columns at once). With ``args.trajectories``, returns the
    positions played (``last_only``: the last of each game) and their rolls, ``(rows (K, 64), rolls (K, 2))``;
    else ``None``.

    Each side plays by its seat (``args.seats``): random, first, or a built-in evaluator's greedy move, the
    first of the hint's ranking at its plies (``hint_rank``), each greedy seat with a search of its own (a
    playout's one policy is one seat twice).

    ``stop`` is the playout's stop flag, one int32 shared by its threads: once another thread sets it (the
    playout failed or was interrupted there), this one returns ``None`` within a ply, its columns part-filled,
    instead of playing the rest of its range; the caller raises the other thread's exception.

    ``args.limit`` > 0 is the playout's ``max_results``: a game whose ply would need a search of more positions
    after one number of steps (the ply's own search; a greedy policy's look-ahead is not bounded) is given up
    there, winner ``GIVEN_UP_LIMIT`` (nardy_fast.turns.LIMITED)."""
    cdef const int8_t[:, ::1] starts = np.array(args.rows, dtype=np.int8, order="C", copy=True)  # checked once: ours
    cdef int64_t games = args.games, number0 = args.first_game, limit = args.limit, needed
    cdef bint trajectories = args.trajectories
    cdef Generator workspace
    cdef GameLoop L
    cdef SearchCtx ctx[2]
    cdef list held = []
    cdef int status
    cdef Traj traj
    cdef cnp.npy_intp dims[2]
    needed = (games + 1) // 2 if args.paired else games
    if (not 0 <= first <= last <= games or winner.shape[0] < games or points.shape[0] < games
            or plies.shape[0] < games or turns.shape[0] < games
            or number0 < 0 or number0 > (<int64_t> 1 << 62) - needed):
        raise _field_error(_NardyError, "playout", "columns and ranges do not agree", (first, last, games))
    loop_options(&L, args, starts, stop)
    L.paired = args.paired
    L.number0 = number0
    L.truncate = args.truncate
    if not 0 <= args.truncate_plies < GAME_MAX_PLIES:  # a PlayoutArgs made by hand, not by check_playout
        raise _field_error(_NardyError, "truncate_plies", "must be an integer 0..MAX_PLIES - 1", args.truncate_plies)
    L.truncate_plies = args.truncate_plies
    L.last_only = args.last_only
    memset(&traj, 0, sizeof(Traj))
    memset(ctx, 0, sizeof(ctx))
    workspace = take_workspace(limit)
    try:
        seats_open(&L, ctx, held, args.seats, limit)
        L.g = workspace.g
        L.traj = &traj if trajectories else NULL
        with nogil:
            status = play_games(&L, first, last, &winner[0], &points[0], &plies[0], &turns[0])
        if status == GAMES_STOPPED:
            return None
        hint_status(status, L.failed if L.failed != NULL else &ctx[0])
        if not trajectories:
            return None
        dims[0] = traj.n
        dims[1] = WIDTH
        out_rows = cnp.PyArray_SimpleNew(2, dims, cnp.NPY_INT8)
        dims[1] = 2
        out_rolls = cnp.PyArray_SimpleNew(2, dims, cnp.NPY_INT8)
        if traj.n:
            memcpy(cnp.PyArray_DATA(out_rows), traj.rows, traj.n * sizeof(Pos))
            memcpy(cnp.PyArray_DATA(out_rolls), traj.rolls, traj.n * 2)
        return out_rows, out_rolls
    finally:
        free(traj.rows)
        free(traj.rolls)
        search_close(&ctx[0], held)
        search_close(&ctx[1], held)
        give_back(workspace)
