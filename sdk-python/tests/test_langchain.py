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
from toolcoach import HAS_LANGCHAIN, Reporter, ToolcoachCallbackHandler, load_tools  # noqa: E402
from toolcoach.langchain import parse_input_str  # noqa: E402

BASE_URL = os.environ.get("TOOLCOACH_BASE_URL")
API_KEY = os.environ.get("TOOLCOACH_API_KEY")
NEEDS_BACKEND = "set TOOLCOACH_BASE_URL and TOOLCOACH_API_KEY to run against a real backend (npm test does)"

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
        self.assertEqual(events["call_unknown"]["error"]["message"], EXPECTED_UNKNOWN_TOOL)
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
        self.assertEqual(event["error"]["message"], "Tool input validation error")

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
        self.assertEqual((event["tool"], event["status"]), ("serach", "error"))

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


class LoadToolsTest(unittest.TestCase):
    def test_keeps_the_tools_own_descriptions_when_the_registry_is_unreachable(self):
        tools = make_tools()
        loaded = load_tools(tools, base_url="http://127.0.0.1:9", api_key="k", timeout_s=0.5)
        self.assertEqual([t.description for t in loaded], ["Add two integers.", "Divide a by b."])


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
