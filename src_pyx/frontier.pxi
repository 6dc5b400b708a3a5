# The frontier of the level-by-level search: a level's nodes, 32 bytes each (X's counts as nibbles, Y as the
# root's less the checkers X hit), and the hash table that merges equal nodes, whose slots hold a node's
# board and search state whole, so that a probe reads one slot and no node.
# Uses: tables.
# Offers: count_at, node_result, node_step, plain_points, plain_result, plain_tail, slot_hash, slot_put,
# slot_word, slots_add, slots_reset, slots_room, x_key.

cdef enum:
    NIB_BAR = 24       # the nibble of X's bar in Node.w
    NIB_OFF = 25       # the nibble of X's off
    HIT_BIT = 40       # Node.w[1] bit HIT_BIT + m - 1: X hit on M m


cdef inline int count_at(const Node *n, int nibble) noexcept nogil:
    """X's count in nibble ``nibble`` of ``n`` (M m at m - 1, NIB_BAR, NIB_OFF)."""
    return <int> ((n.w[nibble >> 4] >> (4 * (nibble & 15))) & 15)


cdef inline void node_step(Node *c, const Node *n, int src, int dst, bint hit) noexcept nogil:
    """Write into ``c`` the board of ``n`` with one X checker moved from ``src`` (1..24, BAR_POINT) to ``dst``
    (1..24, 0: off); ``hit``: the lone Y checker on ``dst`` goes to the bar. Counts never leave 0..15, so no
    nibble carries; the board is changed in registers and stored once."""
    cdef int from_nibble = src - 1
    cdef int to_nibble = dst - 1 if dst else NIB_OFF
    cdef uint64_t w0 = n.w[0], w1 = n.w[1]
    cdef uint64_t one_from = <uint64_t> 1 << (4 * (from_nibble & 15))
    cdef uint64_t one_to = <uint64_t> 1 << (4 * (to_nibble & 15))
    cdef uint32_t xmask = n.xmask
    cdef uint64_t was
    if from_nibble < 16:
        was = w0
        w0 -= one_from
    else:
        was = w1
        w1 -= one_from
    if src != BAR_POINT and (was >> (4 * (from_nibble & 15))) & 15 == 1:
        xmask &= ~(1u << from_nibble)
    if to_nibble < 16:
        w0 += one_to
    else:
        w1 += one_to
    if dst:
        xmask |= 1u << to_nibble
    if hit:
        w1 |= <uint64_t> 1 << (HIT_BIT + dst - 1)
    c.w[0] = w0
    c.w[1] = w1
    c.xmask = xmask


cdef inline uint64_t slot_word(const Node *n, bint last) noexcept nogil:
    """The second word of ``n``'s slot: its board's, with the head departures in the bits of hits, unless the
    node is on the deepest level, where only the board counts."""
    return n.w[1] if last else n.w[1] | (<uint64_t> n.heads << HIT_BIT)


cdef inline uint64_t slot_hash(uint64_t w0, uint64_t w1) noexcept nogil:
    """The hash of a slot: the words multiplied, folded."""
    cdef uint64_t h = w0 * 0x9E3779B97F4A7C15ULL ^ w1 * 0xC2B2AE3D27D4EB4FULL
    return h ^ (h >> 29)


cdef inline void slots_swap(Slots *t) noexcept nogil:
    """The table and its spare trade places."""
    cdef Slot *slots = t.slots
    cdef uint8_t *tags = t.tags
    cdef uint32_t alloc = t.alloc
    t.slots = t.spare_slots
    t.tags = t.spare_tags
    t.alloc = t.spare_alloc
    t.spare_slots = slots
    t.spare_tags = tags
    t.spare_alloc = alloc


cdef int slots_alloc(Slots *t, uint32_t cap) noexcept nogil:
    """Room for ``cap`` slots and their tags, all empty, in the table's memory, else its spare's, else new
    memory (the table's own then freed, the spare kept); the slots' memory is not cleared (a tag says whether
    a slot holds something), only the tags', a sixteenth of it."""
    cdef Slot *slots
    cdef uint8_t *tags
    if t.alloc < cap and t.spare_alloc >= cap:
        slots_swap(t)
    if t.alloc < cap:
        slots = <Slot *> nardy_big_alloc(<size_t> cap * sizeof(Slot))
        tags = <uint8_t *> nardy_big_alloc(cap)
        if slots == NULL or tags == NULL:
            free(slots)
            free(tags)
            return -1
        free(t.slots)
        free(t.tags)
        t.slots = slots
        t.tags = tags
        t.alloc = cap
    memset(t.tags, 0, cap)
    t.mask = cap - 1
    return 0


cdef int slots_reset(Slots *t, int64_t expected) noexcept nogil:
    """An empty table sized for ``expected`` entries: cleared, the memory kept unless more is needed."""
    cdef uint32_t cap = 16
    while cap < expected * 2 and cap < (<uint32_t> 1 << 31):
        cap *= 2
    if slots_alloc(t, cap) < 0:
        return -1
    t.n = 0
    return 0


