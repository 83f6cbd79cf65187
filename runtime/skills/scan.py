"""Can a skill's scripts run here? A static scan of its files for what the Pyodide sandbox cannot do.

Per file: Python (``.py`` or a python shebang) is parsed with ``ast`` and its imports and calls are
checked; shell and other interpreter scripts (``.sh``, ``.bash``, ``.ps1``, ``.bat``, a non-python
shebang) cannot run; native binaries (ELF, Mach-O, PE magic) cannot run. Nothing is executed.

Findings that block a script: a standard-library module Pyodide lacks or cannot use (``subprocess``,
``multiprocessing``, ``socket``, ``tkinter``, ...), process calls (``os.system``, ``os.popen``,
``os.exec*``, ``os.spawn*``, ``os.fork``). A third-party import is a *need*: micropip may install it if a
pure-Python wheel exists, which cannot be known offline (``pure: unknown``), except for a few well-known
packages with native code.

A Python file over ``MAX_SCAN_BYTES`` (1 MiB; real skill scripts are a few KB) is not parsed
(``not-scanned``): parsing costs about a second per 100,000 lines here, and an archive may hold 50 MiB
of them. One nested too deep for the parser is a ``syntax-error``, like one that does not parse.

Verdict per skill: ``instructions-only`` when nothing can run here (no scripts, or every script is
blocked); ``needs`` when the runnable scripts import third-party packages (listed in ``needs``);
``runnable`` otherwise. Findings are listed either way.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

FindingKind = Literal[
    "unavailable-module",
    "process-call",
    "third-party",
    "shell-script",
    "native-binary",
    "syntax-error",
    "not-scanned",
]
SkillVerdict = Literal["runnable", "instructions-only", "needs"]
BLOCKING: frozenset[FindingKind] = frozenset({"unavailable-module", "process-call", "shell-script", "native-binary"})

UNAVAILABLE_MODULES: dict[str, str] = {
    "subprocess": "no processes in the browser",
    "multiprocessing": "no processes in the browser",
    "socket": "no raw sockets in the browser",
    "socketserver": "cannot listen on sockets",
    "ssl": "no raw sockets in the browser",
    "selectors": "no raw sockets in the browser",
    "select": "no raw sockets in the browser",
    "asyncio.subprocess": "no processes in the browser",
    "concurrent.futures.process": "no processes in the browser",
    "http.server": "cannot listen on sockets",
    "xmlrpc.server": "cannot listen on sockets",
    "wsgiref.simple_server": "cannot listen on sockets",
    "ftplib": "no raw sockets in the browser",
    "smtplib": "no raw sockets in the browser",
    "telnetlib": "no raw sockets in the browser",
    "tkinter": "no desktop GUI",
    "turtle": "no desktop GUI",
    "turtledemo": "no desktop GUI",
    "idlelib": "removed from Pyodide",
    "curses": "no terminal",
    "readline": "no terminal",
    "pty": "no terminal",
    "tty": "no terminal",
    "termios": "no terminal",
    "dbm": "removed from Pyodide",
    "pwd": "no operating-system accounts",
    "grp": "no operating-system accounts",
    "resource": "no operating-system resources",
    "venv": "removed from Pyodide",
    "ensurepip": "removed from Pyodide",
    "lib2to3": "removed from Pyodide",
    "webbrowser": "cannot open a browser from the sandbox",
}
PROCESS_CALLS = frozenset(
    {"system", "popen", "fork", "forkpty", "startfile", "posix_spawn", "posix_spawnp", "kill", "killpg"}
)
PROCESS_PREFIXES = ("exec", "spawn")
PROCESS_FUNCTIONS = frozenset({"asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell", "pty.spawn"})
NATIVE_PACKAGES = frozenset(
    {
        "numpy",
        "pandas",
        "scipy",
        "matplotlib",
        "lxml",
        "pillow",
        "opencv-python",
        "scikit-learn",
        "pymupdf",
        "cryptography",
        "psycopg2",
        "torch",
        "tensorflow",
        "pydantic-core",
        "reportlab",
    }
)
DISTRIBUTIONS = {
    "PIL": "pillow",
    "yaml": "pyyaml",
    "bs4": "beautifulsoup4",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "dateutil": "python-dateutil",
    "fitz": "pymupdf",
    "pydantic_core": "pydantic-core",
}
MAX_SCAN_BYTES = 1024 * 1024
SHELL_SUFFIXES = frozenset({".sh", ".bash", ".zsh", ".ps1", ".bat", ".cmd"})
NATIVE_SUFFIXES = frozenset({".so", ".dylib", ".dll", ".exe"})
_MACHO = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")


@dataclass(frozen=True)
class Finding:
    path: str
    kind: FindingKind
    detail: str
    line: int = 0


@dataclass(frozen=True)
class ScanResult:
    verdict: SkillVerdict
    needs: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    scripts: tuple[str, ...] = ()

    @property
    def blockers(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.kind in BLOCKING)


def scan_skill(files: Mapping[str, bytes]) -> ScanResult:
    """Scan a skill's files (paths relative to the skill folder) and give the verdict."""
    local = _local_modules(files)
    findings: list[Finding] = []
    scripts: list[str] = []
    runnable: list[str] = []
    for path in sorted(files):
        found = scan_file(path, files[path], local)
        if found is None:
            continue
        scripts.append(path)
        findings.extend(found)
        if not any(f.kind in BLOCKING for f in found):
            runnable.append(path)
    needs = sorted({f.detail.split(" ")[0] for f in findings if f.kind == "third-party" and f.path in runnable})
    verdict: SkillVerdict = "instructions-only" if not runnable else ("needs" if needs else "runnable")
    return ScanResult(verdict, tuple(needs), tuple(findings), tuple(scripts))


