"""Agent options: one frozen dataclass per agent, one field per command-line option.

A field is ``name: Annotated[type, "its --help line"] = default``; its option is the name with
dashes (``raise_at``: ``--raise-at``). The type says how the option is read: ``bool`` a flag
(``store_true``, default False), ``int`` and ``float`` a number, ``Path | None`` a file, a
``Literal`` (or a ``Literal | None``) a choice. For example::

    @dataclass(frozen=True)
    class EquityOptions(AgentOptions):
        raise_at: Annotated[float, "raise at this equity or more"] = 0.65

    class EquityAgent(Agent):
        Options = EquityOptions

        def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
            super().__init__(game, seed)
            self.raise_at = options_from(EquityOptions, options).raise_at

``add_options`` declares the fields on an argparse parser (``Agent.add_arguments`` does it with
``Agent.Options``); ``options_from`` builds the dataclass from the constructor's keywords (what
argparse parsed, or a caller's ``raise_at=0.7``), checked against the fields.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union


@dataclass(frozen=True)
class AgentOptions:
    """The options of an agent that has none; an agent with options subclasses it."""


OptionsT = TypeVar("OptionsT", bound=AgentOptions)


def flag(name: str) -> str:
    """The command-line option of field ``name`` (``raise_at``: ``--raise-at``)."""
    return "--" + name.replace("_", "-")


def _kind(annotation: Any) -> tuple[type, tuple[str, ...]]:
    """(base type, choices) of an option's type: ``Literal[...]`` is ``str`` with its choices;
    ``X | None`` is ``X``."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        (annotation,) = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    if typing.get_origin(annotation) is Literal:
        return str, typing.get_args(annotation)
    if annotation in (bool, int, float, Path):
        return typing.cast(type, annotation), ()
    raise TypeError(f"an option cannot have the type {annotation!r}")


@dataclass(frozen=True)
class _Option:
    name: str
    default: Any
    help: str
    kind: type
    choices: tuple[str, ...]


def _options(options_type: type[AgentOptions]) -> list[_Option]:
    """The fields of ``options_type``, in their order, as options."""
    hints = typing.get_type_hints(options_type, include_extras=True)
    out = []
    for field in dataclasses.fields(options_type):
        hint = hints[field.name]
        if typing.get_origin(hint) is not Annotated:
            raise TypeError(f"{options_type.__name__}.{field.name} needs its help: Annotated[type, help]")
        annotation, help, *_ = typing.get_args(hint)
        out.append(_Option(field.name, field.default, help, *_kind(annotation)))
    return out


def add_options(parser: argparse._ActionsContainer, options_type: type[AgentOptions]) -> None:
    """Declare the fields of ``options_type`` as options of ``parser``, in their order."""
    for one in _options(options_type):
        if one.kind is bool:
            parser.add_argument(flag(one.name), action="store_true", help=one.help)
        elif one.choices:
            parser.add_argument(flag(one.name), choices=one.choices, default=one.default, help=one.help)
        else:
            parser.add_argument(flag(one.name), type=one.kind, default=one.default, help=one.help)


def parsed_options(options_type: type[AgentOptions], parsed: argparse.Namespace) -> dict[str, object]:
    """The values of ``options_type``'s fields in ``parsed`` (what ``add_options`` declared, among a
    command's own arguments), as the agent's constructor keywords."""
    return {one.name: getattr(parsed, one.name) for one in _options(options_type)}


def _either(choices: tuple[str, ...]) -> str:
    """``a or b``, or ``one of a, b, c``."""
    return " or ".join(choices) if len(choices) == 2 else f"one of {', '.join(choices)}"


def options_from(options_type: type[OptionsT], keywords: Mapping[str, object]) -> OptionsT:
    """The options of ``keywords`` (by field name; None or left out: the default), each converted
    as its command-line argument would be (``"0.7"``: 0.7, ``"cfr-ehs2"``: a path).

    Raises ValueError, one line naming the option, for an unknown option or a bad value.
    """
    options = _options(options_type)
    unknown = [flag(name) for name in keywords if name not in {one.name for one in options}]
    if unknown:
        takes = ", ".join(flag(one.name) for one in options) or "none"
        raise ValueError(f"unknown option {', '.join(unknown)} (the options: {takes})")
    values: dict[str, Any] = {}
    for one in options:
        value = keywords.get(one.name)
        if value is None:
            continue
        if one.choices:
            if value not in one.choices:
                raise ValueError(f"{flag(one.name)} must be {_either(one.choices)}, not {value!r}")
            values[one.name] = value
            continue
        try:
            values[one.name] = one.kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"{flag(one.name)} must be {one.kind.__name__}, not {value!r}") from None
    return options_type(**values)