cdef inline bint slot_put(Slot *slots, uint8_t *tags, uint32_t mask, uint64_t w0, uint64_t w1,
                          uint64_t h) noexcept nogil:
    """Put the slot (``w0``, ``w1``), of hash ``h``, in a table with room, unless it is there: True when put. A
    probe reads the tags, and a slot only where its tag matches (a new child, half of a crazy ladder's, is
    then put without reading a slot)."""
    cdef uint32_t i = <uint32_t> h & mask
    cdef uint8_t tag = <uint8_t> (0x80 | (h >> 57))
    cdef uint8_t found
    while True:
        found = tags[i]
        if found == 0:
            tags[i] = tag
            slots[i].w[0] = w0
            slots[i].w[1] = w1
            return True
        if found == tag and slots[i].w[0] == w0 and slots[i].w[1] == w1:
            return False
        i = (i + 1) & mask


cdef int slots_grow(Slots *t) noexcept nogil:
    """Twice the slots, every entry moved over (their hashes come from the slots themselves), into the spare
    when it has room, else into new memory (the spare, too small, freed). The table grown from becomes the
    spare: a crazy ladder's level that outgrows the table sized for it grows it, and with the old table freed
    and a new one mapped at each growth, fresh pages (2 MB each, cleared by the system) were 3% of the crazy
    corpus's time in a loop of batches."""
    cdef Slot *old_slots = t.slots
    cdef uint8_t *old_tags = t.tags
    cdef uint32_t i, old_alloc = t.alloc, cap = t.mask + 1
    cdef Slot *slots
    cdef uint8_t *tags
    if cap == 0 or cap >= (<uint32_t> 1 << 31):
        return -1
    if t.spare_alloc >= cap * 2:
        slots = t.spare_slots
        tags = t.spare_tags
        t.alloc = t.spare_alloc
    else:
        slots = <Slot *> nardy_big_alloc(<size_t> cap * 2 * sizeof(Slot))
        tags = <uint8_t *> nardy_big_alloc(cap * 2)
        if slots == NULL or tags == NULL:
            free(slots)
            free(tags)
            return -1
        free(t.spare_slots)
        free(t.spare_tags)
        t.alloc = cap * 2
    memset(tags, 0, cap * 2)
    t.slots = slots
    t.tags = tags
    t.mask = cap * 2 - 1
    t.spare_slots = old_slots
    t.spare_tags = old_tags
    t.spare_alloc = old_alloc
    for i in range(cap):
        if old_tags[i]:
            slot_put(slots, tags, t.mask, old_slots[i].w[0], old_slots[i].w[1],
                     slot_hash(old_slots[i].w[0], old_slots[i].w[1]))
    return 0


cdef inline int slots_room(Slots *t, int64_t more) noexcept nogil:
    """Grow the table until ``more`` entries more keep it at most 5/8 full (a linear probe's runs stay short);
    -1 when memory ran out."""
    while (t.n + more) * 8 > <int64_t> t.mask * 5:
        if slots_grow(t) < 0:
            return -1
    return 0


cdef inline int slots_add(Slots *t, uint64_t w0, uint64_t w1, uint64_t h) noexcept nogil:
    """Add the slot (``w0``, ``w1``) unless it is there: 1 when added, 0 when there, -1 when memory ran out.
    ``h`` is ``slot_hash(w0, w1)``."""
    if not slot_put(t.slots, t.tags, t.mask, w0, w1, h):
        return 0
    t.n += 1
    return -1 if slots_room(t, 0) < 0 else 1


cdef inline uint64_t spread(uint64_t nibbles) noexcept nogil:
    """The eight low nibbles of ``nibbles`` as the eight bytes of a word, in order."""
    nibbles &= 0xFFFFFFFFULL
    nibbles = (nibbles | (nibbles << 16)) & 0x0000FFFF0000FFFFULL
    nibbles = (nibbles | (nibbles << 8)) & 0x00FF00FF00FF00FFULL
    return (nibbles | (nibbles << 4)) & 0x0F0F0F0F0F0F0F0FULL


cdef inline uint64_t x_key(const uint64_t *kxb, const uint64_t *w) noexcept nogil:
    """The key of X's counts, bar and off in the board ``w`` (a node's): one table read per byte, the bytes read
    from memory (a machine of one byte order: nardy_compat.h), which costs a load each where cutting them out
    of the words cost a shift and a mask."""
    cdef const uint8_t *b = <const uint8_t *> w
    cdef uint64_t key = 0
    cdef int j
    for j in range(13):
        key ^= kxb[j * 256 + b[j]]
    return key


