# The network evaluator "net" in C (docs/rules.md, Evaluation): the twin of nardy_fast.reference.network. The
# network, its inputs and the order of its arithmetic are nardy_fast.evaluation.network's (its docstring):
# float32 sums in that order (no fused multiply-adds: setup.py), sigmoids in double, so that both
# implementations give the same bits. Where the time goes decided the layout (callgrind, 80 hidden units): a
# dense pass over the 224 features cost about 8,500 instructions a position. A "nardy" row has about 40 features
# set, most of them the units of 10 to 14 occupied points, so the first layer adds one tabled term per occupied
# point (a contiguous row the compiler vectorises) and then the few other features set; the hidden units are
# rectified (no exp), and the output layer adds the units above 0 into eight lanes at once (w2 transposed).
# Uses: tables, expert, encode, twins.
# Offers: nothing.

from libc.math cimport exp

import os as _os

from nardy_fast.evaluation.constants import INPUTS as _NET_INPUTS
from nardy_fast.evaluation.constants import MAX_HIDDEN as _NET_MAX_HIDDEN

from nardy_fast.evaluation.constants import MAX_COUNT as _NET_MAX_COUNT
from nardy_fast.evaluation.constants import POINT_FEATURES as _NET_POINT_FEATURES

cdef enum:
    NET_MAX_INPUTS = 256
    NET_MAX_HIDDEN = 512
    NET_COUNTS = 16  # point terms are tabled for 0..15 checkers

cdef int NET_INPUTS = _NET_INPUTS
# the inputs of a network of the "expert" scheme: the "nardy" ones, then the expert features (expert.pxi)
cdef int NET_EXPERT_INPUTS = SCHEME_FEATURES[SCHEME_EXPERT]

if (NET_EXPERT_INPUTS > NET_MAX_INPUTS or _NET_MAX_HIDDEN != NET_MAX_HIDDEN or _NET_INPUTS != SCHEME_FEATURES[SCHEME_NARDY]
        or _NET_MAX_COUNT + 1 != NET_COUNTS or _NET_POINT_FEATURES != AT_BAR):
    raise ImportError("nardy_fast._core: the network's sizes are not the core's")


cdef int network_from(Evaluator *e, object tables) except -1:
    """Point ``e`` at the weights ``tables`` = ``(w1, b1, w2, b2, terms, w2t)`` (``Network.tables``):
    C-contiguous float32 arrays of a network's shapes, which the caller keeps alive while ``e`` is used."""
    cdef const float[:, ::1] w1
    cdef const float[::1] b1
    cdef const float[:, ::1] w2
    cdef const float[::1] b2
    cdef const float[:, :, :, ::1] terms
    cdef const float[:, ::1] w2t
    # a tuple of the caller's keeps the arrays alive while e points into them (an iterable might not)
    if type(tables) is not tuple or len(<tuple> tables) != 6:
        raise _field_error(_NardyError, "tables", "are not a network's tables", type(tables).__name__)
    w1, b1, w2, b2, terms, w2t = <tuple> tables
    cdef Py_ssize_t nh = w1.shape[1]
    if ((w1.shape[0] != NET_INPUTS and w1.shape[0] != NET_EXPERT_INPUTS) or not 1 <= nh <= NET_MAX_HIDDEN or b1.shape[0] != nh or w2.shape[0] != 5
            or w2.shape[1] != nh or b2.shape[0] != 5 or terms.shape[0] != 2 or terms.shape[1] != 24
            or terms.shape[2] != NET_COUNTS or terms.shape[3] != nh or w2t.shape[0] != nh or w2t.shape[1] != 8):
        raise _field_error(_NardyError, "tables", "do not have the shapes of a network", (w1.shape[0], nh))
    e.hidden = <int> nh
    e.inputs = <int> w1.shape[0]
    e.w1 = &w1[0, 0]
    e.b1 = &b1[0]
    e.terms = &terms[0, 0, 0, 0]
    e.w2t = &w2t[0, 0]
    e.b2 = &b2[0]
    return 0


cdef inline double net_sigmoid(float total) noexcept nogil:
    return 1.0 / (1.0 + exp(-<double> total))


#: whether the network's loops run on AVX2 (net_kernel.h, declared in _core.pyx): the CPU's, unless
#: NARDY_FAST_NET_BASELINE=1
NET_AVX2 = False if _os.environ.get("NARDY_FAST_NET_BASELINE") == "1" else bool(nardy_net_choose())


cdef int network_evaluate(const Evaluator *e, const Pos *p, double *out) noexcept nogil:
    """``out[0..4]`` for the side to move of the unfinished position ``p`` by the network of ``e``; always 0."""
    cdef float x[NET_MAX_INPUTS]
    cdef float h[NET_MAX_HIDDEN]
    cdef float total[8]
    cdef int offsets[24]
    cdef float xs[NET_MAX_INPUTS]
    cdef const float *rows[NET_MAX_INPUTS]
    cdef int j, o, m, c, nterms = 0, nrows = 0, nh = e.hidden, ni = e.inputs
    cdef int me = p.turn
    cdef int fam = 1 if V_SHORT[p.variant] else 0
    cdef int sign = -1 if me else 1
    cdef int8_t seen[24]
    for m in range(1, 25):
        c = sign * p.board[MAP[fam][me][m]]
        seen[m - 1] = c
        if c > 0:
            offsets[nterms] = ((m - 1) * NET_COUNTS + c) * nh
            nterms += 1
        elif c < 0:
            offsets[nterms] = ((24 + m - 1) * NET_COUNTS - c) * nh
            nterms += 1
    memset(&x[AT_BAR], 0, (ni - AT_BAR) * sizeof(float))
    encode_nardy_rest(p, x)
    if ni == NET_EXPERT_INPUTS:
        expert_of_seen(p, seen, &x[NET_INPUTS])
    for j in range(AT_BAR, ni):
        if x[j] != 0:
            xs[nrows] = x[j]
            rows[nrows] = e.w1 + j * nh
            nrows += 1
    nardy_net_pass(h, total, e.b1, e.terms, offsets, nterms, xs, rows, nrows, e.w2t, e.b2, nh)
    for o in range(5):
        out[o] = net_sigmoid(total[o])
    # nested, each output capped by the one it must not exceed
    if out[1] > out[0]:
        out[1] = out[0]
    if out[2] > out[1]:
        out[2] = out[1]
    if out[3] > 1.0 - out[0]:
        out[3] = 1.0 - out[0]
    if out[4] > out[3]:
        out[4] = out[3]
    return 0


register_twin("network", network_evaluate, network_from)
