# Network encodings of packed rows (nardy_fast.encodings): each row copied, checked (pos_ok) and its features
# written into a float32 buffer without the GIL. The schemes, their variants and the "nardy" layout are the
# shared module's tables, read at import; the values are computed as its NumPy encoders compute them, bit for
# bit (float32 arithmetic: the units are exact, and n / 15 is one correctly rounded division in both).
# Uses: tables, memory, gate, api_moves, expert.
# Offers: encode_nardy_rest.

from libc.stdint cimport uintptr_t

from nardy_fast import encodings as _encodings

cdef enum:
    SCHEME_TDGAMMON = 0
    SCHEME_OPENSPIEL = 1
    SCHEME_NARDY = 2
    SCHEME_EXPERT = 3
    NSCHEMES = 4
    MAX_FLAG_UNITS = 16

cdef dict _SCHEME_IDS = {"tdgammon": SCHEME_TDGAMMON, "openspiel": SCHEME_OPENSPIEL, "nardy": SCHEME_NARDY,
                         "expert": SCHEME_EXPERT}
cdef int SCHEME_FEATURES[NSCHEMES]
cdef int SCHEME_VARIANTS[NSCHEMES]      # bit v: the scheme encodes variant v
# the offsets of the "nardy" fields (nardy_fast.encodings.NARDY_OFFSETS)
cdef int AT_MINE, AT_THEIRS, AT_BAR, AT_OFF, AT_HEAD, AT_FIRST, AT_PENDING, AT_PLAYED, AT_BLACK, AT_VARIANT
# the flags' units (FLAG_UNITS): the bit of Pos.flags of each two-valued flag, 0 for the die mask Pos.exc
cdef int NFLAG_UNITS
cdef int FLAG_UNIT_BIT[MAX_FLAG_UNITS]
cdef int FLAG_UNIT_AT[MAX_FLAG_UNITS]
# the mover's number of the opponent's own point 24, per variant
cdef int OPPONENT_HEAD[MAX_VARIANTS]


cdef void _init_encodings() except *:
    global AT_MINE, AT_THEIRS, AT_BAR, AT_OFF, AT_HEAD, AT_FIRST, AT_PENDING, AT_PLAYED, AT_BLACK, AT_VARIANT
    global NFLAG_UNITS
    cdef int s, v, at
    if set(_encodings.SCHEMES) != set(_SCHEME_IDS) or len(_encodings.FLAG_UNITS) > MAX_FLAG_UNITS:
        raise ImportError("nardy_fast._core: the encodings of nardy_fast.encodings are not the core's")
    for name, s in _SCHEME_IDS.items():
        scheme = _encodings.SCHEMES[name]
        SCHEME_FEATURES[s] = scheme.features
        SCHEME_VARIANTS[s] = sum(1 << v for v, variant in enumerate(_VARIANTS) if variant in scheme.variants)
    at_ = _encodings.NARDY_OFFSETS
    AT_MINE, AT_THEIRS, AT_BAR, AT_OFF = at_["mover_points"], at_["opponent_points"], at_["bar"], at_["off"]
    AT_HEAD, AT_FIRST, AT_PENDING, AT_PLAYED = at_["head"], at_["first_roll"], at_["pending"], at_["rolls_played"]
    AT_BLACK, AT_VARIANT = at_["black"], at_["variant"]
    at = at_["flags"]
    NFLAG_UNITS = len(_encodings.FLAG_UNITS)
    for s, (_, bit, width) in enumerate(_encodings.FLAG_UNITS):
        if (bit == 0) != (width == 6) or (bit and width != 1):
            raise ImportError("nardy_fast._core: a flag unit the core cannot write")
        FLAG_UNIT_BIT[s] = bit
        FLAG_UNIT_AT[s] = at
        at += width
    if at != SCHEME_FEATURES[SCHEME_NARDY] or SCHEME_FEATURES[SCHEME_EXPERT] != at + 2 * EXPERT_PER_SIDE:
        raise ImportError("nardy_fast._core: the nardy encoding's fields do not add up")
    for v in range(NVARIANTS):
        OPPONENT_HEAD[v] = _encodings.OPPONENT_HEAD[v]


