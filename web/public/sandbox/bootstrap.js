// Tidepool's sandbox bootstrap: the only thing that gives the run_python sandbox its own, strict CSP.
//
// The server serves this file (/sandbox/bootstrap.js, never cached) with a Content-Security-Policy of its
// own (scripts/server/sandbox_policy.py): scripts only from /pyodide/, connections only to /pyodide/ and
// /wheels/sandbox/ (plus /api/proxy for a run approved with `network: true`), workers only from `data:`.
// This worker starts the sandbox (sandbox-worker.js as a `data:` URL, so its origin is opaque) and that
// nested worker inherits this worker's policy, as does any worker the sandbox's code starts in turn.
//
// It holds nothing and reads nothing: the first message {type: "start", workerUrl} starts the sandbox,
// later messages from the runner go to the sandbox, and everything the sandbox posts goes back up
// unchanged (the runner treats it as untrusted). A crash of the sandbox is reported as
// {type: "crashed", message}. A network sandbox's proxy grant comes from the runner in `init`.

let sandbox = null;

function start(workerUrl) {
  sandbox = new Worker(workerUrl, { type: "module", name: "tidepool-sandbox" });
  sandbox.addEventListener("message", (event) => self.postMessage(event.data));
  sandbox.addEventListener("messageerror", () => self.postMessage({ type: "crashed", message: "unreadable message" }));
  sandbox.addEventListener("error", (event) => {
    event.preventDefault();
    self.postMessage({ type: "crashed", message: event.message || "the worker failed to start or threw" });
  });
}

/** The bytes a message carries, moved rather than copied: a fetched file, or init's snapshot (31 MB). */
function transferOf(message) {
  if (message && message.type === "fetched" && message.body) return [message.body];
  if (message && message.type === "init" && message.snapshot && message.snapshot.bytes) return [message.snapshot.bytes];
  return [];
}

self.addEventListener("message", (event) => {
  const message = event.data;
  if (sandbox !== null) {
    sandbox.postMessage(message, transferOf(message));
    return;
  }
  if (message && message.type === "start" && typeof message.workerUrl === "string") {
    try {
      start(message.workerUrl);
    } catch (err) {
      self.postMessage({ type: "crashed", message: err instanceof Error ? err.message : String(err) });
    }
  }
});
