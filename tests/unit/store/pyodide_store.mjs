// The store in real Pyodide (Python 3.14, SQLite 3.39) under Node.
//
//   node tests/unit/store/pyodide_store.mjs <repo-root> <check.py> <fixture.sqlite>
//
// Loads Pyodide from web/public/pyodide/, places the vendored wheels offline (all but the runtime's
// own wheel: the runtime is copied from the source tree, so this checks the code as it is now), puts
// the fixture at /data/v1.sqlite, runs check.py and prints one line `RESULT <json>` (its last value).
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [root, checkPath, fixturePath] = process.argv.slice(2);
const public_ = path.join(root, "web", "public");
const { loadPyodide } = await import(pathToFileURL(path.join(public_, "pyodide", "pyodide.mjs")).href);
const py = await loadPyodide({ stdout: () => {}, stderr: () => {} });
const manifest = JSON.parse(readFileSync(path.join(public_, "wheels", "manifest.json"), "utf8"));
// As the app places them (web/src/worker/wheels.ts): each wheel as it is, on sys.path (zip import).
py.FS.mkdirTree("/lib/wheels");
const sysPath = py.pyimport("sys").path;
for (const { file } of manifest.wheels) {
  if (file.startsWith("tidepool_runtime-")) continue;
  py.FS.writeFile(`/lib/wheels/${file}`, new Uint8Array(readFileSync(path.join(public_, "wheels", file))));
  sysPath.append(`/lib/wheels/${file}`);
}
sysPath.destroy();
function copyTree(src, dst) {
  py.FS.mkdirTree(dst);
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    if (entry.name === "__pycache__") continue;
    const from = path.join(src, entry.name);
    if (entry.isDirectory()) copyTree(from, `${dst}/${entry.name}`);
    else if (entry.name.endsWith(".py")) py.FS.writeFile(`${dst}/${entry.name}`, readFileSync(from));
  }
}
copyTree(path.join(root, "runtime"), "/app/runtime");
py.FS.mkdirTree("/data");
py.FS.writeFile("/data/v1.sqlite", new Uint8Array(readFileSync(fixturePath)));
try {
  const result = await py.runPythonAsync(readFileSync(checkPath, "utf8"));
  console.log(`RESULT ${result}`);
} catch (error) {
  console.log(`RESULT ${JSON.stringify({ error: String(error) })}`);
  process.exitCode = 1;
}
