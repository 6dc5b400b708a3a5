# The move lines of a .mat file read in C (nardy_fast.matfast): each line of the common form (a move number,
# one or two entries, each a roll and its step tokens) classified and its plies' rolls and written pairs put in
# the arrays replay_plies takes, so that the fast path's Python reads the few other lines of a game alone (a
# Python regex and a string per move line were a third of the reading's time). Its twin is
# nardy_fast.reference.matlines, line for line the same.
# Uses: replay.
# Offers: nothing.

cdef enum:
    LINE_OTHER = 0  # any other line: the caller reads it
    LINE_LEFT = 1   # one ply, in the left column
    LINE_RIGHT = 2  # one ply, in the right column
    LINE_TWO = 3    # two plies, the first in the left column


cdef inline bint is_digit(uint8_t c) noexcept nogil:
    return 48 <= c <= 57


cdef int read_point(const uint8_t *s, Py_ssize_t n, Py_ssize_t *at, bint source) noexcept nogil:
    """The point at ``s[at[0]]``: one or two digits, ``bar`` (25) for a source, ``off`` (0) for a destination;
    ``at`` moved past it. -1 for none."""
    cdef Py_ssize_t i = at[0]
    cdef int value
    if i < n and is_digit(s[i]):
        value = s[i] - 48
        i += 1
        if i < n and is_digit(s[i]):
            value = 10 * value + s[i] - 48
            i += 1
        at[0] = i
        return value
    if i + 3 <= n and s[i] == (98 if source else 111) and s[i + 1] == (97 if source else 102) \
            and s[i + 2] == (114 if source else 102):  # b-a-r, o-f-f
        at[0] = i + 3
        return 25 if source else 0
    return -1


cdef int read_token(const uint8_t *s, Py_ssize_t n, Py_ssize_t *at, int8_t *out, int have) noexcept nogil:
    """One step token at ``s[at[0]]`` (``13/9``, ``bar/20*``, ``24/18/13``, ``13/7(2)``, ``6/off``: points
    from 25 down to 0, each lower than the one before; a repeat 1 to 9), ending at a space or the line's end:
    its pairs appended to ``out``, which holds ``have``. The pairs now held, or -1 for a token of another form
    or more than MAX_WRITTEN pairs in all (the caller's Python reads the line)."""
    cdef int source, target, count = 0, repeat = 1, r, k
    source = read_point(s, n, at, True)
    if not 0 <= source <= 25:
        return -1
    while at[0] < n and s[at[0]] == 47:  # '/'
        at[0] += 1
        target = read_point(s, n, at, False)
        if target < 0 or target >= source or have + count >= MAX_WRITTEN:
            return -1
        if at[0] < n and s[at[0]] == 42:  # '*', a hit
            at[0] += 1
        out[2 * (have + count)] = <int8_t>source
        out[2 * (have + count) + 1] = <int8_t>target
        count += 1
        source = target
    if count == 0:
        return -1
    if at[0] < n and s[at[0]] == 40:  # '(', a repeat
        if not (at[0] + 2 < n and 49 <= s[at[0] + 1] <= 57 and s[at[0] + 2] == 41):
            return -1
        repeat = s[at[0] + 1] - 48
        at[0] += 3
    if have + count * repeat > MAX_WRITTEN or (at[0] < n and s[at[0]] != 32):
        return -1
    for r in range(1, repeat):
        for k in range(2 * count):
            out[2 * (have + r * count) + k] = out[2 * have + k]
    return have + count * repeat


