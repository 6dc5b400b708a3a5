# Per-segment reductions over CSR children (nardy_fast.segments): the argmax of each segment, without the GIL,
# over arrays nardy_fast.segments.check_segments copied and checked (float64 scores, no NaN; int64 offsets
# rising strictly from 0 to the number of scores).
# Uses: nothing.
# Offers: nothing.


def segment_argmax_rows(const double[::1] scores, const int64_t[::1] offsets, int64_t[::1] out):
    """``out[i]``: the index within segment ``i`` of its first highest score (``nardy_fast.segments``)."""
    cdef Py_ssize_t n = offsets.shape[0] - 1, i
    cdef int64_t j, best, begin, end
    cdef double top
    if n < 0 or out.shape[0] != n or offsets[n] != scores.shape[0]:
        raise _field_error(_NardyError, "offsets", "do not agree with scores and out", (offsets.shape[0], scores.shape[0]))
    for i in range(n):
        if offsets[i + 1] <= offsets[i] or offsets[i] < 0:
            raise _field_error(_NardyError, "offsets", "must rise strictly from 0", i)
    with nogil:
        for i in range(n):
            begin = offsets[i]
            end = offsets[i + 1]
            best = begin
            top = scores[begin]
            for j in range(begin + 1, end):
                if scores[j] > top:
                    top = scores[j]
                    best = j
            out[i] = best - begin
