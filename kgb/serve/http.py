"""`kgb serve`: POST /v1/verify and GET /v1/health over stdlib HTTP (threat 37).

Bounds: a request body is read only up to `max_request_bytes` (Content-Length required, no
chunked bodies), the socket times out on a client that stops sending, at most `max_connections`
connections are served at once (others are closed at once with 503), at most `slots + queue`
verifications are admitted (others 503 with Retry-After), and each verification has a
deadline (executor.py). Every refusal is a status and one line of JSON; no traceback leaves
the server. Bound to 127.0.0.1 by default; any other address needs a bearer token."""

from __future__ import annotations

import hmac
import ipaddress
import json
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kgb.errors import BadInput
from kgb.serve.body import HttpError, parse_verify
from kgb.serve.executor import DEADLINE_PASSED
from kgb.verifier import Verifier


@dataclass(frozen=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    max_request_bytes: int = 8 << 20
    queue: int | None = None  # verifications waiting for a slot (default: 2 x slots)
    read_timeout_s: float = 30.0  # a client silent this long mid-request is dropped
    max_connections: int = 64


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"--token-file {path}: cannot read it ({exc})") from None
    if len(token) < 16 or any(c.isspace() for c in token):
        raise BadInput(f"--token-file {path}: the token must be one word of 16 or more "
                       "characters (e.g. `python -c 'import secrets; print(secrets."
                       "token_urlsafe())'`)")
    return token


_BUSY = b'{"error": "too many connections at once; retry later"}\n'
TOO_MANY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\nRetry-After: 10\r\nConnection: close\r\n\r\n%s"
            % (len(_BUSY), _BUSY))


class KgbServer(ThreadingHTTPServer):
    daemon_threads = True

    @staticmethod
    def check_address(host: str) -> None:
        if not is_loopback(host):
            raise BadInput(f"--host {host} is not a loopback address: pass --token-file FILE "
                           "so that only holders of the token can verify")

    def __init__(self, options: ServeOptions, verifier: Verifier) -> None:
        if options.token is None:
            self.check_address(options.host)
        self.options, self.verifier = options, verifier
        self.connections = threading.BoundedSemaphore(options.max_connections)
        self.admitted = threading.BoundedSemaphore(
            verifier.slots + (options.queue if options.queue is not None else 2 * verifier.slots))
        self.in_flight = 0
        self.count_lock = threading.Lock()
        self.scratch = Path(tempfile.mkdtemp(prefix="kgb-serve-"))
        try:
            super().__init__((options.host, options.port), Handler)
        except OSError as exc:
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise BadInput(f"cannot listen on {options.host}:{options.port} "
                           f"({exc.strerror})") from None

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.connections.acquire(blocking=False):  # a flood: no thread per socket
            try:
                request.sendall(TOO_MANY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()

    def server_close(self) -> None:
        super().server_close()
        shutil.rmtree(self.scratch, ignore_errors=True)


class Handler(BaseHTTPRequestHandler):
    server: KgbServer
    server_version = "kgb-serve"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.options.read_timeout_s)  # no endless request

    # ------------------------------------------------------------------ answers
    def _send(self, status: int, data: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        body = (json.dumps(data) + "\n").encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client left: nothing to tell it
            pass
        self.close_connection = True

    def _error(self, status: int, message: str, extra: dict[str, str] | None = None) -> None:
        self._send(status, {"error": " ".join(message.split())[:500]}, extra)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (bad request line, oversized headers, unknown method):
        JSON and one line, like ours."""
        self._error(code, message or self.responses.get(code, ("error",))[0])

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"kgb serve: {self.address_string()} {format % args}\n")

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except TimeoutError:
            self._error(408, f"no data for {self.server.options.read_timeout_s:g} s; the "
                             "request was dropped")
        except Exception as exc:
            self.log_message("internal error: %s", type(exc).__name__)
            self._error(500, f"internal error ({type(exc).__name__}); the server is still up")

    # ------------------------------------------------------------------ endpoints
    def do_GET(self) -> None:
        if self.path.split("?")[0] != "/v1/health":
            self._error(404, f"no such endpoint {self.path[:80]!r}: GET /v1/health, "
                             "POST /v1/verify")
            return
        server = self.server
        self._send(200, {"status": "ok", "slots": server.verifier.slots,
                         "in_flight": server.in_flight})

    def do_POST(self) -> None:
        if self.path.split("?")[0] != "/v1/verify":
            self._error(404, f"no such endpoint {self.path[:80]!r}: POST /v1/verify")
            return
        if not self._authorized():
            self._error(401, "missing or wrong token: send Authorization: Bearer TOKEN",
                        {"WWW-Authenticate": "Bearer"})
            return
        try:
            body = self._body()
        except HttpError as exc:
            self._error(exc.status, exc.message)
            return
        if not self.server.admitted.acquire(blocking=False):
            self._error(503, "busy: every slot and queue place is taken; retry later",
                        {"Retry-After": "10"})
            return
        try:
            self._verify(body)
        finally:
            self.server.admitted.release()

    def _authorized(self) -> bool:
        token = self.server.options.token
        if token is None:
            return True
        given = self.headers.get("Authorization", "")
        return hmac.compare_digest(given.encode("utf-8", "replace"),
                                   f"Bearer {token}".encode())

    def _body(self) -> bytes:
        if "Transfer-Encoding" in self.headers:
            raise HttpError(411, "chunked bodies are not accepted; send a Content-Length")
        length = self.headers.get("Content-Length")
        if length is None:
            raise HttpError(411, "a Content-Length header is required")
        if not (length.strip().isascii() and length.strip().isdigit()):  # not "²" or "+1"
            raise HttpError(400, "Content-Length is not a number")
        size, cap = int(length), self.server.options.max_request_bytes
        if size > cap:
            raise HttpError(413, f"request body of {size} bytes is over the {cap}-byte cap "
                                 "(kgb serve --max-request-bytes)")
        body = self.rfile.read(size)  # the socket timeout bounds a client that stalls
        if len(body) != size:
            raise HttpError(400, f"the body ended after {len(body)} of {size} bytes")
        return body

    def _verify(self, body: bytes) -> None:
        server = self.server
        scratch = Path(tempfile.mkdtemp(prefix="req-", dir=server.scratch))
        with server.count_lock:
            server.in_flight += 1
        refused: tuple[int, str] | None = None
        try:
            request = parse_verify(body, self.headers.get("Content-Type", ""),
                                   server.verifier.index, scratch)
            results = server.verifier.submit(request).result()
        except HttpError as exc:
            refused = (exc.status, exc.message)
        except BadInput as exc:
            refused = (400, exc.message)
        finally:  # before any answer: a client's next /v1/health must not count this one
            with server.count_lock:
                server.in_flight -= 1
            shutil.rmtree(scratch, ignore_errors=True)
        if refused is not None:
            self._error(*refused)
            return
        infra = [r for r in results if r.infra_failure]
        status = 200 if not infra else 504 if infra[0].message == DEADLINE_PASSED else 503
        if request.submission is None:
            self._send(status, results[0].as_json())
        else:
            self._send(status, {"status": "infra_error" if infra else "judged",
                                "infra_failure": bool(infra),
                                "jobs": [r.as_json() for r in results]})
