// Tidepool's sandbox for run_python: a second Pyodide in a module worker started from a `data:` URL, so
// its origin is opaque ("null"): it cannot open the app's OPFS, IndexedDB or caches, and it does not
// try. It sees only the files handed to it. Plain JavaScript, no build step: served from
// /sandbox/sandbox-worker.js, fetched by web/src/sandbox/runner.ts and started from a data: URL by
// /sandbox/bootstrap.js, whose strict CSP it inherits: it can reach /pyodide/ and /wheels/sandbox/ only
// (and /api/proxy when made for runs approved with `network: true`). All messages pass the bootstrap.
//
// In:  {type: "init", origin, driver, network, grant, snapshot}   driver = the source of tidepool_sandbox.py;
//                                          grant: the proxy's token for a network sandbox (from the bootstrap);
//                                          snapshot: {version, bytes} a fresh Pyodide's heap, or null
//      {type: "run", id, code, files, packages, index_urls}
//                                          files = {workspace-relative path: base64}; packages: installed
//                                          with micropip before the code runs (index_urls: null = PyPI)
//      {type: "fetched", seq, ok, status, contentType, body | message}   the host's answer to a `fetch`
// Out: {type: "ready", boot: "snapshot"|"plain"} | {type: "boot_failed", message} | {type: "refused", message}
//      (the self-check below) | {type: "snapshot_failed", message} (then it boots plainly)
//      {type: "fetch", id, seq, url, accept}   micropip's download, fetched by the host (during install only)
//      {type: "installed", id}                 packages done; the run's own code starts now
//      {type: "output", id, stream: "stdout"|"stderr", text}   the head of the output, as it comes
//      {type: "result", id, ok, stdout, stderr, files, deleted, error}
//
// Before anything else at init the worker checks that the browser really isolated it (`isolationProblem`):
// its origin must be opaque ("null") and the storage APIs (IndexedDB, OPFS, Cache Storage) must throw or
// be absent. A browser without opaque `data:` workers (or with them turned off by a policy) would give
// run_python code the app's IndexedDB; there the sandbox refuses to start (`refused`) and nothing runs.
//
// Pyodide is restored from the host's snapshot when there is one for this Pyodide's version (made by the
// app from a Pyodide no code ever ran in; web/src/sandbox/snapshot.ts), else started plainly.
// At init the wheels listed in /wheels/sandbox/manifest.json (micropip, packaging, pyodide-http) are
// unpacked offline from the app's origin, then the driver's `setup()` arranges for pyodide-http to patch
// urllib when code first imports it (micropip is imported by the first install, not on the way to `ready`).
// A run that lists packages installs them first; a failed install answers error {kind: "install"}.
// The manifest's `on_import` groups (pygal and its dependencies) are unpacked, from the same folder and
// offline, before the first run whose code imports one of their modules (read by the driver's `imports`).

const DRIVER_DIR = "/sandbox";
const DRIVER_MODULE = "tidepool_sandbox";
const SANDBOX_WHEELS = "/wheels/sandbox/";
const HEAD_CHARS = 768 * 1024; // per stream: the first HEAD_CHARS and the last TAIL_CHARS are kept
const TAIL_CHARS = 256 * 1024;
const OUTPUT_POST_INTERVAL_MS = 200;

/** One output stream, bounded: its head, a rolling tail, and a count of what was left out between. */
class BoundedText {
  constructor() {
    this.decoder = new TextDecoder();
    this.head = "";
    this.tail = [];
    this.tailChars = 0;
    this.leftOut = 0;
    this.posted = 0; // how much of `head` has been posted as `output`
  }

  write(bytes) {
    this.append(this.decoder.decode(bytes, { stream: true }));
    return bytes.length;
  }

  append(text) {
    if (!text) return;
    const room = HEAD_CHARS - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.tail.push(text);
    this.tailChars += text.length;
    if (this.tailChars > 2 * TAIL_CHARS) this.trimTail();
  }

  trimTail() {
    const joined = this.tail.join("");
    const kept = joined.slice(-TAIL_CHARS);
    this.leftOut += joined.length - kept.length;
    this.tail = [kept];
    this.tailChars = kept.length;
  }

  unposted() {
    const text = this.head.slice(this.posted);
    this.posted = this.head.length;
    return text;
  }

