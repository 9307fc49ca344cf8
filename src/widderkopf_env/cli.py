"""What every console script shares: argparse value types, one way to end, one hint.

Each script checks its whole command line before it writes anything or starts long work:
value ranges and paths through the argparse types below, everything else (options that
must agree, a file that is not what it should be, a missing pip extra) by raising
:class:`UsageError` from the script's body. :func:`run_cli` is the one place that turns
those into exit statuses:

- :class:`UsageError`: ``prog: error: ...`` after the usage line, exit status 2 (as
  argparse does for a bad option; the line alone for a refusal that is no mistake in
  the command line, ``show_usage = False``, such as a run folder in use);
- an I/O error (``OSError``: a file that cannot be read or written): one line
  ``prog: error: ...``, exit status 2;
- Ctrl-C (``KeyboardInterrupt``): one line on stderr, exit status 130 (128 + SIGINT, as
  shells report a process ended by Ctrl-C), and no traceback from this process or
  from its worker processes;
- stdout closed early (``widderkopf-eval ... | head -1``): no traceback, exit status 1.

The path types check without writing: an output folder need not exist yet (the script
creates it once the whole command line is checked), but the nearest folder that does
exist must accept a new file.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from .checks import MAX_LAYERS, MAX_WIDTH, show

EXIT_USAGE, EXIT_INTERRUPTED = 2, 130

#: The package's optional extras and what each brings (pyproject.toml).
EXTRAS = {
    "train": "torch, stable-baselines3, sb3-contrib, ...",
    "rllib": "ray[rllib], torch",
    "render": "Pillow, moviepy, ...",
    "clients": "tianshou, torchrl, ...",
}
#: Modules of the ``[train]`` extra that training imports.
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib",
                 "tqdm", "rich")


class UsageError(ValueError):
    """A command line that cannot run (reported like an argparse error, exit status 2).
    ``show_usage``: whether the usage line comes first (a subclass for refusals that are
    not mistakes in the command line, such as a run folder in use, sets it False)."""

    show_usage = True


# --- the missing-extra hint ------------------------------------------------------------------

def install_hint(extra: str) -> str:
    """How to install the ``[extra]`` of this package, from a clone and once published."""
    return (f'pip install "widderkopf-env[{extra}]" (from a clone of the repository: '
            f'pip install ".[{extra}]")')


def missing_extra(what: str, extra: str, err: BaseException | None = None) -> str:
    """The message for ``what`` needing the ``[extra]`` that is not installed."""
    brings = f" ({EXTRAS[extra]})" if extra in EXTRAS else ""
    why = f" ({err})" if err is not None else ""
    return (f"{what} needs the [{extra}] extra{brings}, which is not installed{why}; "
            f"install it with: {install_hint(extra)}")


def require_extra(what: str, extra: str, modules) -> None:
    """Raise :class:`UsageError` (:func:`missing_extra`) unless every module imports."""
    for name in modules:
        try:
            __import__(name)
        except ImportError as err:
            raise UsageError(missing_extra(what, extra, err)) from None


def require_train_extra(what: str) -> None:
    """:func:`require_extra` for the ``[train]`` extra's modules."""
    require_extra(what, "train", TRAIN_MODULES)


# --- argparse types ----------------------------------------------------------------------------

