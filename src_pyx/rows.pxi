# Packed rows: State <-> Pos and step objects.
# Uses: tables, gate.
# Offers: pack, step_object, unpack.
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