  text() {
    this.append(this.decoder.decode());
    this.trimTail();
    const tail = this.tail.join("");
    if (this.leftOut === 0) return this.head + tail;
    return `${this.head}\n[... ${this.leftOut.toLocaleString("en")} characters left out ...]\n${tail}`;
  }
}

let pyodide = null;
let runDriver = null;
let installPackages = null;
let importsOf = null; // code → the top-level modules it imports (the driver reads it; nothing runs)
let onImport = []; // [{imports: [name], wheels: [{file, sha256}], installed: bool}] from the manifest
let wheelBase = "";
let current = null; // {id, stdout: BoundedText, stderr: BoundedText, lastPost}
const fetches = new Map(); // seq → {resolve, reject}: install-time downloads the host is fetching
let nextFetch = 1;

const post = (message) => self.postMessage(message);

function messageOf(err) {
  return cleanTraceback(err instanceof Error ? err.message : String(err));
}

/** Drop Pyodide-internal frames ("File .../_pyodide/..." and the lines under them) from a traceback. */
function cleanTraceback(text) {
  const out = [];
  let skipping = false;
  for (const line of text.split("\n")) {
    if (line.startsWith('  File "')) skipping = /\/_pyodide\/|\/pyodide\//.test(line);
    else if (!line.startsWith("    ")) skipping = false;
    if (!skipping) out.push(line);
  }
  return out.join("\n").trim();
}

function postOutput(force) {
  if (!current) return;
  const now = Date.now();
  if (!force && now - current.lastPost < OUTPUT_POST_INTERVAL_MS) return;
  current.lastPost = now;
  for (const stream of ["stdout", "stderr"]) {
    const text = current[stream].unposted();
    if (text) post({ type: "output", id: current.id, stream, text });
  }
}

function writer(stream) {
  return {
    write(bytes) {
      if (!current) return bytes.length;
      const n = current[stream].write(bytes);
      postOutput(false);
      return n;
    },
  };
}

const PROBE_MS = 2000;

