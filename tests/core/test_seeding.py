"""Seeds and worker counts shared by every layer (src/widderkopf_env/seeding.py)."""

from __future__ import annotations

from widderkopf_env.seeding import default_workers, derive_seed


def test_derive_seed_is_stable_and_distinct():
    assert derive_seed(0, "deal", 1) == derive_seed(0, "deal", 1)
    assert derive_seed(2026, "deal", 7) == 8291509636423301160  # the same on every platform and version
    assert len({derive_seed(s, "deal", i) for s in range(3) for i in range(100)}) == 300
    assert 0 <= derive_seed(123, "x") < 2 ** 63


def test_default_workers_is_a_positive_count():
    assert isinstance(default_workers(), int) and default_workers() >= 1


def test_the_arena_and_training_use_the_core_helpers():
    from widderkopf_env.agents import arena, ladder

    assert arena.derive_seed is ladder.derive_seed is derive_seed
    assert arena.default_workers is ladder.default_workers is default_workers
