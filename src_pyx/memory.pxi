# Memory of a search: growable buffers, the hash table of a level (stamped, so that a reset clears nothing),
# the search workspace (Gen) and its results, the pool of workspaces that calls take and give back, and the
# count of a search's work (tick) with its look for signals, which both searches make.
# Uses: tables.
# Offers: buf_reserve, give_back, grown, next_result, resized, results_reserve, table_find_or_add, table_reset,
# table_resize, take_workspace, tick.


cdef inline int64_t grown(int64_t cap, int64_t need, int64_t first) noexcept nogil:
    """A capacity of at least ``need``: doubling ``cap``, starting from ``first``."""
    cap = cap * 2 if cap else first
    while cap < need:
        cap *= 2
    return cap


cdef int resized(void **data, int64_t count, size_t size) noexcept nogil:
    """Reallocate ``*data`` to ``count`` items of ``size`` bytes; -1 (``*data`` kept) when memory ran out."""
    cdef void *moved = realloc(data[0], count * size)
    if moved == NULL:
        return -1
    data[0] = moved
    return 0


cdef int buf_reserve(NodeBuf *b, int32_t need) noexcept nogil:
    cdef int32_t cap
    if need <= b.cap:
        return 0
    cap = <int32_t> grown(b.cap, need, 64)
    if resized(<void **> &b.data, cap, sizeof(Node)) < 0:
        return -1
    b.cap = cap
    return 0


cdef int table_resize(Table *t, uint32_t cap) noexcept nogil:
    """Use ``cap`` slots (a power of two), all empty."""
    cdef uint64_t *slots
    t.stamp += 1
    if t.alloc < cap or t.stamp == 0:
        slots = <uint64_t *> calloc(max(cap, t.alloc), sizeof(uint64_t))
        if slots == NULL:
            return -1
        free(t.slots)
        t.slots = slots
        t.alloc = max(cap, t.alloc)
        t.stamp = 1
    t.mask = cap - 1
    t.n = 0
    return 0


cdef int table_reset(Table *t, int32_t expected) noexcept nogil:
    """An empty table sized for ``expected`` entries, in O(1) (the stamp changes; nothing is cleared)."""
    cdef uint32_t cap = 16
    while cap < <uint32_t> (expected * 2):
        cap *= 2
    return table_resize(t, cap)


cdef inline bint same_board(const Node *a, const Node *b) noexcept nogil:
    cdef const uint64_t *u = <const uint64_t *> a.x
    cdef const uint64_t *v = <const uint64_t *> b.x
    cdef int i
    if a.key != b.key or a.xbar != b.xbar or a.ybar != b.ybar or a.xoff != b.xoff:
        return False
    for i in range(8):  # x and y, 32 bytes each
        if u[i] != v[i]:
            return False
    return True


cdef inline uint64_t node_hash(const Node *n, bint with_search_state) noexcept nogil:
    cdef uint64_t h = n.key
    if with_search_state:
        h ^= (<uint64_t> n.used * 0x9E3779B97F4A7C15ULL) ^ (<uint64_t> n.heads * 0xC2B2AE3D27D4EB4FULL)
    return h


cdef int32_t table_find_or_add(Table *t, Node *nodes, int32_t idx, bint with_search_state) noexcept nogil:
    """Index of a node equal to ``nodes[idx]`` already in the table, or -1 after adding ``idx``; -2: no memory."""
    cdef uint64_t h64 = node_hash(&nodes[idx], with_search_state)
    cdef uint32_t h = <uint32_t> (h64 >> 32) & t.mask
    cdef uint64_t slot, live = <uint64_t> t.stamp << 32
    cdef int32_t other
    cdef Node *a = &nodes[idx]
    cdef Node *b
    while True:
        slot = t.slots[h]
        if (slot & 0xFFFFFFFF00000000ULL) != live:
            break
        other = <int32_t> (slot & 0xFFFFFFFFULL)
        b = &nodes[other]
        if node_hash(b, with_search_state) == h64 and same_board(a, b) and (
            not with_search_state or (a.used == b.used and a.heads == b.heads)
        ):
            return other
        h = (h + 1) & t.mask
    t.slots[h] = live | <uint32_t> idx
    t.n += 1
    if <uint32_t> t.n * 2 > t.mask:
        if _rehash(t, nodes, with_search_state) < 0:
            return -2
    return -1


