# The core's constants, and its tables built at import from the package's own: the variants' features and
# the flags' bits (nardy_fast.variants), the Zobrist keys (nardy_fast.zobrist), the row layout
# (nardy_fast.layout, checked against the C struct Pos). Nothing here is written twice: a new variant or
# flag reaches the core through those tables.
# Uses: nothing.
# Offers: constants and tables only.

cdef enum:
    MAX_VARIANTS = 16  # room in the per-variant tables
    MAX_KEYS = 2048    # room in KEYS
    EXTRA_SIX_ONE = 1  # V_EXTRA: rolls again after 6-1 (docs/rules.md, Six-one extra roll) ...
    EXTRA_FULL_DOUBLE = 2  # ... or after a fully played double (Gulbar extra roll)
    # what a search returns when it stops early
    E_MEMORY = -1      # memory ran out
    E_LIMIT = -2       # a level needed more nodes than Gen.limit (max_results)
    E_SIGNAL = -3      # a signal handler raised (Ctrl-C): its exception is set
    E_EVALUATOR = -4   # an evaluator cannot value a position (the race evaluator, a position in contact)
    # a depth-first search of up to four dice never holds this many positions after one number of steps
    # (after k equal dice a board is a multiset of k step kinds: 24 points, the bar and the special,
    # C(26 + 4 - 1, 4) = 23,751 at k = 4; two different dice give at most (26 * 2)^2), so a search with a
    # limit at least this large needs no level counts
    DFS_LEVEL_BOUND = 100000
    TICK_MASK = 4095   # a look for signals every 4096 ticks
    # a look for signals every LOOK_WORK units of a loop that counts its own work (signals_raised): a unit is
    # about 20 ns (evaluate's row is 16 of them, or more for a network: work_of_evaluator), so about 20 ms
    LOOK_WORK = 1 << 20
    BAR_POINT = 25     # X's bar, as a step's source and as an index of Result.b
    YBAR = 26
    XOFF = 27
    HEAD = 24

# per variant (its index in VARIANTS), from VariantSpec: short geometry (hits, the bar, no head, no block rule),
# six-one's special step, ladders, transfers, the kind of extra roll, the first-roll exception, and the bits
# of the flags that apply
cdef int NVARIANTS
cdef bint V_SHORT[MAX_VARIANTS]
cdef bint V_SPECIAL[MAX_VARIANTS]
cdef bint V_LADDER[MAX_VARIANTS]
cdef bint V_TRANSFERS[MAX_VARIANTS]
cdef int V_EXTRA[MAX_VARIANTS]
cdef bint V_EXCEPTION[MAX_VARIANTS]
cdef bint V_KOKS[MAX_VARIANTS]
cdef int V_FLAGS[MAX_VARIANTS]
# the flags' bits in Pos.flags (FlagSpec.bit), and the count of rolls whose doubles are not ladders under flag
# normal_doubles_first_rolls
cdef int FLAG_PER_STEP, FLAG_LADDER4, FLAG_SIXONE_REQUIRES, FLAG_NORMAL_DOUBLES, NORMAL_DOUBLES

cdef uint64_t KEYS[MAX_KEYS]
cdef int K_POINT, K_BAR, K_OFF, K_BLACK, K_FIRST, K_PENDING
# the key of each variant (zobrist.variant_slot)
cdef uint64_t VARIANT_KEY[MAX_VARIANTS]
# the key of the flag bits of Pos.flags, and of the exception doubles' mask Pos.exc
cdef uint64_t FLAGS_KEY[256]
cdef uint64_t EXC_KEY[64]
# the key of side s having played n rolls (n = 0..3; 0 has none)
cdef uint64_t PLAYED_KEY[2][4]

