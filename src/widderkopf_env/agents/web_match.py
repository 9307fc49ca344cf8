"""One match at the browser table (``widderkopf-play --web``), and what the human may see
of it as JSON-ready dicts.

A :class:`WebMatch` holds the game and the bot. The human's moves come in through
:meth:`WebMatch.act`; the bot then moves until it is the human's turn again or the match
is over. :meth:`WebMatch.state`, what every response of the server carries, is built from
the human's :class:`~widderkopf_env.view.PlayerView` and the public record of the match
only (RULES R8): the table picture of that view (:mod:`widderkopf_env.picture`), the
legal moves, the moves so far in words (the bot's discard as "a card", R10), the results.

A hand that is over is public: every card of it has been played to a trick, except the
two discards, which lie in the capture piles counted for the result (R17) and are named
in it. :meth:`WebMatch.review` gives such a hand's replay (:func:`widderkopf_env.replay.frames`
of that hand alone) and what the bot saw: its view and its choice at each of its
decisions (the views the bot was given). It refuses a hand that is not over; a hand cut
short by a failed bot never is.
"""

from __future__ import annotations

import sys
import traceback

from widderkopf_env.cards import (
    ESCALATE,
    ESCALATION_NAMES,
    NUM_CARDS,
    PASS,
    TRUMP_ACTION,
    card_name,
)
from widderkopf_env.engine_types import Phase
from widderkopf_env.picture import svg_of, table_of_view
from widderkopf_env.render import action_label, describe_action
from widderkopf_env.replay import frames
from widderkopf_env.rules import Game

from .play_moves import completed_trick, hand_lines, parse_move, trick_line

_YOU = {"discards": "discard", "plays": "play", "names": "name", "says": "say", "passes": "pass"}
#: The keys that play the legal moves, in the order the moves are listed.
KEYS = "123456789abcdefghijklmnopqrstuvwxyz"


class MoveRefused(ValueError):
    """A move or request the rules or the match refuse; the message says why."""


class StaleMove(MoveRefused):
    """A move sent for an earlier step of the match (a repeated or out-of-date request)."""


