"""What the OpenAI and Anthropic client wrappers share (docs/integrations/openai-anthropic.md): the tools a request
declares are registered and get their live descriptions (``load_tools`` on plain dicts), the tool calls a response
makes are checked against those tools, and each call is reported once, when the next request carries its result (or at
once, when it never reached a tool: an unknown name, arguments that are not JSON or fail the declared schema)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from .guard import ArgumentGuard
from .langchain import served_version
from .live import load_tools
from .refresh import stop_refresh
from .reporter import Reporter, default_reporter

# A call whose result never comes back (the conversation ended) is forgotten, oldest first, past this many.
MAX_PENDING_CALLS = 10_000
MAX_TOOL_NAMES_IN_MESSAGE = 20
_ERROR_TEXT = re.compile(r"^\s*(?:error|exception|traceback)\b", re.IGNORECASE)


def looks_like_error(output: str, _tool: str = "") -> bool:
    """The default reading of a result the provider does not flag (OpenAI's): text that begins with Error, Exception
    or Traceback, or a JSON object with an ``error`` member."""
    if _ERROR_TEXT.match(output):
        return True
    if not output.lstrip().startswith("{"):
        return False
    try:
        parsed = json.loads(output)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("error") not in (None, False)


def text_of(content: Any) -> str:
    """A result's text: a string as is, text parts joined, anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(part, dict) and isinstance(part.get("text"), str) for part in content):
        return "\n".join(part["text"] for part in content)
    return "" if content is None else json.dumps(content, default=str)


def with_descriptions(tools: List[Any], descriptions: Dict[str, str], declared_of: Callable[[Any], Optional[Dict[str, Any]]]) -> List[Any]:
    """The request's tools with the served description of each declared tool that has one; the others as given."""
    return [
        {**as_dict(tool), "description": descriptions[as_dict(tool)["name"]]} if declared_of(tool) and as_dict(tool)["name"] in descriptions else tool
        for tool in tools
    ]


def as_dict(value: Any) -> Dict[str, Any]:
    """A request item or a response object as a dict: the SDKs' pydantic models dump themselves, dicts stay."""
    if isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump()
            return dumped if isinstance(dumped, dict) else {}
        except Exception:
            return {}
    return {}


class CallTracker:
    """One wrapped client's calls in flight and the tools it has loaded, for one framework name."""

    def __init__(
        self,
        framework: str,
        reporter: Optional[Reporter],
        session: Optional[str],
        is_error_result: Optional[Callable[[str, str], bool]],
        live_descriptions: bool,
        refresh_interval_s: Optional[float],
    ) -> None:
        self.framework = framework
        self.reporter = reporter or default_reporter()
        self.session = session
        self.is_error_result = is_error_result or looks_like_error
        self.live_descriptions = live_descriptions
        self.refresh_interval_s = refresh_interval_s
        self._pending: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
        self._loaded: Dict[str, Dict[str, Any]] = {}
        self._guards: Dict[str, ArgumentGuard] = {}
        self._lock = threading.Lock()

    def prepare_request(self, declared: List[Dict[str, Any]], results: Iterable[Tuple[str, str, Optional[bool]]]) -> Dict[str, str]:
        """Reports the calls whose results the request carries; registers its tools; answers each tool's description
        to send, by name. Never raises."""
        descriptions: Dict[str, str] = {}
        try:
            for call_id, output, is_error in results:
                self._settle(call_id, output, is_error)
            loaded = self._loaded_tools(declared)
            if self.live_descriptions:
                descriptions = {tool["name"]: tool["description"] for tool in loaded}
        except Exception:  # reporting is best effort: the request goes out with its tools as given
            pass
        return descriptions

    def record_calls(self, calls: Iterable[Tuple[str, str, Any]], model: Optional[str], declared: List[Dict[str, Any]]) -> None:
        """After a response (or a stream's end): each (id, name, arguments) is checked and kept, or reported at once."""
        try:
            now = time.time()
            for call_id, name, arguments in calls:
                self._record_call(call_id, name, arguments, model, declared, now)
        except Exception:
            pass

    def _record_call(self, call_id: str, name: str, arguments: Any, model: Optional[str], declared: List[Dict[str, Any]], now: float) -> None:
        base: Dict[str, Any] = {"tool": name, "status": "error", "framework": self.framework, "occurredAt": _iso(now)}
        if call_id:
            base["toolCallId"] = call_id
        if model:
            base["model"] = model
        if self.session:
            base["sessionId"] = self.session
        tool = next((candidate for candidate in declared if candidate["name"] == name), None)
        parsed, reason = _parse_arguments(arguments)
        if tool is None:
            offered = ", ".join(candidate["name"] for candidate in declared[:MAX_TOOL_NAMES_IN_MESSAGE]) or "none"
            message = "Tool %s was not found among the request's tools (%s)" % (json.dumps(name), offered)
            self.reporter.report({**base, "arguments": arguments if reason else parsed, "error": {"type": "UnknownTool", "message": message}})
            return
        if reason is not None:
            message = "The arguments of %s are not valid JSON: %s" % (name, reason)
            self.reporter.report({**base, "arguments": arguments, "error": {"type": "JSONDecodeError", "message": message}})
            return
        answer = self._guard_of(tool).answer(parsed)
        if not answer.get("valid"):
            findings = "; ".join(str(error.get("message")) for error in answer.get("errors") or [])
            message = "Invalid arguments for tool %s: %s" % (name, findings)
            self.reporter.report({**base, "arguments": parsed, "error": {"type": "InvalidToolArguments", "message": message}})
            return
        if not call_id:
            return
        with self._lock:
            if len(self._pending) >= MAX_PENDING_CALLS:
                self._pending.popitem(last=False)
            self._pending[call_id] = {"base": base, "arguments": parsed, "seen_at": now, "version": served_version(name)}

    def closing(self, close: Callable[..., Any]) -> Callable[..., Any]:
        """The client's ``close``, which first stops refreshing this wrapper's tools: a wrapper per conversation (one
        ``session`` each) would otherwise have its side polled for as long as the process runs."""

        def close_client(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                tools = list(self._loaded.values())
            if tools:
                stop_refresh(tools)
            return close(*args, **kwargs)

        return close_client

    def _settle(self, call_id: str, output: str, is_error: Optional[bool]) -> None:
        """A result of a call this wrapper saw: reported once. Results of other calls (history sent again) are ignored."""
        with self._lock:
            call = self._pending.pop(call_id, None)
        if call is None:
            return
        base = call["base"]
        failed = is_error if is_error is not None else self.is_error_result(output, base["tool"])
        event = {**base, "status": "error" if failed else "success", "arguments": call["arguments"]}
        event["durationMs"] = max(0.0, (time.time() - call["seen_at"]) * 1000)
        if failed:
            event["error"] = {"type": "ToolError", "message": output}
        else:
            event["result"] = output
        if call["version"] is not None:
            event["descriptionVersion"] = call["version"]
        self.reporter.report(event)

    def _loaded_tools(self, declared: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        """The request's tools as loaded: the ones not seen before are loaded together, in one registration."""

        def key_of(tool: Dict[str, Any]) -> str:
            return json.dumps([tool["name"], tool["description"], tool["parameters"]], sort_keys=True, default=str)

        with self._lock:
            unseen = list({key_of(tool): tool for tool in declared if key_of(tool) not in self._loaded}.values())
        if unseen:
            own = [{"name": tool["name"], "description": tool["description"], "parameters": tool["parameters"]} for tool in unseen]
            reporter = self.reporter
            # load_tools sets the live descriptions in place and keeps them current (its refresh thread)
            load_tools(own, base_url=reporter.base_url, api_key=reporter.api_key, session=self.session, agent=reporter.agent, refresh_interval_s=self.refresh_interval_s)
            names = {tool["name"] for tool in unseen}
            with self._lock:
                # a tool changed in the agent's code: only its newest definition is kept
                for other in [key for key, value in self._loaded.items() if value["name"] in names]:
                    del self._loaded[other]
                for tool, loaded in zip(unseen, own):
                    self._loaded[key_of(tool)] = loaded
        with self._lock:
            return [self._loaded.get(key_of(tool), tool) for tool in declared]

    def _guard_of(self, tool: Dict[str, Any]) -> ArgumentGuard:
        key = json.dumps([tool["name"], tool["parameters"]], sort_keys=True, default=str)
        guard = self._guards.get(key)
        if guard is None:
            # "report": the guard's check only; the wrapper never runs a tool, so it corrects nothing
            guard = ArgumentGuard(tool["name"], tool["parameters"], None, "report")
            self._guards[key] = guard
        return guard


def _parse_arguments(arguments: Any) -> Tuple[Any, Optional[str]]:
    if not isinstance(arguments, str):
        return ({} if arguments is None else arguments), None
    if not arguments.strip():
        return {}, None
    try:
        return json.loads(arguments), None
    except ValueError as error:
        return None, str(error)


def _iso(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ObservedStream:
    """The SDK's stream, read through: each event goes to ``on_event`` as the caller reads it, and ``on_end`` runs when
    the stream is exhausted (not when it is abandoned). Everything else (``response``, ``close``, ``with``) is the
    stream's own."""

    def __init__(self, stream: Any, on_event: Callable[[Any], None], on_end: Callable[[], None]) -> None:
        self._stream = stream
        self._on_event = on_event
        self._on_end = on_end

    def __iter__(self) -> Iterator[Any]:
        for event in self._stream:
            _quietly(self._on_event, event)
            yield event
        _quietly(self._on_end)

    def __enter__(self) -> "ObservedStream":
        self._stream.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._stream.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _quietly(step: Callable[..., None], *args: Any) -> None:
    try:
        step(*args)
    except Exception:  # an odd event never breaks the caller's stream
        pass


class ResourceProxy:
    """``client.<path>`` with some methods swapped: ``methods`` maps a dotted path (``chat.completions.create``) to a
    function of the original method. Everything else is the client's own; the client is not changed."""

    def __init__(self, target: Any, path: str, methods: Dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]]) -> None:
        self._target = target
        self._path = path
        self._methods = methods
        self._cache: Dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        full = "%s.%s" % (self._path, name) if self._path else name
        if full in self._cache:
            return self._cache[full]
        if full in self._methods and callable(value):
            wrapped = self._methods[full](value)
        elif any(method.startswith(full + ".") for method in self._methods):
            wrapped = ResourceProxy(value, full, self._methods)
        else:
            return value
        self._cache[full] = wrapped
        return wrapped
