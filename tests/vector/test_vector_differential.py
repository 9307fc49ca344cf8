"""The compiled core against the rules' reference: every decision of many random matches.

Two :class:`VecGame` batches, one stepped in C (``accelerated=True``) and one by the
pure-Python fallback (``accelerated=False``: each game moved by ``rules.PyGame``, the
reference, its rewards by ``episode.move_reward``), get the same deals (two deal sources with the
same generator seed, one shuffling in C and one in numpy, some games dealt from match
seeds) and the same actions (random
legal ones, escalating often, illegal ones offered to :meth:`VecGame.illegal` too). After
every step every array of both batches is compared (state, legal set, trick record,
history, hand results, later hands' deals), and both players' observations (float32 and
the compact uint8 form) and masks. Matches of one to four hands, from tied and untied
match scores, so tie-break hands (R20) and both trump choosers (R9) are played; finished
matches restart. Over 100,000 decisions per variant; the C batch runs on several threads
in some runs (the results must not depend on it).
"""

from __future__ import annotations

import numpy as np
import pytest

from widderkopf_env.cards import ESCALATE, NUM_ACTIONS
from widderkopf_env.observation import OBS_SIZE, OFFSETS, to_compact
from widderkopf_env.vector import DealSource, VecGame, encode
from widderkopf_env.vector.engine import ACCELERATED, OVER
from widderkopf_env.vector.ledger import VecRewardLedger
from widderkopf_env.vector.selfplay import FusedStep

pytestmark = pytest.mark.skipif(not ACCELERATED, reason="the compiled core is not built "
                                                        "or is disabled")

#: Decisions compared per variant (at least).
DECISIONS = 100_000
N = 1024


def pair(variant, seed: int, threads: int):
    games = []
    for accelerated in (True, False):
        deals = DealSource(N, seed, variant=variant, accelerated=accelerated)
        deals.seed(np.arange(0, N, 7), [seed * 100_000 + i for i in range(0, N, 7)])
        g = VecGame(N, deals, variant, accelerated=accelerated)
        g.num_threads = threads if accelerated else 1
        games.append(g)
    return games


def start(games, idx, rng) -> None:
    first = rng.integers(0, 2, len(idx))
    hands = rng.integers(1, 5, len(idx))
    scores = rng.integers(0, 3, (len(idx), 2)) * (rng.random((len(idx), 1)) < 0.5)
    for g in games:
        g.new_matches(idx, first, hands, scores)


def assert_same(c: VecGame, ref: VecGame, where: str) -> None:
    for name, value in vars(ref).items():
        if isinstance(value, np.ndarray) and name != "_need":  # the C core's scratch
            np.testing.assert_array_equal(getattr(c, name), value, err_msg=f"{name} {where}")


def assert_same_observations(c: VecGame, ref: VecGame, rng, where: str) -> None:
    over = rng.random(N) < 0.1
    for p in (0, 1):
        ref_obs, want_mask = encode(ref, ref.all, p, over, dtype=np.float32)
        for dtype in (np.float32, np.uint8):
            obs, mask = encode(c, c.all, p, over, dtype=dtype)
            want = to_compact(ref_obs) if dtype == np.uint8 else ref_obs
            assert obs.dtype == dtype
            np.testing.assert_array_equal(obs, want, err_msg=f"player {p} {dtype} {where}")
            np.testing.assert_array_equal(mask, want_mask, err_msg=f"mask {p} {where}")


def pick(game: VecGame, rng) -> np.ndarray:
    mask = game.mask().astype(float)
    keys = rng.random(mask.shape) * mask
    keys[:, ESCALATE] *= 3.0  # escalations and answers often: whole chains (R11)
    return keys.argmax(1)


@pytest.mark.parametrize("variant,threads", [("tiny", 1), ("small", 2), ("medium", 3),
                                             ("full", 1), ("full", 4)])
def test_the_compiled_core_equals_the_reference_at_every_decision(variant, threads):
    rng = np.random.default_rng(len(variant) + threads)
    c, ref = games = pair(variant, seed=17 + threads, threads=threads)
    start(games, ref.all, rng)
    assert_same(c, ref, "at the start")
    decisions = step = 0
    levels, tiebreaks = set(), 0
    while decisions < DECISIONS:
        live = ref.all[ref.phase != OVER]
        acts = pick(ref, rng)[live]
        wild = rng.integers(0, NUM_ACTIONS, len(live))
        np.testing.assert_array_equal(c.illegal(live, wild), ref.illegal(live, wild))
        np.testing.assert_array_equal(c.escalation_rights(live), ref.escalation_rights(live))
        for g in games:
            g.apply(live, acts)
        decisions += len(live)
        step += 1
        assert_same(c, ref, f"after step {step}")
        assert_same_observations(c, ref, rng, f"after step {step}")
        levels |= set(ref.res_crack_level[ref.res_count > 0].tolist())
        tiebreaks += int(((ref.hand_no >= ref.num_hands) & (ref.phase != OVER)).sum())
        done = ref.all[ref.phase == OVER]
        if len(done):
            start(games, done, rng)
            assert_same(c, ref, f"after the restarts of step {step}")
    assert levels == {0, 1, 2, 3, 4}  # whole escalation chains were played (R11)
    assert tiebreaks > 0  # tie-break hands were played (R20)


