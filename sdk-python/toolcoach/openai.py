"""``wrap_openai``: the ``openai`` client's tool calls, for Chat Completions and the Responses API, streaming or not
(docs/integrations/openai-anthropic.md). Shapes (openai-python, ``types/chat`` and ``types/responses``): a call is
``tool_calls[i] = {id, type: "function", function: {name, arguments}}`` with ``arguments`` JSON text, or an output item
``{type: "function_call", call_id, name, arguments}``; its result comes back as ``{role: "tool", tool_call_id,
content}`` or an input item ``{type: "function_call_output", call_id, output}``, neither with an error flag. Streamed,
a call arrives as ``delta.tool_calls[i] = {index, id?, function: {name?, arguments?}}`` pieces, or whole in
``response.output_item.done`` events."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from .providers import CallTracker, ObservedStream, ResourceProxy, as_dict, text_of, with_descriptions
from .reporter import Reporter

FRAMEWORK = "openai-python"


def wrap_openai(
    client: Any,
    reporter: Optional[Reporter] = None,
    *,
    session: Optional[str] = None,
    is_error_result: Optional[Callable[[str, str], bool]] = None,
    live_descriptions: bool = True,
    refresh_interval_s: Optional[float] = 60.0,
) -> Any:
    """A wrapped ``openai.OpenAI`` client: ``chat.completions.create`` and ``responses.create`` report each tool call
    once with its outcome (to ``reporter``, default the process-wide one) and send the request's function tools with
    their live descriptions. ``session``: the ``sessionId`` of the calls and the side of a split canary.
    ``is_error_result(output, tool)``: whether an (unflagged) result reports a failure; default: it begins with Error,
    Exception or Traceback, or is a JSON object with an ``error`` member. ``close()`` stops refreshing its tools'
    descriptions, then closes the client: call it when a conversation with its own session ends. ``client`` is not
    changed."""
    tracker = CallTracker(FRAMEWORK, reporter, session, is_error_result, live_descriptions, refresh_interval_s)
    return ResourceProxy(
        client,
        "",
        {"close": tracker.closing, "chat.completions.create": lambda create: _chat_create(create, tracker), "responses.create": lambda create: _responses_create(create, tracker)},
    )


def _chat_create(create: Callable[..., Any], tracker: CallTracker) -> Callable[..., Any]:
    def observed(*args: Any, **body: Any) -> Any:
        tools = list(body.get("tools") or [])
        declared = [tool for tool in (_chat_tool(tool) for tool in tools) if tool]
        results = [result for result in (_chat_result(message) for message in body.get("messages") or []) if result]
        descriptions = tracker.prepare_request(declared, results)
        if descriptions:
            body["tools"] = [_with_chat_description(tool, descriptions) for tool in tools]
        answer = create(*args, **body)
        if body.get("stream") is True:
            return _chat_stream(answer, tracker, declared, body.get("model"))
        completion = as_dict(answer)
        choices = completion.get("choices") or [{}]
        calls = [_call_of(call) for call in (as_dict(choices[0]).get("message") or {}).get("tool_calls") or []]
        tracker.record_calls([call for call in calls if call], completion.get("model") or body.get("model"), declared)
        return answer

    return observed


def _chat_tool(tool: Any) -> Optional[Dict[str, Any]]:
    tool = as_dict(tool)
    function = tool.get("function") if isinstance(tool.get("function"), dict) else {}
    if tool.get("type") != "function" or not isinstance(function.get("name"), str):
        return None
    description = function.get("description")
    parameters = function.get("parameters")
    return {"name": function["name"], "description": description if isinstance(description, str) else "", "parameters": parameters if isinstance(parameters, dict) else {}}


def _with_chat_description(tool: Any, descriptions: Dict[str, str]) -> Any:
    declared = _chat_tool(tool)
    if not declared or declared["name"] not in descriptions:
        return tool
    tool = as_dict(tool)
    return {**tool, "function": {**tool["function"], "description": descriptions[declared["name"]]}}


def _chat_result(message: Any) -> Optional[tuple]:
    message = as_dict(message)
    if message.get("role") != "tool" or not isinstance(message.get("tool_call_id"), str):
        return None
    return (message["tool_call_id"], text_of(message.get("content")), None)


def _call_of(call: Any) -> Optional[tuple]:
    call = as_dict(call)
    function = call.get("function") or {}
    if call.get("type") != "function" or not isinstance(function.get("name"), str):
        return None
    return (call.get("id") or "", function["name"], function.get("arguments"))


def _chat_stream(stream: Any, tracker: CallTracker, declared: List[Dict[str, Any]], model: Any) -> ObservedStream:
    """Streamed calls come in pieces keyed by choice and ``index``: the first names the call, the rest add arguments."""
    calls: Dict[tuple, Dict[str, str]] = {}
    seen = {"model": model}

    def on_event(chunk: Any) -> None:
        chunk = as_dict(chunk)
        if chunk.get("model"):
            seen["model"] = chunk["model"]
        for choice in chunk.get("choices") or []:
            for piece in (choice.get("delta") or {}).get("tool_calls") or []:
                call = calls.setdefault((choice.get("index"), piece.get("index")), {"id": "", "name": "", "arguments": ""})
                function = piece.get("function") or {}
                call["id"] = piece.get("id") or call["id"]
                call["name"] += function.get("name") or ""
                call["arguments"] += function.get("arguments") or ""

    def on_end() -> None:
        tracker.record_calls([(call["id"], call["name"], call["arguments"]) for call in calls.values()], seen["model"], declared)

    return ObservedStream(stream, on_event, on_end)


def _responses_create(create: Callable[..., Any], tracker: CallTracker) -> Callable[..., Any]:
    def observed(*args: Any, **body: Any) -> Any:
        tools = list(body.get("tools") or [])
        declared = [tool for tool in (_responses_tool(tool) for tool in tools) if tool]
        items = body.get("input") if isinstance(body.get("input"), list) else []
        results = [result for result in (_function_call_output(item) for item in items) if result]
        descriptions = tracker.prepare_request(declared, results)
        if descriptions:
            body["tools"] = with_descriptions(tools, descriptions, _responses_tool)
        answer = create(*args, **body)
        if body.get("stream") is True:
            return _responses_stream(answer, tracker, declared, body.get("model"))
        response = as_dict(answer)
        calls = [_function_call(item) for item in response.get("output") or []]
        tracker.record_calls([call for call in calls if call], response.get("model") or body.get("model"), declared)
        return answer

    return observed


def _responses_tool(tool: Any) -> Optional[Dict[str, Any]]:
    tool = as_dict(tool)
    if tool.get("type") != "function" or not isinstance(tool.get("name"), str):
        return None
    description = tool.get("description")
    parameters = tool.get("parameters")
    return {"name": tool["name"], "description": description if isinstance(description, str) else "", "parameters": parameters if isinstance(parameters, dict) else {}}


def _function_call_output(item: Any) -> Optional[tuple]:
    item = as_dict(item)
    if item.get("type") != "function_call_output" or not isinstance(item.get("call_id"), str):
        return None
    return (item["call_id"], text_of(item.get("output")), None)


def _function_call(item: Any) -> Optional[tuple]:
    item = as_dict(item)
    if item.get("type") != "function_call" or not isinstance(item.get("name"), str):
        return None
    return (item.get("call_id") or "", item["name"], item.get("arguments"))


def _responses_stream(stream: Any, tracker: CallTracker, declared: List[Dict[str, Any]], model: Any) -> ObservedStream:
    """Whole calls arrive in ``response.output_item.done``; ``response.completed`` repeats them with the model."""
    calls: Dict[str, tuple] = {}
    seen = {"model": model}

    def add(item: Any) -> None:
        call = _function_call(item)
        if call:
            calls[call[0] or "#%d" % len(calls)] = call

    def on_event(event: Any) -> None:
        event = as_dict(event)
        response = event.get("response") or {}
        if response.get("model"):
            seen["model"] = response["model"]
        if event.get("type") == "response.output_item.done":
            add(event.get("item"))
        if event.get("type") == "response.completed":
            for item in response.get("output") or []:
                add(item)

    return ObservedStream(stream, on_event, lambda: tracker.record_calls(list(calls.values()), seen["model"], declared))
