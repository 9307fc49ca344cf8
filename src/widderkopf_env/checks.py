"""Argument checks shared by the engine and the environments: seats, seeds, counts,
scores and the hidden cards of a world, each refused with a message that says what was
wrong and what is allowed (``TypeError`` for a wrong type, ``ValueError`` for a value)."""

from __future__ import annotations

import operator
import secrets

#: The two seats, in engine order (player 0, player 1).
SEATS = ("player_0", "player_1")
_SEAT_INDEX = {"player_0": 0, "player_1": 1}


def as_int(value) -> int | None:
    """``value`` as a Python int if it is an integer (numpy integers included, bools not),
    else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def show(value) -> str:
    """``repr(value)`` for an error message; an int too long to print (Python refuses
    ints of more than 4,300 digits) is shown by its size."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"an int of {value.bit_length():,} bits"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must not fail on a broken __repr__
        return f"a {type(value).__name__} object"
    return text if len(text) <= 200 else text[:200] + "..."


def parse_player(player, name: str = "player") -> int:
    """0, 1, ``'player_0'`` or ``'player_1'`` (numpy integers too) -> 0 or 1; ``name``
    is the argument named in the error."""
    index = _SEAT_INDEX.get(player) if isinstance(player, str) else as_int(player)
    if index in (0, 1):
        return index
    raise ValueError(f"{name} must be 0, 1, 'player_0' or 'player_1', got {show(player)}")


def parse_seat(seat) -> int | str:
    """The ``seat`` argument of the envs that play one seat: 0 or 1 (any spelling
    :func:`parse_player` takes), or ``"random"`` (drawn per episode)."""
    if isinstance(seat, str) and seat == "random":
        return "random"
    index = _SEAT_INDEX.get(seat) if isinstance(seat, str) else as_int(seat)
    if index in (0, 1):
        return index
    raise ValueError(f"seat must be 0, 1, 'player_0', 'player_1' or 'random', got {show(seat)}")


#: Seeds are ints of at most this many bits (sign apart): every one has a decimal text
#: (the seeded deals hash it) and fits numpy's ``SeedSequence``.
MAX_SEED_BITS = 4096


def check_seed(seed) -> int:
    """A seed as a Python int (numpy integers accepted); None draws a fresh 63-bit one.
    Not an integer: ``TypeError``; more than :data:`MAX_SEED_BITS` bits: ``ValueError``."""
    if seed is None:
        return secrets.randbits(63)
    value = as_int(seed)
    if value is None:
        raise TypeError(f"seed must be an int or None, got {show(seed)}")
    if value.bit_length() > MAX_SEED_BITS:
        raise ValueError(f"seed must be an int of at most {MAX_SEED_BITS} bits, got "
                         f"{show(value)}")
    return value


def check_reset_seed(seed) -> int | None:
    """The ``seed`` of an env's ``reset()``: None, or a non-negative int (numpy integers
    accepted) of at most :data:`MAX_SEED_BITS` bits, as a Python int. Not an integer:
    ``TypeError``; negative or too large: ``ValueError``."""
    if seed is None:
        return None
    value = as_int(seed)
    if value is None:
        raise TypeError(f"seed must be None or a non-negative int, got "
                        f"{type(seed).__name__} {show(seed)}")
    if value < 0 or value.bit_length() > MAX_SEED_BITS:
        raise ValueError(f"seed must be None or a non-negative int of at most "
                         f"{MAX_SEED_BITS} bits, got {show(value)}")
    return value


#: Bounds that keep every count well inside the C encoder's integers.
MAX_HANDS, MAX_SCORE = 1_000_000, 1_000_000_000

# --- the bounds of the command lines ---------------------------------------------------------
# Every size, count and seed a console script takes has an upper bound (stated in its
# --help and checked while the command line is parsed, before anything is locked,
# written or allocated), chosen so that the largest value still fits a small computer
# (two CPUs, 24 GiB of memory). The bounds that belong to one command live with it (the
# pairs of a match, the envs and the rollout of PPO, the matches and games of a shard).

