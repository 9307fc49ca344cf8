"""widderkopf-distill: PIMC-labelled shards (resumable, seeded), imitation, the result as an agent."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import plays_legal_moves, usage_error

from widderkopf_env.agents import load_agent
from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, PASS
from widderkopf_env.observation import OBS_SIZE, OFFSETS
from widderkopf_env.train import distill, distill_cli, distill_data
from widderkopf_env.train.distill_data import FIELDS, KINDS, generate, generate_shard
from widderkopf_env.train.shards import load_shards

LEGAL, TRICKS_DONE = OFFSETS["legal_cards"][0], OFFSETS["tricks_done"][0]


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("shards")
    n = generate(out, shards=2, seed=5, matches=1, samples=2, log=lambda *_: None)
    return out, n


def test_shards_hold_labelled_positions(shards):
    out, n = shards
    data = load_shards(out)
    assert set(data) == set(FIELDS) and len(data["action"]) == n > 30
    assert data["obs"].shape == (n, OBS_SIZE) and data["mask"].shape == (n, NUM_ACTIONS)
    rows = np.arange(n)
    assert (data["mask"][rows, data["action"]] == 1).all()  # the expert's move is legal
    assert (data["mask"].sum(1) > 1).all()  # forced moves are not stored
    compared = ~np.isnan(data["values"]).all(1)
    assert compared.any()
    # values exist only for legal actions, and the expert's card is one of the best
    assert not (~np.isnan(data["values"]) & (data["mask"] == 0)).any()
    cards = compared & (data["action"] < ESCALATE)
    best = np.nanmax(data["values"][cards], axis=1)
    assert np.allclose(data["values"][cards, data["action"][cards]], best)


def test_generation_resumes_and_is_seeded(shards, tmp_path):
    out, _ = shards
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("shard_*.npz")}
    assert generate(out, shards=2, seed=5, matches=1, samples=2, log=lambda *_: None) == 0
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("shard_*.npz")} == before
    again = generate_shard(1, seed=5, matches=1, samples=2)
    with np.load(out / "shard_00001.npz") as z:
        for f in FIELDS:
            np.testing.assert_array_equal(again[f], z[f])
    other = generate_shard(1, seed=6, matches=1, samples=2)
    assert not np.array_equal(other["action"], again["action"])


def test_the_data_command_rebuilds_a_damaged_shard_and_leaves_no_temporary(shards, tmp_path,
                                                                          capsys):
    """``widderkopf-distill generate`` again over a shard cut short (a power loss before
    fsync, in older versions): that shard is written again, the whole one kept."""
    import shutil

    out = shutil.copytree(shards[0], tmp_path / "d")
    cut, whole = out / "shard_00001.npz", out / "shard_00000.npz"
    good, kept = cut.read_bytes(), whole.stat().st_mtime_ns
    cut.write_bytes(good[: len(good) // 2])
    (out / ".shard_00001.npz.999999.tmp").write_bytes(b"half")  # a killed write's
    assert distill_cli.main(["generate", "--out", str(out), "--shards", "2", "--seed", "5",
                             "--matches", "1", "--samples", "2", "--workers", "1"]) == 0
    assert f"damaged {cut}: written again" in capsys.readouterr().out
    assert cut.read_bytes() == good and whole.stat().st_mtime_ns == kept
    assert sorted(p.name for p in out.iterdir()) == [".widderkopf-run.json", "shard_00000.npz",
                                                     "shard_00001.npz"]


def test_targets_mix_the_move_with_the_scores():
    values = np.full((3, NUM_ACTIONS), np.nan, np.float32)
    values[0, [1, 2]] = [10.0, 2.0]
    data = {"action": np.array([1, ESCALATE, PASS]), "values": values}
    y = distill.targets(data, tau=4.0, soft=0.5)
    assert np.allclose(y.sum(1), 1.0)
    p = 1 / (1 + np.exp(-(10.0 - 2.0) / 4.0))  # softmax of the scores / tau
    assert y[0, 1] == pytest.approx(0.5 + 0.5 * p) and y[0, 2] == pytest.approx(0.5 * (1 - p))
    assert y[1, ESCALATE] == 1.0 and y[2, PASS] == 1.0


def test_policy_rows_hold_the_shards_compactly_and_give_their_arrays(shards, tmp_path):
    """The fit's rows (read shard by shard) give the shards' arrays bit for bit, in any
    order, and each batch's targets are those rows' of the whole data's."""
    out, n = shards
    data = load_shards(out)
    rows = distill.load_policy_rows(out)
    assert len(rows) == n
    for pick in (np.arange(n), np.array([n - 1, 0, 3, 3])):
        got = rows.batch(pick)
        for f in ("obs", "mask", "action", "values"):
            np.testing.assert_array_equal(got[f], data[f][pick])  # NaN where NaN
            assert got[f].dtype == data[f].dtype
        np.testing.assert_array_equal(distill.targets(got, 4.0, 0.5),
                                      distill.targets(data, 4.0, 0.5)[pick])
    in_memory = distill.PolicyRows.of(data, chunk=7).batch(np.arange(n))
    for f, a in rows.batch(np.arange(n)).items():
        np.testing.assert_array_equal(a, in_memory[f])
    # a row: 76 bytes of observation, the mask, the action, an index; the expert's scores
    # only where it gave any (PIMC here; the heuristic expert gives none)
    scored = int((~np.isnan(data["values"]).all(1)).sum())
    assert 0 < scored <= n
    assert rows.nbytes - distill.PolicyRows(0, 0).nbytes == n * (76 + 42 + 2 + 4) + \
        scored * 4 * NUM_ACTIONS
    heuristic = tmp_path / "heuristic"
    m = generate(heuristic, shards=1, seed=5, matches=1, expert="heuristic",
                 log=lambda *_: None)
    plain = distill.load_policy_rows(heuristic)
    arrays = sum(a.nbytes for a in load_shards(heuristic).values())
    assert plain.nbytes - distill.PolicyRows(0, 0).nbytes == m * (76 + 42 + 2 + 4)
    assert 15 * m * (76 + 42 + 2 + 4) < arrays


