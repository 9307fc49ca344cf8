"""Pictures of the table: rgb_array frames of both envs, RecordVideo, and no hidden card in
a player's picture (RULES R8)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from helpers import scripted  # DEAL after trumps (D), discards KS and 9C, lead JS
from indistinguishable import run_check

import widderkopf_env
from widderkopf_env import Game, card_name
from widderkopf_env.picture import HEIGHT, WIDTH, game_rgb, svg_of, table_of_game, table_of_view
from widderkopf_env.render import render_for_mode

pytest.importorskip("PIL", reason="pictures need Pillow: pip install 'widderkopf-env[render]'")

gymnasium = pytest.importorskip("gymnasium")

def cards_drawn(game: Game, perspective=None) -> set[str]:
    """The card faces a picture shows (each face is one ``data-card`` element)."""
    svg = svg_of(table_of_game(game, perspective))
    return {name for name in (card_name(c) for c in range(36)) if f'data-card="{name}"' in svg}


def test_frames_are_uint8_pictures_that_change_as_cards_are_played():
    env = widderkopf_env.env(render_mode="rgb_array")
    env.reset(seed=3)
    frames = [env.render()]
    for _ in range(6):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        frames.append(env.render())
    for frame in frames:
        assert frame.dtype == np.uint8 and frame.shape == (HEIGHT, WIDTH, 3)
        assert frame.std() > 20  # a picture, not a blank
    for a, b in zip(frames, frames[1:], strict=False):
        assert not np.array_equal(a, b)  # every decision changes the table
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0


def test_picture_shows_what_each_viewer_may_see():
    game = scripted()
    # spectator: both hands, all face-up cards, both discards; never a face-down card
    assert cards_drawn(game) == set(
        "AC 10C KC QS JD 8H 7H QC JC 9S 8S AD 10D KD AS 10S KH 9D 6C QH 7S 8D 9H JS "
        "KS 9C".split())
    # player_0: own hand and discard, face-up cards, the lead; not player_1's hand/discard
    assert cards_drawn(game, 0) == set(
        "AC 10C KC QS JD 8H 7H 9C AS 10S KH 9D 6C QH 7S 8D 9H JS".split())
    assert cards_drawn(game, "player_1") == set(
        "QC JC 9S 8S AD 10D KD KS AS 10S KH 9D 6C QH 7S 8D 9H JS".split())


def test_player_picture_is_the_same_whatever_the_hidden_cards():
    """R8: permuting the cards a player has not seen leaves their picture unchanged (the
    check of tests/core/test_no_leak.py, on the SVG, which fixes every primitive drawn)."""
    def picture(game, p):
        return svg_of(table_of_game(game, p)), np.zeros(1)

    stats = run_check(picture, n=200, seed=5)
    assert stats["leaks"] == 0, stats
    assert stats["nontrivial"] >= 150 and stats["phases"] >= {0, 1, 2, 3}, stats

    def spectator(game, p):  # the spectator's picture shows hidden cards: caught
        return svg_of(table_of_game(game, None)), np.zeros(1)

    assert run_check(spectator, n=60, seed=6)["leaks"] >= 30


def test_player_rgb_frame_is_identical_when_hidden_cards_are_permuted():
    def frame(game, p):
        return game_rgb(game, p), np.zeros(1)

    stats = run_check(frame, n=12, seed=7)
    assert stats["leaks"] == 0 and stats["nontrivial"] >= 8, stats

    def spectator(game, p):
        return game_rgb(game, None), np.zeros(1)

    assert run_check(spectator, n=6, seed=8)["leaks"] >= 3


def test_render_perspective_in_both_envs():
    aec = widderkopf_env.env(render_mode="rgb_array", render_perspective="player_1")
    aec.reset(seed=4)
    np.testing.assert_array_equal(aec.render(), game_rgb(aec.game, 1))
    gym = gymnasium.make("Widderkopf-v0", render_mode="rgb_array", render_perspective=0,
                         opponent="random")
    gym.reset(seed=4)
    np.testing.assert_array_equal(gym.render(), game_rgb(gym.unwrapped.game, 0))
    text = widderkopf_env.env(render_mode="ansi", render_perspective="player_0")
    text.reset(seed=4)
    assert "Opponent  hand:" in text.render()  # the player's text view
    for bad in ("player_2", 2, "me", True):
        with pytest.raises(ValueError, match="render_perspective must be"):
            widderkopf_env.env(render_mode="rgb_array", render_perspective=bad)
    with pytest.raises(ValueError, match="rgb_array"):
        widderkopf_env.env(render_mode="svg")
    with pytest.raises(RuntimeError, match="reset"):
        render_for_mode(None, "rgb_array")


def test_vector_env_renders_each_sub_env():
    envs = gymnasium.make_vec("Widderkopf-v0", num_envs=2, vectorization_mode="sync",
                              render_mode="rgb_array", opponent="random")
    envs.reset(seed=[1, 2])
    frames = envs.render()
    assert len(frames) == 2 and all(f.shape == (HEIGHT, WIDTH, 3) for f in frames)
    assert not np.array_equal(frames[0], frames[1])  # two different deals
    envs.close()


def test_record_video_writes_a_video_file(tmp_path):
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy: the [render] extra")
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make("Widderkopf-v0", render_mode="rgb_array", opponent="random")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True,
                      name_prefix="hand")
    obs, info = env.reset(seed=0)
    steps, done = 0, False
    while not done:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        obs, reward, terminated, truncated, info = env.step(action)
        steps, done = steps + 1, terminated or truncated
    env.close()
    videos = list((tmp_path / "videos").glob("hand-episode-0.mp4"))
    assert videos and videos[0].stat().st_size > 10_000, list(tmp_path.rglob("*"))
    import imageio.v2 as imageio  # comes with moviepy

    reader = imageio.get_reader(videos[0], "ffmpeg")
    assert reader.get_meta_data()["size"] == (WIDTH, HEIGHT)
    assert reader.count_frames() == steps + 1  # the reset frame and one per step
    reader.close()


def test_the_ecosystems_render_checkers_pass():
    """PettingZoo's render_test (every mode in metadata) and Gymnasium's check_env render
    check (every declared mode, made through the registered spec)."""
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import render_test

    render_test(lambda render_mode: widderkopf_env.env(render_mode=render_mode))
    env = gymnasium.make("Widderkopf-v0", opponent="random", render_mode="rgb_array")
    check_env(env.unwrapped)


def test_without_pillow_only_rgb_array_is_missing():
    """The core install has no Pillow: text rendering and replay pages (SVG) work, and
    rgb_array says which extra to install."""
    code = ("import sys; sys.modules['PIL'] = None\n"
            "import widderkopf_env\n"
            "from widderkopf_env.replay import replay_html\n"
            "e = widderkopf_env.env(render_mode='ansi'); e.reset(seed=1); e.render()\n"
            "replay_html(e.game)\n"
            "e = widderkopf_env.env(render_mode='rgb_array'); e.reset(seed=1)\n"
            "try:\n    e.render()\nexcept ImportError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "widderkopf-env[render]" in out.stdout


def _overlaps(texts) -> list:
    """The pairs of texts whose painted boxes (canvas.text_box) intersect."""
    from itertools import combinations

    from widderkopf_env.canvas import text_box

    boxes = [(t.text, text_box(t)) for t in texts]
    return [(a, b) for (a, p), (b, q) in combinations(boxes, 2)
            if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]


def test_the_header_texts_never_run_into_each_other():
    """At a hand's start "not named" stood under "No crack: x1"; every header state (no
    trump or a suit, each crack level by either player, long names, big numbers) keeps its
    texts apart, inside the picture, on the Pillow font the rgb_array frame is painted in."""
    from dataclasses import replace

    from widderkopf_env.canvas import text_box
    from widderkopf_env.picture import header_texts

    base = table_of_game(Game.new(seed=3))
    for trump in (-1, 0, 1, 2, 3):
        for level in range(5):
            for names in (("player_0", "player_1"), ("you", "bot")):
                for cracker in (0, 1):
                    table = replace(base, trump=trump, level=level, cracker=cracker,
                                    names=names, hand_no=99, num_hands=100,
                                    scores=(512, 1024))
                    texts = header_texts(table)
                    assert _overlaps(texts) == [], (trump, level, names)
                    assert all(0 <= text_box(t)[0] and text_box(t)[2] <= WIDTH
                               for t in texts)


def test_no_two_texts_of_a_picture_overlap_in_a_played_hand():
    from widderkopf_env.agents import HeuristicAgent
    from widderkopf_env.agents.arena import play_game
    from widderkopf_env.canvas import Text
    from widderkopf_env.picture import layout

    game = play_game(Game.new(seed=2026), (HeuristicAgent(), HeuristicAgent()))
    replay = game.replay(0)
    for i, action in enumerate([*game.history, None]):
        for viewer, names in ((None, None), (0, None), (1, ("bot", "you"))):
            table = (table_of_game(replay, viewer) if names is None else
                     table_of_view(replay.view(viewer), names=names))
            texts = [p for p in layout(table) if isinstance(p, Text)]
            assert _overlaps(texts) == [], (i, viewer)
        if action is not None:
            replay.apply(action)


def test_given_names_replace_the_seat_names_in_every_text():
    game = scripted()
    svg = svg_of(table_of_view(game.view(1), names=("bot", "you")))
    texts = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    assert "player_" not in texts and "you" in texts and "bot" in texts
    assert ">you: 0</text>" in svg and ">bot: 0</text>" in svg
    assert "player_0 (you)" in svg_of(table_of_game(game, 0))  # the env's picture
    with pytest.raises(ValueError, match="names must be two non-empty strings"):
        table_of_view(game.view(0), names=("you",))
