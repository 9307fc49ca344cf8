"""WidderkopfVectorEnv: differential tests against the AEC env, the single Gymnasium env
and the scalar engine (on every variant, ``widderkopf_env.VARIANTS``), and the checks
gymnasium's env checker would make of a vector env (spaces, dtypes, masks, autoreset,
seeding, illegal actions, close)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import widderkopf_env
from widderkopf_env import VARIANTS, Game, IllegalActionError
from widderkopf_env.cards import NUM_ACTIONS, from_bits
from widderkopf_env.episode import Episode, Settings
from widderkopf_env.game_encoder import encode_game
from widderkopf_env.gym_env import WidderkopfEnv
from widderkopf_env.observation import OBS_SIZE
from widderkopf_env.rules import deal_to_spec
from widderkopf_env.vector import WidderkopfVectorEnv

AGENTS = ("player_0", "player_1")


def row_deal(venv, i):
    """The deal spec and first dealer of the hand sub-env ``i`` is playing now."""
    g, k = venv.game, venv.variant.piles  # the piles the variant deals
    deal = tuple((from_bits(int(g.hand[i, p])), [int(c) for c in g.up[i, 5 * p:5 * p + k]],
                  [int(c) for c in g.down[i, 5 * p:5 * p + k]]) for p in (0, 1))
    return deal_to_spec(deal), int(g.first_dealer[i])


def sample(rng, mask, illegal=0.0):
    """A random legal action per row; with probability ``illegal`` an illegal one."""
    keys = rng.random(mask.shape)
    legal = (keys * mask).argmax(1)
    wrong = (keys * (1 - mask)).argmax(1)
    return np.where(rng.random(len(mask)) < illegal, wrong, legal)


def aec_for(venv, i, illegal_action):
    aec = widderkopf_env.env(illegal_action=illegal_action,
                             reward_shaping=venv.reward_shaping, variant=venv.variant)
    spec, dealer = row_deal(venv, i)
    aec.reset(options={"deal": spec, "dealer": dealer})
    return aec


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("shaping", [False, True])
def test_self_play_equals_the_aec_env_step_by_step(shaping, variant):
    """Every sub-env, every step, every episode (autoresets included): observation, mask,
    whose turn, both seats' rewards, termination, final observation and hand result are
    those of an AEC env fed the same deal and actions (illegal moves included)."""
    n, rng = 48, np.random.default_rng(7)
    venv = WidderkopfVectorEnv(n, opponent="self", reward_shaping=shaping, variant=variant)
    obs, info = venv.reset(seed=100)
    refs = [aec_for(venv, i, "terminate") for i in range(n)]
    episodes = illegal_seen = 0
    for _ in range(160):
        for i, aec in enumerate(refs):
            agent = aec.agent_selection
            o = aec.observe(agent)
            assert info["player"][i] == AGENTS.index(agent)
            np.testing.assert_array_equal(obs[i], o["observation"])
            np.testing.assert_array_equal(info["action_mask"][i], o["action_mask"])
        actions = sample(rng, info["action_mask"], illegal=0.003)
        obs, reward, term, trunc, info = venv.step(actions)
        assert not trunc.any()
        for i, aec in enumerate(refs):
            mover = aec.agent_selection
            aec.step(int(actions[i]))
            rewards = [aec.rewards[a] for a in AGENTS]
            assert list(info["rewards"][i]) == rewards
            assert reward[i] == aec.rewards[mover]
            assert term[i] == all(aec.terminations.values())
            if term[i]:
                final = aec.observe(mover)["observation"]
                np.testing.assert_array_equal(info["final_obs"][i], final)
                fi, ai = info["final_info"], aec.infos[mover]
                if "winner" in ai:
                    assert fi["_winner"][i] and fi["winner"][i] == ai["winner"]
                    assert tuple(fi["card_points"][i]) == ai["card_points"]
                    assert fi["value"][i] == ai["value"] and fi["schwarz"][i] == ai["schwarz"]
                else:
                    assert fi["illegal_action"][i] and ai["illegal_action"]
                    illegal_seen += 1
                episodes += 1
                refs[i] = aec_for(venv, i, "terminate")
            else:
                assert "final_obs" not in info or info["final_obs"][i] is None
    assert episodes > 100 and illegal_seen > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_matches_follow_game_new_with_tie_breaks(variant):
    """reset(seed=s): sub-env i plays the match of Game.new(seed=s + i), every hand of it
    (tie-break hands included, R20), with the envs' rewards (the episode core)."""
    n, num_hands = 40 if variant == "full" else 80, 2  # the small variants are quick
    venv = WidderkopfVectorEnv(n, opponent="self", num_hands=num_hands, reward_shaping=True,
                               variant=variant)
    obs, info = venv.reset(seed=900)
    games = [Game.new(seed=900 + i, num_hands=num_hands, variant=variant) for i in range(n)]
    episodes = [Episode(g, Settings(num_hands, reward_shaping=True, variant=variant))
                for g in games]
    done = np.zeros(n, bool)
    rng = np.random.default_rng(1)
    totals = np.zeros((n, 2))
    while not done.all():
        for i in np.flatnonzero(~done):
            o, m = encode_game(games[i], games[i].current)
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(info["action_mask"][i], m)
        actions = sample(rng, info["action_mask"])
        obs, reward, term, trunc, info = venv.step(actions)
        for i in np.flatnonzero(~done):
            x, _ = episodes[i].apply(int(actions[i]))
            assert list(info["rewards"][i]) == [x, -x]
            totals[i] += info["rewards"][i]
            assert term[i] == games[i].is_over
            if term[i]:
                done[i] = True
                assert info["final_info"]["scores"][i].tolist() == games[i].scores
    assert sum(len(g.results) > num_hands for g in games) > 3  # tied matches went on
    for i, g in enumerate(games):
        cp = [r.card_points for r in g.results]
        shaping = sum((a - b) / VARIANTS[variant].total_points for a, b in cp)
        assert totals[i, 0] == pytest.approx(g.returns()[0] + shaping)


