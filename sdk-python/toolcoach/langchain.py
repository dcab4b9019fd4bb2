"""A LangChain / LangGraph callback handler that reports every tool call.

It subclasses ``langchain_core``'s ``BaseCallbackHandler`` when that is importable; otherwise it is a plain class with
the same attributes and methods, which LangChain's callback manager (and any caller) can use as it is.

What it sees (checked against real langchain_core 1.6.5; LangGraph's ToolNode through stand-ins, since it cannot be
imported without ``langchain-protocol``):
- ``on_tool_start`` / ``on_tool_end`` / ``on_tool_error`` for every tool run. Argument validation runs INSIDE the run in
  Python, so a pydantic ``ValidationError`` arrives in ``on_tool_error``; it is reported with the text LangGraph's
  ``ToolNode`` passes on to the model (``TOOL_INVOCATION_ERROR_TEMPLATE``).
- An error handled by the tool (``handle_tool_error`` / ``handle_validation_error``) arrives in ``on_tool_end``: as a
  ``ToolMessage`` with ``status="error"`` when the tool was called with a tool call, but as the bare handled text when
  it was called with plain arguments (``tool.invoke({...})``, the classic ``AgentExecutor``), indistinguishable from a
  result. Tools passed through ``load_tools`` note the exception they handled (``record_handled_errors``), so both
  reach toolcoach as the error they were, with its type.
- Tool calls whose arguments are not valid JSON never start a tool run: they are the ``invalid_tool_calls`` of the
  model's ``AIMessage``, seen in ``on_llm_end``.
- A tool name the model made up never starts a tool run either: LangGraph's ``ToolNode`` answers it with an error
  ``ToolMessage`` (seen in ``on_chain_end``), the classic ``AgentExecutor`` runs its ``invalid_tool``.
"""

from __future__ import annotations

import ast
import contextvars
import json
import re
import threading
import time
import traceback
from collections import OrderedDict
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

# error.type of failures that carry no exception; the TypeScript SDK (sdk/src/langchain.ts) uses the same names.
TOOL_MESSAGE_ERROR = "ToolMessageError"
TOOL_NOT_FOUND_ERROR = "ToolNotFoundError"
INVALID_TOOL_CALL = "InvalidToolCall"

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
# Metadata keys LangChain and LangGraph add for their own bookkeeping (as in the TypeScript SDK); the rest is the user's.
_INTERNAL_METADATA = re.compile(r"^(langgraph_|ls_|lc_|__|checkpoint_ns$|versions$)")
MAX_METADATA_BYTES = 4 * 1024  # the API's limit; larger metadata would cost the whole event
# Finished runs are remembered this long to tell a tool call already reported from one LangGraph only answered.
_SEEN_CALL_TTL_S = 600.0
# Model runs and the tool calls they asked for are remembered until used; the bound keeps abandoned ones finite.
_MAX_TRACKED = 10_000
_MAX_TRACE_DEPTH = 100
# Where LangGraph (thread_id, from the config's configurable) and users put the conversation a run belongs to.
_SESSION_METADATA_KEYS = ("thread_id", "session_id", "sessionId")

# The exception a tool's error handler turned into an answer, noted by HandledErrorRecorder for on_tool_end. A context
# variable, not a handler attribute: LangChain handles the error and calls on_tool_end in the caller's context, and
# parallel tool calls (threads, asyncio tasks, ToolNode's executor) each run in a context of their own.
_handled_error: "contextvars.ContextVar[Optional[_HandledError]]" = contextvars.ContextVar("toolcoach_handled_error", default=None)
# The guard's correction of the tool run in progress (guarded_tool.py), noted the same way for on_tool_end/on_tool_error.
_guard_correction: "contextvars.ContextVar[Optional[Dict[str, Any]]]" = contextvars.ContextVar("toolcoach_guard_correction", default=None)
GUARD_REFUSED = "GuardRefused"  # error.type of a call the guard refused, as in the TypeScript SDK


def note_guard_correction(tool: str, correction: Dict[str, Any]) -> None:
    """The guard ran this tool with corrected arguments: the run's event carries the correction."""
    _guard_correction.set({"tool": tool, "correction": correction})


# The description version load_tools last applied to each tool name in this process, for events of calls that never
# started a tool run (an invalid tool call carries no tool metadata), as the TypeScript client fills in its versions.
_served_versions: Dict[str, int] = {}
_served_versions_lock = threading.Lock()


def remember_served_version(tool: str, version: int) -> None:
    with _served_versions_lock:
        _served_versions[tool] = version


