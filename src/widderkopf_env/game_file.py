"""A game as data: the JSON game file (:func:`encode_document`, :func:`decode_document`;
the schema is :data:`DOCUMENT_SCHEMA`), and what ``Game.to_json``, ``Game.from_json``,
``Game.replay`` and ``Game.state_dict`` do (:func:`to_json`, :func:`from_json`,
:func:`replay`, :func:`state_dict`). Every field is checked and bounded before anything is
built from it; a file's actions are replayed through the rules, so each must be legal."""

from __future__ import annotations

import json
from dataclasses import asdict

from .cards import FULL, NUM_ACTIONS, VARIANTS, action_name
from .checks import MAX_HANDS, MAX_SEED_BITS, show
from .deals import deal_to_spec, parse_deal
from .engine_types import STATE_FIELDS, IllegalActionError, Phase


def to_json(game) -> str:
    """``game``'s match as JSON: seed, set-up, the deal of every hand so far and all actions."""
    return encode_document(game.seed, game.num_hands, game.first_dealer, game.initial_scores,
                           game.deals, game.history, game.variant)


def from_json(cls, text):
    """A ``cls`` (a Game class) rebuilt from :func:`to_json`'s text by replaying its actions."""
    doc = decode_document(text)
    return replayed(cls, doc["seed"], doc["first_dealer"], doc["num_hands"],
                    doc["initial_scores"], doc["deals"], doc["actions"], doc["variant"])


def replay(game, length: int | None = None):
    """A new game of ``game``'s class: its match replayed from its deals up to its first
    ``length`` actions (all of them by default)."""
    if None in game.deals:
        raise ValueError("a world built by worlds.from_view has no deals to replay")
    g = replayed(type(game), game.seed, game.first_dealer, game.num_hands, game.initial_scores,
                 game.deals, game.history[:length], game.variant)
    g.deals[g.hand_no + (g.phase != Phase.OVER):] = []  # the deals of hands not started yet
    return g


def replayed(cls, seed, first_dealer, num_hands, scores, deals, actions, variant=FULL):
    """A ``cls`` match dealt ``deals`` (later hands from ``seed``) after ``actions``; an
    action that is not legal raises :class:`IllegalActionError` naming it and its index."""
    g = cls._create(seed, first_dealer, num_hands, scores, list(deals[:1]), variant)
    g.deals.extend(deals[1:])  # later hands are played with these deals
    for k, action in enumerate(actions):
        try:
            g.apply(action)
        except IllegalActionError as err:
            raise IllegalActionError(f"action #{k} ({action_name(action)}) cannot be "
                                     f"replayed: {err}", action, err.phase, err.legal) from None
    return g


def state_dict(game) -> dict:
    """``game``'s full live state as plain data (for tests, debugging and golden files)."""
    out = {f: getattr(game, f) for f in STATE_FIELDS if f not in ("_legal", "results", "variant")}
    out["results"] = [asdict(r) for r in game.results]
    out["deals"] = [deal_to_spec(d) for d in game.deals]
    out["tricks"] = [list(t) for t in game.tricks]
    out["initial_scores"] = list(game.initial_scores)
    return json.loads(json.dumps(out))

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
