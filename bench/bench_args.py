"""Every benchmark's two forms: a quick one by default (seconds, what ``make bench``
runs) and the long one behind ``--full`` (the sizes the documented figures use)."""

from __future__ import annotations

import argparse


def parse(parser: argparse.ArgumentParser, argv=None, **full):
    """Parse ``argv`` with ``parser`` after adding ``--full``. The parser's defaults are
    the quick form; ``full`` maps option destinations to the long form's defaults. An
    option given on the command line wins over both."""
    shown = ", ".join(
        f"--{k.replace('_', '-')} {' '.join(map(str, v)) if isinstance(v, list) else v}"
        for k, v in full.items())
    parser.add_argument("--full", action="store_true", help=f"the long form: {shown}")
    if parser.parse_known_args(argv)[0].full:
        parser.set_defaults(**full)
    return parser.parse_args(argv)
