"""The observation layout (RULES R8): the table of named pieces, the docs' copy of it,
and what every observation of the reference encoder looks like (ranges, one-hots, the
mask, fresh arrays, nothing read but the view)."""

from __future__ import annotations

import re

import numpy as np
from helpers import ROOT, walk_matches

from widderkopf_env import Game, Phase
from widderkopf_env.cards import NUM_ACTIONS, NUM_CARDS
from widderkopf_env.observation import (
    CARD_PIECES,
    FLAG_PIECES,
    OBS_SIZE,
    OFFSETS,
    PIECES,
    SCALED_PIECES,
    action_mask,
    encode,
    encode_with_mask,
    observation_table_markdown,
    offsets,
    piece,
    split,
)
from widderkopf_env.view import PlayerView

PAGE = ROOT / "docs" / "environments.md"  # the "Observation layout" section


def test_table_offsets_are_contiguous_and_named_once():
    names = [name for name, _, _ in PIECES]
    assert len(names) == len(set(names))
    at = 0
    for name, size, text in PIECES:
        assert offsets()[name] == OFFSETS[name] == (at, size)
        assert size > 0 and text
        at += size
    assert at == OBS_SIZE


def test_pieces_are_card_sets_then_flags_then_scaled_numbers():
    assert PIECES == CARD_PIECES + FLAG_PIECES + SCALED_PIECES
    assert all(size == NUM_CARDS for _, size, _ in CARD_PIECES)


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


def test_every_observation_has_the_tables_shape():
    """At every position of random matches, for both players: entries in [0, 1], only
    the scaled pieces hold other values than 0 and 1, each one-hot has one entry set,
    and the mask is the legal action set."""
    binary = np.ones(OBS_SIZE, bool)
    for name, _, _ in SCALED_PIECES:
        piece(binary, name)[:] = False
    positions = tiebreaks = overs = 0
    for game, _ in walk_matches(60, seed=11):
        for p in (0, 1):
            view = game.view(p)
            obs = encode(view)
            assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            assert set(np.unique(obs[binary])) <= {0.0, 1.0}
            for name in ("phase", "trump_suit", "crack_level"):
                assert piece(obs, name).sum() == 1
            mask = action_mask(view)
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            np.testing.assert_array_equal(mask, [(view.legal >> a) & 1
                                                 for a in range(NUM_ACTIONS)])
            both = encode_with_mask(view)
            np.testing.assert_array_equal(both[0], obs)
            np.testing.assert_array_equal(both[1], mask)
            assert both[1].dtype == np.int8
            positions += 1
            tiebreaks += piece(obs, "tiebreak")[0] == 1
            overs += view.phase == Phase.OVER
    assert positions > 5000 and tiebreaks > 0 and overs == 120


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
