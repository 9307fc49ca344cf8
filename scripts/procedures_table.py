"""Write docs/procedures.md: each rule procedure with its two homes and the test that ties them.

    python scripts/procedures_table.py           # write the page
    python scripts/procedures_table.py --check   # exit 1 when the page is stale or an entry is

Each rule procedure is written twice: once in Python (the reference, under
``src/widderkopf_env/``) and once in C (the compiled core, under ``csrc/``). A differential
test ties the two. :data:`PROCEDURES` lists them, one line per procedure; when a procedure
moves or is renamed, edit its line and run this script.
tests/project/test_procedures_table.py checks that the page is this script's output and
that every entry names something that exists (:func:`stale_entries`).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "procedures.md"
CSRC = ROOT / "csrc"
PACKAGE = "widderkopf_env"

#: One line per procedure: rules | procedure | Python home (module:qualname under
#: src/widderkopf_env/) | C home (a function defined in csrc/) | the test that ties them
#: (tests/PATH.py::test_name).
PROCEDURES = """
R11 | the escalation right of one player | rules:PyGame._may_escalate | wk_may_escalate | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R11 | both players' escalation rights, as observed | rules:PyGame.escalation_rights | wk_rights | tests/core/test_encoders_agree.py::test_fast_encoder_equals_the_reference_at_every_position
R11 | an escalation raises the level, names the cracker and recracker | rules:PyGame._raise_level | wk_raise_level | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R11 | the due player escalates; the other answers at once if they may | rules:PyGame._escalate_due | wk_apply | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R11 | the answer: escalate or pass | rules:PyGame._apply_answer | wk_apply | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R13, R15 | the legal set of a card play (playable cards, following, escalate) | rules:PyGame._legal_play | wk_compute_legal | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R9 | trump naming | rules:PyGame._apply_trump | wk_apply | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R10 | the discard | rules:PyGame._apply_discard | wk_apply | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R13 | playing a card from the hand or a pile | rules:PyGame._apply_play | wk_play | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R14 | a pile's face-down card turned over after the trick | rules:PyGame._turn_over | wk_turn_over | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R16 | the trick winner | rules:PyGame._apply_play | wk_play | tests/vector/test_vector_engine.py::test_single_hands_equal_the_scalar_engine_at_every_decision
R17-R19, R20 | the end of a hand: card points, Spitzer, winner, value, match score, match over | rules:PyGame._finish_hand | wk_finish_hand | tests/vector/test_vector_engine.py::test_matches_with_tie_break_hands_equal_the_scalar_engine
R9, R12 | the start of a hand: dealer, chooser, piles, leader | rules:PyGame._start_hand | wk_start_hand | tests/core/test_core_game.py::test_the_compiled_game_equals_the_python_game_at_every_decision
R6, R7 | the seeded deal: a hash of the seed decoded into a permutation of the deck | deals:_shuffled_deal_py | shuffled_deal | tests/core/test_seeded_deals.py::test_compiled_shuffle_equals_the_reference_on_any_digest
R6, R20 | a new match | rules:PyGame._create | wk_new_match | tests/vector/test_vector_env.py::test_matches_follow_game_new_with_tie_breaks
rewards | player_0's reward for a move: the hand's value, the card-point shaping | episode:move_reward | wk_settle | tests/vector/test_vector_env.py::test_self_play_equals_the_aec_env_step_by_step
"""


class Procedure(NamedTuple):
    rules: str
    name: str
    python: str
    c: str
    test: str


def procedures(text: str = PROCEDURES) -> list[Procedure]:
    """The entries of ``text``, one per non-empty line of five ``|``-separated fields."""
    found = []
    for number, line in enumerate(text.strip().splitlines(), 1):
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 5 or not all(fields):
            raise ValueError(f"PROCEDURES line {number}: expected 5 non-empty fields "
                             f"separated by '|', got {line!r}")
        found.append(Procedure(*fields))
    return found


# --- where each home lives ----------------------------------------------------------------

def python_home(home: str) -> tuple[str, object]:
    """The file and the object of ``module:qualname`` under the package; raises
    ``LookupError`` saying what is missing."""
    module, colon, qualname = home.partition(":")
    if not colon or not module or not qualname:
        raise LookupError(f"{home!r} is not of the form module:qualname")
    try:
        obj = importlib.import_module(f"{PACKAGE}.{module}")
    except ImportError as error:
        raise LookupError(f"module {PACKAGE}.{module} does not import ({error})") from None
    path = Path(obj.__file__).relative_to(ROOT).as_posix()
    for i, part in enumerate(qualname.split(".")):
        try:
            obj = inspect_attr(obj, part)
        except AttributeError:
            owner = ".".join([module, *qualname.split(".")[:i]])
            raise LookupError(f"{owner} has no attribute {part!r}") from None
    return path, obj


def inspect_attr(obj, name: str):
    """``obj.name``, found in a class's own dictionaries (a property stays a property)."""
    if isinstance(obj, type):
        for klass in obj.__mro__:
            if name in vars(klass):
                return vars(klass)[name]
        raise AttributeError(name)
    return getattr(obj, name)