class HighestLegal:
    """A deterministic agent: the highest legal action id."""

    def act(self, view):
        return max(view.legal_actions())


def highest_legal(obs, mask):
    return (mask * np.arange(NUM_ACTIONS)).argmax(1)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_against_an_agent_equals_the_single_env(seat, variant):
    n = 16
    venv = WidderkopfVectorEnv(n, opponent=HighestLegal(), seat=seat, variant=variant)
    twin = WidderkopfVectorEnv(n, opponent=highest_legal, seat=seat,  # batched policy
                               variant=variant)
    obs, info = venv.reset(seed=5)
    obs2, _ = twin.reset(seed=5)
    np.testing.assert_array_equal(obs, obs2)
    singles = []
    for i in range(n):
        env = WidderkopfEnv(opponent=HighestLegal(), seat=seat, variant=variant)
        # the deal of sub-env i before the opponent's first moves: Game.new(seed=5 + i)
        g = Game.new(seed=5 + i, variant=variant)
        spec = deal_to_spec(g.deals[0])
        o, _ = env.reset(options={"deal": spec, "dealer": g.dealer})
        np.testing.assert_array_equal(obs[i], o)
        singles.append(env)
    rng = np.random.default_rng(3)
    alive = np.ones(n, bool)
    while alive.any():
        actions = sample(rng, info["action_mask"])
        obs, reward, term, _, info = venv.step(actions)
        obs2, reward2, term2, _, _ = twin.step(actions)
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(reward, reward2)
        for i in np.flatnonzero(alive):
            o, r, t, _, inf = singles[i].step(int(actions[i]))
            assert reward[i] == r and term[i] == t
            if t:
                np.testing.assert_array_equal(info["final_obs"][i], o)
                assert info["final_info"]["winner"][i] == inf["winner"]
                alive[i] = False
            else:
                np.testing.assert_array_equal(obs[i], o)
                np.testing.assert_array_equal(info["action_mask"][i], singles[i].action_masks())
    assert (info["seat"] == seat).all()


