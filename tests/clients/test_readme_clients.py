"""The docs page "Use with your RL library" (docs/clients.md) is checked against what is
installed: each listed version is the installed one (and the one the ``[clients]`` extra
pins), and each snippet runs as printed."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "clients.md"


def section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text[text.index("<!-- clients:start -->"):text.index("<!-- clients:end -->")]


def table() -> list[tuple[str, str, str, str]]:
    """``(library, package, version, start with)`` for each row of the table."""
    rows = []
    for line in section().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1].startswith("`"):
            rows.append((cells[0], cells[1].strip("`"), cells[2], cells[3].strip("`")))
    return rows


ROWS = table()
SNIPPETS = re.findall(r"```python\n(.*?)```", section(), re.S)


def installed(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        pytest.skip(f"{package} is not installed (pip install -e '.[clients]')")


def test_one_snippet_per_row():
    assert len(ROWS) >= 5 and len(SNIPPETS) == len(ROWS)
    for (library, _, _, start), code in zip(ROWS, SNIPPETS, strict=True):
        assert start.rstrip(")") in code, f"{library}: {start!r} is not in its snippet"


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_version_is_the_installed_one_and_the_pinned_one(row):
    library, package, version, _ = row
    assert installed(package) == version, (
        f"docs/clients.md lists {library} {version}, but {installed(package)} is installed: run "
        f"tests/clients/ with it and update the table and the [clients] extra")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib in 3.10
    extra = re.search(r"^clients = \[(.*?)^\]", pyproject, re.S | re.M).group(1)
    assert f'"{package}=={version}"' in extra


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[r[0] for r in ROWS])
@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version")
def test_snippet_runs(index):
    installed(ROWS[index][1])
    code = SNIPPETS[index]
    exec(compile(code, f"docs/clients.md ({ROWS[index][0]})", "exec"), {"__name__": "docs"})