def served_version(tool: str) -> Optional[int]:
    with _served_versions_lock:
        return _served_versions.get(tool)


class _HandledError:
    def __init__(self, tool: str, error: BaseException, answer: str) -> None:
        self.tool = tool
        self.error = error
        self.answer = answer


class HandledErrorRecorder:
    """Takes the place of a tool's ``handle_tool_error`` / ``handle_validation_error`` setting: answers exactly as
    LangChain would with the original setting (True: the exception's message, or LangChain's fixed text; a string; a
    callable), and notes the exception so the callback handler reports the answer as the error it is."""

    def __init__(self, tool: str, setting: Any, default_answer: Optional[str]) -> None:
        self.tool = tool
        self.setting = setting
        # None: the exception's first argument, as LangChain answers a handled ToolException.
        self.default_answer = default_answer

    def __call__(self, error: BaseException) -> Any:
        if isinstance(self.setting, bool):
            if self.default_answer is not None:
                answer: Any = self.default_answer
            else:
                answer = error.args[0] if error.args else "Tool execution error"
        elif isinstance(self.setting, str):
            answer = self.setting
        else:
            answer = self.setting(error)
        _handled_error.set(_HandledError(self.tool, error, _content_text(answer)))
        return answer


def record_handled_errors(tool: Any) -> bool:
    """Wraps the error handling a LangChain tool was given (``handle_tool_error``, ``handle_validation_error``) in a
    ``HandledErrorRecorder``; a tool that handles nothing, or is wrapped already, is left alone. True when wrapped."""
    wrapped = False
    name = getattr(tool, "name", None)
    if not isinstance(name, str):
        return False
    for attribute, default_answer in (("handle_tool_error", None), ("handle_validation_error", "Tool input validation error")):
        setting = getattr(tool, attribute, None)
        if not setting or isinstance(setting, HandledErrorRecorder):
            continue
        if not isinstance(setting, (bool, str)) and not callable(setting):
            continue
        setattr(tool, attribute, HandledErrorRecorder(name, setting, default_answer))
        wrapped = True
    return wrapped


