"""The endgame solver's C search (``csrc/solver/``) against the pure-Python search
(``solver.make_search``, the reference): the same values on random positions.

``tests/agents/test_pimc.py`` checks the solver itself against plain minimax through the engine
(with whichever search runs); here the two searches are compared with each other, at
positions too deep for minimax. The C search is a different algorithm (null-window tests,
quick bounds, a table keyed by interchangeable cards), so only the values are compared,
and its fail-soft bounds are checked against the reference's exact values.
"""

from __future__ import annotations

import os
import random
import shutil

import pytest

from widderkopf_env import Game
from widderkopf_env.agents import solver
from widderkopf_env.cards import core_tables
from widderkopf_env.rules import PLAY

needs_c = pytest.mark.skipif(not solver.ACCELERATED,
                             reason="the C search is not built or is disabled")

# positions per number of tricks left, at a lead and mid-trick each: 2,700 in all (the
# pure-Python solver takes about a second per position at 12 tricks left, a millisecond
# at 4)
COUNTS = {1: 100, 2: 150, 3: 300, 4: 300, 5: 250, 6: 150, 7: 60, 8: 25, 9: 10, 10: 4, 11: 2,
          12: 1}


def random_position(seed: int, tricks_left: int, mid_trick: bool) -> Game | None:
    """The game of ``Game.new(seed=seed)`` played by random legal moves to the play phase
    with ``tricks_left`` tricks to play, at a lead or after it; None if it ends first."""
    rng = random.Random(seed)
    game = Game.new(seed=seed)
    while not game.is_over:
        if game.phase == PLAY:
            left = 17 - len(game.tricks)
            if left < tricks_left:
                return None
            if left == tricks_left and (game.lead >= 0) == mid_trick:
                return game
        game.apply(rng.choice(game.legal_actions()))
    return None


def positions():
    for tricks_left, count in COUNTS.items():
        for mid_trick in (False, True):
            found, seed = 0, tricks_left * 10_000 + mid_trick * 1_000
            while found < count:
                game = random_position(seed, tricks_left, mid_trick)
                seed += 1
                if game is not None:
                    found += 1
                    yield game


def solve_all(game: Game) -> tuple:
    """``solve_actions`` and both players' ``solve_value``, one table shared by the three
    calls (as allowed on one world), then ``solve_actions`` again with a fresh table."""
    tt: dict = {}
    return (solver.solve_actions(game, tt), solver.solve_value(game, 0, tt),
            solver.solve_value(game, 1, tt), solver.solve_actions(game))


@needs_c
def test_c_and_python_solvers_agree_on_random_positions(monkeypatch):
    checked = face_down = pending = 0
    for game in positions():
        with_c = solve_all(game)
        with monkeypatch.context() as m:
            m.setattr(solver, "_accel", None)
            pure = solve_all(game)
        assert with_c == pure, (game.history, with_c, pure)
        assert with_c[0] == pure[3] and max(with_c[0].values()) == with_c[1 + game.current]
        pos = solver.Position(game)
        face_down += any(pos.rev)
        pending += pos.pending != 0
        checked += 1
    assert checked == 2 * sum(COUNTS.values())
    assert face_down > checked // 2  # face-down cards still under face-up ones
    assert pending > 0  # mid-trick with the lead's face-down card about to turn over


def test_one_world_table_serves_a_whole_game(monkeypatch):
    """world_table made at the first card of a game serves every later position of it
    (piles turned over since included), in C and in Python: each value as with a fresh
    table. A table made later refuses an earlier position whose piles it has not seen
    covered (the C search), instead of answering wrongly."""
    for seed in range(6):
        rng = random.Random(seed)
        game = Game.new(seed=seed)
        while game.phase != PLAY:
            game.apply(rng.choice(game.legal_actions()))
        games = []
        while not game.is_over and game.phase == PLAY:
            if 17 - len(game.tricks) <= 9:
                games.append(game.clone())
            game.apply(rng.choice(game.legal_actions()))
        first = solver.Position(games[0])
        assert sum(map(bool, first.rev)) > sum(map(bool, solver.Position(games[-1]).rev))
        for accel in (solver._accel, None):
            with monkeypatch.context() as m:
                m.setattr(solver, "_accel", accel)
                tt = solver.world_table(games[0])
                for g in games:
                    assert solver.solve_actions(g, tt) == solver.solve_actions(g), g.history
                    assert solver.solve_value(g, 0, tt) == solver.solve_value(g, 0)
    if solver.ACCELERATED:
        late = solver.world_table(games[-1])
        with pytest.raises(ValueError, match="not a position of this world"):
            solver.solve_actions(games[0], late)


