"""Puts the guard in front of a LangChain tool (docs/guard.md), as the TypeScript SDK's guarded-tool.ts
does: the check runs inside the tool's run, before LangChain parses the arguments with the tool's schema, so the
tool's own code (its pydantic model, its function) never sees a call the guard corrected or refused.

A corrected call runs with the corrected arguments. A refused call raises ``GuardRefusal``, a ``ToolException``: a tool
with ``handle_tool_error`` answers the model with the refusal's text as an error ``ToolMessage``, one without raises it
to its caller, as LangChain does with any ``ToolException``. ``ToolcoachCallbackHandler`` reports either."""

from __future__ import annotations

import logging
import threading
from typing import Any, Dict, Optional, Tuple

from .guard import RUN, ArgumentGuard, Verdict
from .langchain import note_guard_correction

try:  # pragma: no cover - depends on the environment
    from langchain_core.tools import ToolException as _Refusal
except Exception:  # without langchain_core no tool can be wrapped; the class still exists for check_arguments users
    _Refusal = Exception  # type: ignore[assignment,misc]

logger = logging.getLogger("toolcoach")

# Each guarded tool's guard by tool name, rebuilt (by load_tools) only when the served version or guard section changes.
_guards: Dict[str, Tuple[str, ArgumentGuard]] = {}
_guards_lock = threading.Lock()
_GUARDED_MARK = "_toolcoach_guarded"


class GuardRefusal(_Refusal):  # type: ignore[valid-type,misc]
    """The guard refused a call: the tool did not run. ``args[0]`` is the text for the model."""

    toolcoach_prevented = True


def guard_key(tool_name: str) -> Optional[str]:
    with _guards_lock:
        found = _guards.get(tool_name)
    return found[0] if found else None


def set_guard(tool_name: str, key: str, guard: ArgumentGuard) -> None:
    with _guards_lock:
        _guards[tool_name] = (key, guard)


def check_arguments(tool_name: str, args: Any) -> Verdict:
    """The guard's verdict on a call of a tool loaded with ``guard``: ``action`` "run", "correct" (run with
    ``correction["corrected"]``) or "refuse" (tell the model ``message``). Tools loaded without the guard always run.
    Takes microseconds; no request."""
    with _guards_lock:
        found = _guards.get(tool_name)
    if found is None:
        return RUN
    try:
        return found[1].check(args)
    except Exception as error:  # a bug in the check must not stop the agent
        logger.warning("toolcoach: the guard could not check a call of %s (%s); letting it through", tool_name, error)
        return RUN


def guard_langchain_tool(tool: Any) -> bool:
    """Wraps the tool's ``_to_args_and_kwargs`` (where LangChain's ``run`` and ``arun`` parse the arguments) in place,
    once per tool object; checks run against the current guard of the tool's name. False for what is not a LangChain
    tool."""
    name = getattr(tool, "name", None)
    parse = getattr(tool, "_to_args_and_kwargs", None)
    if not isinstance(name, str) or not callable(parse):
        return False
    if getattr(tool, _GUARDED_MARK, False):
        return True

    def guarded_to_args_and_kwargs(tool_input: Any, tool_call_id: Optional[str]) -> Any:
        verdict = check_arguments(name, tool_input)
        if verdict.action == "refuse":
            raise GuardRefusal(verdict.message)
        if verdict.action == "correct" and verdict.correction is not None:
            note_guard_correction(name, verdict.correction)
            return parse(verdict.correction["corrected"], tool_call_id)
        return parse(tool_input, tool_call_id)

    # object.__setattr__: a LangChain tool is a pydantic model, whose own __setattr__ takes declared fields only.
    object.__setattr__(tool, "_to_args_and_kwargs", guarded_to_args_and_kwargs)
    object.__setattr__(tool, _GUARDED_MARK, True)
    return True
