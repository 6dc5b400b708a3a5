# The per-call API: Position.legal_moves and its lazy Move objects, the key of a state, and how a failed
# search is raised.
# Uses: tables, memory, gate, rules, search, results, rows.
# Offers: raise_set, search_status.

cdef int raise_set() except -1:
    """Propagate the exception a signal handler set (``E_SIGNAL``)."""
    return -1


cdef int search_status(int count, int64_t limit) except -1:
    """Raise for a failed search: no memory, ``max_results`` exceeded, or a signal handler's exception."""
    if count == E_MEMORY:
        raise MemoryError()
    if count == E_LIMIT:
        raise _limit_error(limit)
    if count == E_SIGNAL:
        return raise_set()
    return 0


@cython.auto_pickle(False)
cdef class Children:
    """The results of one ``legal_moves`` call, kept packed; moves read them lazily."""

    cdef Pos *rows
    cdef uint64_t *keys
    cdef uint16_t *steps     # count x level step codes, canonical order
    cdef uint8_t *extra
    cdef int level
    cdef int count
    cdef object parent
    cdef object roll

    def __dealloc__(self):
        free(self.rows)
        free(self.keys)
        free(self.steps)
        free(self.extra)


@cython.auto_pickle(False)
cdef class Move:
    """One legal move: its canonical steps (docs/rules.md, Canonical step order) and what follows it
    (docs/rules.md, What follows a move).

    Moves are equal when they were made for the same roll from equal positions and reach equal results. Only
    ``legal_moves`` makes them; a move pickles as its position, roll and result, and is found again among
    the legal moves when it is loaded.
    """
    # The core's move: the interface of ``nardy_fast.Move`` (registered as one, with the same docstrings),
    # its steps and result built on first access from the packed results of its ``legal_moves`` call.

    cdef Children _children
    cdef int _index
    cdef object _result
    cdef object _steps

    cdef Children made(self):
        """The move's results; an uninitialised move (``Move()``, ``Move.__new__(Move)``) raises."""
        if self._children is None or not 0 <= self._index < self._children.count:
            raise _uninitialised_error("Move")
        return self._children

    @property
    def parent(self):
        """The position the move was made from."""
        return self.made().parent

    @property
    def roll(self):
        """The roll the move was made for; ``None`` for a pending transfer list."""
        return self.made().roll

    @property
    def steps(self):
        """The canonical step sequence, in the mover's own numbering."""
        cdef int s
        cdef uint16_t *codes
        cdef Children children = self.made()
        if self._steps is None:
            codes = &children.steps[self._index * children.level]
            self._steps = tuple([step_object(codes[s]) for s in range(children.level)])
        return self._steps

    @property
    def result(self):
        """The next position."""
        cdef Pos *row
        cdef Children children = self.made()
        if self._result is None:
            row = &children.rows[self._index]
            parent = children.parent
            self._result = type(parent)._trusted(unpack(row, parent.state.flags), children.keys[self._index],
                                                 (<char *> row)[:sizeof(Pos)])
        return self._result

    @property
    def remainder(self):
        """The unplayed values passed to the opponent (gulbar, crazy; docs/rules.md, Gulbar transfers)."""
        cdef Pos *row = &self.made().rows[self._index]
        if row.npending == 0:
            return ()
        return self.result.pending

    @property
    def extra_roll(self):
        """Whether the same side rolls again (docs/rules.md, Six-one extra roll, Gulbar extra roll)."""
        return bool(self.made().extra[self._index])

    def __reduce__(self):
        return (_move_of, (self.parent, self.roll, self.result))

    def __str__(self):
        return " ".join(map(str, self.steps)) or "pass"

    def __repr__(self):
        roll = self.roll
        return f"<Move {self} ({'pending' if roll is None else f'{roll[0]}-{roll[1]}'})>"

    def __eq__(self, other):
        if not isinstance(other, _Move):
            return NotImplemented
        return (self.parent, self.roll, self.result) == (other.parent, other.roll, other.result)

    def __hash__(self):
        return hash((self.parent, self.roll, self.result))


