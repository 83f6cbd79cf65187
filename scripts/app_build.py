"""The built app: `dist/` rebuilt (`npm run build`) when it is missing or older than its sources.

Used by the benchmarks and the end-to-end tests, so each builds at most once per run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# TIDEPOOL_DIST lets parallel work build and test into a separate folder (default: dist/; an empty value too).
DIST_INDEX = Path(os.environ.get("TIDEPOOL_DIST") or ROOT / "dist").resolve() / "index.html"
SOURCES = ["web", "runtime", "package.json", "package-lock.json", "pyproject.toml", "scripts/build_wheels.py"]
GENERATED = [ROOT / "web" / "public" / "pyodide", ROOT / "web" / "public" / "wheels"]
BUILD_TIMEOUT_S = 900
# The checkout's own folders (and the installed tools): never a build's output folder, which the build empties.
KEPT = {".git", ".ci", ".venv", "node_modules", "docs", "scripts", "tests", *(Path(name).parts[0] for name in SOURCES)}


def newest_source_mtime() -> float:
    newest = 0.0
    for name in SOURCES:
        top = ROOT / name
        paths = [top] if top.is_file() else top.rglob("*")
        for path in paths:
            generated = "__pycache__" in path.parts or any(path.is_relative_to(g) for g in GENERATED)
            if path.is_file() and not generated:
                newest = max(newest, path.stat().st_mtime)
    return newest


def holds_our_files(out: Path) -> bool:
    """Whether emptying `out` would delete the checkout or any of it: it must be a folder of build output."""
    if ROOT.is_relative_to(out):
        return True
    return out.is_relative_to(ROOT) and out.relative_to(ROOT).parts[0] in KEPT


def dist_is_stale() -> bool:
    return not DIST_INDEX.is_file() or DIST_INDEX.stat().st_mtime < newest_source_mtime()


def ensure_built() -> Path:
    """Run `npm run build` if needed, with this interpreter's folder first on PATH (the build calls python3)."""
    if dist_is_stale():
        out = DIST_INDEX.parent
        if holds_our_files(out):  # the build empties its folder first
            raise RuntimeError(f"TIDEPOOL_DIST={out} would be emptied by the build; name a folder of its own")
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        cmd = ["npm", "run", "build", "--", "--outDir", str(out), "--emptyOutDir"]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
        if done.returncode != 0:
            raise RuntimeError(f"npm run build failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return DIST_INDEX.parent
