"""Probe bots with a known flaw, for checking the exploitability tool on known answers.

Each plays like a base agent (the heuristic bot unless another is given) except for one
deliberate flaw, so a best response should find a large edge against it:

- :class:`AlwaysCrackAgent` (``"always-crack"``): escalates whenever it may (Crack, and
  every later escalation that is its own, R11), whatever its cards;
- :class:`NoTrumpsAgent` (``"no-trumps"``): never plays a trump when it may play a
  plain card instead.
- :class:`FirstLegalAgent` (``"first-legal"``): a deterministic always-crack bot with no
  card sense at all: escalates whenever it may, else plays the lowest legal action id.

All are deterministic when their base is, and see only their :class:`PlayerView`.
"""

from __future__ import annotations

from widderkopf_env.cards import ALL_CARDS, ESCALATE, TRUMP_MASK
from widderkopf_env.rules import Phase
from widderkopf_env.view import PlayerView


def _base(spec):
    from . import load_agent

    return load_agent("heuristic" if spec is None else spec)


def _with_legal(view: PlayerView, legal: int) -> PlayerView:
    """A copy of ``view`` whose legal actions are ``legal`` (the original is left alone)."""
    copy = PlayerView.__new__(PlayerView)
    for name in PlayerView.__slots__:
        setattr(copy, name, getattr(view, name))
    copy.legal = legal
    return copy


class AlwaysCrackAgent:
    """Escalates whenever escalating is legal; otherwise plays as ``base``."""

    name = "always-crack"

    def __init__(self, seed: int | None = None, base=None):
        self.base = _base(base)

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.base, "reset", None)
        if reset is not None:
            reset(seed)

    def act(self, view: PlayerView) -> int:
        if view.legal >> ESCALATE & 1:
            return ESCALATE
        return self.base.act(view)


class NoTrumpsAgent(AlwaysCrackAgent):
    """Plays as ``base``, but with its trumps taken out of the legal cards whenever a plain
    card is legal too (trump choice, discard and escalation are the base's own)."""

    name = "no-trumps"

    def act(self, view: PlayerView) -> int:
        cards = view.legal & ALL_CARDS
        if view.phase == Phase.PLAY and cards & ~TRUMP_MASK[view.trump] and cards & TRUMP_MASK[view.trump]:
            view = _with_legal(view, view.legal & ~TRUMP_MASK[view.trump])
        return self.base.act(view)


class FirstLegalAgent:
    """Escalates whenever it may; otherwise plays the lowest legal action id."""

    name = "first-legal"

    def __init__(self, seed: int | None = None):
        pass

    def act(self, view: PlayerView) -> int:
        legal = view.legal
        if not legal:
            raise ValueError(f"player {view.player} has no legal action (not their turn)")
        if legal >> ESCALATE & 1:
            return ESCALATE
        return (legal & -legal).bit_length() - 1


PROBES = {"always-crack": AlwaysCrackAgent, "no-trumps": NoTrumpsAgent,
          "first-legal": FirstLegalAgent}
