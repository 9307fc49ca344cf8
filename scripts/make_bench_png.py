"""Draw the numpy vector engine's speed plot of docs/EXPERIMENTS.md:
``python scripts/make_bench_png.py`` -> docs/vector_speed.png (matplotlib: the ``[train]``
extra).

The figures are read from the page's own table (the section "Vector environments on the
numpy engine"), so the plot and the table cannot disagree: rerun this after updating it.
"""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGE = DOCS / "EXPERIMENTS.md"
HEADER = "| env | N | wall us / decision | CPU us / decision |"


def vector_table(text: str) -> dict[str, list[tuple[int, float]]]:
    """``{env: [(N, wall us per decision), ...]}`` from the page's table (an empty env cell
    continues the row above)."""
    start = text.index(HEADER)
    rows: dict[str, list[tuple[int, float]]] = {}
    env = None
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        env = cells[0] or env
        rows.setdefault(env, []).append((int(cells[1]), float(cells[2].strip("*"))))
    return rows


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = vector_table(PAGE.read_text(encoding="utf-8"))
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for env, points in rows.items():
        sizes, costs = [n for n, _ in points], [us for _, us in points]
        ax.plot(sizes, costs, marker="o", label=env.replace("`", ""))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("games stepped together (N)")
    ax.set_ylabel("wall-clock us per decision")
    ax.set_title("Vector environments: cost of a decision (python bench/vector.py)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = DOCS / "vector_speed.png"
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
