"""Live tool descriptions: ``load_tools`` registers the agent's tools with toolcoach and gives them the registry's
descriptions (learned warnings included), the way the TypeScript SDK's ``loadTools`` does: ``POST /v1/tools:bulk``
with each tool's name, description and JSON Schema, then ``GET /v1/tools?format=raw``."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple, Union

from .guard import MODES, ArgumentGuard
from .guarded_tool import guard_key, guard_langchain_tool, set_guard
from .langchain import DESCRIPTION_VERSION_KEY, record_handled_errors, remember_served_version
from .refresh import DEFAULT_REFRESH_INTERVAL_S, refresher
from .reporter import configured_api_key, configured_base_url, configured_startup_timeout_s

logger = logging.getLogger("toolcoach")

MAX_TOOLS_PER_REQUEST = 500  # POST /v1/tools:bulk takes at most this many
MAX_BULK_BODY_BYTES = 768 * 1024
TOOL_LIST_PATH = "/v1/tools?format=raw"
# A tool without a schema the SDK can read still registers its name and description, as taking no arguments.
_NO_ARGUMENTS: Dict[str, Any] = {"type": "object", "properties": {}}
# Tools whose description load_tools replaced, by id: (the text it set, the tool's own text). Loading again registers
# the tool's own text, never a served one (which would make the warnings part of the base description). Bounded.
_MAX_REMEMBERED_TOOLS = 10_000
_own_descriptions: "OrderedDict[int, Tuple[str, str]]" = OrderedDict()
_own_descriptions_lock = threading.Lock()
_warned: Set[str] = set()


def fetch_descriptions(
    *,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    timeout_s: Optional[float] = None,
    session: Optional[str] = None,
    agent: Optional[str] = None,
) -> Optional[Dict[str, Dict[str, Any]]]:
    """Every active tool of the project by name (``{name, version, description, ...}``); None when the registry
    cannot be read, so callers keep what they have. ``session`` / ``agent``: the sticky id of guarded rollout, as in
    ``load_tools``."""
    base, key = configured_base_url(base_url), configured_api_key(api_key)
    timeout_s = configured_startup_timeout_s(timeout_s)
    try:
        return _read_tools(base, key, time.monotonic() + timeout_s, sticky_headers(session, agent))
    except Exception as error:  # unreachable, timed out, refused key, odd answer: the agent starts anyway
        _warn_once("fetch", "toolcoach: live descriptions unavailable from %s (%s); keeping the tools' own descriptions" % (base, _describe(error)))
        return None


def load_tools(
    tools: Iterable[Any],
    *,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    timeout_s: Optional[float] = None,
    session: Optional[str] = None,
    agent: Optional[str] = None,
    guard: Union[bool, str] = False,
    refresh_interval_s: Optional[float] = DEFAULT_REFRESH_INTERVAL_S,
) -> List[Any]:
    """Registers the tools with toolcoach, then sets each tool's description to the live one, in place; returns the
    tools as a list. Never raises.

    Registration sends each tool's name, its own description and the JSON Schema of its arguments (LangChain tools:
    ``tool_call_schema`` / ``args_schema``, a pydantic model or a dict; OpenAI-style dicts
    ``{"type": "function", "function": {...}}``: ``parameters``; plain ``{"name", "description", "parameters"}``
    dicts), all in ``POST /v1/tools:bulk``: a new tool is created, a changed one gets a new version, an unchanged one
    is left as it is (a schema that accepts the same arguments as the registered one, for example the same tool's zod
    schema registered by a TypeScript agent, counts as unchanged: docs/registration.md). The live descriptions (``GET /v1/tools``) then replace the tools' descriptions, and the version
    applied goes in the tool's ``metadata`` (``toolcoach_description_version``), which LangChain passes to callbacks,
    so reported events say which description the model saw.

    LangChain tools that handle their errors (``handle_tool_error`` / ``handle_validation_error``) are set up so that
    ``ToolcoachCallbackHandler`` reports a handled error as the error it was (``record_handled_errors``).

    Guarded rollout (docs/rollout.md): by default a canary alternates for every caller between two nightly runs, and
    the refresh below follows each turn. With the split design the server serves each sticky id the same version every
    time: ``session`` is sent as ``X-Toolcoach-Session``; without it ``agent`` as ``X-Toolcoach-Agent``; with neither,
    the tools get the version everyone had before the canary.

    Fallback: when registration or reading fails within ``timeout_s`` in all (default ``TOOLCOACH_STARTUP_TIMEOUT_MS``,
    else 2 seconds; toolcoach down, slow, key refused, a schema refused), a warning is logged once and every tool keeps
    its own description.

    Live refresh: every ``refresh_interval_s`` (default 60; 0 or None: never) the tools ask the registry again, with
    the ETag of its last answer (``If-None-Match``), and a new version (a warning promoted, the turn of a canary that
    alternates in time) replaces their descriptions in place, so a long-running agent follows without a restart; a 304
    changes nothing. Tools loaded while toolcoach was down are registered once it answers. One daemon thread polls for
    the whole process, one side (server, key, session or agent) after another. ``stop_refresh(tools)`` ends it, for example when a conversation with its own session ends.

    Guarded execution (README "Guarded execution"): with ``guard=True`` each LangChain tool checks its arguments before
    it runs, locally, against the registered schema and the renames and limits the registry serves with it (the
    ``guard`` section of ``GET /v1/tools``). Safe corrections (a rename, a one-element array where one value belongs,
    an exact numeric string where a number belongs) run corrected; unsafe calls (several values where one belongs, a
    value beyond a limit, a missing argument) raise ``GuardRefusal``, a ``ToolException`` whose text says how to call
    instead, without running the tool. ``ToolcoachCallbackHandler`` reports the call with its ``correction``, or as
    ``prevented``. The project's policy decides the mode; ``guard="off" | "report" | "correct" | "strict"`` overrides
    it. Other tools can be checked with ``check_arguments(name, args)``. Without the registry the guard checks the
    tools' own schemas and says so once.
    """
    tool_list = list(tools)
    base, key = configured_base_url(base_url), configured_api_key(api_key)
    timeout_s = configured_startup_timeout_s(timeout_s)
    try:
        for tool in tool_list:
            record_handled_errors(tool)
        definitions = [definition for definition in (tool_definition(tool) for tool in tool_list) if definition]
    except Exception as error:
        _warn_once("load-internal", "toolcoach: load_tools failed (%s); using the tools as given" % _describe(error))
        return tool_list
    deadline = time.monotonic() + timeout_s
    sticky = sticky_headers(session, agent)
    live: Dict[str, Dict[str, Any]] = {}
    side = _LiveSide(base, key, timeout_s, sticky, tool_list, guard)
    try:
        _register(base, key, definitions, deadline, sticky)
        _, side.etag, live = _read_tools_since(base, key, deadline, sticky, None)
        side.is_registered = True
    except Exception as error:
        _warn_once("load", "toolcoach: could not register or load tool descriptions at %s (%s); using the tools' own descriptions" % (base, _describe(error)))
    for tool in tool_list:
        try:
            _apply(tool, live)
        except Exception as error:
            logger.warning("toolcoach: could not apply the live description to %r: %s", tool, error)
    if guard:
        try:
            _guard_tools(tool_list, definitions, live, guard if isinstance(guard, str) else None, base)
        except Exception as error:
            _warn_once("guard-internal", "toolcoach: the guard could not be set up (%s); the tools run unchecked" % _describe(error))
    if refresh_interval_s and definitions:
        side_key = (base, key, tuple(sorted(sticky.items())))
        # Tools of an earlier load_tools of this side stay refreshed, unless a tool of this one has their name.
        previous = refresher.watched(side_key)
        if isinstance(previous, _LiveSide):
            names = {_name_of(tool) for tool in tool_list}
            side.tools = [tool for tool in previous.tools if _name_of(tool) not in names] + tool_list
        refresher.watch(side_key, side, max(0.01, float(refresh_interval_s)))
    return tool_list


class _LiveSide:
    """What the refresh of one side's loaded tools needs: where to ask, the tools, their guard, the last ETag."""

    def __init__(self, base: str, key: str, timeout_s: float, sticky: Dict[str, str], tools: List[Any], guard: Union[bool, str]) -> None:
        self.base, self.key, self.timeout_s, self.sticky = base, key, timeout_s, sticky
        self.tools = tools
        self.guard = guard
        self.etag: Optional[str] = None
        self.is_registered = False

    def poll(self) -> bool:
        """Asks once (with the last ETag) and applies what changed in place; True when a description changed."""
        deadline = time.monotonic() + self.timeout_s
        try:
            definitions = [definition for definition in (tool_definition(tool) for tool in self.tools) if definition]
            if not self.is_registered:
                _register(self.base, self.key, definitions, deadline, self.sticky)
                self.is_registered = True
                self.etag = None
            status, etag, live = _read_tools_since(self.base, self.key, deadline, self.sticky, self.etag)
        except Exception as error:
            _warn_once("refresh", "toolcoach: could not refresh tool descriptions from %s (%s); keeping the ones loaded" % (self.base, _describe(error)))
            return False
        if status == 304:
            return False
        self.etag = etag
        changed = [tool for tool in self.tools if _is_changed(tool, live)]
        for tool in changed:
            _apply(tool, live)
        if changed and self.guard:
            names = {_name_of(tool) for tool in changed}
            changed_definitions = [definition for definition in definitions if definition["name"] in names]
            _guard_tools(changed, changed_definitions, live, self.guard if isinstance(self.guard, str) else None, self.base)
        return bool(changed)