_init_encodings()


# the four units of a point holding c = 0..15 checkers, copied whole: TD-Gammon's (c >= 1, c >= 2, c >= 3,
# (c - 3) / 2 above 3) and OpenSpiel's (c == 1, c == 2, c == 3, c - 3 above 3)
cdef float TD_UNITS[16][4]
cdef float SPIEL_UNITS[16][4]


cdef void _init_units() noexcept:
    cdef int c
    for c in range(16):
        TD_UNITS[c][0] = c >= 1
        TD_UNITS[c][1] = c >= 2
        TD_UNITS[c][2] = c >= 3
        TD_UNITS[c][3] = <float> (c - 3) * <float> 0.5 if c > 3 else 0
        SPIEL_UNITS[c][0] = c == 1
        SPIEL_UNITS[c][1] = c == 2
        SPIEL_UNITS[c][2] = c == 3
        SPIEL_UNITS[c][3] = <float> (c - 3) if c > 3 else 0


_init_units()


cdef inline void td_units(float *o, int c) noexcept nogil:
    """TD-Gammon's units of ``c`` checkers (0..15, as pos_ok guarantees)."""
    memcpy(o, TD_UNITS[c], 4 * sizeof(float))


cdef inline void spiel_units(float *o, int c) noexcept nogil:
    """OpenSpiel's units of ``c`` checkers (0..15)."""
    memcpy(o, SPIEL_UNITS[c], 4 * sizeof(float))


cdef inline float fifteenths(int n) noexcept nogil:
    return <float> n / <float> 15


cdef void encode_tdgammon(const Pos *p, float *o) noexcept nogil:
    cdef int i, side, c, base
    for side in range(2):
        base = 98 * side
        for i in range(24):
            c = p.board[i] if side == 0 else -p.board[i]
            td_units(&o[base + 4 * i], c if c > 0 else 0)
        o[base + 96] = <float> p.bar[side] * <float> 0.5
        o[base + 97] = fifteenths(p.off[side])
    o[196] = p.turn == 0
    o[197] = p.turn == 1


cdef void encode_openspiel(const Pos *p, float *o) noexcept nogil:
    cdef int i, c, me = p.turn
    cdef int sign = -1 if me else 1
    for i in range(24):
        # OpenSpiel's point i is White's point 24 - i
        c = sign * p.board[23 - i]
        spiel_units(&o[4 * i], c if c > 0 else 0)
        spiel_units(&o[96 + 4 * i], -c if c < 0 else 0)
    o[192] = p.bar[me]
    o[193] = p.off[me]
    o[194] = 1
    o[195] = p.bar[1 - me]
    o[196] = p.off[1 - me]


cdef void encode_nardy(const Pos *p, float *o) noexcept nogil:
    cdef int m, c, me = p.turn
    cdef int fam = 1 if V_SHORT[p.variant] else 0
    cdef int sign = -1 if me else 1
    for m in range(1, 25):
        c = sign * p.board[MAP[fam][me][m]]
        td_units(&o[AT_MINE + 4 * (m - 1)], c if c > 0 else 0)
        td_units(&o[AT_THEIRS + 4 * (m - 1)], -c if c < 0 else 0)
    encode_nardy_rest(p, o)


