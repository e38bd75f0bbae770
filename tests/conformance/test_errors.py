"""The exception tree drawn in conformance/errors.py is the one the code has: every exception the
judge defines is under ConformanceError, where the drawing puts it, with the builtin base it names."""

from __future__ import annotations

import importlib
import pkgutil
import re

import conformance
from conformance.errors import CaseControl, ConformanceError

_LEAF = re.compile(r"^    - (\w+)(?:, (\w+))? \(([\w.]+)\) — ")


def _every_module() -> None:
    for info in pkgutil.walk_packages(conformance.__path__, "conformance."):
        importlib.import_module(info.name)


def _subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub, *_subclasses(sub)}
    return out


def test_the_drawn_tree_is_the_code() -> None:
    _every_module()
    drawn: dict[str, tuple[str | None, str, bool]] = {}
    under_control = False
    for line in (conformance.errors.__doc__ or "").splitlines():
        if line.startswith("  + "):
            under_control = line.startswith("  + CaseControl")
        if match := _LEAF.match(line):
            name, builtin, module = match.groups()
            drawn[name] = (builtin, module, under_control)
    found = {c for c in _subclasses(ConformanceError) if c is not CaseControl}
    assert {c.__name__ for c in found} == set(drawn)
    for cls in found:
        builtin, module, under_control = drawn[cls.__name__]
        assert cls.__module__ == module, cls
        assert issubclass(cls, CaseControl) is under_control, cls
        others = [b.__name__ for b in cls.__bases__ if not issubclass(b, ConformanceError)]
        assert others == ([builtin] if builtin else []), cls
