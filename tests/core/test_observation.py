"""The observation encoder: layout table, a scripted deal checked piece by piece, and the
fast bit-packing encoder against a plain reference encoder on random positions."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from helpers import ROOT

from widderkopf_env import Game, game_encoder, parse_card
from widderkopf_env.cards import TRUMP_MASK
from widderkopf_env.game_encoder import encode_game
from widderkopf_env.observation import (
    OBS_SIZE,
    OFFSETS,
    PIECES,
    action_mask,
    encode,
    encode_view,
    encode_with_mask,
    observation_table_markdown,
    offsets,
    piece,
    split,
)
from widderkopf_env.view import PlayerView

PAGE = ROOT / "docs" / "environments.md"  # the "Observation layout" section
ALL36 = (1 << 36) - 1


# --- the table ----------------------------------------------------------------------------

def test_table_offsets_are_contiguous_and_named_once():
    names = [name for name, _, _ in PIECES]
    assert len(names) == len(set(names))
    at = 0
    for name, size, text in PIECES:
        assert offsets()[name] == OFFSETS[name] == (at, size)
        assert size > 0 and text
        at += size
    assert at == OBS_SIZE


def test_docs_table_matches_the_code():
    text = PAGE.read_text(encoding="utf-8")
    match = re.search(r"<!-- obs-table:start -->\n(.*?)<!-- obs-table:end -->", text, re.S)
    assert match, "docs/environments.md lacks the obs-table markers"
    assert match.group(1) == observation_table_markdown()


def test_markdown_lists_every_piece_with_its_offset():
    md = observation_table_markdown()
    for name, size, _ in PIECES:
        assert f"| {OFFSETS[name][0]} | {size} | `{name}` |" in md
    assert str(OBS_SIZE) in md


# --- a scripted deal, every piece checked ---------------------------------------------------

DEAL = {
    "player_0": {"hand": "AC 10C KC 9C QS JD 8H 7H".split(),
                 "up": "AS 10S KH 9D 6C".split(), "down": "8C 7C AH 10H 6S".split()},
    "player_1": {"hand": "QC JC KS 9S 8S AD 10D KD".split(),
                 "up": "QH JS 7S 8D 9H".split(), "down": "QD JH 6H 7D 6D".split()},
}


def cards(names: str) -> list[int]:
    """A 36-entry 0/1 list with the named cards set."""
    out = [0] * 36
    for name in names.split():
        out[parse_card(name)] = 1
    return out


def unseen(seen: str) -> list[int]:
    return [1 - x for x in cards(seen)]


def onehot(i: int, n: int) -> list[int]:
    return [int(j == i) for j in range(n)]


def check(obs: np.ndarray, expected: dict) -> None:
    """Every piece of ``obs`` equals ``expected[name]`` (all pieces must be given)."""
    assert set(expected) == set(OFFSETS), set(OFFSETS) ^ set(expected)
    assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
    for name, want in expected.items():
        got = piece(obs, name)
        np.testing.assert_array_equal(got, np.asarray(want, np.float32), err_msg=name)


def start_expected() -> tuple[dict, dict]:
    """Both players' pieces in the trump phase of DEAL (dealer player_0)."""
    p1 = dict(
        hand=cards("QC JC KS 9S 8S AD 10D KD"), my_up=cards("QH JS 7S 8D 9H"),
        my_covered=cards("QH JS 7S 8D 9H"), opp_up=cards("AS 10S KH 9D 6C"),
        opp_covered=cards("AS 10S KH 9D 6C"), my_discard=cards(""), lead=cards(""),
        my_played=cards(""), opp_played=cards(""), my_won=cards(""), opp_won=cards(""),
        unseen=unseen("QC JC KS 9S 8S AD 10D KD QH JS 7S 8D 9H AS 10S KH 9D 6C"),
        trumps=cards(""), legal_cards=cards(""), pending=[0, 0], phase=onehot(0, 5), my_turn=[1], trump_suit=onehot(4, 5),
        crack_level=onehot(0, 5), cracker=[0, 0], roles=[0, 1, 1], opp_discarded=[0],
        tiebreak=[0], trick_points=[0, 0], tricks_done=[0], opp_hand_size=[1],
        face_down=[1, 1], match_scores=[0, 0], hands_left=[1 / 8])
    p0 = dict(p1)
    p0.update(
        hand=cards("AC 10C KC 9C QS JD 8H 7H"), my_up=p1["opp_up"], my_covered=p1["opp_up"],
        opp_up=p1["my_up"], opp_covered=p1["my_up"],
        unseen=unseen("AC 10C KC 9C QS JD 8H 7H QH JS 7S 8D 9H AS 10S KH 9D 6C"),
        my_turn=[0], roles=[1, 0, 0])
    return p0, p1