def _register(base: str, key: str, definitions: List[Dict[str, Any]], deadline: float, sticky: Dict[str, str]) -> None:
    for batch in _registration_batches(definitions):
        _request("POST", base, key, "/v1/tools:bulk", deadline, {"tools": batch}, sticky)


def _registration_batches(definitions: List[Dict[str, Any]]) -> List[List[Dict[str, Any]]]:
    """At most MAX_TOOLS_PER_REQUEST tools and MAX_BULK_BODY_BYTES of JSON a request (the server takes 1 MB bodies)."""
    batches: List[List[Dict[str, Any]]] = []
    size = 0
    for definition in definitions:
        definition_size = len(json.dumps(definition, default=str).encode("utf-8")) + 1
        if not batches or len(batches[-1]) == MAX_TOOLS_PER_REQUEST or size + definition_size > MAX_BULK_BODY_BYTES:
            batches.append([definition])
            size = definition_size
        else:
            batches[-1].append(definition)
            size += definition_size
    return batches or [definitions]


def _name_of(tool: Any) -> Any:
    target = _description_holder(tool)
    return target.get("name") if isinstance(target, dict) else getattr(target, "name", None)


def _is_changed(tool: Any, live: Dict[str, Dict[str, Any]]) -> bool:
    """Whether the served description or version differs from the one the tool has."""
    target = _description_holder(tool)
    name = _name_of(tool)
    found = live.get(name) if isinstance(name, str) else None
    if not found:
        return False
    current = target.get("description") if isinstance(target, dict) else getattr(target, "description", None)
    if found["description"] != current:
        return True
    metadata = None if isinstance(target, dict) else getattr(target, "metadata", None)
    return isinstance(metadata, dict) and found.get("version") != metadata.get(DESCRIPTION_VERSION_KEY)