@needs_c
def test_the_c_search_keeps_the_fail_soft_contract_in_any_window():
    """The raw search, called like the root calls it but with random windows and one table
    across calls: a value inside the window is exact; one at or below alpha is an upper
    bound, one at or above beta a lower bound, of the reference's exact value."""
    rng = random.Random(3)
    calls = inside = 0
    for seed in range(80):
        game = random_position(seed, rng.randrange(3, 10), False)
        if game is None:
            continue
        pos = solver.Position(game)
        me, R = game.current, pos.remaining
        py_search = solver.make_search(pos.trump, pos.rev, {})
        c_search = solver._accel.Searcher(pos.trump, pos.rev)
        where = (pos.avail[me], pos.avail[1 - me], pos.live, R, pos.tricks)
        exact = py_search(*where, -1, R + 1)
        for _ in range(8):
            alpha = rng.randrange(-3, R + 2)
            beta = rng.randrange(alpha + 1, R + 4)
            v = c_search.search(*where, alpha, beta)
            if v <= alpha:
                assert exact <= v, (seed, alpha, beta, v, exact)
            elif v >= beta:
                assert exact >= v, (seed, alpha, beta, v, exact)
            else:
                assert v == exact, (seed, alpha, beta, v, exact)
                inside += 1
            calls += 1
        assert c_search.search(*where, -1, R + 1) == exact
    assert calls > 400 and inside > 50


@pytest.mark.parametrize("which", ["c", "python"])
def test_any_window_leaves_the_table_right(which):
    """Windows below 0, above R and empty (beta <= alpha, answered as (alpha, alpha + 1))
    give bounds of the exact value, and one table across such calls still gives the
    exact value after."""
    if which == "c" and not solver.ACCELERATED:
        pytest.skip("the C search is not built or is disabled")
    rng = random.Random(5)
    checked = empty = 0
    for seed in range(60):
        game = random_position(1000 + seed, rng.randrange(3, 8), False)
        if game is None:
            continue
        pos = solver.Position(game)
        me, R = game.current, pos.remaining
        where = (pos.avail[me], pos.avail[1 - me], pos.live, R, pos.tricks)
        exact = solver.make_search(pos.trump, pos.rev, {})(*where, -1, R + 1)
        if which == "c":
            search = solver._accel.Searcher(pos.trump, pos.rev).search
        else:
            search = solver.make_search(pos.trump, pos.rev, {})
        for _ in range(10):
            alpha = rng.randrange(-8, R + 6)
            beta = rng.randrange(alpha - 5, R + 9)
            empty += beta <= alpha
            v = search(*where, alpha, beta)
            beta = max(beta, alpha + 1)
            assert (v <= alpha and exact <= v) or (v >= beta and exact >= v) or v == exact
        assert search(*where, -1, R + 1) == exact, seed
        checked += 1
    assert checked > 40 and empty > 50


def test_the_reference_values_a_position_where_a_window_below_0_misled_it(monkeypatch):
    """12 tricks left of a game of the heuristic against itself (bench/solver.py's first
    position of seed 1): leading card 25 or 35 gives 48 points, not the 44 that the
    Python search found when a window below 0 stored a wrong bound."""
    game = Game.new(seed=199_003)
    for a in (37, 23, 5, 40, 41, 27, 34, 18, 24, 7, 0, 28, 32, 19, 20):
        game.apply(a)
    assert game.phase == PLAY and len(game.tricks) == 5 and game.lead < 0
    want = {4: 52, 6: 48, 11: 45, 22: 46, 25: 48, 26: 49, 29: 48, 31: 46, 33: 48, 35: 48}
    with monkeypatch.context() as m:
        m.setattr(solver, "_accel", None)
        assert solver.solve_actions(game) == want
    if solver.ACCELERATED:
        assert solver.solve_actions(game) == want


