"""Live tool descriptions: the registry's description (with learned warnings) applied to LangChain tools at startup."""

from __future__ import annotations

import json
import logging
import os
import urllib.request
from typing import Any, Dict, Iterable, List, Optional

from .langchain import DESCRIPTION_VERSION_KEY
from .reporter import DEFAULT_BASE_URL

logger = logging.getLogger("toolcoach")


def fetch_descriptions(
    *, base_url: Optional[str] = None, api_key: Optional[str] = None, timeout_s: float = 2.0
) -> Optional[Dict[str, Dict[str, Any]]]:
    """Every active tool of the project by name (``{name, version, description, ...}``); None when the registry
    cannot be read, so callers keep what they have."""
    base = (base_url or os.environ.get("TOOLCOACH_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    key = api_key or os.environ.get("TOOLCOACH_API_KEY", "")
    request = urllib.request.Request(
        base + "/v1/tools?format=raw", headers={"Authorization": "Bearer " + key, "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = json.loads(response.read().decode("utf-8"))
        tools = body.get("tools") if isinstance(body, dict) else None
        if not isinstance(tools, list):
            raise ValueError("the answer holds no tools list")
        return {
            tool["name"]: tool
            for tool in tools
            if isinstance(tool, dict) and isinstance(tool.get("name"), str) and isinstance(tool.get("description"), str)
        }
    except Exception as error:  # unreachable, timed out, refused key, odd answer: the agent starts anyway
        logger.warning("toolcoach: live descriptions unavailable (%s); keeping the tools' own descriptions", error)
        return None


def load_tools(
    tools: Iterable[Any],
    *,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    timeout_s: float = 2.0,
) -> List[Any]:
    """Sets each tool's description to the live one from the registry, in place, and returns the tools as a list.

    Fallbacks: a tool the registry does not know, or any failure to read the registry (down, slow, key refused),
    keeps the tool's own description; this never raises. The applied version is put in the tool's ``metadata``
    (``toolcoach_description_version``), which LangChain passes to callbacks, so reported events say which
    description the model saw. Works with LangChain tools (``.name``/``.description``) and with OpenAI-style dicts
    (``{"type": "function", "function": {...}}``) or plain ``{"name", "description"}`` dicts.
    """
    tool_list = list(tools)
    live = fetch_descriptions(base_url=base_url, api_key=api_key, timeout_s=timeout_s)
    if not live:
        return tool_list
    for tool in tool_list:
        try:
            _apply(tool, live)
        except Exception as error:
            logger.warning("toolcoach: could not apply the live description to %r: %s", tool, error)
    return tool_list


def _apply(tool: Any, live: Dict[str, Dict[str, Any]]) -> None:
    if isinstance(tool, dict):
        target = tool["function"] if isinstance(tool.get("function"), dict) else tool
        found = live.get(target.get("name"))
        if found:
            target["description"] = found["description"]
        return
    found = live.get(getattr(tool, "name", None))
    if not found:
        return
    tool.description = found["description"]
    version = found.get("version")
    if isinstance(version, int):
        metadata = dict(getattr(tool, "metadata", None) or {})
        metadata[DESCRIPTION_VERSION_KEY] = version
        tool.metadata = metadata
