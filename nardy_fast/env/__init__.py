"""Reinforcement-learning environments: a PettingZoo AEC environment for two agents and a Gymnasium
single-agent wrapper that plays against any policy of :mod:`nardy_fast.policies` (the ``env`` extra, which
brings PettingZoo and Gymnasium: ``pip install -e ".[env]"`` from a clone, ``pip install "<the wheel
file>[env]"`` from a wheel; nothing else in the package imports them). Importing this module registers the
single-agent environment of every variant with Gymnasium: ``gymnasium.make("nardy_fast/long-v0")``
(:data:`ENV_IDS`), with the keyword arguments of :class:`SingleAgentEnv`.

>>> from nardy_fast.env import env
>>> aec = env("short")                        # the AEC environment, PettingZoo's standard wrappers around it
>>> aec.reset(seed=7)                         # dice seed 7, game number 0
>>> for agent in aec.agent_iter():
...     observation, reward, terminated, truncated, info = aec.last()
...     aec.step(None if terminated or truncated else 0)   # action 0: the first legal result
>>> aec.game.is_over(), aec.agents                  # both agents have left the finished game
(True, [])

The game (docs/rules.md)
    One environment plays one variant with the package's seeded dice through :class:`nardy_fast.Game`: it
    rolls who starts and the opening, draws every roll, grants the extra rolls, and hands over the gulbar
    transfers (the side to move then plays a pending list, with no roll). The agents are ``"white"`` and
    ``"black"``; the acting agent is always the side to move of ``game.position``, so one agent acts several
    times in a row after an extra roll or before a transfer segment. A side that cannot play has one action,
    the empty move.

Seeds
    ``reset(seed=s)`` plays game number 0 of dice seed ``s``; each ``reset()`` without a seed plays the next
    game number of the same seed (1, 2, ...), so ``reset(seed=s)`` then ``k`` plain resets replays
    ``Game(variant, seed=s, game=k)`` exactly. The first reset without any seed draws the dice seed from the
    operating system's entropy (:class:`SingleAgentEnv` from its Gymnasium ``np_random``).
    ``reset(options={"start": position})`` starts from a position of the environment's variant instead
    (``Game(position, ...)``: the side to move rolls first); ``options`` is ``None`` or any mapping, and its
    other keys are ignored. A seed is an integer ``0 <= seed < 2**64`` (Python's or NumPy's) in both
    environments, checked before anything else is touched.

Actions and observations
    Action ``i`` plays the ``i``-th move of ``game.legal_moves()`` (one per distinct result, in that order).
    The action space is ``Discrete(max_actions)`` and an observation is a dict: ``"observation"``, the
    position's encoding :func:`nardy_fast.encode` under ``scheme`` (a float32 vector; for ``"openspiel"`` with
    the roll in its two dice features, lower die first, as OpenSpiel's tensor after the roll), and
    ``"action_mask"`` (int8, ``max_actions``), 1 for the actions the acting agent may take and all 0 for the
    other agent and after the end. The acting agent's ``info`` holds the ``roll`` (``None`` for a pending list),
    ``children`` (the results of the offered actions as packed rows (k, 64), in action order: an agent that
    scores afterstates encodes them; a read-only array no call can make writable, since every later
    ``last()`` hands the same one), ``legal_results`` (how many results the position has) and
    ``not_offered`` (how many of them are beyond ``max_actions``). Observations and masks are fresh arrays
    every call: nothing handed out is read back by the environment. :class:`SingleAgentEnv`'s ``info`` has
    all but the ``children``, which its method ``children()`` gives instead (the same rows).

Vectorisers
    Gymnasium's vectorisers stack each key of the sub-environments' infos into one array, so a single-agent
    info holds only values of one shape (the ragged ``children`` are a method, ``envs.call("children")``
    through a vectoriser). ``gymnasium.make_vec("nardy_fast/<variant>-v0", num_envs=n)`` works in every
    mode: ``"sync"`` and ``"async"`` (Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` over
    ``gymnasium.make``) and ``"vector_entry_point"``, the default, :func:`single_agent_vector_env`: a
    ``SyncVectorEnv`` of :class:`SingleAgentEnv`, so that an ID means one seat against an opponent in every
    mode. :class:`NardyVectorEnv` is self-play (both sides act, from one policy), a different game for the
    agent: it is registered under its own IDs, ``nardy_fast/<variant>-selfplay-v0`` (:data:`SELFPLAY_IDS`),
    as a vector entry point only (``gymnasium.make`` has no single environment to make for them).

More results than ``max_actions``
    Crazy gulbar's ladders can have hundreds of thousands of results. The mask then offers the first
    ``max_actions`` of them in ``legal_moves()`` order and the rest are not offered; ``info["not_offered"]``
    counts them. The game stays a legal game: the agent chooses among a subset. :data:`DEFAULT_MAX_ACTIONS`
    (1024) exceeds every result count met in the embedded corpus of the other four variants (at most 781, a
    short nardy position), so outside crazy gulbar nothing is cut in practice; the rule applies to every
    variant alike all the same. ``max_actions`` is at most :data:`MAX_ACTIONS` (``2**20``): every observation
    copies a mask of ``max_actions`` bytes and each space holds a few arrays of that size, so the bound keeps
    them at a megabyte (a policy head of more than a million outputs is no practical action space), where
    ``2**40`` would ask NumPy for terabytes.

The cube (``cube=True``)
    ``raw_env``, ``env`` and :class:`SingleAgentEnv` take ``cube=True``: money play with the doubling cube, or
    match play with ``match=`` a :class:`nardy_fast.Match` (its length, the score it starts from, Crawford;
    money play's ``jacoby`` and ``beavers``) (docs/rules.md, The doubling cube; Match play). ``cube=False``,
    the default, keeps the spaces, the observations and the games as they are without it; ``match`` without
    ``cube=True`` is refused. The action space grows by the five :data:`ENV_CUBE_ACTIONS` after the move
    actions: action ``max_actions + i`` is ``ENV_CUBE_ACTIONS[i]`` (``"no_double"``, ``"double"``,
    ``"take"``, ``"pass"``, ``"beaver"``). A turn has up to three phases. Where the side to move may double
    (``game.may_double()``: the cube centred or its own, not the Crawford game, a live cube, not the 1-away
    leader after Crawford) it first decides on the cube: its mask offers ``no_double`` and ``double`` only,
    and its observation and info show no roll and no children (the dice are drawn, never shown before the
    decision, as a side doubles before it rolls). A double makes the other agent act: it may ``take`` or
    ``pass`` (and ``beaver`` at money play with beavers). Then the side to move plays its roll, as without
    the cube. An observation gains ``"cube"``: :data:`CUBE_FEATURES` float32 features from the side to move's
    view (as the position's encoding): log2 of the cube's value, the cube is the side to move's, the other
    side's, the side to move decides on the cube, a double by the side to move awaits the answer, the side to
    move's points away and the other side's (0 at money play), the Crawford game.

    Money play: an episode is one game; the winner is rewarded with its points times the cube (a double
    passed: the cube's value before it; Jacoby: a single game while the cube is centred), the loser with
    minus as many. A match: an episode is the whole match, its games following one another in the same
    episode (game ``j`` of the ``k``-th episode of a seed has the dice of game number ``k * 256 + j``,
    :data:`nardy_fast.cubeloop.GAMES_PER_MATCH`, as a cube duel numbers them); every step rewards 0 but the
    last, +1 for the side that won the match and -1 for the other. Per-game points would teach an agent the
    money game's cube, where a match's cube is judged by the chance to win the match. The single-agent
    wrapper's opponent acts on the cube by its player's strategy (:meth:`~nardy_fast.policies.Player.doubles`
    and ``responses``): the default opponent with the cube is ``Greedy()``, Janowski's cube decision at the
    score; ``"random"``, ``"first"`` and a function never double and always take. The self-play
    :class:`NardyVectorEnv` takes ``cube=True`` and ``match=`` too: its games step together, each
    sub-environment's acting side giving one action a step (a cube action in a cube phase, else a move), with
    the same action space, masks, cube features, rewards (the acting side's) and episode numbers as the AEC
    environment (:mod:`nardy_fast.env.vector`). Or vectorise the single-agent environment, one seat against
    the opponent: ``gymnasium.make_vec("nardy_fast/short-v0", num_envs=8, cube=True)``.

Rendering
    ``render_mode="ansi"`` returns the position as a text board, ``"human"`` prints it, and ``"rgb_array"``
    returns it as an RGB image, an array (height, width, 3) of ``uint8`` drawn from ``position.to_svg()`` by
    cairosvg (the ``png`` extra: without it, making the environment raises an ``ImportError`` that names
    the extra).

Rewards and the end
    When the game ends the winner is rewarded with the points it scores (1, mars 2, koks 3) and the loser with
    minus as many; every other step rewards 0. A game not over after :data:`MAX_PLIES` plies is truncated
    (both agents, reward 0).

Errors
    An action out of ``range(max_actions)`` or masked out, an action other than ``None`` for an agent that has
    finished, an unknown variant, scheme, render mode, agent or seat, a scheme that does not encode the
    variant, ``max_actions`` outside ``1 ..`` :data:`MAX_ACTIONS`, a bad seed, ``options`` that are not a
    mapping, a bad start, a ``cube`` that is not a bool, a ``match`` that is not a ``Match`` or comes without
    ``cube=True``: a :class:`~nardy_fast.NardyError` naming the field (``action``, ``variant``, ...).
    A name is compared only as a plain string (:func:`nardy_fast.inputs.choice`), so a NumPy array or an
    object whose ``__eq__`` raises is simply not one. :func:`env`'s ``AssertOutOfBoundsWrapper`` asserts first
    for an action outside the action space (PettingZoo's convention); :class:`SingleAgentEnv` by default ends
    the episode as a loss on a masked-out action (its docstring says why).
"""