def observe(game: Game, player: int) -> np.ndarray:
    return encode(game.view(player))


def test_scripted_deal_every_piece():
    game = Game.from_deal(DEAL, dealer=0)
    p0, p1 = start_expected()
    # Trump phase: player_1 (non-dealer, scores tied) names trumps (R9).
    for p, exp in ((0, p0), (1, p1)):
        view = game.view(p)
        exp["may_escalate"] = [int(view.may_escalate[p]), int(view.may_escalate[1 - p])]
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)
    np.testing.assert_array_equal(action_mask(game.view(1)), [0] * 36 + [1, 1, 1, 1, 0, 0])
    assert not action_mask(game.view(0)).any()

    game.apply(39)  # trump D
    trumps = cards("QC QS QH QD JC JS JH JD AD 10D KD 9D 8D 7D 6D")
    # Discard phase: player_1 discards first (R10), from the hand only.
    for exp in (p0, p1):
        exp.update(trumps=trumps, trump_suit=onehot(3, 5), phase=onehot(1, 5),
                   may_escalate=[1, 1])
    p1["legal_cards"] = p1["hand"]
    check(observe(game, 1), p1)
    check(observe(game, 0), p0)

    game.apply(parse_card("KS"))
    p1.update(hand=cards("QC JC 9S 8S AD 10D KD"), my_discard=cards("KS"), my_turn=[0],
              legal_cards=cards(""))
    p0.update(my_turn=[1], opp_discarded=[1], opp_hand_size=[7 / 8],
              legal_cards=p0["hand"])
    check(observe(game, 1), p1)
    check(observe(game, 0), p0)  # KS stays in player_0's unseen (R8)

    game.apply(parse_card("9C"))
    p0.update(hand=cards("AC 10C KC QS JD 8H 7H"), my_discard=cards("9C"), my_turn=[0],
              legal_cards=cards(""), phase=onehot(2, 5))
    p0["unseen"][parse_card("9C")] = 0
    p1.update(my_turn=[1], opp_discarded=[1], opp_hand_size=[7 / 8], phase=onehot(2, 5),
              legal_cards=cards("QC JC 9S 8S AD 10D KD QH JS 7S 8D 9H"))
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)

    # player_1 leads JS from its pile 1; JH under it stays face down until the trick ends.
    game.apply(parse_card("JS"))
    p1.update(my_up=cards("QH 7S 8D 9H"), my_covered=cards("QH 7S 8D 9H"), lead=cards("JS"),
              my_played=cards("JS"), my_turn=[0], legal_cards=cards(""),
              may_escalate=[0, 1], pending=[1, 0])
    p0.update(opp_up=cards("QH 7S 8D 9H"), opp_covered=cards("QH 7S 8D 9H"),
              lead=cards("JS"), opp_played=cards("JS"), my_turn=[1],
              legal_cards=cards("QS JD 9D"), may_escalate=[1, 0],  # must follow trumps
              pending=[0, 1])
    assert p0["unseen"][parse_card("JH")] == 1
    check(observe(game, 0), p0)  # JH is pending: face_down still counts 5
    check(observe(game, 1), p1)
    np.testing.assert_array_equal(np.flatnonzero(action_mask(game.view(0))),
                                  sorted(parse_card(c) for c in "QS JD 9D".split()) + [40])

    # player_0 cracks; player_1 has played a card, so cannot answer (R11).
    game.apply(40)
    for exp in (p0, p1):
        exp.update(crack_level=onehot(1, 5), may_escalate=[0, 0])
    p0["cracker"], p1["cracker"] = [1, 0], [0, 1]
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)

    # player_0 follows with 9D from its pile 3 (10H under it); JS wins (jacks rank higher).
    game.apply(parse_card("9D"))
    p0.update(my_up=cards("AS 10S KH 6C 10H"), my_covered=cards("AS 10S KH 6C"),
              pending=[0, 0], face_down=[4 / 5, 4 / 5], opp_up=cards("QH JH 7S 8D 9H"),
              lead=cards(""), my_played=cards("9D"),
              opp_won=cards("JS 9D"), trick_points=[0, 2 / 121], tricks_done=[1 / 17],
              my_turn=[0], legal_cards=cards(""))
    for c in ("JH", "10H"):
        p0["unseen"][parse_card(c)] = 0
    p1.update(my_up=cards("QH JH 7S 8D 9H"), pending=[0, 0], face_down=[4 / 5, 4 / 5],
              opp_up=cards("AS 10S KH 6C 10H"), opp_covered=cards("AS 10S KH 6C"),
              lead=cards(""), opp_played=cards("9D"),
              my_won=cards("JS 9D"), trick_points=[2 / 121, 0], tricks_done=[1 / 17],
              my_turn=[1], roles=[0, 1, 1],
              legal_cards=cards("QC JC 9S 8S AD 10D KD QH JH 7S 8D 9H"))
    for c in ("JH", "10H", "9D"):
        p1["unseen"][parse_card(c)] = 0
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)


