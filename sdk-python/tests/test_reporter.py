import json
import os
import subprocess
import sys
import textwrap
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from fake_api import FakeApi  # noqa: E402
from toolcoach.reporter import Reporter, configured_startup_timeout_s, parse_retry_after  # noqa: E402

SDK_ROOT = os.path.join(os.path.dirname(__file__), "..")


def an_event(n=0, **fields):
    event = {"tool": "add", "status": "success", "arguments": {"a": n, "b": 2}, "result": n + 2}
    event.update(fields)
    return event


class ReporterTest(unittest.TestCase):
    def setUp(self):
        self.api = FakeApi()
        self.reporters = []

    def tearDown(self):
        for reporter in self.reporters:
            reporter.close(timeout_s=0.5)
        self.api.close()

    def reporter(self, **options):
        options.setdefault("api_key", "tc_test")
        options.setdefault("base_url", self.api.base_url)
        reporter = Reporter(**options)
        self.reporters.append(reporter)
        return reporter

    def test_sends_events_in_batches_of_batch_size_with_the_bearer_key(self):
        reporter = self.reporter(batch_size=10, flush_interval_s=60)
        for n in range(25):
            reporter.report(an_event(n))
        self.api.wait_for_requests(2)
        self.assertTrue(reporter.flush(5))
        sizes = [len(r["body"]["events"]) for r in self.api.requests]
        self.assertEqual(sizes, [10, 10, 5])
        self.assertEqual(self.api.requests[0]["path"], "/v1/events")
        self.assertEqual(self.api.requests[0]["headers"]["Authorization"], "Bearer tc_test")
        self.assertEqual([e["arguments"]["a"] for e in self.api.events()], list(range(25)))
        self.assertEqual(reporter.stats["sent"], 25)

    def test_sends_a_partial_batch_after_the_flush_interval(self):
        reporter = self.reporter(batch_size=100, flush_interval_s=0.2)
        reporter.report(an_event())
        requests = self.api.wait_for_requests(1, timeout_s=3)
        self.assertEqual(len(requests), 1)
        self.assertEqual(len(requests[0]["body"]["events"]), 1)

    def test_gives_each_event_an_id_and_occurred_at(self):
        reporter = self.reporter()
        reporter.report(an_event())
        reporter.flush(5)
        event = self.api.events()[0]
        self.assertRegex(event["id"], r"^[0-9a-f-]{36}$")
        self.assertRegex(event["occurredAt"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

    def test_drops_the_oldest_events_when_the_buffer_is_full_and_counts_them(self):
        self.api.answer(503, {"Retry-After": "60"})
        reporter = self.reporter(max_buffer=5, batch_size=5, flush_interval_s=0.01)
        reporter.report(an_event(0))
        self.api.wait_for_requests(1)
        time.sleep(0.1)  # the failed batch is back in the buffer, waiting out Retry-After
        for n in range(1, 9):
            reporter.report(an_event(n))
        self.assertEqual(reporter.buffered, 5)
        self.assertEqual(reporter.stats["dropped"], 4)
        with reporter._lock:
            kept = [e["arguments"]["a"] for e in reporter._buffer]
        self.assertEqual(kept, [4, 5, 6, 7, 8])

    def test_backs_off_for_as_long_as_retry_after_says_and_keeps_the_events(self):
        self.api.answer(503, {"Retry-After": "1"})
        reporter = self.reporter(flush_interval_s=0.01)
        reporter.report(an_event(7))
        requests = self.api.wait_for_requests(2, timeout_s=5)
        self.assertEqual(len(requests), 2)
        waited = requests[1]["at"] - requests[0]["at"]
        self.assertGreaterEqual(waited, 0.95)
        self.assertLess(waited, 2.0)
        self.assertEqual(requests[1]["body"]["events"], requests[0]["body"]["events"])
        self.assertEqual(reporter.stats["failed_requests"], 1)

    def test_backs_off_exponentially_without_retry_after(self):
        for _ in range(3):
            self.api.answer(500)
        reporter = self.reporter(flush_interval_s=0.01, backoff_initial_s=0.1, backoff_max_s=5)
        reporter.report(an_event())
        requests = self.api.wait_for_requests(4, timeout_s=5)
        gaps = [b["at"] - a["at"] for a, b in zip(requests, requests[1:])]
        self.assertEqual(len(gaps), 3)
        # jittered to 50-100% of 0.1, 0.2, 0.4 s
        self.assertGreaterEqual(gaps[0], 0.04)
        self.assertGreaterEqual(gaps[2], 0.19)
        self.assertGreater(gaps[2], gaps[0])

    def test_gives_up_a_batch_after_max_attempts_and_says_so_in_the_next_request(self):
        for _ in range(2):
            self.api.answer(500)
        reporter = self.reporter(flush_interval_s=0.01, backoff_initial_s=0.01, max_attempts=2)
        reporter.report(an_event(1))
        self.api.wait_for_requests(2)
        time.sleep(0.1)
        self.assertEqual(reporter.stats["dropped"], 1)
        reporter.report(an_event(2))
        self.assertTrue(reporter.flush(3))
        last = self.api.requests[-1]["body"]
        self.assertEqual([e["arguments"]["a"] for e in last["events"]], [2])
        self.assertEqual(last["client"], {"sdk": "toolcoach-python", "version": "0.1.0", "dropped": 1})

    def test_parses_retry_after_as_seconds_or_http_date(self):
        self.assertEqual(parse_retry_after("3"), 3.0)
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after("soon"))
        self.assertAlmostEqual(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), 0.0)

    def test_drops_a_batch_the_api_refuses_as_invalid_without_retrying(self):
        self.api.answer(400, body={"error": {"code": "invalid_events"}})
        reporter = self.reporter(flush_interval_s=0.01)
        reporter.report(an_event())
        self.assertTrue(reporter.flush(3))
        time.sleep(0.2)
        self.assertEqual(len(self.api.requests), 1)
        self.assertEqual(reporter.stats["rejected"], 1)

    def test_never_raises_into_the_agent(self):
        unreachable = Reporter(api_key="k", base_url="http://127.0.0.1:9", timeout_s=0.2, flush_interval_s=0.01)
        self.reporters.append(unreachable)
        unreachable.report(an_event(result=object(), arguments={"x": {1, 2}}))
        unreachable.report(None)  # not even an event
        self.assertFalse(unreachable.flush(0.3))
        reporter = self.reporter()
        reporter.close(1)
        reporter.report(an_event())  # after close: dropped, not raised
        self.assertEqual(reporter.stats["dropped"], 1)

    def test_sends_values_that_are_not_json_as_text(self):
        reporter = self.reporter()
        reporter.report(an_event(result=object(), arguments={"when": time.gmtime(0)}))
        self.assertTrue(reporter.flush(3))
        event = self.api.events()[0]
        self.assertIsInstance(event["result"], str)

    def test_redacts_secrets_before_sending(self):
        reporter = self.reporter()
        reporter.report(
            an_event(
                status="error",
                arguments={"city": "Paris", "api_key": "sk-live-123", "login": {"password": "hunter2"}, "max_tokens": 5},
                error={"message": "login failed for password=hunter2"},
                metadata={"token": "abc"},
            )
        )
        reporter.report(an_event(arguments='{"password": "hunter2", "user": "bob"}'))
        self.assertTrue(reporter.flush(3))
        first, second = self.api.events()
        self.assertEqual(
            first["arguments"],
            {"city": "Paris", "api_key": "[REDACTED]", "login": {"password": "[REDACTED]"}, "max_tokens": 5},
        )
        self.assertEqual(first["error"]["message"], "login failed for password=[REDACTED]")
        self.assertEqual(first["metadata"], {"token": "[REDACTED]"})
        self.assertEqual(second["arguments"], '{"password": "[REDACTED]", "user": "bob"}')
        self.assertNotIn("hunter2", json.dumps(self.api.events()))

    def test_truncates_a_large_result_like_the_server(self):
        reporter = self.reporter()
        reporter.report(an_event(result="x" * 10_000))
        reporter.flush(3)
        result = self.api.events()[0]["result"]
        self.assertEqual(result["$truncated"], True)
        self.assertEqual(len(result["preview"]), 4096)

    def test_flushes_buffered_events_when_the_interpreter_exits(self):
        script = textwrap.dedent(
            """
            import sys
            sys.path.insert(0, %r)
            from toolcoach import Reporter
            reporter = Reporter(api_key="k", base_url=%r, flush_interval_s=3600, batch_size=100)
            for n in range(3):
                reporter.report({"tool": "exit_tool", "status": "success", "result": n})
            """
            % (os.path.abspath(SDK_ROOT), self.api.base_url)
        )
        completed = subprocess.run([sys.executable, "-c", script], timeout=20, capture_output=True, text=True)
        self.assertEqual(completed.returncode, 0, completed.stderr)
        self.assertEqual([e["result"] for e in self.api.events()], [0, 1, 2])


