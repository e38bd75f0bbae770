"""Prompt templates: ``prompt: {id, version?, variables?}`` on create renders a registered
template (``--prompts FILE`` on ``responses-mock`` and ``responses-reference``).

The file is JSON: prompt id → version → template, a template being ``{"instructions"?: str,
"input"?: [input items]}``::

    {"pmpt_greeter": {"1": {"instructions": "Greet {{name}} in {{language}}.",
                            "input": [{"role": "user", "content": "I am {{name}}."}]}}}

Rendering: ``{{variable}}`` in the template's text is replaced by the variable's value (a string,
or an ``input_text`` part's text); a content part whose whole text is ``{{variable}}`` is replaced
by the variable's part when that is an ``input_image`` / ``input_file``. The template's
instructions come before the request's ``instructions`` (one blank line between), its input items
before the request's ``input``. ``version`` omitted: the last version in the file. The Response
echoes ``prompt: {id, version, variables}``.

Errors: an unknown prompt id (or version) is a 404 ``Prompt with id '…' not found.``
(``param: "prompt"``); a variable the template uses but the request does not give is a 400
``missing_required_parameter`` on ``prompt.variables.NAME``; a malformed ``prompt`` the usual 400s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from cassettes.reader import TooLarge, read_at_most

from ..errors import APIError, invalid_request
from .field_errors import check_type, type_error
from .inputs import normalize_input

__all__ = ["PromptFileError", "PromptRegistry"]

MAX_PROMPTS_FILE_BYTES = 64 * 1024 * 1024
"""A prompts file is read whole: a larger one (or a device, a pipe with no end) is refused."""
_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")
_PART_TYPES = ("input_text", "input_image", "input_file")


class PromptFileError(ValueError):
    """A prompts file that cannot be read or is not the documented shape (one line)."""


class PromptRegistry:
    """Registered templates: ``{prompt id: {version: template}}``."""

    def __init__(self, templates: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
        self.templates = {pid: dict(versions) for pid, versions in templates.items()}

    @classmethod
    def from_file(cls, path: str | Path) -> PromptRegistry:
        try:
            data = orjson.loads(read_at_most(path, MAX_PROMPTS_FILE_BYTES))
        except TooLarge as error:
            raise PromptFileError(f"{path}: {error} for a prompts file") from None
        except OSError as error:
            raise PromptFileError(f"cannot read {path}: {error.strerror or error}") from None
        except orjson.JSONDecodeError as error:
            raise PromptFileError(f"{path} is not JSON: {error}") from None
        if not isinstance(data, dict) or not data:
            raise PromptFileError(f"{path}: expected an object of prompt id → version → template")
        for pid, versions in data.items():
            if not isinstance(versions, dict) or not versions:
                raise PromptFileError(f"{path}: prompt {pid!r}: expected an object of versions")
            for version, template in versions.items():
                where = f"{path}: prompt {pid!r} version {version!r}"
                if not isinstance(template, dict) or set(template) - {"instructions", "input"}:
                    raise PromptFileError(f"{where}: expected {{instructions?, input?}}")
                if not isinstance(template.get("instructions", ""), str):
                    raise PromptFileError(f"{where}: instructions must be a string")
                if not isinstance(template.get("input", []), str | list):
                    raise PromptFileError(f"{where}: input must be a string or a list of items")
                # The items a request's own input would be refused for, refused now (the
                # file's error), not as a 400 on every request that names the template.
                try:
                    normalize_input(template.get("input"), _placeholder_id)
                except APIError as error:
                    field = error.param or "input"
                    named = error.message if field in error.message else f"{field}: {error.message}"
                    raise PromptFileError(f"{where}: {named}") from None
        return cls(data)

    def render(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``body`` with its ``prompt`` rendered into ``instructions`` and ``input`` (see the module
        docstring), ``prompt`` normalized to ``{id, version, variables}``; as is without one."""
        prompt = body.get("prompt")
        if prompt is None:
            return dict(body)
        if not isinstance(prompt, dict):
            raise type_error("prompt", "an object", prompt)
        prompt_id = check_type(prompt, "id", str, param="prompt.id")
        if prompt_id is None:
            raise invalid_request(
                "Missing required parameter: 'prompt.id'.",
                "prompt.id",
                "missing_required_parameter",
            )
        version = check_type(prompt, "version", str, param="prompt.version")
        variables = check_type(prompt, "variables", dict, param="prompt.variables") or {}
        for name, value in variables.items():
            if not isinstance(value, str) and not (
                isinstance(value, dict) and value.get("type") in _PART_TYPES
            ):
                raise type_error(
                    f"prompt.variables.{name}", "a string or an input_text/image/file part", value
                )
        versions = self.templates.get(prompt_id)
        if versions is None or (version is not None and version not in versions):
            raise APIError(404, f"Prompt with id '{prompt_id}' not found.", param="prompt")
        version = version if version is not None else list(versions)[-1]
        template = versions[version]
        rendered = dict(body)
        # Echoed as the Response's ResponsePrompt has it: an input_image carries its `detail`.
        echoed = {
            name: {**v, "detail": v.get("detail") or "auto"}
            if isinstance(v, dict) and v.get("type") == "input_image"
            else v
            for name, v in variables.items()
        }
        rendered["prompt"] = {"id": prompt_id, "version": version, "variables": echoed}
        pieces = [_text(template.get("instructions") or "", variables), body.get("instructions")]
        rendered["instructions"] = "\n\n".join(p for p in pieces if p) or None
        head = template.get("input") or []
        if isinstance(head, str):
            head = [{"role": "user", "content": head}]
        head = [_item(item, variables) for item in head]
        own = body.get("input")
        if isinstance(own, str):
            own = [{"role": "user", "content": own}]
        rendered["input"] = [*head, *(own or [])]
        return rendered


def _placeholder_id(prefix: str) -> str:
    return f"{prefix}_template"


def _value(name: str, variables: Mapping[str, Any]) -> Any:
    if name not in variables:
        raise invalid_request(
            f"Missing required parameter: 'prompt.variables.{name}'.",
            f"prompt.variables.{name}",
            "missing_required_parameter",
        )
    return variables[name]


def _text(text: str, variables: Mapping[str, Any]) -> str:
    def substitute(match: re.Match[str]) -> str:
        value = _value(match.group(1), variables)
        if isinstance(value, str):
            return value
        if value.get("type") == "input_text":
            return str(value.get("text", ""))
        raise type_error(f"prompt.variables.{match.group(1)}", "text in a text template", value)

    return _VARIABLE.sub(substitute, text)


def _item(item: Any, variables: Mapping[str, Any]) -> Any:
    if not isinstance(item, dict):
        return item
    content = item.get("content")
    if isinstance(content, str):
        whole = _VARIABLE.fullmatch(content.strip())
        if whole and isinstance(_value(whole.group(1), variables), dict):
            return {**item, "content": [_part({"type": "input_text", "text": content}, variables)]}
        return {**item, "content": _text(content, variables)}
    if isinstance(content, list):
        return {**item, "content": [_part(part, variables) for part in content]}
    return item


def _part(part: Any, variables: Mapping[str, Any]) -> Any:
    if not isinstance(part, dict) or not isinstance(part.get("text"), str):
        return part
    whole = _VARIABLE.fullmatch(part["text"].strip())
    if whole:
        value = _value(whole.group(1), variables)
        if isinstance(value, dict) and value.get("type") in ("input_image", "input_file"):
            return dict(value)
    return {**part, "text": _text(part["text"], variables)}
