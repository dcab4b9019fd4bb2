"""A local stand-in for the toolcoach API, scripted per test: records every request; POST /v1/events answers from a
queue, other routes (the registry's) answer what ``route`` set for them."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

# Answers a request (as recorded in ``requests``) with (status, headers, body).
Responder = Callable[[Dict[str, Any]], Tuple[int, Dict[str, str], Any]]


class FakeApi:
    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        self.answers: List[Tuple[int, Dict[str, str], Any]] = []
        self.routes: Dict[Tuple[str, str], Tuple[int, Any]] = {}
        self.responders: Dict[Tuple[str, str], Responder] = {}
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self.do_POST()

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                route = (self.command, self.path)
                with api.lock:
                    request = {"at": time.monotonic(), "method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
                    api.requests.append(request)
                    if route in api.responders:
                        status, headers, answer = api.responders[route](request)
                    elif route in api.routes:
                        status, answer = api.routes[route]
                        headers = {}
                    else:
                        status, headers, answer = api.answers.pop(0) if api.answers else (202, {}, None)
                    api.arrived.notify_all()
                if answer is None:
                    events = body.get("events", [])
                    answer = {"accepted": len(events), "ids": [e.get("id") for e in events], "rejected": []}
                payload = b"" if status == 304 else json.dumps(answer).encode()
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, status: int, headers: Optional[Dict[str, str]] = None, body: Any = None) -> None:
        with self.lock:
            self.answers.append((status, headers or {}, body))

    def route(self, method: str, path: str, status: int, body: Any) -> None:
        """Answers every ``method path`` request (the path with its query) with ``status`` and ``body``."""
        with self.lock:
            self.routes[(method, path)] = (status, body)

    def respond(self, method: str, path: str, responder: Responder) -> None:
        """Answers every ``method path`` request with what ``responder`` returns for it: (status, headers, body)."""
        with self.lock:
            self.responders[(method, path)] = responder

    def wait_for_requests(self, count: int, timeout_s: float = 5.0) -> List[Dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        with self.lock:
            while len(self.requests) < count and time.monotonic() < deadline:
                self.arrived.wait(deadline - time.monotonic())
            return list(self.requests)

    def events(self) -> List[Dict[str, Any]]:
        with self.lock:
            return [event for request in self.requests for event in request["body"].get("events", [])]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
