"""``wrap_anthropic``: the ``anthropic`` client's tool calls, streaming or not (docs/integrations/openai-anthropic.md).
Shapes (anthropic-sdk-python, ``types/``): a call is a content block ``{type: "tool_use", id, name, input}`` with
``input`` an object; its result comes back in a user message as ``{type: "tool_result", tool_use_id, content?,
is_error?}``. Streamed, a call opens with ``content_block_start`` (a ``tool_use`` block with ``input: {}``) and its input
arrives as ``content_block_delta`` events ``{index, delta: {type: "input_json_delta", partial_json}}``."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from .providers import CallTracker, ObservedStream, ResourceProxy, as_dict, text_of, with_descriptions
from .reporter import Reporter

FRAMEWORK = "anthropic-python"


def wrap_anthropic(
    client: Any,
    reporter: Optional[Reporter] = None,
    *,
    session: Optional[str] = None,
    live_descriptions: bool = True,
    refresh_interval_s: Optional[float] = 60.0,
) -> Any:
    """A wrapped ``anthropic.Anthropic`` client: ``messages.create`` reports each ``tool_use`` once with its
    ``tool_result`` (``is_error`` says whether it failed), to ``reporter`` (default the process-wide one), and sends the
    request's tools with their live descriptions. ``session``: the ``sessionId`` of the calls and the side of a split
    canary. ``close()`` stops refreshing its tools' descriptions, then closes the client: call it when a
    conversation with its own session ends. ``client`` is not changed."""
    tracker = CallTracker(FRAMEWORK, reporter, session, None, live_descriptions, refresh_interval_s)
    return ResourceProxy(client, "", {"close": tracker.closing, "messages.create": lambda create: _messages_create(create, tracker)})


def _messages_create(create: Callable[..., Any], tracker: CallTracker) -> Callable[..., Any]:
    def observed(*args: Any, **body: Any) -> Any:
        tools = list(body.get("tools") or [])
        declared = [tool for tool in (_declared_tool(tool) for tool in tools) if tool]
        results = [
            result
            for message in body.get("messages") or []
            for block in (as_dict(message).get("content") if isinstance(as_dict(message).get("content"), list) else [])
            for result in [_tool_result(block)]
            if result
        ]
        descriptions = tracker.prepare_request(declared, results)
        if descriptions:
            body["tools"] = with_descriptions(tools, descriptions, _declared_tool)
        answer = create(*args, **body)
        if body.get("stream") is True:
            return _message_stream(answer, tracker, declared, body.get("model"))
        message = as_dict(answer)
        calls = [_tool_use(block) for block in message.get("content") or []]
        tracker.record_calls([call for call in calls if call], message.get("model") or body.get("model"), declared)
        return answer

    return observed


def _declared_tool(tool: Any) -> Optional[Dict[str, Any]]:
    """Client tools: server tools (web search, code execution, ...) carry a versioned ``type`` and no schema."""
    tool = as_dict(tool)
    if not isinstance(tool.get("name"), str) or tool.get("type") not in (None, "custom") or not isinstance(tool.get("input_schema"), dict):
        return None
    description = tool.get("description")
    return {"name": tool["name"], "description": description if isinstance(description, str) else "", "parameters": tool["input_schema"]}


def _tool_result(block: Any) -> Optional[tuple]:
    block = as_dict(block)
    if block.get("type") != "tool_result" or not isinstance(block.get("tool_use_id"), str):
        return None
    # an absent is_error means the call succeeded (the Messages API's own reading)
    return (block["tool_use_id"], text_of(block.get("content")), block.get("is_error") is True)


def _tool_use(block: Any) -> Optional[tuple]:
    block = as_dict(block)
    if block.get("type") != "tool_use" or not isinstance(block.get("name"), str):
        return None
    return (block.get("id") or "", block["name"], block.get("input"))


def _message_stream(stream: Any, tracker: CallTracker, declared: List[Dict[str, Any]], model: Any) -> ObservedStream:
    """A streamed call: named by its block's start, its input the concatenated ``partial_json`` (none: the start's)."""
    calls: Dict[int, Dict[str, Any]] = {}
    seen = {"model": model}

    def on_event(event: Any) -> None:
        event = as_dict(event)
        kind = event.get("type")
        if kind == "message_start" and (event.get("message") or {}).get("model"):
            seen["model"] = event["message"]["model"]
        if kind == "content_block_start":
            call = _tool_use(event.get("content_block"))
            if call:
                calls[event.get("index")] = {"call": call, "json": ""}
        delta = event.get("delta") or {}
        if kind == "content_block_delta" and event.get("index") in calls and delta.get("type") == "input_json_delta":
            calls[event["index"]]["json"] += delta.get("partial_json") or ""

    def on_end() -> None:
        complete = [entry["call"] if not entry["json"] else entry["call"][:2] + (entry["json"],) for entry in calls.values()]
        tracker.record_calls(complete, seen["model"], declared)

    return ObservedStream(stream, on_event, on_end)
