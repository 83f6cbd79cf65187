/**
 * A module worker for tests/e2e/test_state_kill.py: the state directory mounted on OPFS exactly as the
 * agent worker mounts it (`StateSave.open`), with Pyodide's SQLite on it. `{op: "write"}` commits a
 * table of "A" rows, then updates them to "B" in one transaction that never commits (it runs until the
 * worker is killed), posting `writing` once pages have reached the disk. `{op: "check"}` reopens the
 * database and answers with its integrity check and its values. `{op: "step"}` times one step's save on
 * databases of 1, 10 and 50 MB (the bench's `statestep` group).
 */

import { StateSave } from "../../src/worker/state-save";
import type { EmscriptenFS } from "../../src/worker/state-fs";

interface Python {
  FS: unknown;
  globals: { set(name: string, value: unknown): void };
  runPython(code: string): unknown;
}

const WRITE = `
import sqlite3, time
db = sqlite3.connect("/state/current.sqlite")
db.execute("pragma cache_size = 10")  # dirty pages spill to the database file inside the transaction
db.execute("create table if not exists t (k integer primary key, v text)")
with db:
    db.execute("delete from t")
    db.executemany("insert into t values (?, ?)", [(i, "A" * 2000) for i in range(500)])
note("committed")
db.execute("begin")
deadline = time.time() + 60
i = 0
while time.time() < deadline:
    db.execute("update t set v = ? where k = ?", ("B" * 2000, i % 500))
    i += 1
    if i == 600:
        note("writing")
`;

const CHECK = `
import json, sqlite3
db = sqlite3.connect("/state/current.sqlite")
json.dumps({
    "integrity": db.execute("pragma integrity_check").fetchone()[0],
    "values": sorted({v[:1] for (v,) in db.execute("select v from t")}),
    "rows": db.execute("select count(*) from t").fetchone()[0],
})
`;

const scope = self as unknown as {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
};

scope.onmessage = (event: MessageEvent) => {
  void run((event.data as { op: string }).op).catch((err: unknown) => scope.postMessage({ error: String(err) }));
};

async function run(op: string): Promise<void> {
  const url = new URL("/pyodide/pyodide.mjs", location.origin).href;
  const mod = (await import(/* @vite-ignore */ url)) as { loadPyodide(options: { indexURL: string }): Promise<Python> };
  const py = await mod.loadPyodide({ indexURL: "/pyodide/" });
  const root = await navigator.storage.getDirectory();
  const opfs = await root.getDirectoryHandle("state-kill-test", { create: true });
  if (op === "step") {
    scope.postMessage({ result: await timeSteps(py, opfs) });
    return;
  }
  const { save } = await StateSave.open(py.FS as EmscriptenFS, opfs, true);
  if (!save.dir.paged) throw new Error("the state files were not opened on OPFS handles");
  py.globals.set("note", (text: string) => scope.postMessage({ note: text }));
  if (op === "write") py.runPython(WRITE);
  else scope.postMessage({ result: JSON.parse(String(py.runPython(CHECK))) as unknown });
}

const SIZES_MB = [1, 10, 50];
const STEPS = 45;

/**
 * One step on databases of 1, 10 and 50 MB, each mounted as the agent worker mounts /state (its own
 * folder in OPFS, `StateSave.open` on handles): commit one message-sized row, then the save. The sizes
 * take turns step by step, each first in turn, so each is timed on the same machine at the same moments
 * (on a shared machine the load moves within seconds).
 */
async function timeSteps(py: Python, opfs: FileSystemDirectoryHandle): Promise<Record<string, number[]>> {
  const saves = new Map<number, StateSave>();
  for (const mb of SIZES_MB) {
    const folder = await opfs.getDirectoryHandle(`${mb}MB`, { create: true });
    const { save } = await StateSave.open(py.FS as EmscriptenFS, folder, true, `/state${mb}`);
    if (!save.dir.paged) throw new Error("the state files were not opened on OPFS handles");
    saves.set(mb, save);
    py.runPython(
      `import sqlite3\ndbs = globals().setdefault("dbs", {})\ndb = dbs[${mb}] = sqlite3.connect("/state${mb}/current.sqlite")\n` +
        `db.execute("create table if not exists m (k integer primary key, v text)")\n` +
        `with db:\n    while db.execute("pragma page_count").fetchone()[0] * 4096 < ${mb} * 1_000_000:\n` +
        `        db.executemany("insert into m (v) values (?)", [("x" * 4000,)] * 250)`,
    );
  }
  const out: Record<string, number[]> = Object.fromEntries(SIZES_MB.map((mb) => [`${mb}MB`, []]));
  for (let i = 0; i < STEPS; i++) {
    for (const mb of [...SIZES_MB.slice(i % SIZES_MB.length), ...SIZES_MB.slice(0, i % SIZES_MB.length)]) {
      const t0 = performance.now();
      py.runPython(`with dbs[${mb}]:\n    dbs[${mb}].execute("insert into m (v) values (?)", ("a message " * 60,))`);
      await (saves.get(mb) as StateSave).flush(true);
      out[`${mb}MB`]?.push(performance.now() - t0);
    }
  }
  return out;
}