def scan_file(path: str, data: bytes, local: frozenset[str] = frozenset()) -> list[Finding] | None:
    """Findings for one file, or ``None`` when it is not a script (documents, images, data)."""
    suffix = PurePosixPath(path).suffix.lower()
    if _is_native(data) or suffix in NATIVE_SUFFIXES:
        return [Finding(path, "native-binary", "a native executable or library cannot run in the browser")]
    interpreter = _shebang(data)
    if suffix in SHELL_SUFFIXES or (interpreter and "python" not in interpreter):
        return [Finding(path, "shell-script", f"{interpreter or suffix} scripts cannot run in the browser")]
    if suffix == ".py" or (interpreter and "python" in interpreter):
        return scan_python(path, data, local)
    return None


def _is_native(data: bytes) -> bool:
    if data.startswith(b"\x7fELF") or data.startswith(_MACHO):
        return True
    if data.startswith(b"MZ") and len(data) >= 64:
        offset = int.from_bytes(data[60:64], "little")
        return data[offset : offset + 4] == b"PE\x00\x00"
    return False


def _shebang(data: bytes) -> str:
    if not data.startswith(b"#!"):
        return ""
    first = data[2:200].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    words = first.split()
    if not words:
        return ""
    program = PurePosixPath(words[0]).name
    return words[1] if program == "env" and len(words) > 1 else program


def _local_modules(files: Mapping[str, bytes]) -> frozenset[str]:
    names: set[str] = set()
    for path in files:
        p = PurePosixPath(path)
        if p.suffix == ".py":
            names.add(p.stem)
            names.update(p.parts[:-1])
    return frozenset(names)


def scan_python(path: str, data: bytes, local: frozenset[str] = frozenset()) -> list[Finding]:
    if len(data) > MAX_SCAN_BYTES:
        detail = f"not scanned: {len(data):,} bytes, over the {MAX_SCAN_BYTES // (1024 * 1024)} MiB scanned per script"
        return [Finding(path, "not-scanned", detail)]
    try:
        tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # the last two: nested too deep
        line = getattr(exc, "lineno", 0) or 0
        return [Finding(path, "syntax-error", f"could not be parsed here: {exc.__class__.__name__}", line)]
    findings: list[Finding] = []
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                aliases[bound] = alias.name if alias.asname else bound
                findings.extend(_module_findings(path, alias.name, node.lineno, local))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            findings.extend(_module_findings(path, node.module, node.lineno, local))
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                qualified = f"{node.module}.{alias.name}"
                findings.extend(_module_findings(path, qualified, node.lineno, local, exact=True))
    findings.extend(_call_findings(path, tree, aliases))
    return _dedupe(findings)


def _module_findings(path: str, module: str, line: int, local: frozenset[str], exact: bool = False) -> list[Finding]:
    top = module.split(".")[0]
    if exact:
        reason = UNAVAILABLE_MODULES.get(module)
        return [Finding(path, "unavailable-module", f"{module}: {reason}", line)] if reason else []
    for candidate in _prefixes(module):
        if candidate in UNAVAILABLE_MODULES:
            return [Finding(path, "unavailable-module", f"{candidate}: {UNAVAILABLE_MODULES[candidate]}", line)]
    if top in sys.stdlib_module_names or top in local or top == "__future__":
        return []
    dist = DISTRIBUTIONS.get(top, top.lower().replace("_", "-"))
    pure = "no (native code; only if Pyodide ships it)" if dist in NATIVE_PACKAGES else "unknown"
    return [Finding(path, "third-party", f"{dist} (pure: {pure})", line)]


def _prefixes(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _call_findings(path: str, tree: ast.AST, aliases: dict[str, str]) -> list[Finding]:
    out: list[Finding] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func, aliases)
        if name is None:
            continue
        module, _, attr = name.rpartition(".")
        is_os_call = module in ("os", "posix") and (attr in PROCESS_CALLS or attr.startswith(PROCESS_PREFIXES))
        if is_os_call or name in PROCESS_FUNCTIONS:
            out.append(Finding(path, "process-call", f"{name}(): starts a process", node.lineno))
    return out


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    out: list[Finding] = []
    for f in findings:
        if (f.kind, f.detail) not in seen:
            seen.add((f.kind, f.detail))
            out.append(f)
    return out
