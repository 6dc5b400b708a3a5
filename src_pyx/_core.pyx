# cython: language_level=3, cdivision=True
"""The compiled core: the rules of docs/rules.md over fixed-size C arrays and bit masks, with no Python object
in the search. It mirrors :mod:`nardy_fast.reference.rules` rule by rule (the section of each is named), finds
the same results with the same canonical steps and the same Zobrist keys, and adds perft and a batch API that
work on packed positions (:mod:`nardy_fast.layout`).

One extension module, written in units by concern, each included in the order below (a unit uses only those
before it) and saying in its first lines what it holds, uses and offers:

- the C-level data and helpers: ``bits.pxd`` (bit and byte helpers), ``nardy_types.pxd`` (the C structs),
  ``nardy_compat.h`` (what the core needs of its compiler and machine);
- constants and memory: ``tables.pxi`` (constants and the tables built from the package's), ``memory.pxi``
  (buffers, hash tables, workspaces, signal checks);
- the move search: ``numbering.pxi`` (the mover's numbering), ``block.pxi`` (the block rule), ``frontier.pxi``
  (a level's nodes), ``gate.pxi`` (the row gate), ``rules.pxi`` (setting a search up), ``ladder.pxi`` (crazy
  ladders' stage), ``levels.pxi`` and ``depth_first.pxi`` (the two searches), ``search.pxi`` (their entry
  point), ``results.pxi`` and ``plain_rows.h`` (the next state of each result);
- the Python surface of moves: ``rows.pxi`` (State and row conversion), ``api_moves.pxi``, ``perft.pxi`` and
  ``api_batch.pxi``;
- bear-offs: ``bearoff.pxi`` (the bear-off test, layout ids and the move generator of a side at home),
  ``bearoff_one.pxi`` and ``bearoff_two.pxi`` (the table builders);
- evaluation: ``expert.pxi`` (the expert features of networks), ``encode.pxi`` (network encodings), ``twins.pxi``
  (the built-in evaluators' C twins by kind, each registering itself), ``evaluators.pxi`` (written by setup.py: an
  include of each file of ``evaluators/``, the C twins, in the order of their names: ``evaluators/network.pxi``
  and ``net_kernel.h``, the network; ``evaluators/race_eval.pxi``, ``evaluators/pubeval.pxi``,
  ``evaluators/heuristic.pxi``), ``evaluate.pxi`` (the evaluator seam), ``hint.pxi`` (the n-ply search),
  ``values.pxi`` (many positions' searched values);
- games: ``games.pxi`` (seeded dice and whole games, a policy per seat), ``seats.pxi`` (the game loop set up
  from a checked playout or duel), ``cubeplay.pxi`` (the cube players' decisions),
  ``cubegames.pxi`` (games with the doubling cube and matches), ``segments.pxi`` (per-segment reductions);
- match files: ``replay.pxi`` (written moves matched to legal moves, game by game), ``matlines.pxi`` (the
  move lines of the common form read)."""

from libc.stdint cimport int8_t, int32_t, int64_t, intptr_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
cimport cython
from cpython.pycapsule cimport (PyCapsule_GetContext, PyCapsule_GetName, PyCapsule_GetPointer, PyCapsule_New,
                                PyCapsule_SetContext)

import numpy as np

cimport numpy as cnp
from bits cimport (
    NARDY_CHECK, NARDY_FAST_DEBUG, __builtin_bswap64, byte_sum, bytes_from, ctz, ctz64, gather, half_turn, hibit,
    nardy_big_alloc, nardy_prefetch, negated, nonzero_bytes, spread_bits)
from nardy_types cimport WIDTH, Evaluator, Gen, Node, NodeBuf, Pos, Result, Slot, Slots, Table

from nardy_fast import board as _board
from nardy_fast import layout as _layout
from nardy_fast import zobrist as _zobrist
from nardy_fast.errors import InvalidDiceError as _InvalidDiceError
from nardy_fast.errors import InvalidPositionError as _InvalidPositionError
from nardy_fast.errors import NardyError as _NardyError
from nardy_fast.errors import field_error as _field_error
from nardy_fast.turns import LIMITED as _LIMITED
from nardy_fast.turns import MAX_PLIES as _MAX_PLIES
from nardy_fast.turns import OPENINGS as _OPENINGS
from nardy_fast.turns import POLICIES as _POLICIES
from nardy_fast.perft import check_depth as _check_depth
from nardy_fast.position import Move as _Move
from nardy_fast.position import Position as _BasePosition
from nardy_fast.errors import uninitialised_error as _uninitialised_error
from nardy_fast.position import move_of as _move_of
from nardy_fast.board import Step as _Step
from nardy_fast.state import State as _State
from nardy_fast.state import limit_error as _limit_error
from nardy_fast.variants import FLAG_BY_NAME as _FLAG_BY_NAME
from nardy_fast.variants import FLAG_SPECS as _FLAG_SPECS
from nardy_fast.variants import VARIANT_SPECS as _VARIANT_SPECS
from nardy_fast.variants import VARIANTS as _VARIANTS

cnp.import_array()

cdef extern from "net_kernel.h" nogil:
    # the network evaluator's vector loops, compiled for AVX2 and for the baseline (evaluators/network.pxi)
    void nardy_net_pass(float *h, float *total, const float *b1, const float *terms, const int *offsets,
                        int nterms, const float *xs, const float * const *rows, int nrows, const float *w2t,
                        const float *b2, int nh)
    int nardy_net_choose()

cdef extern from "plain_rows.h" nogil:
    # a crazy ladder's rows in SSE2 where the processor has it (results.pxi, plain_row)
    bint NARDY_ROWS_SIMD
    void nardy_plain_row(const uint64_t *w, const uint64_t *yroot, uint64_t word3, const uint64_t *base, int col,
                         void *row)

cdef extern from "Python.h":
    # not ``cpython.exc``'s declaration: that one makes Cython report and clear, in a ``noexcept`` function,
    # the very exception (KeyboardInterrupt) that the caller must raise
    int PyErr_CheckSignals() noexcept


include "tables.pxi"
include "memory.pxi"
include "numbering.pxi"
include "block.pxi"
include "frontier.pxi"
include "gate.pxi"
include "rules.pxi"
include "ladder.pxi"
include "levels.pxi"
include "depth_first.pxi"
include "search.pxi"
include "results.pxi"
include "rows.pxi"
include "api_moves.pxi"
include "perft.pxi"
include "api_batch.pxi"
include "bearoff.pxi"
include "bearoff_one.pxi"
include "bearoff_two.pxi"
include "expert.pxi"
include "encode.pxi"
include "twins.pxi"
include "evaluators.pxi"
include "evaluate.pxi"
include "hint.pxi"
include "values.pxi"
include "games.pxi"
include "seats.pxi"
include "cubeplay.pxi"
include "cubegames.pxi"
include "segments.pxi"
include "replay.pxi"
include "matlines.pxi"