@needs_c
def test_lead_values_give_every_lead_its_reference_value():
    """``Searcher.lead_values`` (the root for a lead, in C) against the Python root, with
    every card of the leader present, interchangeable ones included, down to the last
    trick."""
    twins = 0
    for tricks_left in range(1, 10):
        for seed in range(tricks_left * 1_000, tricks_left * 1_000 + 40):
            game = random_position(seed, tricks_left, False)
            if game is None:
                continue
            pos = solver.Position(game)
            me = game.current
            values = solver._accel.Searcher(pos.trump, pos.rev).lead_values(
                pos.avail[me], pos.avail[1 - me], pos.live, pos.remaining, pos.tricks)
            reference = solver._lead_values(pos, solver.make_search(pos.trump, pos.rev, {}))
            assert values == reference, (seed, tricks_left)
            twins += len(set(values.values())) < len(values)
    assert twins > 5  # some leads share a value (interchangeable cards among them)


def apart_only_by_own_cards(pos: solver.Position, me: int) -> list[tuple[int, int]]:
    """Pairs (a, b), a < b, of the playable cards of ``me`` (solver labels) of one class and
    one point value, neither with a face-down card under it, with a card of ``me`` of
    another kind between them and none of the opponent's (face-down ones included)."""
    pts, block = solver.TABLES[pos.trump][2], solver.TABLES[pos.trump][5]
    mine = pos.avail[me]
    theirs = pos.avail[1 - me]
    for c in range(36):
        if theirs >> c & 1:
            theirs |= pos.rev[c]
    held = mine
    for c in range(36):
        if mine >> c & 1:
            held |= pos.rev[c]
    cards = [c for c in range(36) if mine >> c & 1 and not pos.rev[c]]
    pairs = []
    for a in cards:
        for b in cards:
            between = (1 << b) - (2 << a)
            if (a < b and block[a] == block[b] and pts[a] == pts[b]
                    and not theirs & between
                    and any(pts[c] != pts[a] or pos.rev[c]
                            for c in range(a + 1, b) if held >> c & 1)):
                pairs.append((a, b))
    return pairs


@needs_c
def test_cards_of_one_kind_with_only_own_cards_between_share_a_value():
    """Two cards of one kind (class, points, none face down under them) with no card of the
    opponent between them are interchangeable even when the holder's own cards of other
    kinds lie between: the C root merges them, and both get the reference's value."""
    found = 0
    for seed in range(3_000):
        game = random_position(50_000 + seed, 3 + seed % 6, False)
        if game is None:
            continue
        pos = solver.Position(game)
        me = game.current
        pairs = apart_only_by_own_cards(pos, me)
        if not pairs:
            continue
        values = solver._accel.Searcher(pos.trump, pos.rev).lead_values(
            pos.avail[me], pos.avail[1 - me], pos.live, pos.remaining, pos.tricks)
        reference = solver._lead_values(pos, solver.make_search(pos.trump, pos.rev, {}))
        assert values == reference, (seed, pairs)
        assert all(values[a] == values[b] for a, b in pairs)
        found += 1
        if found == 20:
            break
    assert found == 20


@needs_c
def test_the_c_search_counts_its_nodes():
    game = random_position(11, 8, False)
    tt: dict = {}
    solver.solve_actions(game, tt)
    searcher = tt[solver._C_TABLE]
    first = searcher.nodes
    assert first > 10 and searcher.entries > 0
    solver.solve_actions(game, tt)  # the same world again: its table answers at once
    assert first < searcher.nodes < 2 * first


