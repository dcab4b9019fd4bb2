"""The SDK with REAL langchain_core (1.6.5) against the real toolcoach API and worker: real ``@tool`` tools, real
pydantic validation, real ``handle_tool_error``, real callback managers and messages.

``test/e2e/python-langchain-core.e2e-spec.ts`` runs this module in a venv built from the machine's local wheel
mirror, against a freshly booted app, and fails if any test here is skipped. What LangGraph's ``ToolNode`` adds cannot
be imported here (it needs ``langchain-protocol``, which the mirror lacks): ``tools_node`` below answers tool calls the
way ToolNode does, in ToolNode's words for an unknown tool, as a real ``RunnableLambda`` with real chain callbacks;
test_langchain.py covers ToolNode's behaviour through the stand-ins in langchain_standins.py.
"""

import json
import os
import sys
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone
from uuid import UUID

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from toolcoach import HAS_LANGCHAIN, GuardRefusal, Reporter, ToolcoachCallbackHandler, load_tools  # noqa: E402

BASE_URL = os.environ.get("TOOLCOACH_URL") or os.environ.get("TOOLCOACH_BASE_URL")
API_KEY = os.environ.get("TOOLCOACH_API_KEY")

if HAS_LANGCHAIN:  # pragma: no branch - the e2e spec runs this module only where langchain_core is installed
    from langchain_core.callbacks import CallbackManager
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, LLMResult
    from langchain_core.runnables import RunnableLambda
    from langchain_core.tools import ToolException, tool

    @tool
    def factorial(n: int) -> int:
        """Compute n! for a non-negative integer n."""
        if n > 20:
            raise OverflowError("Factorial calculation overflow for n = %d" % n)
        result = 1
        for i in range(2, n + 1):
            result *= i
        return result

    # Every number prime_factorization's own code received: the guard's test checks it never saw an invalid call.
    FACTORIZED = []

    @tool
    def prime_factorization(number: int) -> list:
        """Perform prime factorization of a single integer."""
        FACTORIZED.append(number)
        if number < 2:
            raise ToolException("number must be >= 2")
        factors, d = [], 2
        while number > 1:
            while number % d == 0:
                factors.append(d)
                number //= d
            d += 1
        return factors

    # The way LangChain users are told to report a tool's failure to the model without raising.
    prime_factorization.handle_tool_error = True
    TOOLS = [factorial, prime_factorization]

# LangGraph's ToolNode answer to a tool name the model made up (langgraph/prebuilt/tool_node.py).
INVALID_TOOL_NAME_ERROR_TEMPLATE = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
PLAIN_HANDLED_RUN = UUID("00000000-0000-4000-8000-00000000c0de")
MODEL = "scripted-model-1"


def tools_node(state, config):
    """Runs each tool call of the model's last message as LangGraph's ToolNode does: real tools with the run's
    callbacks, an error ToolMessage for a name no tool has or an exception the tool raised."""
    by_name = {t.name: t for t in TOOLS}
    answers = []
    for call in state["messages"][-1].tool_calls:
        chosen = by_name.get(call["name"])
        if chosen is None:
            content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(requested_tool=call["name"], available_tools=", ".join(by_name))
            answers.append(ToolMessage(content=content, tool_call_id=call["id"], name=call["name"], status="error"))
            continue
        try:
            answers.append(chosen.invoke(call, config))
        except Exception as error:
            answers.append(ToolMessage(content=repr(error), tool_call_id=call["id"], name=call["name"], status="error"))
    return {"messages": answers}


def model_turn(message, callbacks, metadata=None):
    """One turn of a chat model that answered ``message``, through LangChain's own callback manager: what every
    BaseChatModel does around its _generate (which cannot be imported here without langchain-protocol)."""
    manager = CallbackManager.configure(callbacks, None, inheritable_metadata={"ls_model_name": MODEL, **(metadata or {})})
    [run] = manager.on_chat_model_start({"name": "ScriptedChatModel"}, [[message]], invocation_params={"model": MODEL})
    run.on_llm_end(LLMResult(generations=[[ChatGeneration(message=message)]]))


