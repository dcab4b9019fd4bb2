"""wrap_openai and wrap_anthropic with the real ``openai`` and ``anthropic`` packages (run in the test venv by
test/e2e/provider-clients.e2e-spec.ts; skipped where they are not installed) against a local stand-in that answers in
the providers' documented shapes, and toolcoach's API faked: what each wrapped client reports and what it sends."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from fake_api import FakeApi  # noqa: E402
from provider_stand_in import (  # noqa: E402
    ProviderStandIn,
    anthropic_events,
    anthropic_message,
    chat_completion,
    chat_completion_chunks,
    responses_response,
)
from toolcoach import Reporter, live  # noqa: E402
from toolcoach.refresh import refresher, stop_refresh  # noqa: E402

try:
    import anthropic
    import openai

    HAS_CLIENTS = True
except ImportError:
    HAS_CLIENTS = False

from toolcoach.anthropic import wrap_anthropic  # noqa: E402
from toolcoach.openai import wrap_openai  # noqa: E402

SCHEMA = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"], "additionalProperties": False}
WARNING = "\nWARNING: b must not be 0."
# one of each: a success, a thrown tool error, an unknown tool, a schema-invalid call
CALLS = [
    ("call_ok", "divide", '{"a": 10, "b": 4}'),
    ("call_zero", "divide", '{"a": 1, "b": 0}'),
    ("call_unknown", "square_root", '{"x": 9}'),
    ("call_invalid", "divide", '{"a": "ten", "b": 2}'),
]


def result_of(name, arguments):
    """(text, is_error) of running a scripted call: divide by zero fails, an unknown name is refused."""
    if name != "divide":
        return "Error: there is no tool named %s" % name, True
    args = json.loads(arguments)
    try:
        return str(args["a"] / args["b"]), False
    except Exception as error:  # ZeroDivisionError; TypeError for the schema-invalid call, run all the same
        return "Error: %s: %s" % (type(error).__name__, error), True


@unittest.skipUnless(HAS_CLIENTS, "the openai and anthropic packages are not installed (the test venv has them)")
class ProviderWrapperTest(unittest.TestCase):
    def setUp(self):
        self.api = FakeApi()
        self.api.respond("POST", "/v1/tools:bulk", lambda request: (200, {}, {"tools": [{"name": t["name"], "version": 3, "status": "created"} for t in request["body"]["tools"]]}))
        self.api.respond("GET", "/v1/tools?format=raw", self.serve)
        self.provider = ProviderStandIn()
        self.reporter = Reporter(api_key="k", base_url=self.api.base_url, flush_interval_s=0.01)
        live._warned.clear()

    def tearDown(self):
        self.reporter.close(1)
        stop_refresh()
        self.provider.close()
        self.api.close()

    def serve(self, request):
        registered = [tool for r in self.api.requests if r["path"] == "/v1/tools:bulk" for tool in r["body"]["tools"]]
        tools = [{"name": t["name"], "version": 3, "description": t["description"] + WARNING, "parameters": t["parameters"]} for t in registered]
        return 200, {}, {"format": "raw", "tools": tools, "nextCursor": None}

    def reported(self):
        self.assertTrue(self.reporter.flush(5))
        return {event.get("toolCallId"): event for event in self.api.events()}

    def assert_one_of_each_outcome(self, framework, model, zero_message="Error: ZeroDivisionError: division by zero"):
        events = self.reported()
        self.assertEqual(len(self.api.events()), 4)
        ok = events["call_ok"]
        self.assertEqual(
            {k: ok.get(k) for k in ("tool", "status", "arguments", "result", "framework", "model", "sessionId", "descriptionVersion")},
            {"tool": "divide", "status": "success", "arguments": {"a": 10, "b": 4}, "result": "2.5", "framework": framework, "model": model, "sessionId": "conversation-1", "descriptionVersion": 3},
        )
        self.assertIsInstance(ok["durationMs"], float)
        self.assertEqual((events["call_zero"]["status"], events["call_zero"]["error"]), ("error", {"type": "ToolError", "message": zero_message}))
        self.assertEqual(
            (events["call_unknown"]["tool"], events["call_unknown"]["arguments"], events["call_unknown"]["error"]),
            ("square_root", {"x": 9}, {"type": "UnknownTool", "message": "Tool \"square_root\" was not found among the request's tools (divide)"}),
        )
        invalid = events["call_invalid"]
        self.assertEqual((invalid["arguments"], invalid["error"]["type"]), ({"a": "ten", "b": 2}, "InvalidToolArguments"))
        self.assertTrue(invalid["error"]["message"].startswith("Invalid arguments for tool divide: "))
        self.assertNotIn("durationMs", invalid)

    def openai_client(self, **options):
        return wrap_openai(openai.OpenAI(api_key="sk-test", base_url=self.provider.openai_base_url, max_retries=0), self.reporter, **options)

    def test_chat_completions_report_each_call_once_and_send_the_live_description(self):
        client = self.openai_client(session="conversation-1")
        tools = [{"type": "function", "function": {"name": "divide", "description": "Divide a by b.", "parameters": SCHEMA}}]
        self.provider.answer("/v1/chat/completions", chat_completion("gpt-4.1-mini-2025-04-14", CALLS), chat_completion("gpt-4.1-mini-2025-04-14", [], "Done."))
        messages = [{"role": "user", "content": "Divide some numbers."}]
        message = client.chat.completions.create(model="gpt-4.1-mini", messages=messages, tools=tools).choices[0].message
        messages.append(message)
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result_of(call.function.name, call.function.arguments)[0]})
        client.chat.completions.create(model="gpt-4.1-mini", messages=messages, tools=tools)

        self.assert_one_of_each_outcome("openai-python", "gpt-4.1-mini-2025-04-14")
        first, second = self.provider.bodies_of("/v1/chat/completions")
        self.assertEqual(first["tools"][0]["function"]["description"], "Divide a by b." + WARNING)
        self.assertEqual(second["tools"][0]["function"], {"name": "divide", "description": "Divide a by b." + WARNING, "parameters": SCHEMA})
        self.assertEqual(tools[0]["function"]["description"], "Divide a by b.")
        bulk = [r["body"]["tools"] for r in self.api.requests if r["path"] == "/v1/tools:bulk"]
        self.assertEqual(bulk, [[{"name": "divide", "description": "Divide a by b.", "parameters": SCHEMA}]])

    def test_the_tools_of_a_request_are_registered_together_and_again_only_when_they_change(self):
        client = self.openai_client()

        def tool(name, description):
            return {"type": "function", "function": {"name": name, "description": description, "parameters": SCHEMA}}

        self.provider.answer("/v1/chat/completions", *[chat_completion("gpt-4.1", [], "Hi.") for _ in range(3)])
        for divide in ("Divide.", "Divide.", "Divide a by b; b is not 0."):
            client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "Hi"}], tools=[tool("add", "Add."), tool("divide", divide)])
        registrations = [[t["description"] for t in r["body"]["tools"]] for r in self.api.requests if r["path"] == "/v1/tools:bulk"]
        self.assertEqual(registrations, [["Add.", "Divide."], ["Divide a by b; b is not 0."]])
        last = self.provider.bodies_of("/v1/chat/completions")[-1]
        self.assertEqual([t["function"]["description"] for t in last["tools"]], ["Add." + WARNING, "Divide a by b; b is not 0." + WARNING])

    def test_close_stops_refreshing_the_tools_of_the_conversation(self):
        client = wrap_openai(openai.OpenAI(api_key="sk-test", base_url=self.provider.openai_base_url, max_retries=0), self.reporter, session="c-9", refresh_interval_s=60)
        tools = [{"type": "function", "function": {"name": "divide", "description": "Divide a by b.", "parameters": SCHEMA}}]
        self.provider.answer("/v1/chat/completions", chat_completion("gpt-4.1", [], "Hi."))
        before = refresher.side_count()
        client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "Hi"}], tools=tools)
        self.assertEqual(refresher.side_count(), before + 1)
        client.close()
        self.assertEqual(refresher.side_count(), before)

    def test_a_streamed_chat_completion_is_read_as_the_caller_reads_it(self):
        client = self.openai_client(session="conversation-1")
        tools = [{"type": "function", "function": {"name": "divide", "description": "Divide a by b.", "parameters": SCHEMA}}]
        self.provider.answer("/v1/chat/completions", chat_completion_chunks("gpt-4.1-mini-2025-04-14", CALLS), chat_completion("gpt-4.1-mini-2025-04-14", [], "Done."))
        messages = [{"role": "user", "content": "Divide some numbers."}]
        calls = {}
        with client.chat.completions.create(model="gpt-4.1-mini", messages=messages, tools=tools, stream=True) as stream:
            for chunk in stream:
                for piece in chunk.choices[0].delta.tool_calls or []:
                    call = calls.setdefault(piece.index, {"id": "", "name": "", "arguments": ""})
                    call["id"] = piece.id or call["id"]
                    call["name"] += piece.function.name or ""
                    call["arguments"] += piece.function.arguments or ""
        self.assertEqual(len(calls), 4)
        for call in calls.values():
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result_of(call["name"], call["arguments"])[0]})
        client.chat.completions.create(model="gpt-4.1-mini", messages=messages, tools=tools)
        self.assert_one_of_each_outcome("openai-python", "gpt-4.1-mini-2025-04-14")

    def test_arguments_that_are_not_json_are_reported_with_the_parser_words(self):
        client = self.openai_client()
        tools = [{"type": "function", "function": {"name": "divide", "description": "Divide a by b.", "parameters": SCHEMA}}]
        self.provider.answer("/v1/chat/completions", chat_completion("gpt-4.1", [("call_malformed", "divide", '{"a": 1, "b": ')]))
        client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "Divide."}], tools=tools)
        event = self.reported()["call_malformed"]
        self.assertEqual((event["arguments"], event["error"]["type"]), ('{"a": 1, "b": ', "JSONDecodeError"))
        self.assertRegex(event["error"]["message"], r"^The arguments of divide are not valid JSON: Expecting value: line 1 column \d+")

    def test_responses_api_reports_function_calls_with_their_function_call_output(self):
        client = self.openai_client(session="conversation-1")
        tools = [{"type": "function", "name": "divide", "description": "Divide a by b.", "parameters": SCHEMA, "strict": False}]
        self.provider.answer("/v1/responses", responses_response("gpt-4.1-mini-2025-04-14", CALLS), responses_response("gpt-4.1-mini-2025-04-14", []))
        response = client.responses.create(model="gpt-4.1-mini", input="Divide some numbers.", tools=tools)
        outputs = [
            {"type": "function_call_output", "call_id": item.call_id, "output": result_of(item.name, item.arguments)[0]}
            for item in response.output
            if item.type == "function_call"
        ]
        client.responses.create(model="gpt-4.1-mini", previous_response_id=response.id, input=outputs, tools=tools)
        self.assert_one_of_each_outcome("openai-python", "gpt-4.1-mini-2025-04-14")
        self.assertEqual(self.provider.bodies_of("/v1/responses")[1]["tools"][0]["description"], "Divide a by b." + WARNING)

    def converse_with_anthropic(self, stream):
        client = wrap_anthropic(anthropic.Anthropic(api_key="sk-ant-test", base_url=self.provider.anthropic_base_url, max_retries=0), self.reporter, session="conversation-1")
        tools = [{"name": "divide", "description": "Divide a by b.", "input_schema": SCHEMA}]
        first = anthropic_events("claude-sonnet-5-5", CALLS) if stream else anthropic_message("claude-sonnet-5-5", CALLS)
        self.provider.answer("/v1/messages", first, anthropic_message("claude-sonnet-5-5", [], "Done."))
        messages = [{"role": "user", "content": "Divide some numbers."}]
        request = {"model": "claude-sonnet-5", "max_tokens": 1024, "messages": messages, "tools": tools}
        if stream:
            uses = {}
            for event in client.messages.create(stream=True, **request):
                if event.type == "content_block_start" and event.content_block.type == "tool_use":
                    uses[event.index] = {"type": "tool_use", "id": event.content_block.id, "name": event.content_block.name, "json": ""}
                if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    uses[event.index]["json"] += event.delta.partial_json
            blocks = [{"type": "tool_use", "id": u["id"], "name": u["name"], "input": json.loads(u["json"])} for u in uses.values()]
        else:
            blocks = [block.model_dump() for block in client.messages.create(**request).content if block.type == "tool_use"]
        self.assertEqual(len(blocks), 4)
        messages.append({"role": "assistant", "content": blocks})
        results = []
        for block in blocks:
            text, is_error = result_of(block["name"], json.dumps(block["input"]))
            # the text alone would not say it failed: is_error does
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": text[len("Error: ") :] if is_error else text, "is_error": is_error})
        messages.append({"role": "user", "content": results})
        client.messages.create(**request)
        self.assert_one_of_each_outcome("anthropic-python", "claude-sonnet-5-5", "ZeroDivisionError: division by zero")
        self.assertEqual(self.provider.bodies_of("/v1/messages")[1]["tools"], [{"name": "divide", "description": "Divide a by b." + WARNING, "input_schema": SCHEMA}])

    def test_anthropic_messages_report_each_tool_use_once_with_its_tool_result_and_is_error(self):
        self.converse_with_anthropic(stream=False)

    def test_a_streamed_anthropic_message_is_read_as_the_caller_reads_it(self):
        self.converse_with_anthropic(stream=True)


if __name__ == "__main__":
    unittest.main()
