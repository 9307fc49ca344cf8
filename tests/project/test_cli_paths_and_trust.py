"""The console scripts' paths, value types and trust: output paths checked before any work,
nothing loaded while parsing, a trust note in every --help that may load a pickle, the
missing-extra hint that works from a clone and once published."""

from __future__ import annotations

import re

import pytest
from cli_helpers import command, make_files, run, snapshot, unwritable_folder


@pytest.fixture
def files(tmp_path):
    return make_files(tmp_path)


@pytest.mark.parametrize("name,args", [
    ("widderkopf-eval", ["random", "random", "--save-games", "{ro}/games"]),
    ("widderkopf-eval", ["random", "random", "--save-games", "{ro}"]),
    ("widderkopf-eval", ["random", "--ladder", "--plot", "{ro}/ladder.png"]),
    ("widderkopf-exploit", ["random", "--out", "{ro}"]),
    ("widderkopf-distill", ["generate", "--out", "{ro}", "--shards", "1"]),
    ("widderkopf-distill", ["train", "--data", "d", "--out", "{ro}/net.npz"]),
    ("widderkopf-replay", ["game.json", "-o", "{ro}/game.html"]),
])
def test_output_in_a_read_only_folder_exits_2_before_any_work(files, name, args):
    """A folder that accepts no new file, even for root (whose permissions do not stop)."""
    ro = unwritable_folder()
    if ro is None:
        pytest.skip("no read-only file system here (/sys)")
    before = snapshot(files)
    done = run(command(name, *[a.format(ro=ro) for a in args]), files, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "does not accept new files" in done.stderr.splitlines()[-1], done.stderr
    assert snapshot(files) == before and done.stdout == ""


def test_help_loads_nothing_and_names_every_kind_of_agent_and_the_trust_note(files):
    """``widderkopf-eval evil.zip --help`` used to load the model while parsing (and run its
    pickle); every command that may load a pickle-bearing file says so."""
    done = run(command("widderkopf-eval", "evil.zip", "--help"), files)
    assert done.returncode == 0, done.stderr
    assert not (files / "pwned").exists()
    for cmd in (["widderkopf-eval"], ["widderkopf-play"], ["widderkopf-exploit"],
                ["widderkopf-train"]):
        text = " ".join(run(command(*cmd, "--help"), files).stdout.split())
        assert "a network .npz" in text and "RLlib checkpoint" in text, text
        assert "holds pickles, which run code when loaded" in text, text
        if cmd[0] != "widderkopf-train":
            assert "--safe refuses them" in text and "--safe" in text, text
    text = " ".join(run(command("widderkopf-train-rllib", "--help"), files).stdout.split())
    assert "pickles that run code" in text
    exploit = " ".join(run(command("widderkopf-exploit", "--help"), files).stdout.split())
    assert "(default: 200000)" in exploit and "(default: ppo-v1)" in exploit, exploit


def test_a_model_is_loaded_once_after_parsing(files):
    """Without --safe the evil model is loaded (and its pickle runs) only after the whole
    command line is parsed: a usage error elsewhere leaves it unloaded."""
    done = run(command("widderkopf-eval", "evil.zip", "random", "--pairs", "0"), files)
    assert done.returncode == 2 and not (files / "pwned").exists(), done.stderr


def test_missing_rllib_extra_is_named_with_both_pip_commands(files):
    """widderkopf-train-rllib without ray (a stand-in module that raises as a missing one)."""
    (files / "hide").mkdir()
    (files / "hide" / "ray.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'ray'\", name='ray')\n")
    done = run(command("widderkopf-train-rllib", "--iterations", "1", "--out", "r"), files,
               env={"PYTHONPATH": str(files / "hide")})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("widderkopf-train-rllib: error: ") and "[rllib] extra" in line
    assert 'pip install "widderkopf-env[rllib]"' in line and 'pip install ".[rllib]"' in line
    assert not (files / "r").exists()


# --- the argparse types, in process ------------------------------------------------------------

def test_argument_types_accept_the_range_and_name_it_otherwise():
    import argparse

    from widderkopf_env.cli import int_list, integer, number

    assert integer(1)("1_000") == 1000 and integer(0)("0") == 0
    assert number(0, 1)("1") == 1.0 and number(0, low_open=True)("1e-9") == 1e-9
    assert int_list(" 64, 32 ") == [64, 32]
    for convert, text, message in [
        (integer(1), "0", "expected an integer >= 1, got 0"),
        (integer(0), "1.5", "expected an integer >= 0, got '1.5'"),
        (number(0, 1), "1.01", "expected a number from 0 to 1, got 1.01"),
        (number(0, 1), "nan", "expected a number from 0 to 1, got nan"),
        (number(0, low_open=True), "0", "expected a number > 0, got 0"),
        (number(0, low_open=True), "inf", "expected a number > 0, got inf"),
        (number(0), "-0.5", "expected a number >= 0, got -0.5"),
        (int_list, "64,,32", "comma-separated integers in 1..4,096"),
        (int_list, "64,0", "comma-separated integers in 1..4,096"),
        (int_list, "²", "comma-separated integers in 1..4,096"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
            convert(text)


def test_path_types_check_without_writing(files):
    import argparse

    from widderkopf_env.cli import existing_file, output_dir, output_file

    before = snapshot(files)
    assert output_dir(str(files / "new" / "deeper")) == files / "new" / "deeper"
    assert output_file(str(files / "page.html")) == files / "page.html"
    assert existing_file(str(files / "afile")) == files / "afile"
    for convert, text, message in [
        (output_dir, "afile", "exists and is not a folder"),
        (output_dir, "afile/sub", "afile' is not a folder"),
        (output_file, ".", "is a folder, not a file"),
        (output_file, "nodir/x.html", "nodir/x.html': no folder"),
        (existing_file, "missing.json", "missing.json': no such file"),
        (existing_file, ".", "': not a file"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
            convert(str(files / text) if text != "." else str(files))
    assert snapshot(files) == before


def test_the_install_hint_works_from_a_clone_and_once_published():
    from widderkopf_env.cli import install_hint, missing_extra

    hint = install_hint("render")
    assert 'pip install "widderkopf-env[render]"' in hint and 'pip install ".[render]"' in hint
    message = missing_extra("pictures", "render", ImportError("No module named 'PIL'"))
    assert message.startswith("pictures needs the [render] extra") and hint in message


def test_run_cli_ends_an_io_error_with_one_line_and_status_2(capsys):
    """An OSError in a script's body (a file that cannot be read or written, a full disk)
    ends like a usage error, without a traceback."""
    import argparse

    from widderkopf_env.cli import run_cli

    def body():
        raise OSError(28, "No space left on device", "run/summary.json")

    assert run_cli(argparse.ArgumentParser(prog="tool"), body) == 2
    assert capsys.readouterr().err == (
        "tool: error: No space left on device: run/summary.json\n")