# --- the fast encoder against a plain one -----------------------------------------------------

def reference_encode(v: PlayerView) -> np.ndarray:
    """A slow, obvious encoder written from the table's descriptions."""
    p, o = v.player, v.opponent

    def bits(x: int) -> list[int]:
        return [(x >> c) & 1 for c in range(36)]

    tp, scores, t = v.trick_points, v.scores, v.trump
    if v.phase == 4:
        left = 0.0
    else:
        left = min(max(v.num_hands - v.hand_no, 1), 8) / 8
    pieces = {
        "hand": bits(v.hand), "my_up": bits(v.my_up), "my_covered": bits(v.my_covered),
        "opp_up": bits(v.opp_up), "opp_covered": bits(v.opp_covered),
        "my_discard": bits(1 << v.my_discard if v.my_discard >= 0 else 0),
        "lead": bits(1 << v.lead if v.lead >= 0 else 0),
        "my_played": bits(v.played[p]), "opp_played": bits(v.played[o]),
        "my_won": bits(v.won[p]), "opp_won": bits(v.won[o]), "unseen": bits(v.unseen),
        "trumps": bits(TRUMP_MASK[t] if t >= 0 else 0), "legal_cards": bits(v.legal & ALL36),
        "pending": [int(any(top < 0 and down for top, down in v.my_piles)),
                    int(any(top < 0 and down for top, down in v.opp_piles))],
        "phase": onehot(v.phase, 5), "my_turn": [int(v.current == p)],
        "trump_suit": onehot(t if t >= 0 else 4, 5), "crack_level": onehot(v.level, 5),
        "may_escalate": [int(v.may_escalate[p]), int(v.may_escalate[o])],
        "cracker": [int(v.cracker == p), int(v.cracker == o)],
        "roles": [int(v.dealer == p), int(v.chooser == p), int(v.leader == p)],
        "opp_discarded": [int(v.opp_discarded)],
        "tiebreak": [int(v.hand_no >= v.num_hands and v.phase != 4)],
        "trick_points": [tp[p] / 121, tp[o] / 121], "tricks_done": [len(v.tricks) / 17],
        "opp_hand_size": [v.hand_size_opp / 8],
        "face_down": [sum(down for _, down in v.my_piles) / 5,
                      sum(down for _, down in v.opp_piles) / 5],
        "match_scores": [scores[p] / (scores[p] + 8), scores[o] / (scores[o] + 8)],
        "hands_left": [left],
    }
    return np.concatenate([np.asarray(pieces[name], np.float32) for name, _, _ in PIECES])


def random_views(n_games: int, seed: int, num_hands: int = 1):
    """Views of both players at every decision of random matches."""
    rng = random.Random(seed)
    for i in range(n_games):
        game = Game.new(seed=seed * 1000 + i, num_hands=num_hands)
        while True:
            yield game.view(0)
            yield game.view(1)
            if game.is_over:
                break
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])


def random_positions(n_games: int, seed: int):
    """``(game, over)`` at every position of random matches of 1-3 hands, finished or not."""
    rng = random.Random(seed)
    for i in range(n_games):
        game = Game.new(seed=seed * 1000 + i, num_hands=rng.choice([1, 2, 3]),
                        scores=rng.choice([(0, 0), (0, 0), (3, 1), (200, 7)]))
        while True:
            yield game, rng.random() < 0.05
            if game.is_over:
                break
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])


