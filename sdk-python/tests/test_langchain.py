import json
import os
import sys
import time
import unittest
import urllib.parse
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from pydantic import BaseModel  # noqa: E402

from fake_api import FakeApi  # noqa: E402
from langchain_standins import StructuredTool, ToolNode  # noqa: E402
from toolcoach import HAS_LANGCHAIN, Reporter, ToolcoachCallbackHandler, live, load_tools  # noqa: E402
from toolcoach.langchain import HandledErrorRecorder, parse_input_str, record_handled_errors  # noqa: E402
from toolcoach.reporter import configured_base_url  # noqa: E402

BASE_URL = os.environ.get("TOOLCOACH_URL") or os.environ.get("TOOLCOACH_BASE_URL")
API_KEY = os.environ.get("TOOLCOACH_API_KEY")
NEEDS_BACKEND = "set TOOLCOACH_URL and TOOLCOACH_API_KEY to run against a real backend (npm test does)"

# What LangGraph's ToolNode passes on to the model (langgraph-prebuilt 1.1.0, observed at runtime).
EXPECTED_TYPE_ERROR = (
    "Error invoking tool 'add' with kwargs {'a': 'x', 'b': 2} with error:\n"
    " a: Input should be a valid integer, unable to parse string as an integer\n"
    " Please fix the error and try again."
)
EXPECTED_MISSING_ERROR = (
    "Error invoking tool 'add' with kwargs {'a': 1} with error:\n b: Field required\n Please fix the error and try again."
)
EXPECTED_UNKNOWN_TOOL = "Error: nope is not a valid tool, try one of [add, divide]."


class AddArgs(BaseModel):
    a: int
    b: int


class DivideArgs(BaseModel):
    a: float
    b: float


def make_tools():
    return [
        StructuredTool("add", "Add two integers.", AddArgs, lambda a, b: a + b),
        StructuredTool("divide", "Divide a by b.", DivideArgs, lambda a, b: a / b),
    ]


