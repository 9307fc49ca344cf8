"""No lab notebook in the product: the shipped files (code, comments, docstrings, package
data, build files, benchmarks, scripts) and every console script's ``--help`` hold no
machine notes and no run history ("on our 2-core machine", "fastest here", "we tried",
a run's date, a timing such as "~10 us"). Results and what was tried live in ``docs/`` (the experiments page)."""

from __future__ import annotations

import contextlib
import importlib
import io
import re

import pytest
from helpers import ROOT

#: What a note about one machine or one run looks like.
PHRASES = re.compile("|".join((
    r"\b(\d+|two|four|eight)[- ](cpu[- ])?cores?\b",  # "2 CPU cores", "a 2-core machine"
    r"\b(fastest|slowest|faster|slower) here\b",
    r"\b(loaded|idle|busy) machines?\b",
    r"\b(our|my|this|a shared) (machines?|laptop|box|server)\b",
    r"\bby other jobs\b",
    r"\bwe (tried|measured|found)\b",
    r"\b(did not|didn't|does not|doesn't) help\b",
    r"\b20\d\d-[01]\d-[0-3]\d\b",  # a date
    # a timing: "~10 us", "a few us per decision", "0.06 s per decision"
    r"(?:\d[\d.,]* ?|\ba few )(?:us|µs|ms)\b|\b\d[\d.,]* ?s(?:econds?)? (?:per|each)\b",
)), re.IGNORECASE)

#: The shipped files and those that build, benchmark or regenerate them.
FOLDERS = ("src", "csrc", "bench", "scripts")
TOP_FILES = ("setup.py", "pyproject.toml", "Makefile", "MANIFEST.in")
SUFFIXES = {".py", ".c", ".h", ".json", ".toml", ".txt", ".cfg", ".sh", ".in"}

#: Notes allowed for a while, as (file or "<script> --help", the phrase found), while a
#: change moves them to docs/EXPERIMENTS.md; remove an entry with its note.
PENDING: set[tuple[str, str]] = set()


def notes(text: str) -> list[str]:
    """The machine notes and run-history phrases in ``text``."""
    return [m.group(0) for m in PHRASES.finditer(" ".join(text.split()))]


def shipped_files() -> list[str]:
    files = [name for name in TOP_FILES if (ROOT / name).exists()]
    for folder in FOLDERS:
        files += sorted(str(p.relative_to(ROOT)) for p in (ROOT / folder).rglob("*")
                        if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts
                        and not p.name.startswith("."))
    return files


def help_texts() -> dict[str, str]:
    """``--help`` of every console script (and of each subcommand), by command line."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib in 3.10
    section = pyproject.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    scripts = dict(re.findall(r'^([\w-]+) = "([\w.:]+)"', section, re.M))
    assert scripts, "pyproject.toml lists no console scripts"
    out = {}

    def run(name, main, argv):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            with contextlib.suppress(SystemExit):
                main(argv)
        out[" ".join((name, *argv))] = buf.getvalue()
        return buf.getvalue()

    for name, target in scripts.items():
        module, _, attr = target.partition(":")
        try:
            main = getattr(importlib.import_module(module), attr)
        except ImportError:  # an optional extra that is not installed
            continue
        text = run(name, main, ["--help"])
        usage = " ".join(text.split("\n\n", 1)[0].split())
        for group in re.findall(r"\{([\w,-]+)\} \.\.\.", usage):  # subcommands
            for sub in group.split(","):
                run(name, main, [sub, "--help"])
    return out


def test_the_check_finds_machine_notes_and_run_history():
    assert notes("(default 600: loaded machines)") == ["loaded machines"]
    assert notes("from short runs on 2 CPU\n  cores") == ["2 CPU cores"]
    assert notes("dummy (fastest here)") == ["fastest here"]
    assert notes('"machine": "a shared 2-core machine, loaded by other jobs"') == [
        "2-core", "by other jobs"]
    assert notes("Variants that were measured and did not help") == ["did not help"]
    assert notes("run of 2026-11-25") == ["2026-11-25"]
    assert notes("each world costs ~10 us. (a few us per decision) about 0.06 s per move") == [
        "10 us", "a few us", "0.06 s per"]
    assert notes("processes (default: all cores); a loaded queue; our arena") == []


@pytest.mark.parametrize("name", shipped_files())
def test_shipped_file_has_no_lab_notebook(name):
    found = notes((ROOT / name).read_text(encoding="utf-8", errors="replace"))
    assert [n for n in found if (name, n) not in PENDING] == [], \
        f"{name}: move machine notes and results to docs/ (the experiments page)"


def test_help_texts_have_no_lab_notebook():
    texts = help_texts()
    assert "widderkopf-eval --help" in texts and "widderkopf-play --help" in texts
    found = {(cmd, n) for cmd, text in texts.items() for n in notes(text)}
    assert found - PENDING == set()
