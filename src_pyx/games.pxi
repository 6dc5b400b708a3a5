# Whole games in C: the seeded dice of nardy_fast.dice (the same numbers, word for word), turn sequencing
# (docs/rules.md, Who starts: who starts, the opening roll; moves, extra rolls and transfer segments follow
# from each result's next state, What follows a move), scoring (Game end and scoring), and nardy_fast.game's
# playout loop without the GIL, a policy per seat (seats.pxi sets a loop up from Python).
# Uses: tables, memory, rules, search, results, bearoff, hint.
# Offers: play_games, ply_choice, who_starts, opening_roll, game_roll, rolls_next.

cdef enum:
    STREAM_START = 1   # nardy_fast.dice.START, ROLL, CHOICE
    STREAM_ROLL = 2
    STREAM_CHOICE = 3

# a game still going after this many plies is given up (nardy_fast.turns.MAX_PLIES)
cdef int32_t GAME_MAX_PLIES = _MAX_PLIES
# the built-in policies and openings by their index in nardy_fast.turns's tables (PlayoutArgs carries the index)
cdef int POLICY_FIRST = _POLICIES.index("first")
cdef int OPENING_SINGLE_DICE = _OPENINGS.index("use_single_dice")
# the winner of a game given up at a ply over the playout's max_results (nardy_fast.turns.LIMITED)
cdef int GIVEN_UP_LIMIT = _LIMITED

cdef enum:
    # what play_game returns when its playout's stop flag was set (another thread of the playout failed, or
    # was interrupted): not a failure of its own, so not an E_* code
    GAMES_STOPPED = -100


cdef inline uint64_t dice_mix(uint64_t z) noexcept nogil:
    """One step of SplitMix64 from state ``z`` (``nardy_fast.dice.mix``)."""
    z += 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t dice_word(uint64_t seed, uint64_t game, uint64_t counter, uint64_t stream,
                               uint64_t j) noexcept nogil:
    """``nardy_fast.dice.word``."""
    return dice_mix(dice_mix(dice_mix(seed) ^ game) ^ ((counter << 8) | (stream << 4) | j))


cdef void two_dice(uint64_t seed, uint64_t game, uint64_t counter, uint64_t stream, int *a,
                   int *b) noexcept nogil:
    """The first two dice of ``stream`` at ``counter`` (``nardy_fast.dice.roll``, ``single_dice``): bytes
    below 252 of the words in turn, lowest byte first, each giving ``byte % 6 + 1``."""
    cdef int got = 0, shift, byte
    cdef uint64_t w, j = 0
    while got < 2:
        w = dice_word(seed, game, counter, stream, j)
        for shift in range(0, 64, 8):
            byte = <int> ((w >> shift) & 0xFF)
            if byte < 252:
                if got == 0:
                    a[0] = byte % 6 + 1
                else:
                    b[0] = byte % 6 + 1
                got += 1
                if got == 2:
                    break
        j += 1