class StartupTimeoutTest(unittest.TestCase):
    def setUp(self):
        self.saved = os.environ.pop("TOOLCOACH_STARTUP_TIMEOUT_MS", None)

    def tearDown(self):
        os.environ.pop("TOOLCOACH_STARTUP_TIMEOUT_MS", None)
        if self.saved is not None:
            os.environ["TOOLCOACH_STARTUP_TIMEOUT_MS"] = self.saved

    def test_the_argument_then_the_variable_then_two_seconds(self):
        self.assertEqual(configured_startup_timeout_s(), 2.0)
        os.environ["TOOLCOACH_STARTUP_TIMEOUT_MS"] = " 9000 "
        self.assertEqual(configured_startup_timeout_s(), 9.0)
        self.assertEqual(configured_startup_timeout_s(0.5), 0.5)

    def test_a_variable_that_is_not_whole_milliseconds_is_ignored_with_a_warning(self):
        for text in ("0", "-5", "1.5", "soon", "600001", "99999999999"):
            os.environ["TOOLCOACH_STARTUP_TIMEOUT_MS"] = text
            with self.assertLogs("toolcoach", level="WARNING") as logs:
                self.assertEqual(configured_startup_timeout_s(), 2.0)
            self.assertIn("TOOLCOACH_STARTUP_TIMEOUT_MS", logs.output[0])


if __name__ == "__main__":
    unittest.main()
