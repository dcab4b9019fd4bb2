"""A LangChain / LangGraph callback handler that reports every tool call.

It subclasses ``langchain_core``'s ``BaseCallbackHandler`` when that is importable; otherwise it is a plain class with
the same attributes and methods, which LangChain's callback manager (and any caller) can use as it is.

What it sees (langchain_core 1.x, LangGraph prebuilt 1.x):
- ``on_tool_start`` / ``on_tool_end`` / ``on_tool_error`` for every tool run. Argument validation runs INSIDE the run in
  Python, so a pydantic ``ValidationError`` arrives in ``on_tool_error``; it is reported with the text LangGraph's
  ``ToolNode`` passes on to the model (``TOOL_INVOCATION_ERROR_TEMPLATE``).
- An error handled by the tool (``handle_validation_error`` / ``handle_tool_error``) arrives in ``on_tool_end`` as a
  ``ToolMessage`` with ``status="error"``.
- A tool name the model made up never starts a tool run: LangGraph's ``ToolNode`` answers it with an error
  ``ToolMessage`` (seen in ``on_chain_end``), the classic ``AgentExecutor`` runs its ``invalid_tool``.
"""

from __future__ import annotations

import ast
import json
import re
import threading
import time
import traceback
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional, Set
from uuid import UUID

from .reporter import Reporter, default_reporter

try:  # pragma: no cover - depends on the environment
    from langchain_core.callbacks import BaseCallbackHandler as _Base

    HAS_LANGCHAIN = True
except Exception:  # ImportError, or a broken install: work duck-typed
    _Base = object  # type: ignore[assignment,misc]
    HAS_LANGCHAIN = False

FRAMEWORK = "langchain-python"
DESCRIPTION_VERSION_KEY = "toolcoach_description_version"

# langgraph/prebuilt/tool_node.py
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n"
    " {error}\n"
    " Please fix the error and try again."
)
_INVALID_TOOL_NAME = re.compile(r"^Error: (.+?) is not a valid tool, try one of \[.*\]\.$", re.DOTALL)
_ERROR_TEMPLATES = re.compile(
    r"^Error invoking tool '|^Error executing tool '|\n Please fix your mistakes\.$|^Tool input validation error$"
    r"|^Tool execution error$"
)
# Finished runs are remembered this long to tell a tool call already reported from one LangGraph only answered.
_SEEN_CALL_TTL_S = 600.0


