"""Position IDs: GNU Backgammon's Position ID and Match ID and eXtreme Gammon's XGID for short nardy, and a
compact URL-safe ID of the whole state for every variant. Shared by both implementations
(``Position.gnubg_id``, ``Position.xgid``, ``Position.id`` and their ``from_*`` constructors wrap these).

Short nardy is backgammon without the doubling cube (docs/rules.md, The five games), so its positions travel
to and from backgammon programs. White (moving 24 → 1) is eXtreme Gammon's bottom player, from whose side
the XGID numbers the points as this package numbers them from White's, and so GNU Backgammon's player 1,
which its XGID importer makes of the bottom player (and which sits at the bottom of its boards); Black is
the top player, GNU Backgammon's player 0. The cube, score and match fields of these formats
mean nothing here: they are written with the values of a money game with a centred 1-cube, and ignored
(after their syntax is checked) when read. None of them carries the first-roll marks (no rule of short nardy
uses them, docs/rules.md, First-roll exception): readers take ``first_roll`` as an argument, and by default
infer "both to come" on the start board and "both played" elsewhere.

GNU Backgammon Position ID (``Position.gnubg_id``)
--------------------------------------------------

Ten bytes, written as 14 characters of standard base64 (``A-Z a-z 0-9 + /``, the last character carrying
2 bits). A bit string, stored least significant bit of the first byte first: for each of the two sides, for
its points 1..24 in its own numbering and then its bar, as many 1 bits as checkers there and a 0 bit; zeros
to 80 bits. Borne-off checkers are those missing from 15. The ID does not say who is to move.

The side *not* on roll is encoded first. GNU Backgammon's manual (Technical notes, "A technical description
of the Position ID") says the player on roll comes first, but its C code (``positionid.c``: ``PositionKey``
writes ``anBoard[0]`` first, and the player on roll is ``anBoard[1]`` in the program's boards; ``set.c``,
``SetXGID``, swaps the sides so that the one on roll is ``anBoard[1]`` before calling ``PositionID``),
``gnubg_nn.position_id`` (boards ``[opponent, player]``) and the manual's own example (the hypergammon
position ``ADAAAQAkIAAAAA`` with X on roll starts with O's checkers) all put the opponent first. The IDs
that programs exchange are the code's, so this package follows the code.

GNU Backgammon Match ID (``Position.gnubg_match_id``)
-----------------------------------------------------

Nine bytes, 12 characters of standard base64, the fields of :data:`MATCH_KEY` at the given bit offsets
(least significant bit first, as ``matchid.c`` writes them). Written: a centred 1-cube, no Crawford game, the
game playing (over once a side has borne off 15), the side to move as both the player on roll and the player
to decide, no double or resignation offered, the dice (0, 0 for "not rolled"), match length 0 (money), scores
0. Read: the player on roll and the dice.

XGID (``Position.xgid``)
------------------------

``XGID=<position>:<cube>:<cube owner>:<turn>:<dice>:<score bottom>:<score top>:<rules>:<match length>:<max
cube>``. The position is 26 characters: the top player's (Black's) bar, White's points 1..24, the bottom
player's (White's) bar; ``-`` for an empty point, ``A``..``P`` for 1..16 of the bottom player's checkers,
``a``..``p`` for the top player's. The turn is 1 for the bottom player, -1 for the top player; the dice are
``00`` before the roll, two digits after it, ``D``/``B``/``R`` during a cube action. Written: cube 0 (a
1-cube), centred (0), the turn, the dice, scores 0, rules 0 (no Jacoby, no beavers), match length 0 (money),
max cube 10 (eXtreme Gammon's usual value). Read: the position and the turn, mapped as GNU Backgammon's
importer maps them (``set.c``, ``SetXGID``), and the dice; the other fields are checked for form only.

Compact ID (``Position.id``, every variant)
--------------------------------------------

The whole state as a bit string, most significant bit first, padded with 0 bits to a multiple of 6 and
written 6 bits a character in the URL-safe base64 alphabet (``A-Z a-z 0-9 - _``, RFC 4648 section 5)
without ``=`` padding. The fields in order; a field whose condition does not hold is absent. The widths come
from the shared tables (:data:`~nardy_fast.variants.VARIANTS`, :data:`~nardy_fast.variants.FLAG_SPECS`,
:data:`~nardy_fast.variants.SPECS`, :data:`~nardy_fast.layout.COLUMNS`): a variant or flag added there
extends the layout (a new flag adds its bits to the IDs of the variants it applies to).

============  ====================================================  ===================================
field         bits                                                  present
============  ====================================================  ===================================
variant       :data:`VARIANT_BITS` (3): the index in ``VARIANTS``   always
turn          1: 0 White, 1 Black                                   always
first_roll    2: White's, then Black's; 1 = its first roll is to    always
              come
flags         for each flag of ``FLAG_SPECS`` that applies to the   each flag where it applies
              variant, in that table's order (block_check,
              ladder_per_value, first_roll_exception_doubles,
              sixone_extra_roll_requires_play,
              normal_doubles_first_rolls): 1 bit for a two-valued
              flag (``FlagSpec.bit`` not 0), set when the value is
              ``FlagSpec.other``; :data:`DIE_MASK_BITS` (6) for
              the die set first_roll_exception_doubles, bit d-1
              set for the double d-d (6-6 is written first)
rolls_played  2 × ``n.bit_length()``: White's, then Black's count   flag normal_doubles_first_rolls
                                                                    = n > 0
pending       :data:`PENDING_LENGTH_BITS` (5): the length; then     the variant has transfers
              :data:`DIE_BITS` (3) per value: the value 1..6        (``VariantSpec.transfers``)
bar           2 × :data:`COUNT_BITS` (4): White's, then Black's     the short family (short nardy)
board         for White's points 1..24: ``0`` when empty; else      always
              ``1``, the colour (0 White, 1 Black), count − 1
              ``1`` bits and a ``0``
============  ====================================================  ===================================

Borne-off checkers are not stored: each side has 15 less those on the board and the bar. The start of long
nardy is ``DWAA__8AC__w`` (12 characters); every ID has at most :data:`MAX_LENGTH` (29) characters. Each
state has exactly one ID: a reader rejects a text that is not the ID its state would be written as.
"""

# One module per format, over the shared pieces of ``common``; Position imports this package only when an ID
# is asked for.
from .common import CubeFields
from .compact import (
    COUNT_BITS,
    DIE_BITS,
    DIE_MASK_BITS,
    MAX_LENGTH,
    PENDING_LENGTH_BITS,
    VARIANT_BITS,
    from_id,
    from_ids,
    to_id,
    to_ids,
)
from .gnubg import MATCH_KEY, MatchFields, from_gnubg_id, read_match_id, to_gnubg_id, to_match_id
from .xgid import XgidFields, read_xgid, to_xgid

__all__ = [
    "to_gnubg_id",
    "from_gnubg_id",
    "to_match_id",
    "read_match_id",
    "MatchFields",
    "MATCH_KEY",
    "to_xgid",
    "read_xgid",
    "XgidFields",
    "CubeFields",
    "to_id",
    "from_id",
    "to_ids",
    "from_ids",
    "VARIANT_BITS",
    "DIE_MASK_BITS",
    "PENDING_LENGTH_BITS",
    "DIE_BITS",
    "COUNT_BITS",
    "MAX_LENGTH",
]
