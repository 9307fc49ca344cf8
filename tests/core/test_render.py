"""Text rendering: the spectator table and one player's view (which must hide hidden cards)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from helpers import DEAL, scripted

from widderkopf_env import Game, Phase, card_glyph, from_bits, parse_card
from widderkopf_env.render import describe_action, legal_moves_text, render_game, render_view


def glyphs(names: str) -> list[str]:
    return [card_glyph(parse_card(n)) for n in names.split()]


def test_render_game_shows_the_whole_table():
    text = render_game(scripted())
    for g in glyphs("AC 10C KC QS JD 8H 7H QC JC 9S 8S AD 10D KD"):  # both hands
        assert g in text
    for g in glyphs("AS 10S KH 9D 6C QH 7S 8D 9H"):  # face-up cards
        assert f"[{g}]" in text
    assert text.count("[##]") == 10  # JH is still face down under the led JS (R14)
    for g in glyphs("QD JH 6H 7D 6D 8C 7C AH 10H 6S"):  # face-down cards are not shown
        assert g not in text
    assert "Trump: ♦ (named by player_1)" in text
    assert "Crack by player_0 (level 1, x2)" in text
    assert "Trick 1: player_1 led J♠" in text
    assert "discard: K♠" in text and "discard: 9♣" in text
    assert "Match score: player_0 0, player_1 0" in text
    assert "player_0 to act" in text


def test_render_game_reveal_shows_face_down_cards():
    text = render_game(scripted(), reveal=True)
    for g in glyphs("QD JH 6H 7D 6D 8C 7C AH 10H 6S"):
        assert f"({g})" in text


def test_render_view_hides_what_the_player_may_not_see():
    game = scripted()
    text = render_view(game.view(0))
    assert "Opponent  hand: 7 cards" in text
    for g in glyphs("AC 10C KC QS JD 8H 7H JS 9C"):  # own hand, the lead, own discard
        assert g in text
    for g in glyphs("QC JC 9S 8S AD 10D KD KS QD JH 6H 7D 6D 8C 7C AH 10H 6S"):
        assert g not in text  # opponent's hand and discard, every face-down card
    assert text.count("[##]") == 10
    assert "Crack by you (level 1, x2)" in text and "your turn" in text
    assert legal_moves_text(game.view(0)) in text
    assert f"[{parse_card('QS')}] Q♠" in text and f"[{parse_card('9D')}] 9♦" in text
    other = render_view(game.view(1))
    assert "Your move" not in other and "opponent to act" in other


def test_render_view_never_shows_an_unseen_card_in_random_play():
    rng = random.Random(0)
    for seed in range(30):
        game = Game.new(seed=seed, num_hands=2)
        while not game.is_over:
            for p in (0, 1):
                view = game.view(p)
                text = render_view(view)
                for c in from_bits(view.unseen):
                    assert card_glyph(c) not in text
            render_game(game)
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
        final = render_game(game)
        assert "match over" in final and "result" in final
        assert "result" in render_view(game.view(0))


def test_escalation_names_in_the_legal_moves():
    game = Game.from_deal(DEAL, dealer=0)
    assert "[36] trump ♣" in legal_moves_text(game.view(1))
    for action in (39, parse_card("KS"), parse_card("9C")):
        game.apply(action)
    assert "[40] Crack" in legal_moves_text(game.view(1))
    game.apply(40)
    assert "Recrack" in legal_moves_text(game.view(0)) and "[41] pass" in legal_moves_text(game.view(0))


def test_no_graphics_library_is_imported():
    tree = ast.parse(Path(render_game.__code__.co_filename).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "warnings"}, imported


def test_describe_action_names_each_kind_of_move_and_hides_a_discard():
    qc = parse_card("QC")
    assert describe_action(qc, Phase.PLAY, 0, "player_0") == f"player_0 plays {card_glyph(qc)}"
    assert describe_action(qc, Phase.DISCARD, 0, "Opponent") == f"Opponent discards {card_glyph(qc)}"
    assert describe_action(qc, Phase.DISCARD, 0, "Opponent", hide_discard=True) == \
        "Opponent discards a card"
    assert describe_action(38, Phase.TRUMP, 0, "player_1") == "player_1 names trump \u2665"
    assert describe_action(40, Phase.PLAY, 0, "player_1") == "player_1 says Crack"
    assert describe_action(40, Phase.ANSWER, 1, "player_0") == "player_0 says Recrack"
    assert describe_action(41, Phase.ANSWER, 1, "player_0") == "player_0 passes"
    # "you" (the browser table's review) takes the plain verb
    assert [describe_action(a, Phase.PLAY, 1, "you") for a in (qc, 40, 41)] == \
        [f"you play {card_glyph(qc)}", "you say Recrack", "you pass"]
    assert describe_action(qc, Phase.DISCARD, 0, "you") == f"you discard {card_glyph(qc)}"
    assert describe_action(38, Phase.TRUMP, 0, "you") == "you name trump \u2665"
    with pytest.raises(ValueError, match="action id must be in 0..41, got 42"):
        describe_action(42, Phase.PLAY, 0, "player_0")