cdef void encode_nardy_rest(const Pos *p, float *o) noexcept nogil:
    """The "nardy" features after the points (from ``AT_BAR`` on); ``o`` zero there."""
    cdef int c, k, d, side, me = p.turn
    cdef int fam = 1 if V_SHORT[p.variant] else 0
    cdef int sign = -1 if me else 1
    for k in range(2):
        side = me if k == 0 else 1 - me
        o[AT_BAR + k] = <float> p.bar[side] * <float> 0.5
        o[AT_OFF + k] = fifteenths(p.off[side])
        o[AT_FIRST + k] = p.first[side]
        o[AT_PLAYED + k] = p.rolls_played[side]
    c = sign * p.board[MAP[fam][me][24]]
    o[AT_HEAD] = fifteenths(c if c > 0 else 0)
    c = sign * p.board[MAP[fam][me][OPPONENT_HEAD[p.variant]]]
    o[AT_HEAD + 1] = fifteenths(-c if c < 0 else 0)
    for k in range(p.npending):
        o[AT_PENDING + p.pending[k] - 1] += 1
    o[AT_BLACK] = me
    o[AT_VARIANT + p.variant] = 1
    for k in range(NFLAG_UNITS):
        if FLAG_UNIT_BIT[k]:
            o[FLAG_UNIT_AT[k]] = (p.flags & FLAG_UNIT_BIT[k]) != 0
        else:
            for d in range(6):
                o[FLAG_UNIT_AT[k] + d] = (p.exc >> d) & 1


cdef bint overlap(const void *a, size_t a_size, const void *b, size_t b_size) noexcept:
    """Whether the bytes [a, a + a_size) and [b, b + b_size) have one in common."""
    return <uintptr_t> a < <uintptr_t> b + b_size and <uintptr_t> b < <uintptr_t> a + a_size


def encode_rows(const int8_t[:, ::1] rows, str scheme, float[:, ::1] out):
    """Write the features of every row of ``rows`` (N, 64) for ``scheme`` into ``out`` (N, F), without the GIL.
    Returns -1, or the first row that fails its checks or is of a variant the scheme does not encode (the rows
    after it are left unwritten). Each row is copied into memory of this call before it is read: ``rows`` may
    be changed by another thread meanwhile. When ``out`` overlaps ``rows``, all of them are copied first, since
    the features of a row would be written over rows still to be read. A signal handler's exception (Ctrl-C)
    is raised within a few tens of milliseconds, whatever N."""
    cdef int s = _SCHEME_IDS.get(scheme, -1)
    cdef Py_ssize_t n = rows.shape[0], i
    cdef int64_t bad = -1
    cdef int features, status = 0
    cdef uint64_t work = 0
    cdef Pos p
    cdef float *o
    if s < 0 or rows.shape[1] != WIDTH or out.shape[0] != n or out.shape[1] != SCHEME_FEATURES[s]:
        raise _field_error(_NardyError, "out", "must be (N, F) for rows (N, 64) and a known scheme",
                           (scheme, rows.shape[0], rows.shape[1], out.shape[0], out.shape[1]))
    features = SCHEME_FEATURES[s]
    if n and overlap(&rows[0, 0], n * WIDTH, &out[0, 0], n * features * sizeof(float)):
        rows = np.array(rows, dtype=np.int8, order="C", copy=True)
    with nogil:
        for i in range(n):
            work += 8  # a row is about 0.15 us of work, 8 units of LOOK_WORK's
            if work >= LOOK_WORK:
                work = 0
                if signals_raised() < 0:
                    status = E_SIGNAL
                    break
            memcpy(&p, &rows[i, 0], sizeof(Pos))
            if not pos_ok(&p) or not (SCHEME_VARIANTS[s] >> p.variant) & 1:
                bad = i
                break
            o = &out[i, 0]
            memset(o, 0, features * sizeof(float))
            if s == SCHEME_TDGAMMON:
                encode_tdgammon(&p, o)
            elif s == SCHEME_OPENSPIEL:
                encode_openspiel(&p, o)
            else:
                encode_nardy(&p, o)
                if s == SCHEME_EXPERT:
                    encode_expert(&p, o + SCHEME_FEATURES[SCHEME_NARDY])
    if status == E_SIGNAL:
        raise_set()
    return bad
