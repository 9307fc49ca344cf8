"""The two command-line tools: widderkopf-eval (--json) and widderkopf-play (scripted)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest
from cli_helpers import default_sigint

from widderkopf_env import Game, parse_card
from widderkopf_env.agents import HeuristicAgent
from widderkopf_env.agents.eval_cli import main as eval_main
from widderkopf_env.agents.play_cli import main as play_main
from widderkopf_env.agents.play_cli import parse_move
from widderkopf_env.cards import ESCALATE, PASS, SUITS, TRUMP_ACTION, card_name
from widderkopf_env.rules import Phase

REQUIRED = {"mean", "ci95", "win_rate", "hands", "seconds"}


# --- widderkopf-eval -------------------------------------------------------------------------

def test_eval_json_last_line(capsys):
    assert eval_main(["heuristic", "random", "--pairs", "10", "--seed", "4", "--workers", "1",
                      "--json", "--no-progress"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    data = json.loads(last)
    assert REQUIRED <= set(data)
    assert data["hands"] == 20 and data["pairs"] == 10 and len(data["ci95"]) == 2
    assert data["ci95"][0] <= data["mean"] <= data["ci95"][1]


def test_eval_hands_counts_both_games_of_a_pair(capsys):
    eval_main(["random", "heuristic", "--hands", "16", "--seed", "2", "--workers", "1", "--json"])
    by_hands = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    eval_main(["random", "heuristic", "--pairs", "8", "--seed", "2", "--workers", "2", "--json"])
    by_pairs = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for d in (by_hands, by_pairs):
        del d["seconds"], d["workers"]
    assert by_hands == by_pairs and by_hands["hands"] == 16


def test_eval_table_and_errors(capsys):
    eval_main(["heuristic", "random", "--pairs", "3", "--workers", "1"])
    assert "A game points per hand" in capsys.readouterr().out
    for argv in (["heuristic", "nobody"], ["random", "random", "--hands", "5"],
                 ["random", "random", "--pairs", "0"], ["random", "random", "--pairs", "2",
                                                        "--hands", "4"]):
        with pytest.raises(SystemExit) as err:
            eval_main(argv)
        assert err.value.code == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_eval_runs_as_a_module():
    out = subprocess.run(
        [sys.executable, "-m", "widderkopf_env.agents.eval_cli", "random", "random",
         "--pairs", "4", "--workers", "1", "--json"],
        capture_output=True, text=True, timeout=120, check=True).stdout
    assert REQUIRED <= set(json.loads(out.strip().splitlines()[-1]))


# --- widderkopf-play -------------------------------------------------------------------------

MOVE_LINE = re.compile(r"\[(\d+)\] ")


class ScriptedPlayer(io.StringIO):
    """A stdin that reads the moves the CLI last printed and answers with the first one,
    alternately by number, by card name ("10d", "TD", "QC") or suit word; the answers in
    ``bad`` come first, each before a real move, and must be rejected."""

    def __init__(self, out: io.StringIO, bad=()):
        super().__init__()
        self.out, self.bad, self.prompts, self.style = out, list(bad), 0, 0

    def readline(self, *args) -> str:
        self.prompts += 1
        if self.bad:
            return self.bad.pop(0) + "\n"
        text = self.out.getvalue()
        moves = [int(m) for m in MOVE_LINE.findall(text.rsplit("Your move:", 1)[1]
                                                   .splitlines()[0])]
        cards = [m for m in moves if m < 36]
        self.style += 1
        if cards and self.style % 3:
            name = card_name(cards[-1])
            return (name.lower() if self.style % 2 else name.replace("10", "T")) + "\n"
        if moves[0] in range(TRUMP_ACTION, TRUMP_ACTION + 4):
            return ("hearts", "h", "Clubs", "d")[self.style % 4] + "\n"
        if ESCALATE in moves and PASS in moves:
            return "pass\n"
        return f"{moves[0]}\n"


def run_play(argv, bad=()):
    out = io.StringIO()
    stdin = ScriptedPlayer(out, bad)
    assert play_main(argv, stdin=stdin, stdout=out) == 0
    return out.getvalue(), stdin


@pytest.mark.parametrize("seat", [0, 1])
def test_play_a_whole_hand_against_the_random_bot(seat):
    text, stdin = run_play(["--opponent", "random", "--seed", "21", "--seat", str(seat)])
    assert "Hand 1 over" in text and "Match over" in text
    points = re.search(r"Card points: you (\d+), opponent (\d+)", text)
    assert int(points[1]) + int(points[2]) == 121  # R17
    assert text.count("Trick: ") == 17 and "Opponent plays" in text
    assert "Not accepted" not in text
    assert stdin.prompts >= 8  # at least the discard and one card per trick


@pytest.mark.parametrize("variant", ["tiny", "small", "medium"])
def test_play_deals_the_variant(variant):
    from widderkopf_env import VARIANTS

    v = VARIANTS[variant]
    text, _ = run_play(["--opponent", "random", "--seed", "21", "--num-hands", "2",
                        "--variant", variant])
    assert v.describe() in text.splitlines()[0]
    assert text.count("Trick: ") == 2 * v.tricks and "Hand 2 over" in text
    for mine, theirs in re.findall(r"Card points: you (\d+), opponent (\d+)", text):
        assert int(mine) + int(theirs) == v.total_points  # R17 on the variant's cards
    assert ("Spitzer to" in text) == v.spitzer


def test_play_refuses_an_unknown_variant(capsys):
    with pytest.raises(SystemExit) as exit_info:
        play_main(["--variant", "huge"], stdin=io.StringIO(""), stdout=io.StringIO())
    assert exit_info.value.code == 2
    assert "--variant: invalid choice: 'huge'" in capsys.readouterr().err


def test_bad_inputs_are_rejected_and_asked_again():
    bad = ["", "hello", "99", "42", "ZZ", "10X", "crack around", "help"]
    text, stdin = run_play(["--opponent", "random", "--seed", "21", "--num-hands", "2"], bad=bad)
    assert text.count("Not accepted") == len(bad) - 1  # 'help' is not an error
    assert "Enter a card" in text  # the help text
    assert "Hand 2 over" in text and "Match over" in text


def test_end_of_input_and_quit_exit_cleanly():
    out = io.StringIO()
    assert play_main(["--seed", "1"], stdin=io.StringIO(""), stdout=out) == 0
    assert "Bye." in out.getvalue().rstrip().splitlines()[-2]
    out = io.StringIO()
    assert play_main(["--seed", "1"], stdin=io.StringIO("quit\n"), stdout=out) == 0
    assert "Bye." in out.getvalue() and "Hand 1 over" not in out.getvalue()


def test_play_shows_the_bots_moves_but_not_its_discard():
    text, _ = run_play(["--opponent", "heuristic", "--seed", "8", "--seat", "1"])
    assert "Opponent discards a card." in text
    assert re.search(r"Opponent (names trump|plays) ", text)


def test_parse_move_words_names_and_numbers():
    game = Game.new(seed=3)  # first decision: trump choice
    view = game.view(game.current)
    assert parse_move("hearts", view) == TRUMP_ACTION + SUITS.index("H")
    assert parse_move(" H ", view) == parse_move("trump h", view) == TRUMP_ACTION + 2
    assert parse_move(str(TRUMP_ACTION), view) == TRUMP_ACTION
    with pytest.raises(ValueError, match="trump suit"):
        parse_move("QC", view)
    while game.phase != Phase.PLAY:
        game.apply(HeuristicAgent().act(game.view(game.current)))
    view = game.view(game.current)
    card = view.legal_actions()[0]
    name = card_name(card)
    assert parse_move(name.lower(), view) == parse_move(name.replace("10", "t"), view) == card
    assert parse_move("crack", view) == ESCALATE
    with pytest.raises(ValueError, match="nothing to pass"):
        parse_move("pass", view)
    unplayable = next(c for c in range(36) if not (view.playable >> c) & 1)
    with pytest.raises(ValueError, match="not playable"):
        parse_move(card_name(unplayable), view)
    with pytest.raises(ValueError, match="not a move"):
        parse_move("queen of hearts", view)
    assert parse_card("td") == parse_card("10D")


def test_play_shows_the_deal_seed_only_when_the_match_is_over():
    """The seed fixes every deal (Game.new(seed)): shown earlier, it would give away the
    bot's hand and the face-down cards."""
    text, _ = run_play(["--opponent", "random", "--num-hands", "2"])
    seed = re.search(r"Deal seed (\d+) \(widderkopf-play --seed \1 replays this match\)",
                     text)
    assert seed, text
    assert text.index("Match over") < seed.start()
    assert seed[1] not in text[:text.index("Match over")]
    # and it replays the match
    again, _ = run_play(["--opponent", "random", "--num-hands", "2", "--seed", seed[1]])
    assert again == text