# The extra is checked before any module of the package imports it, so that its absence names the extra.
try:
    import gymnasium
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised in a subprocess without the extra
    raise ImportError(
        "nardy_fast.env needs PettingZoo and Gymnasium (the env extra): from a clone, pip install -e"
        ' ".[env]"; from a wheel, pip install "<the wheel file>[env]" (or pip install pettingzoo gymnasium)'
    ) from error

from ..turns import MAX_PLIES
from ..variants import VARIANTS
from .aec import NardyEnv, env, raw_env
from .checks import AGENTS, DEFAULT_MAX_ACTIONS, MAX_ACTIONS, RENDER_MODES
from .cubeful import CUBE_FEATURES, ENV_CUBE_ACTIONS
from .single_agent import OPPONENTS, SingleAgentEnv, single_agent_vector_env
from .vector import NardyVectorEnv

__all__ = [
    "AGENTS",
    "CUBE_FEATURES",
    "ENV_CUBE_ACTIONS",
    "DEFAULT_MAX_ACTIONS",
    "MAX_ACTIONS",
    "MAX_PLIES",
    "OPPONENTS",
    "RENDER_MODES",
    "ENV_IDS",
    "SELFPLAY_IDS",
    "NardyEnv",
    "raw_env",
    "env",
    "SingleAgentEnv",
    "single_agent_vector_env",
    "NardyVectorEnv",
    "register",
]