def integer(minimum: int | None = None, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: an int, at least ``minimum`` and at most ``maximum`` when given."""
    want = ("an integer" if minimum is None and maximum is None
            else f"an integer >= {minimum}" if maximum is None
            else f"an integer <= {maximum:,}" if minimum is None
            else f"an integer in {minimum}..{maximum:,}")

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {want}, got {show(text)}") from None
        if (minimum is not None and value < minimum) or (maximum is not None
                                                          and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {want}, got {show(value)}")
        return value

    convert.__name__, convert.kind = want, "int"
    convert.limit = None if maximum is None else f"{maximum:,}"  # see settings.with_limit
    return convert


def number(low: float | None = None, high: float | None = None,
           low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite float in ``[low, high]`` (``(low, high]`` with
    ``low_open``; a missing bound is not checked)."""
    bounds = ([f"{'>' if low_open else '>='} {low:g}"] if low is not None else []) + (
        [f"at most {high:,g}"] if high is not None else [])
    want = " ".join(["a number", " and ".join(bounds)]).strip()
    if len(bounds) == 2 and not low_open:
        want = f"a number from {low:g} to {high:g}"

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {want}, got {show(text)}") from None
        too_low = low is not None and (value <= low if low_open else value < low)
        too_high = high is not None and value > high
        if not math.isfinite(value) or too_low or too_high:
            shown = text if len(text) <= 40 else text[:40] + "..."
            raise argparse.ArgumentTypeError(f"expected {want}, got {shown}")
        return value

    convert.__name__, convert.kind = want, "number"
    return convert


def int_list(text: str) -> list[int]:
    """An argparse type: the hidden layer sizes of a network, comma-separated positive
    ints such as ``256,256``: at most ``MAX_LAYERS`` of them, each at most ``MAX_WIDTH``
    (:mod:`widderkopf_env.checks`)."""
    items = [t.strip() for t in text.split(",", MAX_LAYERS)]
    if len(items) > MAX_LAYERS or not all(
            t.isascii() and t.isdigit() and len(t) <= 9 and 0 < int(t) <= MAX_WIDTH
            for t in items):
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_LAYERS} comma-separated integers in 1..{MAX_WIDTH:,} "
            f"such as 256,256, got {show(text)}")
    return [int(t) for t in items]


int_list.limit = f"{MAX_LAYERS} layers of {MAX_WIDTH:,}"  # see settings.with_limit


def existing_file(text: str) -> Path:
    """An argparse type: the path of an existing, readable file."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: no such file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: not a file")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: permission denied")
    return path


def output_dir(text: str) -> Path:
    """An argparse type: a folder to write files in, existing or not (it is not created
    here): not a file, and the nearest existing folder on its path accepts a new file."""
    try:
        check_output_dir(Path(text))
    except UsageError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return Path(text)


def output_file(text: str) -> Path:
    """An argparse type: a file to write, in a folder that exists and accepts a new file;
    not a folder."""
    try:
        check_output_file(Path(text))
    except UsageError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return Path(text)


def check_output_dir(path: Path) -> None:
    """Raise :class:`UsageError` unless ``path`` is, or can be made, a writable folder."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{str(path)!r} exists and is not a folder")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"cannot create {str(path)!r}: {str(existing)!r} is not a folder")
    _check_writable(existing, path)


def check_output_file(path: Path) -> None:
    """Raise :class:`UsageError` unless ``path`` can be written as a file."""
    if path.is_dir():
        raise UsageError(f"{str(path)!r} is a folder, not a file")
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {str(path)!r}: no folder {str(folder)!r}")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"cannot write {str(path)!r}: permission denied")
    _check_writable(folder, path)


