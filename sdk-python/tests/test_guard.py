"""The guard (docs/guard.md): the check itself (toolcoach/guard.py, the same kinds and texts as the
TypeScript SDK's argument-guard.ts), load_tools(guard=...) against the stand-in API, and, where langchain_core is
installed, a real LangChain tool wrapped by it (test/e2e/python-langchain-core.e2e-spec.ts runs those)."""

import os
import sys
import unittest
from uuid import uuid4

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from fake_api import FakeApi  # noqa: E402
from toolcoach import HAS_LANGCHAIN, ArgumentGuard, GuardRefusal, Reporter, ToolcoachCallbackHandler, check_arguments, live, load_tools  # noqa: E402

PRIME = {
    "properties": {"number": {"title": "Number", "type": "integer"}},
    "required": ["number"],
    "title": "prime_factorization",
    "type": "object",
}
FACTORIAL = {"properties": {"n": {"type": "integer"}}, "required": ["n"], "type": "object"}
LEARNED_LIMIT = {"path": "/n", "bound": "upper", "value": 20, "isInclusive": False, "reason": "overflow", "evidenceCount": 10}
SEVERAL_NUMBERS = (
    "prime_factorization was not called: 'number' is required; it was sent as 'numbers'; 'numbers' is not a parameter "
    "of this tool; the parameter is 'number' (one integer): pass one integer per call: call this tool once per item, for "
    "each of 12, 18"
)
BEYOND_LIMIT = "factorial was not called: 'n' is 25; above 20 fails (overflow), learned from 10 failed calls"


def section(policy="correct", renames=(), limits=()):
    return {"version": 1, "policy": policy, "schema": "parameters", "renames": list(renames), "limits": list(limits)}