def test_make_vec_spaces_masks_and_autoreset():
    env = gymnasium.make_vec("Widderkopf-v0", num_envs=8, opponent="random")
    assert isinstance(env, WidderkopfVectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_observation_space.shape == (OBS_SIZE,)
    assert env.observation_space.shape == (8, OBS_SIZE) and env.action_space.shape == (8,)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(200):
        assert obs.dtype == np.float32 and obs in env.observation_space
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (8, NUM_ACTIONS)
        assert mask.any(axis=1).all()  # never all zeros, also right after an autoreset
        np.testing.assert_array_equal(env.action_masks(), mask)
        actions = sample(rng, mask)
        assert actions in env.action_space
        obs, reward, term, trunc, info = env.step(actions)
        assert reward.dtype == np.float64 and term.dtype == bool and trunc.dtype == bool
        for i in np.flatnonzero(term):
            ends += 1
            assert info["_final_obs"][i] and info["final_obs"][i].shape == (OBS_SIZE,)
            assert info["final_obs"][i] in env.single_observation_space
            assert info["final_info"]["_winner"][i]
            assert env.game.ntricks[i] == 0  # a new episode already began
        assert not info["_final_obs"][~term].any() if "_final_obs" in info else True
    assert ends > 20
    env.close()
    assert env.closed
    with pytest.raises(gymnasium.error.ClosedEnvironmentError):
        env.step(np.zeros(8, np.int64))


@pytest.mark.parametrize("variant", ["tiny", "medium"])
def test_make_vec_plays_the_variant(variant):
    """gymnasium.make_vec passes variant=: every sub-env deals that variant's deck, hand
    and piles (Game.new(seed=s + i, variant=...) first, then from the generator)."""
    v = VARIANTS[variant]
    env = gymnasium.make_vec("Widderkopf-v0", num_envs=6, opponent="random", variant=variant)
    assert env.variant is v and env.game.variant is v
    obs, info = env.reset(seed=4)
    deals = [Game.new(seed=4 + i, variant=variant).deals[0] for i in range(6)]
    assert env.game.down[:, :v.piles].tolist() == [d[0][2] for d in deals]
    rng, ends = np.random.default_rng(0), 0
    for _ in range(60):
        g = env.game
        dealt = g.hand[:, 0] | g.hand[:, 1] | g.played[:, 0] | g.played[:, 1]
        assert (dealt & ~np.uint64(v.deck) == 0).all()  # no card outside the deck
        assert (obs[:, np.flatnonzero(~np.isin(np.arange(36), v.cards))] == 0).all()
        obs, reward, term, _, info = env.step(sample(rng, info["action_mask"]))
        ends += term.sum()
        assert (np.abs(reward[term]) <= v.max_hand_value).all()
    assert ends > 6


def test_same_seed_same_trajectory_and_game_new_deals():
    def run(seed):
        env = WidderkopfVectorEnv(6, opponent="random", num_hands=2)
        obs, info = env.reset(seed=seed)
        first = env.game.down.tolist()  # untouched until cards are played
        out, rng = [obs.copy()], np.random.default_rng(0)
        for _ in range(80):
            obs, reward, term, _, info = env.step(sample(rng, info["action_mask"]))
            out += [obs.copy(), reward, term]  # the env reuses its observation buffer
        return first, out

    first, a = run(11)
    deals = [Game.new(seed=11 + i).deals[0] for i in range(6)]
    assert first == [d[0][2] + d[1][2] for d in deals]
    _, b = run(11)
    _, c = run(12)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_illegal_actions_raise_naming_the_sub_env_and_leave_the_batch_unchanged():
    env = WidderkopfVectorEnv(4, opponent="self", illegal_action="raise")
    obs, info = env.reset(seed=3)
    mask = info["action_mask"]
    actions = mask.argmax(1)
    bad = int(np.flatnonzero(mask[2] == 0)[0])
    actions[2] = bad
    before = {k: v.copy() for k, v in vars(env.game).items() if isinstance(v, np.ndarray)}
    with pytest.raises(IllegalActionError, match="sub-env 2: illegal action") as err:
        env.step(actions)
    assert err.value.sub_env == 2 and err.value.action == bad
    assert err.value.legal == [int(a) for a in np.flatnonzero(mask[2])]
    for k, v in vars(env.game).items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, before[k], err_msg=k)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(np.array([0, 0, 42, 0]))
    with pytest.raises(IllegalActionError, match="integer action ids"):
        env.step(np.zeros(4))
    with pytest.raises(IllegalActionError, match="integer action ids"):
        env.step(np.zeros(3, np.int64))
    obs2, *_ = env.step(mask.argmax(1))  # still usable
    assert obs2.shape == (4, OBS_SIZE)