cdef inline void plain_points(const uint64_t *yroot, uint64_t w0, uint64_t w1, uint64_t *p) noexcept nogil:
    """The points M1..M24 of a node without hits, whose board words are ``w0, w1``, as ``Result.b[1..24]`` in
    three words ``p``: X's counts spread to bytes over Y's at the root (``Gen.yroot``)."""
    p[0] = spread(w0) | yroot[0]
    p[1] = spread(w0 >> 32) | yroot[1]
    p[2] = spread(w1) | yroot[2]


cdef inline uint64_t plain_tail(uint64_t ybar, uint64_t p2, uint64_t w1) noexcept nogil:
    """``Result.b[24..31]`` of a node without hits, whose second board word is ``w1`` and whose points M17..M24
    are ``p2`` (``plain_points``): M24, X's bar, Y's bar (``ybar``, the root's), X's off, then zeros."""
    return ((p2 >> 56) | (((w1 >> (4 * (NIB_BAR - 16))) & 15) << (8 * (BAR_POINT - 24)))
            | (ybar << (8 * (YBAR - 24)))
            | (((w1 >> (4 * (NIB_OFF - 16))) & 15) << (8 * (XOFF - 24))))


cdef inline void plain_result(const Gen *g, uint64_t w0, uint64_t w1, int32_t nsteps, uint32_t used,
                              Result *r) noexcept nogil:
    """``node_result`` of a node without hits, whose board words are ``w0, w1`` (the head departures' bits clear):
    X's counts spread to bytes over Y's at the root (``plain_points``), the four words of ``Result.b`` stored
    whole, and the key the root's with X's part read from the words (``x_key``)."""
    cdef uint64_t w[2]
    cdef uint64_t p[3]
    cdef uint64_t b
    w[0] = w0
    w[1] = w1
    plain_points(g.yroot, w0, w1, p)
    # b[0] is 0; b[25..27] X's bar, Y's bar, X's off; b[28..31] 0. A word at a time, each from registers: a
    # copy of the four from memory read them back before their stores had landed, and waited.
    b = p[0] << 8
    memcpy(&r.b[0], &b, 8)
    b = (p[0] >> 56) | (p[1] << 8)
    memcpy(&r.b[8], &b, 8)
    b = (p[1] >> 56) | (p[2] << 8)
    memcpy(&r.b[16], &b, 8)
    b = plain_tail(<uint8_t> g.b[YBAR], p[2], w1)
    memcpy(&r.b[24], &b, 8)
    r.key = g.kbase ^ x_key(g.kxb, w)
    r.used = used
    r.nsteps = nsteps


cdef void node_result(const Gen *g, const Node *n, int nsteps, Result *r) noexcept nogil:
    """The result of node ``n`` (``nsteps`` steps deep): its board as ``Result.b`` and its Zobrist key. A point
    holds X's count, or Y's as at the root unless X hit there (X never shares a point with Y): eight points to
    a word. With no hit, Y's checkers are the root's and the key is the root's with X's part read from the
    node's bytes (``plain_result``; ``x_key``: 13 reads, where the points that changed in a crazy ladder are
    20); with hits, the root's is changed on the points that changed."""
    cdef uint32_t hits = <uint32_t> (n.w[1] >> HIT_BIT)
    cdef uint64_t key = g.key, x, y, board, changed, root
    cdef int i, m, ybar = g.b[YBAR]
    if not hits:
        plain_result(g, n.w[0], n.w[1], nsteps, n.used, r)
        return
    for i in range(3):
        x = spread(n.w[i >> 1] >> (32 * (i & 1)))
        # Y's counts (negative bytes) where X is not and did not hit
        y = g.yroot[i] & ~((nonzero_bytes(x) >> 7) * 0xFF) & ~(spread_bits(hits >> (8 * i)) * 0xFF)
        board = x | y
        memcpy(&r.b[1 + 8 * i], &board, 8)
        memcpy(&root, &g.b[1 + 8 * i], 8)
        changed = nonzero_bytes(board ^ root)
        while changed:
            m = 1 + 8 * i + (ctz64(changed) >> 3)
            changed &= changed - 1
            key ^= g.ks[m * 32 + 16 + r.b[m]] ^ g.ks[m * 32 + 16 + g.b[m]]
    r.b[0] = 0
    r.b[BAR_POINT] = <int8_t> count_at(n, NIB_BAR)
    r.b[XOFF] = <int8_t> count_at(n, NIB_OFF)
    memset(&r.b[XOFF + 1], 0, 32 - XOFF - 1)
    while hits:
        hits &= hits - 1
        ybar += 1
    key ^= g.kxbar[r.b[BAR_POINT]] ^ g.kxbar[g.b[BAR_POINT]] ^ g.kybar[ybar] ^ g.kybar[g.b[YBAR]]
    key ^= g.kxoff[r.b[XOFF]] ^ g.kxoff[g.b[XOFF]]
    r.b[YBAR] = <int8_t> ybar
    r.key = key
    r.used = n.used
    r.nsteps = nsteps
