"""A calculator agent on the ``anthropic`` client: toolcoach reports its tool calls and serves live descriptions."""

import sys

from anthropic import Anthropic

from toolcoach import Reporter
from toolcoach.anthropic import wrap_anthropic

# TOOLCOACH_URL and TOOLCOACH_API_KEY; ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if any)
reporter = Reporter(agent="calculator")

TOOLS = [
    {
        "name": "divide",
        "description": "Divide the number a by the number b.",
        "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    }
]


def divide(a: float, b: float) -> float:
    return a / b  # ZeroDivisionError when b is 0


def converse(question: str, session: str) -> str:
    """One conversation: the model calls tools until it answers; a failed tool goes back with is_error."""
    client = wrap_anthropic(Anthropic(), reporter, session=session)
    messages = [{"role": "user", "content": question}]
    try:
        while True:
            message = client.messages.create(model="claude-sonnet-5", max_tokens=1024, messages=messages, tools=TOOLS)
            messages.append({"role": "assistant", "content": message.content})
            uses = [block for block in message.content if block.type == "tool_use"]
            if not uses:
                return "".join(block.text for block in message.content if block.type == "text")
            results = []
            for use in uses:
                try:
                    if use.name != "divide":
                        raise LookupError("there is no tool named %s" % use.name)
                    results.append({"type": "tool_result", "tool_use_id": use.id, "content": str(divide(**use.input))})
                except Exception as error:
                    results.append({"type": "tool_result", "tool_use_id": use.id, "content": "%s: %s" % (type(error).__name__, error), "is_error": True})
            messages.append({"role": "user", "content": results})
    finally:
        client.close()  # ends the refresh of this conversation's tools


if __name__ == "__main__":
    print(converse(" ".join(sys.argv[1:]) or "What is 10 divided by 4?", "example"))
    reporter.flush()
