"""``widderkopf-play``: play Widderkopf in the terminal against a bot.

    widderkopf-play [--opponent heuristic] [--hands N] [--seat 0|1] [--seed S]
                    [--variant NAME]

Each time it is your turn the table is shown as you may see it (your hand, both players'
face-up cards, the trick) with your legal moves and their numbers, e.g. ``[3] Q♣``.
Answer with:

- a card name: ``QC``, ``10d``, ``td``, ``7h`` (or ``Q♣``), or the number shown with it;
- ``crack`` (also ``escalate``, ``recrack``, ``crackback``, ``corner``) or ``pass``;
- when naming trumps, a suit: ``clubs``/``c``, ``spades``/``s``, ``hearts``/``h``,
  ``diamonds``/``d`` (or ``trump h``);
- ``help`` to see this again, ``quit`` (or end of input) to stop; Ctrl-C stops too
  (exit status 130).

A bad answer is explained and asked again. After each trick and each hand you see what
happened; at the end of a hand, both players' card points, the hand's value and the
match score.

The deal seed is shown when the match ends (or you quit), never before: the seed fixes
every deal (``Game.new(seed=...)``), so it would show the bot's hand and the face-down
cards. Replay a match with ``--seed``. ``--variant NAME`` deals a smaller variant of the
game (``widderkopf_env.VARIANTS``: the same rules on fewer cards; default the full game).
"""

from __future__ import annotations

import argparse
import secrets
import sys

from widderkopf_env.agent import reset_agent
from widderkopf_env.cards import (
    ESCALATE,
    NUM_CARDS,
    PASS,
    POINTS,
    SUIT_GLYPHS,
    SUITS,
    TRUMP_ACTION,
    VARIANTS,
    card_glyph,
    parse_card,
    trick_winner_offset,
)
from widderkopf_env.checks import MAX_HANDS
from widderkopf_env.cli import add_version, deprecated_alias, integer, run_cli
from widderkopf_env.render import describe_action
from widderkopf_env.rules import Game, Phase

from .cli_args import add_safe, agent_help, agent_spec, load_agents

SUIT_WORDS = {
    **{s.lower(): i for i, s in enumerate(SUITS)}, **{g: i for i, g in enumerate(SUIT_GLYPHS)},
    "clubs": 0, "club": 0, "spades": 1, "spade": 1, "hearts": 2, "heart": 2,
    "diamonds": 3, "diamond": 3,
}
ESCALATE_WORDS = {"crack", "escalate", "recrack", "crackback", "corner", "around",
                  "crack around the corner", "e", "x"}
PASS_WORDS = {"pass", "p", "no", "n"}
QUIT_WORDS = {"quit", "exit", "q"}
HELP_TEXT = ("Enter a card (QC, 10d, td, 7h), the number shown next to a move, 'crack' or "
             "'pass', or a suit name when naming trumps. 'help' shows this, 'quit' stops.")


class Quit(Exception):
    """The player asked to stop, or input ended."""


def parse_move(text: str, view) -> int:
    """The action id ``text`` names in ``view``; ``ValueError`` saying why not."""
    legal = view.legal_actions()
    word = " ".join(text.strip().lower().split())
    if not word:
        raise ValueError("please enter a move")
    if word.isdigit():
        if int(word) in legal:
            return int(word)
        raise ValueError(f"{word} is not one of the move numbers shown")
    if word in ESCALATE_WORDS:
        if ESCALATE in legal:
            return ESCALATE
        if view.phase in (Phase.TRUMP, Phase.DISCARD):
            raise ValueError("escalating starts with the card play (R11): name trumps and "
                             "discard first")
        raise ValueError("you may not escalate now")
    if word in PASS_WORDS:
        if PASS in legal:
            return PASS
        raise ValueError("there is nothing to pass on now")
    if view.phase == Phase.TRUMP:
        suit = SUIT_WORDS.get(word.removeprefix("trump").strip())
        if suit is not None:
            return TRUMP_ACTION + suit
        raise ValueError("name a trump suit: clubs, spades, hearts or diamonds")
    try:
        card = parse_card(word)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a move (type 'help' to see how to enter "
                         "one)") from None
    if card in legal:
        return card
    if view.phase == Phase.DISCARD:
        raise ValueError(f"{card_glyph(card)} is not in your hand (discard from your hand)")
    if view.phase != Phase.PLAY:
        raise ValueError("answer the escalation: 'crack' or 'pass'")
    if not (view.playable >> card) & 1:
        raise ValueError(f"{card_glyph(card)} is not playable: play from your hand or your "
                         "face-up cards")
    raise ValueError(f"{card_glyph(card)} does not follow: you must follow the card led "
                     "if you can (queens and jacks are trumps)")