cdef inline bint at_roll(const uint8_t *s, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """Whether a roll (``d1d2:``, each die 1 to 6) starts at ``s[i]``, followed by a space or the line's end."""
    return (i + 3 <= n and 49 <= s[i] <= 54 and 49 <= s[i + 1] <= 54 and s[i + 2] == 58
            and (i + 3 == n or s[i + 3] == 32))


cdef int read_line(const uint8_t *s, Py_ssize_t n, int edge, int64_t *number, int8_t *rolls, int8_t *npairs,
                   int8_t *pairs, Py_ssize_t width) noexcept nogil:
    """The kind of one line (``LINE_*``), and for a move line of the common form (``' *N) *ENTRY( +ENTRY)? *'``,
    an entry ``d1d2:`` and its tokens each after one space) its number and its one or two plies' dice, pair
    counts and pairs (rows of ``width`` of ``pairs``). A line of two plies whose first entry is not in the left
    column (its gap ``edge`` or more) is another line."""
    cdef Py_ssize_t at = 0, gap
    cdef int digits = 0, entries = 0, have = 0, spaces = 0
    cdef int64_t value = 0
    while at < n and s[at] == 32:
        at += 1
    while at < n and is_digit(s[at]) and digits < 10:
        value = 10 * value + s[at] - 48
        digits += 1
        at += 1
    if not 1 <= digits <= 9 or at >= n or s[at] != 41:  # ')'
        return LINE_OTHER
    at += 1
    gap = at
    while at < n and s[at] == 32:
        at += 1
    gap = at - gap
    if not at_roll(s, n, at):
        return LINE_OTHER
    while True:
        if at_roll(s, n, at):  # an entry: its roll
            if entries == 2:
                return LINE_OTHER
            if entries == 1:
                npairs[0] = <int8_t>have
            rolls[2 * entries] = <int8_t>(s[at] - 48)
            rolls[2 * entries + 1] = <int8_t>(s[at + 1] - 48)
            entries += 1
            have = 0
            at += 3
        elif spaces == 1:  # a step token of the entry, one space after what came before
            have = read_token(s, n, &at, &pairs[(entries - 1) * width], have)
            if have < 0:
                return LINE_OTHER
        else:
            return LINE_OTHER
        spaces = 0
        while at < n and s[at] == 32:
            at += 1
            spaces += 1
        if at == n:
            break
    npairs[entries - 1] = <int8_t>have
    if entries == 2 and gap >= edge:
        return LINE_OTHER
    number[0] = value
    return LINE_TWO if entries == 2 else LINE_RIGHT if gap >= edge else LINE_LEFT


def read_move_lines(const uint8_t[::1] text, int edge, int8_t[::1] kinds, int64_t[::1] numbers,
                    int64_t[::1] plies, int64_t[::1] runs, int8_t[:, ::1] rolls, int8_t[::1] npairs,
                    int8_t[:, ::1] pairs):
    """Read the lines of ``text`` (split at each ``\\n``; ``kinds`` has a place for each): ``kinds[i]`` the
    kind of line ``i`` (0 another line, 1 a move line of one ply in the left column, 2 of one ply in the right
    column, 3 of two plies, the first in the left column, its gap from the number under ``edge``),
    ``numbers[i]`` a move line's number (else 0), ``plies[i]`` the index of its first ply (of another line,
    the plies before it), ``runs[i]`` the end of the move lines of two plies numbered in a row from line ``i``
    (``i + 1`` where line ``i`` is none). Ply ``j``'s dice go to ``rolls[j]``, its written pairs (from, to) in
    the mover's numbering to ``pairs[j]`` and their number to ``npairs[j]``, the rows of other lines left
    untouched. The plies read; a ply arrays' shape that could not hold two plies a line raises."""
    cdef Py_ssize_t n = text.shape[0], lines = kinds.shape[0], line = 0, begin = 0, end, i
    cdef int64_t ply = 0
    cdef int kind
    cdef Py_ssize_t width = pairs.shape[1]
    cdef int8_t two_rolls[4]
    cdef int8_t two_npairs[2]
    cdef int8_t two_pairs[4 * MAX_WRITTEN]
    if (lines < 1 or numbers.shape[0] != lines or plies.shape[0] != lines or runs.shape[0] != lines
            or rolls.shape[1] != 2 or width < 2 * MAX_WRITTEN or rolls.shape[0] < 2 * lines
            or npairs.shape[0] != rolls.shape[0] or pairs.shape[0] != rolls.shape[0]):
        raise _field_error(_NardyError, "read_move_lines", "the arrays' shapes do not agree", None)
    with nogil:
        while begin <= n and line < lines:
            end = begin
            while end < n and text[end] != 10:
                end += 1
            numbers[line] = 0
            plies[line] = ply
            memset(two_pairs, 0, sizeof(two_pairs))
            kind = read_line(&text[0] + begin if n else NULL, end - begin, edge, &numbers[line], two_rolls,
                             two_npairs, two_pairs, 2 * MAX_WRITTEN)
            kinds[line] = <int8_t>kind
            if kind != LINE_OTHER:
                for i in range(2 if kind == LINE_TWO else 1):
                    rolls[ply, 0] = two_rolls[2 * i]
                    rolls[ply, 1] = two_rolls[2 * i + 1]
                    npairs[ply] = two_npairs[i]
                    memcpy(&pairs[ply, 0], &two_pairs[2 * MAX_WRITTEN * i], 2 * MAX_WRITTEN)
                    ply += 1
            begin = end + 1
            line += 1
        for i in range(lines - 1, -1, -1):
            runs[i] = i + 1
            if (kinds[i] == LINE_TWO and i + 1 < lines and kinds[i + 1] == LINE_TWO
                    and numbers[i + 1] == numbers[i] + 1):
                runs[i] = runs[i + 1]
    if line != lines or begin <= n:
        raise _field_error(_NardyError, "read_move_lines", "the text's lines are not as many as kinds", lines)
    return ply
