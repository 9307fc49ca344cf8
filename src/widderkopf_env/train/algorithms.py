"""The settings of the training algorithms beside plain PPO against bots, worked out and
checked for :mod:`.config` (no torch): seat-symmetric self-play
(``--self-play-symmetric``, :mod:`.selfplay`), MMD (``--algo mmd``, :mod:`.mmd`) and the
exact exploitability curve (``--exploitability-every``, :mod:`.exploitability_curve`).
"""

from __future__ import annotations

from widderkopf_env.cli import UsageError

from .presets import shipped

#: What ``--self-play-symmetric`` sets unless the command line gives it: the entropy and
#: clipping of the tuned PPO of Rudolph et al. (2025), short rollouts (2048 steps with
#: the default 16 envs: many small updates), a constant learning rate, and no crack
#: curriculum (both seats learn every decision from the start).
SYMMETRIC_DEFAULTS = {k: v for k, v in shipped("ppo-selfplay").items()
                      if k != "self_play_symmetric"}  # the preset file is their one home
SYMMETRIC_HELP = "its own defaults unless given: " + ", ".join(
    f"--{k.replace('_', '-')} {v}" for k, v in SYMMETRIC_DEFAULTS.items())
#: The variants whose exact exploitability the trainer computes.
EXACT_VARIANTS = ("tiny", "small")
#: Settings older config.json files lack, as those runs had them.
ADDED = {"self_play_symmetric": False, "algo": "ppo", "magnet_coef": 0.025,
         "magnet_every": 0, "exploitability_every": 0}


def symmetric_defaults(args: dict, given: set) -> dict:
    """``args`` with :data:`SYMMETRIC_DEFAULTS` in place of the settings not ``given``,
    when ``args`` asks for seat-symmetric self-play (a new run only: a resumed run keeps
    its own)."""
    if not args.get("self_play_symmetric") or args.get("resume"):
        return args
    return {**args, **{k: v for k, v in SYMMETRIC_DEFAULTS.items() if k not in given}}


def check(cfg) -> None:
    """UsageError naming what is wrong with these settings together."""
    if cfg.self_play_symmetric and cfg.self_play:
        raise UsageError("--self-play-symmetric and --self-play exclude each other (one "
                         "policy on both seats, or against bots and snapshots)")
    if cfg.self_play_symmetric and cfg.warmup_random:
        raise UsageError("--warmup-random needs the random bot; --self-play-symmetric "
                         "plays no bot: give --warmup-random 0")
    if cfg.exploitability_every and cfg.variant not in EXACT_VARIANTS:
        raise UsageError(f"--exploitability-every: the exact exploitability is for the "
                         f"variants {', '.join(EXACT_VARIANTS)}, not {cfg.variant!r} "
                         f"(give --exploitability-every 0)")
    if cfg.exploitability_every:
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            raise UsageError("--exploitability-every needs OpenSpiel: pip install "
                             "'widderkopf-env[openspiel]'") from None


def model_class(cfg) -> tuple[type, dict]:
    """The model class of the run ``cfg`` (MaskablePPO, or :class:`.mmd.MMD` for
    ``--algo mmd``) and its keyword arguments beyond PPO's (MMD's magnet; the per-seat
    rollout buffer of ``--self-play-symmetric``)."""
    from .mmd import algorithm
    from .selfplay import SeatRolloutBuffer

    extra = {"magnet_coef": cfg.magnet_coef, "magnet_every": cfg.magnet_every} \
        if cfg.algo == "mmd" else {}
    if cfg.self_play_symmetric:
        extra["rollout_buffer_class"] = SeatRolloutBuffer
    return algorithm(cfg.algo), extra
