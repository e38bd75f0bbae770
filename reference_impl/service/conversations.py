"""The Conversations API (``/v1/conversations``) and ``conversation`` on create.

Routes (the SDK's ``client.conversations`` and ``.items``; shapes: the SDK's ``Conversation``,
``ConversationDeletedResource``, ``ConversationItemList``, ``ConversationItem``):

* ``POST /v1/conversations`` ``{items?, metadata?}`` → Conversation (items: at most 20, each an
  input item of any type, checked as ``input`` is);
* ``GET`` / ``POST`` (``{metadata}``) / ``DELETE /v1/conversations/{id}``;
* ``GET /v1/conversations/{id}/items`` (``after``, ``limit`` 1–100 default 20, ``order`` default
  ``desc``, ``include``) → ConversationItemList; ``POST …/items`` ``{items}`` → the added items;
* ``GET`` / ``DELETE /v1/conversations/{id}/items/{item_id}`` (delete answers the Conversation).

On ``POST /v1/responses``, ``conversation`` (an id or ``{id}``) puts the conversation's items
before the request's input; when the response finishes, its input and then its output items are
appended to the conversation. The Response echoes ``conversation: {id}``. ``conversation`` with
``previous_response_id`` is OpenAI's 400 ``mutually_exclusive_parameters``; an unknown id is a 404.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..errors import APIError, invalid_request
from ..ids import IdSource
from ..request.field_errors import check_type, type_error, value_error
from ..request.inputs import normalize_input
from ..request.validation import INCLUDABLE, validate_metadata
from ..stores.base import ConversationStore

__all__ = [
    "ConversationsAPI",
    "conversation_id_of",
    "conversation_not_found",
    "page_of",
]

_MAX_ITEMS = 20  # per create / add request (the SDK's docs: "up to 20 items at a time")


def conversation_not_found(conversation_id: str) -> APIError:
    return APIError(
        404, f"Conversation with id '{conversation_id}' not found.", param=None, code=None
    )


def item_not_found(item_id: str) -> APIError:
    return APIError(404, f"Item with id '{item_id}' not found.", param=None, code=None)


def conversation_id_of(body: Mapping[str, Any]) -> str | None:
    """The conversation id a create body names (``conversation``: an id or ``{id}``), checked; a
    400 for a malformed one or for one given with ``previous_response_id``."""
    value = body.get("conversation")
    if value is None:
        return None
    if isinstance(value, dict):
        value = check_type(value, "id", str, param="conversation.id")
        if value is None:
            raise invalid_request(
                "Missing required parameter: 'conversation.id'.",
                "conversation.id",
                "missing_required_parameter",
            )
    elif not isinstance(value, str):
        raise type_error("conversation", "a string or an object", value)
    if body.get("previous_response_id"):
        # The words OpenAI-compatible servers mirror (SGLang's router docs; no [REC] of our own).
        raise invalid_request(
            "Mutually exclusive parameters. Ensure you are only providing one of: "
            "'previous_response_id' or 'conversation'.",
            None,
            "mutually_exclusive_parameters",
        )
    return str(value)


def page_of(items: list[dict[str, Any]], query: Mapping[str, str], what: str) -> dict[str, Any]:
    """One page of ``items`` (oldest first) for ``after`` / ``limit`` / ``order`` as OpenAI pages
    lists: ``{object: "list", data, first_id, last_id, has_more}``."""
    raw_limit = query.get("limit", "20")
    if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= 100:
        raise invalid_request(
            f"Invalid 'limit': expected an integer between 1 and 100, got '{raw_limit}'.",
            "limit",
            "invalid_value",
        )
    limit = int(raw_limit)
    order = query.get("order", "desc")
    if order not in ("asc", "desc"):
        raise value_error("order", order, ("asc", "desc"))
    if order == "desc":
        items = items[::-1]
    after = query.get("after")
    if after is not None:
        ids = [item.get("id") for item in items]
        if after not in ids:
            raise invalid_request(
                f"Item with id '{after}' not found in the {what}.", "after", "invalid_value"
            )
        items = items[ids.index(after) + 1 :]
    page = items[:limit]
    return {
        "object": "list",
        "data": page,
        "first_id": page[0].get("id", "") if page else "",
        "last_id": page[-1].get("id", "") if page else "",
        "has_more": len(items) > limit,
    }


# The SDK's ConversationCreateParams (openai 3.63 added `safety_identifier`; the Conversation
# object has no field to echo it into).
_CREATE_PARAMS = frozenset({"items", "metadata", "safety_identifier"})


def _check_include(values: Sequence[str]) -> None:
    for i, value in enumerate(values):
        if value not in INCLUDABLE:
            raise value_error(f"include[{i}]", value, tuple(INCLUDABLE))


def _known(body: Any, allowed: frozenset[str]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise invalid_request(
            "The request body must be a JSON object.", None, "invalid_request_body"
        )
    for key in body:
        if key not in allowed:
            raise invalid_request(f"Unknown parameter: '{key}'.", key, "unknown_parameter")
    return body


class ConversationsAPI:
    """The conversation endpoints over a :class:`ConversationStore`; ``json_body(request)`` reads
    and bounds a body, ``new_ids(body)`` gives the id source for one request."""

    def __init__(
        self,
        store: Any,
        new_ids: Callable[[Mapping[str, Any]], IdSource],
        clock: Callable[[], float],
        json_body: Callable[[Any], Awaitable[Any]],
    ) -> None:
        self.store = store
        self.new_ids = new_ids
        self.clock = clock
        self.json_body = json_body

    def _conversations(self) -> ConversationStore:
        if not isinstance(self.store, ConversationStore):
            raise APIError(
                501, "This server's store does not keep conversations.", code="not_implemented"
            )
        return self.store

    async def conversation(self, conversation_id: str) -> dict[str, Any]:
        found = await self._conversations().get_conversation(conversation_id)
        if found is None:
            raise conversation_not_found(conversation_id)
        return found

    async def history(self, conversation_id: str) -> list[dict[str, Any]]:
        """The items a response in ``conversation_id`` sees first (404 if unknown)."""
        await self.conversation(conversation_id)
        return await self._conversations().conversation_items(conversation_id)

    async def append(self, conversation_id: str, items: Sequence[Mapping[str, Any]]) -> None:
        store = self._conversations()
        if await store.get_conversation(conversation_id) is not None:
            await store.add_conversation_items(conversation_id, items)

    def _items(self, value: Any, new_id: IdSource, *, required: bool) -> list[dict[str, Any]]:
        if value is None and not required:
            return []
        if not isinstance(value, list):
            if value is None:
                raise invalid_request(
                    "Missing required parameter: 'items'.", "items", "missing_required_parameter"
                )
            raise type_error("items", "an array", value)
        if len(value) > _MAX_ITEMS or (required and not value):
            raise invalid_request(
                f"Invalid 'items': expected an array of 1 to {_MAX_ITEMS} items, but got "
                f"{len(value)} items instead.",
                "items",
                "array_above_max_length" if value else "empty_array",
            )
        return normalize_input(value, new_id, param="items")

    # --- routes -----------------------------------------------------------------------------
    async def create(self, request: Any) -> dict[str, Any]:
        body = _known(await self.json_body(request), _CREATE_PARAMS)
        validate_metadata(body.get("metadata"))
        check_type(body, "safety_identifier", str)  # accepted without effect, not echoed
        new_id = self.new_ids(body)
        items = self._items(body.get("items"), new_id, required=False)
        conversation: dict[str, Any] = {
            "id": new_id("conv"),
            "object": "conversation",
            "created_at": int(self.clock()),
            "metadata": dict(body.get("metadata") or {}),
        }
        store = self._conversations()
        await store.put_conversation(conversation)
        if items:
            await store.add_conversation_items(conversation["id"], items)
        return conversation

    async def retrieve(self, conversation_id: str) -> dict[str, Any]:
        return await self.conversation(conversation_id)

    async def update(self, request: Any, conversation_id: str) -> dict[str, Any]:
        body = _known(await self.json_body(request), frozenset({"metadata"}))
        if "metadata" not in body:
            raise invalid_request(
                "Missing required parameter: 'metadata'.", "metadata", "missing_required_parameter"
            )
        validate_metadata(body["metadata"])
        conversation = await self.conversation(conversation_id)
        conversation["metadata"] = dict(body["metadata"] or {})
        await self._conversations().put_conversation(conversation)
        return conversation

    async def delete(self, conversation_id: str) -> dict[str, Any]:
        if not await self._conversations().delete_conversation(conversation_id):
            raise conversation_not_found(conversation_id)
        return {"id": conversation_id, "object": "conversation.deleted", "deleted": True}

    async def list_items(
        self, conversation_id: str, query: Mapping[str, str], include: Sequence[str]
    ) -> dict[str, Any]:
        _check_include(include)
        items = await self.history(conversation_id)
        return page_of(items, query, "conversation")

    async def add_items(
        self, request: Any, conversation_id: str, include: Sequence[str]
    ) -> dict[str, Any]:
        _check_include(include)
        body = _known(await self.json_body(request), frozenset({"items"}))
        await self.conversation(conversation_id)
        items = self._items(body.get("items"), self.new_ids(body), required=True)
        await self._conversations().add_conversation_items(conversation_id, items)
        return {
            "object": "list",
            "data": items,
            "first_id": items[0]["id"],
            "last_id": items[-1]["id"],
            "has_more": False,
        }

    async def retrieve_item(self, conversation_id: str, item_id: str) -> dict[str, Any]:
        for item in await self.history(conversation_id):
            if item.get("id") == item_id:
                return item
        raise item_not_found(item_id)

    async def delete_item(self, conversation_id: str, item_id: str) -> dict[str, Any]:
        conversation = await self.conversation(conversation_id)
        if not await self._conversations().delete_conversation_item(conversation_id, item_id):
            raise item_not_found(item_id)
        return conversation