@pytest.mark.parametrize("num_hands", [1, 2])
def test_fast_encoder_equals_reference(num_hands):
    tiebreaks = overs = 0
    for view in random_views(40, seed=num_hands, num_hands=num_hands):
        obs = encode(view)
        np.testing.assert_array_equal(obs, reference_encode(view))
        mask = action_mask(view)
        assert mask.dtype == np.int8 and mask.shape == (42,)
        np.testing.assert_array_equal(mask, [(view.legal >> a) & 1 for a in range(42)])
        both = encode_with_mask(view)
        np.testing.assert_array_equal(both[0], obs)
        np.testing.assert_array_equal(both[1], mask)
        assert both[1].dtype == np.int8
        assert obs.min() >= 0.0 and obs.max() <= 1.0
        for name in ("phase", "trump_suit", "crack_level"):
            assert piece(obs, name).sum() == 1
        tiebreaks += piece(obs, "tiebreak")[0] == 1
        overs += view.phase == 4
    assert overs == 80
    if num_hands == 2:
        assert tiebreaks > 0, "no tie-break hand among the samples"


def test_arrays_are_fresh_and_writable():
    game = Game.new(seed=5)
    view = game.view(game.current)
    a, b = encode(view), encode(view)
    assert a is not b and not np.shares_memory(a, b)
    a[:] = 7
    np.testing.assert_array_equal(b, encode(view))
    m1, m2 = action_mask(view), action_mask(view)
    m1[:] = 0
    assert m2.any()
    obs, mask = encode_with_mask(view)
    assert not np.shares_memory(obs, mask)
    mask[:] = 0
    assert action_mask(view).any()


def test_split_gives_named_views():
    obs = encode(Game.new(seed=1).view(0))
    parts = split(obs)
    assert list(parts) == [name for name, _, _ in PIECES]
    assert sum(len(x) for x in parts.values()) == OBS_SIZE
    parts["hand"][:] = 0
    assert piece(obs, "hand").sum() == 0


def test_encoder_reads_only_the_view():
    """encode() works on a PlayerView with no game behind it (a bare copy of its fields)."""
    view = Game.new(seed=9).view(1)
    bare = PlayerView.__new__(PlayerView)
    for field in PlayerView.__slots__:
        setattr(bare, field, getattr(view, field))
    np.testing.assert_array_equal(encode(bare), encode(view))



# --- the envs' path: encode_game on the live game -------------------------------------------

def test_game_path_equals_view_path_at_every_position():
    """encode_game(game) == encode_with_mask(view) for both players at every position.

    The view path is the reference encoder, which reads nothing but the view, so
    agreement means the fast encoder used nothing the view does not have.
    """
    positions = tiebreaks = overs = 0
    for game, _ in random_positions(120, seed=3):
        for p in (0, 1):
            obs, mask = encode_game(game, p)
            ref_obs, ref_mask = encode_with_mask(game.view(p))
            np.testing.assert_array_equal(obs, ref_obs)
            np.testing.assert_array_equal(mask, ref_mask)
            assert obs.dtype == np.float32 and mask.dtype == np.int8
            positions += 1
        tiebreaks += game.hand_no >= game.num_hands and not game.is_over
        overs += game.is_over
    assert positions > 10_000 and tiebreaks > 0 and overs == 120


def test_path_comparison_catches_an_encoder_reading_hidden_cards():
    """The check above has teeth: an encoder that peeks at the opponent's hand (here it
    writes it into the ``unseen`` piece) differs from the reference on the view."""

    def leaky(game, p):
        obs, _ = encode_game(game, p)
        hand = game.hand[1 - p]
        piece(obs, "unseen")[:] = [(hand >> c) & 1 for c in range(36)]
        return obs

    game = Game.new(seed=4)
    assert not np.array_equal(leaky(game, 0), encode_view(game.view(0))[0])


def test_over_flag_clears_mask_and_legal_cards_only():
    game = Game.new(seed=8)
    game.apply(game.legal_actions()[0])  # trumps named: the next player discards a card
    p = game.current
    obs, mask = encode_game(game, p, over=True)
    live_obs, live_mask = encode_game(game, p)
    assert live_mask.any() and piece(live_obs, "legal_cards").any()
    assert not mask.any() and not piece(obs, "legal_cards").any()
    start, size = OFFSETS["legal_cards"]
    keep = np.r_[0:start, start + size:OBS_SIZE]
    np.testing.assert_array_equal(obs[keep], live_obs[keep])