#: The Gymnasium ID of each variant's :class:`SingleAgentEnv`: ``gymnasium.make(ENV_IDS["long"], ...)``.
ENV_IDS = {variant: f"nardy_fast/{variant}-v0" for variant in VARIANTS}
#: The Gymnasium ID of each variant's self-play :class:`NardyVectorEnv`, a vector environment only:
#: ``gymnasium.make_vec(SELFPLAY_IDS["long"], num_envs=64)``.
SELFPLAY_IDS = {variant: f"nardy_fast/{variant}-selfplay-v0" for variant in VARIANTS}


def register() -> None:
    """Register :data:`ENV_IDS` and :data:`SELFPLAY_IDS` with Gymnasium (done on import; again, it changes
    nothing), the variant set and the keyword arguments of ``gymnasium.make`` or ``make_vec`` passed on.

    An ID of :data:`ENV_IDS` makes a :class:`SingleAgentEnv`; its vector entry point
    (:func:`~nardy_fast.env.single_agent.single_agent_vector_env`) makes ``num_envs`` of them in a
    ``SyncVectorEnv``, so that ``make_vec`` gives the single-agent semantics in every mode (``"sync"``,
    ``"async"`` and ``"vector_entry_point"``, its default). An ID of :data:`SELFPLAY_IDS` has only a vector
    entry point, :class:`NardyVectorEnv`, whose semantics (both sides act) no single environment has."""
    for variant, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="nardy_fast.env.single_agent:SingleAgentEnv",
                vector_entry_point="nardy_fast.env.single_agent:single_agent_vector_env",
                kwargs={"variant": variant},
            )
    for variant, env_id in SELFPLAY_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                vector_entry_point="nardy_fast.env.vector:NardyVectorEnv",
                kwargs={"variant": variant},
            )


register()
