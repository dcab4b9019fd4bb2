"""A calculator agent on the ``openai`` client, streamed: toolcoach reports its tool calls and serves live descriptions."""

import json
import sys

from openai import OpenAI

from toolcoach import Reporter
from toolcoach.openai import wrap_openai

# TOOLCOACH_URL and TOOLCOACH_API_KEY; OPENAI_API_KEY (and OPENAI_BASE_URL, if any)
reporter = Reporter(agent="calculator")

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "divide",
            "description": "Divide the number a by the number b.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
        },
    }
]


def divide(a: float, b: float) -> float:
    return a / b  # ZeroDivisionError when b is 0


def converse(question: str, session: str) -> str:
    """One conversation: the model calls tools until it answers; each tool's result (or error) goes back to it."""
    client = wrap_openai(OpenAI(), reporter, session=session)
    messages = [{"role": "user", "content": question}]
    try:
        while True:
            text, calls = "", {}
            for chunk in client.chat.completions.create(model="gpt-4.1-mini", messages=messages, tools=TOOLS, stream=True):
                if not chunk.choices:  # the usage chunk, with stream_options={"include_usage": True}
                    continue
                delta = chunk.choices[0].delta
                text += delta.content or ""
                for piece in delta.tool_calls or []:
                    call = calls.setdefault(piece.index, {"id": "", "name": "", "arguments": ""})
                    call["id"] = piece.id or call["id"]
                    call["name"] += piece.function.name or ""
                    call["arguments"] += piece.function.arguments or ""
            if not calls:
                return text
            messages.append(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}
                        for call in calls.values()
                    ],
                }
            )
            for call in calls.values():
                try:
                    if call["name"] != "divide":
                        raise LookupError("there is no tool named %s" % call["name"])
                    content = str(divide(**json.loads(call["arguments"])))
                except Exception as error:
                    content = "Error: %s: %s" % (type(error).__name__, error)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    finally:
        client.close()  # ends the refresh of this conversation's tools


if __name__ == "__main__":
    print(converse(" ".join(sys.argv[1:]) or "What is 10 divided by 4?", "example"))
    reporter.flush()
