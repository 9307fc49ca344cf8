"""What the console scripts share: argparse value types and one way to end.

Each script checks its whole command line before it writes anything or starts work:
value ranges through the argparse types below (``--n-envs 0`` is refused by argparse
itself), everything else (options that must agree, files, a missing pip extra) by
raising :class:`UsageError` from the script's body. :func:`run_cli` is the one place
that turns those into exit statuses:

- :class:`UsageError`: ``prog: error: ...`` after the usage line, exit status 2 (as
  argparse does for a bad option);
- Ctrl-C (``KeyboardInterrupt``): one line on stderr, exit status 130 (128 + SIGINT, as
  shells report a process ended by Ctrl-C), and no traceback from this process or
  from its worker processes;
- stdout closed early (``widderkopf-eval ... | head -1``): no traceback, exit status 1.

A script adds an option by giving ``add_argument`` one of these types; a new check that
needs several options raises :class:`UsageError` from the body.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from contextlib import contextmanager

#: The pip command that installs what training and saved models need.
TRAIN_EXTRA = 'pip install "widderkopf-env[train]"'
#: Modules of the ``[train]`` extra that training imports.
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib",
                 "tqdm", "rich")
EXIT_USAGE, EXIT_INTERRUPTED = 2, 130


class UsageError(ValueError):
    """A command line that cannot run (reported like an argparse error, exit status 2)."""


# --- argparse types -----------------------------------------------------------------------

def integer(minimum: int | None = None, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: an int, at least ``minimum`` and at most ``maximum`` when given."""
    want = ("an integer" if minimum is None else f"an integer >= {minimum}"
            if maximum is None else f"an integer in {minimum}..{maximum}")

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {want}, got {text!r}") from None
        if (minimum is not None and value < minimum) or (maximum is not None
                                                          and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {want}, got {value}")
        return value

    convert.__name__ = want
    return convert


def number(low: float | None = None, high: float | None = None,
           low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite float in ``[low, high]`` (``(low, high]`` with
    ``low_open``; a missing bound is not checked)."""
    bounds = ([f"{'>' if low_open else '>='} {low:g}"] if low is not None else []) + (
        [f"<= {high:g}"] if high is not None else [])
    want = " ".join(["a number", " and ".join(bounds)]).strip()
    if len(bounds) == 2 and not low_open:
        want = f"a number from {low:g} to {high:g}"

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {want}, got {text!r}") from None
        too_low = low is not None and (value <= low if low_open else value < low)
        too_high = high is not None and value > high
        if not math.isfinite(value) or too_low or too_high:
            raise argparse.ArgumentTypeError(f"expected {want}, got {text}")
        return value

    convert.__name__ = want
    return convert


def int_list(text: str) -> list[int]:
    """An argparse type: comma-separated positive ints, e.g. ``256,256``."""
    items = [t.strip() for t in text.split(",")]
    if not all(t.isascii() and t.isdigit() and int(t) > 0 for t in items):
        raise argparse.ArgumentTypeError(
            f"expected comma-separated positive integers such as 256,256, got {text!r}")
    return [int(t) for t in items]


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: prints the program name and the package version, exits 0."""
    from widderkopf_env import __version__

    parser.add_argument("--version", action="version",
                        version=f"%(prog)s (widderkopf-env) {__version__}")


def agent_spec(text: str) -> str:
    """An argparse type: a spec :func:`~widderkopf_env.agents.load_agent` accepts (a bot
    name or a saved model ``.zip``), checked by loading it; returns the spec."""
    from . import load_agent

    try:
        load_agent(text)
    except (ValueError, TypeError, OSError, ImportError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def agent_help(what: str) -> str:
    """Help text for an agent option: the registered names, or a saved model."""
    from widderkopf_env.registry import agent_names

    return f"{what}: " + ", ".join(agent_names()) + " or the path of a saved MaskablePPO .zip"


def require_train_extra(what: str) -> None:
    """Raise :class:`UsageError` naming the pip command when a module of the ``[train]``
    extra does not import."""
    for name in TRAIN_MODULES:
        try:
            __import__(name)
        except ImportError as err:
            raise UsageError(f"{what} needs the [train] extra (torch, stable-baselines3, "
                             f"sb3-contrib, ...), which is not installed ({err}); install "
                             f"it with: {TRAIN_EXTRA}") from None


# --- running a script ---------------------------------------------------------------------

def run_cli(parser: argparse.ArgumentParser, body: Callable[[], int | None],
            on_interrupt: Callable[[KeyboardInterrupt], str] | None = None) -> int:
    """Run ``body()`` (which parses the command line) and return its exit status (None
    counts as 0), mapping errors as the module documentation says. ``on_interrupt``
    gives the line printed after Ctrl-C (default: ``interrupted``)."""
    with _interrupts_in_this_process_only():
        try:
            status = body()
            sys.stdout.flush()
            return 0 if status is None else int(status)
        except UsageError as err:
            parser.error(str(err))
        except KeyboardInterrupt as exc:
            message = on_interrupt(exc) if on_interrupt is not None else "interrupted"
            try:
                sys.stderr.write(f"\n{parser.prog}: {message}\n")
                sys.stderr.flush()
            except KeyboardInterrupt:  # Ctrl-C pressed again: the line may be cut short
                pass
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            # the reader went away: print nothing more, not even at interpreter exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
    return EXIT_USAGE  # not reached: parser.error exits


@contextmanager
def _interrupts_in_this_process_only():
    """Ctrl-C reaches every process of the terminal's process group, worker processes
    included (the arena's pool, SubprocVecEnv). Inside this block only this process
    raises ``KeyboardInterrupt``; forked workers ignore SIGINT and are ended by this
    process as it unwinds, so they print no traceback. Workers started by a fork server
    inherit an ignored SIGINT from it. (Workers started by ``spawn``, the default on
    macOS and Windows, still get the default handler.) Nothing changes when SIGINT is
    not Python's default handler, e.g. under ``nohup`` or in a thread."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    main_pid = os.getpid()

    def handler(signum, frame):
        if os.getpid() == main_pid:
            raise KeyboardInterrupt
        # a forked worker: the main process stops it

    if multiprocessing.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            forkserver.ensure_running()  # it and its children keep SIGINT ignored
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
