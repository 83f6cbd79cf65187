"""The repository stands alone: nothing tracked reads a path beside the checkout (a newcomer's clone has
nothing there; CI clones into an empty folder to prove it)."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIBLING = "sha" + "red"  # the folder beside the development checkout, spelled so this file does not match
PATTERNS = [
    re.compile(r"\.\./" + SIBLING),
    re.compile(r"""["']\.\.["']\s*/\s*["']""" + SIBLING),
    re.compile(r"parents\[\d+\]\s*/\s*[\"']\.\.[\"']"),
]


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    wanted = {".py", ".ts", ".mjs", ".js", ".sh", ".json", ".toml", ""}
    return [ROOT / n for n in names.splitlines() if Path(n).suffix in wanted and (ROOT / n).is_file()]


def test_no_tracked_file_reaches_outside_the_repository() -> None:
    offenders = []
    for path in tracked_text_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        offenders += [f"{path.relative_to(ROOT)}: {p.pattern}" for p in PATTERNS if p.search(text)]
    assert offenders == []


def test_scripts_do_not_import_the_tests() -> None:
    """Tools (server, build, benchmarks, the fake provider) stand on their own; tests may use them, not
    the other way round."""
    offenders = []
    for path in sorted((ROOT / "scripts").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n == "tests" or n.startswith("tests.")]
    assert offenders == []