def _guard_tools(tools: List[Any], definitions: List[Dict[str, Any]], live: Dict[str, Dict[str, Any]], mode: Optional[str], base: str) -> None:
    """Builds each tool's guard from the served schema and guard section (its own schema without them), rebuilt only
    when they change, and wraps the LangChain tools."""
    if mode is not None and mode not in MODES:
        raise ValueError("guard must be True or one of %s, not %r" % (", ".join(MODES), mode))
    missing = [definition["name"] for definition in definitions if not isinstance(live.get(definition["name"], {}).get("guard"), dict)]
    if missing:
        _warn_once("guard-own-schema", "toolcoach: the guard checks %s against the tools' own schemas only (no guard section from %s)" % (", ".join(missing), base))
    for definition in definitions:
        served = live.get(definition["name"]) or {}
        section = served.get("guard") if isinstance(served.get("guard"), dict) else None
        parameters = served.get("parameters") if isinstance(served.get("parameters"), dict) else definition["parameters"]
        effective_mode = mode or (section or {}).get("policy") or "correct"
        if effective_mode not in MODES:
            effective_mode = "correct"
        key = json.dumps([served.get("version", 0), effective_mode, section, None if section else parameters], sort_keys=True, default=str)
        if guard_key(definition["name"]) != key:
            set_guard(definition["name"], key, ArgumentGuard(definition["name"], parameters, section, effective_mode))
    for tool in tools:
        if not isinstance(tool, dict):
            guard_langchain_tool(tool)