def _check_writable(folder: Path, target: Path) -> None:
    """A file can be created in ``folder`` (tried with a temporary file, removed at once:
    permissions alone do not tell, e.g. on a read-only file system or for root)."""
    ok = os.access(folder, os.W_OK | os.X_OK)
    if ok:
        try:
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError:
            ok = False
    if not ok:
        raise UsageError(f"cannot write {str(target)!r}: the folder {str(folder)!r} does not "
                         "accept new files")


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: prints the program name and the package version, exits 0."""
    from widderkopf_env import __version__

    parser.add_argument("--version", action="version",
                        version=f"%(prog)s (widderkopf-env) {__version__}")


class DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with every default shown, except empty ones (None, False) and those of
    ``--no-...`` flags."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False or action.const is False:
            return action.help
        return super()._get_help_string(action)


# --- deprecated spellings -----------------------------------------------------------------

class DeprecatedAlias(argparse.Action):
    """An old spelling of an option, kept for one release: it sets what the new spelling
    sets and prints a warning naming the new spelling (see :func:`deprecated_alias`)."""

    def __init__(self, option_strings, dest, target=None, new="", **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.target, self.new = target, new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: warning: {option_string} is deprecated and will be removed "
              f"in the next release; use {self.new}", file=sys.stderr)
        self.target(parser, namespace, values, self.new)


def deprecated_alias(parser: argparse.ArgumentParser, old: str, new: str) -> None:
    """Accept ``old`` as a deprecated spelling of ``parser``'s option ``new`` (hidden from
    ``--help``; listed in the options table of the docs)."""
    target = next((a for a in parser._actions if new in a.option_strings), None)
    if target is None:
        raise ValueError(f"{parser.prog} has no option {new} to alias as {old}")
    parser.add_argument(old, dest=target.dest, action=DeprecatedAlias, target=target, new=new,
                        nargs=target.nargs, type=target.type, choices=target.choices,
                        metavar=target.metavar, default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)


# --- running a script ----------------------------------------------------------------------------

#: Seconds a script may take to stop after Ctrl-C before the process is ended at once.
STOP_GRACE = 30.0

def run_cli(parser: argparse.ArgumentParser, body: Callable[[], int | None],
            on_interrupt: Callable[[KeyboardInterrupt], str] | None = None) -> int:
    """Run ``body()`` (which parses the command line) and return its exit status (None
    counts as 0), mapping errors as the module documentation says. ``on_interrupt``
    gives the line printed after Ctrl-C (default: ``interrupted``)."""
    with _interrupts_in_this_process_only(parser.prog, STOP_GRACE):
        try:
            status = body()
            sys.stdout.flush()
            return 0 if status is None else int(status)
        except UsageError as err:
            if err.show_usage:
                parser.error(str(err))
            return _say(parser, f"error: {' '.join(str(err).split())}", EXIT_USAGE)
        except KeyboardInterrupt as exc:
            message = on_interrupt(exc) if on_interrupt is not None else "interrupted"
            return _say(parser, message, EXIT_INTERRUPTED, newline=True)
        except BrokenPipeError:
            # the reader went away: print nothing more, not even at interpreter exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        except OSError as err:
            return _say(parser, f"error: {io_error(err)}", EXIT_USAGE)
    return EXIT_USAGE  # not reached: parser.error exits


def io_error(err: OSError) -> str:
    """``err`` as one line: what failed and on which file."""
    what = err.strerror or str(err) or type(err).__name__
    names = [str(n) for n in (err.filename, err.filename2) if n is not None]
    return f"{what}: {' -> '.join(names)}" if names else what


def _say(parser, message: str, status: int, newline: bool = False) -> int:
    try:
        sys.stderr.write(f"{chr(10) if newline else ''}{parser.prog}: {message}\n")
        sys.stderr.flush()
    except KeyboardInterrupt:  # Ctrl-C pressed again: the line may be cut short
        pass
    return status


@contextmanager
def _interrupts_in_this_process_only(prog: str, grace: float):
    """Ctrl-C reaches every process of the terminal's process group, worker processes
    included (the arena's pool, SubprocVecEnv). Inside this block only this process
    raises ``KeyboardInterrupt``; forked workers ignore SIGINT and are ended by this
    process as it unwinds, so they print no traceback. Should stopping take more than
    ``grace`` seconds after the first Ctrl-C (a library waiting on something that will
    not come), the process ends at once with exit status 130. Workers started by a fork server
    inherit an ignored SIGINT from it. (Workers started by ``spawn``, the default on
    macOS and Windows, still get the default handler.) Nothing changes when SIGINT is
    not Python's default handler, e.g. under ``nohup`` or in a thread."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    main_pid = os.getpid()
    watchdog = threading.Timer(grace, _stop_now, (prog, grace))
    watchdog.daemon = True

    def handler(signum, frame):
        if os.getpid() == main_pid:
            if not watchdog.is_alive() and not watchdog.finished.is_set():
                watchdog.start()
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
        watchdog.cancel()
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _stop_now(prog: str, grace: float) -> None:
    """Ctrl-C was pressed ``grace`` seconds ago and the script has not finished stopping
    (a library it waits on did not wake): end the process at once. Files are written
    atomically, so what is on disk is whole."""
    sys.stderr.write(f"\n{prog}: interrupted; stopping took more than {grace:g} s, so the "
                     "process ended without waiting\n")
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)
