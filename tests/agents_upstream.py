"""A real OpenAI-compatible upstream on 127.0.0.1 for the proxy and wrapper tests.

It records every request (path, headers, JSON body), answers chat completions with a
fixed text (as JSON, or as an SSE stream of several chunks), serves /v1/models, and can
be told to misbehave: fail with a 500, or refuse any request carrying a memfs block.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODELS = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "test"}]}


class Upstream:
    def __init__(self, answer: str = "Noted!") -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.mode = "ok"  # ok | fail | refuse_memory
        self.first_chunk_sent = threading.Event()
        self.release_stream = threading.Event()
        self.release_stream.set()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                upstream.requests.append({"method": "GET", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
                self._json(200, MODELS if self.path.rstrip("/").endswith("/models") else {"error": "no"})

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                req = json.loads(body)
                upstream.requests.append({"method": "POST", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                          "body": req})
                if upstream.mode == "fail":
                    self._json(500, {"error": {"message": "upstream exploded", "type": "server_error"}})
                    return
                if upstream.mode == "refuse_memory" and any(
                        m.get("role") == "system" and "memfs" in str(m.get("content")) for m in req["messages"]):
                    self._json(400, {"error": {"message": "no system messages here", "type": "invalid_request"}})
                    return
                if req.get("stream"):
                    self._stream(req)
                else:
                    self._json(200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
                                     "model": req.get("model", "fake-model"),
                                     "choices": [{"index": 0, "finish_reason": "stop",
                                                  "message": {"role": "assistant", "content": upstream.answer}}],
                                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

            def _json(self, status: int, obj: object) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("X-Upstream", "fake")
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, req: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                words = upstream.answer.split(" ")
                for n, word in enumerate(words):
                    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                             "model": req.get("model", "fake-model"),
                             "choices": [{"index": 0, "delta": {"content": (" " if n else "") + word},
                                          "finish_reason": None}]}
                    self._chunk(f"data: {json.dumps(chunk)}\n\n".encode())
                    if n == 0:
                        upstream.first_chunk_sent.set()
                        upstream.release_stream.wait(10)
                    time.sleep(0.01)
                self._chunk(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
