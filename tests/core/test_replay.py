"""Replay pages (widderkopf-replay) and the games widderkopf-eval --save-games keeps."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widderkopf_env import Game
from widderkopf_env.agents.arena import play_pair
from widderkopf_env.agents.eval_cli import main as eval_main
from widderkopf_env.agents.game_files import biggest_losses, game_path
from widderkopf_env.agents.web_match import WebMatch
from widderkopf_env.deals import deal_to_spec, seeded_deal
from widderkopf_env.picture import svg_of, table_of_game, table_of_view
from widderkopf_env.replay import frames, replay_html
from widderkopf_env.replay import main as replay_main


def played(seed: int = 5, num_hands: int = 2) -> Game:
    """A match with cracks, played by always taking the first legal action."""
    game = Game.new(seed=seed, num_hands=num_hands)
    while not game.is_over:
        actions = game.legal_actions()
        game.apply(40 if 40 in actions and len(game.history) < 6 else actions[0])
    return game


def randomly_played(seed: int, num_hands: int, variant=None) -> Game:
    """A match played to its end by ``random.Random(seed)`` choosing every decision."""
    game, rng = Game.new(seed=seed, num_hands=num_hands, variant=variant), random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


def replay_data(html: str) -> dict:
    """The page's data, each view's pictures assembled as the page's script does."""
    data = json.loads(re.search(r"const REPLAY = (.*?);\n", html).group(1))
    parts = data["frames"]["parts"]
    data["views"] = {name: {"caption": v["caption"],
                            "svg": [v["head"] + "".join(parts[k] for k in frame) + "</svg>"
                                    for frame in v["frames"]]}
                     for name, v in data["frames"]["views"].items()}
    return data


def test_replay_page_steps_through_every_decision_in_every_view():
    game = played()
    data = replay_data(replay_html(game))
    steps = len(game.history) + 1
    assert data["steps"] == steps
    replay = Game.from_json(json.dumps(json.loads(game.to_json()) | {"actions": []}))
    for i in range(steps):
        if i:
            replay.apply(game.history[i - 1])
        for view, perspective in (("spectator", None), ("player_0", 0), ("player_1", 1)):
            assert data["views"][view]["svg"][i] == svg_of(table_of_game(replay, perspective),
                                                          standalone=False), (view, i)
    assert replay.state_dict() == game.state_dict()


def test_frames_of_some_steps_are_those_steps_of_the_whole_game():
    """``frames(game, start, stop)``: steps ``start..stop`` only (the browser table shows
    one finished hand so, never the next hand's deal)."""
    game = played()

    def pictures(out, view):
        v, parts = out["views"][view], out["parts"]
        return [v["head"] + "".join(parts[k] for k in f) + "</svg>" for f in v["frames"]]

    whole = frames(game)
    for start, stop in ((0, 5), (7, 30), (len(game.history) - 3, None)):
        some = frames(game, start=start, stop=stop)
        end = len(game.history) if stop is None else stop
        for view in ("spectator", "player_0", "player_1"):
            assert pictures(some, view) == pictures(whole, view)[start:end + 1]
            assert some["views"][view]["caption"] == whole["views"][view]["caption"][start:end + 1]
        assert set(some["parts"]) <= set(whole["parts"])


def assert_frames_are_the_match(data: dict, game: Game) -> None:
    """Every step of ``game`` is in the page's data: the picture of the table after the
    first ``i`` decisions in every view, and each hand's end in the captions."""
    assert data["steps"] == len(game.history) + 1
    for i in range(len(game.history) + 1):
        step = game.replay(i)
        for view, perspective in (("spectator", None), ("player_0", 0), ("player_1", 1)):
            assert data["views"][view]["svg"][i] == svg_of(table_of_game(step, perspective),
                                                          standalone=False), (view, i)
    ends = [c for c in data["views"]["spectator"]["caption"] if " over: player_" in c]
    assert [c.split("hand ")[-1].split(" over")[0] for c in ends] == \
        [str(r.hand + 1) for r in game.results]


def test_a_match_with_a_tie_break_hand_replays_from_the_command_line(tmp_path, capsys):
    """Issue 57 item 2: a match tied after its hands goes on (R20); its file has more deals
    than ``num_hands`` and the page shows every hand, the tie-break's too."""
    game = randomly_played(seed=6, num_hands=2)
    assert game.scores == [2, 1] and len(game.results) == 3 and len(game.deals) == 3
    source = tmp_path / "tb.json"
    source.write_text(game.to_json())
    assert replay_main([str(source), "-o", str(tmp_path / "tb.html")]) == 0
    assert "wrote" in capsys.readouterr().out
    data = replay_data((tmp_path / "tb.html").read_text())
    assert_frames_are_the_match(data, game)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**64), num_hands=st.integers(1, 4),
       variant=st.sampled_from(["tiny", "full"]))
def test_every_finished_match_round_trips_through_its_file_to_the_replay(seed, num_hands,
                                                                          variant):
    game = randomly_played(seed, num_hands, variant)
    loaded = Game.from_json(game.to_json())
    assert loaded.state_dict() == game.state_dict()
    whole = frames(loaded)
    for view in whole["views"].values():
        assert len(view["frames"]) == len(view["caption"]) == len(game.history) + 1