cdef void game_roll(uint64_t seed, uint64_t game, uint64_t counter, bint stratify, int *a, int *b) noexcept nogil:
    """Roll ``counter`` of game ``game`` (``nardy_fast.dice.roll``): when stratified, the first two are the
    game number's pair of the 36 x 36 ordered pairs of dice."""
    cdef uint64_t pair
    if stratify and counter < 2:
        pair = (game if counter == 0 else game // 36) % 36
        a[0] = <int> (pair // 6) + 1
        b[0] = <int> (pair % 6) + 1
    else:
        two_dice(seed, game, counter, STREAM_ROLL, a, b)


cdef inline int64_t dice_choice(uint64_t seed, uint64_t game, uint64_t ply, uint64_t n) noexcept nogil:
    """A uniform choice in 0..n-1 (``nardy_fast.dice.choice``): the first word below 2**64 - 2**64 % n."""
    cdef uint64_t rem = (<uint64_t> 0 - n) % n
    cdef uint64_t w, j = 0
    while True:
        w = dice_word(seed, game, ply, STREAM_CHOICE, j)
        if w <= 0xFFFFFFFFFFFFFFFFULL - rem:
            return <int64_t> (w % n)
        j += 1


cdef struct Traj:
    Pos *rows
    int8_t *rolls  # two per row
    int64_t n
    int64_t cap


cdef int traj_add(Traj *t, const Pos *p, int d1, int d2) noexcept nogil:
    """Append a position and the roll played from it; E_MEMORY when memory ran out."""
    cdef int64_t cap
    if t.n == t.cap:
        cap = grown(t.cap, t.n + 1, 1024)
        if resized(<void **> &t.rows, cap, sizeof(Pos)) < 0 or resized(<void **> &t.rolls, cap, 2) < 0:
            return E_MEMORY
        t.cap = cap
    memcpy(&t.rows[t.n], p, sizeof(Pos))
    t.rolls[2 * t.n] = <int8_t> d1
    t.rolls[2 * t.n + 1] = <int8_t> d2
    t.n += 1
    return 0


# --- the turn contract: twins of nardy_fast.turns's who_starts, opening_roll and rolls_next ---------------------


cdef void who_starts(uint64_t seed, uint64_t game, int *white, int *black) noexcept nogil:
    """``nardy_fast.turns.who_starts``: one die each (the START stream), ties roll again."""
    cdef uint64_t k = 0
    while True:
        two_dice(seed, game, k, STREAM_START, white, black)
        if white[0] != black[0]:
            return
        k += 1


cdef void opening_roll(int white, int black, bint single_dice, int *d1, int *d2) noexcept nogil:
    """``nardy_fast.turns.opening_roll``: the single dice, higher first, under ``use_single_dice``; else 0-0
    (the starter rolls two fresh dice)."""
    if single_dice:
        d1[0] = white if white > black else black
        d2[0] = black if white > black else white
    else:
        d1[0] = 0
        d2[0] = 0


cdef inline bint stops_truncated(const Pos *p) noexcept nogil:
    """Where ``truncate="bearoff"`` stops a game: a bear-off position whose side to move rolls (one with a
    pending list plays it first: race values are those of a side about to roll)."""
    return p.npending == 0 and pos_is_bearoff(p)


cdef inline bint stops_at_ply(const Pos *p, int32_t plies, int32_t most) noexcept nogil:
    """Where ``truncate_plies=most`` (> 0) stops a game: after ``most`` plies, at a position whose side to move
    rolls (a pending list is played first)."""
    return most > 0 and plies >= most and p.npending == 0


cdef inline bint rolls_next(const Pos *p) noexcept nogil:
    """``nardy_fast.turns.rolls_next``: the side to move rolls unless the game is over or a transfer segment
    is pending."""
    return not is_over(p) and p.npending == 0


cdef struct Seat:
    # one side's policy in the loop: with ``search`` (not NULL), the first move of the hint's ranking at ``plies``
    # by that search's evaluator (``hint_rank``); else the first result (``first``) or a seeded random one
    SearchCtx *search
    int plies
    bint first


cdef struct GameLoop:
    # what the games of one thread's range share: the starts, the options and the two players of a checked
    # playout or duel (nardy_fast.kernels.PlayoutArgs), where their positions go and the playout's stop flag
    Gen *g                              # the search of the seats that do not search with a hint
    const Pos *starts
    int64_t nstarts
    int64_t number0                     # record i is game number0 + i; paired, number0 + i // 2
    uint64_t seed
    bint from_start
    bint single_dice
    bint stratify
    bint truncate
    int32_t truncate_plies              # stop after this many plies at a position whose side rolls; 0: never
    bint paired                         # a duel: records 2k and 2k + 1 play one game, the players swapped
    bint last_only
    Traj *traj                          # NULL: no positions kept
    const volatile int32_t *stop        # volatile: another thread sets it while this one runs
    Seat players[2]                     # a and b (a playout: its policy twice); by colour in play_game
    SearchCtx *failed                   # the search of the seat whose ply failed, for hint_status


cdef inline int ply_choice(GameLoop *L, Seat *seat, Pos *p, int d1, int d2, uint64_t game, int32_t ply,
                           Pos *after) noexcept nogil:
    """The ply ``ply`` of game ``game`` from ``p`` for the roll d1-d2 (0-0: its pending list) by ``seat``: the
    first move, a seeded random one (the choice of ``game`` at ``ply``), or the first of a hint's ranking, into
    ``after``; the number of results, or ``E_LIMIT`` (the ply's search is over the playout's max_results) or
    another ``E_*`` code (``L.failed`` set to the seat's search)."""
    cdef Result made
    cdef int count, extra
    cdef int32_t best = 0
    cdef int64_t pick
    if seat.search != NULL:
        count = hint_rank(seat.search, p, d1, d2, seat.plies, &best)
    else:
        setup(L.g, p, d1, d2)
        count = search(L.g)
    if count < 0:
        if count != E_LIMIT:
            L.failed = seat.search
        return count
    if seat.search != NULL:
        after[0] = seat.search.lv[0].rows[best]
    else:
        pick = 0 if seat.first else dice_choice(L.seed, game, <uint64_t> ply, <uint64_t> count)
        result_pos(L.g, p, result_at(L.g, pick, &made), d1, d2, after, &extra)
    return count


cdef int play_game(GameLoop *L, Seat **seats, const Pos *start, uint64_t game, int32_t *plies, int32_t *turns,
                   int8_t *winner, int8_t *points) noexcept nogil:
    """Play game ``game`` from ``start`` (from a variant's start: roll who starts and the opening first) to its
    end, or with ``L.truncate`` to its first bear-off position, or with ``L.truncate_plies`` to the first position
    whose side rolls after that many plies (winner -2, nardy_fast.turns.TRUNCATED, for both), as
    ``nardy_fast.game.Game`` and ``python_playout`` do, appending its positions (``last_only``: its last one)
    to ``L.traj`` unless it is NULL; 0, an ``E_*`` code, or ``GAMES_STOPPED`` as soon as a ply finds the stop
    flag set. The side to move plays by its seat, ``seats[0]`` White's and ``seats[1]`` Black's: the first
    move, a seeded random one (the choice of ``game`` at its ply), or the first of a hint's ranking."""
    cdef Pos p, after
    cdef int d1 = 0, d2 = 0, white = 0, black = 0, count
    cdef bint limited = False
    cdef uint64_t rolls = 0
    # the loop's options in locals: the compiler keeps them in registers, as it cannot keep L's fields across
    # the stores through plies and turns
    cdef uint64_t seed = L.seed
    cdef bint stratify = L.stratify, truncate = L.truncate
    cdef int32_t most = L.truncate_plies
    cdef const volatile int32_t *stop = L.stop
    cdef Traj *traj = L.traj
    memcpy(&p, start, sizeof(Pos))
    plies[0] = 0
    turns[0] = 0
    if L.from_start:
        who_starts(seed, game, &white, &black)
        p.turn = 1 if black > white else 0
        opening_roll(white, black, L.single_dice, &d1, &d2)
    if d1 == 0 and rolls_next(&p):
        game_roll(seed, game, rolls, stratify, &d1, &d2)
        rolls += 1
    while (not is_over(&p) and plies[0] < GAME_MAX_PLIES and not (truncate and stops_truncated(&p))
           and not stops_at_ply(&p, plies[0], most)):
        if stop[0]:
            return GAMES_STOPPED
        count = ply_choice(L, seats[p.turn], &p, d1, d2, game, plies[0], &after)
        if count == E_LIMIT:  # only the ply's own search is bounded (play_games sets no other limit)
            # the ply's search would hold more than max_results positions: the game is given up here
            limited = True
            break
        if count < 0:
            return count
        if traj != NULL and not L.last_only and traj_add(traj, &p, d1, d2) < 0:
            return E_MEMORY
        turns[0] += d1 != 0
        plies[0] += 1
        p = after
        d1 = 0
        d2 = 0
        if rolls_next(&p):
            game_roll(seed, game, rolls, stratify, &d1, &d2)
            rolls += 1
    if traj != NULL and traj_add(traj, &p, 0, 0) < 0:
        return E_MEMORY
    if limited:
        winner[0] = GIVEN_UP_LIMIT
    else:
        winner[0] = (0 if p.off[0] == 15 else 1 if p.off[1] == 15
                     else -2 if (truncate and stops_truncated(&p)) or stops_at_ply(&p, plies[0], most) else -1)
    points[0] = <int8_t> game_points(&p) if winner[0] >= 0 else 0
    return 0


cdef int play_games(GameLoop *L, int64_t first, int64_t last, int8_t *winner, int8_t *points, int32_t *plies,
                    int32_t *turns) noexcept nogil:
    """Records ``first`` up to ``last``: record ``i`` is game number ``number0 + i`` from start ``number %
    nstarts``, both sides playing by ``L.players[0]`` (a playout: its two players are one policy); ``paired``,
    game ``number0 + i // 2``, ``players[0]`` White in even records and Black in odd ones (a duel on
    duplicate dice). 0, an ``E_*`` code or ``GAMES_STOPPED`` (see ``play_game``)."""
    cdef int64_t i, number
    cdef int status, swap = 0
    cdef Seat *seats[2]
    for i in range(first, last):
        number = L.number0 + i
        if L.paired:
            number = L.number0 + i // 2
            swap = <int> (i & 1)
        seats[0] = &L.players[swap]
        seats[1] = &L.players[1 - swap]
        status = play_game(L, seats, &L.starts[number % L.nstarts], <uint64_t> number, &plies[i], &turns[i],
                           &winner[i], &points[i])
        if status < 0:
            return status
    return 0


def game_rolls(uint64_t seed, const int64_t[::1] games, const int64_t[::1] counters, bint stratify):
    """``nardy_fast.dice.game_rolls``: roll ``counters[i]`` of game ``games[i]`` for every ``i``, (N, 2) int8."""
    cdef Py_ssize_t n = games.shape[0], i
    cdef int a = 0, b = 0
    if counters.shape[0] != n:
        raise _field_error(_NardyError, "counters", "must be as long as games", (n, counters.shape[0]))
    for i in range(n):
        if games[i] < 0 or counters[i] < 0:
            raise _field_error(_NardyError, "games", "and counters must not be negative", i)
    out = np.zeros((n, 2), dtype=np.int8)
    cdef int8_t[:, ::1] o = out
    with nogil:
        for i in range(n):
            game_roll(seed, <uint64_t> games[i], <uint64_t> counters[i], stratify, &a, &b)
            o[i, 0] = <int8_t> a
            o[i, 1] = <int8_t> b
    return out
