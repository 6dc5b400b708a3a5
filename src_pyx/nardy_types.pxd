# The C-level data of the core: a position packed in 64 bytes (also the NumPy row layout of the batch API)
# and the search node of the move generator.

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

cdef enum:
    WIDTH = 64         # bytes of a packed position = columns of a position array

# A whole position in White's numbering; the field order is the documented array layout (nardy_fast.batch).
ctypedef struct Pos:
    int8_t board[24]
    int8_t bar[2]
    int8_t off[2]
    int8_t turn            # 0 White, 1 Black
    int8_t first[2]
    int8_t variant         # index in VARIANTS
    int8_t flags           # the bits of the two-valued flags (nardy_fast.variants.FlagSpec.bit)
    int8_t exc             # first_roll_exception_doubles: bit d-1 for double d
    int8_t npending
    int8_t pending[24]
    int8_t rolls_played[2]  # rolls played, counted up to flag normal_doubles_first_rolls
    int8_t reserved[3]

# A node of the level-by-level search, in the mover's numbering (docs/rules.md): X to move, Y the opponent. 32
# bytes, two to a cache line; Y's checkers are the root's, less those X hit (short nardy), so only X is kept.
ctypedef struct Node:
    # the board: nibble m-1 X's count on M m (m = 1..24), nibble 24 X's bar, 25 X's off; bits 104..127
    # (bit 103 + m): X hit Y's lone checker on M m
    uint64_t w[2]
    uint32_t xmask         # bit m-1: X holds M m
    uint32_t used          # bit i: dice[i] was played
    int32_t parent         # index of the parent node in the previous level
    uint16_t step          # the last step: src | die << 5 | special << 8 | hit << 9
    uint8_t heads          # normal steps that left M24
    uint8_t legal          # the block rule (B) holds here

# A slot of a level's hash table: a node's board whole, with its head departures in the bits of hits (no hit in
# the long family, no head rule in short), so that a probe reads the slot alone.
ctypedef struct Slot:
    uint64_t w[2]

# A distinct result of a search, in the mover's numbering.
ctypedef struct Result:
    int8_t b[32]           # b[m]: X's count on M m if > 0, Y's if < 0; b[25] X's bar, b[26] Y's bar, b[27] X's off
    uint64_t key           # Zobrist key of board, bar and off
    uint32_t used          # bit i: dice[i] was played
    int32_t nsteps

ctypedef struct NodeBuf:
    Node *data
    int32_t n
    int32_t cap

ctypedef struct Table:
    uint64_t *slots        # stamp << 32 | node index; a slot of another stamp is empty
    uint32_t mask          # slots in use - 1 (a power of two minus one)
    uint32_t alloc         # slots allocated
    uint32_t stamp         # bumped by every reset, so a reset clears nothing
    int32_t n

ctypedef struct Slots:
    Slot *slots
    uint8_t *tags          # of each slot: 0 empty, else 0x80 | its hash's top 7 bits (only tags are cleared)
    uint32_t mask          # slots in use - 1 (a power of two minus one)
    uint32_t alloc         # slots allocated
    int32_t n
    # the table a growth left (slots_grow), kept for the next: its pages are mapped already
    Slot *spare_slots
    uint8_t *spare_tags
    uint32_t spare_alloc

ctypedef struct Gen:
    # the problem
    int variant
    int long_family
    int color
    int ndice
    int dice[24]
    int ordered
    int head_limit         # -1: no head rule
    int per_step
    int ymax_t             # farthest Y checker on Y's track (long family), -1 if none
    uint32_t yblock        # bit m-1: M m is closed to X (Y holds it; two or more in short); no step changes it
    uint64_t static_key    # key of the variant and flags (no move changes them)
    const uint64_t *kx     # key of X's count c on M m: kx[m * 16 + c]
    const uint64_t *ky
    const uint64_t *kxbar
    const uint64_t *kybar
    const uint64_t *kxoff
    const uint64_t *kxb    # KXB of the geometry and colour
    # the search: level by level over nodes (long dice lists, per-step block check) ...
    NodeBuf levels[25]
    Slots seen             # the nodes of the level being built (frontier.pxi)
    uint32_t ylone         # bit m-1: one Y checker on M m (short nardy: X may hit it)
    uint64_t kbase         # the root's key less X's counts, bar and off (node_result)
    uint64_t yroot[3]      # the root's points 1..24 as Result.b with X's counts cleared: Y's checkers
    int want_steps         # the canonical steps of each result are wanted (legal_moves)
    Table table
    # ... or depth first over one board (up to four dice), undoing each step
    const uint64_t *ks     # key of the signed count c on M m (X > 0): ks[m * 32 + 16 + c]
    const uint64_t *kd     # ks[m * 32 + 16 + c] ^ ks[m * 32 + 15 + c]: a step's change on M m
    int8_t b[32]           # the board being searched, laid out as Result.b
    uint32_t xmask
    uint64_t key
    uint32_t used
    int heads
    int depth
    # the steps that led here, step i in bits 16i..16i+15: one word, written whole, so that copying it never
    # waits on a narrower store
    uint64_t path
    int landing            # where the first of them landed (0: borne off)
    int distinct           # no two sequences the search tries reach one result (see depth_first_search)
    # the distinct results at the deepest level with a legal candidate (docs/rules.md, Maximal use of the
    # dice)
    int best
    int32_t nres
    int32_t res_cap
    Result *res
    # or, after a crazy ladder's search (ladder.pxi, plain_results), X's words of result i at plain[i].w, all of
    # ``best`` steps, their rows made from them (results.pxi, plain_unfinished_rows); NULL when ``res`` holds the results
    const Node *plain
    uint16_t *steps        # canonical steps of result i at steps[i * ndice], ``best`` of them
    int32_t steps_cap      # results that ``steps`` has room for
    int steps_wanted       # the search writes steps (results_reserve makes room for them)
    # bounds: the most nodes a level may hold (max_results; 0 for none), and a count of searches and expanded
    # nodes between two looks for a pending signal (Ctrl-C)
    int64_t limit
    uint32_t ticks

# A built-in evaluator (nardy_fast.evaluation.EVALUATORS) and the tables it reads: the race evaluator's
# bear-off tables of the positions' variant (nardy_fast.bearoff) and a network's weights, read-only, kept alive
# by the caller; the composite "net" reads both (the race evaluator's in races, its contact part's in contact).
ctypedef struct Evaluator:
    int kind               # the index in EVALUATORS
    int contact            # the composite: the kind that values positions in contact
    int parent_race        # pubeval: the weight set of the position before the move (1 race, 0 contact), -1 the row's own
    int64_t n1             # layouts in the one-sided table (0: none)
    const double *dist     # its dist, (n1, MAX_TURNS + 1) in C order
    const double *dist_first
    int64_t n2             # layouts in the two-sided table (0: none)
    const double *two_win  # its win, (n2, n2) in C order
    int hidden             # the network's hidden units (nardy_fast.evaluation.network)
    int inputs             # its inputs: the "nardy" encoding's, or the "expert" encoding's
    const float *w1        # (inputs, hidden), b1 (hidden,), b2 (5,), C order
    const float *b1
    const float *b2
    const float *terms     # the point terms (2, 24, 16, hidden) (nardy_fast.evaluation.network.point_terms)
    const float *w2t       # w2 transposed and padded, (hidden, 8)
