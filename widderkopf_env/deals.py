"""Seats, deals and the game file format: everything about a match that is plain data.

- Seats: ``SEATS`` names them ``"player_0"``, ``"player_1"``; :func:`parse_player` takes a
  seat in any accepted spelling.
- Deal specs by card names (:func:`parse_deal`, :func:`deal_to_spec`) and seeded deals
  (:func:`seeded_deal`, :func:`seeded_dealer`, RULES R6-R7).
- The JSON game file (:func:`encode_document`, :func:`decode_document`): ``Game.to_json``
  and ``Game.from_json`` are built on them. The schema is in :data:`DOCUMENT_SCHEMA`.

Nothing here knows the engine's state; :mod:`widderkopf_env.rules` builds games from it.
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
import secrets

from .cards import FULL, HAND_SIZE, NUM_ACTIONS, PILES, VARIANTS, action_name, card_name, parse_card

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


def check_num_hands(num_hands) -> int:
    """``num_hands`` as an int in 1..MAX_HANDS (numpy integers accepted)."""
    value = as_int(num_hands)
    if value is None or not 1 <= value <= MAX_HANDS:
        raise ValueError(f"num_hands must be an int in 1..{MAX_HANDS:,}, got {num_hands!r}")
    return value


def check_scores(scores) -> tuple[int, int]:
    """Match scores as a pair of ints in 0..MAX_SCORE (a tuple or list of two)."""
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
    """The hidden cards given to ``Game.from_view`` as ``(hand bits, {pile: card},
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


def parse_deal(deal, variant=FULL) -> tuple[tuple[list[int], list[int], list[int]], ...]:
    """Validate a deal spec and return ``((hand, up, down), (hand, up, down))`` as card ids.

    The spec is ``{"player_0": {"hand": [8 names], "up": [5], "down": [5]}, "player_1": ...}``
    with ``up[i]`` lying on ``down[i]`` (R7). Raises ``ValueError`` saying what is wrong.
    A ``variant`` (:class:`~widderkopf_env.cards.Variant`) deals its own sizes and deck.
    """
    if not isinstance(deal, dict) or set(deal) != set(SEATS):
        got = sorted(map(repr, deal)) if isinstance(deal, dict) else type(deal).__name__
        raise ValueError(f"deal must be a dict with keys 'player_0' and 'player_1', got {got}")
    sizes = {"hand": HAND_SIZE, "up": PILES, "down": PILES}
    if variant is not FULL:
        sizes = {"hand": variant.hand_size, "up": variant.piles, "down": variant.piles}
    out, seen = [], {}
    for agent in SEATS:
        part = deal[agent]
        if not isinstance(part, dict) or set(part) != set(sizes):
            got = sorted(map(repr, part)) if isinstance(part, dict) else type(part).__name__
            raise ValueError(f"deal[{agent!r}] must have keys 'hand', 'up', 'down', got {got}")
        ids = []
        for key, size in sizes.items():
            names = part[key]
            if not isinstance(names, (list, tuple)) or len(names) != size:
                raise ValueError(
                    f"deal[{agent!r}][{key!r}] must list {size} card names (a list or "
                    f"tuple), got {names!r}")
            cards = []
            for name in names:
                try:
                    card = parse_card(name)
                except ValueError as err:
                    raise ValueError(f"deal[{agent!r}][{key!r}]: {err}") from None
                if not (variant.deck >> card) & 1:
                    raise ValueError(f"card {card_name(card)} is not in the deck of variant "
                                     f"{variant.name!r}: {variant.describe()}")
                if card in seen:
                    raise ValueError(f"card {card_name(card)} is dealt twice: in {seen[card]} "
                                     f"and in {agent}.{key}")
                seen[card] = f"{agent}.{key}"
                cards.append(card)
            ids.append(cards)
        out.append(tuple(ids))
    return tuple(out)


def deal_to_spec(deal) -> dict:
    """The inverse of :func:`parse_deal`: card ids -> the named deal spec."""
    return {
        agent: {key: [card_name(c) for c in cards]
                for key, cards in zip(("hand", "up", "down"), part, strict=True)}
        for agent, part in zip(SEATS, deal, strict=True)
    }


# --- seeded deals ----------------------------------------------------------------------------

_PERMUTATIONS = math.factorial(36)


def _hash_int(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=64).digest(), "little")