def test_a_network_of_the_wrong_shapes_is_refused_before_the_match(tmp_path, capsys):
    """It used to load, then fail with a numpy error at its first decision."""
    from widderkopf_env.agents import load_agent
    from widderkopf_env.agents.network_file import load_policy, save_policy
    from widderkopf_env.agents.shipped import POLICY_FILE

    weights = load_policy(POLICY_FILE)
    weights["layers"][-1] = (weights["layers"][-1][0][:40], weights["layers"][-1][1][:40])
    save_policy(weights, tmp_path / "short.npz")
    with pytest.raises(ValueError, match="gives 40 outputs, 42 expected"):
        load_agent(str(tmp_path / "short.npz"))
    for argv in ([str(tmp_path / "short.npz"), "random", "--pairs", "1", "--workers", "1"],
                 [str(tmp_path / "short.npz"), "--ladder", "--pairs", "1", "--workers", "1"]):
        with pytest.raises(SystemExit) as err:
            eval_main(argv)
        assert err.value.code == 2
        assert "gives 40 outputs, 42 expected" in capsys.readouterr().err


def test_a_script_that_does_not_stop_after_ctrl_c_is_ended_after_the_grace(tmp_path):
    """Whatever a library waits on after Ctrl-C, the process ends: exit 130, one line.
    The shutdown below never ends, so only the grace's watchdog can end the process (on a
    busy CPU too: nothing here depends on how fast it runs)."""
    import signal
    import subprocess
    import sys

    script = tmp_path / "stuck.py"
    script.write_text(
        "import argparse, sys, time\n"
        "from widderkopf_env import cli\n"
        "cli.STOP_GRACE = 1.0\n"
        "def body():\n"
        "    try:\n"
        "        print('ready', flush=True)  # inside the try: Ctrl-C lands in it\n"
        "        time.sleep(600)\n"
        "    finally:\n"
        "        while True:  # a shutdown that never ends\n"
        "            try:\n"
        "                time.sleep(60)\n"
        "            except KeyboardInterrupt:\n"
        "                pass\n"
        "sys.exit(cli.run_cli(argparse.ArgumentParser(prog='stuck'), body))\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=600)  # only a hang comes near this
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip() == ("stuck: interrupted; stopping took more than 1 s, so the process "
                           "ended without waiting")
