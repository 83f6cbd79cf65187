// Run one Python benchmark script inside real Pyodide under Node (used by scripts/benchlib/pyodide_node.py).
//
//   node scripts/benchlib/pyodide_run.mjs <repo-root> <script.py>
//
// Loads Pyodide from web/public/pyodide/, places the vendored wheels offline (all but the runtime's own),
// copies the current runtime/ sources (and scripts/benchlib, whose search bench runs in there) into /src
// so the code measured is the code in the tree, then runs
// the script with runPythonAsync. The script's last expression must be a JSON string; it is printed as
// one line `RESULT <json>`.
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [root, scriptPath] = process.argv.slice(2);
const limitMs = Number(process.env.BENCH_LIMIT_MS || 600000);
setTimeout(() => {
  console.log(`RESULT ${JSON.stringify({ ok: false, error: `timed out after ${limitMs} ms` })}`);
  process.exit(1);
}, limitMs).unref();

const { loadPyodide } = await import(pathToFileURL(path.join(root, "web/public/pyodide/pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.join(root, "web/public/pyodide") + path.sep });
const wheelsDir = path.join(root, "web/public/wheels");
const manifest = JSON.parse(readFileSync(path.join(wheelsDir, "manifest.json"), "utf8"));
// As the app places them (web/src/worker/wheels.ts): each wheel as it is, on sys.path (zip import).
pyodide.FS.mkdirTree("/lib/wheels");
const sysPath = pyodide.pyimport("sys").path;
for (const wheel of manifest.wheels) {
  if (wheel.file.startsWith("tidepool_runtime-")) continue;
  pyodide.FS.writeFile(`/lib/wheels/${wheel.file}`, new Uint8Array(readFileSync(path.join(wheelsDir, wheel.file))));
  sysPath.append(`/lib/wheels/${wheel.file}`);
}
sysPath.destroy();

function copyTree(from, to) {
  pyodide.FS.mkdirTree(to);
  for (const name of readdirSync(from)) {
    if (name === "__pycache__") continue;
    const src = path.join(from, name);
    if (statSync(src).isDirectory()) copyTree(src, `${to}/${name}`);
    else pyodide.FS.writeFile(`${to}/${name}`, readFileSync(src));
  }
}
copyTree(path.join(root, "runtime"), "/src/runtime");
copyTree(path.join(root, "scripts/benchlib"), "/src/benchlib");
pyodide.runPython("import sys; sys.path.insert(0, '/src')");

try {
  const out = await pyodide.runPythonAsync(readFileSync(scriptPath, "utf8"));
  console.log(`RESULT ${out}`);
  process.exit(0);
} catch (err) {
  console.log(`RESULT ${JSON.stringify({ ok: false, error: String(err).slice(-3000) })}`);
  process.exit(1);
}
