"""The rules of the live checks: the suite's cases, declared in the section module of the checks
they evaluate (issue #31: a check, its examples and its rule in one module).

A case is a function of a :class:`~conformance.suite.probe.Probe` (and of its parameters) that
sends requests to the target and records what it found with ``probe.check``. It is declared with
:func:`case`, which names its *area* (the first part of its case ID in reports, ``store`` in
``store/delete``, and a keyword ``-k`` matches), the checks it exercises and the profiles a
target must declare for it to run; :func:`params` runs it once per value of a parameter, as
``pytest.mark.parametrize`` does. The suite (:mod:`conformance.suite.runner`) runs every case
of every section module under pytest; :mod:`conformance.suite.plugin` turns these declarations
into pytest's marks there, so this module, and the judge that imports the section modules,
never import pytest.

The functions keep pytest's ``test_`` prefix: pytest collects them by it, and the case ID
drops it (``store/delete`` for ``test_delete``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from ..catalog.registry import Check

__all__ = [
    "STREAMS",
    "CaseSpec",
    "Param",
    "Variant",
    "case",
    "cases_of",
    "params",
]

F = TypeVar("F", bound=Callable[..., Any])

MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class CaseSpec:
    """What :func:`case` declared of one case."""

    area: str
    checks: tuple[str, ...]
    profiles: tuple[str, ...] = ()
    attempts: int = 1
    chain: bool = False
    needs_instructions: bool = False


@dataclass(frozen=True, slots=True)
class Variant:
    """One value of a parameter with its own ID, and the profiles and checks that value adds to
    the case's (a client's flow runs under that client's profile)."""

    value: Any
    id: str
    profiles: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    chain: bool = False


@dataclass(frozen=True, slots=True)
class Param:
    """One :func:`params` declaration: ``names`` as pytest's ``argnames`` (``"method,path"`` for
    two), the values (or the function that builds them), and their IDs (``None``: pytest's
    own)."""

    names: str
    values: tuple[Any, ...] | Callable[[], Sequence[Any]]
    ids: tuple[str, ...] | None = None

    def resolve(self) -> tuple[Any, ...]:
        """The values; those of a function, built now (when the suite collects the case)."""
        return tuple(self.values()) if callable(self.values) else self.values


STREAMS: Mapping[str, bool] = {"nonstream": False, "stream": True}
"""The parameter of a case that runs once not streamed and once streamed."""


def case(
    area: str,
    *checks: Check,
    profiles: Iterable[str] = (),
    attempts: int = 1,
    chain: bool = False,
    needs_instructions: bool = False,
) -> Callable[[F], F]:
    """Declare ``fn`` a case of ``area`` exercising ``checks`` (those of other sections imported
    from their section modules).

    ``profiles``: those a target must declare for the case to run (none: ``core``);
    ``attempts``: how often a case whose outcome the model may miss by chance runs (at most
    :data:`MAX_ATTEMPTS`); ``chain``: a stateful chain that ``--repeat`` runs again;
    ``needs_instructions``: the case needs a model that follows natural-language instructions.
    """
    if not 1 <= attempts <= MAX_ATTEMPTS:
        raise ValueError(f"attempts must be 1 to {MAX_ATTEMPTS}, not {attempts}")
    spec = CaseSpec(
        area,
        tuple(c.id for c in checks),
        tuple(profiles),
        attempts,
        chain,
        needs_instructions,
    )

    def declare(fn: F) -> F:
        if not fn.__name__.startswith("test_"):
            raise ValueError(f"a case's name starts with test_: {fn.__name__}")
        fn.__case__ = spec  # type: ignore[attr-defined]
        return fn

    return declare


def params(
    names: str,
    values: Mapping[str, Any] | Sequence[Any] | Callable[[], Sequence[Any]],
    *,
    ids: Sequence[str] | None = None,
) -> Callable[[F], F]:
    """Run the case once per value of ``names``: a mapping gives each value its ID; a sequence
    of :class:`Variant` gives each its ID, profiles and checks; a function returns the sequence
    when the suite collects the case — for values costly to build, or built from what modules
    imported after this one declare (the judge imports every section module and runs no case).
    Stacked, they combine as ``pytest.mark.parametrize`` does (the one nearest the function
    first)."""
    if callable(values):
        param = Param(names, values, tuple(ids) if ids is not None else None)
    elif isinstance(values, Mapping):
        param = Param(names, tuple(values.values()), tuple(values))
    else:
        param = Param(names, tuple(values), tuple(ids) if ids is not None else None)

    def declare(fn: F) -> F:
        fn.__case_params__ = (*getattr(fn, "__case_params__", ()), param)  # type: ignore[attr-defined]
        return fn

    return declare


def cases_of(module: ModuleType) -> list[Callable[..., Any]]:
    """The cases a module declares (not those it imports), in the order of its source."""
    return [
        obj
        for obj in vars(module).values()
        if hasattr(obj, "__case__") and getattr(obj, "__module__", None) == module.__name__
    ]
