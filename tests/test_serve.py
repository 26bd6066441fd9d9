"""`kgb serve` (threat 37): eight concurrent requests (honest, wrong, PyTorch-fallback kernels,
an archive) answered with the right verdicts; hostile requests (oversized, malformed, deep,
unknown task, bombs, no/wrong token, chunked) answered 4xx with one line and the server still
up; kgb's own failure and a passed deadline answered as infra_error (503/504), never a verdict."""

from __future__ import annotations

import base64
import http.client
import io
import json
import socket
import tarfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT, trimmed_suite

from kgb.serve.http import KgbServer, ServeOptions
from kgb.verifier import Verifier

RELU = (ROOT / "tasks/Activation/relu/solution.py").read_text()
ADDCMUL = (ROOT / "tasks/Math/addcmul/solution.py").read_text()
RELU_WRONG = RELU.replace("tl.where(x > 0.0, x, 0.0)", "tl.where(x > 0.0, x, 0.1 * x)")
ADDCMUL_WRONG = ADDCMUL.replace("0.5 * t1 * t2", "0.25 * t1 * t2")
RELU_TORCH = RELU.replace("    return out", "    return torch.relu(x)")
ADDCMUL_TORCH = ADDCMUL.replace("    return out", "    return torch.addcmul(x, t1, t2, value=0.5)")
TOKEN = "a-test-token-0123456789abcdef"


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return trimmed_suite(tmp_path_factory.mktemp("suite"), ["activation.relu", "math.addcmul"],
                         shapes=1)


@contextmanager
def serving(suite: Path, token: str | None = None, max_request_bytes: int = 1 << 20,
            queue: int = 6, max_connections: int = 64, servers: list | None = None,
            **verifier: object) -> Iterator[int]:
    """A server on a free port (`servers` receives the server object, for its counters)."""
    settings = {"slots": 2, "device": "cpu", "sandbox": "process", **verifier}
    with Verifier(tasks=suite, **settings) as v:  # type: ignore[arg-type]
        server = KgbServer(ServeOptions(port=0, token=token, queue=queue,
                                        max_request_bytes=max_request_bytes,
                                        max_connections=max_connections), v)
        if servers is not None:
            servers.append(server)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()
            server.server_close()


