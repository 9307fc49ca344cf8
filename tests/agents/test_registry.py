"""The registry knows the shipped bots and file loaders itself: stale or missing install
metadata (no entry points at all) cannot break ``load_agent("heuristic")`` or the
default opponent, while third-party entry points still add names. A user's Python agent
(``module:Class``, ``file.py:Class``) loads everywhere an agent is taken, as code: the
trust rule of the pickle-bearing files applies to it."""

from __future__ import annotations

import json
from importlib.metadata import EntryPoint

import pytest

from widderkopf_env import WidderkopfEnv, agent_names, load_agent, registry


@pytest.fixture
def no_metadata(monkeypatch):
    monkeypatch.setattr(registry, "entry_points", lambda group: [])
    monkeypatch.setattr(registry, "_entry_points", None)


def test_shipped_bots_load_without_any_install_metadata(no_metadata):
    for name in registry.SHIPPED:
        assert name in agent_names()
    assert type(load_agent("heuristic")).__name__ == "HeuristicAgent"
    assert load_agent("net").name == "net"
    env = WidderkopfEnv()  # the default opponent is the heuristic
    env.reset(seed=1)
    env.step(int(env.action_masks().nonzero()[0][0]))


def test_shipped_file_loaders_work_without_metadata(no_metadata, tmp_path):
    from widderkopf_env.agents.shipped import NET_FILE

    assert load_agent(str(NET_FILE)).name == NET_FILE.stem
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        load_agent("nobody")


def test_a_third_party_entry_point_adds_a_name(monkeypatch):
    ep = EntryPoint("copycat", "widderkopf_env.agent:RandomAgent", registry.AGENT_GROUP)
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: [ep] if group == registry.AGENT_GROUP else [])
    monkeypatch.setattr(registry, "_entry_points", None)
    assert "copycat" in agent_names()
    assert type(load_agent("copycat", seed=3)).__name__ == "RandomAgent"


# --- Python agents: module:Class and file.py:Class ------------------------------------------

AGENT_FILE = '''
from widderkopf_env import ESCALATE


class Cautious:
    """Never escalates; otherwise the lowest legal action id."""

    def act(self, view):
        legal = view.legal_actions()
        calm = [a for a in legal if a != ESCALATE]
        with open("moves.txt", "a") as log:
            log.write(f"{view.player} ")
        return min(calm or legal)


class Seeded:
    def __init__(self, seed=None):
        self.seed = seed

    def act(self, view):
        return view.legal_actions()[0]


def make(seed):
    return Seeded(seed)


def broken():
    return 42


class NoAct:
    pass


NUMBER = 3
'''


def write_agent(folder, name="mybot", text=AGENT_FILE):
    path = folder / f"{name}.py"
    path.write_text(text)
    return path


def test_load_agent_takes_a_file_and_a_module_and_passes_the_seed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path, "seedbot_module")
    a = load_agent("seedbot_module.py:Cautious")
    assert type(a).__name__ == "Cautious"
    assert load_agent(str(tmp_path / "seedbot_module.py") + ":Seeded", seed=5).seed == 5
    assert load_agent("seedbot_module.py:make", seed=7).seed == 7  # a factory
    b = load_agent("seedbot_module:Seeded", seed=9)  # found in the current folder
    assert b.seed == 9 and type(b).__module__ == "seedbot_module"
    assert type(load_agent("widderkopf_env.agent:RandomAgent", seed=1)).__name__ == \
        "RandomAgent"


@pytest.mark.parametrize("spec, message", [
    ("missing.py:Cautious", "agent 'missing.py:Cautious': no file 'missing.py'"),
    ("{file}:Nobody", "has no 'Nobody'; its agent classes: Cautious, Seeded"),
    ("{file}:NoAct", "class NoAct has no act(view) method"),
    ("{file}:broken", "broken gave int, which has no act(view) method"),
    ("{file}:NUMBER", "NUMBER is not a class or a factory, got int"),
    ("no_such_module_here:Bot", "no module 'no_such_module_here' (looked in the installed "
                                "packages and the current folder)"),
    ("{raises}:Bot", "importing raising_bot.py raised ZeroDivisionError"),
])
def test_a_python_agent_that_does_not_load_is_named(tmp_path, monkeypatch, spec, message):
    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path, "errors_bot")
    write_agent(tmp_path, "raising_bot", "1 / 0\n")
    spec = spec.format(file="errors_bot.py", raises="raising_bot.py")
    with pytest.raises(ValueError) as err:
        load_agent(spec)
    assert message in str(err.value)


def test_a_third_party_class_without_a_seed_argument_loads(monkeypatch):
    ep = EntryPoint("plain", "widderkopf_env.agents.heuristic:HeuristicAgent",
                    registry.AGENT_GROUP)
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: [ep] if group == registry.AGENT_GROUP else [])
    monkeypatch.setattr(registry, "_entry_points", None)
    registry.register_agent("no-seed", lambda: load_agent("random"), replace=True)
    try:
        assert type(load_agent("plain", seed=3)).__name__ == "HeuristicAgent"
        assert type(load_agent("no-seed", seed=3)).__name__ == "RandomAgent"
    finally:
        registry._factories.pop("no-seed")


