// The runtime in real Pyodide under Node, driven over frames like the adapter drives it.
//
//   node tests/pyodide/harness.mjs <repo-root> <scenario.json>
//
// Loads Pyodide from web/public/pyodide/, installs every wheel in web/public/wheels/manifest.json
// offline, starts the runtime through runtime.pyodide_entry.start, then plays the scenario:
// it sends scenario.send (frames) after the handshake, answers every http_request with the next
// scripted response (SSE/JSON body split into odd chunks), confirms every flush_request the way the
// adapter does after copying the file to OPFS, and stops when an event of kind scenario.until arrives.
// scenario.until may also be "reply:<id>" (stop at the reply to that request). scenario.state holds
// files (base64) to put in /state before start, as the adapter does from OPFS.
// Prints one line `RESULT <json>` with every message the runtime sent, timings, and
// /state/current.sqlite (the live state database) at the end: its size and its bytes in base64.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [root, scenarioPath] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));
const deadline = setTimeout(() => fail(`timed out after ${scenario.timeout_ms} ms`), scenario.timeout_ms);

let finished = false;
function fail(message) {
  if (finished) return;
  finished = true;
  process.stdout.write(`RESULT ${JSON.stringify({ ok: false, error: message, received })}\n`, () => process.exit(1));
}

// ---- a minimal frame codec: \x1eTP1:<len>:<json>\n -------------------------------------------------
const MAGIC = [0x1e, 0x54, 0x50, 0x31, 0x3a];
const enc = new TextEncoder();
const dec = new TextDecoder();
function encode(message) {
  const payload = enc.encode(JSON.stringify(message));
  const head = enc.encode(`\x1eTP1:${payload.length}:`);
  const out = new Uint8Array(head.length + payload.length + 1);
  out.set(head, 0);
  out.set(payload, head.length);
  out[out.length - 1] = 0x0a;
  return out;
}
let buffer = new Uint8Array(0);
function decode(bytes) {
  const joined = new Uint8Array(buffer.length + bytes.length);
  joined.set(buffer, 0);
  joined.set(bytes, buffer.length);
  buffer = joined;
  const messages = [];
  for (;;) {
    if (buffer.length < MAGIC.length) break;
    if (!MAGIC.every((b, i) => buffer[i] === b)) {
      fail(`stray output from the runtime: ${dec.decode(buffer.slice(0, 80))}`);
      break;
    }
    const colon = buffer.indexOf(0x3a, MAGIC.length);
    if (colon < 0) break;
    const length = Number(dec.decode(buffer.slice(MAGIC.length, colon)));
    const end = colon + 1 + length;
    if (buffer.length < end + 1) break;
    messages.push(JSON.parse(dec.decode(buffer.slice(colon + 1, end))));
    buffer = buffer.slice(end + 1);
  }
  return messages;
}

// ---- boot --------------------------------------------------------------------------------------------
// scenario.snapshot: boot the way a second visit does: a first Pyodide runs the entry's warm_up and makes
// a memory snapshot (as web/src/worker/snapshot.worker.ts does), the runtime's Pyodide is loaded from it
// and checked by the entry's check_snapshot; the runtime modules imported after that are reported.
const received = [];
const t0 = performance.now();
const { loadPyodide } = await import(pathToFileURL(path.join(root, "web/public/pyodide/pyodide.mjs")).href);
const indexURL = path.join(root, "web/public/pyodide") + path.sep;
const wheelsDir = path.join(root, "web/public/wheels");
const manifest = JSON.parse(readFileSync(path.join(wheelsDir, "manifest.json"), "utf8"));
// As web/src/worker/wheels.ts places them: each wheel, as it is, in /lib/wheels and on sys.path (zip import).
function installWheels(py) {
  py.FS.mkdirTree("/lib/wheels");
  const sysPath = py.pyimport("sys").path;
  const listed = new Set(sysPath.toJs());
  for (const wheel of manifest.wheels) {
    // scenario.runtime_wheel: a wheel built from the current code, in place of a stale vendored one
    const fresh = wheel.file.startsWith("tidepool_runtime-") && scenario.runtime_wheel;
    const file = fresh ? scenario.runtime_wheel : path.join(wheelsDir, wheel.file);
    const target = `/lib/wheels/${wheel.file}`;
    py.FS.writeFile(target, new Uint8Array(readFileSync(file)));
    if (!listed.has(target)) sysPath.append(target);
  }
  sysPath.destroy();
}
let snapshotBytes = null;
if (scenario.snapshot) {
  const maker = await loadPyodide({ indexURL, _makeSnapshot: true });
  installWheels(maker);
  maker.pyimport("runtime.pyodide_entry").warm_up();
  snapshotBytes = maker.makeMemorySnapshot();
}
const pyodide = await loadPyodide(snapshotBytes ? { indexURL, _loadSnapshot: snapshotBytes } : { indexURL });
if (snapshotBytes) pyodide.pyimport("runtime.pyodide_entry").check_snapshot(); // before the wheels, as the worker does
const runtimeModules = () =>
  [...pyodide.pyimport("sys").modules.keys()].filter((m) => m === "runtime" || m.startsWith("runtime."));