def tool_definition(tool: Any) -> Optional[Dict[str, Any]]:
    """The registry's shape of a tool, ``{name, description, parameters}``, with the tool's own description (not one
    load_tools set); None for something without a name."""
    target = _description_holder(tool)
    name = target.get("name") if isinstance(target, dict) else getattr(target, "name", None)
    if not isinstance(name, str) or not name:
        return None
    own = _own_description(target)
    parameters = parameters_schema(tool)
    # pydantic puts the tool's description (the live one, once load_tools set it) at the schema's root: send the own one
    current = target.get("description") if isinstance(target, dict) else getattr(target, "description", None)
    if isinstance(parameters.get("description"), str) and parameters["description"] == current and current != own:
        parameters = {**parameters, "description": own}
    return {"name": name, "description": own, "parameters": parameters}


def _own_description(target: Any) -> str:
    current = target.get("description") if isinstance(target, dict) else getattr(target, "description", None)
    current = current if isinstance(current, str) else ""
    with _own_descriptions_lock:
        remembered = _own_descriptions.get(id(target))
    return remembered[1] if remembered is not None and remembered[0] == current else current


def parameters_schema(tool: Any) -> Dict[str, Any]:
    """The JSON Schema of a tool's arguments, or an object schema without properties when it has none we can read."""
    if isinstance(tool, dict):
        target = _description_holder(tool)
        for key in ("parameters", "input_schema", "inputSchema"):
            if isinstance(target.get(key), dict):
                return target[key]
        return dict(_NO_ARGUMENTS)
    # tool_call_schema leaves out injected arguments (state, config) the model never sees; args_schema is the fallback.
    for attribute in ("tool_call_schema", "args_schema"):
        try:
            schema = getattr(tool, attribute, None)
        except Exception:  # a property that fails on an unusual tool
            continue
        json_schema = _json_schema_of(schema)
        if json_schema is not None:
            return json_schema
    return dict(_NO_ARGUMENTS)


def _json_schema_of(schema: Any) -> Optional[Dict[str, Any]]:
    if schema is None:
        return None
    if isinstance(schema, dict):
        return schema
    for method in ("model_json_schema", "schema"):  # pydantic v2, then v1
        produce = getattr(schema, method, None)
        if callable(produce):
            try:
                produced = produce()
            except Exception:
                continue
            if isinstance(produced, dict):
                return produced
    return None


def _description_holder(tool: Any) -> Any:
    if isinstance(tool, dict) and isinstance(tool.get("function"), dict):
        return tool["function"]
    return tool


def _apply(tool: Any, live: Dict[str, Dict[str, Any]]) -> None:
    target = _description_holder(tool)
    is_dict = isinstance(target, dict)
    name = target.get("name") if is_dict else getattr(target, "name", None)
    found = live.get(name) if isinstance(name, str) else None
    if not found:
        return
    own = _own_description(target)
    served = found["description"]
    version = found.get("version")
    if is_dict:
        target["description"] = served
    else:
        target.description = served
        if isinstance(version, int):
            metadata = dict(getattr(target, "metadata", None) or {})
            metadata[DESCRIPTION_VERSION_KEY] = version
            target.metadata = metadata
    if isinstance(version, int):
        remember_served_version(name, version)
    with _own_descriptions_lock:
        _own_descriptions[id(target)] = (served, own)
        _own_descriptions.move_to_end(id(target))
        while len(_own_descriptions) > _MAX_REMEMBERED_TOOLS:
            _own_descriptions.popitem(last=False)


