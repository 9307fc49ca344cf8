"""The reference pages state today's truth, each figure with where it was measured.

The companion of ``test_docs.py::test_each_result_stands_on_one_page`` (one page per
result): on a reference page a figure (a number with a unit, ``4M decisions``, ``0.83 us``,
``13%``; a ratio, ``3.2x``, ``59-63x``; a signed result, ``+0.55``) stands in a table row
that names its command, or in a paragraph or list item beside a command or a link to where
it was measured; never bare. And every test that docs/guarantees.md names exists.
"""

from __future__ import annotations

import re

import pytest
from helpers import ROOT

DOCS = ROOT / "docs"
#: Pages that record history, not today's figures.
HISTORY = {"EXPERIMENTS.md", "changelog.md"}
#: Pages not yet held to it (results pages rewritten elsewhere; remove a page once it
#: passes), and the options table generated from the --help texts (whose figures
#: ``test_no_lab_notebook.py`` checks).
NOT_YET = {"bots.md", "training.md", "openspiel.md", "api/cli.md"}

#: A figure: a signed decimal, a ratio, or a number with a unit (a 95% interval's level is
#: not a figure).
FIGURE = re.compile(r"""(?x)
    (?<![\w.+-])[+-]\d+\.\d+(?![\w.])
  | (?<![\w.])\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?x(?!\w)
  | (?<![\w.])\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?
    (?:\ ?(?:ns|us|µs|ms|min|kB|KB|MB|GB|MiB|GiB|%|M|k)|\ (?:s|h|minutes|hours|(?:env\ )?steps/s|decisions/s))
    (?![\w/])(?<!95%)
""")
#: Where a figure was measured: a command, a test, or a link.
SOURCE = re.compile(r"""(?x)
    `(?:python|make|pytest|widderkopf[\w-]*|WIDDERKOPF_\w+=|CI=|scripts/|bench/|tests/)[^`]*`
  | \]\([^)]+\)
""")
CODE_SPAN = re.compile(r"`[^`\n]*`")
ITEM = re.compile(r"\s*(?:[-*]|\d+\.) ")


def blocks(text: str) -> list[tuple[int, str]]:
    """``(first line, text)`` of each table row, heading, list item and paragraph (code
    blocks left out)."""
    found, current, start, fence = [], [], 0, False

    def close():
        if current:
            found.append((start, " ".join(current)))
            current.clear()

    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
            close()
        elif fence:
            continue
        elif not line.strip():
            close()
        elif line.startswith(("|", "#")):
            close()
            found.append((number, line))
        elif ITEM.match(line) or not current:
            close()
            start, current = number, [line]
        else:
            current.append(line)
    close()
    return found


def bare_figures(text: str) -> list[tuple[int, str]]:
    """``(line, figure)`` of each figure of ``text`` with no command, test or link beside
    it. A table row whose cell says ``same`` takes the command of the row above."""
    bare, above = [], False
    for line, block in blocks(text):
        row = block.startswith("|")
        same = row and above and re.search(r"\|\s*same\s*\|", block)
        sourced = bool(SOURCE.search(block) or same)
        above = row and sourced
        if not sourced:
            bare += [(line, m.group(0)) for m in FIGURE.finditer(CODE_SPAN.sub("", block))]
    return bare


def reference_pages() -> list[str]:
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    return [p for p in pages if p not in HISTORY | NOT_YET]


def test_the_check_finds_bare_figures_and_passes_sourced_ones():
    for figure in ("3.2x", "59-63x", "4M decisions", "+0.55", "0.83 us", "13%", "2.5 s",
                   "1,137 steps/s", "12 MB"):
        assert bare_figures(f"It ran {figure} here.\n"), figure
    for text in ("95% interval", "R17-R19", "the four 7s", "a 960x640 frame", "2^63 - 1",
                 "N = 4096", "`--seconds 0.5`", "1..1,000,000", "-1 if none"):
        assert not bare_figures(f"It is {text} here.\n"), text
    assert bare_figures("| a | 3.2x |\n")
    table = ("| what | command | ratio |\n|---|---|---|\n"
             "| a | `python bench/engine.py` | 3.2x |\n| b | same | 1.1x |\n")
    assert bare_figures(table) == []
    assert bare_figures("| b | same | 1.1x |\n") == [(1, "1.1x")]
    assert bare_figures("Took 2.4 s\n(`python bench/env.py --full`).\n\nThen 3x.\n") == [
        (4, "3x")]
    assert bare_figures("- 45 MB ([Experiments](EXPERIMENTS.md#x))\n- 3x faster\n") == [
        (2, "3x")]
    assert bare_figures("```bash\nsleep 3 s\n```\n") == []


@pytest.mark.parametrize("page", reference_pages())
def test_no_bare_figure_on_a_reference_page(page):
    found = bare_figures((DOCS / page).read_text(encoding="utf-8"))
    assert not found, (
        f"docs/{page}: figures with no command, test or link beside them (line, figure): "
        f"{found}; give each its command, or move it to docs/EXPERIMENTS.md")


def test_the_pages_not_yet_checked_exist():
    for page in HISTORY | NOT_YET:
        assert (DOCS / page).is_file(), f"docs/{page} is gone: drop it from the lists"


# --- docs/guarantees.md: every test it names exists ----------------------------------------

#: A code span that names a test: a test file or function, with or without its path.
TEST_SPAN = re.compile(r"`([\w/.:]*\btest_\w*[\w/.:]*)`")
#: How the guarantees page names a test: ``tests/PATH.py`` or ``tests/PATH.py::test_name``.
TEST_REF = re.compile(r"tests/[\w/]+\.py(?:::test_\w+)?")



def named_tests(text: str) -> list[tuple[int, str]]:
    """``(line, code span)`` of each test a page names."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in TEST_SPAN.finditer(text)]


def test_the_reader_finds_every_form_of_a_test_name():
    text = ("`tests/core/test_fuzz.py` (`tests/core/test_fuzz.py::test_a`, `::test_b`,\n"
            "`test_c`); `test_replay.py::test_d`; `--safe`, `run_cli`, `make test`\n")
    assert named_tests(text) == [
        (1, "tests/core/test_fuzz.py"), (1, "tests/core/test_fuzz.py::test_a"),
        (1, "::test_b"), (2, "test_c"), (2, "test_replay.py::test_d")]
    assert [bool(TEST_REF.fullmatch(ref)) for _, ref in named_tests(text)] == [
        True, True, False, False, False]


def test_every_test_the_guarantees_page_names_exists(procedures_table):
    refs = named_tests((DOCS / "guarantees.md").read_text(encoding="utf-8"))
    assert len(refs) > 100
    problems = []
    for line, ref in refs:
        if not TEST_REF.fullmatch(ref):
            problems.append(f"line {line}: {ref!r}: write it as tests/PATH.py::test_name")
        elif problem := procedures_table.reference_problem(ref):
            problems.append(f"line {line}: {problem}")
    assert not problems, "docs/guarantees.md names tests that do not exist:\n" + "\n".join(
        problems)
