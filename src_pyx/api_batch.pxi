# The batch API over packed rows (nardy_fast.batch): children in CSR form, output buffers handed to NumPy and
# kept as spares when freed.
# Uses: tables, memory, gate, rules, search, results, api_moves.
# Offers: roll_ok.

cdef struct Out:
    Pos *rows
    uint64_t *keys
    int64_t n
    int64_t cap


cdef int out_reserve(Out *o, int64_t need) noexcept nogil:
    """Room for ``need`` rows and keys."""
    cdef int64_t cap
    if need <= o.cap:
        return 0
    cap = grown(o.cap, need, 256)
    if resized(<void **> &o.rows, cap, sizeof(Pos)) < 0 or resized(<void **> &o.keys, cap, sizeof(uint64_t)) < 0:
        return -1
    # No huge pages (madvise): Linux moves a grown buffer with mremap, without a copy, but not one backed by
    # huge pages, whose every growth then held the old and the new buffer at once (a 2.5 GB output peaked at
    # 4.7 GB); the spare buffers already spare repeated batches their page faults.
    o.cap = cap
    return 0


cdef int64_t children_into(Gen *g, const Pos *p, int d1, int d2, Out *o) noexcept nogil:
    """Append the children of one checked position and roll to ``o``; an ``E_*`` code when the search
    stopped."""
    cdef int count
    if is_over(p):
        return 0
    setup(g, p, d1, d2)
    count = search(g)
    if count < 0:
        return count
    if out_reserve(o, o.n + count) < 0:
        return E_MEMORY
    write_results(g, p, d1, d2, &o.rows[o.n], &o.keys[o.n], NULL)
    o.n += count
    return count


cdef inline bint roll_ok(const Pos *p, int d1, int d2) noexcept nogil:
    """A roll for ``p``: (0, 0) plays a pending list, and may be given for a finished game (no moves, with or
    without dice); else two dice."""
    if p.npending or (d1 == 0 and d2 == 0 and is_over(p)):
        return d1 == 0 and d2 == 0
    return 1 <= d1 <= 6 and 1 <= d2 <= 6


def batch_children(const int8_t[:, ::1] positions, const int8_t[:, ::1] rolls, int64_t limit=0):
    """Children of N packed positions (rows of 64 int8) for N rolls (rows ``d1, d2``; ``0, 0`` plays the
    pending list), each search bounded by ``limit`` (max_results; 0 for none). Returns ``(children, offsets,
    keys, bad, over)``: ``bad`` is -1, or the first row that failed its checks (``bad + N`` when it was the
    roll), to be explained by the caller, or whose search needed more than ``limit`` (``over``).

    Each row and roll is copied once into memory of this call before it is checked, and only the copy is
    read: the caller's arrays may be changed by another thread meanwhile."""
    cdef Py_ssize_t n = positions.shape[0], i
    cdef Py_ssize_t roll_stride = 0 if rolls.shape[0] == 1 else 1
    cdef Generator workspace
    cdef Gen *g
    cdef Out o
    cdef int64_t bad = -1, got = 0
    cdef Pos p
    cdef int d1, d2
    # room for a typical number of children up front, so that the buffers rarely move (pages that are never
    # written are never mapped)
    cdef int64_t room = 24 * n + 1
    if positions.shape[1] != WIDTH or rolls.shape[1] != 2 or rolls.shape[0] not in (1, n) or limit < 0:
        raise _field_error(_NardyError, "positions", "must have 64 columns, and rolls 2 and one or N rows",
                           (positions.shape[0], positions.shape[1], rolls.shape[0], rolls.shape[1]))
    offsets = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] offs = offsets
    memset(&o, 0, sizeof(Out))
    take_spares(&o, room)
    workspace = take_workspace(limit)
    g = workspace.g
    with nogil:
        if out_reserve(&o, room) < 0:
            got = E_MEMORY
        for i in range(0 if got < 0 else n):
            memcpy(&p, &positions[i, 0], sizeof(Pos))
            d1 = rolls[i * roll_stride, 0]
            d2 = rolls[i * roll_stride, 1]
            if not pos_ok(&p):
                bad = i
                break
            if not roll_ok(&p, d1, d2):
                bad = i + n
                break
            got = children_into(g, &p, d1, d2, &o)
            if got < 0:
                break
            offs[i + 1] = o.n
    give_back(workspace)
    if got < 0:
        free(o.rows)
        free(o.keys)
        if got == E_LIMIT:
            return None, None, None, i, True
        search_status(<int> got, limit)
    keys = owned_array(o.keys, o.n, o.cap, 0, cnp.NPY_UINT64)
    children = owned_array(o.rows, o.n, o.cap, WIDTH, cnp.NPY_INT8)
    return children, offsets, keys, bad, False


# Buffers of batch outputs freed (kind 0 rows, 1 keys), kept for the next batches: their pages are mapped
# already, where a fresh buffer costs a page fault per page (about 1.7 us for 4 kB on the machine of
# docs/benchmarks.md, some 30 ns per row of output). A few of each kind (one per thread that runs batches at
# once), up to SPARE_LIMIT bytes in all: a 10,000-row batch of any variant's corpus (crazy's rows come to 106
# MB) reuses its buffers. Used with the GIL.
cdef enum:
    MAX_SPARES = 4