#: A C function definition: a return type, the name, its parameters, then its body.
C_DEFINITION = r"^[A-Za-z_][\w \t\*]*?\b{name}\s*\([^;{{]*\)\s*\{{"


def c_home(name: str) -> str:
    """The file under csrc/ that defines the C function ``name``; raises ``LookupError``."""
    pattern = re.compile(C_DEFINITION.format(name=re.escape(name)), re.M)
    found = sorted(path.relative_to(ROOT).as_posix() for path in CSRC.rglob("*.[ch]")
                   if pattern.search(path.read_text(encoding="utf-8")))
    if not found:
        raise LookupError(f"no C function {name!r} is defined in csrc/")
    return found[0]


def defined_tests(path: Path) -> set[str]:
    """The names of the test functions a test file defines (top level or in a class)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test")}


def reference_problem(ref: str) -> str | None:
    """What is wrong with the test reference ``tests/PATH.py::test_name`` (None: it
    names a test function that exists)."""
    path, colons, name = ref.partition("::")
    if not path.startswith("tests/") or not path.endswith(".py"):
        return f"{ref!r}: the path is not a tests/....py file"
    if not (ROOT / path).is_file():
        return f"{ref!r}: {path} does not exist"
    if colons and name not in defined_tests(ROOT / path):
        return f"{ref!r}: {path} defines no test function {name!r}"
    return None


def stale_entries(entries: list[Procedure] | None = None) -> list[str]:
    """One message per home or test that does not exist, naming its entry."""
    problems = []
    for entry in procedures() if entries is None else entries:
        where = f"PROCEDURES entry {entry.name!r} ({entry.rules})"
        try:
            python_home(entry.python)
        except LookupError as error:
            problems.append(f"{where}: Python home {entry.python!r}: {error}")
        try:
            c_home(entry.c)
        except LookupError as error:
            problems.append(f"{where}: C home {entry.c!r}: {error}")
        problem = reference_problem(entry.test)
        if problem:
            problems.append(f"{where}: test {problem}")
    return problems


# --- the page ---------------------------------------------------------------------------

HEADER = """\
# Rule procedures: two homes each

<!-- Generated by scripts/procedures_table.py: edit its PROCEDURES list, then run
     python scripts/procedures_table.py (tests/project/test_procedures_table.py). -->

*This page is generated by `python scripts/procedures_table.py` from its `PROCEDURES`
list; edit the list, not the page.*

Each rule procedure ([Rules](rules.md)) is written twice: in Python, the readable
reference (`src/widderkopf_env/`), and in C, the compiled core (`csrc/`, built as
`widderkopf_env._core`; see [Architecture](architecture.md#the-compiled-core)). The test
named beside each runs both on the same games and compares them at every decision.
`tests/project/test_procedures_table.py` checks that every home and test named here
exists.

| rules | procedure | Python reference | C core | the test that ties them |
|---|---|---|---|---|
"""


def where(entry: Procedure) -> tuple[str, str]:
    """The page's cells for the two homes (a home that cannot be found is named as is)."""
    try:
        py_file = python_home(entry.python)[0]
    except LookupError:
        py_file = "?"
    try:
        c_file = c_home(entry.c)
    except LookupError:
        c_file = "?"
    return (f"`{py_file}`: `{entry.python.partition(':')[2]}`", f"`{c_file}`: `{entry.c}`")


def page(entries: list[Procedure] | None = None) -> str:
    """The text of docs/procedures.md."""
    rows = []
    for entry in procedures() if entries is None else entries:
        python, c = where(entry)
        rows.append(f"| {entry.rules} | {entry.name} | {python} | {c} | `{entry.test}` |\n")
    return HEADER + "".join(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true",
                   help="exit 1 when the page is stale or an entry names nothing")
    args = p.parse_args(argv)
    problems = stale_entries()
    for problem in problems:
        print(problem, file=sys.stderr)
    text = page()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE.relative_to(ROOT)} is stale: run python scripts/procedures_table.py",
                  file=sys.stderr)
            return 1
        return 1 if problems else 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
