// The state directory on backings, with real Pyodide and its SQLite (under Node): a commit writes the
// pages it changed, and a write cut off at any point reopens the last committed state.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { MemoryBacking } from "../src/worker/backings";
import { LIVE_FILES, StateDir, type Backing, type EmscriptenFS } from "../src/worker/state-fs";

interface Python {
  FS: unknown;
  runPython(code: string): unknown;
  globals: { set(name: string, value: unknown): void };
}

const ROOT = path.resolve(__dirname, "../..");
const PYODIDE = path.join(ROOT, "web/public/pyodide");
let py: Python;
let mounts = 0;

beforeAll(async () => {
  const mod = (await import(pathToFileURL(path.join(PYODIDE, "pyodide.mjs")).href)) as {
    loadPyodide(options: { indexURL: string }): Promise<Python>;
  };
  py = await mod.loadPyodide({ indexURL: PYODIDE + path.sep });
}, 180_000);

type Disk = Map<string, MemoryBacking>;

function disk(from?: Disk): Disk {
  return new Map(LIVE_FILES.map((name) => [name, new MemoryBacking(from?.get(name)?.bytes())]));
}

/** A disk that stops taking changes after `budget` writes and truncations, as a killed tab does. */
function dying(of: Disk, budget: number): { backings: Map<string, Backing>; cut: () => boolean; spent: () => number } {
  let left = budget;
  const backings = new Map<string, Backing>();
  for (const [name, backing] of of) {
    const spend = (): void => {
      if (left-- <= 0) throw new Error("killed");
    };
    backings.set(name, {
      read: (into, at) => backing.read(into, at),
      size: () => backing.size(),
      write: (from, at) => (spend(), backing.write(from, at)),
      truncate: (size) => (spend(), backing.truncate(size)),
      flush: () => undefined,
      close: () => undefined,
    });
  }
  return { backings, cut: () => left < 0, spent: () => budget - left };
}

function mount(backings: ReadonlyMap<string, Backing>): StateDir {
  const dir = new StateDir(py.FS as EmscriptenFS, `/state${++mounts}`);
  dir.attach(backings);
  return dir;
}

/** Run Python with `db` = a connection to current.sqlite in `dir`; returns the last expression (JSON). */
function sql(dir: StateDir, code: string): unknown {
  py.globals.set("db_path", `${dir.path}/current.sqlite`);
  const out = py.runPython(
    `import json, sqlite3\ndb = sqlite3.connect(db_path)\ntry:\n${indent(code)}\nfinally:\n    db.close()\njson.dumps(_out)`,
  );
  return JSON.parse(String(out));
}

function indent(code: string): string {
  return code
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

const CREATE = `
db.execute("create table t (k integer primary key, v text)")
with db:
    db.executemany("insert into t values (?, ?)", [(i, "A" * 1000) for i in range(300)])
_out = None`;

const CHANGE = `
try:
    with db:
        db.execute("update t set v = ?", ("B" * 1000,))
        db.executemany("insert into t values (?, ?)", [(i, "B" * 1000) for i in range(300, 400)])
    _out = "committed"
except sqlite3.Error as exc:
    _out = f"failed: {exc}"`;

const CHECK = `
_out = {
    "integrity": db.execute("pragma integrity_check").fetchone()[0],
    "values": sorted({v[0] for (v,) in db.execute("select v from t")}),
    "rows": db.execute("select count(*) from t").fetchone()[0],
}`;

describe("the state directory on backings", () => {
  it("keeps a database on its backings and shows it again when mounted", () => {
    const first = disk();
    const dir = mount(first);
    sql(dir, CREATE);
    expect(first.get("current.sqlite")?.size()).toBeGreaterThan(300_000);
    expect(first.get("current.sqlite-journal")?.size()).toBe(0); // the commit emptied the journal
    expect(sql(mount(disk(first)), CHECK)).toEqual({ integrity: "ok", values: ["A"], rows: 300 });
  });

  it("writes only the pages a commit changed", () => {
    const backings = disk();
    const dir = mount(backings);
    sql(
      dir,
      `${CREATE}\nwith db:\n    db.executemany("insert into t values (?, ?)", [(i, "x" * 4000) for i in range(300, 3000)])`,
    );
    const database = backings.get("current.sqlite") as MemoryBacking;
    expect(database.size()).toBeGreaterThan(10_000_000);
    database.written = 0;
    sql(dir, `with db:\n    db.execute("update t set v = 'y' where k = 5")\n_out = None`);
    expect(database.written).toBeLessThan(64 * 1024);
  });

  it("reopens the last committed state after a write cut off at any point", () => {
    const committed = disk();
    sql(mount(committed), CREATE);
    const whole = dying(disk(committed), 1_000_000);
    expect(sql(mount(whole.backings), CHANGE)).toBe("committed");
    const total = whole.spent(); // every write and truncation the change makes
    let hot = 0;
    for (let budget = 0; budget <= total; budget += budget < 40 || budget > total - 40 ? 1 : 5) {
      const image = disk(committed);
      const run = dying(image, budget);
      const dir = mount(run.backings);
      // The database goes on in memory after the disk stopped: the change still commits in the tab.
      expect(sql(dir, CHANGE)).toBe("committed");
      if ((image.get("current.sqlite-journal")?.size() ?? 0) > 0) hot++;
      const reopened = sql(mount(disk(image)), CHECK) as { integrity: string; values: string[]; rows: number };
      expect(reopened.integrity).toBe("ok");
      const expected = run.cut() ? { values: ["A"], rows: 300 } : { values: ["B"], rows: 400 };
      expect({ values: reopened.values, rows: reopened.rows }).toEqual(expected);
    }
    expect(hot).toBeGreaterThan(0); // some cuts left a hot journal that had to be rolled back
  }, 120_000);
});
