"""Stand-ins for langchain_core / langgraph when they are not installed: they call a handler exactly as
langchain_core 1.6 ``BaseTool.run`` and langgraph-prebuilt 1.1 ``ToolNode`` do (argument order, keyword names, what
reaches which callback; see the reference notes in the repository's shared protocols), with real pydantic models
validating the arguments."""

from __future__ import annotations

import uuid
from typing import Any, Callable, Dict, List, Optional, Type

from pydantic import BaseModel, ValidationError

INVALID_TOOL_NAME_ERROR_TEMPLATE = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n {error}\n Please fix the error and try again."
)


class ToolMessage:
    type = "tool"

    def __init__(self, content: Any, tool_call_id: str, name: Optional[str] = None, status: str = "success") -> None:
        self.content = content
        self.tool_call_id = tool_call_id
        self.name = name
        self.status = status


class StructuredTool:
    """A tool whose arguments a pydantic model validates, run the way BaseTool.run runs it."""

    def __init__(self, name: str, description: str, args_schema: Type[BaseModel], func: Callable[..., Any]) -> None:
        self.name = name
        self.description = description
        self.args_schema = args_schema
        self.func = func
        self.metadata: Optional[Dict[str, Any]] = None

    def run(self, tool_input: Dict[str, Any], callbacks: List[Any], tool_call_id: Optional[str] = None) -> Any:
        run_id = uuid.uuid4()
        for handler in callbacks:
            handler.on_tool_start(
                {"name": self.name, "description": self.description},
                str(tool_input),
                run_id=run_id,
                parent_run_id=None,
                tags=[],
                metadata=dict(self.metadata or {}),
                inputs=tool_input,
                color=None,
                name=self.name,
                tool_call_id=tool_call_id,
            )
        try:
            # Validation happens inside the run, after on_tool_start, as in langchain_core's _to_args_and_kwargs.
            args = self.args_schema.model_validate(tool_input)
            output = self.func(**args.model_dump())
        except Exception as error:
            for handler in callbacks:
                handler.on_tool_error(error, run_id=run_id, parent_run_id=None, tags=[], tool_call_id=tool_call_id)
            raise
        if tool_call_id is not None:
            output = ToolMessage(str(output), tool_call_id=tool_call_id, name=self.name)
        for handler in callbacks:
            handler.on_tool_end(output, run_id=run_id, parent_run_id=None, tags=[], color=None, name=self.name)
        return output


class ToolNode:
    """LangGraph's prebuilt ToolNode with its default error handling: invalid tool names and argument validation
    errors become error ToolMessages; the node's output reaches on_chain_end."""

    def __init__(self, tools: List[StructuredTool]) -> None:
        self.tools = {tool.name: tool for tool in tools}

    def invoke(self, tool_calls: List[Dict[str, Any]], callbacks: List[Any]) -> Dict[str, List[ToolMessage]]:
        run_id = uuid.uuid4()
        for handler in callbacks:
            handler.on_chain_start({"name": "tools"}, {"messages": []}, run_id=run_id)
        messages = [self._run_one(call, callbacks) for call in tool_calls]
        outputs = {"messages": messages}
        for handler in callbacks:
            handler.on_chain_end(outputs, run_id=run_id, parent_run_id=None)
        return outputs

    def _run_one(self, call: Dict[str, Any], callbacks: List[Any]) -> ToolMessage:
        tool = self.tools.get(call["name"])
        if tool is None:
            content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
                requested_tool=call["name"], available_tools=", ".join(self.tools)
            )
            return ToolMessage(content, tool_call_id=call["id"], name=call["name"], status="error")
        try:
            return tool.run(call["args"], callbacks, tool_call_id=call["id"])
        except ValidationError as error:
            lines = "\n".join(
                "%s: %s" % (".".join(str(part) for part in e["loc"]), e["msg"]) for e in error.errors()
            )
            content = TOOL_INVOCATION_ERROR_TEMPLATE.format(tool_name=call["name"], tool_kwargs=call["args"], error=lines)
            return ToolMessage(content, tool_call_id=call["id"], name=call["name"], status="error")
