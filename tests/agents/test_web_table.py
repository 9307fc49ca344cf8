"""The browser table's match, record and command line (``widderkopf-play --web``):
what the bot saw is shown after the hand exactly as the bot saw it; the record goes to
the data folder (``XDG_DATA_HOME``) unless ``--no-record``; the rating is on the
ladder's scale; the command serves its page and stops on Ctrl-C."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from cli_helpers import default_sigint

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent
from widderkopf_env.agents.ladder import load_reference
from widderkopf_env.agents.play_cli import main as play_main
from widderkopf_env.agents.web_match import MoveRefused, WebMatch
from widderkopf_env.agents.web_record import MatchRecord, data_dir, match_entry, rate
from widderkopf_env.cli import UsageError
from widderkopf_env.picture import svg_of, table_of_view


class Spy(HeuristicAgent):
    """The heuristic bot, keeping every view it was given and its choice."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def act(self, view):
        action = super().act(view)
        self.seen.append((view, action))
        return action


def play_through(match: WebMatch) -> None:
    while not match.over:
        state = match.state()
        match.act(state["step"], state["legal"][-1]["action"])


@pytest.mark.parametrize("seat", [0, 1])
def test_what_the_bot_saw_is_what_it_was_given(seat):
    spy = Spy()
    match = WebMatch(Game.new(seed=21 + seat, num_hands=2), seat, spy, "heuristic", 21)
    with pytest.raises(MoveRefused, match="only a hand that is over"):
        match.review(0)  # the hand is not over: the bot's cards are hidden (R8)
    play_through(match)
    # one pair of names on the page: "you" and "the bot" (the seat is named in the title)
    words = " ".join(match.events + [line for h in range(len(match.game.results))
                                     for line in match.review(h)["result"]])
    assert "bot" in words and "opponent" not in words and "player_" not in words
    seen = list(spy.seen)
    for hand in range(len(match.game.results)):
        review = match.review(hand)
        frames, bot = review["frames"], review["bot"]
        assert bot == f"player_{1 - seat}"
        for decision in review["decisions"]:
            view, action = seen.pop(0)
            v = frames["views"][bot]
            picture = v["head"] + "".join(frames["parts"][k]
                                          for k in v["frames"][decision["step"]]) + "</svg>"
            assert picture == svg_of(table_of_view(view, names=match.names), standalone=False)
            assert decision["choice"].startswith("The bot ")
            assert len(decision["legal"]) == len(view.legal_actions())
        assert review["result"][0].startswith(f"Hand {hand + 1} over.")
        # each hand's replay opens on its deal, not on the previous hand's last move
        for view in ("spectator", "player_0", "player_1"):
            captions = frames["views"][view]["caption"]
            assert captions[0] == ("the deal" if hand == 0 else f"the deal of hand {hand + 1}")
            assert all("player_" not in c for c in captions)  # "you" and "bot" only
    assert seen == []  # every decision of the bot was shown, in order
    with pytest.raises(MoveRefused):
        match.review(len(match.game.results))


def test_the_record_goes_to_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert data_dir() == tmp_path / "data" / "widderkopf-env"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")  # ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "widderkopf-env"

    path = tmp_path / "data" / "widderkopf-env" / "matches.json"
    record = MatchRecord(path)
    match = WebMatch(Game.new(seed=4, num_hands=2), 0, HeuristicAgent(), "heuristic", 4)
    play_through(match)
    record.add(match_entry(match.game, 0, "heuristic", 4))
    header, *lines = path.read_text().splitlines()  # a journal: a header, a line a match
    assert json.loads(header) == {"format": "widderkopf-web-matches", "version": 2}
    doc = {"matches": [json.loads(line) for line in lines]}
    assert len(doc["matches"]) == 1
    entry = doc["matches"][0]
    assert entry["seed"] == 4 and len(entry["hands"]) == len(match.game.results)
    assert entry["scores"] == {"you": match.game.scores[0], "bot": match.game.scores[1]}
    assert [p.name for p in path.parent.iterdir()] == ["matches.json"]  # no temporary left
    assert MatchRecord(path).matches == doc["matches"]  # read back

    memory = MatchRecord(None)
    memory.add(entry)
    assert memory.matches == [entry] and len(list(path.parent.iterdir())) == 1

    path.write_text("{not json")
    with pytest.raises(UsageError, match="cannot be read.*--no-record"):
        MatchRecord(path)


def hands(won: int, lost: int, opponent: str = "heuristic", variant: str = "full") -> dict:
    return {"opponent": opponent, "variant": variant,
            "hands": [{"winner": "you"}] * won + [{"winner": "bot"}] * lost}


def test_the_rating_is_on_the_ladders_scale():
    players = load_reference()["players"]
    even = rate([hands(5, 5)])  # as strong as the bot: the bot's reference rating
    assert even["rating"] == round(players["heuristic"]["rating"])
    low, high = even["ci95"]
    assert low < even["rating"] < high and abs((high - even["rating"]) - (even["rating"] - low)) <= 1
    better = rate([hands(8, 2)])
    assert better["rating"] > even["rating"] and better["ci95"][0] > low
    more = rate([hands(40, 40)])  # more hands, a narrower interval
    assert more["ci95"][1] - more["ci95"][0] < high - low
    assert rate([hands(3, 0)])["ci95"][0] < rate([hands(3, 0)])["rating"]  # a width after a sweep
    mixed = rate([hands(5, 5), hands(2, 0, "net"), hands(1, 0, "random", "medium")])
    assert mixed["rating"] == even["rating"] and mixed["hands"] == 10
    assert mixed["unrated"] == ["net", "random (medium)"] and mixed["matches"] == 3
    assert rate([hands(1, 0, "net")])["rating"] is None


def test_web_options_need_web(capsys):
    for args in (["--no-browser"], ["--port", "0"], ["--host", "127.0.0.1"], ["--no-record"],
                 ["--web", "--host", "0.0.0.0", "--no-browser"]):
        with pytest.raises(SystemExit) as exit_status:
            play_main(args, stdin=io.StringIO(""), stdout=io.StringIO())
        assert exit_status.value.code == 2, args
        err = capsys.readouterr().err
        assert "go with --web" in err or "every network interface" in err, (args, err)


def test_a_port_in_use_is_a_usage_error(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SystemExit) as exit_status:
            play_main(["--web", "--no-browser", "--port", str(port)], stdout=io.StringIO())
    assert exit_status.value.code == 2
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err


def test_the_command_serves_its_page_and_stops_on_ctrl_c(tmp_path):
    env = os.environ | {"XDG_DATA_HOME": str(tmp_path)}
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "widderkopf_env.agents.play_cli", "--web", "--no-browser",
         "--seed", "3", "--opponent", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=default_sigint)
    try:
        line = proc.stdout.readline()
        url = line.split(": ", 1)[1].strip()
        assert url.startswith("http://127.0.0.1:") and "/?key=" in url, line
        with urllib.request.urlopen(url, timeout=30) as response:
            page = response.read().decode()
        served = time.monotonic() - start
        assert response.status == 200 and 'name="widderkopf-token"' in page
        assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")  # offline
        assert "Matches are recorded in " + str(tmp_path / "widderkopf-env") in \
            proc.stdout.readline() + proc.stdout.readline()
        print(f"first page served {served:.2f} s after the command started")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
