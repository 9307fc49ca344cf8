"""Every size, count and seed a console script takes has an upper bound that fits a small
machine, stated in its --help and checked while the command line is parsed: a value
beyond it is one line on stderr and exit status 2, before any lock, folder or allocation
(issue 57, items 1 and 7); shard lists are made lazily and pools are never larger than
their work; a run folder in use names the command that refused it (item 9)."""

from __future__ import annotations

import argparse
import importlib
import multiprocessing

import numpy as np
import pytest

from widderkopf_env import commands
from widderkopf_env.checks import MAX_SEED, MAX_SEED32, MAX_SHARDS, MAX_WORKERS
from widderkopf_env.cli import DeprecatedAlias, int_list, integer

BIG = str(10**30)
HUGE = str(2**5000)

TRAIN = "widderkopf_env.train.train_cli:main"
DISTILL = "widderkopf_env.train.distill_cli:main"
VALUES = "widderkopf_env.train.value_cli:main"

#: (console script's main, argv with RUN for the run folder, the option refused): the
#: audit's repros, and the other sizes of the same commands.
REPROS = [
    (TRAIN, ["--out", "RUN", "--n-envs", BIG, "--n-steps", "32", "--net-arch", "8",
             "--total-steps", "64"], "--n-envs"),
    (TRAIN, ["--out", "RUN", "--net-arch", BIG], "--net-arch"),
    (TRAIN, ["--out", "RUN", "--net-arch", ",".join(["8"] * 9)], "--net-arch"),
    (TRAIN, ["--out", "RUN", "--torch-threads", BIG], "--torch-threads"),
    (TRAIN, ["--out", "RUN", "--total-steps", BIG], "--total-steps"),
    (TRAIN, ["--out", "RUN", "--epochs", BIG], "--epochs"),
    (TRAIN, ["--out", "RUN", "--final-eval-pairs", BIG], "--final-eval-pairs"),
    (TRAIN, ["--out", "RUN", "--n-steps", BIG], "--n-steps"),
    (TRAIN, ["--out", "RUN", "--seed", str(MAX_SEED32 + 1)], "--seed"),
    (TRAIN, ["--out", "RUN", "--workers", BIG], "--workers"),
    (TRAIN, ["--recipe", "demo", "--out", "RUN", "--seed", BIG], "--seed"),
    (TRAIN, ["--recipe", "demo", "--out", "RUN", "--workers", BIG], "--workers"),
    (DISTILL, ["generate", "--out", "RUN", "--shards", BIG], "--shards"),
    (DISTILL, ["generate", "--out", "RUN", "--shards", "2", "--workers", BIG], "--workers"),
    (DISTILL, ["generate", "--out", "RUN", "--shards", "1", "--matches", BIG], "--matches"),
    (DISTILL, ["generate", "--out", "RUN", "--shards", "1", "--seed", BIG], "--seed"),
    (DISTILL, ["train", "--data", "RUN", "--out", "net.npz", "--seed", BIG], "--seed"),
    (DISTILL, ["train", "--data", "RUN", "--out", "net.npz", "--net-arch", BIG],
     "--net-arch"),
    (DISTILL, ["train", "--data", "RUN", "--out", "net.npz", "--epochs", BIG],
     "--epochs"),
    (VALUES, ["data", "--out", "RUN", "--shards", BIG], "--shards"),
    (VALUES, ["data", "--out", "RUN", "--shards", "1", "--seed", BIG], "--seed"),
    (VALUES, ["data", "--out", "RUN", "--shards", "1", "--games", BIG], "--games"),
    ("widderkopf_env.train.exploit:main", ["heuristic", "--seed", BIG, "--out", "RUN"],
     "--seed"),
    ("widderkopf_env.train.exploit:main", ["heuristic", "--total-steps", BIG, "--out", "RUN"],
     "--total-steps"),
    ("widderkopf_env.agents.play_cli:main", ["--seed", HUGE], "--seed"),
    ("widderkopf_env.agents.play_cli:main", ["--web", "--no-browser", "--seed", HUGE],
     "--seed"),
    ("widderkopf_env.agents.eval_cli:main", ["random", "random", "--seed", HUGE], "--seed"),
    ("widderkopf_env.agents.eval_cli:main", ["random", "random", "--workers", BIG],
     "--workers"),
    ("widderkopf_env.agents.eval_cli:main", ["random", "random", "--pairs", BIG], "--pairs"),
    ("widderkopf_env.train.rllib.cli:main", ["--out", "RUN", "--iterations", BIG],
     "--iterations"),
    ("widderkopf_env.train.rllib.cli:main", ["--out", "RUN", "--minutes", "1",
                                             "--num-env-runners", BIG], "--num-env-runners"),
    ("widderkopf_env.commands:main", ["train", "--out", "RUN", "--n-envs", BIG], "--n-envs"),
    ("widderkopf_env.agents.eval_cli:main", ["random", "--ladder", "--time-budget", BIG],
     "--time-budget"),
    ("widderkopf_env.train.demo:main", ["--out", "RUN", "--pairs", BIG], "--pairs"),
    ("widderkopf_env.train.demo:main", ["--out", "RUN", "--workers", BIG], "--workers"),
]