class ToolcoachCallbackHandler(_Base):  # type: ignore[valid-type,misc]
    """Pass in ``callbacks=[ToolcoachCallbackHandler()]`` (or a ``config``) of an agent, graph, or tool."""

    # What LangChain's callback manager reads from a handler; BaseCallbackHandler defines the same.
    raise_error = False
    run_inline = True
    ignore_llm = True
    ignore_retry = True
    ignore_chain = False
    ignore_agent = False
    ignore_retriever = True
    ignore_chat_model = True
    ignore_custom_event = True

    def __init__(
        self,
        reporter: Optional[Reporter] = None,
        *,
        agent: Optional[str] = None,
        model: Optional[str] = None,
        session_id: Optional[str] = None,
    ) -> None:
        if HAS_LANGCHAIN:
            super().__init__()
        self._reporter = reporter
        self.agent = agent
        self.model = model
        self.session_id = session_id
        self._runs: Dict[str, Dict[str, Any]] = {}
        self._seen_calls: Dict[str, float] = {}
        self._lock = threading.RLock()

    @property
    def reporter(self) -> Reporter:
        return self._reporter or default_reporter()

    # -- tool runs -----------------------------------------------------------------------------------------------------

    def on_tool_start(
        self,
        serialized: Optional[Dict[str, Any]],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        tags: Optional[List[str]] = None,
        metadata: Optional[Dict[str, Any]] = None,
        inputs: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        try:
            name = (serialized or {}).get("name") or kwargs.get("name") or "unknown"
            run = {
                "tool": str(name),
                "arguments": inputs if inputs is not None else parse_input_str(input_str),
                "started": time.monotonic(),
                "occurredAt": _now_iso(),
                "toolCallId": kwargs.get("tool_call_id"),
                "metadata": metadata or {},
            }
            with self._lock:
                self._runs[str(run_id)] = run
                if run["toolCallId"]:
                    self._remember_call(str(run["toolCallId"]))
        except Exception:
            pass

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        try:
            run = self._pop(run_id)
            if run is None:
                return
            if run["tool"] == "invalid_tool":
                # AgentExecutor's stand-in for a tool name the model made up.
                requested = run["arguments"].get("requested_tool_name") if isinstance(run["arguments"], dict) else None
                run["tool"] = str(requested or "invalid_tool")
                run["arguments"] = None
                self._report(run, "error", error={"message": _content_text(output)})
                return
            if _is_error_message(output):
                self._report(run, "error", error={"message": _content_text(output)})
                return
            self._report(run, "success", result=_content_of(output))
        except Exception:
            pass

    def on_tool_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any
    ) -> None:
        try:
            run = self._pop(run_id)
            if run is None:
                return
            if run.get("toolCallId") is None and kwargs.get("tool_call_id"):
                run["toolCallId"] = kwargs["tool_call_id"]
            self._report(run, "error", error=describe_error(run["tool"], run["arguments"], error))
        except Exception:
            pass

    # -- LangGraph ToolNode answers without a tool run -----------------------------------------------------------------

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        try:
            for message in _tool_messages(outputs):
                call_id = getattr(message, "tool_call_id", None)
                if not call_id or getattr(message, "status", None) != "error" or self._was_seen(str(call_id)):
                    continue
                content = _content_text(message)
                match = _INVALID_TOOL_NAME.match(content)
                if not match:
                    continue
                self._remember_call(str(call_id))
                run = {"tool": match.group(1), "arguments": None, "occurredAt": _now_iso(), "toolCallId": str(call_id), "metadata": {}}
                self._report(run, "error", error={"message": content})
        except Exception:
            pass

    # The callback manager calls these on every handler that does not ignore chains; nothing to do for them.
    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_chain_error(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_text(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_agent_action(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_agent_finish(self, *args: Any, **kwargs: Any) -> None:
        pass

    # -- internals -----------------------------------------------------------------------------------------------------

    def _pop(self, run_id: UUID) -> Optional[Dict[str, Any]]:
        with self._lock:
            return self._runs.pop(str(run_id), None)

    def _remember_call(self, call_id: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._seen_calls[call_id] = now
            if len(self._seen_calls) > 10_000:
                for key, seen in list(self._seen_calls.items()):
                    if now - seen > _SEEN_CALL_TTL_S:
                        del self._seen_calls[key]

    def _was_seen(self, call_id: str) -> bool:
        with self._lock:
            return call_id in self._seen_calls

    def _report(self, run: Dict[str, Any], status: str, *, result: Any = None, error: Optional[Dict[str, str]] = None) -> None:
        event: Dict[str, Any] = {
            "tool": run["tool"],
            "status": status,
            "occurredAt": run["occurredAt"],
            "framework": FRAMEWORK,
        }
        if run.get("arguments") is not None:
            event["arguments"] = run["arguments"]
        if status == "success" and result is not None:
            event["result"] = result
        if error is not None:
            event["error"] = error
        if "started" in run:
            event["durationMs"] = round((time.monotonic() - run["started"]) * 1000, 3)
        if run.get("toolCallId"):
            event["toolCallId"] = str(run["toolCallId"])
        version = run.get("metadata", {}).get(DESCRIPTION_VERSION_KEY)
        if isinstance(version, int) and version >= 1:
            event["descriptionVersion"] = version
        for key, value in (("agent", self.agent), ("model", self.model), ("sessionId", self.session_id)):
            if value:
                event[key] = value
        self.reporter.report(event)


def describe_error(tool: str, arguments: Any, error: BaseException) -> Dict[str, str]:
    """The error as the model would be told it: pydantic validation in LangGraph ToolNode's words, others as raised."""
    errors = _pydantic_errors(error)
    if errors is not None:
        lines = "\n".join("%s: %s" % (".".join(str(part) for part in e.get("loc", ())), e.get("msg", "Unknown error")) for e in errors)
        kwargs = arguments if isinstance(arguments, dict) else {}
        message = TOOL_INVOCATION_ERROR_TEMPLATE.format(tool_name=tool, tool_kwargs=kwargs, error=lines)
        return {"type": "ToolInvocationError", "message": message}
    described = {"type": type(error).__name__, "message": str(error) or repr(error)}
    stack = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    if stack:
        described["stack"] = stack
    return described


def _pydantic_errors(error: BaseException) -> Optional[List[Dict[str, Any]]]:
    # Duck-typed so pydantic is not needed here: ValidationError has errors() -> list of {type, loc, msg, input}.
    if type(error).__name__ != "ValidationError" or not callable(getattr(error, "errors", None)):
        return None
    try:
        errors = error.errors()  # type: ignore[attr-defined]
        return errors if isinstance(errors, list) else None
    except Exception:
        return None


def parse_input_str(input_str: Any) -> Any:
    """``input_str`` is JSON (LangChain.js, some tools) or a Python repr of the args dict (LangChain Python)."""
    if not isinstance(input_str, str):
        return input_str
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(input_str)
        except Exception:
            continue
    return input_str


def _is_error_message(output: Any) -> bool:
    if getattr(output, "status", None) == "error":
        return True
    return isinstance(output, str) and bool(_ERROR_TEMPLATES.search(output))


def _content_of(output: Any) -> Any:
    if getattr(output, "type", None) == "tool" and hasattr(output, "content"):
        return output.content
    return output


def _content_text(output: Any) -> str:
    content = _content_of(output)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block if isinstance(block, str) else str(block.get("text", "")) for block in content if isinstance(block, (str, dict))
        )
    return str(content)


def _tool_messages(outputs: Any) -> List[Any]:
    """ToolMessages in a node's output: a message, a list, ``{"messages": [...]}``, or a list of such updates."""
    found: List[Any] = []
    stack = [outputs]
    visited: Set[int] = set()
    while stack and len(found) < 1000:
        item = stack.pop()
        if id(item) in visited:
            continue
        visited.add(id(item))
        if getattr(item, "type", None) == "tool" and hasattr(item, "tool_call_id"):
            found.append(item)
        elif isinstance(item, dict):
            if "messages" in item:
                stack.append(item["messages"])
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif hasattr(item, "update"):  # langgraph Command(update={"messages": [...]})
            stack.append(getattr(item, "update"))
    return found


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