# --- the optional C accelerator -------------------------------------------------------------

needs_speedups = pytest.mark.skipif(not game_encoder.ACCELERATED,
                                    reason="the C accelerator is not built or is disabled")


@needs_speedups
def test_accelerator_equals_python_encoder_at_every_position():
    """The C encoder and the pure-Python one give identical arrays for both players,
    with and without ``over``."""
    positions = 0
    for game, over in random_positions(150, seed=7):
        for p in (0, 1):
            c_obs, c_mask = game_encoder._encode_c(game, p, over)
            py_obs, py_mask = game_encoder._encode_py(game, p, over)
            assert c_obs.dtype == py_obs.dtype == np.float32 and c_obs.shape == (OBS_SIZE,)
            assert c_mask.dtype == py_mask.dtype == np.int8 and c_mask.shape == (42,)
            assert c_obs.tobytes() == py_obs.tobytes()  # bit for bit
            np.testing.assert_array_equal(c_mask, py_mask)
            positions += 1
    assert positions > 20_000


@needs_speedups
def test_accelerator_arrays_are_ordinary_numpy_arrays():
    game = Game.new(seed=3)
    obs, mask = game_encoder._encode_c(game, game.current)
    obs2, _ = game_encoder._encode_c(game, game.current)
    for a in (obs, mask):
        assert a.flags.writeable and a.flags.aligned and a.flags.c_contiguous
    assert not np.shares_memory(obs, obs2)
    obs[:] = 2
    assert obs2.max() == 1.0


@needs_speedups
def test_accelerator_rejects_bad_input_with_exceptions():
    from widderkopf_env import _speedups

    game = Game.new(seed=3)
    with pytest.raises(ValueError, match="player"):
        _speedups.encode(game, 2, False)
    with pytest.raises(AttributeError):
        _speedups.encode(object(), 0, False)
    with pytest.raises(TypeError):
        _speedups.encode(game, 0)
    broken = game.clone()
    broken.trump = 7
    with pytest.raises(ValueError, match="out of range"):
        _speedups.encode(broken, 0, False)


def test_accelerator_is_built_where_a_c_compiler_is():
    """An install with a C compiler must have built the accelerator (a silent fallback
    would halve the env's speed unnoticed)."""
    if os.environ.get("WIDDERKOPF_PURE_PYTHON", "") not in ("", "0"):
        pytest.skip("WIDDERKOPF_PURE_PYTHON is set")
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here: the pure-Python encoder is used")
    assert game_encoder.ACCELERATED


def test_pure_python_mode_runs_the_env(tmp_path):
    """With WIDDERKOPF_PURE_PYTHON=1 the pure-Python encoder runs, and the env still
    passes PettingZoo's API test."""
    script = (
        "from widderkopf_env import game_encoder, env\n"
        "from pettingzoo.test import api_test\n"
        "assert not game_encoder.ACCELERATED\n"
        "assert game_encoder.encode_game is game_encoder._encode_py\n"
        "api_test(env(), num_cycles=200)\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "WIDDERKOPF_PURE_PYTHON": "1"}, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")


@needs_speedups
def test_a_stale_accelerator_falls_back_to_python_with_a_warning(monkeypatch):
    from widderkopf_env import _speedups

    def stale(*args):
        raise ValueError("configure: the layout does not match _speedups.c")

    monkeypatch.setattr(_speedups, "configure", stale)
    with pytest.warns(RuntimeWarning, match="pure-Python encoder"):
        assert game_encoder._load_speedups() is None


@needs_speedups
def test_accelerator_refuses_a_layout_it_was_not_written_for():
    """A layout change in PIECES without the matching change in _speedups.c is refused
    (and _load_speedups then warns and falls back), never run."""
    from widderkopf_env import _speedups

    table = dict(OFFSETS)
    table["phase"] = (OFFSETS["phase"][0], 6)
    try:
        with pytest.raises(ValueError, match="piece phase must be"):
            _speedups.configure(table, OBS_SIZE, 42, tuple(TRUMP_MASK))
        with pytest.raises(RuntimeError, match="configure"):
            _speedups.encode(Game.new(seed=1), 0, False)
    finally:
        assert game_encoder._load_speedups() is _speedups  # configured right again
    obs, _ = game_encoder._encode_c(Game.new(seed=1), 0)
    np.testing.assert_array_equal(obs, game_encoder._encode_py(Game.new(seed=1), 0)[0])

