"""Progress bars weighted by cost: a deal pair moves the bar by what it costs (its two
bots' :data:`~widderkopf_env.agents.arena.DECISION_COST`), so a ladder whose last
opponent is a search bot does not sit at 75% for most of its time."""

from __future__ import annotations

import pytest

from widderkopf_env.agents import arena, ladder
from widderkopf_env.agents.arena import Progress, pair_cost, run_duplicate


class Recorded(Progress):
    """A silent bar that keeps every update and its total work."""

    made: list = []

    def __init__(self, total, enabled, desc, work=None):
        super().__init__(total, False, desc, work)
        self.updates = []
        Recorded.made.append(self)

    def update(self, n, cost=1.0):
        super().update(n, cost)
        self.updates.append((n, cost))


def test_a_search_bots_pair_weighs_what_it_costs():
    assert pair_cost("heuristic", "random") == 2.0
    assert pair_cost("pimc-uniform", "heuristic") > 1000 * pair_cost("heuristic", "random")
    assert pair_cost("mybot.py:Bot", "heuristic") == arena.UNKNOWN_COST + 1


def test_the_ladders_bar_weighs_each_opponents_pairs(monkeypatch):
    monkeypatch.setattr(arena, "DECISION_COST", {"random": 1, "heuristic": 99})
    monkeypatch.setattr(ladder, "Progress", Recorded)
    Recorded.made = []
    ladder.run_ladder("random", pairs=2, baselines=["random", "heuristic"], workers=1,
                      samples=20)
    [bar] = Recorded.made
    assert bar.total == 4 and bar.done == 4
    assert bar.work == 2 * 2 + 2 * 100 == bar.work_done
    assert bar.updates == [(2, 2.0), (2, 100.0)]  # random's pairs, then heuristic's
    # after the random opponent half the pairs were played, but 2% of the work
    assert 4 / 204 == pytest.approx(sum(n * c for n, c in bar.updates[:1]) / bar.work)


def test_the_bar_shows_the_share_of_the_work_and_the_pairs(capsys):
    pytest.importorskip("tqdm")
    run_duplicate("random", "heuristic", 3, workers=1, progress=True)
    err = capsys.readouterr().err
    assert "100%" in err and "3/3 deal pairs" in err


def test_without_tqdm_the_line_counts_pairs_and_work(monkeypatch, capsys):
    import builtins

    real = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name == "tqdm":
            raise ImportError("no tqdm")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    bar = Progress(4, True, "x", work=10.0)
    bar.update(1, 1.0)
    bar.update(3, 3.0)
    bar.close()
    err = capsys.readouterr().err
    assert "1/4 deal pairs, 10% of the work" in err and "4/4 deal pairs, 100% of the work" in err