class WebMatch:
    """The human in seat ``seat`` against ``bot`` (named ``opponent``) in ``game``;
    ``seed`` is the match's deal seed, shown when the match is over."""

    def __init__(self, game: Game, seat: int, bot, opponent: str, seed):
        self.game, self.seat, self.bot, self.opponent, self.seed = game, seat, bot, opponent, seed
        self.step = 0  #: decisions made so far, by both players
        self.events: list[str] = []  #: the match so far in words, as the human saw it
        self.hand_starts = [0]  #: where each hand's actions begin in ``game.history``
        self.failed: str | None = None  #: why the match stopped early (the bot failed)
        self.rating: dict | None = None  #: set by the server when the match is over
        self._play_bot()

    @property
    def names(self) -> tuple:
        """What the pictures call the players, by player: "you" and "bot"."""
        return ("you", "bot") if self.seat == 0 else ("bot", "you")

    @property
    def over(self) -> bool:
        return self.game.is_over or self.failed is not None

    # --- moves -----------------------------------------------------------------------------

    def act(self, step, action=None, text=None) -> None:
        """The human's move at ``step``: an action id, or ``text`` as typed in the
        terminal game (``QC``, ``crack``, ``hearts``); :class:`MoveRefused` says why not,
        and then nothing changed."""
        if step != self.step:
            raise StaleMove(f"this move was sent for step {step!r}, but the match is at step "
                            f"{self.step}: a repeated or out-of-date request")
        if self.over:
            raise MoveRefused("the match is over: start a new match")
        view = self.game.view(self.seat)
        if text is not None:
            try:
                action = parse_move(str(text), view)
            except ValueError as err:
                raise MoveRefused(str(err)) from None
        elif (isinstance(action, bool) or not isinstance(action, int)
              or action not in view.legal_actions()):
            raise MoveRefused(_refusal(action, view))
        self._apply(action)
        self._play_bot()

    def _play_bot(self) -> None:
        g = self.game
        while not g.is_over and g.current != self.seat and self.failed is None:
            view = g.view(g.current)
            try:
                action = self.bot.act(view)
                if action not in view.legal_actions():
                    raise ValueError(f"the bot chose {action!r}, not a legal move")
            except Exception as err:  # any bot failure stops the match, never the server
                # the page gets the error's type only: its text may name the bot's cards
                self.failed = (f"The bot ({self.opponent}) failed ({type(err).__name__}); "
                               "the match is stopped. Start a new match.")
                self.events.append(self.failed)
                print(f"widderkopf-play: the bot {self.opponent!r} failed:", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)
                return
            self._apply(int(action))

    def _apply(self, action: int) -> None:
        g, me = self.game, self.seat
        view = g.view(me)  # the human's view before the move: the words use it only
        if g.current == me:
            verb, *rest = describe_action(action, view.phase, view.level, "").split(maxsplit=1)
            self.events.append(" ".join(["You", _YOU.get(verb, verb), *rest]) + ".")
        else:
            self.events.append(describe_action(action, view.phase, view.level, "The bot",
                                               hide_discard=True) + ".")
        trick = completed_trick(view, action)
        hands = len(g.results)
        g.apply(action)
        self.step += 1
        if trick is not None:
            self.events.append(trick_line(trick, me, "bot"))
        if len(g.results) > hands:
            self.hand_starts.append(len(g.history))
            self.events += hand_lines(g.view(me).last_result, me, g.variant, "bot")

    # --- what the human sees -----------------------------------------------------------------

    def state(self) -> dict:
        """Everything one response shows, from the human's view and the public record."""
        v = self.game.view(self.seat)
        me, bot = self.seat, 1 - self.seat
        over = self.over
        legal = [] if over else [
            {"action": a, "label": action_label(a, v), "key": KEYS[i],
             "card": card_name(a) if a < NUM_CARDS else None}
            for i, a in enumerate(v.legal_actions())]
        out = {
            "step": self.step, "seat": me, "opponent": self.opponent,
            "variant": v.variant.name, "trump": v.trump,  # -1 until trumps are named
            "hand": v.hand_no + (v.phase != Phase.OVER),
            "num_hands": v.num_hands, "scores": {"you": v.scores[me], "bot": v.scores[bot]},
            "hands_over": 0 if v.last_result is None else v.last_result.hand + 1,
            "prompt": "" if over else _prompt(v), "legal": legal, "events": self.events,
            "table": svg_of(table_of_view(v, names=self.names), standalone=False),
            "over": over,
        }
        if over:
            won = v.scores[me] > v.scores[bot]
            out["summary"] = {
                "result": ("stopped" if self.failed else "you won" if won else "the bot won"),
                "failed": self.failed, "seed": self.seed, "rating": self.rating,
                "scores": out["scores"]}
        return out

    def review(self, hand) -> dict:
        """The replay of finished hand ``hand`` (0-based) and the bot's decisions in it."""
        results = self.game.results
        if isinstance(hand, bool) or not isinstance(hand, int) or not 0 <= hand < len(results):
            done = (f"hands 0..{len(results) - 1} are" if len(results) > 1 else
                    "hand 0 is" if results else "no hand is")
            raise MoveRefused(f"hand {hand!r} cannot be shown: only a hand that is over is "
                              f"public, and {done} over")
        start, end = self.hand_starts[hand], self.hand_starts[hand + 1]
        g = self.game.replay(start)
        decisions = []
        for i, a in enumerate(self.game.history[start:end]):
            if g.current != self.seat:
                view = g.view(g.current)
                decisions.append({
                    "step": i, "choice": describe_action(a, view.phase, view.level, "The bot"),
                    "legal": [action_label(x, view) for x in view.legal_actions()]})
            g.apply(a)
        # the table after the hand's last card shows the next hand's deal, unless the
        # match is over: the replay stops at the last decision then
        last = end if g.is_over else end - 1
        pictures = frames(self.game, start=start, stop=last, names=self.names)
        return {"hand": hand, "seat": self.seat, "bot": f"player_{1 - self.seat}",
                "result": hand_lines(results[hand], self.seat, self.game.variant, "bot"),
                "frames": pictures, "decisions": decisions}


def _prompt(v) -> str:
    if v.phase == Phase.TRUMP:
        return "Name the trump suit."
    if v.phase == Phase.DISCARD:
        return "Discard a card from your hand: it goes to the bot's capture pile."
    if v.phase == Phase.ANSWER:
        return (f"The bot said {ESCALATION_NAMES[v.level - 1]}: answer with "
                f"{ESCALATION_NAMES[v.level]} or pass.")
    if ESCALATE in v.legal_actions():
        return f"Play a card, or say {ESCALATION_NAMES[v.level]}."
    return "Play a card."


def _refusal(action, view) -> str:
    """Why ``action`` (not legal in ``view``) is refused, in the terminal game's words."""
    legal = view.legal_actions()
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action <= PASS:
        return f"an action must be one of the legal action ids {legal}, got {action!r}"
    if TRUMP_ACTION <= action < ESCALATE:
        return "trumps are named once, at the start of the hand, by the chooser (R9)"
    word = card_name(action) if action < TRUMP_ACTION else "crack" if action == ESCALATE else "pass"
    try:
        parse_move(word, view)
    except ValueError as err:
        return str(err)
    return f"that move is not legal now (legal: {legal})"  # not reached: parse_move refuses