def test_the_compact_form_is_the_documented_rounding():
    """uint8 observations: the 0/1 entries as 0/1, a scaled number x as round(x * 255)."""
    obs = np.zeros((2, OBS_SIZE), np.float32)
    obs[:, OFFSETS["hand"][0] + 3] = 1.0
    start = OFFSETS["trick_points"][0]
    obs[0, start:start + 6] = [0.5, 1 / 121, 60 / 121, 0.998, 1.0, 0.0]
    compact = to_compact(obs)
    assert compact.dtype == np.uint8
    assert compact[:, OFFSETS["hand"][0] + 3].tolist() == [1, 1]
    assert compact[0, start:start + 6].tolist() == [128, 2, 126, 254, 255, 0]
    assert compact.sum() == 2 + 128 + 2 + 126 + 254 + 255


@pytest.mark.parametrize("variant,threads,dtype,shaping", [
    ("tiny", 1, np.uint8, False), ("medium", 2, np.float32, True),
    ("full", 1, np.float32, True), ("full", 3, np.uint8, False)])
def test_the_fused_step_equals_apply_settle_and_deal(variant, threads, dtype, shaping):
    """The self-play env's step in C (:class:`FusedStep`) moves every game as
    :meth:`VecGame.apply` of the reference, settles rewards as the ledger, deals the
    next hands and matches as the deal source (its generator's counters too), and writes
    the rows of :func:`encode`: the player to act's, the ended matches' last rows (the
    mover's, as over) apart; seeded matches' next hands are dealt by Python."""
    rng = np.random.default_rng(threads)
    c, ref = games = pair(variant, seed=5 + threads, threads=threads)
    start(games, ref.all, rng)
    ledgers = [VecRewardLedger(N, shaping) for _ in games]
    fused = FusedStep(N, dtype)
    obs = np.full((N, OBS_SIZE), 7, dtype)
    mask = np.full((N, NUM_ACTIONS), 7, np.int8)
    dealt_seen = over_seen = 0
    for step in range(80):
        acts = pick(ref, rng)
        mover, counted = ref.current.copy(), ref.res_count.copy()
        moved = fused(c, acts, obs, mask, ledgers[0], c.deal_source, 2)
        ref.apply(ref.all, acts)
        x = ledgers[1].settle(ref, slice(None))
        over, hand_over = ref.phase == OVER, ref.res_count != counted
        ended = ref.all[over]
        want_final, _ = encode(ref, ended, mover[ended], True, dtype=np.float32)
        for g in games:
            g.deal_source.unseed(ended)
        ref.new_matches(ended, ref.deal_source.first_dealers(ended), 2)
        ledgers[1].restart(ended)
        assert_same(c, ref, f"after step {step}")
        for name in ("hands", "shaped"):
            np.testing.assert_array_equal(getattr(ledgers[0], name), getattr(ledgers[1], name))
        np.testing.assert_array_equal(c.deal_source.draws, ref.deal_source.draws)
        np.testing.assert_array_equal(moved.rewards, np.stack([x, -x], axis=1))
        np.testing.assert_array_equal(moved.reward, np.where(mover == 0, x, -x))
        np.testing.assert_array_equal(moved.mover, mover)
        np.testing.assert_array_equal(moved.terminated, over)
        np.testing.assert_array_equal(moved.hand_over, hand_over)
        np.testing.assert_array_equal(moved.ended, ended)
        want, want_mask = encode(ref, ref.all, np.maximum(ref.current, 0), dtype=np.float32)
        if dtype == np.uint8:
            want, want_final = to_compact(want), to_compact(want_final)
        np.testing.assert_array_equal(moved.final_obs, want_final, err_msg=f"step {step}")
        np.testing.assert_array_equal(obs, want, err_msg=f"step {step}")
        np.testing.assert_array_equal(mask, want_mask, err_msg=f"step {step}")
        dealt_seen += int((hand_over & ~over).sum())
        over_seen += len(ended)
    assert dealt_seen > 0 and over_seen > 0  # both kinds of hand end were stepped


#: A batch whose float32 rows (8 MiB) outgrow a core's own caches.
BIG = 2048