cdef void *SPARE[2][MAX_SPARES]
cdef size_t SPARE_BYTES[2][MAX_SPARES]
cdef int NSPARE[2]
cdef size_t SPARE_TOTAL[2]
cdef size_t SPARE_LIMIT = 128 << 20
cdef const char *CAPSULE_NAMES[2]
CAPSULE_NAMES[0] = "nardy_fast._core rows"
CAPSULE_NAMES[1] = "nardy_fast._core keys"


cdef void take_spares(Out *o, int64_t need) noexcept:
    """Start ``o`` on spare buffers, when there is one of each kind: of each, the smallest with room for ``need``
    rows (else the largest), so that batches of different sizes in turn, or on several threads, each find
    theirs."""
    cdef int kind, i, pick
    cdef size_t want, size
    cdef void *data[2]
    cdef size_t room[2]
    if NSPARE[0] == 0 or NSPARE[1] == 0:
        return
    for kind in range(2):
        want = <size_t> need * (sizeof(Pos) if kind == 0 else sizeof(uint64_t))
        pick = 0
        for i in range(1, NSPARE[kind]):
            size = SPARE_BYTES[kind][i]
            if (size >= want and (size < SPARE_BYTES[kind][pick] or SPARE_BYTES[kind][pick] < want)) or (
                    size < want and SPARE_BYTES[kind][pick] < size):
                pick = i
        data[kind] = SPARE[kind][pick]
        room[kind] = SPARE_BYTES[kind][pick]
        NSPARE[kind] -= 1
        SPARE[kind][pick] = SPARE[kind][NSPARE[kind]]
        SPARE_BYTES[kind][pick] = SPARE_BYTES[kind][NSPARE[kind]]
        SPARE_TOTAL[kind] -= room[kind]
    o.rows = <Pos *> data[0]
    o.keys = <uint64_t *> data[1]
    o.cap = <int64_t> min(room[0] // sizeof(Pos), room[1] // sizeof(uint64_t))


cdef void free_capsule(object capsule) noexcept:
    """Free an output buffer when its array goes, or keep it as a spare of its kind."""
    cdef const char *name = PyCapsule_GetName(capsule)
    cdef int kind = name == CAPSULE_NAMES[1]
    cdef void *data = PyCapsule_GetPointer(capsule, name)
    cdef size_t size = <size_t> PyCapsule_GetContext(capsule)
    if NSPARE[kind] < MAX_SPARES and SPARE_TOTAL[kind] + size <= SPARE_LIMIT:
        SPARE[kind][NSPARE[kind]] = data
        SPARE_BYTES[kind][NSPARE[kind]] = size
        SPARE_TOTAL[kind] += size
        NSPARE[kind] += 1
    else:
        free(data)


cdef object owned_array(void *data, int64_t n, int64_t cap, int width, int typenum):
    """An array of ``n`` rows (of ``width`` columns, or a vector for 0) over malloc'ed ``data`` (room for ``cap``),
    which it then owns and frees: the batch output is handed over, not copied."""
    cdef cnp.npy_intp dims[2]
    cdef object capsule
    cdef size_t size = cap * (WIDTH if width else sizeof(uint64_t))
    try:
        capsule = PyCapsule_New(data, CAPSULE_NAMES[width == 0], free_capsule)
    except BaseException:
        free(data)
        raise
    PyCapsule_SetContext(capsule, <void *> size)
    dims[0] = n
    dims[1] = width
    array = cnp.PyArray_SimpleNewFromData(2 if width else 1, dims, typenum, data)
    cnp.set_array_base(array, capsule)
    return array


def children(position, dice=None, int64_t limit=0):
    """The children of one packed row (see ``nardy_fast.children``), or ``None`` for anything but a valid
    C-contiguous int8 row with a valid roll, which the caller then explains; the search bounded by ``limit``
    (max_results; 0 for none)."""
    cdef Pos p
    cdef Generator workspace
    cdef Gen *g
    cdef int count = 0
    cdef int d1 = 0, d2 = 0
    cdef cnp.npy_intp dims[2]
    if type(position) is not np.ndarray:
        return None
    array = <cnp.ndarray> position
    if (cnp.PyArray_TYPE(array) != cnp.NPY_INT8 or cnp.PyArray_NDIM(array) != 1
            or cnp.PyArray_DIM(array, 0) != WIDTH or not cnp.PyArray_IS_C_CONTIGUOUS(array)):
        return None
    if dice is not None:
        if type(dice) is not tuple or len(<tuple> dice) != 2:
            return None
        if type((<tuple> dice)[0]) is not int or type((<tuple> dice)[1]) is not int:
            return None
        if not (0 <= (<tuple> dice)[0] <= 6 and 0 <= (<tuple> dice)[1] <= 6):
            return None
        d1 = (<tuple> dice)[0]
        d2 = (<tuple> dice)[1]
    memcpy(&p, cnp.PyArray_DATA(array), sizeof(Pos))
    if not pos_ok(&p) or not roll_ok(&p, d1, d2):
        return None
    result = None
    workspace = take_workspace(limit)
    g = workspace.g
    try:
        if not is_over(&p):
            setup(g, &p, d1, d2)
            if g.ndice > 4 or g.per_step:
                with nogil:
                    count = search(g)
            else:
                count = search(g)
            if count == E_LIMIT:
                return None  # explained by the caller's search, with the row's index
            search_status(count, limit)
        dims[0] = count
        dims[1] = WIDTH
        result = cnp.PyArray_SimpleNew(2, dims, cnp.NPY_INT8)
        if count:
            write_results(g, &p, d1, d2, <Pos *> cnp.PyArray_DATA(result), NULL, NULL)
    finally:
        give_back(workspace)
    return result