# mover point m (1..24) -> White index 0..23, by family (0 long, 1 short) and mover colour (0 White, 1 Black)
cdef int8_t MAP[2][2][26]
# point keys of the mover's (X) or opponent's (Y) count c on M m: [family][colour][m * 16 + c]
cdef uint64_t KX[2][2][26 * 16]
cdef uint64_t KY[2][2][26 * 16]
# the same keys by signed count (X > 0, Y < 0): [family][colour][m * 32 + 16 + c]
cdef uint64_t KS[2][2][26 * 32]
# what a step changes: KD[..][m * 32 + 16 + c] = KS[..][m * 32 + 16 + c] ^ KS[..][m * 32 + 15 + c] (c > -16)
cdef uint64_t KD[2][2][26 * 32]
# bar and off keys of side s holding n: [s][n]
cdef uint64_t KBAR[2][16]
cdef uint64_t KOFF[2][16]
# the key of X's counts in byte j of a search node's board (Node.w): M 2j+1 and M 2j+2 for j < 12, X's bar and
# off for j = 12: [family][colour][j * 256 + byte]. A result that hit nothing has Y's checkers of the root, and
# its key is the root's with X's part replaced, 13 of these (node_result)
cdef uint64_t KXB[2][2][13 * 256]
# 12-bit reversal, for the block rule's view along Y's track
cdef uint32_t REV12[4096]


# VariantSpec.extra_roll -> V_EXTRA's codes
_EXTRA_KINDS = {"": 0, "six_one": EXTRA_SIX_ONE, "full_double": EXTRA_FULL_DOUBLE}


cdef uint64_t point_key(int index, int count):
    if count == 0:
        return 0
    return KEYS[K_POINT + 30 * index + (count + 15 if count < 0 else count + 14)]


cdef void _init_rules() except *:
    """The variants' features and the flags' bits, from nardy_fast.variants."""
    global NVARIANTS, FLAG_PER_STEP, FLAG_LADDER4, FLAG_SIXONE_REQUIRES, FLAG_NORMAL_DOUBLES, NORMAL_DOUBLES
    cdef int v
    if len(_VARIANT_SPECS) > MAX_VARIANTS or any(not 0 < spec.bit < 256 for spec in _FLAG_SPECS if spec.bit):
        raise ImportError("nardy_fast._core: the variant or flag tables outgrew the core's C tables")
    NVARIANTS = len(_VARIANT_SPECS)
    for v, spec in enumerate(_VARIANT_SPECS):
        V_SHORT[v] = spec.family == "short"
        V_SPECIAL[v] = spec.special_step
        V_LADDER[v] = spec.ladder
        V_TRANSFERS[v] = spec.transfers
        V_EXTRA[v] = _EXTRA_KINDS[spec.extra_roll]
        V_EXCEPTION[v] = spec.first_roll_exception
        V_KOKS[v] = spec.koks
        V_FLAGS[v] = sum(flag.bit for flag in _FLAG_SPECS if spec.name in flag.variants)
    FLAG_PER_STEP = _FLAG_BY_NAME["block_check"].bit
    FLAG_LADDER4 = _FLAG_BY_NAME["ladder_per_value"].bit
    FLAG_SIXONE_REQUIRES = _FLAG_BY_NAME["sixone_extra_roll_requires_play"].bit
    FLAG_NORMAL_DOUBLES = _FLAG_BY_NAME["normal_doubles_first_rolls"].bit
    NORMAL_DOUBLES = _FLAG_BY_NAME["normal_doubles_first_rolls"].other
    if not 0 < NORMAL_DOUBLES <= 3:
        raise ImportError("nardy_fast._core: normal_doubles_first_rolls outgrew the core's keys")


cdef void _check_layout() except *:
    """The C struct Pos has the row layout of nardy_fast.layout, field by field."""
    cdef Pos p
    cdef char *base = <char *> &p
    offsets = {"BOARD": <char *> p.board - base, "BAR": <char *> p.bar - base, "OFF": <char *> p.off - base,
               "TURN": <char *> &p.turn - base, "FIRST_ROLL": <char *> p.first - base,
               "VARIANT": <char *> &p.variant - base, "FLAGS": <char *> &p.flags - base,
               "EXCEPTION_DOUBLES": <char *> &p.exc - base, "NPENDING": <char *> &p.npending - base,
               "PENDING": <char *> p.pending - base, "ROLLS_PLAYED": <char *> p.rolls_played - base,
               "RESERVED": <char *> p.reserved - base}
    expected = {name: getattr(_layout, name) for name in offsets}
    if offsets != expected or sizeof(Pos) != _layout.WIDTH:
        raise ImportError(f"nardy_fast._core: the C row layout {offsets} is not nardy_fast.layout's {expected}")