def openai_tool_call(call_id, name, arguments):
    """A tool call as OpenAI sends it; AIMessage parses these into tool_calls, or invalid_tool_calls when the arguments
    are not valid JSON, as langchain-openai does with the API's answer."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def api(method, path, body=None):
    request = urllib.request.Request(
        BASE_URL + path,
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Authorization": "Bearer " + API_KEY, **({} if body is None else {"Content-Type": "application/json"})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise AssertionError("%s %s answered %d: %s" % (method, path, error.code, error.read()[:500])) from None


def stored_events(tool, count, timeout_s=30.0):
    """The stored events of ``tool`` once there are ``count`` of them and the worker categorized every error."""
    deadline = time.monotonic() + timeout_s
    events = []
    while time.monotonic() < deadline:
        events = api("GET", "/v1/events?tool=%s&limit=200" % urllib.parse.quote(tool))["items"]
        if len(events) >= count and all(e["status"] == "success" or e["category"] for e in events):
            return events
        time.sleep(0.1)
    raise AssertionError("expected %d categorized %s events, got %r" % (count, tool, events))


def run_nightly(day, timeout_s=60.0):
    run = api("POST", "/v1/jobs/nightly?date=%s" % day)
    deadline = time.monotonic() + timeout_s
    while run["status"] not in ("succeeded", "failed", "skipped"):
        if time.monotonic() > deadline:
            raise AssertionError("nightly run %s did not finish: %r" % (run["id"], run))
        time.sleep(0.1)
        run = api("GET", "/v1/jobs/%s" % run["id"])
    return run


@unittest.skipUnless(HAS_LANGCHAIN, "langchain_core is not installed (test/e2e/python-langchain-core.e2e-spec.ts installs it)")
@unittest.skipUnless(BASE_URL and API_KEY, "set TOOLCOACH_URL and TOOLCOACH_API_KEY to run against a real backend")
class RealLangchainCoreTest(unittest.TestCase):
    """In order: load_tools registers, every kind of failure arrives categorized, a nightly's warning is served as v2, as
    a canary that the next nightly promotes."""

    def reporter(self):
        reporter = Reporter(flush_interval_s=0.05)
        self.addCleanup(reporter.close, 1)
        return reporter

    def test_a_load_tools_registers_the_tools_with_their_json_schemas(self):
        loaded = load_tools(TOOLS)
        self.assertEqual(loaded, TOOLS)
        listed = {t["name"]: t for t in api("GET", "/v1/tools?format=raw")["tools"]}
        self.assertEqual(sorted(listed), ["factorial", "prime_factorization"])
        for real in TOOLS:
            registered = listed[real.name]
            self.assertEqual(registered["version"], 1)
            self.assertEqual(registered["baseDescription"], real.description)
            self.assertEqual(registered["parameters"], real.tool_call_schema.model_json_schema())
            self.assertEqual(real.metadata, {"toolcoach_description_version": 1})
        self.assertEqual(listed["factorial"]["parameters"]["properties"]["n"]["type"], "integer")

    def test_b_each_failure_arrives_categorized_with_its_error_type(self):
        load_tools(TOOLS)
        reporter = self.reporter()
        handler = ToolcoachCallbackHandler(reporter, agent="langchain-core-e2e")
        config = {"callbacks": [handler], "metadata": {"session": "b", "thread_id": "thread-b"}}
        # A model turn with one malformed call (JSON cut off) and three well-formed ones, one of them to a made-up name.
        message = AIMessage(
            content="",
            additional_kwargs={
                "tool_calls": [
                    openai_tool_call("lc_invalid", "factorial", '{"n": 5'),
                    openai_tool_call("lc_type", "factorial", '{"n": "five"}'),
                    openai_tool_call("lc_overflow", "factorial", '{"n": 25}'),
                    openai_tool_call("lc_unknown", "prime_factorise", '{"number": 12}'),
                    openai_tool_call("lc_handled", "prime_factorization", '{"number": 1}'),
                ]
            },
        )
        self.assertEqual([c["id"] for c in message.invalid_tool_calls], ["lc_invalid"])

        def agent(state, config):
            """One agent step as one trace: the model answers, then the tool node runs its calls."""
            model_turn(message, config["callbacks"])
            return RunnableLambda(tools_node, name="tools").invoke(state, config)

        answers = RunnableLambda(agent, name="agent").invoke({"messages": [message]}, config)["messages"]
        self.assertEqual([a.status for a in answers], ["error"] * 4)
        # Called with plain arguments (tool.invoke({...}), the classic AgentExecutor), a handled ToolException comes
        # back as the bare answer text, which LangChain's callbacks pass on as if it were a result.
        answer = prime_factorization.invoke({"number": 0}, {**config, "run_id": PLAIN_HANDLED_RUN})
        self.assertEqual(answer, "number must be >= 2")
        self.assertTrue(reporter.close(10))
        self.assertEqual(reporter.stats["rejected"], 0)

        factorial_events = {e.get("toolCallId"): e for e in stored_events("factorial", 3)}
        invalid = factorial_events["lc_invalid"]
        self.assertEqual((invalid["category"], invalid["subtype"]), ("argument_mismatch", "malformed_arguments"))
        self.assertEqual((invalid["error"]["type"], invalid["arguments"], invalid["model"]), ("InvalidToolCall", '{"n": 5', MODEL))
        self.assertEqual(invalid["descriptionVersion"], 1)  # the description load_tools gave the model
        self.assertIsNone(invalid["durationMs"])
        mismatch = factorial_events["lc_type"]
        self.assertEqual((mismatch["category"], mismatch["subtype"], mismatch["argumentPath"]), ("argument_mismatch", "type_mismatch", "/n"))
        self.assertEqual(mismatch["error"]["type"], "ToolInvocationError")
        overflow = factorial_events["lc_overflow"]
        self.assertEqual((overflow["category"], overflow["error"]["type"]), ("overflow", "OverflowError"))
        self.assertEqual((overflow["descriptionVersion"], overflow["model"], overflow["metadata"]["session"]), (1, MODEL, "b"))

        # One session (LangGraph's thread_id) and one trace (the agent run) for the whole step, the unknown name and the
        # calls of the tools it was meant for alike: what the nightly needs to relate a misspelled name to the version.
        self.assertEqual({(e["sessionId"], e["traceId"]) for e in factorial_events.values()}, {("thread-b", overflow["traceId"])})
        unknown = stored_events("prime_factorise", 1)[0]
        self.assertEqual((unknown["sessionId"], unknown["traceId"]), ("thread-b", overflow["traceId"]))
        self.assertEqual((unknown["category"], unknown["error"]["type"]), ("unknown_tool", "ToolNotFoundError"))
        self.assertEqual((unknown["toolCallId"], unknown["arguments"], unknown["model"]), ("lc_unknown", {"number": 12}, MODEL))

        handled = {e.get("runId") or e.get("toolCallId"): e for e in stored_events("prime_factorization", 2)}
        for key in ("lc_handled", str(PLAIN_HANDLED_RUN)):
            event = next(e for e in handled.values() if e.get("toolCallId") == key or e.get("runId") == key)
            self.assertEqual(event["status"], "error", key)
            self.assertEqual((event["error"]["type"], event["error"]["message"]), ("ToolException", "number must be >= 2"), key)
            self.assertEqual((event["category"], event["subtype"]), ("out_of_range", "below_minimum"), key)

    def test_c_after_a_nightly_load_tools_serves_v2_with_the_learned_warning(self):
        load_tools(TOOLS)
        reporter = self.reporter()
        handler = ToolcoachCallbackHandler(reporter, agent="langchain-core-e2e")
        for n in list(range(0, 21)) + list(range(21, 31)):  # 0..20 succeed, 21..30 overflow
            try:
                factorial.invoke({"name": "factorial", "args": {"n": n}, "id": "lc_n%d" % n, "type": "tool_call"}, {"callbacks": [handler]})
            except OverflowError:
                pass
        self.assertTrue(reporter.close(10))
        events = stored_events("factorial", 3 + 31)
        # The day of the calls; two when they straddle midnight UTC, each run for its own day.
        for day in sorted({e["occurredAt"][:10] for e in events}):
            self.assertEqual(run_nightly(day)["status"], "succeeded")
        applied = api("GET", "/v1/recommendations?status=applied&tool=factorial")["items"]
        self.assertIn("learned_limit", [r["kind"] for r in applied], applied)

        load_tools(TOOLS)
        self.assertIn("'n' above 20 fails (overflow)", factorial.description)
        served = api("GET", "/v1/tools/factorial/description")
        # version 2 or later: the same nightly may also apply the tool-quality checker's additions (docs/tool-quality.md)
        self.assertGreaterEqual(served["version"], 2)
        self.assertEqual(factorial.metadata, {"toolcoach_description_version": served["version"]})
        self.assertEqual(served["description"], factorial.description)
        self.assertEqual(served["baseDescription"], "Compute n! for a non-negative integer n.")  # never the served text

        reporter = self.reporter()
        with self.assertRaises(OverflowError):
            factorial.invoke({"name": "factorial", "args": {"n": 22}, "id": "lc_after", "type": "tool_call"}, {"callbacks": [ToolcoachCallbackHandler(reporter)]})
        self.assertTrue(reporter.close(10))
        after = next(e for e in stored_events("factorial", 3 + 31 + 1) if e.get("toolCallId") == "lc_after")
        self.assertEqual(after["descriptionVersion"], served["version"])

    def test_d_the_guard_corrects_and_refuses_from_what_was_learned_and_reports_both(self):
        load_tools(TOOLS, guard=True)
        served = {t["name"]: t for t in api("GET", "/v1/tools?format=raw")["tools"]}
        learned = [(limit["path"], limit["bound"], limit["value"]) for limit in served["factorial"]["guard"]["limits"]]
        self.assertEqual(learned, [("/n", "upper", 20)])
        reporter = self.reporter()
        config = {"callbacks": [ToolcoachCallbackHandler(reporter, agent="langchain-core-e2e")]}
        del FACTORIZED[:]

        def call(tool_call_id, chosen, args):
            return chosen.invoke({"name": chosen.name, "args": args, "id": tool_call_id, "type": "tool_call"}, config)

        corrected = call("g_unwrap", prime_factorization, {"numbers": [12]})
        self.assertEqual((corrected.status, corrected.content), ("success", "[2, 2, 3]"))
        # handle_tool_error=True: the refusal reaches the model as an error ToolMessage; its next call runs
        refused = call("g_several", prime_factorization, {"numbers": [12, 18]})
        several = (
            "prime_factorization was not called: 'number' is required; it was sent as 'numbers'; 'numbers' is not a "
            "parameter of this tool; the parameter is 'number' (one integer): pass one integer per call: call this tool "
            "once per item, for each of 12, 18"
        )
        self.assertEqual((refused.status, refused.content), ("error", several))
        self.assertEqual(call("g_retry", prime_factorization, {"number": 18}).content, "[2, 3, 3]")
        # factorial handles no errors: the refusal is raised, and factorial's own OverflowError never happens
        with self.assertRaises(GuardRefusal) as raised:
            call("g_limit", factorial, {"n": 25})
        # learned from the overflows of test_b (1) and test_c (10)
        beyond = "factorial was not called: 'n' is 25; above 20 fails (overflow), learned from 11 failed calls"
        self.assertEqual(str(raised.exception), beyond)
        self.assertEqual(FACTORIZED, [12, 18])
        self.assertTrue(reporter.close(10))

        primes = {e.get("toolCallId"): e for e in stored_events("prime_factorization", 2 + 3)}
        self.assertEqual((primes["g_unwrap"]["status"], primes["g_unwrap"]["arguments"]), ("success", {"number": 12}))
        several_error = primes["g_several"]["error"]
        self.assertEqual((primes["g_several"]["status"], several_error["type"], several_error["message"]), ("error", "GuardRefused", several))
        self.assertEqual(primes["g_several"]["arguments"], {"numbers": [12, 18]})
        self.assertEqual(primes["g_retry"]["status"], "success")
        limit = next(e for e in stored_events("factorial", 3 + 31 + 1 + 1) if e.get("toolCallId") == "g_limit")
        self.assertEqual((limit["status"], limit["error"]["type"], limit["arguments"]), ("error", "GuardRefused", {"n": 25}))
        since = urllib.parse.quote((datetime.now(timezone.utc) - timedelta(days=1)).isoformat(timespec="seconds").replace("+00:00", "Z"))
        prime_counts = api("GET", "/v1/tools/prime_factorization/guard-stats?from=%s" % since)["totals"]
        self.assertEqual(prime_counts, {"corrected": 1, "prevented": 1, "byKind": {"rename": 1, "unwrap_array": 1}})
        self.assertEqual(api("GET", "/v1/tools/factorial/guard-stats?from=%s" % since)["totals"], {"corrected": 0, "prevented": 1, "byKind": {}})


    def test_e_one_agent_is_served_the_canary_until_the_next_nightly_promotes_it(self):
        # The default rollout policy (docs/rollout.md): test_c's nightly started the warning as a canary served to every
        # caller, this one agent without a session included; its calls with the warning decide it at the next nightly.
        load_tools(TOOLS)
        version = factorial.metadata["toolcoach_description_version"]
        canaries = lambda: api("GET", "/v1/rollout/canaries?tool=factorial")["items"]  # noqa: E731
        canary = next(c for c in canaries() if c["canaryVersion"] == version)
        self.assertEqual((canary["status"], canary["design"], canary["previousVersion"]), ("running", "alternating", 1))
        reporter = self.reporter()
        config = {"callbacks": [ToolcoachCallbackHandler(reporter, agent="langchain-core-e2e")]}
        # told that n above 20 fails, the model stays within it: 100 calls with the warning
        for i in range(100):
            factorial.invoke({"name": "factorial", "args": {"n": i % 21}, "id": "lc_warned%d" % i, "type": "tool_call"}, config)
        self.assertTrue(reporter.close(10))
        stored_events("factorial", 3 + 31 + 1 + 1 + 100)

        self.assertEqual(run_nightly(datetime.now(timezone.utc).date().isoformat())["status"], "succeeded")
        decided = next(c for c in canaries() if c["id"] == canary["id"])
        self.assertEqual((decided["status"], decided["decision"]["action"]), ("promoted", "promote"), decided)
        self.assertEqual(decided["decision"]["canary"]["version"], version)
        # measured the night it was promoted
        limit = next(r for r in api("GET", "/v1/recommendations?status=applied&tool=factorial")["items"] if r["kind"] == "learned_limit")
        self.assertEqual((limit["effect"]["verdict"], limit["effect"]["withWarning"]["calls"]), ("helped", 102), limit["effect"])

if __name__ == "__main__":
    unittest.main()
