# Packed rows: State <-> Pos, step objects, and the row gate (pos_ok) that every row from a user passes before a
# search reads it (the checks of nardy_fast.state).

_FLAG_BITS = {(spec.name, spec.other): spec.bit for spec in _FLAG_SPECS if spec.bit}
_VARIANT_INDEX = {name: i for i, name in enumerate(_VARIANTS)}


cdef void pack(object state, Pos *p) except *:
    """The packed form of a ``State``, which must pass ``pos_ok``: every state the package builds does, and
    anything else (a hand-made state given straight to this module) is refused before a search reads it."""
    cdef int i
    memset(p, 0, sizeof(Pos))
    try:
        if len(state.board) != 24 or len(state.pending) > 24:
            raise ValueError
        for i in range(24):
            p.board[i] = state.board[i]
        p.bar[0], p.bar[1] = state.bar
        p.off[0], p.off[1] = state.off
        p.turn = state.turn == "black"
        p.first[0], p.first[1] = state.first_roll
        p.variant = _VARIANT_INDEX[state.variant]
        for name, value in state.flags:
            if name == "first_roll_exception_doubles":
                for d in value:
                    if not 1 <= d <= 6:
                        raise ValueError
                    p.exc |= 1 << (d - 1)
            else:
                p.flags |= _FLAG_BITS.get((name, value), 0)
        p.npending = len(state.pending)
        for i in range(p.npending):
            p.pending[i] = state.pending[i]
        p.rolls_played[0], p.rolls_played[1] = state.rolls_played
    except (TypeError, ValueError, OverflowError, KeyError, AttributeError):
        p.variant = -1
    if not pos_ok(p):
        raise _field_error(_InvalidPositionError, "state", "is not a valid position", state)


cdef tuple _SMALL = tuple(range(-15, 16))
cdef tuple _PAIRS = tuple((a, b) for a in range(16) for b in range(16))
cdef tuple _FIRSTS = ((False, False), (True, False), (False, True), (True, True))
cdef dict _PENDING_CACHE = {}


cdef object unpack(const Pos *p, object flags):
    """The ``State`` of a packed position (``flags`` is reused from the parent: moves never change it)."""
    cdef list board = [None] * 24
    cdef int i
    for i in range(24):
        board[i] = _SMALL[p.board[i] + 15]
    pending = ()
    if p.npending:
        pending = tuple([p.pending[i] for i in range(p.npending)])
        pending = _PENDING_CACHE.setdefault(pending, pending)
    return _State(
        _VARIANTS[p.variant],
        "black" if p.turn else "white",
        tuple(board),
        _PAIRS[p.bar[0] * 16 + p.bar[1]],
        _PAIRS[p.off[0] * 16 + p.off[1]],
        _FIRSTS[p.first[0] + 2 * p.first[1]],
        pending,
        flags,
        _PAIRS[p.rolls_played[0] * 16 + p.rolls_played[1]],
    )


# Step objects by their packed code (src | die << 5 | special << 8 | hit << 9)
cdef list _STEPS = [None] * 1024


cdef object step_object(uint16_t code):
    cdef object step = _STEPS[code]
    cdef int src, die, dst
    if step is None:
        src = code & 31
        die = (code >> 5) & 7
        dst = src - die
        if dst < 0 or (src == HEAD and (code >> 8) & 1):
            dst = die if (code >> 8) & 1 else 0
        step = _Step(src, dst, die, bool((code >> 8) & 1), bool((code >> 9) & 1))
        _STEPS[code] = step
    return step


