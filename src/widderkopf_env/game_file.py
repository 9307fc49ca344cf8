"""The JSON game file (:func:`encode_document`, :func:`decode_document`): ``Game.to_json``
and ``Game.from_json`` are built on them; the schema is :data:`DOCUMENT_SCHEMA`. Every
field is checked and bounded before anything is built from it."""

from __future__ import annotations

import json

from .cards import FULL, NUM_ACTIONS, VARIANTS, action_name
from .checks import MAX_HANDS, MAX_SEED_BITS, show
from .deals import deal_to_spec, parse_deal

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
