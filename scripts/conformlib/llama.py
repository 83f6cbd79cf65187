"""One `llama-server` process on 127.0.0.1: started, waited for (it answers 503 while loading), killed."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "scripts" / "conformance_templates" / "qwen2.5-tool-calls.jinja"
ALIAS = "gemma3-270m"
START_TIMEOUT_S = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(port: int, method: str, path: str, body: Any = None, timeout_s: float = 120.0) -> Reply:
    """One HTTP exchange; the body as the server sent it (chunked transfer decoded, nothing else)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s)
    try:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        conn.close()


@dataclass
class LlamaServer:
    """`binary -m model` on a free port with the tool-call template, `-c ctx -n predict --temp 0 --jinja`."""

    binary: Path
    model: Path
    ctx: int = 4096
    predict: int = 256
    cut_predict: int = 18  # an output limit that ends the long tool call inside its arguments (wire.CUT_LIMITS)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log: Path = field(default_factory=lambda: Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1]))

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def argv(self) -> list[str]:
        return [str(self.binary), "-m", str(self.model), "--alias", ALIAS, "--host", "127.0.0.1",
                "--port", str(self.port), "-c", str(self.ctx), "-n", str(self.predict), "--temp", "0", "--jinja",
                "--chat-template-file", str(TEMPLATE), "--parallel", "1"]

    def start(self) -> LlamaServer:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.argv(), stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited ({self.process.returncode}); its log: {self.log}")
            try:
                if request(self.port, "GET", "/health", timeout_s=5).status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.25)
        self.kill()
        raise RuntimeError(f"llama-server did not become ready in {START_TIMEOUT_S:.0f} s; its log: {self.log}")

    def kill(self) -> None:
        """SIGKILL, as a crash or an out-of-memory kill would end it (no goodbye on open connections)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def restart(self, predict: int | None = None) -> LlamaServer:
        self.kill()
        if predict is not None:
            self.predict = predict
        return self.start()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()
