"""JSON types as the parsers give them in Python, and the sentinel of an absent key."""

from __future__ import annotations

from typing import Final

_REF_PREFIX: Final = "#/components/schemas/"


_JSON_TYPES: Final = ("object", "array", "string", "integer", "number", "boolean")


_CLASSES: Final[dict[str, tuple[type, ...]]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),  # bool is a subclass of int, but `type(x) is int` refuses it
    "number": (int, float),
    "boolean": (bool,),
}


_TYPE_OF_CLASS: Final[dict[type, str]] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def _classes(types: frozenset[str]) -> tuple[type, ...]:
    return tuple(dict.fromkeys(c for t in _JSON_TYPES if t in types for c in _CLASSES[t]))


def _type_ok(cls: type, types: frozenset[str]) -> bool:
    name = _TYPE_OF_CLASS.get(cls)
    return name in types or (name == "integer" and "number" in types)


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Final = _Missing()
