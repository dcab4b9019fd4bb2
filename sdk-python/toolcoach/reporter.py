"""Reports tool-call events to toolcoach in the background.

Semantics shared with the TypeScript SDK: ``report`` only appends to a bounded in-memory buffer and never blocks or
raises; a daemon thread sends batches to ``POST /v1/events``; when the buffer is full the oldest events are dropped and
counted; a failed send backs off exponentially (honouring ``Retry-After``) and keeps the events; the buffer is flushed,
within a time limit, when the interpreter exits.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import random
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import deque
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Deque, Dict, List, Optional

from .redaction import redact_event

logger = logging.getLogger("toolcoach")

SDK_NAME = "toolcoach-python"
SDK_VERSION = "0.1.0"
DEFAULT_BASE_URL = "http://localhost:3000"
MAX_EVENTS_PER_REQUEST = 1000  # the API's limit
MAX_RESULT_BYTES = 4 * 1024
MAX_ERROR_MESSAGE_CHARS = 8 * 1024
MAX_STACK_CHARS = 16 * 1024
MAX_RETRY_AFTER_S = 300.0

# One vocabulary across toolcoach's SDKs, demo and CLI; TOOLCOACH_BASE_URL is the name this SDK used first.
URL_VARIABLES = ("TOOLCOACH_URL", "TOOLCOACH_BASE_URL")
API_KEY_VARIABLE = "TOOLCOACH_API_KEY"


def configured_base_url(base_url: Optional[str] = None) -> str:
    """``base_url``, else ``TOOLCOACH_URL``, else its alias ``TOOLCOACH_BASE_URL``, else http://localhost:3000."""
    found = base_url or next((os.environ[name] for name in URL_VARIABLES if os.environ.get(name)), None)
    return (found or DEFAULT_BASE_URL).rstrip("/")


def configured_api_key(api_key: Optional[str] = None) -> str:
    return api_key or os.environ.get(API_KEY_VARIABLE, "")


STARTUP_TIMEOUT_VARIABLE = "TOOLCOACH_STARTUP_TIMEOUT_MS"
DEFAULT_STARTUP_TIMEOUT_S = 2.0


