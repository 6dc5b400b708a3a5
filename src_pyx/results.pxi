# The next state of each result (docs/rules.md, What follows a move; remainder: Gulbar transfers; extra
# roll: Six-one extra roll, Gulbar extra roll), written as packed rows a word at a time (a crazy ladder's in
# SSE2 where the processor has it: plain_rows.h).
# Uses: tables, numbering, frontier, gate.
# Offers: is_over, result_at, result_pos, write_results, game_points.

cdef uint64_t result_pos(const Gen *g, const Pos *p, const Result *n, int d1, int d2, Pos *out,
                         int *extra) noexcept nogil:
    """Write the position after result ``n`` into ``out`` and return its full Zobrist key."""
    cdef int col = p.turn
    cdef int i, segment = d1 == 0
    cdef bint finished = n.b[XOFF] == 15
    cdef bint again = False
    cdef uint64_t key = n.key ^ g.static_key
    cdef uint64_t base[8]
    memcpy(base, p, sizeof(Pos))
    result_row(n, base, out, col, g.long_family)
    if not segment:
        out.first[col] = 0
        # counted up to the flag (docs/rules.md, Rule flags): NORMAL_DOUBLES rolls play doubles as four steps
        if p.flags & FLAG_NORMAL_DOUBLES and out.rolls_played[col] < NORMAL_DOUBLES:
            out.rolls_played[col] += 1
    # the remainder (Gulbar transfers; gulbar, crazy; not after a segment or a finish)
    out.npending = 0
    if V_TRANSFERS[p.variant] and not segment and not finished:
        for i in range(g.ndice):
            if not (n.used >> i) & 1:
                out.pending[out.npending] = g.dice[i]
                out.npending += 1
    memset(&out.pending[out.npending], 0, 24 - out.npending)
    # the extra roll (Six-one extra roll, Gulbar extra roll)
    if not segment and not finished:
        if V_EXTRA[p.variant] == EXTRA_SIX_ONE:
            again = ((d1 == 6 and d2 == 1) or (d1 == 1 and d2 == 6)) and (
                not (p.flags & FLAG_SIXONE_REQUIRES) or n.nsteps == 2)
        elif V_EXTRA[p.variant] == EXTRA_FULL_DOUBLE:
            again = d1 == d2 and n.nsteps == 4
    extra[0] = again
    # who moves next (What follows a move)
    if finished or not (again or segment) or out.npending:
        out.turn = 1 - col
    else:
        out.turn = col
    if out.turn:
        key ^= KEYS[K_BLACK]
    for i in range(2):
        if out.first[i]:
            key ^= KEYS[K_FIRST + i]
    for i in range(out.npending):
        key ^= KEYS[K_PENDING + 6 * i + out.pending[i] - 1]
    return key ^ PLAYED_KEY[0][out.rolls_played[0]] ^ PLAYED_KEY[1][out.rolls_played[1]]


cdef inline void store_word(Pos *row, int index, uint64_t word) noexcept nogil:
    """Bytes ``8 * index`` up to ``8 * index + 7`` of ``row`` (rows need no alignment)."""
    memcpy((<char *> row) + 8 * index, &word, 8)


cdef inline uint64_t tail_word(uint32_t u, const uint64_t *base, int col) noexcept nogil:
    """Word 3 of a result's row: the bars and X's off from ``u``, the bytes ``Result.b[24..27]`` (M24, X's bar,
    Y's bar, X's off), laid into ``base``'s (the eight words of the row searched, or of its first result); row
    bytes 24..27 are bar[0], bar[1], off[0], off[1]."""
    if col == 0:
        return (base[3] & 0xFFFFFFFFFF000000ULL) | (u >> 8)
    return (base[3] & 0xFFFFFFFF00FF0000ULL) | ((u >> 16) & 0xFF) | (u & 0xFF00FF00u)


cdef inline void row_tail(Pos *row, uint32_t u, const uint64_t *base, int col) noexcept nogil:
    """Words 3 to 7 of a result's row: ``tail_word``, then ``base``'s."""
    store_word(row, 3, tail_word(u, base, col))
    store_word(row, 4, base[4])
    store_word(row, 5, base[5])
    store_word(row, 6, base[6])
    store_word(row, 7, base[7])


cdef inline void result_row(const Result *r, const uint64_t *base, Pos *row, int col, bint long_family
                            ) noexcept nogil:
    """The row of result ``r``: its board (back in White's numbering), bars and X's off laid into ``base`` (the
    eight words of the row searched, or of its first result), made in registers and stored a word at a time."""
    cdef uint64_t w[3]
    cdef uint32_t u
    renumbered(&r.b[1], w, col, long_family)
    store_word(row, 0, w[0])
    store_word(row, 1, w[1])
    store_word(row, 2, w[2])
    memcpy(&u, &r.b[HEAD], 4)
    row_tail(row, u, base, col)