def cli(main, argv, capsys) -> tuple[int, str]:
    """A console script's main in this process: its exit status and last stderr line."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err.strip().splitlines()
    return code, err[-1] if err else ""


def test_widderkopf_eval_plays_a_users_agent_file(tmp_path):
    from cli_helpers import command, run

    write_agent(tmp_path)
    done = run(command("widderkopf-eval", "mybot.py:Cautious", "heuristic", "--pairs", "100",
                       "--json"), tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["agent_a"] == "mybot.py:Cautious" and result["pairs"] == 100
    assert result["mean"] < 0  # a player that never escalates loses to the heuristic
    assert len((tmp_path / "moves.txt").read_text().split()) > 400  # its own moves


def test_widderkopf_eval_plays_a_module_from_the_current_folder(tmp_path):
    from cli_helpers import command, run

    write_agent(tmp_path)
    done = run(command("widderkopf-eval", "mybot:Cautious", "random", "--pairs", "10",
                       "--workers", "2", "--json"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["agent_a"] == "mybot:Cautious"


@pytest.mark.parametrize("spec, message", [
    ("missing.py:Bot", "no file 'missing.py'"),
    ("mybot.py:Nobody", "mybot.py defines no 'Nobody' at its top level"),
    ("mybot.py:NoAct", "class NoAct has no act(view) method"),
    ("mybot_gone:Bot", "no module 'mybot_gone'"),
])
def test_widderkopf_eval_refuses_a_bad_python_agent_in_one_line(tmp_path, monkeypatch, capsys,
                                                                spec, message):
    from widderkopf_env.agents.eval_cli import main

    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path)
    code, line = cli(main, [spec, "random", "--pairs", "2"], capsys)
    assert code == 2 and line.startswith("widderkopf-eval: error: ") and message in line


EVIL = 'import os\nos.mkdir("pwned")\n\n\nclass Bot:\n    def act(self, view):\n' \
       '        return view.legal_actions()[0]\n'


@pytest.mark.parametrize("argv", [
    ["evil.py:Bot", "random", "--safe"],
    ["evil_module:Bot", "random", "--safe"],
    ["evil.py:Bot", "--ladder", "--safe"],
    ["evil.py:Bot", "random", "--pairs", "0"],  # a usage error elsewhere: nothing loaded
    ["evil.py:Bot", "--help"],
])
def test_a_python_agent_is_code_and_safe_refuses_it(tmp_path, monkeypatch, capsys, argv):
    """The trust rule of the pickle-bearing files: loading a Python agent runs its code,
    so --safe refuses it and nothing runs it while the command line is parsed."""
    from widderkopf_env.agents.eval_cli import main

    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path, "evil", EVIL)
    write_agent(tmp_path, "evil_module", EVIL)
    code, line = cli(main, argv, capsys)
    assert not (tmp_path / "pwned").exists()
    if "--safe" in argv:
        assert code == 2 and "--safe refuses" in line and "Python agent" in line
    else:
        assert code in (0, 2)


def test_every_command_that_takes_an_agent_takes_a_python_agent(tmp_path, monkeypatch, capsys):
    from widderkopf_env.agents.eval_cli import main as eval_main
    from widderkopf_env.agents.play_cli import build_parser as play_parser

    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path)
    code = eval_main(["mybot.py:Cautious", "--ladder", "--baselines", "random", "--pairs",
                      "2", "--workers", "1", "--no-progress", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["agent"] == "mybot.py:Cautious"
    assert play_parser().parse_args(["--web", "--opponent", "mybot:Cautious"]).opponent == \
        "mybot:Cautious"
    try:
        from widderkopf_env.train.exploit import build_parser as exploit_parser
    except ImportError:
        return  # no [train] extra
    assert exploit_parser().parse_args(["mybot.py:Cautious"]).agent == "mybot.py:Cautious"
    for text in (" ".join(p().format_help().split()) for p in (play_parser, exploit_parser)):
        assert "a Python agent, module:Class or file.py:Class" in text


def test_a_users_agent_file_plays_in_the_browser_against_clicks(tmp_path):
    """``widderkopf-play --web --opponent mybot.py:Cautious``: a person's clicks (the page's
    API calls) play a whole match against the user's class."""
    import subprocess
    import sys
    import urllib.request

    from cli_helpers import default_sigint

    from widderkopf_env.agents.web_play import TOKEN_HEADER

    write_agent(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "widderkopf_env.agents.play_cli", "--web", "--no-browser",
         "--no-record", "--seed", "4", "--opponent", "mybot.py:Cautious"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint)
    try:
        line = proc.stdout.readline()
        assert "against mybot.py:Cautious" in line, line + proc.stderr.read()
        url = line.split(": ", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=30) as response:
            page = response.read().decode()
        token = page.split('name="widderkopf-token" content="', 1)[1].split('"', 1)[0]
        base = url.split("/?", 1)[0]

        def call(path, body):
            request = urllib.request.Request(base + path, json.dumps(body).encode(),
                                             {TOKEN_HEADER: token}, method="POST")
            with urllib.request.urlopen(request, timeout=60) as answer:
                return json.loads(answer.read())

        state = call("/api/state", {})
        clicks = 0
        while not state["over"]:
            state = call("/api/move", {"step": state["step"],
                                       "action": state["legal"][0]["action"]})
            clicks += 1
        assert clicks > 5 and state["summary"]["result"] != "stopped", state["summary"]
        assert len((tmp_path / "moves.txt").read_text().split()) > 5  # the class played
    finally:
        proc.send_signal(2)
        proc.communicate(timeout=30)


def test_the_agent_protocol_and_policy_agent_import_from_agents_without_torch():
    import subprocess
    import sys

    code = ("import sys\nfrom widderkopf_env.agents import Agent, PolicyAgent, load_agent\n"
            "agent = PolicyAgent(lambda obs, mask: int(mask.argmax()))\n"
            "assert isinstance(agent, Agent)\n"
            "heavy = [m for m in ('torch', 'stable_baselines3', 'sb3_contrib') "
            "if m in sys.modules]\nprint(heavy)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
