"""The web import rule (`.dependency-cruiser.cjs`, `npm run deps`) fails on what it is there to catch:
the page importing the worker, `protocol/` importing another folder, and an import circle. Each case
runs the real dependency-cruiser with the repository's own configuration on a small tree of its own."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPCRUISE = ROOT / "node_modules" / ".bin" / "depcruise"
PING = "import type { Ping } from '../protocol/messages';\n"
TSCONFIG = '{"compilerOptions": {"module": "ESNext", "moduleResolution": "bundler", "strict": true}}\n'
CLEAN = {
    "web/src/protocol/messages.ts": "export type Ping = { type: 'ping' };\n",
    "web/src/worker/agent.ts": PING + "export const p: Ping = { type: 'ping' };\n",
    "web/src/ui/view.ts": PING + "export const v: Ping = { type: 'ping' };\n",
    "web/src/main.ts": "import { v } from './ui/view';\nexport const m = v;\n",
}
BROKEN = {
    "page-imports-worker": {"web/src/ui/view.ts": "import { p } from '../worker/agent';\nexport const v = p;\n"},
    "page-imports-worker (main.ts, type only)": {
        "web/src/main.ts": "import type { p } from './worker/agent';\nexport type M = typeof p;\n"
    },
    "protocol-imports-outside": {
        "web/src/protocol/messages.ts": "import type { v } from '../ui/view';\nexport type Ping = typeof v;\n"
    },
    "no-circular": {
        "web/src/worker/agent.ts": "import type { F } from './fit';\nexport const p = 1;\nexport type A = F;\n",
        "web/src/worker/fit.ts": "import type { p } from './agent';\nexport type F = typeof p;\n",
    },
    "not-to-unresolvable": {"web/src/ui/view.ts": "import { gone } from '../worker/gone';\nexport const v = gone;\n"},
}


def cruise(tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if not DEPCRUISE.exists():
        pytest.fail("node_modules/.bin/depcruise is missing: run `npm ci` (scripts/setup.sh does)")
    shutil.copy(ROOT / ".dependency-cruiser.cjs", tmp_path / ".dependency-cruiser.cjs")
    (tmp_path / "tsconfig.json").write_text(TSCONFIG)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    command = [str(DEPCRUISE), "--config", ".dependency-cruiser.cjs", "web/src"]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)


def test_a_tree_that_keeps_the_rule_passes(tmp_path: Path) -> None:
    done = cruise(tmp_path, CLEAN)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_the_rule_fails_on(tmp_path: Path, case: str) -> None:
    done = cruise(tmp_path, {**CLEAN, **BROKEN[case]})
    assert done.returncode != 0
    assert f"error {case.split(' ')[0]}:" in done.stdout