def call(port: int, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    raw = response.read()
    assert raw.count(b"\n") == 1, raw  # one line, never a traceback or an HTML page
    return response.status, json.loads(raw)


def post(port: int, data: object, token: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return call(port, "POST", "/v1/verify", json.dumps(data).encode(), headers)


def archive(files: dict[str, bytes], gz: bool = False) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gz else "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


MANIFEST = b'[submission]\nname = "s"\n[[kernels]]\ntask = "math.addcmul"\nfile = "kernels/k.py"\n'


def healthy(port: int) -> bool:
    return call(port, "GET", "/v1/health") == (200, {"status": "ok", "slots": 2, "in_flight": 0})


def test_hostile_requests_get_one_line_4xx_and_the_server_stays_up(suite):
    with serving(suite, max_request_bytes=256 << 10) as port:
        assert post(port, ["not", "an", "object"])[0] == 400
        status, body = call(port, "POST", "/v1/verify", b'{"task": "activation.relu", ',
                            {"Content-Type": "application/json"})
        assert status == 400 and "not valid JSON" in body["error"]
        status, body = call(port, "POST", "/v1/verify", b"[" * 5000 + b"]" * 5000)
        assert status == 400 and "nested deeper" in body["error"]
        status, body = post(port, {"task": "activation.rleu", "source": RELU})
        assert status == 404 and "did you mean activation.relu" in body["error"]
        assert post(port, {"task": "activation.relu", "source": RELU, "x": 1})[0] == 400
        assert post(port, {"task": "activation.relu", "source": 3})[0] == 400
        status, body = post(port, {"task": "activation.relu", "source": "#" * (300 << 10)})
        assert status == 413 and "262144-byte cap" in body["error"]
        # a Content-Length far over the cap is refused before a byte of the body is read
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.putrequest("POST", "/v1/verify")
        conn.putheader("Content-Length", str(1 << 40))
        conn.endheaders()
        assert conn.getresponse().status == 413
        for length in ("²", "-1", "12x"):  # str.isdigit() is true for "²"; int() is not
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.putrequest("POST", "/v1/verify")
            conn.putheader("Content-Length", length)
            conn.endheaders()
            response = conn.getresponse()
            assert response.status == 400, (length, response.read())
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.putrequest("POST", "/v1/verify")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        assert conn.getresponse().status == 411
        # a gzip bomb: 100 MiB of zeros in ~100 KiB, refused before it is unpacked
        bomb = archive({"manifest.toml": MANIFEST, "kernels/k.py": bytes(100 << 20)}, gz=True)
        assert len(bomb) < 200 << 10
        status, body = call(port, "POST", "/v1/verify", bomb,
                            {"Content-Type": "application/gzip"})
        assert status == 413 and "unpacks to more than" in body["error"]
        # a member over the kernel file cap, a link, garbage, an unknown task in a manifest
        for files, words in (({"manifest.toml": MANIFEST, "kernels/k.py": bytes(5 << 20)}, "cap"),
                             ({"manifest.toml": MANIFEST}, "does not contain"),
                             ({"kernels/k.py": b"x"}, "manifest.toml")):
            status, body = post(port, {"archive": base64.b64encode(
                archive(files, gz=True)).decode()})
            assert status == 400 and words in body["error"], body
        status, body = call(port, "POST", "/v1/verify", b"not a tar at all",
                            {"Content-Type": "application/x-tar"})
        assert status == 400, body
        unknown = MANIFEST.replace(b"math.addcmul", b"math.adcmul")
        status, body = post(port, {"archive": base64.b64encode(
            archive({"manifest.toml": unknown, "kernels/k.py": b"x"})).decode()})
        assert status == 404 and "did you mean math.addcmul" in body["error"]
        assert post(port, {"archive": "@@@"})[0] == 400
        assert call(port, "POST", "/v1/verify", b"x", {"Content-Type": "text/plain"})[0] == 415
        assert call(port, "GET", "/v1/results/someone-else")[0] == 404
        assert healthy(port)


def test_a_token_is_required_when_set_and_off_loopback(suite):
    with serving(suite, token=TOKEN) as port:
        assert post(port, {"task": "activation.relu", "source": RELU})[0] == 401
        assert post(port, {"task": "activation.relu", "source": RELU}, token=TOKEN + "x")[0] \
            == 401
        # the right token gets past the check (to the task id's own 404)
        assert post(port, {"task": "no.such", "source": RELU}, token=TOKEN)[0] == 404
        assert healthy(port)
    from kgb.errors import BadInput

    with Verifier(tasks=suite, device="cpu", sandbox="process") as v, \
            pytest.raises(BadInput, match="not a loopback address"):
        KgbServer(ServeOptions(host="0.0.0.0", port=0), v)


class _SlowSecondUse:
    """The server's count lock, slow on its second use (the request's decrement)."""

    def __init__(self) -> None:
        self.lock, self.uses = threading.Lock(), 0

    def __enter__(self) -> None:
        self.lock.acquire()
        self.uses += 1
        if self.uses == 2:
            time.sleep(0.5)

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def test_a_refused_request_stops_counting_before_it_is_answered(suite, monkeypatch):
    """A client that got its 4xx and asks /v1/health at once sees no request in flight (the
    refusal went out before the count dropped: the token test's health check failed at load
    20-30)."""
    original = KgbServer.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.count_lock = _SlowSecondUse()

    monkeypatch.setattr(KgbServer, "__init__", init)
    with serving(suite, warm="off") as port:
        assert post(port, {"task": "no.such", "source": RELU})[0] == 404
        assert healthy(port)


@pytest.mark.parametrize("warm", ["off", "on"])
def test_kgb_failures_and_deadlines_are_infra_errors_not_verdicts(suite, warm):
    with serving(suite, sandbox="no-such-backend", warm=warm) as port:
        status, body = post(port, {"task": "activation.relu", "source": RELU})
        assert status == 503 and body["status"] == "infra_error", body
        assert body["reward_ready"] == {"correct": False, "speedup": None, "infra_failure": True}
        assert body["verdict"] == "infra_error" and "no-such-backend" in body["message"]
    with serving(suite, deadline_s=1.0, warm=warm) as port:  # nothing finishes in a second
        status, body = post(port, {"task": "activation.relu", "source": RELU})
        assert status == 504 and body["infra_failure"] and "deadline" in body["message"], body
        assert healthy(port)  # the slot is free again


class Blocking:
    """An executor whose verifications last until released: the admission limits, alone."""

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()

    def run(self, request, cancel):
        from kgb.api import infra_result

        self.started.set()
        self.release.wait(30)
        return (infra_result(request.tasks[0], "released"),)


def _free_places(server, expected: int, within_s: float = 10.0) -> bool:
    """Wait until the server holds the connections the test expects (a handler thread gives
    its place back after its client has read the answer: on a busy machine, a while after)."""
    deadline = time.monotonic() + within_s
    while server.connections._value != expected:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_admission_and_connection_caps_answer_503_at_once(suite):
    blocking, servers = Blocking(), []
    with serving(suite, queue=0, max_connections=3, slots=1, executor=blocking,
                 servers=servers) as port, ThreadPoolExecutor(1) as pool:
        first = pool.submit(post, port, {"task": "activation.relu", "source": RELU})
        assert blocking.started.wait(10)
        status, body = post(port, {"task": "activation.relu", "source": RELU})
        assert status == 503 and "busy" in body["error"]
        assert _free_places(servers[0], 2)  # the refused request's place is back
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        try:  # the first request's connection and two idle ones fill the 3 places
            assert _free_places(servers[0], 0)
            status, body = call(port, "GET", "/v1/health")
            assert status == 503 and "too many connections" in body["error"]
        finally:
            for sock in idle:
                sock.close()
        blocking.release.set()
        assert first.result(timeout=30)[0] == 503
        assert _free_places(servers[0], 3)
        assert call(port, "GET", "/v1/health")[0] == 200


@pytest.mark.slow
def test_eight_concurrent_requests_get_the_right_verdicts(suite):
    requests: list[tuple[object, str, str | None]] = [
        ({"task": "activation.relu", "source": RELU}, "passed", None),
        ({"task": "math.addcmul", "source": ADDCMUL}, "passed", None),
        ({"task": "activation.relu", "source": RELU_WRONG}, "incorrect", None),
        ({"task": "math.addcmul", "source": ADDCMUL_WRONG}, "incorrect", None),
        ({"task": "activation.relu", "source": RELU_TORCH}, "rejected", None),
        ({"task": "math.addcmul", "source": ADDCMUL_TORCH}, "rejected", "S110"),
        ({"task": "activation.relu", "source": "import torch\ndef run(x):\n    return x.relu()\n"},
         "rejected", None),
        ({"archive": base64.b64encode(archive({"manifest.toml": MANIFEST,
                                               "kernels/k.py": ADDCMUL.encode()})).decode()},
         "passed", None),
    ]
    with serving(suite) as port, ThreadPoolExecutor(len(requests)) as pool:
        answers = list(pool.map(lambda r: post(port, r[0]), requests))
        for (request, verdict, rule), (status, body) in zip(requests, answers):
            assert status == 200, body
            job = body["jobs"][0] if "jobs" in body else body
            assert job["verdict"] == verdict, (request, job)
            assert job["status"] == "judged" and job["infra_failure"] is False
            assert job["reward_ready"]["correct"] is (verdict == "passed")
            if rule:
                assert job["rule"] == rule
        assert healthy(port)
