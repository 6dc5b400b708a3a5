# The values of many positions searched n plies deep (docs/rules.md, Evaluation and search): value(row, plies)
# of hint.pxi for every row of a batch, in C without the GIL, for the search targets of a training
# (nardy_fast.training.targets), the twin of the shared search's Search.values.
# Uses: gate, hint.
# Offers: nothing.


def search_values(const int8_t[:, ::1] rows, int plies, int kind, object tables, double[:, ::1] out,
                  const int32_t[::1] stop):
    """value(row, plies) of every packed row (N, 64) for its side to move, with built-in evaluator ``kind``
    (``tables``: see ``evaluator_from``), into ``out`` (N, 5), without the GIL: a finished game's outcome, the
    evaluator's values at 0 plies, else the mean over the 21 rolls of the best move's value a ply shallower
    (``value_of``). The caller hands over rows and ``out`` of its own (read and written without the GIL).
    Returns -1, or the index of the first row that is not a position (nothing after it is valued). Stops
    before the next row once ``stop[0]`` is set (another thread of the batch failed: ``nardy_fast.kernels.
    on_threads``), and within a search when a signal handler raised (Ctrl-C, on the main thread)."""
    cdef SearchCtx s
    cdef list held = []
    cdef Pos p
    cdef Py_ssize_t n = rows.shape[0], i = 0
    cdef int status = 0
    cdef Py_ssize_t bad = -1
    cdef const volatile int32_t *flag
    if rows.shape[1] != WIDTH or out.shape[0] != n or out.shape[1] != 5 or stop.shape[0] < 1:
        raise _field_error(_NardyError, "rows", "and out do not agree", (n, out.shape[0]))
    flag = &stop[0]
    try:
        search_open(&s, held, kind, tables, plies)
        with nogil:
            for i in range(n):
                if flag[0]:
                    break
                memcpy(&p, &rows[i, 0], sizeof(Pos))
                if not pos_ok(&p):
                    bad = i
                    break
                s.level = 0
                status = value_of(&s, &p, plies, &out[i, 0])
                if status < 0:
                    break
        if status < 0:
            hint_status(status, &s)
        return bad
    finally:
        search_close(&s, held)