def sticky_headers(session: Optional[str], agent: Optional[str]) -> Dict[str, str]:
    """The session id if there is one, else the agent name: a split canary's side is picked by its hash."""
    if session:
        return {"X-Toolcoach-Session": session}
    if agent:
        return {"X-Toolcoach-Agent": agent}
    return {}


def _read_tools(base: str, key: str, deadline: float, sticky: Optional[Dict[str, str]] = None) -> Dict[str, Dict[str, Any]]:
    return _read_tools_since(base, key, deadline, sticky, None)[2]


def _read_tools_since(
    base: str, key: str, deadline: float, sticky: Optional[Dict[str, str]], etag: Optional[str]
) -> Tuple[int, Optional[str], Dict[str, Dict[str, Any]]]:
    """``GET /v1/tools?format=raw``, every page: (status, ETag, tools by name), no tools on a 304.

    The first page is conditional when ``etag`` is given (its ETag is the whole list's, so a 304 says no page changed);
    the others follow ``nextCursor`` until it is null. A server from before pages answers one page without a cursor,
    and the first request carries no new parameter, so it answers as before."""
    headers = dict(sticky or {})
    if etag:
        headers["If-None-Match"] = etag
    status, answer_etag, body = _request_with_status("GET", base, key, TOOL_LIST_PATH, deadline, None, headers)
    if status == 304:
        return status, answer_etag or etag, {}
    live: Dict[str, Dict[str, Any]] = {}
    while True:
        tools = body.get("tools") if isinstance(body, dict) else None
        if not isinstance(tools, list):
            raise ValueError("the answer holds no tools list")
        for tool in tools:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str) and isinstance(tool.get("description"), str):
                live[tool["name"]] = tool
        cursor = body.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return status, answer_etag, live
        path = TOOL_LIST_PATH + "&cursor=" + urllib.parse.quote(cursor, safe="")
        body = _request("GET", base, key, path, deadline, None, sticky)


def _request(
    method: str, base: str, key: str, path: str, deadline: float, body: Any = None, sticky: Optional[Dict[str, str]] = None
) -> Any:
    return _request_with_status(method, base, key, path, deadline, body, sticky)[2]


def _request_with_status(
    method: str, base: str, key: str, path: str, deadline: float, body: Any, extra_headers: Optional[Dict[str, str]]
) -> Tuple[int, Optional[str], Any]:
    """(status, ETag, parsed body); a 304 answers (304, ETag, None), any other status outside 2xx raises."""
    remaining_s = deadline - time.monotonic()
    if remaining_s <= 0:
        raise TimeoutError("timed out")
    headers = {"Authorization": "Bearer " + key, "Accept": "application/json", **(extra_headers or {})}
    data = None
    if body is not None:
        data = json.dumps(body, default=str).encode("utf-8")
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=remaining_s) as response:
            return response.status, response.headers.get("ETag"), json.loads(response.read().decode("utf-8") or "null")
    except urllib.error.HTTPError as error:
        if error.code == 304:
            return 304, error.headers.get("ETag"), None
        try:
            text = error.read().decode("utf-8", "replace")
        except Exception:
            text = ""
        raise RuntimeError("HTTP %d from %s %s: %s" % (error.code, method, path.split("?")[0], text[:300])) from None


def _describe(error: BaseException) -> str:
    if isinstance(error, TimeoutError) or "timed out" in str(error):
        return "timed out"
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    return str(error) or type(error).__name__


def _warn_once(key: str, message: str) -> None:
    """The first failure of a kind is a warning; repeats (an agent that loads its tools per request) go to debug."""
    if key in _warned:
        logger.debug(message)
        return
    _warned.add(key)
    logger.warning(message)