def test_self_play_takes_every_integer_action_form_alike():
    """Contiguous int64 actions take the one-call path; a list, int32, a strided view and
    a read-only array give the same steps."""
    def run(form):
        env = WidderkopfVectorEnv(8, opponent="self")
        obs, info = env.reset(seed=5)
        out, rng = [], np.random.default_rng(5)
        for _ in range(60):
            obs, reward, term, _, info = env.step(form(sample(rng, info["action_mask"])))
            out += [obs.copy(), reward, term, info["rewards"]]
        return out

    def strided(a):
        wide = np.zeros((len(a), 2), np.int64)
        wide[:, 0] = a
        return wide[:, 0]

    def read_only(a):
        a = np.array(a, np.int64)
        a.flags.writeable = False
        return a

    want = run(lambda a: np.ascontiguousarray(a, np.int64))
    for form in (list, lambda a: np.asarray(a, np.int32), strided, read_only):
        got = run(form)
        assert all(np.array_equal(x, y) for x, y in zip(want, got, strict=True))


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="num_envs"):
        WidderkopfVectorEnv(0)
    with pytest.raises(ValueError, match="opponent"):
        WidderkopfVectorEnv(2, opponent=3)
    with pytest.raises(ValueError, match="seat"):
        WidderkopfVectorEnv(2, opponent="self", seat=0)
    with pytest.raises(ValueError, match="num_hands"):
        WidderkopfVectorEnv(2, num_hands=0)
    for make in (WidderkopfVectorEnv, lambda n, **kw: gymnasium.make_vec(
            "Widderkopf-v0", num_envs=n, **kw)):
        with pytest.raises(ValueError, match="unknown variant 'huge': expected one of "
                                             "tiny, small, medium, full"):
            make(2, variant="huge")
    env = WidderkopfVectorEnv(2, opponent="random")
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=[1])
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"deal": None})
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))


def test_later_episodes_get_new_deals():
    """Only the first episode after reset(seed=s) replays Game.new(seed=s + i); the next
    ones are dealt afresh from the generator."""
    env = WidderkopfVectorEnv(4, opponent="self")
    obs, info = env.reset(seed=21)
    first = env.game.down.copy()
    fresh = np.zeros(4, bool)
    rng = np.random.default_rng(0)
    while not fresh.all():
        obs, reward, term, _, info = env.step(sample(rng, info["action_mask"]))
        for i in np.flatnonzero(term):
            assert env.game.down[i].tolist() != first[i].tolist()
            fresh[i] = True


@pytest.mark.parametrize("s", [0, 41, 2**40])
def test_reset_seed_deals_game_new_in_every_env(s):
    """reset(seed=s): sub-env i of the vector env, the AEC env and the Gymnasium env reset
    with seed=s+i all deal the match of Game.new(seed=s+i), every hand of it."""
    n = 3
    vec = WidderkopfVectorEnv(n, opponent="self", num_hands=2)
    obs, info = vec.reset(seed=s)
    for i in range(n):
        want = Game.new(seed=s + i, num_hands=2)
        aec = widderkopf_env.env(num_hands=2)
        aec.reset(seed=s + i)
        gym_env = WidderkopfEnv(num_hands=2, opponent="random")
        gym_env.reset(seed=s + i)
        for game in (aec.unwrapped.game, gym_env.game):
            assert game.seed == want.seed == s + i
            assert game.dealer == want.dealer
            assert game.deals[0] == want.deals[0]
            assert game.replay(0).to_json() == want.to_json()
        first = aec.unwrapped.game.current
        assert info["player"][i] == first
        np.testing.assert_array_equal(obs[i], aec.observe(f"player_{first}")["observation"])