def test_the_pure_python_search_runs_without_the_accelerator(monkeypatch):
    """With the C search off (as without the extension), ``make_search`` does the work and
    the table holds its entries; with it on, the table holds one C searcher."""
    game = random_position(7, 6, False)
    made = []

    def counting(*args):
        made.append(args)
        return make_search(*args)

    make_search = solver.make_search
    monkeypatch.setattr(solver, "make_search", counting)
    monkeypatch.setattr(solver, "_accel", None)
    tt: dict = {}
    values = solver.solve_actions(game, tt)
    assert len(made) == 1 and len(tt) > 10 and all(isinstance(k, int) for k in tt)
    monkeypatch.undo()
    if solver.ACCELERATED:
        tt = {}
        assert solver.solve_actions(game, tt) == values
        assert list(tt) == [solver._C_TABLE] and tt[solver._C_TABLE].entries > 10


def test_the_c_search_is_built_where_a_c_compiler_is():
    if os.environ.get("WIDDERKOPF_PURE_PYTHON", "") not in ("", "0"):
        pytest.skip("WIDDERKOPF_PURE_PYTHON is set")
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here: the pure-Python search is used")
    assert solver.ACCELERATED


def test_pure_python_mode_turns_the_c_search_off(monkeypatch):
    monkeypatch.setenv("WIDDERKOPF_PURE_PYTHON", "1")
    assert solver._load_accelerator() is None


@needs_c
def test_a_stale_c_search_falls_back_to_python_with_a_warning(monkeypatch):
    from widderkopf_env.agents import _solver

    def stale(tables):
        raise ValueError("configure: pts must have 36 entries")

    monkeypatch.setattr(_solver, "configure", stale)
    with pytest.warns(RuntimeWarning, match="pure-Python search"):
        assert solver._load_accelerator() is None


@needs_c
def test_the_c_search_refuses_bad_tables_and_positions():
    from widderkopf_env.agents import _solver

    game = random_position(5, 5, False)
    pos = solver.Position(game)
    me, R = game.current, pos.remaining
    good = (pos.avail[me], pos.avail[1 - me], pos.live, R, pos.tricks, -1, R + 1)
    searcher = _solver.Searcher(pos.trump, pos.rev)
    rules, orders = list(core_tables()), [list(t[0]) for t in solver.TABLES]
    beats = list(rules[1])
    beats[2] = beats[2][:-1]  # a beats table one entry short
    swapped = [*orders[1][:14], orders[1][15], orders[1][14], *orders[1][16:]]
    try:
        with pytest.raises(ValueError, match="beats must have 1296 entries"):
            _solver.configure(rules[0], beats, *rules[2:], orders)
        with pytest.raises(RuntimeError, match="configure"):
            _solver.Searcher(pos.trump, pos.rev)
        with pytest.raises(ValueError, match="every card once"):
            _solver.configure(*rules, [orders[0], orders[1][:-1] + [0], *orders[2:]])
        with pytest.raises(ValueError, match="15 trumps"):  # a plain card among the trumps
            _solver.configure(*rules, [orders[0], swapped, *orders[2:]])
    finally:
        assert solver._load_accelerator() is _solver  # configured right again
    with pytest.raises(ValueError, match="trump"):
        _solver.Searcher(4, pos.rev)
    with pytest.raises(ValueError, match="rev"):
        _solver.Searcher(pos.trump, pos.rev[:35])
    with pytest.raises(ValueError, match="rev"):
        _solver.Searcher(pos.trump, [3] + [0] * 35)  # two cards under one
    with pytest.raises(TypeError):
        searcher.search(*good[:6])
    with pytest.raises(ValueError, match="36-bit"):
        searcher.search(1 << 36, *good[1:])
    with pytest.raises(ValueError, match="n cards"):
        searcher.search(*good[:4], pos.tricks + 1, *good[5:])  # not this many tricks
    with pytest.raises(ValueError, match="n cards"):
        searcher.search(good[0], good[0], *good[2:])  # both players holding the same cards
    assert searcher.search(*good) == solver.solve_value(game, me) - pos.base[me]
    with pytest.raises(TypeError, match="5 arguments"):
        searcher.lead_values(*good[:4])
    with pytest.raises(ValueError, match="n cards"):
        searcher.lead_values(*good[:4], pos.tricks - 1)