const modulesBeforeStart = new Set(snapshotBytes ? runtimeModules() : []);
let importedAfterSnapshot = null;
const tLoaded = performance.now();
installWheels(pyodide);
const tInstalled = performance.now();
pyodide.FS.mkdirTree("/workspace");
pyodide.FS.mkdirTree("/state");
for (const [name, b64] of Object.entries(scenario.state ?? {})) {
  pyodide.FS.writeFile(`/state/${name}`, new Uint8Array(Buffer.from(b64, "base64")));
}
for (const [name, text] of Object.entries(scenario.files ?? {})) pyodide.FS.writeFile(`/workspace/${name}`, text);

const responses = scenario.responses.slice();
let feed;
let tReady = null;
function send(message) {
  feed(encode(message));
}
function answer(request) {
  const reply = responses.shift() ?? { status: 404, body: "{}" };
  const body = enc.encode(reply.body);
  send({
    type: "http_head",
    id: request.id,
    status: reply.status,
    headers: { "content-type": reply.type ?? "text/plain" },
  });
  const sizes = [1, 5, 64, 3, 200];
  for (let i = 0, n = 0; i < body.length; n++) {
    const piece = body.slice(i, i + sizes[n % sizes.length]);
    i += piece.length;
    const frame = encode({ type: "http_chunk", id: request.id, data: Buffer.from(piece).toString("base64") });
    feed(frame.slice(0, 7)); // frames split across feeds too
    feed(frame.slice(7));
  }
  send({ type: "http_end", id: request.id });
}
function onRuntimeBytes(u8) {
  if (finished) return;
  for (const message of decode(u8)) {
    received.push(message);
    if (message.type === "http_request") setTimeout(() => answer(message), 0);
    if (message.type === "flush_request")
      setTimeout(() => send({ type: "reply", id: message.id, ok: true, result: {} }), 0);
    if (message.type === "event" && message.event.kind === "ready") {
      tReady = performance.now();
      if (snapshotBytes) importedAfterSnapshot = runtimeModules().filter((m) => !modulesBeforeStart.has(m));
      for (const m of scenario.send) send(m);
    }
    if (message.type === "event" && message.event.kind === scenario.until) finish();
    if (message.type === "reply" && `reply:${message.id}` === scenario.until) finish();
  }
}
function finish() {
  if (finished) return;
  finished = true;
  clearTimeout(deadline);
  const timings = {
    load_pyodide_ms: tLoaded - t0,
    installed_ms: tInstalled - t0,
    ready_ms: tReady - t0,
    done_ms: performance.now() - t0,
  };
  const state = pyodide.FS.analyzePath("/state/current.sqlite");
  const stateFileBytes = state.exists ? pyodide.FS.stat("/state/current.sqlite").size : null;
  const stateFile = state.exists ? Buffer.from(pyodide.FS.readFile("/state/current.sqlite")).toString("base64") : null;
  const snapshot = snapshotBytes ? { bytes: snapshotBytes.byteLength, imported_after: importedAfterSnapshot } : null;
  // Where a few modules the boot imported were loaded from (a wheel's zip, its bytecode or its source).
  const modules = pyodide.pyimport("sys").modules;
  const loadedFrom = Object.fromEntries(
    ["runtime.boot", "yaml", "sqlite_utils"].map((name) => [name, modules.get(name)?.__file__ ?? null]),
  );
  modules.destroy();
  const out = {
    ok: true,
    received,
    timings,
    snapshot,
    loaded_from: loadedFrom,
    state_file_bytes: stateFileBytes,
    state_file: stateFile,
  };
  // a long line to a pipe is written asynchronously: exit only once it is out
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`, () => process.exit(0));
}

feed = pyodide.pyimport("runtime.pyodide_entry").start((u8) => onRuntimeBytes(u8));
send({ type: "hello", protocol: 1, capabilities: ["http", "flush"] });
