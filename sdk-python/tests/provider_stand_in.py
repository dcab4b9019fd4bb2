"""A local stand-in for the OpenAI and Anthropic APIs, for the real ``openai`` and ``anthropic`` clients pointed at it
with ``base_url``: JSON bodies, or server-sent events for ``stream=True``. Tests queue the answers of the next requests
per path and read back every body the clients sent. The shapes are the providers' documented ones (the same as the
TypeScript SDK's sdk/test/provider-stand-in.ts; openai ``ChatCompletion``, ``ChatCompletionChunk``, ``Response``;
anthropic ``Message``, ``RawMessageStreamEvent``)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

# (id, name, arguments as JSON text)
Call = Tuple[str, str, str]


class ProviderStandIn:
    def __init__(self) -> None:
        self.requests: List[Tuple[str, Dict[str, Any]]] = []
        self.queued: Dict[str, List[Dict[str, Any]]] = {}
        self.lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?")[0]
                with stand_in.lock:
                    stand_in.requests.append((path, body))
                    queue = stand_in.queued.get(path) or []
                    reply = queue.pop(0) if queue else {"json": {"error": {"message": "no answer queued for %s" % path}}, "status": 500}
                if "sse" in reply:
                    payload = "".join(
                        ("event: %s\n" % event if event else "") + "data: %s\n\n" % (data if isinstance(data, str) else json.dumps(data))
                        for event, data in reply["sse"]
                    ).encode()
                    content_type = "text/event-stream"
                else:
                    payload = json.dumps(reply["json"]).encode()
                    content_type = "application/json"
                self.send_response(reply.get("status", 200))
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        port = self.server.server_address[1]
        self.openai_base_url = "http://127.0.0.1:%d/v1" % port
        self.anthropic_base_url = "http://127.0.0.1:%d" % port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, path: str, *replies: Dict[str, Any]) -> None:
        with self.lock:
            self.queued.setdefault(path, []).extend(replies)

    def bodies_of(self, path: str) -> List[Dict[str, Any]]:
        with self.lock:
            return [body for request_path, body in self.requests if request_path == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def halves(text: str) -> List[str]:
    """Arguments streamed in two pieces, neither of them JSON on its own."""
    middle = len(text) // 2
    return [text[:middle], text[middle:]] if len(text) > 1 else [text]


def chat_completion(model: str, calls: List[Call], text: Optional[str] = None) -> Dict[str, Any]:
    message: Dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls" if calls else "stop"}
    return {"json": {"id": "chatcmpl-standin", "object": "chat.completion", "created": 1764000000, "model": model, "choices": [choice]}}


def chat_completion_chunks(model: str, calls: List[Call], text: Optional[str] = None) -> Dict[str, Any]:
    def chunk(delta: Dict[str, Any], finish: Optional[str] = None) -> Tuple[None, Dict[str, Any]]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return (None, {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 1764000000, "model": model, "choices": [choice]})

    events = [chunk({"role": "assistant", "content": text})]
    for index, (call_id, name, arguments) in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}) for piece in halves(arguments)]
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    return {"sse": events + [(None, "[DONE]")]}


def responses_response(model: str, calls: List[Call]) -> Dict[str, Any]:
    output = [
        {"type": "function_call", "id": "fc_" + i, "call_id": i, "name": n, "arguments": a, "status": "completed"} for i, n, a in calls
    ]
    return {
        "json": {
            "id": "resp_standin",
            "object": "response",
            "created_at": 1764000000,
            "status": "completed",
            "model": model,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    }


def anthropic_message(model: str, calls: List[Call], text: Optional[str] = None) -> Dict[str, Any]:
    content: List[Dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": json.loads(a)} for i, n, a in calls]
    return {"json": _message(model, content, bool(calls))}


def anthropic_events(model: str, calls: List[Call]) -> Dict[str, Any]:
    events: List[Tuple[str, Dict[str, Any]]] = [("message_start", {"type": "message_start", "message": {**_message(model, [], bool(calls)), "stop_reason": None}})]
    for index, (call_id, name, arguments) in enumerate(calls):
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": block}))
        for piece in halves(arguments):
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None}
    events.append(("message_delta", {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 5}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return {"sse": events}


def _message(model: str, content: List[Dict[str, Any]], is_tool_use: bool) -> Dict[str, Any]:
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if is_tool_use else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
