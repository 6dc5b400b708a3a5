# Memory of a search: growable buffers, the hash table of a level (stamped, so that a reset clears nothing),
# the search workspace (Gen) and its results, the pool of workspaces that calls take and give back, and the
# count of a search's work (tick) with its look for signals, which both searches make, and the process's
# count of that work (searched) that a progress display reads; the pool's accounting for its tests
# (idle_workspaces).
# Uses: tables.
# Offers: buf_reserve, give_back, grown, next_result, resized, results_reserve, table_reset, table_resize,
# take_workspace, tick, ticks, signals_raised.


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


cdef void gen_free(Gen *g) noexcept nogil:
    cdef int i
    for i in range(25):
        free(g.levels[i].data)
        g.levels[i].data = NULL
        g.levels[i].cap = 0
    free(g.table.slots)
    g.table.slots = NULL
    g.table.alloc = 0
    free(g.seen.slots)
    free(g.seen.tags)
    free(g.seen.spare_slots)
    free(g.seen.spare_tags)
    g.seen.slots = NULL
    g.seen.tags = NULL
    g.seen.spare_slots = NULL
    g.seen.spare_tags = NULL
    g.seen.alloc = 0
    g.seen.spare_alloc = 0
    free(g.res)
    free(g.steps)
    g.res = NULL
    g.steps = NULL
    g.res_cap = 0
    g.steps_cap = 0


cdef size_t gen_bytes(const Gen *g) noexcept nogil:
    """The bytes that the workspace's buffers hold."""
    cdef size_t total = (<size_t> g.table.alloc * sizeof(uint64_t)
                         + (<size_t> g.seen.alloc + g.seen.spare_alloc) * (sizeof(Slot) + 1))
    cdef int i
    for i in range(25):
        total += <size_t> g.levels[i].cap * sizeof(Node)
    return total + <size_t> g.res_cap * sizeof(Result) + <size_t> g.steps_cap * 24 * sizeof(uint16_t)


cdef Gen *gen_new() noexcept nogil:
    cdef Gen *g = <Gen *> malloc(sizeof(Gen))
    if g != NULL:
        memset(g, 0, sizeof(Gen))
    return g


cdef int results_reserve(Gen *g, int32_t need) noexcept nogil:
    """Room for ``need`` results, and while the search writes steps (``steps_wanted``), for the steps of each
    at a stride of up to 24 (4 more at the end)."""
    cdef int32_t cap
    if need > g.res_cap:
        cap = <int32_t> grown(g.res_cap, need, 64)
        if resized(<void **> &g.res, cap, sizeof(Result)) < 0:
            return -1
        g.res_cap = cap
    if g.steps_wanted and g.steps_cap < g.res_cap:
        if resized(<void **> &g.steps, <int64_t> g.res_cap * 24 + 4, sizeof(uint16_t)) < 0:
            return -1
        g.steps_cap = g.res_cap
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
    cdef size_t kept  # its buffers' bytes while it is idle (IDLE_BYTES)

    def __cinit__(self):
        self.g = gen_new()
        if self.g == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g != NULL:
            gen_free(self.g)
            free(self.g)


# Idle workspaces, kept across calls: list.pop and list.append are atomic, with or without the GIL. Their
# buffers stay mapped, since a fresh page costs a page fault (about 1.7 us for 4 kB on the machine of
# docs/benchmarks.md, what a crazy ladder's search spends on about 15 results): up to WORKSPACE_KEEP
# bytes across the idle ones, which holds the workspace of the largest ladder of the crazy corpus (about 80
# MB); a workspace that would pass it is emptied before it is kept.
cdef int MAX_WORKSPACES = 8
cdef size_t WORKSPACE_KEEP = 128 << 20
cdef size_t IDLE_BYTES = 0
cdef list _WORKSPACES = []


cdef Generator take_workspace(int64_t limit):
    global IDLE_BYTES
    cdef Generator workspace
    try:
        workspace = _WORKSPACES.pop()
    except IndexError:
        workspace = Generator()
    NARDY_CHECK(IDLE_BYTES >= workspace.kept, "an idle workspace's bytes missing from IDLE_BYTES")
    IDLE_BYTES -= workspace.kept
    workspace.kept = 0
    workspace.g.limit = limit
    return workspace


cdef void give_back(Generator workspace) noexcept:
    """Keep ``workspace`` for the next call (with the GIL): whole while the idle ones' buffers stay within
    WORKSPACE_KEEP, else emptied."""
    global IDLE_BYTES
    cdef size_t size
    if len(_WORKSPACES) >= MAX_WORKSPACES:
        return
    size = gen_bytes(workspace.g)
    if IDLE_BYTES + size > WORKSPACE_KEEP:
        gen_free(workspace.g)
        size = 0
    workspace.kept = size
    IDLE_BYTES += size
    _WORKSPACES.append(workspace)


def idle_workspaces():
    """The pool's accounting, for its tests: ``(counted, held, number, bound)``, the bytes IDLE_BYTES counts for
    the idle workspaces, the bytes their buffers hold, how many there are, and WORKSPACE_KEEP."""
    cdef Generator workspace
    cdef size_t held = 0
    for workspace in list(_WORKSPACES):
        held += gen_bytes(workspace.g)
    return IDLE_BYTES, held, len(_WORKSPACES), WORKSPACE_KEEP


# The units of work of every search in the process, added a block of TICK_MASK + 1 at a time by tick, with
# the GIL held: the GIL is its lock, and the searches' own loops pay nothing for it.
cdef int64_t SEARCHED = 0


cdef int tick_block() noexcept nogil:
    """``tick``'s work every ``TICK_MASK + 1`` ticks, out of line: add them to the process's count and run the
    signal handlers (with the GIL, which this thread may hold already): -1 when one raised (its exception is
    set), else 0."""
    global SEARCHED
    with gil:
        SEARCHED += TICK_MASK + 1
        return PyErr_CheckSignals()


cdef inline int tick(Gen *g) noexcept nogil:
    """Count one unit of work (``tick_block`` every ``TICK_MASK + 1``): -1 when a signal handler raised, else 0."""
    g.ticks += 1
    return tick_block() if (g.ticks & TICK_MASK) == 0 else 0


cdef inline int ticks(Gen *g, uint32_t count) noexcept nogil:
    """``tick`` ``count`` times at once (``count`` at most ``TICK_MASK + 1``), for a loop that counts its units in
    a local: a crazy ladder's level search, whose stores through other pointers made the compiler load and
    store ``g.ticks`` for each node (0.5% of the crazy corpus's instructions)."""
    cdef uint32_t before = g.ticks
    g.ticks += count
    return tick_block() if ((before ^ g.ticks) & ~<uint32_t> TICK_MASK) else 0


cdef int signals_raised() noexcept nogil:
    """Run the signal handlers (with the GIL, which this thread may hold already): -1 when one raised (its
    exception is set), else 0. For the loops without a search's workspace (evaluate, encode, the bear-off
    tables), which count their own work and look every ``LOOK_WORK`` units: often enough that Ctrl-C stops
    them within a second whatever their input's size, seldom enough that taking the GIL (maybe waiting a
    switch interval for another thread to drop it) costs nothing measurable. Only the main thread runs
    handlers; a loop on another thread goes on (a playout's threads stop by its stop flag instead)."""
    with gil:
        return PyErr_CheckSignals()


def searched():
    """The move searches' work in this process so far, for a display of progress, not an exact count:
    searches started and level-search nodes expanded, counted in blocks of 4096 (a workspace adds a block
    once it has done that much work, so each holds back up to 4095 that it has not added yet)."""
    return SEARCHED