@pytest.mark.parametrize(("seed", "num_hands", "hands"), [(6, 2, 3), (11, 3, 4), (3, 4, 5)])
def test_tie_break_matches_round_trip_through_their_file_to_the_replay(seed, num_hands, hands):
    game = randomly_played(seed, num_hands)
    assert len(game.results) == hands > num_hands  # a tie-break hand was played
    loaded = Game.from_json(game.to_json())
    assert loaded.state_dict() == game.state_dict()
    assert_frames_are_the_match(replay_data(replay_html(loaded)), game)


def test_a_hand_dealt_by_the_caller_replays_with_that_deal():
    """A later hand dealt with :meth:`Game.deal_hand` (not from the seed) is shown so."""
    game = Game.new(seed=3, num_hands=2)
    rng = random.Random(3)
    while not game.results:
        game.apply(rng.choice(game.legal_actions()))
    game.deal_hand(deal_to_spec(game.deals[0]))
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert game.deals[1] == game.deals[0] != seeded_deal(3, 1)
    assert_frames_are_the_match(replay_data(replay_html(game)), game)


class RandomBot:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def act(self, view):
        return self.rng.choice(view.legal_actions())


def test_the_browser_reviews_every_hand_of_a_tie_break_match():
    """The browser table's review rebuilds a hand through :func:`frames` too."""
    rng = random.Random(7)
    match = WebMatch(Game.new(seed=7, num_hands=2), 0, RandomBot(7), "random", 7)
    while not match.over:
        state = match.state()
        match.act(state["step"], rng.choice(state["legal"])["action"])
    game = match.game
    assert len(game.results) == 3
    for hand in range(3):
        review = match.review(hand)
        start, end = match.hand_starts[hand], match.hand_starts[hand + 1]
        last = end if hand == 2 else end - 1  # the match's last hand ends on its last card
        view, parts = review["frames"]["views"]["spectator"], review["frames"]["parts"]
        assert len(view["frames"]) == last - start + 1
        for j, frame in enumerate(view["frames"]):
            picture = view["head"] + "".join(parts[k] for k in frame) + "</svg>"
            at = game.replay(start + j)  # the page names the players "you" and "bot"
            table = table_of_view(None, (at.view(0), at.view(1)), match.names)
            assert picture == svg_of(table, standalone=False), (hand, j)


def test_replay_captions_hide_the_opponents_discard():
    game = played(num_hands=1)
    data = replay_data(replay_html(game))
    discards = [i + 1 for i, _ in enumerate(game.history)
                if "discards" in data["views"]["spectator"]["caption"][i + 1]]
    assert len(discards) == 2
    for step in discards:
        spectator = data["views"]["spectator"]["caption"][step]
        maker = int(spectator[len("player_")])
        assert re.fullmatch(r"player_\d discards \S+", spectator)
        assert data["views"][f"player_{maker}"]["caption"][step] == spectator
        assert data["views"][f"player_{1 - maker}"]["caption"][step] == \
            f"player_{maker} discards a card"


def test_replay_page_is_self_contained():
    html = replay_html(played(num_hands=1))
    # the only URL is the SVG namespace name, which is never fetched
    assert set(re.findall(r"https?://[^\\\"' ]*", html)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<link|<img|<iframe|\ssrc=|@import|url\(", html)
    # every card a picture uses is defined once in the page
    used = set(re.findall(r'href=\\?"#(card\d+|back)', html))
    defined = set(re.findall(r'<symbol id="(card\d+|back)"', html))
    assert used and used <= defined and len(defined) == 37


def test_replay_cli_writes_the_page_and_rejects_bad_input(tmp_path, capsys):
    source = tmp_path / "game.json"
    source.write_text(played(num_hands=1).to_json())
    assert replay_main([str(source)]) == 0
    assert (tmp_path / "game.html").read_text().startswith("<!DOCTYPE html>")
    assert replay_main([str(source), "-o", str(tmp_path / "other.html")]) == 0
    assert (tmp_path / "other.html").exists()
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    for argv, message in (([str(tmp_path / "missing.json")], "cannot read"),
                          ([str(tmp_path / "bad.json")], "not a saved widderkopf game"),
                          ([str(source), "-o", str(tmp_path / "no" / "x.html")],
                           "cannot write")):
        with pytest.raises(SystemExit) as exit_info:
            replay_main(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and "usage:" in err


@pytest.mark.parametrize("workers", [1, 2])
def test_eval_save_games_keeps_every_game_and_names_the_biggest_losses(
        tmp_path, capsys, workers):
    out = tmp_path / "games"
    assert eval_main(["random", "heuristic", "--pairs", "3", "--seed", "4", "--workers",
                      str(workers), "--no-progress", "--json", "--save-games", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert len(list(out.iterdir())) == 6
    from widderkopf_env.agents import load_agent

    points = []
    for index in range(3):
        records = play_pair(load_agent("random"), load_agent("heuristic"), 4, index)
        for k in (0, 1):
            game = Game.from_json(game_path(out, index, k).read_text())
            assert game.is_over and game.returns()[0] == records[k][0]
            points.append((records[k][0], str(game_path(out, index, k))))
    worst = sorted(p for p in points if p[0] < 0)[:5]
    assert [(g["a_points"], g["file"]) for g in summary["biggest_losses"]] == worst
    assert summary["saved_games"] == str(out) and summary["hands"] == 6
    assert biggest_losses(out, 3, count=1) == summary["biggest_losses"][:1]
    eval_main(["random", "heuristic", "--pairs", "3", "--seed", "4", "--workers", "1",
               "--no-progress", "--save-games", str(out)])
    text = capsys.readouterr().out
    assert "Biggest losses of random" in text and summary["biggest_losses"][0]["file"] in text