cdef bint pending_ok(const Pos *p) noexcept nogil:
    """A pending list is one value, two different values (higher first), or a run of 2..4 equal values (gulbar;
    crazy under flag normal_doubles_first_rolls) or a ladder suffix (crazy), as ``nardy_fast.state`` requires."""
    cdef int n = p.npending, i, per, total, start
    cdef bint equal = True
    if n == 0:
        return True
    if not V_TRANSFERS[p.variant]:
        return False
    for i in range(n):
        if p.pending[i] < 1 or p.pending[i] > 6:
            return False
    if n == 1:
        return True
    if n == 2 and p.pending[0] != p.pending[1]:
        return p.pending[0] > p.pending[1]
    for i in range(1, n):
        equal = equal and p.pending[i] == p.pending[0]
    if (not V_LADDER[p.variant] or p.flags & FLAG_NORMAL_DOUBLES) and equal and n <= 4:
        return True
    if not V_LADDER[p.variant]:
        return False
    per = 4 if p.flags & FLAG_LADDER4 else 2
    total = 6 * per
    if n > total:
        return False
    start = total - n
    for i in range(n):
        if p.pending[i] != 1 + (start + i) // per:
            return False
    return True


cdef bint pos_ok(const Pos *p) noexcept nogil:
    """Whether a packed position passes every check of ``Position.from_array`` (those of nardy_fast.state).
    The gate of every packed row into the search; the board and the padding are checked eight bytes at a
    time."""
    cdef int i, white, black, start, counted
    cdef bint long_family
    cdef uint64_t w, neg, size, whites = 0, blacks = 0, wmask = 0, bmask = 0, bad = 0
    cdef uint64_t words[4]
    if p.variant < 0 or p.variant >= NVARIANTS or p.turn < 0 or p.turn > 1:
        return False
    long_family = not V_SHORT[p.variant]
    for i in range(2):
        if p.first[i] < 0 or p.first[i] > 1 or p.bar[i] < 0 or p.bar[i] > 15 or p.off[i] < 0 or p.off[i] > 15:
            return False
    if p.flags & ~V_FLAGS[p.variant]:
        return False
    if p.exc & ~63 or (p.exc and not V_EXCEPTION[p.variant]):
        return False
    if p.npending < 0 or p.npending > 24:
        return False
    # rolls played: counted up to the flag's count, 0 without it
    counted = NORMAL_DOUBLES if p.flags & FLAG_NORMAL_DOUBLES else 0
    for i in range(2):
        if p.rolls_played[i] < 0 or p.rolls_played[i] > counted:
            return False
    # the pending values past ``npending`` and the reserved bytes (row bytes 35 + npending .. 58, 61 .. 63) are
    # zero (bytes 59 and 60, the rolls played, left out of the last word)
    memcpy(<char *> words, <const char *> p + 32, 32)
    words[3] &= ~(<uint64_t> 0xFFFF << 24)
    start = 3 + p.npending
    for i in range(4):
        bad |= words[i] & bytes_from(start - 8 * i)
    # counts of -15..15; White's (> 0) and Black's (< 0) checkers, and their points as bit masks
    memcpy(<char *> words, p.board, 24)
    for i in range(3):
        w = words[i]
        neg = ((w >> 7) & 0x0101010101010101ULL) * 0xFF
        size = (w & ~neg) | (negated(w) & neg)
        bad |= size & 0xF0F0F0F0F0F0F0F0ULL
        whites += w & ~neg
        blacks += size & neg
        wmask |= <uint64_t> gather(nonzero_bytes(w & ~neg)) << (8 * i)
        bmask |= <uint64_t> gather(neg & 0x8080808080808080ULL) << (8 * i)
    if bad:
        return False
    white = byte_sum(whites) + p.bar[0] + p.off[0]
    black = byte_sum(blacks) + p.bar[1] + p.off[1]
    if white != 15 or black != 15:
        return False
    if long_family and (p.bar[0] or p.bar[1]):
        return False
    if p.off[0] == 15 and p.off[1] == 15:
        return False
    if not pending_ok(p) or (p.npending and (p.off[0] == 15 or p.off[1] == 15)):
        return False
    # (B) judged for each side from its own point of view: Black's M m is White's M m+12 (mod 24)
    if long_family:
        return (runs_ok(<uint32_t> wmask, farthest_on_track(<uint32_t> bmask))
                and runs_ok(half_turn(<uint32_t> bmask), farthest_on_track(half_turn(<uint32_t> wmask))))
    return True