/** "open" when `attempt` (a storage call) succeeds, "closed" when it throws or rejects, within PROBE_MS. */
async function probe(attempt) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve("did not answer"), PROBE_MS)));
  try {
    return await Promise.race([
      Promise.resolve()
        .then(attempt)
        .then(
          () => "open",
          () => "closed",
        ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** IndexedDB's open, waited for: an opaque origin throws (or fails the request); opening means access. */
function openIndexedDB() {
  const request = self.indexedDB.open("tidepool-sandbox-isolation-probe");
  return new Promise((resolve, reject) => {
    request.onsuccess = () => {
      request.result.close();
      self.indexedDB.deleteDatabase("tidepool-sandbox-isolation-probe");
      resolve();
    };
    request.onerror = () => reject(request.error);
    request.onblocked = () => resolve();
  });
}

/** Why this worker must not run code (not opaque, or some storage opens), or null when it is isolated. */
async function isolationProblem() {
  if (self.origin !== "null") return `its origin is ${JSON.stringify(String(self.origin))}, not opaque ("null")`;
  // Each is looked up inside its attempt: a getter that throws counts as closed, an absent API is skipped.
  const storage = [
    ["indexedDB.open", "indexedDB" in self, openIndexedDB],
    ["navigator.storage.getDirectory", "storage" in self.navigator, () => self.navigator.storage.getDirectory()],
    ["caches.keys", "caches" in self, () => self.caches.keys()],
  ];
  for (const [name, present, attempt] of storage) {
    if (!present) continue;
    const outcome = await probe(attempt);
    if (outcome !== "closed") return `${name} ${outcome === "open" ? "opened" : outcome} in it`;
  }
  return null;
}

async function init(message) {
  const problem = await isolationProblem().catch((err) => `its self-check failed: ${messageOf(err)}`);
  if (problem !== null) {
    post({
      type: "refused",
      message: `${problem}: this browser does not isolate the sandbox from the app's storage, so run_python code could read it (it needs a browser that gives data: workers an opaque origin)`,
    });
    return;
  }
  try {
    let boot;
    [pyodide, boot] = await bootPyodide(message.origin, message.snapshot || null);
    pyodide.setStdout(writer("stdout"));
    pyodide.setStderr(writer("stderr"));
    pyodide.FS.mkdirTree(DRIVER_DIR);
    pyodide.FS.writeFile(`${DRIVER_DIR}/${DRIVER_MODULE}.py`, message.driver);
    const sys = pyodide.pyimport("sys");
    sys.path.append(DRIVER_DIR);
    sys.destroy();
    await installWheels(message.origin);
    const driver = pyodide.pyimport(DRIVER_MODULE); // kept for the worker's life: `run` is borrowed from it
    const grant = typeof message.grant === "string" ? message.grant : "";
    await driver.setup(message.network === true && grant ? `${message.origin}/api/proxy?grant=${grant}` : "");
    runDriver = (code, filesJson) => driver.run(code, filesJson);
    importsOf = (code) => JSON.parse(driver.imports(code));
    installPackages = (packagesJson, indexUrlsJson, id) =>
      driver.install(packagesJson, indexUrlsJson, (url, accept) => hostFetch(id, url, accept));
    post({ type: "ready", boot });
  } catch (err) {
    post({ type: "boot_failed", message: messageOf(err) });
  }
}

/**
 * [Pyodide, "snapshot" | "plain"]: from the app's /pyodide/ (when that cannot be fetched, the app runs
 * offline: from the host), restored from `snapshot` when it was made by this very Pyodide version.
 */
async function bootPyodide(origin, snapshot) {
  const indexURL = `${origin}/pyodide/`;
  let loader;
  let options = {};
  try {
    loader = await import(`${indexURL}pyodide.mjs`);
  } catch (err) {
    [loader, options] = await loaderFromHost(origin, err);
  }
  if (snapshot && snapshot.version === loader.version && snapshot.bytes instanceof ArrayBuffer) {
    try {
      const restored = await loader.loadPyodide({ indexURL, ...options, _loadSnapshot: snapshot.bytes });
      // Pyodide keeps its options for the instance's life, these 31 MB among them, and never reads them again.
      if (restored._api && restored._api.config) delete restored._api.config._loadSnapshot;
      snapshot.bytes = null;
      return [restored, "snapshot"];
    } catch (err) {
      post({ type: "snapshot_failed", message: messageOf(err) });
    }
  }
  return [await loader.loadPyodide({ indexURL, ...options }), "plain"];
}

/**
 * Offline: no service worker serves this opaque-origin worker, so the app's files come from the host
 * (`fetch_own`, answered like `fetched`): `fetch` of /pyodide/ and /wheels/sandbox/ is answered from
 * them, and the two Pyodide modules are imported from `blob:` URLs of their bytes (the policy's
 * script-src allows `blob:` for this; see scripts/server/sandbox_policy.py).
 */
async function loaderFromHost(origin, firstError) {
  const networkFetch = self.fetch.bind(self);
  const own = [`${origin}/pyodide/`, `${origin}${SANDBOX_WHEELS}`];
  self.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return own.some((prefix) => url.startsWith(prefix)) ? ownFile(url.slice(origin.length)) : networkFetch(input, init);
  };
  const moduleUrl = async (path) => {
    const bytes = await (await ownFile(path)).arrayBuffer();
    return URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
  };
  let loader, asm;
  try {
    loader = await import(await moduleUrl("/pyodide/pyodide.mjs"));
    asm = await import(await moduleUrl("/pyodide/pyodide.asm.mjs"));
  } catch (err) {
    throw new Error(`${messageOf(firstError)}; from the app's cache: ${messageOf(err)}`);
  }
  return [loader, { createPyodideModule: asm.default }];
}

/** One of the app's own files, fetched by the host; a Response (404-like errors reject with the message). */
function ownFile(path) {
  const seq = nextFetch++;
  return new Promise((resolve, reject) => {
    fetches.set(seq, {
      resolve: (got) =>
        resolve(new Response(got.body, { status: got.status, headers: { "Content-Type": got.contentType } })),
      reject,
    });
    post({ type: "fetch_own", seq, path });
  });
}

/** Unpack the sandbox's own wheels (listed in /wheels/sandbox/manifest.json) into site-packages. */
async function installWheels(origin) {
  const base = `${origin}${SANDBOX_WHEELS}`;
  const response = await fetch(`${base}manifest.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${SANDBOX_WHEELS}manifest.json answered ${response.status}`);
  const manifest = await response.json();
  if (!Array.isArray(manifest.wheels)) throw new Error(`${SANDBOX_WHEELS}manifest.json lists no wheels`);
  wheelBase = base;
  onImport = Array.isArray(manifest.on_import) ? manifest.on_import.map((g) => ({ ...g, installed: false })) : [];
  await unpackWheels(manifest.wheels);
}

/** Fetch `wheels` ([{file, sha256}]) from the sandbox's wheel folder, check them, unpack into site-packages. */
async function unpackWheels(wheels) {
  const buffers = wheels.map(async (wheel) => {
    const got = await fetch(wheelBase + encodeURIComponent(wheel.file));
    if (!got.ok) throw new Error(`${SANDBOX_WHEELS}${wheel.file} answered ${got.status}`);
    const buf = await got.arrayBuffer();
    await checkDigest(wheel.file, buf, wheel.sha256);
    return buf;
  });
  const extractDir = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')"); // not the cwd
  for (const buf of buffers) pyodide.unpackArchive(new Uint8Array(await buf), "wheel", { extractDir });
}

/** Unpack the bundled wheels of the modules `code` imports (once per sandbox); an install error or null. */
async function installImported(code) {
  const wanted = onImport.filter((g) => !g.installed);
  if (wanted.length === 0) return null;
  const imported = new Set(importsOf(code));
  for (const group of wanted.filter((g) => g.imports.some((name) => imported.has(name)))) {
    try {
      await unpackWheels(group.wheels);
      group.installed = true;
    } catch (err) {
      return {
        kind: "install",
        message: `the bundled ${group.imports.join(", ")} could not be installed: ${messageOf(err)}`,
      };
    }
  }
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
  return null;
}

async function checkDigest(file, buf, expected) {
  if (!globalThis.crypto?.subtle) return; // not a secure context: the bytes come from the app's origin anyway
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== String(expected).toLowerCase()) throw new Error(`${file} does not match its sha256 in the manifest`);
}

/** Ask the host to fetch `url` for run `id`'s install; resolves {status, contentType, body: Uint8Array}. */
function hostFetch(id, url, accept) {
  const seq = nextFetch++;
  return new Promise((resolve, reject) => {
    fetches.set(seq, { resolve, reject });
    post({ type: "fetch", id, seq, url: String(url), accept: accept == null ? null : String(accept) });
  });
}

function onFetched(message) {
  const waiter = fetches.get(message.seq);
  if (!waiter) return;
  fetches.delete(message.seq);
  if (message.ok === true && message.body instanceof ArrayBuffer) {
    waiter.resolve({
      status: message.status,
      contentType: String(message.contentType),
      body: new Uint8Array(message.body),
    });
  } else {
    waiter.reject(new Error(String(message.message ?? "the host could not fetch it")));
  }
}

/** Install the run's packages with micropip; an `install` error, or null when there was nothing to do. */
async function installFor(message, id) {
  const packages = Array.isArray(message.packages) ? message.packages.map(String) : [];
  if (packages.length === 0) return null;
  const indexUrls = Array.isArray(message.index_urls) ? message.index_urls.map(String) : null;
  const outcome = JSON.parse(await installPackages(JSON.stringify(packages), JSON.stringify(indexUrls), id));
  return outcome.error;
}

async function run(message) {
  const id = String(message.id);
  if (!runDriver) return finish(id, null, null, { kind: "sandbox", message: "the sandbox is not started" });
  if (current) return finish(id, null, null, { kind: "sandbox", message: "the sandbox is busy with another run" });
  const thisRun = { id, stdout: new BoundedText(), stderr: new BoundedText(), lastPost: 0 };
  current = thisRun;
  try {
    const installError = (await installImported(String(message.code))) ?? (await installFor(message, id));
    post({ type: "installed", id });
    if (installError) return finish(id, thisRun, null, installError);
    const outcome = JSON.parse(await runDriver(String(message.code), JSON.stringify(message.files ?? {})));
    finish(id, thisRun, outcome, outcome.error);
  } catch (err) {
    finish(id, thisRun, null, { kind: "sandbox", message: messageOf(err) });
  }
}

/** Post the result of run `id`; `thisRun` is its output (null when it never started). */
function finish(id, thisRun, outcome, error) {
  if (thisRun && current === thisRun) {
    postOutput(true);
    current = null;
  }
  post({
    type: "result",
    id,
    ok: error === null,
    stdout: thisRun ? thisRun.stdout.text() : "",
    stderr: thisRun ? thisRun.stderr.text() : "",
    files: outcome ? outcome.files : {},
    deleted: outcome ? outcome.deleted : [],
    error,
  });
}

self.addEventListener("message", (event) => {
  const message = event.data;
  if (message === null || typeof message !== "object") return;
  if (message.type === "init") void init(message);
  else if (message.type === "run") void run(message);
  else if (message.type === "fetched") onFetched(message);
});
