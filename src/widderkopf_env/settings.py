"""Settings declared once, in the manner of CleanRL's ``Args``: a dataclass per command
whose fields carry their default, their meaning and their command-line form.

    @dataclass
    class FitSettings:
        data: list = setting(None, "shard folders", nargs="+", required=True)
        epochs: int = setting(12, "passes over the data", type=integer(1, 10_000))

    parser = argparse.ArgumentParser()
    add_options(parser, FitSettings)                 # --data ... --epochs N
    settings = from_namespace(FitSettings, parser.parse_args())

The option of a field is ``--`` and its name with dashes (``flag=`` spells it otherwise,
``old=`` keeps a deprecated spelling working, :func:`~widderkopf_env.cli.deprecated_alias`);
the option's value lands in the field of the same name, so a setting shared by several
commands carries one name everywhere (``seed``, ``workers``, ``out``, ``epochs``, ...).
Fields with ``cli=False`` have no option.

Every size, count and seed has an upper bound, declared once in its field's ``type``
(``integer(1, 10_000)``, the layer sizes of ``int_list``): the parser checks it while
it parses, before the command locks, writes or allocates anything, and ``--help`` says
it (:func:`with_limit`).
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, field, fields

from .cli import deprecated_alias

__all__ = ["add_options", "from_namespace", "option_name", "setting", "with_limit"]


def setting(default=MISSING, help: str = "", *, type=None, choices=None, metavar=None,
            action=None, nargs=None, flag=None, old=None, required=False, cli=True,
            factory=None, **extra):
    """A settings field: its default (``factory``: a function making it), its help text
    and its command-line form; ``extra`` is kept in the field's metadata for the
    command's own use."""
    meta = {"help": help, "type": type, "choices": choices, "metavar": metavar,
            "action": action, "nargs": nargs, "flag": flag, "old": old,
            "required": required, "cli": cli, **extra}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def option_name(f) -> str:
    """The option of field ``f``: its ``flag``, else ``--`` and its name with dashes."""
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


def default_of(f):
    """The default value of field ``f`` (made by its factory where it has one)."""
    return f.default_factory() if f.default is MISSING else f.default


def with_limit(help: str, type) -> str:
    """``help`` with the upper bound of the argparse ``type`` (its ``limit``: the bounded
    types of :mod:`widderkopf_env.cli`) said at its end, so that ``--help`` states the
    bound that the type checks."""
    limit = getattr(type, "limit", None)
    return help if limit is None else f"{help} (at most {limit})"


def option_kwargs(f) -> dict:
    """``add_argument``'s keywords for field ``f`` (``dest`` is the field's name); the
    help says the upper bound of the field's type (:func:`with_limit`)."""
    m = f.metadata
    kwargs = {"dest": f.name, "default": default_of(f),
              "help": with_limit(m["help"], m["type"]).replace("%", "%%")}
    if m["action"] is not None:
        kwargs["action"] = m["action"]
    else:
        kwargs.update(type=m["type"], choices=m["choices"], metavar=m["metavar"])
        if m["nargs"] is not None:
            kwargs["nargs"] = m["nargs"]
    if m["required"]:
        kwargs["required"] = True
        kwargs.pop("default")
    return kwargs


def add_options(parser: argparse.ArgumentParser, cls, group=None) -> None:
    """One option of ``parser`` (or of its argument ``group``) per field of the settings
    dataclass ``cls`` (those with ``cli=False`` excepted), with their deprecated
    spellings."""
    for f in fields(cls):
        if not f.metadata.get("cli", True):
            continue
        (group or parser).add_argument(option_name(f), **option_kwargs(f))
        if f.metadata.get("old"):
            deprecated_alias(parser, f.metadata["old"], option_name(f))


def from_namespace(cls, namespace: argparse.Namespace):
    """The settings ``cls`` of a parsed command line (fields without an option keep their
    defaults)."""
    return cls(**{f.name: getattr(namespace, f.name) for f in fields(cls)
                  if hasattr(namespace, f.name)})
