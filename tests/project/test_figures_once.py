"""Each bot's figure stands once: in the table "The bots at a glance" of docs/bots.md,
labelled with what it is against; the README and the other pages link to it (a figure
copied to four pages drifts into four versions of itself)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Pages that record history, not the current figures.
HISTORY = {"EXPERIMENTS.md", "changelog.md"}
FIGURE = re.compile(r"[+-]\d+\.\d{2,4}\b")
RESULT = re.compile(r"([+-]\d+\.\d+)\** \[([+-]\d+\.\d+), ([+-]\d+\.\d+)\]")


def pages() -> dict[str, str]:
    found = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for page in sorted(DOCS.rglob("*.md")):
        if page.name not in HISTORY:
            found[page.relative_to(ROOT).as_posix()] = page.read_text(encoding="utf-8")
    return found


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of its level or above."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n")
    nxt = re.compile(rf"^#{{1,{len(level)}}} ", re.M).search(text, start + len(heading))
    return text[start:nxt.start() if nxt else len(text)]


def glance() -> dict[str, tuple]:
    """Each row of the bots' table: its name and the results (mean, interval) it holds."""
    table = section((DOCS / "bots.md").read_text(encoding="utf-8"), "## The bots at a glance")
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    return {row.split("|")[1].strip(" *"): tuple(RESULT.findall(row)) for row in rows[1:]}


def test_the_readme_links_to_the_bots_figures_and_repeats_none():
    bots = section(pages()["README.md"], "## Bots")
    assert FIGURE.findall(bots) == []
    assert "docs/bots.md#the-bots-at-a-glance" in bots
    # the net row: beats net-v2 head to head, with no figure that reads as its margin
    net = next(line for line in bots.splitlines() if line.startswith("| `net` |"))
    assert "`net-v2`" in net and not FIGURE.search(net)


def test_each_figure_of_the_bots_table_stands_once():
    rows = glance()
    assert {"ppo", "net", "net-v2", "net-v1", "pimc"} <= set(rows) and rows["net"]
    text = {name: " ".join(t.split()) for name, t in pages().items()}
    for bot, results in rows.items():
        for mean, low, high in results:
            where = {name: t.count(f"[{low}, {high}]") for name, t in text.items()}
            assert {k: v for k, v in where.items() if v} == {"docs/bots.md": 1}, (bot, mean)
            # rounded or to four places, the mean is not restated with its interval elsewhere
            assert not any(re.search(rf"{re.escape(mean)}0?\** \| \**\[", t)
                           for t in text.values()), (bot, mean)


def test_the_ppo_figure_against_the_heuristic_stands_once():
    mean = glance()["ppo"][0][0]  # the first result of the row: against the heuristic
    found = {name: len(re.findall(rf"{re.escape(mean)}0*\b", t)) for name, t in pages().items()}
    assert {k: v for k, v in found.items() if v} == {"docs/bots.md": 1}
    assert "bots.md#the-bots-at-a-glance" in section(
        pages()["docs/training.md"], "## PPO training")