cdef void _init_tables() except *:
    global K_POINT, K_BAR, K_OFF, K_BLACK, K_FIRST, K_PENDING
    cdef int i, fam, col, m, c, sign, s, n, b, d
    if len(_zobrist.KEYS) > MAX_KEYS:
        raise ImportError("nardy_fast._core: the Zobrist table outgrew the core's copy")
    for i, key in enumerate(_zobrist.KEYS):
        KEYS[i] = key
    K_POINT, K_BAR, K_OFF = _zobrist.POINT, _zobrist.BAR, _zobrist.OFF
    K_BLACK, K_FIRST, K_PENDING = _zobrist.BLACK_TO_MOVE, _zobrist.FIRST_ROLL, _zobrist.PENDING
    for i in range(MAX_VARIANTS):
        VARIANT_KEY[i] = KEYS[_zobrist.variant_slot(i)]
    for i in range(256):
        FLAGS_KEY[i] = 0
        for spec in _FLAG_SPECS:
            if spec.bit and i & spec.bit:
                FLAGS_KEY[i] ^= KEYS[_zobrist.OFFSETS[spec.key]]
    for s in range(2):
        PLAYED_KEY[s][0] = 0
        for n in range(1, 4):
            PLAYED_KEY[s][n] = KEYS[_zobrist.ROLLS_PLAYED + 3 * s + n - 1]
    exc = _zobrist.OFFSETS[_FLAG_BY_NAME["first_roll_exception_doubles"].key]
    for i in range(64):
        EXC_KEY[i] = 0
        for d in range(6):
            if i >> d & 1:
                EXC_KEY[i] ^= KEYS[exc + d]
    for fam in range(2):
        # the numbering is the shared one (nardy_fast.board.mover_point) of a variant of the geometry
        geometry = next(spec.name for spec in _VARIANT_SPECS if (spec.family == "short") == fam)
        for col in range(2):
            MAP[fam][col][0] = -1
            MAP[fam][col][25] = -1
            for m in range(1, 25):
                MAP[fam][col][m] = (_board.mover_point(geometry, m) if col else m) - 1
            sign = 1 if col == 0 else -1
            for m in range(26):
                for c in range(16):
                    if 1 <= m <= 24:
                        KX[fam][col][m * 16 + c] = point_key(MAP[fam][col][m], sign * c)
                        KY[fam][col][m * 16 + c] = point_key(MAP[fam][col][m], -sign * c)
                    else:
                        KX[fam][col][m * 16 + c] = 0
                        KY[fam][col][m * 16 + c] = 0
                    KS[fam][col][m * 32 + 16 + c] = KX[fam][col][m * 16 + c]
                    KS[fam][col][m * 32 + 16 - c] = KY[fam][col][m * 16 + c]
                KS[fam][col][m * 32] = 0
                KD[fam][col][m * 32] = 0
                for c in range(1, 32):
                    KD[fam][col][m * 32 + c] = KS[fam][col][m * 32 + c] ^ KS[fam][col][m * 32 + c - 1]
    for s in range(2):
        KBAR[s][0] = 0
        KOFF[s][0] = 0
        for n in range(1, 16):
            KBAR[s][n] = KEYS[K_BAR + 15 * s + n - 1]
            KOFF[s][n] = KEYS[K_OFF + 15 * s + n - 1]
    for fam in range(2):
        for col in range(2):
            for b in range(256):
                for i in range(12):
                    KXB[fam][col][i * 256 + b] = (KX[fam][col][(2 * i + 1) * 16 + (b & 15)]
                                                  ^ KX[fam][col][(2 * i + 2) * 16 + (b >> 4)])
                KXB[fam][col][12 * 256 + b] = KBAR[col][b & 15] ^ KOFF[col][b >> 4]
    for i in range(4096):
        r = 0
        for b in range(12):
            if i & (1 << b):
                r |= 1 << (11 - b)
        REV12[i] = r


_init_rules()
_check_layout()
_init_tables()