cdef int _rehash(Table *t, const Node *nodes, bint with_search_state) noexcept nogil:
    """Double the slots in use and re-insert every entry."""
    cdef uint32_t old_cap = t.mask + 1, i, h, count = 0
    cdef uint64_t live = <uint64_t> t.stamp << 32
    cdef int32_t *entries = <int32_t *> malloc(t.n * sizeof(int32_t))
    cdef int32_t n = t.n
    if entries == NULL:
        return -1
    for i in range(old_cap):
        if (t.slots[i] & 0xFFFFFFFF00000000ULL) == live:
            entries[count] = <int32_t> (t.slots[i] & 0xFFFFFFFFULL)
            count += 1
    if table_resize(t, old_cap * 2) < 0:
        free(entries)
        return -1
    live = <uint64_t> t.stamp << 32
    for i in range(count):
        h = <uint32_t> (node_hash(&nodes[entries[i]], with_search_state) >> 32) & t.mask
        while (t.slots[h] & 0xFFFFFFFF00000000ULL) == live:
            h = (h + 1) & t.mask
        t.slots[h] = live | <uint32_t> entries[i]
    t.n = n
    free(entries)
    return 0


cdef void gen_free(Gen *g) noexcept nogil:
    cdef int i
    for i in range(25):
        free(g.levels[i].data)
        g.levels[i].data = NULL
        g.levels[i].cap = 0
    free(g.table.slots)
    g.table.slots = NULL
    g.table.alloc = 0
    free(g.res)
    free(g.steps)
    g.res = NULL
    g.steps = NULL
    g.res_cap = 0


cdef size_t gen_bytes(const Gen *g) noexcept nogil:
    """The bytes that the workspace's buffers hold."""
    cdef size_t total = <size_t> g.table.alloc * sizeof(uint64_t)
    cdef int i
    for i in range(25):
        total += <size_t> g.levels[i].cap * sizeof(Node)
    return total + <size_t> g.res_cap * (sizeof(Result) + 24 * sizeof(uint16_t))


cdef Gen *gen_new() noexcept nogil:
    cdef Gen *g = <Gen *> malloc(sizeof(Gen))
    if g != NULL:
        memset(g, 0, sizeof(Gen))
    return g


cdef int results_reserve(Gen *g, int32_t need) noexcept nogil:
    """Room for ``need`` results, and for the steps of each at a stride of up to 24 (4 more at the end)."""
    cdef int32_t cap
    if need <= g.res_cap:
        return 0
    cap = <int32_t> grown(g.res_cap, need, 64)
    if (resized(<void **> &g.res, cap, sizeof(Result)) < 0
            or resized(<void **> &g.steps, cap * 24 + 4, sizeof(uint16_t)) < 0):
        return -1
    g.res_cap = cap
    return 0


cdef inline Result *next_result(Gen *g) noexcept nogil:
    """The place of the next result (``g.res[g.nres]``), made room for; NULL when memory ran out."""
    if g.nres == g.res_cap and results_reserve(g, g.nres + 1) < 0:
        return NULL
    NARDY_CHECK(g.nres < g.res_cap, "a result beyond the results' capacity")
    return &g.res[g.nres]


@cython.auto_pickle(False)
cdef class Generator:
    """A search workspace. A call takes one from ``_WORKSPACES`` (or a new one) and owns it until it has read
    its results back, so that a call made meanwhile (another thread, a garbage-collector callback, a
    finaliser) never shares it."""

    cdef Gen *g

    def __cinit__(self):
        self.g = gen_new()
        if self.g == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g != NULL:
            gen_free(self.g)
            free(self.g)


# Idle workspaces, kept across calls: list.pop and list.append are atomic, with or without the GIL.
cdef list _WORKSPACES = []
cdef int MAX_WORKSPACES = 8
# A workspace that grew past this many bytes (a huge crazy ladder) is emptied before it is kept.
cdef size_t WORKSPACE_KEEP = 16 << 20


cdef Generator take_workspace(int64_t limit):
    cdef Generator workspace
    try:
        workspace = _WORKSPACES.pop()
    except IndexError:
        workspace = Generator()
    workspace.g.limit = limit
    return workspace


cdef void give_back(Generator workspace) noexcept:
    if gen_bytes(workspace.g) > WORKSPACE_KEEP:
        gen_free(workspace.g)
    if len(_WORKSPACES) < MAX_WORKSPACES:
        _WORKSPACES.append(workspace)


cdef int tick(Gen *g) noexcept nogil:
    """Count one unit of work; every ``TICK_MASK + 1`` of them, run the signal handlers (with the GIL, which
    this thread may hold already): -1 when one raised (its exception is set), else 0."""
    cdef int status = 0
    g.ticks += 1
    if (g.ticks & TICK_MASK) == 0:
        with gil:
            status = PyErr_CheckSignals()
    return status