class ToolcoachCallbackHandler(_Base):  # type: ignore[valid-type,misc]
    """Pass in ``callbacks=[ToolcoachCallbackHandler()]`` (or a ``config``) of an agent, graph, or tool."""

    # What LangChain's callback manager reads from a handler; BaseCallbackHandler defines the same. Model runs are
    # followed for the tool calls they ask for: the malformed ones never reach a tool, and the others name the model.
    raise_error = False
    run_inline = True
    ignore_llm = False
    ignore_retry = True
    ignore_chain = False
    ignore_agent = False
    ignore_retriever = True
    ignore_chat_model = False
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
        # Runs that may answer tool calls without a tool run, by run id: model runs (invalid tool calls) and chains
        # (LangGraph's ToolNode answering an unknown tool), with what their events need: model, metadata, tags.
        self._model_runs: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
        self._chains: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
        # The tool calls models asked for, by id: their arguments and model, for failures that never reach a tool.
        self._model_calls: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
        # The parent of every run still open, to find the trace (the outermost run) an event belongs to.
        self._parents: "OrderedDict[str, Optional[str]]" = OrderedDict()
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
            # An error a tool handled before this run is not this run's: forget it (see _handled_error).
            _handled_error.set(None)
            _guard_correction.set(None)
            name = (serialized or {}).get("name") or kwargs.get("name") or "unknown"
            run = {
                "tool": str(name),
                "arguments": inputs if inputs is not None else parse_input_str(input_str),
                "started": time.monotonic(),
                "occurredAt": _now_iso(),
                "toolCallId": kwargs.get("tool_call_id"),
                "runId": str(run_id),
                "parentRunId": str(parent_run_id) if parent_run_id else None,
                "tags": tags or [],
                "metadata": metadata or {},
            }
            with self._lock:
                self._runs[str(run_id)] = run
                _remember_bounded(self._parents, str(run_id), run["parentRunId"])
                if run["toolCallId"]:
                    self._remember_call(str(run["toolCallId"]))
        except Exception:
            pass

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        try:
            run = self._pop(run_id)
            if run is None:
                return
            _take_guard_correction(run)
            handled = _handled_error.get()
            if handled is not None and handled.tool == run["tool"] and handled.answer == _content_text(output):
                _handled_error.set(None)
                run["prevented"] = _is_guard_refusal(handled.error)
                self._report(run, "error", error=describe_error(run["tool"], run["arguments"], handled.error))
                return
            if run["tool"] == "invalid_tool":
                # AgentExecutor's stand-in for a tool name the model made up.
                requested = run["arguments"].get("requested_tool_name") if isinstance(run["arguments"], dict) else None
                run["tool"] = str(requested or "invalid_tool")
                run["arguments"] = None
                self._report(run, "error", error={"type": TOOL_NOT_FOUND_ERROR, "message": _content_text(output)})
                return
            if _is_error_message(output):
                self._report(run, "error", error={"type": TOOL_MESSAGE_ERROR, "message": _content_text(output)})
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
            _take_guard_correction(run)
            run["prevented"] = _is_guard_refusal(error)
            if run.get("toolCallId") is None and kwargs.get("tool_call_id"):
                run["toolCallId"] = kwargs["tool_call_id"]
            self._report(run, "error", error=describe_error(run["tool"], run["arguments"], error))
        except Exception:
            pass

    # -- model runs: which model asked for a tool call, and the calls that can never reach a tool ----------------------

    def on_chat_model_start(self, serialized: Optional[Dict[str, Any]], messages: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._remember_model_run(run_id, kwargs)

    def on_llm_start(self, serialized: Optional[Dict[str, Any]], prompts: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._remember_model_run(run_id, kwargs)

    def on_llm_end(self, response: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        try:
            with self._lock:
                model_run = self._model_runs.pop(str(run_id), None) or {
                    "tags": kwargs.get("tags") or [],
                    "metadata": {},
                    "parentRunId": str(parent_run_id) if parent_run_id else None,
                }
                self._parents.pop(str(run_id), None)
            for message in _generated_messages(response):
                for call in getattr(message, "tool_calls", None) or []:
                    if isinstance(call, dict) and call.get("id"):
                        asked = {"name": call.get("name"), "args": call.get("args"), "model": model_run.get("model")}
                        with self._lock:
                            _remember_bounded(self._model_calls, str(call["id"]), asked)
                for call in getattr(message, "invalid_tool_calls", None) or []:
                    if isinstance(call, dict):
                        self._report_invalid_tool_call(call, str(run_id), model_run)
        except Exception:
            pass

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._model_runs.pop(str(run_id), None)
            self._parents.pop(str(run_id), None)

    def on_llm_new_token(self, *args: Any, **kwargs: Any) -> None:
        pass

    # -- LangGraph ToolNode answers without a tool run -----------------------------------------------------------------

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        try:
            with self._lock:
                chain = self._chains.pop(str(run_id), None) or {}
                self._parents.pop(str(run_id), None)
            for message in _tool_messages(outputs):
                call_id = getattr(message, "tool_call_id", None)
                if not call_id or getattr(message, "status", None) != "error" or self._was_seen(str(call_id)):
                    continue
                content = _content_text(message)
                match = _INVALID_TOOL_NAME.match(content)
                if not match:
                    continue
                self._remember_call(str(call_id))
                with self._lock:
                    asked = self._model_calls.pop(str(call_id), None) or {}
                run = {
                    "tool": match.group(1),
                    "arguments": asked.get("args"),
                    "occurredAt": _now_iso(),
                    "toolCallId": str(call_id),
                    "model": asked.get("model"),
                    "runId": str(run_id),
                    "parentRunId": str(parent_run_id) if parent_run_id else None,
                    "tags": chain.get("tags") or kwargs.get("tags") or [],
                    "metadata": chain.get("metadata") or {},
                }
                self._report(run, "error", error={"type": TOOL_NOT_FOUND_ERROR, "message": content})
        except Exception:
            pass

    def on_chain_start(
        self,
        serialized: Optional[Dict[str, Any]],
        inputs: Any,
        *,
        run_id: UUID,
        tags: Optional[List[str]] = None,
        metadata: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        try:
            parent = kwargs.get("parent_run_id")
            with self._lock:
                _remember_bounded(self._chains, str(run_id), {"tags": tags or [], "metadata": metadata or {}})
                _remember_bounded(self._parents, str(run_id), str(parent) if parent else None)
        except Exception:
            pass

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._chains.pop(str(run_id), None)
            self._parents.pop(str(run_id), None)

    # The callback manager calls these on handlers that do not ignore agents (on_text on all); nothing to do for them.

    def on_text(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_agent_action(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_agent_finish(self, *args: Any, **kwargs: Any) -> None:
        pass

    # -- internals -----------------------------------------------------------------------------------------------------

    def _pop(self, run_id: UUID) -> Optional[Dict[str, Any]]:
        with self._lock:
            self._parents.pop(str(run_id), None)
            return self._runs.pop(str(run_id), None)

    def _root_of(self, run_id: str) -> str:
        """The outermost run still open above this one: the trace's root (LangSmith's trace id)."""
        current = run_id
        with self._lock:
            for _ in range(_MAX_TRACE_DEPTH):
                parent = self._parents.get(current)
                if not parent:
                    break
                current = parent
        return current

    def _remember_call(self, call_id: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._seen_calls[call_id] = now
            if len(self._seen_calls) > _MAX_TRACKED:
                for key, seen in list(self._seen_calls.items()):
                    if now - seen > _SEEN_CALL_TTL_S:
                        del self._seen_calls[key]

    def _was_seen(self, call_id: str) -> bool:
        with self._lock:
            return call_id in self._seen_calls

    def _remember_model_run(self, run_id: UUID, kwargs: Dict[str, Any]) -> None:
        try:
            metadata = kwargs.get("metadata") or {}
            model_run = {
                "model": _model_name(metadata, kwargs.get("invocation_params")),
                "metadata": metadata,
                "tags": kwargs.get("tags") or [],
                "parentRunId": str(kwargs["parent_run_id"]) if kwargs.get("parent_run_id") else None,
            }
            with self._lock:
                _remember_bounded(self._model_runs, str(run_id), model_run)
                _remember_bounded(self._parents, str(run_id), model_run["parentRunId"])
        except Exception:
            pass

    def _report_invalid_tool_call(self, call: Dict[str, Any], run_id: str, model_run: Dict[str, Any]) -> None:
        call_id = call.get("id")
        if call_id:
            self._remember_call(str(call_id))
        run = {
            "tool": str(call.get("name") or "unknown"),
            "arguments": parse_json_arguments(call.get("args")),
            "occurredAt": _now_iso(),
            "toolCallId": str(call_id) if call_id else None,
            "runId": run_id,
            "parentRunId": model_run.get("parentRunId"),
            "model": model_run.get("model"),
            "tags": model_run.get("tags") or [],
            "metadata": model_run.get("metadata") or {},
        }
        self._report(run, "error", error=describe_invalid_tool_call(call))

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
        if run.get("correction") is not None:
            event["correction"] = run["correction"]
        if run.get("prevented"):
            event["prevented"] = True
        # Only a run that reached the tool has a duration; an invalid or unknown call has none (not 0).
        if "started" in run:
            event["durationMs"] = round((time.monotonic() - run["started"]) * 1000, 3)
        if run.get("toolCallId"):
            event["toolCallId"] = str(run["toolCallId"])
        trace_id = None
        if run.get("runId"):
            event["runId"] = run["runId"]
            trace_id = self._root_of(run["parentRunId"]) if run.get("parentRunId") else run["runId"]
            event["traceId"] = trace_id
        metadata = run.get("metadata") or {}
        version = metadata.get(DESCRIPTION_VERSION_KEY)
        if not isinstance(version, int):
            version = served_version(run["tool"])
        if isinstance(version, int) and version >= 1:
            event["descriptionVersion"] = version
        user_metadata = _user_metadata(metadata, run.get("tags"), run.get("parentRunId"))
        if user_metadata:
            event["metadata"] = user_metadata
        # Popped whatever the model option says: a call is asked for once and reported once.
        model = self._model_of_call(run.get("toolCallId"))
        model = self.model or run.get("model") or model
        agent = self.agent or _agent_of(metadata, run.get("tags"))
        session_id = self.session_id or _session_of(metadata) or trace_id
        for key, value in (("agent", agent), ("model", model), ("sessionId", session_id)):
            if value:
                event[key] = value
        self.reporter.report(event)

    def _model_of_call(self, call_id: Any) -> Optional[str]:
        if not call_id:
            return None
        with self._lock:
            asked = self._model_calls.pop(str(call_id), None)
        return asked.get("model") if asked else None


def describe_error(tool: str, arguments: Any, error: BaseException) -> Dict[str, str]:
    """The error as the model would be told it: pydantic validation in LangGraph ToolNode's words, others as raised."""
    if _is_guard_refusal(error):
        return {"type": GUARD_REFUSED, "message": str(error.args[0] if error.args else error)}
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


def _is_guard_refusal(error: BaseException) -> bool:
    return getattr(error, "toolcoach_prevented", False) is True


def _take_guard_correction(run: Dict[str, Any]) -> None:
    """The guard's correction of this run, if any: the event carries it and the arguments the tool ran with."""
    noted = _guard_correction.get()
    if noted is None or noted["tool"] != run["tool"]:
        return
    _guard_correction.set(None)
    run["correction"] = noted["correction"]
    run["arguments"] = noted["correction"]["corrected"]


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


def parse_json_arguments(args: Any) -> Any:
    """A model's raw arguments: the parsed JSON when they are JSON, otherwise the text as the model wrote it."""
    if not isinstance(args, str):
        return args
    try:
        return json.loads(args)
    except ValueError:
        return args


def describe_invalid_tool_call(call: Dict[str, Any]) -> Dict[str, str]:
    """An ``invalid_tool_calls`` entry as an error: LangChain's own error when it gave one, else what is wrong with the
    call, the arguments in the words of Python's JSON parser (which toolcoach's categorizer reads as malformed)."""
    given = call.get("error")
    if isinstance(given, str) and given.strip():
        return {"type": INVALID_TOOL_CALL, "message": given}
    name = call.get("name")
    args = call.get("args")
    problems: List[str] = []
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
            if not isinstance(parsed, dict):
                problems.append("the model's arguments for %s are not a JSON object (%s)" % (name or "the call", type(parsed).__name__))
        except ValueError as error:
            problems.append("the model's arguments for %s are not valid JSON: %s" % (name or "the call", error))
    if not name:
        problems.append("the model's tool call names no tool")
    return {"type": INVALID_TOOL_CALL, "message": "; ".join(problems) or "the model's call of %s could not be read" % name}


def _generated_messages(response: Any) -> List[Any]:
    """The messages of an ``LLMResult``: ``generations`` is a list (one per prompt) of lists of ChatGenerations."""
    found: List[Any] = []
    for generations in getattr(response, "generations", None) or []:
        for generation in generations if isinstance(generations, (list, tuple)) else [generations]:
            message = getattr(generation, "message", None)
            if message is not None:
                found.append(message)
    return found


def _model_name(metadata: Optional[Dict[str, Any]], invocation_params: Any) -> Optional[str]:
    """The model's name as LangChain's chat models give it: ``ls_model_name`` in the run's metadata, else the
    invocation parameters' ``model`` / ``model_name``."""
    for source, keys in ((metadata, ("ls_model_name",)), (invocation_params, ("model", "model_name"))):
        if isinstance(source, dict):
            for key in keys:
                value = source.get(key)
                if isinstance(value, str) and value:
                    return value[:200]
    return None


def _remember_bounded(remembered: "OrderedDict[str, Any]", key: str, value: Any) -> None:
    remembered[key] = value
    remembered.move_to_end(key)
    while len(remembered) > _MAX_TRACKED:
        remembered.popitem(last=False)


def _session_of(metadata: Dict[str, Any]) -> Optional[str]:
    for key in _SESSION_METADATA_KEYS:
        value = metadata.get(key)
        if (isinstance(value, str) and value) or (isinstance(value, int) and not isinstance(value, bool)):
            return str(value)[:200]
    return None


def _agent_of(metadata: Dict[str, Any], tags: Optional[List[str]]) -> Optional[str]:
    """The agent's name from the run, as the TypeScript handler reads it: ``metadata.agent`` / ``lc_agent_name``, else
    an ``agent:<name>`` tag."""
    for key in ("agent", "lc_agent_name"):
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
    for tag in tags or []:
        if isinstance(tag, str) and tag.startswith("agent:") and len(tag) > len("agent:"):
            return tag[len("agent:") :]
    return None


def _user_metadata(metadata: Dict[str, Any], tags: Optional[List[str]], parent_run_id: Optional[str]) -> Optional[Dict[str, Any]]:
    """The run's metadata without LangChain's bookkeeping and ours, with its tags and parent run; None when empty or
    over the API's size limit (an event with too much metadata would be refused as a whole)."""
    result = {
        key: value
        for key, value in metadata.items()
        if isinstance(key, str) and not _INTERNAL_METADATA.match(key) and key not in ("agent", DESCRIPTION_VERSION_KEY)
    }
    if tags:
        result["tags"] = list(tags)
    if parent_run_id:
        result["parentRunId"] = parent_run_id
    if not result:
        return None
    try:
        size = len(json.dumps(result, default=str).encode("utf-8"))
    except Exception:
        return None
    return result if size <= MAX_METADATA_BYTES else None


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