class ArgumentGuardTest(unittest.TestCase):
    def prime(self, mode="correct", renames=()):
        return ArgumentGuard("prime_factorization", PRIME, section(mode, renames), mode)

    def test_a_valid_call_runs_as_it_is(self):
        self.assertEqual(self.prime().check({"number": 12}).action, "run")

    def test_safe_mistakes_are_corrected_with_their_kinds(self):
        cases = [
            ({"numbers": [12]}, {"number": 12}, ["rename", "unwrap_array"]),
            ({"number": "12"}, {"number": 12}, ["numeric_string"]),
            ({"Number": 7}, {"number": 7}, ["rename"]),
        ]
        for given, corrected, kinds in cases:
            verdict = self.prime().check(given)
            self.assertEqual(verdict.action, "correct", given)
            self.assertEqual(verdict.correction, {"original": given, "corrected": corrected, "kinds": kinds})

    def test_a_learned_rename_is_applied_where_no_spelling_rule_would_find_it(self):
        verdict = self.prime(renames=[{"wrong": "value", "intended": "number", "count": 4}]).check({"value": 9})
        self.assertEqual((verdict.action, verdict.correction["corrected"]), ("correct", {"number": 9}))
        # two strays: neither is the one rename beside the one missing name
        self.assertEqual(
            self.prime().check({"value": 9, "note": "x"}).message,
            "prime_factorization was not called: 'number' is required; 'value' is not a parameter of this tool; 'note' is "
            "not a parameter of this tool",
        )

    def test_unsafe_calls_are_refused_in_validate_words(self):
        self.assertEqual(self.prime().check({"numbers": [12, 18]}).message, SEVERAL_NUMBERS)
        refused = self.prime().check({"number": [1, 2]})
        self.assertEqual(
            refused.message,
            "prime_factorization was not called: 'number' must be integer, not an array: pass one integer per call: call "
            "this tool once per item, for each of 1, 2",
        )
        limited = ArgumentGuard("factorial", FACTORIAL, section(limits=[LEARNED_LIMIT]), "correct")
        self.assertEqual((limited.check({"n": 25}).action, limited.check({"n": 25}).message), ("refuse", BEYOND_LIMIT))
        self.assertEqual(limited.check({"n": 20}).action, "run")

    def test_declared_bounds_and_long_lists_are_worded_as_validate_does(self):
        bounded = ArgumentGuard("page", {"type": "object", "properties": {"size": {"type": "integer", "maximum": 100}}}, None, "correct")
        self.assertEqual(bounded.check({"size": 500}).message, "page was not called: 'size' must be <= 100")
        many = self.prime().check({"numbers": list(range(1, 13))})
        self.assertTrue(many.message.endswith("for each of 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 2 more"), many.message)

    def test_the_modes(self):
        self.assertEqual(self.prime("off").check({"numbers": [12, 18]}).action, "run")
        self.assertEqual(self.prime("report").check({"numbers": [12, 18]}).action, "run")
        strict = self.prime("strict").check({"numbers": [12]})
        self.assertEqual(
            (strict.action, strict.message),
            (
                "refuse",
                "prime_factorization was not called: 'number' is required; it was sent as 'numbers'; 'numbers' is not a "
                "parameter of this tool; the parameter is 'number' (one integer); pass the single item itself; call it as "
                '{"number":12}',
            ),
        )
        # a mistake that is neither safe to correct nor unsafe runs under correct, and is refused under strict
        self.assertEqual(self.prime().check({"number": "1.5"}).action, "run")
        self.assertEqual(self.prime("strict").check({"number": "1.5"}).message, "prime_factorization was not called: 'number' must be integer")

    def test_numeric_strings_are_read_only_when_exact(self):
        measure = ArgumentGuard("measure", {"type": "object", "properties": {"x": {"type": "number"}}}, None, "correct")
        self.assertEqual(measure.check({"x": "2.5"}).correction["corrected"], {"x": 2.5})
        for inexact in ("1.50", "1.0", "-0", "01", "1e3", " 2"):
            self.assertEqual(measure.check({"x": inexact}).action, "run", inexact)  # a type mismatch, left to the tool

    def test_schema_keywords_nested_and_by_reference(self):
        schema = {
            "type": "object",
            "properties": {"item": {"$ref": "#/$defs/Item"}, "tags": {"type": "array", "maxItems": 2, "items": {"enum": ["a", "b"]}}},
            "$defs": {"Item": {"type": "object", "properties": {"qty": {"type": "integer", "exclusiveMinimum": 0}}, "additionalProperties": False}},
        }
        guard = ArgumentGuard("order", schema, None, "strict")
        self.assertEqual(guard.check({"item": {"qty": 1}, "tags": ["a"]}).action, "run")
        self.assertEqual(
            guard.check({"item": {"qty": 0, "extra": 1}, "tags": ["a", "c", "b"]}).message,
            "order was not called: 'extra' is not a parameter of this tool; 'qty' must be > 0; 'tags' must NOT have more "
            'than 2 items; "1" must be one of "a", "b"',
        )


class LoadToolsGuardTest(unittest.TestCase):
    """load_tools(guard=...) against the stand-in API, checked by name with check_arguments."""

    def setUp(self):
        self.api = FakeApi()
        self.api.route("POST", "/v1/tools:bulk", 200, {"tools": []})
        live._warned.clear()
        self.name = "factorial_%s" % uuid4().hex[:8]  # guards are per process, by tool name

    def tearDown(self):
        self.api.close()

    def tool(self):
        return {"name": self.name, "description": "Compute n!.", "parameters": FACTORIAL}

    def serve(self, guard):
        item = {"name": self.name, "version": 2, "description": "Compute n!.", "parameters": FACTORIAL}
        if guard is not None:
            item["guard"] = guard
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": [item]})

    def test_the_served_section_and_policy_decide_and_the_mode_overrides_them(self):
        self.serve(section("correct", limits=[LEARNED_LIMIT]))
        load_tools([self.tool()], base_url=self.api.base_url, api_key="k", guard=True)
        self.assertEqual(check_arguments(self.name, {"n": 25}).message, BEYOND_LIMIT.replace("factorial", self.name, 1))
        self.assertEqual(check_arguments(self.name, {"n": "5"}).action, "correct")
        self.assertEqual(len(self.api.requests), 2)  # the check asked nothing more
        self.serve(section("report", limits=[LEARNED_LIMIT]))
        load_tools([self.tool()], base_url=self.api.base_url, api_key="k", guard=True)
        self.assertEqual(check_arguments(self.name, {"n": 25}).action, "run")
        load_tools([self.tool()], base_url=self.api.base_url, api_key="k", guard="strict")
        self.assertEqual(check_arguments(self.name, {"n": "5"}).action, "refuse")

    def test_without_a_guard_section_it_checks_the_tools_own_schema_and_says_so_once(self):
        self.serve(None)
        with self.assertLogs("toolcoach", "WARNING") as logs:
            load_tools([self.tool()], base_url=self.api.base_url, api_key="k", guard=True)
        self.assertIn("the guard checks %s against the tools' own schemas only" % self.name, "\n".join(logs.output))
        self.assertEqual(check_arguments(self.name, {"n": 25}).action, "run")  # no learned limit without the section
        self.assertEqual(check_arguments(self.name, {}).message, "%s was not called: 'n' is required" % self.name)

    def test_unknown_tools_and_tools_loaded_without_the_guard_run(self):
        self.serve(section())
        load_tools([self.tool()], base_url=self.api.base_url, api_key="k")
        self.assertEqual(check_arguments(self.name, {}).action, "run")