def seeded_deal(seed: int, hand: int):
    """The deal of hand ``hand`` of the match with ``seed``: a uniform random permutation.

    The 512-bit BLAKE2b hash of ``"widderkopf/<seed>/hand/<hand>"`` is reduced modulo 36!
    and decoded in the factorial number system (bias below 2**-370). The same seed gives
    the same deals on every platform and Python version.
    """
    x = _hash_int(f"widderkopf/{seed}/hand/{hand}") % _PERMUTATIONS
    cards = list(range(36))
    for i in range(35, 0, -1):  # Fisher-Yates, with the swaps read off x
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple((cards[b:b + 8], cards[b + 8:b + 13], cards[b + 13:b + 18]) for b in (0, 18))


def seeded_variant_deal(seed: int, hand: int, variant):
    """:func:`seeded_deal` for a smaller :class:`~widderkopf_env.cards.Variant`: a uniform
    permutation of its deck (from ``"widderkopf/<seed>/<variant>/hand/<hand>"``), dealt
    as hand, face-up and face-down cards to each player in turn."""
    if variant is FULL:
        return seeded_deal(seed, hand)
    cards = variant.cards
    x = _hash_int(f"widderkopf/{seed}/{variant.name}/hand/{hand}") % math.factorial(len(cards))
    for i in range(len(cards) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    h, p = variant.hand_size, variant.piles
    return tuple((cards[b:b + h], cards[b + h:b + h + p], cards[b + h + p:b + h + 2 * p])
                 for b in (0, h + 2 * p))


def seeded_dealer(seed: int) -> int:
    """The first dealer drawn from ``seed`` (R6)."""
    return _hash_int(f"widderkopf/{seed}/dealer") & 1


# --- the game file ---------------------------------------------------------------------------

#: The JSON game file, field by field (``Game.to_json`` writes it, ``Game.from_json``
#: checks every field and replays the actions).
DOCUMENT_SCHEMA = {
    "format": '"widderkopf-game"',
    "version": "1",
    "seed": "int of at most 4096 bits: later hands are dealt from it",
    "num_hands": "int in 1..1000000: hands in the match (more while tied, R20)",
    "first_dealer": "0 or 1",
    "initial_scores": "[int >= 0, int >= 0]: match scores before the first hand",
    "deals": "list of deal specs (see parse_deal), one per hand, at least the first; hands "
             "past the list are dealt from the seed",
    "actions": "list of action names (action_name: 'QC', 'trump H', 'escalate', 'pass')",
    "variant": "optional: a name in widderkopf_env.VARIANTS (default 'full')",
}
_ACTION_IDS = {action_name(a): a for a in range(NUM_ACTIONS)}


def encode_document(seed, num_hands, first_dealer, initial_scores, deals, actions,
                    variant=FULL) -> str:
    """The JSON game file of a match (see :data:`DOCUMENT_SCHEMA`)."""
    doc = {
        "format": "widderkopf-game", "version": 1, "seed": seed, "num_hands": num_hands,
        "first_dealer": first_dealer, "initial_scores": list(initial_scores),
        "deals": [deal_to_spec(d) for d in deals],
        "actions": [action_name(a) for a in actions],
    }
    if variant is not FULL:  # the full game's files stay as they were
        doc["variant"] = variant.name
    return json.dumps(doc)


def _field(data: dict, key: str):
    if key not in data:
        raise ValueError(f"game file: missing field {key!r} (fields: {', '.join(DOCUMENT_SCHEMA)})")
    return data[key]


def _count(data: dict, key: str, low: int, high: int | None = None) -> int:
    value = _field(data, key)
    if type(value) is not int or value < low or (high is not None and value > high):
        allowed = DOCUMENT_SCHEMA.get(key, f"int >= {low}")
        raise ValueError(f"game file: {key!r} must be {allowed}, got {value!r}")
    return value


def _seed(data: dict) -> int:
    seed = _field(data, "seed")
    if type(seed) is not int or seed.bit_length() > MAX_SEED_BITS:
        raise ValueError(f"game file: 'seed' must be an int of at most {MAX_SEED_BITS} bits, "
                         f"got {show(seed)}")
    return seed


#: The longest game file :func:`decode_document` reads, in characters (bytes for bytes):
#: about 60,000 hands with every deal and action.
MAX_DOCUMENT_SIZE = 32 * 2**20


def _check_size(text) -> None:
    if len(text) > MAX_DOCUMENT_SIZE:
        raise ValueError(f"game file is too long: {len(text):,} characters, at most "
                         f"{MAX_DOCUMENT_SIZE:,} (MAX_DOCUMENT_SIZE)")


def _check_deal_count(deals: list, num_hands: int, actions: list, variant=FULL) -> None:
    """A file lists at most one deal per hand: ``num_hands``, or as many hands as its
    actions reach (tie-break hands, R20), whichever is more. A hand takes at least a
    trump, two discards and the cards of its tricks (37 actions in the full game)."""
    fewest = 3 + 2 * variant.tricks
    most = max(num_hands, len(actions) // fewest + 1)
    if len(deals) > most:
        raise ValueError(f"game file: 'deals' lists {len(deals):,} deals, but the match has "
                         f"at most {most:,} hands (num_hands {num_hands:,} and "
                         f"{len(actions):,} actions)")


def decode_document(text) -> dict:
    """Check a JSON game file against :data:`DOCUMENT_SCHEMA` and return its fields as
    engine values (deals as card ids, actions as ids). Raises ``ValueError`` naming the
    first field that is wrong; legality of the actions is checked when they are replayed."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"game file must be a JSON string, got {type(text).__name__}")
    _check_size(text)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise ValueError(f"game file is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise ValueError(f"game file must be a JSON object, got {type(data).__name__}")
    version = data.get("version")
    if data.get("format") != "widderkopf-game" or type(version) is not int or version != 1:
        raise ValueError("not a widderkopf-game version 1 JSON document (fields 'format' "
                         "and 'version')")
    scores = _field(data, "initial_scores")
    if (not isinstance(scores, list) or len(scores) != 2
            or any(type(s) is not int or s < 0 for s in scores)):
        raise ValueError(f"game file: 'initial_scores' must be {DOCUMENT_SCHEMA['initial_scores']}"
                         f", got {scores!r}")
    deals = _field(data, "deals")
    if not isinstance(deals, list) or not deals:
        raise ValueError(f"game file: 'deals' must be a non-empty list of deal specs, got {show(deals)}")
    actions = _field(data, "actions")
    if not isinstance(actions, list):
        raise ValueError(f"game file: 'actions' must be a list of action names, got {show(actions)}")
    name = data.get("variant", "full")
    if not isinstance(name, str) or name not in VARIANTS:
        raise ValueError(f"game file: 'variant' must be one of {', '.join(VARIANTS)}, got "
                         f"{show(name)}")
    variant = VARIANTS[name]
    num_hands = _count(data, "num_hands", 1, MAX_HANDS)
    _check_deal_count(deals, num_hands, actions, variant)
    ids = []
    for k, name in enumerate(actions):
        action = _ACTION_IDS.get(name) if isinstance(name, str) else None
        if action is None:
            raise ValueError(f"game file: action #{k} {name!r} is not an action name "
                             "(a card such as 'QC', 'trump H', 'escalate' or 'pass')")
        ids.append(action)
    return {
        "seed": _seed(data),
        "num_hands": num_hands,
        "first_dealer": _count(data, "first_dealer", 0, 1),
        "initial_scores": tuple(scores),
        "deals": [parse_deal(d, variant) for d in deals],
        "actions": ids,
        "variant": variant,
    }