def run_agent_turn(handler):
    """One model turn with five tool calls, through LangGraph's ToolNode (stand-in) and the tools' own callbacks."""
    node = ToolNode(make_tools())
    return node.invoke(
        [
            {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_ok"},
            {"name": "add", "args": {"a": "x", "b": 2}, "id": "call_type"},
            {"name": "add", "args": {"a": 1}, "id": "call_missing"},
            {"name": "nope", "args": {"q": 1}, "id": "call_unknown"},
        ],
        [handler],
    )


class HandlerTest(unittest.TestCase):
    """The handler against a local stand-in API: what it reports for each way a LangChain tool call ends."""

    def setUp(self):
        self.api = FakeApi()
        self.reporter = Reporter(api_key="k", base_url=self.api.base_url, flush_interval_s=0.01)
        self.handler = ToolcoachCallbackHandler(self.reporter, agent="unit-agent")

    def tearDown(self):
        self.reporter.close(1)
        self.api.close()

    def reported(self):
        self.assertTrue(self.reporter.flush(5))
        return {event["toolCallId"]: event for event in self.api.events()}

    def test_reports_each_tool_call_of_a_tool_node_turn_once(self):
        outputs = run_agent_turn(self.handler)
        events = self.reported()
        self.assertEqual(sorted(events), ["call_missing", "call_ok", "call_type", "call_unknown"])
        ok = events["call_ok"]
        self.assertEqual((ok["tool"], ok["status"], ok["arguments"], ok["result"]), ("add", "success", {"a": 1, "b": 2}, "3"))
        self.assertEqual(ok["framework"], "langchain-python")
        self.assertEqual(ok["agent"], "unit-agent")
        self.assertGreaterEqual(ok["durationMs"], 0)
        self.assertEqual(events["call_type"]["error"]["message"], EXPECTED_TYPE_ERROR)
        self.assertEqual(events["call_missing"]["error"]["message"], EXPECTED_MISSING_ERROR)
        self.assertEqual(events["call_unknown"]["tool"], "nope")
        self.assertEqual(events["call_unknown"]["error"], {"type": "ToolNotFoundError", "message": EXPECTED_UNKNOWN_TOOL})
        self.assertNotIn("durationMs", events["call_unknown"])  # it never ran
        self.assertEqual(events["call_type"]["error"]["type"], "ToolInvocationError")
        # The handler reports exactly what the model was told.
        told = {m.tool_call_id: m.content for m in outputs["messages"] if m.status == "error"}
        self.assertEqual(told["call_type"], events["call_type"]["error"]["message"])
        self.assertEqual(told["call_unknown"], events["call_unknown"]["error"]["message"])

    def test_reports_an_exception_of_the_tool_body_with_its_type_and_stack(self):
        divide = make_tools()[1]
        with self.assertRaises(ZeroDivisionError):
            divide.run({"a": 1, "b": 0}, [self.handler], tool_call_id="call_div")
        event = self.reported()["call_div"]
        self.assertEqual(event["error"]["type"], "ZeroDivisionError")
        self.assertEqual(event["error"]["message"], "float division by zero")
        self.assertIn("Traceback", event["error"]["stack"])

    def test_reports_an_error_tool_message_from_handle_tool_error_as_an_error(self):
        message = type("ToolMessage", (), {"type": "tool", "content": "Tool input validation error", "status": "error", "tool_call_id": "c1"})()
        run_id = uuid.uuid4()
        self.handler.on_tool_start({"name": "add"}, "{'a': 'x'}", run_id=run_id, tool_call_id="c1")
        self.handler.on_tool_end(message, run_id=run_id)
        event = self.reported()["c1"]
        self.assertEqual((event["status"], event["arguments"]), ("error", {"a": "x"}))
        self.assertEqual(event["error"], {"type": "ToolMessageError", "message": "Tool input validation error"})

    def test_reports_agent_executors_invalid_tool_under_the_requested_name(self):
        run_id = uuid.uuid4()
        self.handler.on_tool_start(
            {"name": "invalid_tool"},
            "{'requested_tool_name': 'serach', 'available_tool_names': ['search']}",
            run_id=run_id,
            inputs={"requested_tool_name": "serach", "available_tool_names": ["search"]},
            tool_call_id="c2",
        )
        self.handler.on_tool_end("serach is not a valid tool, try one of [search].", run_id=run_id)
        event = self.reported()["c2"]
        self.assertEqual((event["tool"], event["status"], event["error"]["type"]), ("serach", "error", "ToolNotFoundError"))

    def test_reports_a_handled_tool_error_answered_as_plain_text_as_the_error_it_was(self):
        # LangChain's BaseTool.run with handle_tool_error=True and no tool call: the handler's answer reaches on_tool_end
        # as a bare string (checked on real langchain_core in test_langchain_core.py); a recorder notes the exception.
        tool = type("Tool", (), {"name": "primes", "handle_tool_error": True, "handle_validation_error": False})()
        self.assertTrue(record_handled_errors(tool))
        self.assertFalse(record_handled_errors(tool))  # wrapped once
        self.assertIsInstance(tool.handle_tool_error, HandledErrorRecorder)
        self.assertFalse(tool.handle_validation_error)  # handles nothing: left alone
        run_id = uuid.uuid4()
        self.handler.on_tool_start({"name": "primes"}, "{'n': 1}", run_id=run_id, inputs={"n": 1}, tool_call_id="c3")
        ToolException = type("ToolException", (Exception,), {})
        answer = tool.handle_tool_error(ToolException("number must be >= 2"))
        self.assertEqual(answer, "number must be >= 2")  # what LangChain itself would answer
        self.handler.on_tool_end(answer, run_id=run_id)
        run_id = uuid.uuid4()
        self.handler.on_tool_start({"name": "primes"}, "{'n': 5}", run_id=run_id, inputs={"n": 5}, tool_call_id="c4")
        self.handler.on_tool_end("number must be >= 2", run_id=run_id)  # the same text from a run that handled nothing
        events = self.reported()
        self.assertEqual(events["c3"]["status"], "error")
        self.assertEqual((events["c3"]["error"]["type"], events["c3"]["error"]["message"]), ("ToolException", "number must be >= 2"))
        self.assertEqual(events["c4"]["status"], "success")

    def test_a_recorder_answers_as_langchain_does_for_each_setting(self):
        error = ValueError("bad n")
        self.assertEqual(HandledErrorRecorder("t", True, None)(error), "bad n")
        self.assertEqual(HandledErrorRecorder("t", True, None)(ValueError()), "Tool execution error")
        self.assertEqual(HandledErrorRecorder("t", True, "Tool input validation error")(error), "Tool input validation error")
        self.assertEqual(HandledErrorRecorder("t", "fixed", None)(error), "fixed")
        self.assertEqual(HandledErrorRecorder("t", lambda e: "custom: %s" % e, None)(error), "custom: bad n")

    def test_reports_invalid_tool_calls_of_a_model_answer_with_the_model_that_made_them(self):
        message = type("AIMessage", (), {})()
        message.tool_calls = [{"name": "add", "args": {"a": 1, "b": 2}, "id": "ok", "type": "tool_call"}]
        message.invalid_tool_calls = [
            {"name": "add", "args": '{"a": 1, "b": ', "id": "bad_json", "error": None, "type": "invalid_tool_call"},
            {"name": "add", "args": "[1, 2]", "id": "not_object", "error": None, "type": "invalid_tool_call"},
            {"name": None, "args": "{}", "id": "no_name", "error": None, "type": "invalid_tool_call"},
            {"name": "add", "args": "x", "id": "given", "error": "Function add arguments are not valid JSON.", "type": "invalid_tool_call"},
        ]
        response = type("LLMResult", (), {"generations": [[type("ChatGeneration", (), {"message": message})()]]})()
        model_run = uuid.uuid4()
        self.handler.on_chat_model_start({}, [[]], run_id=model_run, metadata={"ls_model_name": "gpt-test", "user": "u1"})
        self.handler.on_llm_end(response, run_id=model_run)
        events = self.reported()
        self.assertEqual(sorted(events), ["bad_json", "given", "no_name", "not_object"])  # the valid call is no event
        bad = events["bad_json"]
        self.assertEqual((bad["tool"], bad["status"], bad["arguments"], bad["model"]), ("add", "error", '{"a": 1, "b": ', "gpt-test"))
        self.assertEqual(bad["error"]["type"], "InvalidToolCall")
        self.assertRegex(bad["error"]["message"], r"^the model's arguments for add are not valid JSON: Expecting value: line 1 column \d+")
        self.assertEqual((bad["runId"], bad["metadata"]), (str(model_run), {"user": "u1"}))
        self.assertNotIn("durationMs", bad)
        self.assertEqual(events["not_object"]["error"]["message"], "the model's arguments for add are not a JSON object (list)")
        self.assertEqual((events["no_name"]["tool"], events["no_name"]["error"]["message"]), ("unknown", "the model's tool call names no tool"))
        self.assertEqual(events["given"]["error"]["message"], "Function add arguments are not valid JSON.")

    def test_puts_every_event_of_a_run_in_its_trace_and_session(self):
        message = type("AIMessage", (), {"tool_calls": [], "invalid_tool_calls": [{"name": "add", "args": "{", "id": "bad"}]})()
        response = type("LLMResult", (), {"generations": [[type("ChatGeneration", (), {"message": message})()]]})()
        for thread, suffix in (("thread-7", "a"), (None, "b")):
            root, model_run, tool_run = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
            metadata = {"thread_id": thread} if thread else {}
            self.handler.on_chain_start({"name": "agent"}, {}, run_id=root, metadata=metadata)
            self.handler.on_chat_model_start({}, [[]], run_id=model_run, parent_run_id=root, metadata=metadata)
            self.handler.on_llm_end(response, run_id=model_run, parent_run_id=root)
            self.handler.on_tool_start({"name": "add"}, "{}", run_id=tool_run, parent_run_id=root, metadata=metadata, tool_call_id="ok" + suffix)
            self.handler.on_tool_end("3", run_id=tool_run, parent_run_id=root)
            self.handler.on_chain_end({}, run_id=root)
            events = [e for e in self.reported().values() if e["toolCallId"] == "ok" + suffix] + [
                e for e in self.api.events() if e.get("runId") == str(model_run)
            ]
            self.assertEqual([e["traceId"] for e in events], [str(root), str(root)])
            self.assertEqual([e["sessionId"] for e in events], [thread or str(root)] * 2)  # else the trace is the session

    def test_names_the_model_that_asked_for_a_tool_call_and_keeps_the_runs_metadata(self):
        message = type("AIMessage", (), {"invalid_tool_calls": []})()
        message.tool_calls = [{"name": "nope", "args": {"q": 1}, "id": "call_unknown"}, {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_ok"}]
        response = type("LLMResult", (), {"generations": [[type("ChatGeneration", (), {"message": message})()]]})()
        model_run = uuid.uuid4()
        self.handler.on_chat_model_start({}, [[]], run_id=model_run, invocation_params={"model": "gpt-params"})
        self.handler.on_llm_end(response, run_id=model_run)
        ToolNode(make_tools()).invoke(message.tool_calls, [self.handler])
        events = self.reported()
        self.assertEqual(events["call_unknown"]["arguments"], {"q": 1})  # from the model's call: no tool run had them
        self.assertEqual((events["call_unknown"]["model"], events["call_ok"]["model"]), ("gpt-params", "gpt-params"))
        self.assertIn("runId", events["call_ok"])

    def test_never_raises_on_callbacks_it_does_not_expect(self):
        self.handler.on_tool_end("x", run_id=uuid.uuid4())
        self.handler.on_tool_error(ValueError("x"), run_id=uuid.uuid4())
        self.handler.on_chain_end(object(), run_id=uuid.uuid4())
        self.handler.on_tool_start(None, None, run_id=uuid.uuid4())

    def test_reads_input_str_as_json_or_python_repr(self):
        self.assertEqual(parse_input_str('{"a": 1}'), {"a": 1})
        self.assertEqual(parse_input_str("{'a': 'x', 'b': None}"), {"a": "x", "b": None})
        self.assertEqual(parse_input_str("plain words"), "plain words")

    def test_works_duck_typed_when_langchain_core_is_absent(self):
        if HAS_LANGCHAIN:
            self.skipTest("langchain_core is installed: the handler subclasses BaseCallbackHandler")
        self.assertIs(ToolcoachCallbackHandler.__mro__[1], object)
        for attribute in ("ignore_agent", "raise_error", "run_inline", "ignore_chain"):
            self.assertTrue(hasattr(self.handler, attribute), attribute)

    @unittest.skipUnless(HAS_LANGCHAIN, "langchain_core is not installed; the duck-typed path is tested instead")
    def test_subclasses_base_callback_handler_with_a_real_langchain_tool(self):  # pragma: no cover - needs langchain
        from langchain_core.callbacks import BaseCallbackHandler
        from langchain_core.tools import StructuredTool as RealTool

        self.assertIsInstance(self.handler, BaseCallbackHandler)
        tool = RealTool.from_function(lambda a, b: a + b, name="add", description="Add.", args_schema=AddArgs)
        with self.assertRaises(Exception):
            tool.invoke({"a": "x", "b": 2}, config={"callbacks": [self.handler]})
        events = self.api.events() if self.reporter.flush(5) else []
        self.assertEqual(events[0]["error"]["message"], EXPECTED_TYPE_ERROR)


def served(name, version, description, base):
    return {"name": name, "version": version, "description": description, "baseDescription": base, "warnings": []}


class LoadToolsTest(unittest.TestCase):
    """load_tools against a local stand-in API: what it registers, what it applies, and what it falls back to."""

    def setUp(self):
        self.api = FakeApi()
        self.api.route("POST", "/v1/tools:bulk", 200, {"tools": []})
        live._warned.clear()  # each test sees the first warning of its kind

    def tearDown(self):
        self.api.close()

    def load(self, tools, **options):
        return load_tools(tools, base_url=self.api.base_url, api_key="k", **options)

    def test_registers_each_tool_with_its_json_schema_then_applies_the_served_descriptions(self):
        warned = "Divide a by b.\n\nCommon mistakes:\n- Never pass b = 0."
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": [served("divide", 3, warned, "Divide a by b.")]})
        tools = make_tools()
        loaded = self.load(tools)
        self.assertIs(loaded[0], tools[0])
        requests = self.api.wait_for_requests(2)
        self.assertEqual([(r["method"], r["path"]) for r in requests], [("POST", "/v1/tools:bulk"), ("GET", "/v1/tools?format=raw")])
        self.assertEqual(requests[0]["headers"]["Authorization"], "Bearer k")
        registered = requests[0]["body"]["tools"]
        self.assertEqual([t["name"] for t in registered], ["add", "divide"])
        self.assertEqual(registered[0]["description"], "Add two integers.")
        self.assertEqual(registered[0]["parameters"], AddArgs.model_json_schema())
        self.assertEqual(registered[0]["parameters"]["required"], ["a", "b"])
        self.assertEqual((tools[0].description, tools[0].metadata), ("Add two integers.", None))  # not served: kept
        self.assertEqual((tools[1].description, tools[1].metadata), (warned, {"toolcoach_description_version": 3}))

    def test_sends_the_sticky_id_of_guarded_rollout_the_session_else_the_agent(self):
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": []})
        self.load(make_tools(), session="s-42", agent="math-agent")
        self.load(make_tools(), agent="math-agent")
        self.load(make_tools())
        requests = self.api.wait_for_requests(6)
        sticky = [(r["headers"].get("X-Toolcoach-Session"), r["headers"].get("X-Toolcoach-Agent")) for r in requests]
        self.assertEqual(sticky, [("s-42", None)] * 2 + [(None, "math-agent")] * 2 + [(None, None)] * 2)

    def test_registers_the_tools_own_description_again_never_the_served_one(self):
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": [served("add", 2, "Add two integers. Warned.", "Add two integers.")]})
        tools = make_tools()
        self.load(tools)
        self.load(tools)
        bulk = [r for r in self.api.wait_for_requests(4) if r["path"] == "/v1/tools:bulk"]
        self.assertEqual([r["body"]["tools"][0]["description"] for r in bulk], ["Add two integers.", "Add two integers."])
        self.assertEqual(tools[0].description, "Add two integers. Warned.")
        tools[0].description = "Add two integers, now with a new text."  # changed by its owner: that text is registered
        self.load(tools)
        bulk = [r for r in self.api.wait_for_requests(6) if r["path"] == "/v1/tools:bulk"]
        self.assertEqual(bulk[-1]["body"]["tools"][0]["description"], "Add two integers, now with a new text.")

    def test_events_of_calls_that_never_ran_carry_the_version_load_tools_applied(self):
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": [served("subtract", 4, "Subtract. Warned.", "Subtract.")]})
        self.load([{"name": "subtract", "description": "Subtract."}])
        reporter = Reporter(api_key="k", base_url=self.api.base_url, flush_interval_s=0.01)
        handler = ToolcoachCallbackHandler(reporter)
        message = type("AIMessage", (), {"tool_calls": [], "invalid_tool_calls": [{"name": "subtract", "args": "{", "id": "c"}]})()
        handler.on_llm_end(type("LLMResult", (), {"generations": [[type("ChatGeneration", (), {"message": message})()]]})(), run_id=uuid.uuid4())
        self.assertTrue(reporter.close(5))
        [event] = self.api.events()
        self.assertEqual((event["tool"], event["descriptionVersion"]), ("subtract", 4))

    def test_registers_openai_style_and_plain_dict_tools_with_their_schemas(self):
        schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        openai = {"type": "function", "function": {"name": "weather", "description": "Weather now.", "parameters": schema}}
        plain = {"name": "time", "description": "Time now."}
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": [served("weather", 2, "Weather now. Warned.", "Weather now.")]})
        self.load([openai, plain])
        registered = self.api.wait_for_requests(1)[0]["body"]["tools"]
        self.assertEqual(registered[0], {"name": "weather", "description": "Weather now.", "parameters": schema})
        self.assertEqual(registered[1], {"name": "time", "description": "Time now.", "parameters": {"type": "object", "properties": {}}})
        self.assertEqual(openai["function"]["description"], "Weather now. Warned.")

    def test_keeps_the_tools_own_descriptions_when_registration_is_refused_and_says_why_once(self):
        self.api.route("POST", "/v1/tools:bulk", 400, {"error": {"code": "invalid_tool", "details": [{"path": "/tools/0/parameters"}]}})
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": [served("add", 2, "Served.", "Add two integers.")]})
        tools = make_tools()
        with self.assertLogs("toolcoach", "DEBUG") as logged:
            self.load(tools)
            self.load(tools)
        warnings = [record.getMessage() for record in logged.records if record.levelname == "WARNING"]
        self.assertEqual(len(warnings), 1, logged.output)
        self.assertIn("HTTP 400", warnings[0])
        self.assertIn("/tools/0/parameters", warnings[0])
        self.assertEqual([t.description for t in tools], ["Add two integers.", "Divide a by b."])
        self.assertEqual([r["method"] for r in self.api.wait_for_requests(2)], ["POST", "POST"])  # nothing read after a refusal

    def test_keeps_the_tools_own_descriptions_when_the_registry_is_unreachable(self):
        tools = make_tools()
        loaded = load_tools(tools, base_url="http://127.0.0.1:9", api_key="k", timeout_s=0.5)
        self.assertEqual([t.description for t in loaded], ["Add two integers.", "Divide a by b."])


class ConfigurationTest(unittest.TestCase):
    def test_reads_toolcoach_url_and_accepts_toolcoach_base_url_as_an_alias(self):
        saved = {name: os.environ.pop(name, None) for name in ("TOOLCOACH_URL", "TOOLCOACH_BASE_URL")}
        try:
            self.assertEqual(configured_base_url(), "http://localhost:3000")
            os.environ["TOOLCOACH_BASE_URL"] = "http://alias:1/"
            self.assertEqual(configured_base_url(), "http://alias:1")
            os.environ["TOOLCOACH_URL"] = "http://main:2"
            self.assertEqual(configured_base_url(), "http://main:2")
            self.assertEqual(Reporter(api_key="k").base_url, "http://main:2")
            self.assertEqual(configured_base_url("http://given:3"), "http://given:3")
        finally:
            for name, value in saved.items():
                os.environ.pop(name, None)
                if value is not None:
                    os.environ[name] = value


def api(method, path, body=None):
    request = urllib.request.Request(
        BASE_URL + path,
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Authorization": "Bearer " + API_KEY, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def stored_events(tool, count, timeout_s=20.0):
    """Polls the API until ``count`` events of ``tool`` are stored and categorized."""
    deadline = time.monotonic() + timeout_s
    events = []
    while time.monotonic() < deadline:
        events = api("GET", "/v1/events?tool=%s&limit=200" % urllib.parse.quote(tool))["items"]
        if len(events) >= count and all(e["status"] == "success" or e["category"] for e in events):
            return {e["toolCallId"]: e for e in events}
        time.sleep(0.1)
    raise AssertionError("expected %d categorized %s events, got %r" % (count, tool, events))


@unittest.skipUnless(BASE_URL and API_KEY, NEEDS_BACKEND)
class RealBackendTest(unittest.TestCase):
    """The SDK against the real toolcoach API and worker: events arrive, categorized."""

    def test_tool_node_failures_arrive_categorized(self):
        reporter = Reporter(flush_interval_s=0.05)
        handler = ToolcoachCallbackHandler(reporter, agent="python-sdk-e2e")
        run_agent_turn(handler)
        self.assertTrue(reporter.close(10))
        self.assertEqual(reporter.stats["rejected"], 0)
        add = stored_events("add", 3)
        self.assertEqual(add["call_ok"]["status"], "success")
        invalid = add["call_type"]
        self.assertEqual(invalid["error"]["message"], EXPECTED_TYPE_ERROR)
        self.assertEqual((invalid["category"], invalid["subtype"], invalid["argumentPath"]), ("argument_mismatch", "type_mismatch", "/a"))
        missing = add["call_missing"]
        self.assertEqual((missing["category"], missing["subtype"], missing["argumentPath"]), ("argument_mismatch", "missing_argument", "/b"))
        unknown = stored_events("nope", 1)["call_unknown"]
        self.assertEqual(unknown["category"], "unknown_tool")

    def test_load_tools_applies_the_live_description_and_reports_its_version(self):
        api("PUT", "/v1/tools/divide", {"description": "Divide a by b.", "parameters": DivideArgs.model_json_schema()})
        api("POST", "/v1/tools/divide/warnings", {"text": "Never pass b = 0."})
        tools = load_tools(make_tools())
        divide = tools[1]
        self.assertIn("Never pass b = 0.", divide.description)
        self.assertEqual(tools[0].description, "Add two integers.")  # not registered: kept
        reporter = Reporter(flush_interval_s=0.05)
        with self.assertRaises(ZeroDivisionError):
            divide.run({"a": 1, "b": 0}, [ToolcoachCallbackHandler(reporter)], tool_call_id="call_div")
        self.assertTrue(reporter.close(10))
        event = stored_events("divide", 1)["call_div"]
        self.assertGreaterEqual(event["descriptionVersion"], 2)
        self.assertEqual(event["error"]["type"], "ZeroDivisionError")


if __name__ == "__main__":
    unittest.main()
