"""Live refresh: tools that load_tools loaded follow the registry's new versions without a restart (issue 34)."""

import os
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from pydantic import BaseModel  # noqa: E402

from fake_api import FakeApi  # noqa: E402
from langchain_standins import StructuredTool  # noqa: E402
from toolcoach import Reporter, ToolcoachCallbackHandler, live, load_tools, stop_refresh  # noqa: E402
from toolcoach.refresh import refresher  # noqa: E402

INTERVAL_S = 0.05


class FactorialArgs(BaseModel):
    n: int


class CountingTool(StructuredTool):
    """A LangChain-like tool that counts how often its description is assigned."""

    def __init__(self) -> None:
        self.assignments = 0
        super().__init__("factorial", "n!", FactorialArgs, lambda n: n)

    @property
    def description(self) -> str:
        return self._description

    @description.setter
    def description(self, text: str) -> None:
        self.assignments += 1
        self._description = text


def until(check, timeout_s=5.0):
    """Waits until ``check()`` is truthy, or fails after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not met within %s s" % timeout_s)


class LiveRefreshTest(unittest.TestCase):
    def setUp(self):
        self.api = FakeApi()
        self.version = 1
        self.api.route("POST", "/v1/tools:bulk", 200, {"tools": []})
        self.api.respond("GET", "/v1/tools?format=raw", self.serve)
        live._warned.clear()

    def tearDown(self):
        stop_refresh()
        self.api.close()

    def serve(self, request):
        """Like the registry: the served text and ETag change with the version; a matching If-None-Match gets a 304."""
        side = request["headers"].get("X-Toolcoach-Session", "everyone")
        etag = '"%s-%d"' % (side, self.version)
        if request["headers"].get("If-None-Match") == etag:
            return 304, {"ETag": etag}, None
        text = "n!\nWARNING v%d for %s." % (self.version, side)
        return 200, {"ETag": etag}, {"tools": [{"name": "factorial", "version": self.version, "description": text}]}

    def load(self, tools, **options):
        return load_tools(tools, base_url=self.api.base_url, api_key="k", refresh_interval_s=INTERVAL_S, **options)

    def polls(self):
        return [r for r in self.api.requests if r["method"] == "GET"][1:]

    def test_a_new_version_replaces_the_description_in_place_and_a_304_assigns_nothing(self):
        tool = CountingTool()
        self.load([tool], session="conversation-1")
        self.assertEqual((tool.description, tool.metadata, tool.assignments), ("n!\nWARNING v1 for conversation-1.", {"toolcoach_description_version": 1}, 2))
        until(lambda: len(self.polls()) >= 1)
        self.version = 2
        until(lambda: tool.description == "n!\nWARNING v2 for conversation-1.")
        self.assertEqual((tool.metadata, tool.assignments), ({"toolcoach_description_version": 2}, 3))

        seen = len(self.polls())
        until(lambda: len(self.polls()) >= seen + 3)
        self.assertEqual(tool.assignments, 3)
        self.assertTrue(all(r["headers"].get("If-None-Match") for r in self.polls()))
        self.assertEqual({r["headers"].get("X-Toolcoach-Session") for r in self.polls()}, {"conversation-1"})

    def test_events_carry_the_version_the_tool_had_when_it_was_called(self):
        tool = CountingTool()
        self.load([tool])
        reporter = Reporter(api_key="k", base_url=self.api.base_url, flush_interval_s=0.01)
        handler = ToolcoachCallbackHandler(reporter)
        tool.run({"n": 3}, [handler], tool_call_id="before")
        self.version = 2
        until(lambda: (tool.metadata or {}).get("toolcoach_description_version") == 2)
        tool.run({"n": 4}, [handler], tool_call_id="after")
        self.assertTrue(reporter.close(5))
        self.assertEqual([(e["toolCallId"], e["descriptionVersion"]) for e in self.api.events()], [("before", 1), ("after", 2)])

    def test_registers_tools_loaded_while_toolcoach_was_down_once_it_answers(self):
        self.api.route("POST", "/v1/tools:bulk", 503, {"message": "down"})
        tool = CountingTool()
        self.load([tool])
        self.assertEqual(tool.description, "n!")
        until(lambda: len([r for r in self.api.requests if r["path"] == "/v1/tools:bulk"]) >= 2)
        self.api.route("POST", "/v1/tools:bulk", 200, {"tools": []})
        until(lambda: tool.description == "n!\nWARNING v1 for everyone.")
        registered = [r for r in self.api.requests if r["path"] == "/v1/tools:bulk"][-1]["body"]["tools"]
        self.assertEqual([(t["name"], t["description"]) for t in registered], [("factorial", "n!")])

    def test_keeps_the_tools_of_an_earlier_load_of_the_same_side(self):
        first, second = {"name": "factorial", "description": "n!"}, CountingTool()
        self.load([first], agent="math-agent")
        self.load([second], agent="math-agent")  # the same name: the newer object is the one refreshed
        other = {"name": "other", "description": "other"}
        self.load([other], agent="math-agent")
        self.version = 2
        until(lambda: second.description.startswith("n!\nWARNING v2"))
        self.assertEqual(first["description"], "n!\nWARNING v1 for everyone.")

    def test_follows_next_cursor_through_every_page_and_polls_the_first_with_the_whole_lists_etag(self):
        """A project whose tools do not fit in one page: one tool a page here."""
        names = ["factorial", "square"]

        def page(index):
            def answer(request):
                etag = '"list-%d"' % self.version
                if request["headers"].get("If-None-Match") == etag:
                    return 304, {"ETag": etag}, None
                tool = {"name": names[index], "version": self.version, "description": "%s v%d" % (names[index], self.version)}
                cursor = names[index] if index + 1 < len(names) else None
                return 200, {"ETag": etag}, {"format": "raw", "tools": [tool], "notes": [], "quality": [], "nextCursor": cursor}

            return answer

        self.api.respond("GET", "/v1/tools?format=raw", page(0))
        self.api.respond("GET", "/v1/tools?format=raw&cursor=factorial", page(1))
        first, second = {"name": "factorial", "description": "n!"}, {"name": "square", "description": "n*n"}
        self.load([first, second])
        self.assertEqual((first["description"], second["description"]), ("factorial v1", "square v1"))
        until(lambda: len(self.polls()) >= 3)
        self.version = 2
        until(lambda: second["description"] == "square v2")
        self.assertEqual(first["description"], "factorial v2")
        gets = [(r["path"], r["headers"].get("If-None-Match")) for r in self.api.requests if r["method"] == "GET"]
        self.assertEqual(gets[:2], [("/v1/tools?format=raw", None), ("/v1/tools?format=raw&cursor=factorial", None)])
        # every poll asks the first page with the ETag; the second page is read again only once the list changed
        self.assertTrue(all(etag for path, etag in gets[2:] if path == "/v1/tools?format=raw"))
        self.assertEqual([etag for path, etag in gets if path.endswith("cursor=factorial")], [None, None])

    def test_stop_refresh_and_a_zero_interval_poll_nothing(self):
        sides = refresher.side_count()
        load_tools([CountingTool()], base_url=self.api.base_url, api_key="k", refresh_interval_s=0)
        self.assertEqual(refresher.side_count(), sides)
        tools = self.load([CountingTool()], session=str(uuid.uuid4()))
        self.assertEqual(refresher.side_count(), sides + 1)
        self.assertEqual(stop_refresh(tools), 1)
        self.assertEqual(refresher.side_count(), sides)


if __name__ == "__main__":
    unittest.main()