cdef inline void words_row(uint64_t p0, uint64_t p1, uint64_t p2, uint32_t u, const uint64_t *base, Pos *row,
                           int col, bint long_family) noexcept nogil:
    """``result_row`` of a result given as words: ``Result.b[1..24]`` the words ``p0, p1, p2`` and
    ``b[24..27]`` the bytes of ``u``."""
    cdef uint64_t w[3]
    renumbered_words(p0, p1, p2, w, col, long_family)
    store_word(row, 0, w[0])
    store_word(row, 1, w[1])
    store_word(row, 2, w[2])
    row_tail(row, u, base, col)


cdef inline const Result *result_at(const Gen *g, int32_t i, Result *made) noexcept nogil:
    """Result ``i`` of the last search: ``g.res[i]``, or after a crazy ladder's (``g.plain``) made into
    ``made``."""
    if g.plain == NULL:
        return &g.res[i]
    plain_result(g, g.plain[i].w[0], g.plain[i].w[1], g.best, (2u << (g.best - 1)) - 1, made)
    return made


cdef inline void plain_row_words(const Gen *g, const uint64_t *w, const uint64_t *base, int col, Pos *row
                                 ) noexcept nogil:
    """The row of a crazy ladder's result whose board words are ``w`` (``plain_result`` and ``result_row``
    without a ``Result``), in scalar words."""
    cdef uint64_t pts[3]
    plain_points(g.yroot, w[0], w[1], pts)
    words_row(pts[0], pts[1], pts[2], <uint32_t> plain_tail(<uint8_t> g.b[YBAR], pts[2], w[1]), base, row, col, True)


cdef inline void plain_row(const Gen *g, const uint64_t *w, const uint64_t *base, int col, Pos *row) noexcept nogil:
    """``plain_row_words``, in SSE2 where the processor has it (``nardy_plain_row``, plain_rows.h)."""
    if NARDY_ROWS_SIMD:
        # plain_tail's M24 byte is not in the tail word
        nardy_plain_row(w, g.yroot, tail_word(<uint32_t> plain_tail(<uint8_t> g.b[YBAR], 0, w[1]), base, col), base,
                        col, row)
    else:
        plain_row_words(g, w, base, col, row)


cdef int32_t plain_unfinished_rows(const Gen *g, int32_t start, const uint64_t *template, uint64_t template_key,
                                   Pos *rows, uint64_t *keys, uint8_t *extras, int extra, int col) noexcept nogil:
    """``unfinished_rows`` for a crazy ladder's results (``g.plain``): the rows and keys made from X's words, as
    ``plain_result`` and ``result_row`` would make them, without a ``Result`` each."""
    cdef int32_t i = start, end = g.nres
    cdef uint64_t base[8]
    cdef const Node *n = g.plain
    memcpy(base, template, sizeof(base))  # a local copy, which the rows' stores cannot change
    template_key ^= g.kbase  # a result's key is kbase ^ x_key (plain_result)
    while i < end:
        if count_at(&n[i], NIB_OFF) == 15:
            break
        plain_row(g, n[i].w, base, col, &rows[i])
        if keys != NULL:
            keys[i] = x_key(g.kxb, n[i].w) ^ template_key
        if extras != NULL:
            extras[i] = extra
        i += 1
    return i


cdef void _check_plain_rows() except *:
    """``nardy_plain_row`` makes the rows of ``plain_row_words``: boards of every count on each point and each off
    count, under Y's checkers and bar, for both colours."""
    cdef Gen g
    cdef uint64_t w[2]
    cdef uint64_t base[8]
    cdef Pos rows[2]
    cdef uint64_t state = 0x9E3779B97F4A7C15ULL
    cdef int trial, m, col
    cdef uint8_t count
    if not NARDY_ROWS_SIMD:
        return
    memset(&g, 0, sizeof(Gen))
    for trial in range(512):
        w[0] = 0
        w[1] = 0
        memset(g.yroot, 0, sizeof(g.yroot))
        for m in range(24):
            state = state * 6364136223846793005ULL + 1442695040888963407ULL
            count = <uint8_t> ((state >> 33) & 15)
            if count:
                w[m >> 4] |= <uint64_t> count << (4 * (m & 15))
            elif (state >> 40) & 1:
                (<uint8_t *> g.yroot)[m] = <uint8_t> (-<int> (1 + ((state >> 41) & 14)))
        w[1] |= <uint64_t> (trial & 15) << (4 * (NIB_OFF - 16))
        g.b[YBAR] = <int8_t> ((trial >> 4) & 15)
        for m in range(8):
            state = state * 6364136223846793005ULL + 1442695040888963407ULL
            base[m] = state
        for col in range(2):
            plain_row_words(&g, w, base, col, &rows[0])
            plain_row(&g, w, base, col, &rows[1])
            if memcmp(&rows[0], &rows[1], sizeof(Pos)) != 0:
                raise ImportError("nardy_fast._core: a crazy ladder's row in SSE2 differs from its scalar row "
                                  f"(trial {trial}, colour {col})")


