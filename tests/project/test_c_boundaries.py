"""The C core (csrc/) keeps to its own memory and runs one way.

- **No reach into others' internals**: no C file builds an instance of a Python class
  through ``tp_alloc`` (a C type allocating itself in its own ``tp_new``, or a type object
  the file defines, is fine), reads a member descriptor's ``d_member`` or an int's
  ``ob_digit``, names PettingZoo's private attributes (``_cumulative_rewards``,
  ``_has_updated``, ``_skip_agent_selection``, ``_was_dead_step``), decides by a reference
  count (``Py_REFCNT``), writes ``tp_dictoffset`` or patches a class
  (``PyObject_SetAttr`` on a type, ``PyType_Modified``).
- **No circle among the files**: a file depends on the files it includes and on the files
  that define the non-static functions and globals it names; those dependencies form no
  cycle (the layers: state.h <- rules.h <- encode.h <- core.h; bind.c, pool.c <- batch.c,
  play.c <- module.c; csrc/README.md).

Both checks read whatever files csrc/ holds now.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT
from test_architecture import find_cycle

CSRC = ROOT / "csrc"
C_FILES = sorted(p for p in CSRC.rglob("*") if p.suffix in (".c", ".h"))


def name(path: Path) -> str:
    return str(path.relative_to(CSRC))


# ---- reading C ------------------------------------------------------------------------------

def code_of(text: str, strings: bool = False) -> str:
    """The text without comments (blanked, their line breaks kept) and, unless
    ``strings``, with every string and character literal emptied and the preprocessor
    lines blanked."""
    out, i, n = [], 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "/*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif two == "//":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1] if strings else quote * 2)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    lines, blank = [], False
    for line in "".join(out).split("\n"):
        directive = not strings and (blank or line.lstrip().startswith("#"))
        lines.append("" if directive else line)
        blank = directive and line.rstrip().endswith("\\")
    return "\n".join(lines)


IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


def top_level(code: str):
    """The file-scope statements of ``code``: (head, body) with the text before a ``{`` or
    ``;`` at depth 0 and the braces' contents (None for a ``;``)."""
    depth, start, body_start, head = 0, 0, 0, ""
    for i, ch in enumerate(code):
        if ch == "{":
            if depth == 0:
                head, body_start = code[start:i], i + 1
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                # a struct's declarators (`} name;`) or an initializer's `;` end it
                if re.match(r"[ \t\w,*\[\]]*;", code[i + 1:]) or "=" in head or "(" not in head:
                    continue
                yield head, code[body_start:i]
                start = i + 1
        elif ch == ";" and depth == 0:
            yield code[start:i], None
            start = i + 1


def definitions(path: Path) -> set[str]:
    """The non-static functions and globals ``path`` defines."""
    out = set()
    for head, body in top_level(code_of(path.read_text(encoding="utf-8"))):
        words = IDENT.findall(head)
        if not words or {"static", "extern", "typedef"} & set(words) \
                or (words[0] in ("enum", "struct", "union") and "{" in head):
            continue  # the file's own, a declaration, or a type (enum constants too)
        if body is not None and "(" in head and "=" not in head:  # a function
            out.add(IDENT.findall(head[:head.index("(")])[-1])
        elif "(" not in head.split("=")[0]:  # a global: each declarator's name
            for part in re.split(r",(?![^{]*})", head.split("=")[0]):
                found = IDENT.findall(part.split("[")[0])
                if found:
                    out.add(found[-1])
    return out


def includes(path: Path, files: list[Path]) -> set[Path]:
    """The files of ``files`` that ``path`` includes with ``#include "..."``."""
    found = re.findall(r'^\s*#\s*include\s+"([^"]+)"', path.read_text(encoding="utf-8"), re.M)
    return {p for p in files if p.resolve() in {(path.parent / f).resolve() for f in found}}


def inline_functions(path: Path) -> dict[str, set[str]]:
    """A header's (static inline) functions: name -> the identifiers in its body."""
    return {IDENT.findall(head[:head.index("(")])[-1]: set(IDENT.findall(body))
            for head, body in top_level(code_of(path.read_text(encoding="utf-8")))
            if body is not None}


def dependency_graph(files: list[Path]) -> dict[str, set[str]]:
    """File -> the files it depends on: those it includes, and for a .c file those that
    define what it names, itself or through the inline functions it calls of the headers
    it includes (compiled into it). A header's declarations call nothing."""
    defined = {p: definitions(p) for p in files}
    included = {p: includes(p, files) for p in files}
    graph = {name(p): {name(q) for q in included[p]} for p in files}
    for p in files:
        if p.suffix != ".c":
            continue
        inline, seen, todo = {}, set(), [p]
        while todo:  # the headers p includes, directly or not
            for h in included[todo.pop()] - seen:
                seen.add(h)
                inline.update(inline_functions(h))
                todo.append(h)
        words, calls = set(IDENT.findall(code_of(p.read_text(encoding="utf-8")))), set()
        while (new := (words & inline.keys()) - calls):  # the inline functions it calls
            calls |= new
            words = words.union(*(inline[f] for f in new))
        for q in files:
            if q != p and (words - defined[p]) & defined[q]:
                graph[name(p)].add(name(q))
    return graph


# ---- the checks -------------------------------------------------------------------------------

def test_the_c_files_are_read():
    assert {"core.h", "rules.h", "batch.c", "bind.c", "play.c", "module.c"} <= {
        name(p) for p in C_FILES}
    assert {"wk_bind", "wk_get_array", "wk_batch_rules", "wk_obs_layout"} <= definitions(
        CSRC / "bind.c")
    assert "wk_vec_play" in definitions(CSRC / "play.c")
    assert definitions(CSRC / "state.h") == set()  # types and enum constants only
    assert "vec_apply" not in definitions(CSRC / "batch.c")  # static: the file's own


def test_the_dependencies_are_found(tmp_path, monkeypatch):
    (tmp_path / "a.h").write_text("int a_call(int x);\nextern int a_count;\n"
                                  "static inline int twice(int x) { return b_call(x) * 2; }\n"
                                  "static inline int d(void) { return d_call(); }\n")
    (tmp_path / "d.c").write_text('#include "a.h"\nint d_call(void) { return 1; }\n')
    (tmp_path / "a.c").write_text('#include "a.h"\nint a_count = 0;\n'
                                  "int a_call(int x) { return twice(x); } /* b_call */\n")
    (tmp_path / "b.c").write_text('#include "a.h"\nint b_call(int x) {\n'
                                  '    return a_call(x) + a_count; /* "c_call" */\n}\n')
    (tmp_path / "c.c").write_text("enum { C_ONE, C_TWO };\nstruct pair { int a, b; };\n"
                                  "static int c_call(void) { return 0; }\n"
                                  "int c_user(void) { const char *s = \"b_call\";\n"
                                  "    return c_call() + (s != 0); }\n")
    files = sorted(tmp_path.glob("*.[ch]"))
    monkeypatch.setattr(__import__(__name__), "CSRC", tmp_path)
    monkeypatch.setattr(__import__(__name__), "C_FILES", files)
    graph = dependency_graph(files)
    # a.c calls b_call through a.h's inline function; b.c calls a_call and reads a_count
    # (d.c includes a.h but calls none of its inline functions, so not b.c's b_call)
    assert graph == {"a.c": {"a.h", "b.c"}, "a.h": set(), "b.c": {"a.c", "a.h"},
                     "c.c": set(), "d.c": {"a.h"}}
    assert find_cycle(graph) == ["a.c", "b.c", "a.c"]
    assert definitions(tmp_path / "c.c") == {"c_user"}
    assert definitions(tmp_path / "a.c") == {"a_count", "a_call"}


def test_no_circle_among_the_c_files():
    cycle = find_cycle(dependency_graph(C_FILES))
    assert cycle is None, "C files in a circle: " + " -> ".join(cycle)


#: (what, pattern) of what no C file may do
FORBIDDEN = [
    ("a member descriptor's slot offset (d_member)", r"\bd_member\b"),
    ("an int's digits (ob_digit)", r"\bob_digit\b"),
    ("PettingZoo's private _cumulative_rewards", r"_cumulative_rewards"),
    ("PettingZoo's private _has_updated", r"_has_updated"),
    ("PettingZoo's private _skip_agent_selection", r"_skip_agent_selection"),
    ("PettingZoo's private _was_dead_step", r"_was_dead_step"),
    ("a decision by reference count (Py_REFCNT)", r"\bPy_REFCNT\b"),
    ("a write of tp_dictoffset", r"\btp_dictoffset\s*=[^=]"),
    ("a class patched (PyType_Modified)", r"\bPyType_Modified\b"),
    ("a class patched (an attribute set on a type)",
     r"\bPyObject_SetAttr\w*\s*\(\s*\(\s*PyObject\s*\*\s*\)\s*&?\s*\w*[Tt]ype\w*"
     r"|\bPyObject_SetAttr\w*\s*\(\s*\w*_type\b"
     r"|\bPyDict_SetItem\w*\s*\([^,;]*->\s*tp_dict\b"),
]

TP_ALLOC = re.compile(r"(\(&?\w+\)|\w+)\s*(?:->|\.)\s*tp_alloc\s*\(")


def own_types(code: str) -> set[str]:
    """The type objects a file makes itself: ``PyTypeObject X = {...}`` and pointers set
    from ``PyType_FromSpec``/``PyType_FromModuleAndSpec``."""
    static = re.findall(r"\bPyTypeObject\s+(\w+)\s*=", code)
    made = re.findall(r"\b(\w+)\s*=\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?"
                      r"PyType_From(?:Module)?(?:And)?Spec\w*\s*\(", code)
    return set(static) | set(made)


def foreign_tp_alloc(code: str) -> list[str]:
    """The tp_alloc calls of ``code`` that may build another class's instance: any but
    ``type->tp_alloc(type, ...)`` inside a function whose parameters start with
    ``PyTypeObject *type`` (a tp_new) and those of the file's own type objects."""
    mine = own_types(code)
    bad = []
    for m in TP_ALLOC.finditer(code):
        receiver = re.sub(r"[&()\s]", "", m.group(1))
        before = code[:m.start()]
        func = before[before.rfind("\n}") + 1:]
        in_tp_new = re.search(r"\w+\s*\(\s*PyTypeObject\s*\*\s*" + re.escape(receiver)
                              + r"\s*,", func) is not None
        if receiver in mine or (in_tp_new and not func.lstrip().startswith("{")):
            continue
        bad.append(code[m.start():code.find(")", m.end()) + 1])
    return bad


def violations(text: str, label: str) -> list[str]:
    """What the C source ``text`` (named ``label``) does of FORBIDDEN (its comments
    aside)."""
    code = code_of(text, strings=True)
    found = [what for what, pattern in FORBIDDEN if re.search(pattern, code)]
    found += [f"a Python class's instance built by tp_alloc: {call}"
              for call in foreign_tp_alloc(code)]
    return [f"{label}: {what}" for what in found]


def test_the_grep_finds_each_pattern():
    cases = {
        "PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;": "d_member",
        "const digit *d = ((PyLongObject *)v)->ob_digit;": "ob_digit",
        '#define NAMES(X) \\\n    X(cumulative, "_cumulative_rewards")': "_cumulative_rewards",
        "if (Py_REFCNT(a) != 1) return 0;": "Py_REFCNT",
        "type->tp_dictoffset = 0;": "tp_dictoffset",
        "PyType_Modified(env_type);": "PyType_Modified",
        "PyObject_SetAttr((PyObject *)env_type, name, f);": "attribute set on a type",
        "PyObject_SetAttrString(wk_env_type, \"last\", f);": "attribute set on a type",
        "PyDict_SetItem(cls->tp_dict, name, f);": "attribute set on a type",
        "static PyObject *made(PyObject *s) {\n"
        "    return result_type->tp_alloc(result_type, 0);\n}\n": "tp_alloc",
    }
    for code, what in cases.items():
        found = violations(code, "probe.c")
        assert len(found) == 1 and what in found[0], (code, found)
    fine = ("PyObject *set(PyObject *game, PyObject *n, PyObject *v) {\n"
            "    return PyObject_SetAttr(game, n, v) ? NULL : v;\n}\n"
            "static PyTypeObject GameType = {0};\n"
            "static PyObject *Game_new(PyTypeObject *type, PyObject *a, PyObject *k) {\n"
            "    return type->tp_alloc(type, 0);\n}\n"
            "static PyObject *copy(PyObject *g) {\n"
            "    return GameType.tp_alloc(&GameType, 0);\n}\n"
            "if (a == b && x->tp_dictoffset == 0) return 0;\n")
    assert violations(fine, "probe.c") == []
    assert violations("/* not _was_dead_step, not Py_REFCNT(x) */ int x;", "probe.c") == []


def test_no_c_file_holds_a_forbidden_pattern():
    found = [v for p in C_FILES for v in violations(p.read_text(encoding="utf-8"), name(p))]
    assert not found, "\n".join(found)
