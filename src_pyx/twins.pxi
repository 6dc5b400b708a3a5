# The built-in evaluators' C twins, by kind (nardy_fast.evaluation.outcomes.BUILTINS): each twin's unit
# registers its functions here at import (register_twin), so that the seam (evaluate.pxi) calls a twin
# through this table and names none: a new built-in evaluator is its unit, included after this one and before
# evaluate.pxi, and its entry in BUILTINS.
# Uses: nothing.
# Offers: register_twin.

from nardy_fast.evaluation.outcomes import BUILTINS as _BUILTINS
from nardy_fast.evaluation.outcomes import EVALUATORS as _EVALUATORS

cdef enum:
    MAX_KINDS = 16  # room for the built-in evaluators

# the value of a valid, unfinished position for its side to move (0, or E_EVALUATOR: it cannot value it)
ctypedef int (*twin_evaluate)(const Evaluator *e, const Pos *p, double *out) noexcept nogil
# point an Evaluator at the tables the engine made for it (its facts' tables; see evaluate.pxi's evaluator_from)
ctypedef int (*twin_from)(Evaluator *e, object tables) except -1

cdef twin_evaluate TWIN_EVALUATE[MAX_KINDS]
cdef twin_from TWIN_FROM[MAX_KINDS]  # NULL: the twin reads no tables

if len(_BUILTINS) > MAX_KINDS:
    raise ImportError("nardy_fast._core: more built-in evaluators than the core has room for")


cdef int register_twin(str name, twin_evaluate evaluate, twin_from tables_from) except -1:
    """Make ``evaluate`` and ``tables_from`` (NULL: no tables) the C twin of built-in evaluator ``name``."""
    cdef int kind = _EVALUATORS.index(name)
    TWIN_EVALUATE[kind] = evaluate
    TWIN_FROM[kind] = tables_from
    return 0