_check_plain_rows()


cdef inline bint result_finished(const Gen *g, int32_t i) noexcept nogil:
    """Whether result ``i`` of the last search (``result_at``) bears X's last checker off."""
    return (count_at(&g.plain[i], NIB_OFF) if g.plain != NULL else g.res[i].b[XOFF]) == 15


cdef inline int32_t unfinished_rows(const Result *res, int32_t start, int32_t end, const uint64_t *template,
                                    uint64_t template_key, Pos *rows, uint64_t *keys, uint8_t *extras, int extra,
                                    int col, bint long_family) noexcept nogil:
    """``result_row`` on the ``template`` for results ``start`` up to ``end``, until one ends the game; returns
    where it stopped."""
    cdef int32_t i = start
    while i < end and res[i].b[XOFF] != 15:
        result_row(&res[i], template, &rows[i], col, long_family)
        if keys != NULL:
            keys[i] = res[i].key ^ template_key
        if extras != NULL:
            extras[i] = extra
        i += 1
    return i


cdef void write_results(const Gen *g, const Pos *p, int d1, int d2, Pos *rows, uint64_t *keys,
                        uint8_t *extras) noexcept nogil:
    """Every result's next position, key and extra roll (``keys`` and ``extras`` may be NULL). The results of
    one search played the same dice, so all but finished games share every field besides the board, bars and
    off: the first unfinished one serves as a template for the others (``unfinished_rows``, one copy for each
    way to renumber the board, so that each loop knows its own; a crazy ladder's kept as boards,
    ``plain_unfinished_rows``)."""
    cdef Result made
    cdef const Result *r
    cdef uint64_t template[8]
    cdef uint64_t template_key = 0, key
    cdef int template_extra = 0, extra, have = 0
    cdef int32_t i = 0, n = g.nres
    cdef const Result *res = g.res
    while i < n:
        if have and not result_finished(g, i):
            if g.plain != NULL and g.color == 0:
                i = plain_unfinished_rows(g, i, template, template_key, rows, keys, extras, template_extra, 0)
            elif g.plain != NULL:
                i = plain_unfinished_rows(g, i, template, template_key, rows, keys, extras, template_extra, 1)
            elif g.color == 0:
                i = unfinished_rows(res, i, n, template, template_key, rows, keys, extras, template_extra, 0,
                                    False)
            elif g.long_family:
                i = unfinished_rows(res, i, n, template, template_key, rows, keys, extras, template_extra, 1,
                                    True)
            else:
                i = unfinished_rows(res, i, n, template, template_key, rows, keys, extras, template_extra, 1,
                                    False)
            continue
        r = result_at(g, i, &made)
        key = result_pos(g, p, r, d1, d2, &rows[i], &extra)
        if r.b[XOFF] != 15:
            memcpy(template, &rows[i], sizeof(Pos))
            template_key = key ^ r.key
            template_extra = extra
            have = 1
        if keys != NULL:
            keys[i] = key
        if extras != NULL:
            extras[i] = extra
        i += 1
    if NARDY_FAST_DEBUG:
        for i in range(n):
            NARDY_CHECK(pos_ok(&rows[i]), "a result row fails the row gate (pos_ok)")


cdef inline bint is_over(const Pos *p) noexcept nogil:
    return p.off[0] == 15 or p.off[1] == 15


cdef int game_points(const Pos *p) noexcept nogil:
    """Points the winner of a finished game scores (docs/rules.md, Game end and scoring; ``points``): 1; mars
    2 when the loser bore off none; koks 3 where the variant has it, when that loser also has a checker on the
    bar or in the winner's home (White's points 1..6 for White; for Black in short nardy, White's 19..24)."""
    cdef int won = 0 if p.off[0] == 15 else 1
    cdef int lost = 1 - won
    cdef int i
    cdef bint in_home = False
    if p.off[lost] > 0:
        return 1
    if V_KOKS[p.variant]:
        for i in range(6):
            in_home = in_home or (p.board[i] < 0 if won == 0 else p.board[18 + i] > 0)
        if p.bar[lost] > 0 or in_home:
            return 3
    return 2
