"""The compatibility scan: what in a skill's files cannot run in the Pyodide sandbox."""

from __future__ import annotations

import pytest

from runtime.skills.scan import scan_skill

ELF = b"\x7fELF\x02\x01\x01" + bytes(100)
MACHO = b"\xcf\xfa\xed\xfe" + bytes(100)
PE = b"MZ" + bytes(58) + (64).to_bytes(4, "little") + b"PE\x00\x00" + bytes(20)
DOC = {"SKILL.md": b"---\nname: s\ndescription: d\n---\n"}

CASES = [
    pytest.param({}, "instructions-only", [], [], id="no-scripts"),
    pytest.param({"ref/a.md": b"# notes", "a.pdf": b"%PDF-1.7"}, "instructions-only", [], [], id="documents-only"),
    pytest.param(
        {"s.py": b"import json, pathlib\nfrom collections import Counter\n"}, "runnable", [], [], id="stdlib-only"
    ),
    pytest.param(
        {"s.py": b"import helpers\nfrom .util import x\n", "helpers.py": b"import re\n"},
        "runnable",
        [],
        [],
        id="local-and-relative-imports",
    ),
    pytest.param(
        {"s.py": b"import subprocess\nsubprocess.run(['ls'])\n"},
        "instructions-only",
        [],
        ["unavailable-module"],
        id="subprocess",
    ),
    pytest.param(
        {"s.py": b"from multiprocessing import Pool\n"},
        "instructions-only",
        [],
        ["unavailable-module"],
        id="multiprocessing",
    ),
    pytest.param({"s.py": b"import socket\n"}, "instructions-only", [], ["unavailable-module"], id="socket"),
    pytest.param(
        {"s.py": b"from http.server import HTTPServer\n"},
        "instructions-only",
        [],
        ["unavailable-module"],
        id="http-server",
    ),
    pytest.param({"s.py": b"import tkinter as tk\n"}, "instructions-only", [], ["unavailable-module"], id="tkinter"),
    pytest.param(
        {"s.py": b"import os\nos.system('rm -rf /')\n"}, "instructions-only", [], ["process-call"], id="os-system"
    ),
    pytest.param(
        {"s.py": b"from os import popen as p\np('ls')\n"},
        "instructions-only",
        [],
        ["process-call"],
        id="os-popen-aliased",
    ),
    pytest.param(
        {"s.py": b"import os as o\no.execvp('ls', ['ls'])\n"},
        "instructions-only",
        [],
        ["process-call"],
        id="os-exec-aliased-module",
    ),
    pytest.param(
        {"s.py": b"import asyncio\nasyncio.create_subprocess_exec('ls')\n"},
        "instructions-only",
        [],
        ["process-call"],
        id="asyncio-subprocess",
    ),
    pytest.param(
        {"s.py": b"import os\nos.path.join('a', 'b')\nos.listdir('.')\n"}, "runnable", [], [], id="harmless-os"
    ),
    pytest.param(
        {"s.py": b"import requests\nfrom bs4 import BeautifulSoup\n"},
        "needs",
        ["beautifulsoup4", "requests"],
        ["third-party", "third-party"],
        id="third-party-pure-unknown",
    ),
    pytest.param(
        {"s.py": b"from PIL import Image\nimport yaml\n"},
        "needs",
        ["pillow", "pyyaml"],
        ["third-party", "third-party"],
        id="import-names-mapped-to-distributions",
    ),
    pytest.param({"run.sh": b"echo hi\n"}, "instructions-only", [], ["shell-script"], id="shell-script"),
    pytest.param(
        {"bin/tool": b"#!/usr/bin/env bash\necho hi\n"},
        "instructions-only",
        [],
        ["shell-script"],
        id="bash-shebang-without-suffix",
    ),
    pytest.param(
        {"bin/tool": b"#!/usr/bin/env python3\nimport subprocess\n"},
        "instructions-only",
        [],
        ["unavailable-module"],
        id="python-shebang-without-suffix",
    ),
    pytest.param({"bin/tool": ELF}, "instructions-only", [], ["native-binary"], id="elf"),
    pytest.param({"bin/tool": MACHO}, "instructions-only", [], ["native-binary"], id="mach-o"),
    pytest.param({"tool.exe": PE}, "instructions-only", [], ["native-binary"], id="pe"),
    pytest.param({"lib/fast.so": b"not really"}, "instructions-only", [], ["native-binary"], id="shared-library-name"),
    pytest.param(
        {"notes.txt": b"MZ is not a PE without its header" + bytes(60)},
        "instructions-only",
        [],
        [],
        id="mz-text-is-not-pe",
    ),
    pytest.param(
        {"ok.py": b"import json\n", "setup.sh": b"pip install x\n"},
        "runnable",
        [],
        ["shell-script"],
        id="runnable-script-beside-a-blocked-one",
    ),
    pytest.param(
        {"ok.py": b"import pandas\n", "bad.py": b"import requests\nimport subprocess\n"},
        "needs",
        ["pandas"],
        ["unavailable-module", "third-party", "third-party"],
        id="needs-only-from-runnable",
    ),
    pytest.param({"new.py": b"def f(:\n"}, "runnable", [], ["syntax-error"], id="unparseable-python"),
]


@pytest.mark.parametrize(("files", "verdict", "needs", "kinds"), CASES)
def test_scan(files: dict[str, bytes], verdict: str, needs: list[str], kinds: list[str]) -> None:
    result = scan_skill({**DOC, **files})
    assert result.verdict == verdict
    assert list(result.needs) == needs
    assert sorted(f.kind for f in result.findings) == sorted(kinds)


def test_findings_name_the_file_line_and_reason() -> None:
    result = scan_skill({"scripts/x.py": b"import json\n\nimport subprocess\n"})
    (finding,) = result.findings
    assert (finding.path, finding.line, finding.kind) == ("scripts/x.py", 3, "unavailable-module")
    assert "no processes" in finding.detail
    assert result.blockers == (finding,)
    assert result.scripts == ("scripts/x.py",)


def test_native_package_is_marked_not_pure() -> None:
    result = scan_skill({"x.py": b"import numpy as np\n"})
    assert [f.detail for f in result.findings] == ["numpy (pure: no (native code; only if Pyodide ships it))"]
    assert result.needs == ("numpy",)
