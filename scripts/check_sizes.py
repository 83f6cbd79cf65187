#!/usr/bin/env python3
"""Size limits that keep modules one concept each: no source file in runtime/, web/src/ or scripts/
over 400 lines, and no class in runtime/ (Python) or web/src/ (TypeScript, JavaScript) with more than
20 methods (a TypeScript class's constructor, getters, setters and function-valued properties count:
sizelib/ts_classes.py). Exits 1 naming each offender.
Generated files (``*.gen.ts``) count too: the generator splits what it writes by concept (types, field tables).

    python scripts/check_sizes.py
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scripts.sizelib.ts_classes import classes as ts_classes

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("runtime", "web/src", "scripts")
SOURCE_SUFFIXES = {".py", ".ts", ".mjs", ".js", ".css", ".html", ".sh", ".j2"}
SCRIPT_SUFFIXES = {".ts", ".mjs", ".js"}
MAX_LINES = 400
MAX_METHODS = 20


def tracked_sources() -> list[Path]:
    """The tracked (and new, not ignored) source files under FOLDERS."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *FOLDERS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return [
        ROOT / name
        for name in listed
        if Path(name).suffix in SOURCE_SUFFIXES and (ROOT / name).is_file()
    ]


def long_files(paths: list[Path]) -> list[str]:
    out = []
    for path in paths:
        lines = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        if lines > MAX_LINES:
            out.append(f"{path.relative_to(ROOT)}: {lines} lines (at most {MAX_LINES}); split it by concept")
    return out


def big_classes(paths: list[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        relative = path.relative_to(ROOT)
        if path.suffix == ".py" and relative.parts[0] == "runtime":
            found = python_classes(path)
        elif path.suffix in SCRIPT_SUFFIXES and relative.parts[:2] == ("web", "src"):
            found = [(c.name, c.line, len(c.methods)) for c in ts_classes(path.read_text(encoding="utf-8"))]
        else:
            continue
        out.extend(
            f"{relative}:{line}: class {name} has {count} methods (at most {MAX_METHODS})"
            for name, line, count in found
            if count > MAX_METHODS
        )
    return out


def python_classes(path: Path) -> list[tuple[str, int, int]]:
    """(name, line, number of methods) of each class in a Python file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
            found.append((node.name, node.lineno, len(methods)))
    return found


def main() -> int:
    paths = tracked_sources()
    problems = long_files(paths) + big_classes(paths)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"sizes ok: {len(paths)} files, none over {MAX_LINES} lines; no class over {MAX_METHODS} methods")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
