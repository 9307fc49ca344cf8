"""Long invariant run: random matches checked against the independent reference referee.

    python scripts/invariants.py --hands 1000000 --workers 2
    python scripts/invariants.py --hands 2000 --workers 1 --no-progress      # a quick check

Plays random matches (1 to 3 hands, random starting scores, random first dealer) with
escalation-happy random bots: each match gives each player an escalation probability
drawn from {0.1, 0.5, 0.9}, used whenever escalating (crack, recrack, answering an
escalation) is legal; otherwise a uniformly random legal action. Every hand is replayed
move by move on ``tests/reference.py`` (a referee written from RULES.md alone, without
reading the engine) and checked:

- before every decision: the player to act and the exact set of legal actions (R9-R15);
- after every trick: its winner (R16);
- at the end of every hand: card points (R17, incl. discards and the Spitzer), winner
  (R18), crack level and game value (R11, R19), the match scores, and whether the match
  goes on (R20) and who deals next (R6);
- R8 on a sample of positions (``--leak-every``): the observation and action mask of a
  random player are unchanged when the cards that player has not seen are permuted
  (the check of ``tests/core/test_no_leak.py``, applied to positions of multi-hand matches).

With ``--core``, every match is also played on the compiled core (a one-game
:class:`~widderkopf_env.vector.VecGame` stepped in C, dealt what the engine was dealt)
and compared with the engine before every decision (player to act, legal actions, the
acting player's observation and mask) and after every hand (its result and the scores).

Matches are seeded from ``--seed`` and their index, so a reported violation can be
replayed alone (``--first-match I --hands 1 --workers 1``). Work is split into chunks run
in ``--workers`` processes. Prints the counts of matches, hands, decisions, leak checks
and violations as a JSON line (``"complete": false`` when ``--max-seconds`` or Ctrl-C
stopped it early: the counts are those of the chunks completed); exits 1 if any check
failed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import numpy as np  # noqa: E402
from indistinguishable import differs_in_hidden, hidden_cards, observe, permutations  # noqa: E402
from reference import RefHand  # noqa: E402  (tests/reference.py, the independent referee)

from widderkopf_env import Game, IllegalActionError, action_name, card_name  # noqa: E402
from widderkopf_env.cards import to_bits  # noqa: E402
from widderkopf_env.game_encoder import encode_game  # noqa: E402
from widderkopf_env.observation import OBS_SIZE  # noqa: E402

ESCALATE = 40
CRACK_PROBS = (0.1, 0.5, 0.9)
MAX_VIOLATIONS = 20  # descriptions kept per chunk (all are counted)


class Counts(dict):
    """Totals of a run: matches, hands, decisions, tricks, leak_checks, violations."""

    KEYS = ("matches", "hands", "decisions", "tricks", "leak_checks", "leak_skipped",
            "violations")

    def __init__(self):
        super().__init__({k: 0 for k in self.KEYS})
        self.messages: list[str] = []

    def add(self, other: Counts) -> None:
        for k in self.KEYS:
            self[k] += other[k]
        self.messages.extend(other.messages[:MAX_VIOLATIONS - len(self.messages)])


def permuted_copy(game: Game, sigma: dict[int, int], hand_start: int) -> Game | None:
    """``game`` with the current hand's cards renamed by ``sigma`` (its actions following
    their cards), rebuilt from its JSON document; None if that replay is illegal."""
    doc = json.loads(game.to_json())
    deal = doc["deals"][game.hand_no]
    names = {card_name(c): card_name(d) for c, d in sigma.items()}
    for part in deal.values():
        for key, cards in part.items():
            part[key] = [names.get(n, n) for n in cards]
    doc["actions"] = doc["actions"][:hand_start] + [
        action_name(sigma.get(a, a) if a < 36 else a) for a in game.history[hand_start:]]
    try:
        return Game.from_json(json.dumps(doc))
    except IllegalActionError:
        return None


def leak_check(game: Game, hand_start: int, rng: random.Random, counts: Counts, tag: str):
    """R8 at this position for a random player (see the module documentation)."""
    p = rng.randrange(2)
    hidden = hidden_cards(game, p)
    if len(hidden) < 2:
        return
    for sigma in permutations(hidden, rng):
        other = permuted_copy(game, sigma, hand_start)
        if other is None or not differs_in_hidden(game, other, p):
            continue
        counts["leak_checks"] += 1
        (obs, mask), (obs2, mask2) = observe(game, p), observe(other, p)
        if not ((obs == obs2).all() and (mask == mask2).all()):
            violation(counts, f"{tag}: R8: player {p}'s observation or mask depends on "
                              f"hidden cards (permutation {sigma})")
        return
    counts["leak_skipped"] += 1


class CoreTwin:
    """The match of ``game`` on the compiled core: a one-game ``VecGame`` in C."""

    def __init__(self, game: Game):
        from widderkopf_env.vector import VecGame

        self.game, self.at = game, np.zeros(1, np.int64)
        self.obs, self.mask = np.empty((1, OBS_SIZE), np.float32), np.empty((1, 42), np.int8)
        self.batch = VecGame(1, self._deal, game.variant, accelerated=True)
        self.batch.new_matches(self.at, [game.first_dealer], [game.num_hands],
                               [game.initial_scores])

    def _deal(self, idx, hand_no):
        (h0, u0, d0), (h1, u1, d1) = self.game.deals[int(hand_no[0])]
        return (np.array([[to_bits(h0), to_bits(h1)]], np.uint64),
                np.array([u0 + u1], np.int64), np.array([d0 + d1], np.int64))

    def differs(self) -> str | None:
        """What differs from the engine before a decision (None: nothing)."""
        from widderkopf_env.vector import encode

        b, g = self.batch, self.game
        current = int(b.current[0])
        if int(b.legal[0]) != g.legal_mask or current != g.current:
            return (f"the core has player {current} to act with legal mask {int(b.legal[0])}, "
                    f"the engine {g.current} with {g.legal_mask}")
        obs, mask = encode(b, self.at, self.at + current, out=self.obs, mask_out=self.mask)
        want, want_mask = encode_game(g, current)
        if obs.tobytes() != want.tobytes() or mask.tobytes() != want_mask.tobytes():
            return f"the core's observation or mask for player {current} differs"
        return None

    def apply(self, action: int) -> None:
        self.batch.apply(self.at, np.array([action]))

    def result_differs(self) -> str | None:
        from widderkopf_env.vector.rows import GameRow

        row = GameRow(self.batch, 0)
        if row.results != self.game.results[-1:] or row.scores != self.game.scores:
            return f"the core's hand result {row.results} differs from {self.game.results[-1:]}"
        return None


def violation(counts: Counts, message: str, hand_aborted: bool = False) -> None:
    counts["violations"] += 1
    counts["hands"] += hand_aborted  # a match stops at its first violation
    if len(counts.messages) < MAX_VIOLATIONS:
        counts.messages.append(message)


def play_match(seed: int, index: int, leak_every: int, counts: Counts,
               core: bool = False) -> None:
    """Play match ``index`` of run ``seed`` on the engine and the reference side by side."""
    rng = random.Random(f"invariants/{seed}/{index}")
    num_hands = rng.randint(1, 3)
    scores = [rng.randrange(6), rng.randrange(6)]
    dealer = rng.randrange(2)
    crack = (rng.choice(CRACK_PROBS), rng.choice(CRACK_PROBS))
    game = Game.new(seed=rng.getrandbits(63), dealer=dealer, num_hands=num_hands,
                    scores=tuple(scores))
    counts["matches"] += 1
    twin = CoreTwin(game) if core else None
    played = 0
    while True:
        tag = f"seed {seed} match {index} hand {played}"
        deal = json.loads(game.to_json())["deals"][played]
        ref = RefHand(deal, dealer, tuple(scores))
        hand_start = len(game.history)
        probe = rng.randrange(45) if leak_every and counts["hands"] % leak_every == 0 else -1
        step = 0
        while not ref.is_over():
            legal = ref.legal_actions()
            if game.current_player != ref.current_player() or game.legal_actions() != legal:
                return violation(counts, f"{tag} step {step}: engine has player "
                                 f"{game.current_player} to act with {game.legal_actions()}, "
                                 f"the reference {ref.current_player()} with {legal}", True)
            if twin is not None and (wrong := twin.differs()) is not None:
                return violation(counts, f"{tag} step {step}: {wrong}", True)
            if step == probe:
                leak_check(game, hand_start, rng, counts, f"{tag} step {step}")
            p = ref.current_player()
            a = ESCALATE if ESCALATE in legal and rng.random() < crack[p] else rng.choice(legal)
            game.apply(a)
            ref.apply(a)
            if twin is not None:
                twin.apply(a)
            counts["decisions"] += 1
            step += 1
            n = len(ref.winners)
            if not ref.is_over() and n and (len(game.tricks) != n
                                            or game.tricks[-1][3] != ref.winners[-1]):
                return violation(counts, f"{tag} trick {n}: engine tricks {game.tricks}, "
                                 f"reference winners {ref.winners}", True)
        counts["hands"] += 1
        counts["tricks"] += len(ref.winners)
        played += 1
        winner, value = ref.winner(), ref.game_value()
        scores[winner] += value  # R19: only the winner scores
        over = played >= num_hands and scores[0] != scores[1]  # R20
        dealer = 1 - dealer  # R6
        if twin is not None and (wrong := twin.result_differs()) is not None:
            return violation(counts, f"{tag} end: {wrong}")
        r = game.results[-1] if len(game.results) == played else None
        expected = (tuple(ref.card_points()), winner, ref.crack_level(), value, tuple(scores))
        found = None if r is None else (r.card_points, r.winner, r.crack_level, r.value,
                                        r.scores)
        if found != expected or game.is_over != over or (
                not over and game.dealer != dealer):
            return violation(counts, f"{tag} end: engine (points, winner, level, value, "
                             f"scores) {found}, over {game.is_over}; reference {expected}, "
                             f"over {over}")
        if over:
            diff = scores[0] - scores[1] - (game.initial_scores[0] - game.initial_scores[1])
            if list(game.returns()) != [diff, -diff] or game.legal_actions():
                violation(counts, f"{tag}: returns {game.returns()}, expected "
                                  f"{[diff, -diff]}; legal after the end {game.legal_actions()}")
            return


def run_chunk(job: tuple[int, int, int, int, bool]) -> Counts:
    """Play matches ``first, first + 1, ...`` until ``hands`` hands are done."""
    seed, first, hands, leak_every, core = job
    counts = Counts()
    index = first
    while counts["hands"] < hands:
        play_match(seed, index, leak_every, counts, core)
        index += 1
    return counts


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="invariants.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=100_000, help="hands to play (at least)")
    p.add_argument("--workers", type=int, default=2, help="processes")
    p.add_argument("--seed", type=int, default=0, help="seeds every match")
    p.add_argument("--first-match", type=int, default=0, help="index of the first match")
    p.add_argument("--chunk", type=int, default=500, help="hands per work item")
    p.add_argument("--leak-every", type=int, default=20, metavar="N",
                   help="run the R8 check at one random position of every N-th hand (0: never)")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="stop after this long and report the chunks completed (also on Ctrl-C)")
    p.add_argument("--core", action="store_true",
                   help="also play every match on the compiled core and compare it")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name in ("hands", "workers", "chunk"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.leak_every < 0 or args.first_match < 0:
        parser.error("--leak-every and --first-match must be non-negative")
    if args.max_seconds is not None and not args.max_seconds > 0:
        parser.error("--max-seconds must be positive")
    if args.core:
        from widderkopf_env.vector.engine import ACCELERATED

        if not ACCELERATED:
            parser.error("--core: the compiled core is not built (or WIDDERKOPF_PURE_PYTHON "
                         "is set)")
    chunk = min(args.chunk, args.hands)
    # Each chunk's matches get their own range of indices (a chunk of H hands plays at
    # most H matches), so the run is the same for any --workers.
    jobs = [(args.seed, args.first_match + i * chunk, min(chunk, args.hands - i * chunk),
             args.leak_every, args.core) for i in range((args.hands + chunk - 1) // chunk)]
    total = Counts()
    t0 = time.perf_counter()
    bar = _progress(args.hands, args.progress)
    complete = True
    with Pool(args.workers) if args.workers > 1 else _Inline() as pool:
        try:
            for counts in pool.imap_unordered(run_chunk, jobs):
                total.add(counts)
                bar(counts["hands"], total)
                if args.max_seconds is not None and time.perf_counter() - t0 > args.max_seconds:
                    complete = False
                    break
        except KeyboardInterrupt:
            complete = False
    bar(None, total)
    for message in total.messages:
        print("VIOLATION", message, file=sys.stderr)
    summary = {**total, "complete": complete, "seconds": round(time.perf_counter() - t0, 1),
               "workers": args.workers, "seed": args.seed, "core": args.core}
    print(json.dumps(summary))
    return 1 if total["violations"] else 0


class _Inline:
    """A one-process stand-in for ``multiprocessing.Pool`` (easier to debug, no fork)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, fn, jobs):
        return map(fn, jobs)


def _progress(total: int, enabled: bool):
    """``update(hands_done_now, totals)``; ``update(None, totals)`` closes the bar."""
    if not enabled:
        return lambda n, counts: None
    try:
        from tqdm import tqdm
    except ImportError:  # the [train] extra brings tqdm; without it, a line per chunk
        def update(n, counts):
            if n is not None:
                print(f"{counts['hands']}/{total} hands, {counts['violations']} violations",
                      file=sys.stderr, flush=True)
        return update
    bar = tqdm(total=total, unit="hand", smoothing=0.05, mininterval=2.0)

    def update(n, counts):
        if n is None:
            bar.close()
            return
        bar.update(n)
        bar.set_postfix(decisions=counts["decisions"], violations=counts["violations"],
                        refresh=False)
    return update


if __name__ == "__main__":
    sys.exit(main())