def test_the_fit_is_the_same_from_folders_and_from_arrays(shards):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    out, _ = shards
    quiet = {"hidden": (16,), "epochs": 2, "batch": 32, "log": lambda *_: None}
    a = distill.train(distill.load_policy_rows(out), **quiet)
    b = distill.train(load_shards(out), **quiet)
    for (wa, ba), (wb, bb) in zip(a["layers"], b["layers"], strict=True):
        np.testing.assert_array_equal(wa, wb)
        np.testing.assert_array_equal(ba, bb)


def test_train_export_and_play_end_to_end(shards, tmp_path, capsys):
    out, _ = shards
    net = tmp_path / "net.npz"
    assert distill_cli.main(["train", "--data", str(out), "--out", str(net), "--epochs", "2",
                         "--net-arch", "32", "--batch-size", "64"]) == 0
    assert "agrees with the expert" in capsys.readouterr().out
    plays_legal_moves(load_agent(str(net), seed=0), games=3)  # any snapshot .npz is an agent


def test_init_takes_a_bot_name_or_a_path_and_net_arch_a_comma_list(shards, tmp_path,
                                                                    monkeypatch, capsys):
    import shutil

    from widderkopf_env.agents.network_file import load_policy
    from widderkopf_env.agents.shipped import POLICY_FILE

    out, _ = shards
    monkeypatch.chdir(tmp_path)
    shutil.copy(POLICY_FILE, "start.npz")  # a path relative to the working directory
    ppo = load_policy(POLICY_FILE)
    for init in ("ppo", "start.npz"):
        assert distill_cli.main(["train", "--data", str(out), "--out", "net.npz", "--epochs",
                                 "1", "--net-arch", "256,256", "--init", init, "--lr",
                                 "1e-12"]) == 0
        got = load_policy("net.npz")
        for (w, b), (w0, b0) in zip(got["layers"], ppo["layers"], strict=True):
            np.testing.assert_allclose(w, w0, atol=1e-6)
            np.testing.assert_allclose(b, b0, atol=1e-6)
    capsys.readouterr()
    assert "--init: " in usage_error(distill_cli.main, [
        "train", "--data", str(out), "--out", "x.npz", "--init", "net", "--net-arch", "32"],
        capsys)
    assert "--net-arch: expected at most 8 comma-separated" in usage_error(distill_cli.main, [
        "train", "--data", str(out), "--out", "x.npz", "--net-arch", "32 32"], capsys)
    assert not (tmp_path / "x.npz").exists()


def test_bad_arguments_are_usage_errors(capsys, tmp_path):
    assert "integer in 1..100,000" in usage_error(distill_cli.main, ["generate", "--out", "x",
                                                            "--shards", "0"], capsys)
    assert "--mix" in usage_error(distill_cli.main, ["generate", "--out", "x", "--shards", "1",
                                                 "--mix", "0.5,0.5"], capsys)
    assert "no shards" in usage_error(distill_cli.main, ["train", "--data", str(tmp_path),
                                                     "--out", "n.npz"], capsys)
    with pytest.raises(ValueError, match="mix"):
        generate_shard(0, 0, 1, mix=(0.5, 0.6, 0.0))