def _main(target: str):
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _refused(main, argv, capsys) -> str:
    """Run ``main(argv)``: it must end with exit status 2 and one error line, no
    traceback; returns that line."""
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "MemoryError" not in err, err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1 and err.rstrip("\n").endswith(lines[0]), err
    return lines[0]


@pytest.mark.parametrize("target, argv, option", REPROS,
                         ids=[f"{t.split(':')[0].split('.')[-1]} {o}" for t, _, o in REPROS])
def test_a_size_beyond_its_bound_is_one_line_and_exit_2_before_anything(
        target, argv, option, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    argv = [a.replace("RUN", str(run)) for a in argv]
    line = _refused(_main(target), argv, capsys)
    assert f"argument {option}: expected" in line, line
    assert "at most" in line or ".." in line, line  # the bound is said
    assert len(line) < 300, line  # a 1,506-digit seed is not printed back
    assert not run.exists()  # no folder, no lock, no manifest
    assert list(tmp_path.iterdir()) == []


def _int_options():
    """``(command, option, action)`` for every option of every command that takes
    integers."""
    for command, parser in commands.parsers():
        for action in parser._actions:
            if not action.option_strings or isinstance(action, DeprecatedAlias):
                continue
            kind = getattr(action.type, "kind", None)
            if kind == "int" or action.type in (int, int_list):
                yield command, action.option_strings[-1], action


def test_every_integer_option_has_an_upper_bound_stated_in_its_help():
    found = list(_int_options())
    assert len(found) > 60
    unbounded = [(c, o) for c, o, a in found
                 if a.choices is None and getattr(a.type, "limit", None) is None]
    assert not unbounded, f"options without an upper bound: {unbounded}"
    unsaid = [(c, o) for c, o, a in found
              if a.choices is None and f"at most {a.type.limit}" not in (a.help or "")]
    assert not unsaid, f"options whose --help does not state the bound: {unsaid}"


def test_every_seed_takes_zero_to_its_bound_and_nothing_beyond():
    seeds = [(c, a) for c, o, a in _int_options() if o == "--seed"]
    assert len(seeds) >= 9
    for command, action in seeds:
        biggest = int(action.type.limit.replace(",", ""))
        assert MAX_SEED32 <= biggest or command.startswith("widderkopf-values"), command
        assert biggest <= MAX_SEED, command
        assert action.type("0") == 0 and action.type(str(biggest)) == biggest
        for text in (str(biggest + 1), BIG, HUGE, "-1"):
            with pytest.raises(argparse.ArgumentTypeError):
                action.type(text)


def test_the_bounded_types_accept_their_bound_and_refuse_past_it():
    assert integer(1, 5)("5") == 5
    with pytest.raises(argparse.ArgumentTypeError, match="expected an integer in 1..5, got 6"):
        integer(1, 5)("6")
    with pytest.raises(argparse.ArgumentTypeError, match="got an int of 5,001 bits"):
        integer(0, 9)(HUGE)
    assert int_list(",".join(["4096"] * 8)) == [4096] * 8
    for text in ("4097", ",".join(["8"] * 9), BIG, "0", "8,,8"):
        with pytest.raises(argparse.ArgumentTypeError, match="at most 8 comma-separated"):
            int_list(text)


def test_the_values_data_seed_bound_keeps_game_ids_in_64_bits():
    from widderkopf_env.train.value_data import MAX_SEED as VALUES_SEED
    from widderkopf_env.train.value_data import value_shard

    rows = value_shard(MAX_SHARDS - 1, VALUES_SEED, 1, tricks=(1, 3), exact_tricks=3)
    assert rows["game"].dtype == np.int64 and len(rows["game"]) > 0
    assert int(rows["game"][0]) == (VALUES_SEED * 1_000_003 + MAX_SHARDS - 1) * 10_000


# --- the shards: listed lazily, pools no larger than the work ------------------------------------

class _Done(Exception):
    pass


def test_run_shards_starts_writing_without_listing_every_index(tmp_path, monkeypatch):
    from widderkopf_env.train import shards

    looked = []
    real = shards.shard_path

    def counted(out, k):
        looked.append(k)
        assert len(looked) < 100, "run_shards looked at every shard's name first"
        return real(out, k)

    def job(args):
        raise _Done(args[0])

    monkeypatch.setattr(shards, "shard_path", counted)
    with pytest.raises(_Done) as first:
        shards.run_shards(tmp_path, 10**30, job, (), log=lambda *_: None)
    assert first.value.args == (0,)


def test_run_shards_resumes_past_the_shards_that_exist(tmp_path):
    from widderkopf_env.train import shards

    def job(args):
        k, out = args[:2]
        return k, out, {"x": np.full(k + 1, k)}

    lines = []
    assert shards.run_shards(tmp_path, 2, job, (), log=lines.append) == 3
    (tmp_path / "shard_00003.npz").write_bytes(b"damaged")
    (tmp_path / "shard_00009.npz").write_bytes(b"not one of the 5 shards")
    assert shards.run_shards(tmp_path, 5, job, (), log=lines.append) == 3 + 4 + 5
    assert any("2 of 5 shards exist already" in line for line in lines)
    assert any("damaged" in line and "shard_00003" in line for line in lines)
    assert (tmp_path / "shard_00009.npz").read_bytes() == b"not one of the 5 shards"
    assert sorted(p.name for p in tmp_path.glob("shard_0000[0-4].npz")) == [
        f"shard_0000{k}.npz" for k in range(5)]


class _Pool:
    """multiprocessing.Pool's stand-in: records its size, runs the work here."""

    sizes: list = []

    def __init__(self, processes):
        self.sizes.append(processes)

    def imap_unordered(self, fn, jobs):
        return map(fn, jobs)

    def terminate(self):
        pass


@pytest.mark.parametrize("command", ["distill", "values"])
def test_no_more_worker_processes_than_shards_to_write(command, tmp_path, monkeypatch):
    from widderkopf_env.train import distill_cli, value_cli

    monkeypatch.setattr(multiprocessing, "Pool", _Pool)
    _Pool.sizes = []
    if command == "distill":
        argv = ["generate", "--out", str(tmp_path / "d"), "--matches", "1", "--expert",
                "heuristic", "--mix", "0,1,0"]
        main = distill_cli.main
    else:
        argv = ["data", "--out", str(tmp_path / "d"), "--games", "1", "--tricks-left", "1",
                "1", "--exact-tricks", "1", "--policy", "ppo"]
        main = value_cli.main
    assert main([*argv, "--shards", "2", "--workers", str(MAX_WORKERS)]) == 0
    assert main([*argv, "--shards", "3", "--workers", str(MAX_WORKERS)]) == 0  # 1 to write
    assert _Pool.sizes == [2]  # the second run wrote its one shard in this process
    assert len(list((tmp_path / "d").glob("shard_*.npz"))) == 3


# --- a run folder in use names the command that refused it ---------------------------------------

@pytest.mark.parametrize("argv, name", [
    (["generate", "--shards", "1"], "widderkopf-distill generate"),
    (["data", "--shards", "1"], "widderkopf-values data"),
])
def test_a_folder_in_use_is_refused_in_the_commands_own_name(argv, name, tmp_path, capsys):
    from widderkopf_env.train import distill_cli, value_cli
    from widderkopf_env.train.run_folder import RunLock

    main = distill_cli.main if argv[0] == "generate" else value_cli.main
    out = tmp_path / "run"
    with RunLock(out):
        assert main([*argv, "--out", str(out)]) == 2
    [line] = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert f"is in use by another {name} (pid " in line, line
    assert "widderkopf-train" not in line
    assert not list(out.glob("shard_*"))
