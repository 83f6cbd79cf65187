"""Measurements inside real Pyodide under Node (no browser): memory search, skill-archive import and
a hostile SKILL.md frontmatter.

Each runs a small Python script through `pyodide_run.mjs`, which loads the vendored wheels and the
current `runtime/` sources, and reads back its one `RESULT <json>` line.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from .common import ROOT, Row, Samples

RUNNER = Path(__file__).with_name("pyodide_run.mjs")
NODE_LIMIT_S = 420

SEARCH = """
import json
from benchlib.search import bench_search
out = {}
for n in SIZES:
    r = bench_search(n, queries=QUERIES)
    out[str(n)] = {"p50": r.p50_ms, "p95": r.p95_ms, "insert_s": r.insert_s}
json.dumps(out)
"""

ARCHIVE = """
import io, json, random, shutil, time, zipfile
from pathlib import Path
from runtime.skills.importer import import_archive

rng = random.Random(5)
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
    for s in range(SKILLS):
        name = f"skill-{s:03d}"
        head = f"---\\nname: {name}\\ndescription: Benchmark skill {s}.\\n---\\nUse it.\\n"
        zf.writestr(f"skills/{name}/SKILL.md", head)
        for f in range(FILES // SKILLS - 1):
            zf.writestr(f"skills/{name}/data/part-{f:03d}.dat", rng.randbytes(FILE_BYTES))
data = buf.getvalue()
entries = len(zipfile.ZipFile(io.BytesIO(data)).namelist())
imports, plain = [], []
for i in range(RUNS):
    ws = Path(f"/bench/ws-{i}")
    t0 = time.perf_counter()
    report = import_archive(data, ws, filename="bench.zip")
    imports.append((time.perf_counter() - t0) * 1000)
    assert report.state != "rejected", report
    shutil.rmtree(ws)
    dest = Path(f"/bench/plain-{i}")
    t0 = time.perf_counter()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        zf.extractall(dest)
    plain.append((time.perf_counter() - t0) * 1000)
    shutil.rmtree(dest)
json.dumps({"archive_bytes": len(data), "entries": entries, "import": imports, "plain": plain,
            "status": report.state})
"""

FRONTMATTER = """
import json, time
from runtime.skills.spec import check_skill

def timed(text):
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        result = check_skill(text, "pdf")
        best = min(best, (time.perf_counter() - t0) * 1000)
    return best, getattr(result, "reason", "valid")

def many(n):
    keys = "".join(f"k{i}: v\\n" for i in range(n))
    return f"---\\nname: pdf\\ndescription: d\\n{keys}---\\nbody\\n"

hostile, inside = many(KEYS), many(6_000)  # past the size cap; inside it, past the count cap
entries = "".join(f"  key-{i}: {'value text ' * 9}\\n" for i in range(560))
benign = f"---\\nname: pdf\\ndescription: {'Reads PDFs. ' * 80}\\nmetadata:\\n{entries}---\\nbody\\n"
(h_ms, h_reason), (i_ms, i_reason), (b_ms, b_reason) = timed(hostile), timed(inside), timed(benign)
json.dumps({"hostile": h_ms, "hostile_reason": h_reason, "hostile_bytes": len(hostile), "benign": b_ms,
            "benign_reason": b_reason, "benign_bytes": len(benign), "inside": i_ms, "inside_reason": i_reason,
            "inside_bytes": len(inside)})
"""


def run_in_pyodide(code: str) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(code)
    try:
        done = subprocess.run(["node", str(RUNNER), str(ROOT), fh.name], capture_output=True, text=True,
                              timeout=NODE_LIMIT_S, env={"PATH": "/usr/bin:/bin:/usr/local/bin",
                                                         "BENCH_LIMIT_MS": str(NODE_LIMIT_S * 1000 - 5000)})
    finally:
        Path(fh.name).unlink()
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines:
        raise RuntimeError(f"pyodide_run.mjs gave no result:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
    if result.get("ok") is False:
        raise RuntimeError(f"pyodide_run.mjs failed: {result.get('error')}")
    return result


def measure_search(sizes: tuple[int, ...] = (1_000, 10_000, 100_000), queries: int = 200) -> list[Row]:
    code = f"SIZES = {sizes!r}\nQUERIES = {queries}\n" + SEARCH
    out = run_in_pyodide(code)
    rows = []
    for n in sizes:
        r = out[str(n)]
        target = "p95 ≤ 5 ms" if n == 100_000 else "—"
        rows.append(Row(f"memory search, {n:,} memories (Pyodide/Node)", "—", None,
                        Samples.single(r["p95"]), "p95", target,
                        note=f"p50 {r['p50']:.2f} ms, p95 {r['p95']:.2f} ms; {queries} queries; "
                             f"insert {r['insert_s']:.1f} s"))
    return rows


def measure_archive(runs: int = 3, files: int = 2_000, skills: int = 20, file_bytes: int = 10_000) -> list[Row]:
    code = f"RUNS = {runs}\nFILES = {files}\nSKILLS = {skills}\nFILE_BYTES = {file_bytes}\n" + ARCHIVE
    out = run_in_pyodide(code)
    mib = out["archive_bytes"] / 2**20
    return [Row(f"skill import, {mib:.0f} MiB / {out['entries']:,}-entry zip (Pyodide/Node)",
                "`zipfile.extractall` of the same archive", Samples(out["plain"]), Samples(out["import"]),
                "median", "—", note=f"import status {out['status']}")]


def measure_frontmatter(runs: int = 3, keys: int = 60_000) -> list[Row]:
    out = run_in_pyodide(f"RUNS = {runs}\nKEYS = {keys}\n" + FRONTMATTER)
    benign = (f"a benign {out['benign_bytes'] / 1024:.0f} KB frontmatter read", Samples.single(out["benign"]))
    return [
        Row(f"SKILL.md with {keys:,} frontmatter keys ({out['hostile_bytes'] / 1024:.0f} KB) refused (Pyodide/Node)",
            *benign, Samples.single(out["hostile"]), "median", "≤ the benign read",
            note=f"{out['hostile_reason']}, past 64 KiB; best of {runs}; 55 s before the caps"),
        Row(f"SKILL.md with 6,000 frontmatter keys ({out['inside_bytes'] / 1024:.0f} KB) refused (Pyodide/Node)",
            *benign, Samples.single(out["inside"]), "median", "≤ the benign read",
            note=f"{out['inside_reason']}, past 2,000 keys and values; best of {runs}"),
    ]
