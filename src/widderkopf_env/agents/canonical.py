"""Trump-relative ("canonical") card order: the index tables behind the canonical policies.

Once trumps are named, what a card does depends on its role, not on its suit: the 7 of
spades under spade trumps plays like the 7 of hearts under heart trumps. The canonical
order lists the cards by role for trump suit ``t``:

==========  =================================================================
0..14       the trumps, highest first (QC QS QH QD JC JS JH JD, A 10 K 9 8 7 6 of t)
15..35      the three plain suits other than t, in C S H D order, 7 cards each
            (A 10 K 9 8 7 6)
==========  =================================================================

Before trumps are named (``t`` = 4, "none") the order is the card ids themselves.

``IN_INDEX[t]`` gathers an observation into canonical order (every 36-card piece of
:data:`widderkopf_env.observation.PIECES` permuted, every other entry in place, the trump
suit one-hot's four suit entries zeroed, so nothing downstream depends on which suit is
trumps). ``OUT_INDEX[t]`` gathers logits over canonical actions back into the env's
action ids (cards permuted back, actions 36..41 unchanged). numpy only, no torch.
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.cards import NUM_ACTIONS, NUM_CARDS, PLAIN_RANKS, TRUMP_ORDER
from widderkopf_env.observation import OBS_SIZE, OFFSETS, PIECES

TRUMP_SUIT_AT = OFFSETS["trump_suit"][0]


def _roles(t: int) -> list[int]:
    """``roles[c]``: the canonical position of card ``c`` under trump suit ``t``."""
    if t == 4:
        return list(range(NUM_CARDS))
    order = TRUMP_ORDER[t]
    others = [s for s in range(4) if s != t]
    roles = []
    for c in range(NUM_CARDS):
        if c in order:
            roles.append(order.index(c))
        else:
            roles.append(15 + 7 * others.index(c // 9) + PLAIN_RANKS.index(c % 9))
    return roles


ROLES = np.array([_roles(t) for t in range(5)], np.int64)  # (5, 36)
#: ``CARD_AT[t][r]``: the card in canonical position ``r``.
CARD_AT = np.argsort(ROLES, axis=1)


def _in_index(t: int) -> np.ndarray:
    idx = np.arange(OBS_SIZE)
    for name, size, _ in PIECES:
        if size == NUM_CARDS:
            start = OFFSETS[name][0]
            idx[start:start + NUM_CARDS] = start + CARD_AT[t]
    return idx


IN_INDEX = np.stack([_in_index(t) for t in range(5)])  # (5, OBS_SIZE)
#: Entries zeroed after the gather: which suit is trumps (its "none" entry stays).
ZERO_MASK = np.ones(OBS_SIZE, np.float32)
ZERO_MASK[TRUMP_SUIT_AT:TRUMP_SUIT_AT + 4] = 0.0
OUT_INDEX = np.stack([np.concatenate([ROLES[t], np.arange(NUM_CARDS, NUM_ACTIONS)])
                      for t in range(5)])  # (5, 42)


def trump_of(obs: np.ndarray) -> np.ndarray:
    """The trump suit index 0..3, or 4 before it is named, of observations ``(..., OBS)``."""
    return np.argmax(obs[..., TRUMP_SUIT_AT:TRUMP_SUIT_AT + 5], axis=-1)


def to_canonical(obs: np.ndarray) -> np.ndarray:
    """An observation (or a batch) in canonical order; see the module documentation."""
    t = trump_of(obs)
    return np.take_along_axis(obs, IN_INDEX[t], axis=-1) * ZERO_MASK


def from_canonical(logits: np.ndarray, t) -> np.ndarray:
    """Canonical action logits -> logits by the env's action ids."""
    return np.take_along_axis(logits, OUT_INDEX[t], axis=-1)