class Session:
    """One terminal match: ``human`` plays seat ``seat`` against ``bot``."""

    def __init__(self, game: Game, seat: int, bot, stdin, stdout):
        self.game, self.seat, self.bot = game, seat, bot
        self.stdin, self.stdout = stdin, stdout

    def say(self, text: str = "") -> None:
        try:
            self.stdout.write(text + "\n")
        except UnicodeEncodeError:  # a terminal without the suit symbols
            enc = getattr(self.stdout, "encoding", None) or "ascii"
            self.stdout.write(text.encode(enc, "replace").decode(enc) + "\n")
        self.stdout.flush()

    def ask(self, view) -> int:
        from widderkopf_env.render import render_view

        self.say()
        self.say(render_view(view))
        while True:
            self.stdout.write("> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:  # end of input
                self.say()
                raise Quit
            if line.strip().lower() in QUIT_WORDS:
                raise Quit
            if line.strip().lower() in ("help", "?"):
                self.say(HELP_TEXT)
                continue
            try:
                return parse_move(line, view)
            except ValueError as err:
                self.say(f"Not accepted: {err}. Try again.")

    def run(self) -> None:
        g, me = self.game, self.seat
        while not g.is_over:
            p = g.current
            view = g.view(p)
            if p == me:
                action = self.ask(view)
            else:
                action = self.bot.act(view)
                self.say(describe_action(action, view.phase, view.level, "Opponent",
                                         hide_discard=True) + ".")
            # A card on a led card completes a trick: report it (the engine may already have
            # dealt the next hand, and cleared its tricks, once apply() returns).
            trick = None
            if view.phase == Phase.PLAY and action < NUM_CARDS and view.lead >= 0:
                leader, led = view.leader, view.lead
                trick = (leader, led, action,
                         leader ^ trick_winner_offset(view.trump, led, action))
            hands = len(g.results)
            g.apply(action)
            if trick is not None:
                self.report_trick(trick)
            if len(g.results) > hands:
                self.report_hand(g.results[-1])
        s = g.scores
        verdict = "You win the match!" if s[me] > s[1 - me] else "The opponent wins the match."
        self.say(f"\nMatch over: you {s[me]}, opponent {s[1 - me]}. {verdict}")


    def report_trick(self, trick) -> None:
        leader, led, other, winner = trick
        me = self.seat
        first = "you" if leader == me else "the opponent"
        who = "You take" if winner == me else "The opponent takes"
        self.say(f"Trick: {first} led {card_glyph(led)}, then {card_glyph(other)}. "
                 f"{who} it ({POINTS[led] + POINTS[other]} points).")

    def report_hand(self, r) -> None:
        me = self.seat
        won = "You win" if r.winner == me else "The opponent wins"
        v = self.game.variant
        extra = (f" schwarz (all {v.total_points})" if r.schwarz else
                 f" schneider ({v.schneider_points}+)" if r.schneider else "")
        self.say(f"\n=== Hand {r.hand + 1} over. {won}{extra}. ===")
        notes = []
        if r.discards[me] >= 0:  # a variant without piles has no discards
            notes.append(f"discards: yours {card_glyph(r.discards[me])} went to the opponent, "
                         f"theirs {card_glyph(r.discards[1 - me])} to you")
        if r.spitzer >= 0:  # -1: a variant without the Spitzer
            notes.append(f"Spitzer to {'you' if r.spitzer == me else 'the opponent'}")
        self.say(f"Card points: you {r.card_points[me]}, opponent {r.card_points[1 - me]}"
                 + (f" ({'; '.join(notes)})" if notes else "") + ".")
        self.say(f"Value: {r.value} game point(s) (crack level {r.crack_level}). "
                 f"Match score: you {r.scores[me]}, opponent {r.scores[1 - me]}.")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="widderkopf-play",
                                description="Play Widderkopf in the terminal against a bot.",
                                epilog=HELP_TEXT)
    p.add_argument("--opponent", default="heuristic", type=agent_spec,
                   help=agent_help("the bot to play against (default heuristic)",
                                   safe_option=True))
    p.add_argument("--num-hands", dest="hands", type=integer(1, MAX_HANDS), default=1,
                   help="hands in the match (default 1; 4 short, 6 full, 8 proper)")
    deprecated_alias(p, "--hands", "--num-hands")
    p.add_argument("--seat", type=int, choices=(0, 1), default=0,
                   help="your seat: 0 (player_0, default) or 1")
    p.add_argument("--seed", type=integer(0), default=None,
                   help="deal seed (default: random; shown when the match ends, so that it "
                        "can be replayed)")
    p.add_argument("--variant", choices=list(VARIANTS), default="full",
                   help="the variant dealt (default full; a name in widderkopf_env.VARIANTS)")
    add_safe(p)
    add_version(p)
    return p


def main(argv=None, stdin=None, stdout=None) -> int:
    """Run the CLI; ``stdin``/``stdout`` default to the process streams (tests pass others)."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    parser = build_parser()
    return run_cli(parser, lambda: _run(parser.parse_args(argv), stdin, stdout))


def _run(args, stdin, stdout) -> int:
    [bot] = load_agents(args.opponent, safe=args.safe)
    seed = secrets.randbits(32) if args.seed is None else args.seed
    game = Game.new(seed=seed, num_hands=args.hands, variant=args.variant)
    reset_agent(bot, seed)
    session = Session(game, args.seat, bot, stdin, stdout)
    variant = "" if args.variant == "full" else f", {game.variant.describe()}"
    session.say(f"Widderkopf: you (player_{args.seat}) against {args.opponent}, "
                f"{args.hands} hand(s){variant}. Type 'help' for how to enter moves.")
    try:
        session.run()
    except Quit:
        session.say("Bye.")
    # only now: the seed fixes every deal, the bot's hand and the face-down cards included
    session.say(f"Deal seed {seed} (widderkopf-play --seed {seed} replays this match).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
