"""``widderkopf-play``: play Widderkopf in the terminal against a bot.

    widderkopf-play [--opponent heuristic] [--hands N] [--seat 0|1] [--seed S]
                    [--variant NAME] [--web [--no-browser] [--host H] [--port P]]

``--web`` plays at a table in the browser instead (:mod:`.web_play`).

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
    VARIANTS,
)
from widderkopf_env.checks import MAX_HANDS, MAX_SEED32
from widderkopf_env.cli import UsageError, add_version, deprecated_alias, integer, run_cli
from widderkopf_env.render import describe_action
from widderkopf_env.rules import Game
from widderkopf_env.settings import with_limit

from .cli_args import add_safe, agent_help, agent_spec, load_agents
from .play_moves import completed_trick, hand_lines, parse_move, trick_line

QUIT_WORDS = {"quit", "exit", "q"}
HELP_TEXT = ("Enter a card (QC, 10d, td, 7h), the number shown next to a move, 'crack' or "
             "'pass', or a suit name when naming trumps. 'help' shows this, 'quit' stops.")


class Quit(Exception):
    """The player asked to stop, or input ended."""


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
            trick = completed_trick(view, action)
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
        self.say(trick_line(trick, self.seat))

    def report_hand(self, r) -> None:
        first, *rest = hand_lines(r, self.seat, self.game.variant)
        self.say(f"\n=== {first} ===")
        for line in rest:
            self.say(line)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="widderkopf-play",
                                description="Play Widderkopf against a bot, in the terminal or "
                                            "(--web) in your browser.",
                                epilog=HELP_TEXT)
    p.add_argument("--opponent", default="heuristic", type=agent_spec,
                   help=agent_help("the bot to play against (default heuristic)",
                                   safe_option=True))
    hands, seed = integer(1, MAX_HANDS), integer(0, MAX_SEED32)
    p.add_argument("--num-hands", dest="hands", type=hands, default=1, help=with_limit(
        "hands in the match (default 1; 4 short, 6 full, 8 proper)", hands))
    deprecated_alias(p, "--hands", "--num-hands")
    p.add_argument("--seat", type=int, choices=(0, 1), default=0,
                   help="your seat: 0 (player_0, default) or 1")
    p.add_argument("--seed", type=seed, default=None, help=with_limit(
        "deal seed (default: random; shown when the match ends, so that it can be "
        "replayed)", seed))
    p.add_argument("--variant", choices=list(VARIANTS), default="full",
                   help="the variant dealt (default full; a name in widderkopf_env.VARIANTS)")
    add_safe(p)
    web = p.add_argument_group("browser table", "play in your browser instead: a local server "
                               "(widderkopf_env.agents.web_play)")
    web.add_argument("--web", action="store_true",
                     help="serve the table locally and open it in the browser")
    web.add_argument("--no-browser", action="store_true",
                     help="with --web: only print the table's address")
    web.add_argument("--host", default=None,
                     help="with --web: the address to serve on (default 127.0.0.1; one "
                          "that is not a loopback address gets a warning)")
    web.add_argument("--allow-all-interfaces", action="store_true",
                     help="with --web: allow a --host that listens on every network "
                          "interface (0.0.0.0, ::, 0, ...), which is refused without it")
    port = integer(0, 65535)
    web.add_argument("--port", type=port, default=None,
                     help=with_limit("with --web: the port (default 0: a free one)", port))
    web.add_argument("--no-record", action="store_true",
                     help="with --web: do not record the matches in the data folder "
                          "($XDG_DATA_HOME/widderkopf-env, default ~/.local/share/...)")
    add_version(p)
    return p


def main(argv=None, stdin=None, stdout=None) -> int:
    """Run the CLI; ``stdin``/``stdout`` default to the process streams (tests pass others)."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    parser = build_parser()
    return run_cli(parser, lambda: _run(parser.parse_args(argv), stdin, stdout))


def _run(args, stdin, stdout) -> int:
    if args.web:
        from .web_play import run_web

        return run_web(args, stdout)
    given = [o for o, v in (("--no-browser", args.no_browser), ("--host", args.host),
                            ("--allow-all-interfaces", args.allow_all_interfaces),
                            ("--port", args.port), ("--no-record", args.no_record))
             if v is not None and v is not False]
    if given:
        raise UsageError(f"{', '.join(given)} go with --web")
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