def configured_startup_timeout_s(timeout_s: Optional[float] = None) -> float:
    """``timeout_s``, else ``TOOLCOACH_STARTUP_TIMEOUT_MS`` (whole milliseconds, 1 to 600000; anything else is ignored
    with a warning), else 2 seconds: how long start-up calls wait for the server before falling back."""
    if timeout_s is not None:
        return timeout_s
    text = os.environ.get(STARTUP_TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_STARTUP_TIMEOUT_S
    if text.isdigit() and len(text) <= 7 and 1 <= int(text) <= 600_000:
        return int(text) / 1000.0
    logger.warning("toolcoach: %s=%r is not a whole number of milliseconds from 1 to 600000; using 2000", STARTUP_TIMEOUT_VARIABLE, text[:40])
    return DEFAULT_STARTUP_TIMEOUT_S


class Reporter:
    """Buffers events and sends them in batches from a background thread. Thread-safe; never raises."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        batch_size: int = 100,
        flush_interval_s: float = 1.0,
        max_buffer: int = 10_000,
        timeout_s: float = 10.0,
        backoff_initial_s: float = 0.5,
        backoff_max_s: float = 30.0,
        max_attempts: int = 8,
        exit_flush_timeout_s: float = 5.0,
        agent: Optional[str] = None,
        redact: bool = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.api_key = configured_api_key(api_key)
        self.base_url = configured_base_url(base_url)
        self.batch_size = max(1, min(int(batch_size), MAX_EVENTS_PER_REQUEST))
        self.flush_interval_s = flush_interval_s
        self.max_buffer = max(1, int(max_buffer))
        self.timeout_s = timeout_s
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.max_attempts = max(1, int(max_attempts))
        self.exit_flush_timeout_s = exit_flush_timeout_s
        self.agent = agent
        self.redact = redact
        self._sleep = sleep

        self._buffer: Deque[dict] = deque()
        self._in_flight = 0
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._idle = threading.Condition(self._lock)
        self._thread: Optional[threading.Thread] = None
        self._closed = False
        self._retry_at = 0.0
        self._oldest_at = 0.0
        self._flush_requested = False
        self._failures = 0
        self._warned_auth = False
        self._dropped_unreported = 0
        self.stats: Dict[str, int] = {"sent": 0, "dropped": 0, "rejected": 0, "failed_requests": 0}
        atexit.register(self._flush_at_exit)

    # -- public API: never raises --------------------------------------------------------------------------------------

    def report(self, event: Dict[str, Any]) -> None:
        """Queues one event (our wire format). Returns at once; the event is sent in the background."""
        try:
            prepared = self._prepare(event)
            with self._lock:
                if self._closed:
                    self.stats["dropped"] += 1
                    return
                if not self._buffer:
                    self._oldest_at = time.monotonic()
                self._buffer.append(prepared)
                self._drop_overflow()
                self._ensure_thread()
                if len(self._buffer) >= self.batch_size:
                    self._wake.notify_all()
        except Exception:  # the agent must never fail because of telemetry
            logger.debug("toolcoach: could not queue an event", exc_info=True)

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Sends everything buffered; True when the buffer is empty within ``timeout_s``."""
        try:
            deadline = time.monotonic() + timeout_s
            with self._lock:
                thread_alive = self._thread is not None and self._thread.is_alive()
                if thread_alive:
                    self._flush_requested = True
                    self._wake.notify_all()
                    while (self._buffer or self._in_flight) and time.monotonic() < deadline:
                        self._idle.wait(max(0.0, min(0.05, deadline - time.monotonic())))
                    self._flush_requested = False
                    return not self._buffer and not self._in_flight
            # No sender thread (never started, or gone at interpreter exit): send from the caller.
            while time.monotonic() < deadline:
                if not self._send_next_batch(deadline):
                    break
            with self._lock:
                return not self._buffer
        except Exception:
            logger.debug("toolcoach: flush failed", exc_info=True)
            return False

    def close(self, timeout_s: float = 5.0) -> bool:
        """Flushes, then stops the sender; later events are dropped."""
        flushed = self.flush(timeout_s)
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        return flushed

    @property
    def buffered(self) -> int:
        with self._lock:
            return len(self._buffer)

    # -- internals -----------------------------------------------------------------------------------------------------

    def _prepare(self, event: Dict[str, Any]) -> dict:
        out = {key: value for key, value in event.items() if value is not None}
        out.setdefault("id", str(uuid.uuid4()))
        out.setdefault("occurredAt", datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"))
        if self.agent and "agent" not in out:
            out["agent"] = self.agent
        for field in ("arguments", "result", "metadata"):
            if field in out:
                out[field] = to_json_value(out[field])
        if "result" in out:
            out["result"] = truncate_json(out["result"], MAX_RESULT_BYTES)
        error = out.get("error")
        if isinstance(error, dict):
            error = {key: str(value) for key, value in error.items() if value is not None}
            error["message"] = error.get("message", "")[:MAX_ERROR_MESSAGE_CHARS]
            if "stack" in error:
                error["stack"] = error["stack"][:MAX_STACK_CHARS]
            out["error"] = error
        return redact_event(out) if self.redact else out

    def _drop_overflow(self) -> None:
        # Oldest first: the newest events say most about the agent's current behaviour.
        while len(self._buffer) > self.max_buffer:
            self._buffer.popleft()
            self.stats["dropped"] += 1
            self._dropped_unreported += 1
            if self.stats["dropped"] == 1 or self.stats["dropped"] % 1000 == 0:
                logger.warning("toolcoach: buffer full, dropped %d events so far", self.stats["dropped"])

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="toolcoach-reporter", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    self._idle.notify_all()
                    return
                now = time.monotonic()
                wake_at = self._next_send_at()
                if wake_at is None or wake_at > now:
                    self._wake.wait(self.flush_interval_s if wake_at is None else max(0.005, wake_at - now))
                    continue
            try:
                self._send_next_batch(None)
            except Exception:
                logger.debug("toolcoach: sender error", exc_info=True)

    def _next_send_at(self) -> Optional[float]:
        """When the sender should send next (under the lock): a full batch or a flush at once, otherwise when the
        oldest buffered event has waited ``flush_interval_s``; never before a backoff ends."""
        if not self._buffer:
            return None
        due = self._oldest_at + self.flush_interval_s
        if len(self._buffer) >= self.batch_size or self._flush_requested:
            due = 0.0
        return max(due, self._retry_at)

    def _send_next_batch(self, deadline: Optional[float]) -> bool:
        """Sends one batch; False when there was nothing to send or the batch must wait (backoff past the deadline)."""
        with self._lock:
            if not self._buffer:
                return False
            wait_s = self._retry_at - time.monotonic()
            if wait_s > 0:
                if deadline is None or time.monotonic() + wait_s > deadline:
                    return False
            batch = [self._buffer.popleft() for _ in range(min(self.batch_size, len(self._buffer)))]
            self._in_flight = len(batch)
        if wait_s > 0:
            self._sleep(wait_s)
        with self._lock:
            dropped_reported = self._dropped_unreported
        try:
            outcome = self._post(batch, dropped_reported)
        finally:
            with self._lock:
                self._in_flight = 0
        self._settle(batch, outcome, dropped_reported)
        return True

    def _settle(self, batch: List[dict], outcome: "_Outcome", dropped_reported: int) -> None:
        with self._lock:
            if outcome.kind == "sent":
                self._dropped_unreported = max(0, self._dropped_unreported - dropped_reported)
                self.stats["sent"] += outcome.accepted
                self.stats["rejected"] += outcome.rejected
                self._failures = 0
                self._retry_at = 0.0
            elif outcome.kind == "dropped":
                self.stats["rejected"] += len(batch)
            elif outcome.kind == "split" and len(batch) > 1:
                half = len(batch) // 2
                self._buffer.extendleft(reversed(batch))
                self.batch_size = max(1, half)
            elif outcome.kind == "split":
                self.stats["rejected"] += 1
            elif self._failures + 1 >= self.max_attempts:
                # The same batch failed every attempt: give it up so newer events get their chance.
                self.stats["failed_requests"] += 1
                self.stats["dropped"] += len(batch)
                self._dropped_unreported += len(batch)
                self._failures = 0
                self._retry_at = 0.0
                logger.warning("toolcoach: dropped %d events after %d failed attempts (%s)", len(batch), self.max_attempts, outcome.reason)
            else:  # retry later, keeping the events in front of newer ones
                self.stats["failed_requests"] += 1
                self._failures += 1
                self._buffer.extendleft(reversed(batch))
                self._drop_overflow()
                backoff = min(self.backoff_max_s, self.backoff_initial_s * (2 ** (self._failures - 1)))
                delay = outcome.retry_after_s if outcome.retry_after_s is not None else backoff * random.uniform(0.5, 1.0)
                self._retry_at = time.monotonic() + delay
                logger.debug("toolcoach: send failed (%s); retrying in %.2fs", outcome.reason, delay)
            if not self._buffer and not self._in_flight:
                self._idle.notify_all()
            self._wake.notify_all()

    def _post(self, batch: List[dict], dropped: int) -> "_Outcome":
        client = {"sdk": SDK_NAME, "version": SDK_VERSION, "dropped": dropped}
        body = json.dumps({"events": batch, "client": client}, ensure_ascii=False, default=str).encode("utf-8")
        request = urllib.request.Request(
            self.base_url + "/v1/events",
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Authorization": "Bearer " + self.api_key,
                "User-Agent": "%s/%s" % (SDK_NAME, SDK_VERSION),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return _accepted(response.read())
        except urllib.error.HTTPError as error:
            status = error.code
            text = _read(error)
            if status in (400, 422):
                # No event of the batch was valid: resending cannot help.
                logger.warning("toolcoach: the API rejected %d events: %s", len(batch), text[:500])
                return _Outcome("dropped")
            if status in (401, 403):
                if not self._warned_auth:
                    self._warned_auth = True
                    logger.error("toolcoach: the API refused the key (HTTP %d); events are dropped", status)
                return _Outcome("dropped")
            if status == 413:
                return _Outcome("split")
            return _Outcome("retry", reason="HTTP %d" % status, retry_after_s=parse_retry_after(error.headers.get("Retry-After")))
        except Exception as error:  # network down, timeout, DNS: keep the events and try again later
            return _Outcome("retry", reason=type(error).__name__)

    def _flush_at_exit(self) -> None:
        try:
            with self._lock:
                empty = not self._buffer
            if not empty:
                self.flush(self.exit_flush_timeout_s)
        except Exception:
            pass


class _Outcome:
    def __init__(self, kind: str, *, accepted: int = 0, rejected: int = 0, reason: str = "", retry_after_s: Optional[float] = None):
        self.kind = kind
        self.accepted = accepted
        self.rejected = rejected
        self.reason = reason
        self.retry_after_s = retry_after_s


def _accepted(body: bytes) -> _Outcome:
    try:
        answer = json.loads(body.decode("utf-8") or "{}")
        rejected = answer.get("rejected") or []
        if rejected:
            logger.warning("toolcoach: the API rejected %d events: %s", len(rejected), json.dumps(rejected)[:500])
        return _Outcome("sent", accepted=int(answer.get("accepted", 0)), rejected=len(rejected))
    except Exception:
        return _Outcome("sent")


def _read(error: urllib.error.HTTPError) -> str:
    try:
        return error.read().decode("utf-8", "replace")
    except Exception:
        return ""


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` as seconds or as an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, min(MAX_RETRY_AFTER_S, float(value)))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
        return max(0.0, min(MAX_RETRY_AFTER_S, (when - datetime.now(timezone.utc)).total_seconds()))
    except Exception:
        return None


def to_json_value(value: Any) -> Any:
    """Plain JSON data for anything a tool takes or returns (pydantic models, messages, dataclasses, ...)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, dict):
        return {str(key): to_json_value(child) for key, child in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json_value(child) for child in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return to_json_value(dump())
        except Exception:
            pass
    try:
        return json.loads(json.dumps(value, default=str))
    except Exception:
        return str(value)


def truncate_json(value: Any, max_bytes: int) -> Any:
    """A value over the limit becomes the server's marked preview, so a huge result never costs a 413."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    size = len(text.encode("utf-8"))
    if size <= max_bytes:
        return value
    return {"$truncated": True, "bytes": size, "preview": text[:max_bytes]}


_default: Optional[Reporter] = None
_default_lock = threading.Lock()


def configure(**options: Any) -> Reporter:
    """Replaces the process-wide reporter used by handlers that are not given one."""
    global _default
    with _default_lock:
        _default = Reporter(**options)
        return _default


def default_reporter() -> Reporter:
    """The process-wide reporter, configured from TOOLCOACH_URL and TOOLCOACH_API_KEY on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Reporter()
        return _default
