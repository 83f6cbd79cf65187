#!/usr/bin/env python3
"""Put everything the browser runtime needs under web/public/ so Vite copies it into dist/.

- web/public/pyodide/: the Pyodide core from the `pyodide` npm package (no CDN at run time).
- web/public/wheels/: every wheel the runtime imports, pinned in pyproject.toml, downloaded from PyPI
  as pure-Python wheels (MarkupSafe and PyYAML are built from their sdists without their C extensions), plus the
  runtime's own wheel, and manifest.json listing them in install order. The app imports them as zip files
  on `sys.path` (web/src/worker/wheels.ts), nothing unpacked. Each also holds its modules' bytecode,
  compiled by the shipped Pyodide (scripts/precompile_wheels.mjs), so nothing is compiled from source in
  the browser: the runtime's start-up modules import in 0.2 s instead of 0.5 s, Jinja2 at the first
  prompt rendered in ~0.1 s instead of ~0.3 s.
- web/public/wheels/sandbox/: the wheels the run_python sandbox installs at start (micropip, packaging,
  pyodide-http, the versions in Pyodide's own lock file), with their own manifest.json. The runtime does
  not install them. The manifest's `on_import` groups are installed by the sandbox only when a run's code
  imports one of their modules (pygal for plots, with its pure-Python dependencies), from these files,
  with no network.

Downloads are cached in build/wheel-cache/; run again and only what is missing is fetched.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "web" / "public"
CACHE = ROOT / "build" / "wheel-cache"
PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]

# sqlite-utils declares `pip` as a dependency, which the browser neither needs nor can use: its real
# dependencies are listed here and it is installed without resolving dependencies.
EXTRA_BROWSER_WHEELS = [
    "click==8.5.1",
    "click-default-group==1.2.4",
    "pluggy==1.7.0",
    "python-dateutil==2.9.0.post0",
    "six==1.17.0",
    "sqlite-fts4==1.0.3",
    "tabulate==0.10.0",
]
# Built from the sdist with no C compiler: MarkupSafe falls back to pure Python by itself; PyYAML's
# setup builds its optional libyaml extension unless PYYAML_FORCE_LIBYAML=0 leaves it out (without it,
# the wheel would be tagged for this CPython although it holds only Python; `yaml` then runs without
# `yaml.cyaml`, which it imports only if present).
BUILD_FROM_SDIST = {"markupsafe": {}, "pyyaml": {"PYYAML_FORCE_LIBYAML": "0"}}
# The sandbox's wheels: pure Python, for the Python the sandbox runs (Pyodide's), not the one building.
SANDBOX_WHEELS = ["micropip==0.11.1", "packaging==26.1", "pyodide-http==0.2.2"]
SANDBOX_PYTHON = "3.14"
# Installed in the sandbox when code imports one of `imports`. pygal: charts as SVG in pure Python (numpy
# and matplotlib have no Emscripten wheels for this Pyodide on the registries; see docs/architecture.md).
# importlib-metadata (pygal imports it), with zipp and lazy-importer: pure Python too.
SANDBOX_ON_IMPORT = [
    (["pygal"], ["pygal==3.1.3", "importlib-metadata==10.2.0", "zipp==4.1.2", "lazy-importer==0.1.0"]),
]



def pinned_requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *EXTRA_BROWSER_WHEELS]


def pip(*args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True, env=env)


def fetch_wheel(req: str, python_version: str | None = None) -> Path:
    name, version = req.split("==")
    norm = name.lower().replace("-", "_")
    found = [p for p in CACHE.glob("*.whl") if p.name.lower().startswith(f"{norm}-{version}-")]
    if found:
        return found[0]
    if name.lower() in BUILD_FROM_SDIST:
        build_pure_wheel(req, BUILD_FROM_SDIST[name.lower()])
    else:
        target = ["--python-version", python_version] if python_version else []
        pip("download", "-q", "--no-deps", "--only-binary=:all:", "--platform", "any", *target, "-d", str(CACHE), req)
    return fetch_wheel(req, python_version)


def build_pure_wheel(req: str, extra_env: dict[str, str]) -> Path:
    """Build `req` from its sdist into the cache without a C compiler; refuse anything but a py3-none-any wheel."""
    env = {**os.environ, "CC": "/bin/false", **extra_env}
    out = Path(tempfile.mkdtemp(prefix="tidepool-sdist-"))
    try:
        # --no-cache-dir: pip's own cache may hold a build of the same version with the C extension.
        pip(
            "wheel",
            "-q",
            "--no-cache-dir",
            "--no-deps",
            "--no-binary",
            req.split("==")[0],
            "-w",
            str(out),
            req,
            env=env,
        )
        (wheel,) = out.glob("*.whl")
        if not wheel.name.endswith("-py3-none-any.whl"):
            sys.exit(f"build_wheels: {wheel.name} is not a pure-Python wheel; the browser cannot install it")
        return Path(shutil.move(wheel, CACHE / wheel.name))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def build_runtime_wheel(out: Path | None = None) -> Path:
    """Build the runtime's own wheel from a private copy of the sources (parallel builds don't collide)."""
    work = Path(tempfile.mkdtemp(prefix="tidepool-runtime-"))
    try:
        shutil.copy2(ROOT / "pyproject.toml", work / "pyproject.toml")
        shutil.copytree(ROOT / "runtime", work / "runtime", ignore=shutil.ignore_patterns("__pycache__"))
        dest = out or (ROOT / "build" / "runtime-wheel")
        dest.mkdir(parents=True, exist_ok=True)
        for old in dest.glob("tidepool_runtime-*.whl"):
            old.unlink()
        pip("wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dest), str(work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (wheel,) = dest.glob("tidepool_runtime-*.whl")
    return wheel


def copy_pyodide() -> None:
    src = ROOT / "node_modules" / "pyodide"
    if not src.is_dir():
        sys.exit("node_modules/pyodide is missing: run `npm ci` first")
    dst = PUBLIC / "pyodide"
    dst.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copy2(src / name, dst / name)


def copy_wheels(folder: Path, wheels: list[Path], precompile: Sequence[Path] = ()) -> list[dict[str, str]]:
    """Copy `wheels` into `folder` (those in `precompile` with their modules' bytecode added); their
    manifest entries, in this order."""
    folder.mkdir(parents=True, exist_ok=True)
    copies = [folder / wheel.name for wheel in wheels]
    for wheel, copy in zip(wheels, copies, strict=True):
        shutil.copy2(wheel, copy)
    compiled = [folder / wheel.name for wheel in precompile]
    if compiled:
        script = ROOT / "scripts" / "precompile_wheels.mjs"
        subprocess.run(["node", str(script), str(PUBLIC / "pyodide"), *map(str, compiled)], check=True,
                       stdout=subprocess.DEVNULL)
    return [{"file": c.name, "sha256": hashlib.sha256(c.read_bytes()).hexdigest()} for c in copies]


OnImport = Sequence[tuple[list[str], list[Path]]]


def write_folder(folder: Path, wheels: list[Path], on_import: OnImport = (), precompile: Sequence[Path] = ()) -> int:
    """Copy `wheels` into `folder` with a manifest.json listing them in this order (and the `on_import`
    groups: wheels to install when code imports one of the names); returns how many wheels."""
    manifest: dict[str, object] = {"wheels": copy_wheels(folder, wheels, precompile)}
    groups = [{"imports": names, "wheels": copy_wheels(folder, group)} for names, group in on_import]
    if groups:
        manifest["on_import"] = groups
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return len(wheels) + sum(len(group) for _, group in on_import)


def main() -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    copy_pyodide()
    wheels_dir = PUBLIC / "wheels"
    staging = Path(tempfile.mkdtemp(prefix=".wheels-", dir=PUBLIC))
    own = Path(tempfile.mkdtemp(prefix="tidepool-wheel-"))
    runtime_wheel = build_runtime_wheel(own)
    wheels = [fetch_wheel(r) for r in pinned_requirements()] + [runtime_wheel]
    count = write_folder(staging, wheels, precompile=wheels)
    on_import = [(names, [fetch_wheel(r, SANDBOX_PYTHON) for r in reqs]) for names, reqs in SANDBOX_ON_IMPORT]
    count += write_folder(staging / "sandbox", [fetch_wheel(r, SANDBOX_PYTHON) for r in SANDBOX_WHEELS], on_import)
    # Swap the finished folder into place so a concurrent reader never sees a half-written one.
    old = PUBLIC / f".wheels-old-{os.getpid()}"
    if wheels_dir.exists():
        wheels_dir.rename(old)
    staging.rename(wheels_dir)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(own, ignore_errors=True)
    print(f"build_wheels: {count} wheels and the Pyodide core in {PUBLIC.relative_to(ROOT)}/")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--runtime-only"]:  # tests: just the runtime's wheel, into the folder given
        print(build_runtime_wheel(Path(sys.argv[2])))
    else:
        main()