def test_kinds_label_only_those_decisions_and_partition_them():
    """``kinds`` stores the decisions of those kinds only (R9 trump, R10 discard, R11
    crack); the four kinds together store every decision the default stores."""
    from widderkopf_env.rules import DISCARD, PLAY, TRUMP

    every = generate_shard(0, seed=7, matches=1, expert="heuristic")
    parts = {k: generate_shard(0, seed=7, matches=1, expert="heuristic", kinds=(k,))
             for k in KINDS}
    assert (parts["trump"]["phase"] == TRUMP).all() and len(parts["trump"]["phase"]) >= 1
    assert (parts["discard"]["phase"] == DISCARD).all() and len(parts["discard"]["phase"]) >= 2
    crack = parts["crack"]["mask"]
    assert ((crack[:, ESCALATE] == 1) | (crack[:, PASS] == 1)).all() and len(crack)
    play = parts["play"]
    assert (play["phase"] == PLAY).all()
    assert ((play["mask"][:, ESCALATE] == 0) & (play["mask"][:, PASS] == 0)).all()
    assert sum(len(p["action"]) for p in parts.values()) == len(every["action"])
    # the same games are played whatever is stored: the rows are the default's, in order
    both = generate_shard(0, seed=7, matches=1, expert="heuristic", kinds=("trump", "play"))
    keep = np.isin(every["phase"], [TRUMP]) | (
        (every["phase"] == PLAY) & (every["mask"][:, ESCALATE] == 0) & (every["mask"][:, PASS] == 0))
    np.testing.assert_array_equal(both["obs"], every["obs"][keep])
    with pytest.raises(ValueError, match="kinds must name one or more of trump"):
        generate_shard(0, seed=7, matches=1, expert="heuristic", kinds=("bid",))


def test_the_search_over_net_labels_the_kinds_asked_with_its_scores():
    """A ``net-search`` expert searches the trump choice and the discards it labels; the
    label is the best of the actions it compared, and the moves are its own."""
    from widderkopf_env.agents.net_search import NetSearchAgent
    from widderkopf_env.rules import TRUMP

    data = generate_shard(0, seed=3, matches=1, samples=2, mix=(1.0, 0.0, 0.0),
                          expert="net-search-fast", kinds=("trump", "discard"))
    assert len(data["action"]) >= 3
    scored = ~np.isnan(data["values"]).all(1)
    assert scored.all()
    rows = np.arange(len(scored))
    best = np.nanmax(data["values"], axis=1)
    np.testing.assert_allclose(data["values"][rows, data["action"]], best)
    assert (data["phase"] == TRUMP).sum() >= 1
    expert = distill_data._expert("net-search", 1, 3, ("trump", "crack"))
    assert isinstance(expert, NetSearchAgent)
    assert expert.searched == {"trump"} and expert.worlds == 3


def test_values_writes_nets_card_values_beside_the_fitted_policy(shards, tmp_path, capsys):
    from widderkopf_env.agents.net_agent import NetAgent
    from widderkopf_env.agents.network_file import load_values
    from widderkopf_env.agents.shipped import SHIPPED_FILES

    out, _ = shards
    dest = tmp_path / "net2.npz"
    assert distill_cli.main(["train", "--data", str(out), "--out", str(dest), "--epochs", "1",
                             "--net-arch", "32", "--values", "net"]) == 0
    agent = load_agent(str(dest), seed=0)
    assert isinstance(agent, NetAgent)
    (mine, tricks), (theirs, their_tricks) = load_values(dest), load_values(SHIPPED_FILES["net"])
    assert tricks == their_tricks
    for (w, b), (w0, b0) in zip(mine, theirs, strict=True):
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)
    plays_legal_moves(agent, games=2)
    capsys.readouterr()
    assert "holds a policy network only" in usage_error(distill_cli.main, [
        "train", "--data", str(out), "--out", str(tmp_path / "y.npz"), "--values", "ppo"], capsys)
    assert "--values" in usage_error(distill_cli.main, [
        "train", "--data", str(out), "--out", str(tmp_path / "y.npz"), "--values", "nope.npz"],
        capsys)
    assert not (tmp_path / "y.npz").exists()