#: A command's ``--seed``: 63 bits, as :func:`~widderkopf_env.seeding.derive_seed` makes.
MAX_SEED = 2**63 - 1
#: A seed that numpy's legacy seeding takes (stable-baselines3 and RLlib seed with it),
#: and that a browser shows exactly: 32 bits.
MAX_SEED32 = 2**32 - 1
#: Worker processes of one command (pools are never larger than their work either).
MAX_WORKERS = 32
#: Threads of torch's gradient updates.
MAX_THREADS = 64
#: Learner steps of one run, and every step count of a schedule (evaluate every STEPS).
MAX_STEPS = 10**10
#: The largest wall-clock budget of one run, in minutes (a week).
MAX_MINUTES = 7 * 24 * 60.0
#: Passes over the data (or over each rollout) of one fit.
MAX_EPOCHS = 10_000
#: Rows in one gradient step.
MAX_BATCH = 1 << 20
#: Hidden layers of a network, and the units of each (``--net-arch``).
MAX_LAYERS, MAX_WIDTH = 8, 4096
#: Data shards of one folder.
MAX_SHARDS = 100_000


def check_num_hands(num_hands) -> int:
    """``num_hands`` as an int in 1..MAX_HANDS (numpy integers accepted)."""
    value = as_int(num_hands)
    if value is None or not 1 <= value <= MAX_HANDS:
        raise ValueError(f"num_hands must be an int in 1..{MAX_HANDS:,}, got {num_hands!r}")
    return value


def check_scores(scores) -> tuple[int, int]:
    """Match scores as a pair of ints in 0..MAX_SCORE (a tuple or list of two)."""
    if type(scores) is tuple and len(scores) == 2:  # the common case, without the map
        a, b = scores
        if type(a) is int and type(b) is int and 0 <= a <= MAX_SCORE and 0 <= b <= MAX_SCORE:
            return scores
    values = tuple(map(as_int, scores)) if isinstance(scores, (tuple, list)) else ()
    if len(values) != 2 or any(v is None or not 0 <= v <= MAX_SCORE for v in values):
        raise ValueError(f"scores must be a tuple of two ints in 0..{MAX_SCORE:,}, got "
                         f"{scores!r}")
    return values


def _card_id(value, name: str) -> int:
    card = as_int(value)
    if card is None:
        raise TypeError(f"{name} must be a card id (an int in 0..35), got {show(value)}")
    if not 0 <= card < 36:
        raise ValueError(f"{name} must be a card id in 0..35, got {card}")
    return card


def check_hidden_cards(opponent_hand, face_down, opponent_discard) -> tuple[int, dict, int]:
    """The hidden cards given to ``worlds.from_view`` as ``(hand bits, {pile: card},
    discard)``: ``opponent_hand`` card ids or a 36-bit set, ``face_down`` a dict of pile
    -> card id, ``opponent_discard`` a card id or -1. A wrong type raises ``TypeError``
    naming the argument; an id out of range ``ValueError``."""
    if isinstance(opponent_hand, int) and not isinstance(opponent_hand, bool):
        if not 0 <= opponent_hand < 1 << 36:
            raise ValueError(f"opponent_hand as a bit set must be in 0..2**36 - 1, got "
                             f"{show(opponent_hand)}")
        hand = opponent_hand
    elif isinstance(opponent_hand, (list, tuple, set, frozenset)):
        hand = 0
        for c in opponent_hand:
            hand |= 1 << _card_id(c, "opponent_hand")
    else:
        raise TypeError(f"opponent_hand must be card ids (a list, tuple or set) or a bit set "
                        f"(int), got {type(opponent_hand).__name__}")
    if not isinstance(face_down, dict):
        raise TypeError(f"face_down must be a dict {{pile: card id}}, got "
                        f"{type(face_down).__name__}")
    piles = {}
    for pile, card in face_down.items():
        index = as_int(pile)
        if index is None:
            raise TypeError(f"face_down: piles must be ints (0..9), got {show(pile)}")
        piles[index] = _card_id(card, f"face_down[{index}]")
    discard = as_int(opponent_discard)
    if discard is None:
        raise TypeError(f"opponent_discard must be a card id or -1, got {show(opponent_discard)}")
    if discard != -1:
        _card_id(discard, "opponent_discard")
    return hand, piles, discard