@unittest.skipUnless(HAS_LANGCHAIN, "langchain_core is not installed (test/e2e/python-langchain-core.e2e-spec.ts installs it)")
class GuardedLangchainToolTest(unittest.TestCase):
    """A real langchain_core tool under the guard: its function never sees what the guard corrected or refused."""

    def setUp(self):
        from langchain_core.tools import tool

        self.api = FakeApi()
        self.api.route("POST", "/v1/tools:bulk", 200, {"tools": []})
        self.seen = []
        seen = self.seen

        @tool
        def prime_factorization(number: int) -> list:
            """Perform prime factorization of a single integer."""
            seen.append(number)
            return [number]

        prime_factorization.handle_tool_error = True
        self.tool = prime_factorization
        item = {"name": "prime_factorization", "version": 1, "description": "d", "parameters": PRIME, "guard": section()}
        self.api.route("GET", "/v1/tools?format=raw", 200, {"tools": [item]})
        load_tools([prime_factorization], base_url=self.api.base_url, api_key="k", guard=True)
        self.reporter = Reporter(base_url=self.api.base_url, api_key="k", flush_interval_s=0.05)
        self.handler = ToolcoachCallbackHandler(self.reporter)

    def tearDown(self):
        self.reporter.close(1)
        self.api.close()

    def call(self, call_id, args):
        return self.tool.invoke({"name": self.tool.name, "args": args, "id": call_id, "type": "tool_call"}, {"callbacks": [self.handler]})

    def test_corrects_refuses_and_reports(self):
        corrected = self.call("c1", {"numbers": [12]})
        refused = self.call("c2", {"numbers": [12, 18]})
        self.assertEqual((corrected.status, corrected.content), ("success", "[12]"))
        self.assertEqual((refused.status, refused.content), ("error", SEVERAL_NUMBERS))
        self.assertEqual(self.seen, [12])
        self.assertTrue(self.reporter.close(5))
        events = {event["toolCallId"]: event for event in self.api.events()}
        self.assertEqual(
            events["c1"]["correction"], {"original": {"numbers": [12]}, "corrected": {"number": 12}, "kinds": ["rename", "unwrap_array"]}
        )
        self.assertEqual((events["c1"]["status"], events["c1"]["arguments"]), ("success", {"number": 12}))
        self.assertEqual(
            (events["c2"]["status"], events["c2"]["prevented"], events["c2"]["error"]),
            ("error", True, {"type": "GuardRefused", "message": SEVERAL_NUMBERS}),
        )
        self.assertNotIn("prevented", events["c1"])

    def test_without_handle_tool_error_the_refusal_is_raised(self):
        self.tool.handle_tool_error = False
        with self.assertRaises(GuardRefusal) as raised:
            self.tool.invoke({"numbers": [12, 18]})
        self.assertEqual(str(raised.exception), SEVERAL_NUMBERS)
        self.assertEqual(self.seen, [])


if __name__ == "__main__":
    unittest.main()
