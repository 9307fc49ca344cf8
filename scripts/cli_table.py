"""Rewrite the options table of docs/api/cli.md from the commands' parsers.

    python scripts/cli_table.py           # rewrite the table in place
    python scripts/cli_table.py --check   # exit 1 when the page is stale

The table sits between the ``<!-- cli-options:start -->`` and ``<!-- cli-options:end -->``
markers; :func:`widderkopf_env.commands.options_table` builds it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from widderkopf_env.commands import options_table

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api" / "cli.md"
START, END = "<!-- cli-options:start -->\n", "<!-- cli-options:end -->"


def rewritten(text: str) -> str:
    """``text`` (the page) with the table between the markers made current."""
    head, found, rest = text.partition(START)
    if not found or END not in rest:
        raise SystemExit(f"{PAGE}: the markers {START.strip()} ... {END} are missing")
    return head + START + options_table() + rest[rest.index(END):]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    args = p.parse_args(argv)
    text = PAGE.read_text(encoding="utf-8")
    new = rewritten(text)
    if args.check:
        if new != text:
            print(f"{PAGE} is stale: run python scripts/cli_table.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