@pytest.mark.parametrize("threads,aligned", [(1, True), (2, True), (1, False)])
def test_a_large_batchs_rows_are_the_encoders_rows(threads, aligned):
    """In a batch of ``BIG`` games, into an aligned buffer and one that is not 16-byte
    aligned, the fused step's float32 rows are the encoder's, entry for entry, for the
    player to act in every game."""
    rng = np.random.default_rng(threads)
    deals = DealSource(BIG, 11, variant="full")
    game = VecGame(BIG, deals, "full", accelerated=True)
    game.num_threads = threads
    game.new_matches(game.all, rng.integers(0, 2, BIG), 2)
    raw = np.zeros(BIG * OBS_SIZE * 4 + 64, np.uint8)
    at = (-raw.ctypes.data) % 16 + (0 if aligned else 4)
    obs = raw[at:at + BIG * OBS_SIZE * 4].view(np.float32).reshape(BIG, OBS_SIZE)
    assert (obs.ctypes.data % 16 == 0) == aligned
    mask = np.zeros((BIG, NUM_ACTIONS), np.int8)
    fused, ledger = FusedStep(BIG, np.float32), VecRewardLedger(BIG, False)
    for step in range(12):
        obs.fill(7)
        moved = fused(game, pick(game, rng), obs, mask, ledger, deals, 2)
        assert moved is not None
        want, want_mask = encode(game, game.all, np.maximum(game.current, 0),
                                 dtype=np.float32)
        np.testing.assert_array_equal(obs, want, err_msg=f"step {step}")
        np.testing.assert_array_equal(mask, want_mask, err_msg=f"step {step}")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_fused_step_refuses_an_illegal_action_and_changes_nothing(threads):
    """The check runs on the threads too: one illegal action anywhere, and nothing moves
    (the env's numpy path then raises or penalises)."""
    c, ref = pair("small", seed=3, threads=threads)
    rng = np.random.default_rng(3)
    start((c, ref), ref.all, rng)
    acts = pick(ref, rng)
    acts[N // 2] = int(np.flatnonzero(ref.mask()[N // 2] == 0)[0])  # in one thread's slice
    ledger = VecRewardLedger(N, True)
    before = {k: v.copy() for k, v in vars(c).items() if isinstance(v, np.ndarray)}
    draws = c.deal_source.draws.copy()
    obs, mask = np.zeros((N, OBS_SIZE), np.float32), np.zeros((N, NUM_ACTIONS), np.int8)
    assert FusedStep(N, np.float32)(c, acts, obs, mask, ledger, c.deal_source, 1) is None
    for name, value in before.items():
        if name != "_need":
            np.testing.assert_array_equal(getattr(c, name), value, err_msg=name)
    np.testing.assert_array_equal(c.deal_source.draws, draws)
    assert not obs.any() and not mask.any() and not ledger.hands.any()


def assert_same_info(a, b, where: str) -> None:
    assert a.keys() == b.keys(), where
    for key, value in a.items():
        other = b[key]
        if isinstance(value, dict):
            assert_same_info(value, other, f"{key} {where}")
        elif key == "final_obs":
            for x, y in zip(value, other, strict=True):
                assert (x is None) == (y is None), where
                if x is not None:
                    np.testing.assert_array_equal(x, y, err_msg=f"final_obs {where}")
        else:
            np.testing.assert_array_equal(value, other, err_msg=f"{key} {where}")


@pytest.mark.parametrize("dtype,variant", [(np.float32, "full"), (np.uint8, "small")])
def test_the_self_play_env_steps_as_on_the_reference(monkeypatch, dtype, variant):
    """The self-play vector env on the compiled core (its one-pass step) and on the
    pure-Python fallback (the reference) give the same observations, masks, rewards, ends and infos (final observations
    and hand results included), over matches of two hands with shaping."""
    from widderkopf_env.vector import WidderkopfVectorEnv, engine

    def make():
        return WidderkopfVectorEnv(96, opponent="self", num_hands=2, reward_shaping=True,
                                   obs_dtype=dtype, variant=variant)

    fused = make()
    monkeypatch.setattr(engine, "ACCELERATED", False)
    plain = make()
    assert fused.game.accelerated and not plain.game.accelerated
    (obs, info), (obs2, info2) = fused.reset(seed=4), plain.reset(seed=4)
    rng = np.random.default_rng(4)
    ended = 0
    for step in range(300):
        np.testing.assert_array_equal(obs, obs2, err_msg=f"step {step}")
        assert_same_info(info, info2, f"step {step}")
        acts = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(1)
        obs, *rest, info = fused.step(acts)
        obs2, *rest2, info2 = plain.step(acts)
        for x, y in zip(rest, rest2, strict=True):
            np.testing.assert_array_equal(x, y, err_msg=f"step {step}")
        ended += int(rest[1].sum())
    assert ended > 50