_Move.register(Move)


cdef list moves_of(object position, const Pos *p, int d1, int d2, object roll, int64_t limit):
    """Search and wrap the results as lazy moves. The workspace is this call's until every result is copied
    out; a long search (a crazy ladder, the per-step block check) runs without the GIL."""
    cdef Generator workspace = take_workspace(limit)
    cdef Gen *g = workspace.g
    cdef int count, i, level
    cdef Children children = Children.__new__(Children)
    cdef Move move
    cdef list moves
    try:
        setup(g, p, d1, d2)
        g.want_steps = 1
        if g.ndice > 4 or g.per_step:
            with nogil:
                count = search(g)
        else:
            count = search(g)
        search_status(count, limit)
        level = g.best
        children.parent = position
        children.roll = roll
        children.level = level
        children.rows = <Pos *> malloc(max(count, 1) * sizeof(Pos))
        children.keys = <uint64_t *> malloc(max(count, 1) * sizeof(uint64_t))
        children.steps = <uint16_t *> malloc(max(count * level, 1) * sizeof(uint16_t))
        children.extra = <uint8_t *> malloc(max(count, 1))
        if children.rows == NULL or children.keys == NULL or children.steps == NULL or children.extra == NULL:
            raise MemoryError()
        write_results(g, p, d1, d2, children.rows, children.keys, children.extra)
        for i in range(count):
            memcpy(&children.steps[i * level], &g.steps[i * g.ndice], level * sizeof(uint16_t))
        children.count = count
    finally:
        give_back(workspace)
    moves = [None] * count
    for i in range(count):
        move = Move.__new__(Move)
        move._children = children
        move._index = i
        moves[i] = move
    return moves


cdef void packed_of(object position, Pos *p) except *:
    """The packed form of a core position (cached on the position, and checked again when read back: the
    cache is an attribute a user can reach)."""
    cdef object packed = position._packed
    if packed is None:
        pack(position.state, p)
        position._packed = (<char *> p)[:sizeof(Pos)]
    elif type(packed) is not bytes or len(<bytes> packed) != sizeof(Pos):
        raise _field_error(_InvalidPositionError, "position", "has a damaged packed form", packed)
    else:
        memcpy(p, <char *> packed, sizeof(Pos))
        if not pos_ok(p):
            raise _field_error(_InvalidPositionError, "position", "has a damaged packed form", packed)


def engine(position, roll, limit=0):
    """All legal moves of a core ``position`` for a checked ``roll`` (``None``: the pending list), bounded by
    ``limit`` (0: none)."""
    cdef Pos p
    packed_of(position, &p)
    if is_over(&p):
        return []
    if roll is None:
        if p.npending == 0:
            raise _field_error(_InvalidDiceError, "dice", "a roll of two dice is required", roll)
        return moves_of(position, &p, 0, 0, None, limit)
    if p.npending or not (1 <= roll[0] <= 6 and 1 <= roll[1] <= 6):
        raise _field_error(_InvalidDiceError, "dice", "must be a checked roll", roll)
    return moves_of(position, &p, roll[0], roll[1], roll, limit)


def legal_moves(position, dice=None, *, max_results=None):
    # Position.legal_moves of the core (its docstring is the shared one, set by nardy_fast.core): the common
    # case checked here, anything else by the shared code
    cdef Pos p
    cdef object d1, d2
    packed_of(position, &p)
    if p.npending == 0 and max_results is None and type(dice) is tuple and len(<tuple> dice) == 2:
        d1 = (<tuple> dice)[0]
        d2 = (<tuple> dice)[1]
        if type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6:
            if is_over(&p):
                return []
            return moves_of(position, &p, d1, d2, dice, 0)
    return _BasePosition.legal_moves(position, dice, max_results=max_results)


def position_key(state):
    """The Zobrist key of a ``State``, computed by the core (equals ``nardy_fast.zobrist.position_key``)."""
    cdef Pos p
    cdef Gen g
    pack(state, &p)
    setup(&g, &p, 1, 2)
    return g.key ^ full_extra_key(&p)
