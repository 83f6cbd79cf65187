/**
 * Uploads reach the runtime as files (incoming.ts through the adapter): the request frame carries the
 * path and size, never the bytes; the file is gone once the runtime answered; a request over the frame
 * limit and a run's result over it fail or shrink with a clear message instead of vanishing.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_FRAME_BYTES } from "../src/protocol/constants.gen";
import { fitExecOutcome } from "../src/worker/exec-fit";
import { extension, Incoming, type IncomingFS } from "../src/worker/incoming";
import { AdapterHarness } from "./support/adapter-harness";

let base = "";

/** Pyodide's FS calls on a real folder. */
function diskFS(): IncomingFS {
  return {
    mkdirTree: (path) => mkdirSync(join(base, path), { recursive: true }),
    writeFile: (path, data) => writeFileSync(join(base, path), data),
    unlink: (path) => unlinkSync(join(base, path)),
    readFile: (path) => new Uint8Array(readFileSync(join(base, path))),
  };
}

function onDisk(path: string): string {
  return join(base, path);
}

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "incoming-"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function ready(harness: AdapterHarness): void {
  harness.adapter.start();
  harness.fromRuntime({ type: "hello", protocol: 1 });
}

describe("a request with an attached file", () => {
  it("stores the bytes as a file, sends only its path and size, and removes it after the reply", () => {
    const harness = new AdapterHarness({ incoming: new Incoming(diskFS()) });
    ready(harness);
    const data = new Uint8Array(256 * 1024);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) & 0xff;
    harness.adapter.onMain({
      type: "request",
      requestId: "q1",
      method: "skill_import",
      params: { filename: "big.tar.gz" },
      file: { name: "big.tar.gz", data },
    });
    const [frame] = harness.sent("request");
    const params = frame?.params as Record<string, unknown>;
    expect(params.filename).toBe("big.tar.gz");
    expect(params.size).toBe(data.length);
    expect(String(params.path)).toMatch(/^\/tmp\/incoming\/h\d+\.tar\.gz$/);
    expect(harness.rawBytes.reduce((n, b) => n + b.length, 0)).toBeLessThan(1024);
    expect(Buffer.compare(readFileSync(onDisk(String(params.path))), Buffer.from(data))).toBe(0);
    harness.fromRuntime({ type: "reply", id: frame?.id, ok: true, result: { state: "ok" } });
    expect(existsSync(onDisk(String(params.path)))).toBe(false);
    expect(harness.toMain).toContainEqual({
      type: "reply",
      requestId: "q1",
      result: { ok: true, value: { state: "ok" } },
    });
  });

  it("removes the file after a failed reply too", () => {
    const harness = new AdapterHarness({ incoming: new Incoming(diskFS()) });
    ready(harness);
    harness.adapter.onMain({
      type: "request",
      requestId: "q2",
      method: "skill_import",
      params: {},
      file: { name: "a.zip", data: new Uint8Array([1]) },
    });
    const [frame] = harness.sent("request");
    const path = String((frame?.params as Record<string, unknown>).path);
    harness.fromRuntime({ type: "reply", id: frame?.id, ok: false, error: { code: "bad_params", message: "no" } });
    expect(existsSync(onDisk(path))).toBe(false);
    expect(harness.toMain.at(-1)).toMatchObject({
      type: "reply",
      requestId: "q2",
      result: { ok: false, code: "bad_params" },
    });
  });

  it("is refused with a reason where files cannot be handed over", () => {
    const harness = new AdapterHarness();
    ready(harness);
    harness.adapter.onMain({
      type: "request",
      requestId: "q3",
      method: "skill_import",
      params: {},
      file: { name: "a.zip", data: new Uint8Array([1]) },
    });
    expect(harness.sent("request")).toEqual([]);
    expect(harness.toMain.at(-1)).toMatchObject({ requestId: "q3", result: { ok: false, code: "unavailable" } });
  });

  it.each([
    ["skill.tar.gz", ".tar.gz"],
    ["Skill.ZIP", ".zip"],
    ["noext", ""],
    ["../../evil/x.tgz", ".tgz"],
  ])("%s is stored with the ending %s", (name, ending) => {
    expect(extension(name)).toBe(ending);
  });
});

describe("frames over the limit", () => {
  it("a request too large for one frame fails at once with a reason, and nothing is sent", () => {
    const harness = new AdapterHarness({ incoming: new Incoming(diskFS()) });
    ready(harness);
    const params = { text: "x".repeat(MAX_FRAME_BYTES) };
    harness.adapter.onMain({
      type: "request",
      requestId: "q4",
      method: "memory_save",
      params,
      file: { name: "a.zip", data: new Uint8Array([1]) },
    });
    expect(harness.sent("request")).toEqual([]);
    const reply = harness.toMain.find((m) => m.type === "reply");
    expect(reply).toMatchObject({ requestId: "q4", result: { ok: false, code: "frame_too_large" } });
    expect(JSON.stringify(reply)).toContain(`limit of ${MAX_FRAME_BYTES}`);
    expect(existsSync(onDisk("/tmp/incoming/h1.zip"))).toBe(false);
  });

  it("a run's result keeps its output and the files that fit, and says which did not come back", () => {
    const mib = (n: number, fill: string) => fill.repeat(Math.ceil((n * 1024 * 1024 * 4) / 3));
    const files = { "small.txt": "aGk=", "big1.bin": mib(7, "A"), "big2.bin": mib(7, "B"), "big3.bin": mib(7, "C") };
    const fitted = fitExecOutcome({ ok: true, stdout: "done\n", stderr: "", files, deleted: [], error: null });
    expect(fitted.stdout).toBe("done\n");
    expect(Object.keys(fitted.files)).toContain("small.txt");
    expect(Object.keys(fitted.files).length).toBe(2);
    expect(JSON.stringify(fitted).length).toBeLessThan(MAX_FRAME_BYTES);
    expect(fitted.stderr).toMatch(/not handed back: big\d\.bin \(7\.0 MiB\), big\d\.bin \(7\.0 MiB\)/);
  });

  it("a result that fits is left as it is", () => {
    const outcome = { ok: true, stdout: "", stderr: "", files: { "a.txt": "aGk=" }, deleted: [], error: null };
    expect(fitExecOutcome(outcome)).toBe(outcome);
  });
});

describe("a message too long for one frame", () => {
  it("is not sent, and the page is told why", () => {
    const harness = new AdapterHarness();
    ready(harness);
    harness.adapter.onMain({ type: "user_message", text: "y".repeat(MAX_FRAME_BYTES), turnId: "t1" });
    expect(harness.sent("user_message")).toEqual([]);
    const error = harness.toMain.find((m) => m.type === "runtime_error");
    expect(error).toMatchObject({ code: "message_too_large", fatal: false });
    expect(JSON.stringify(error)).toContain("files panel");
  });
});

describe("a result too large for one frame", () => {
  it("is read from the file the runtime named, which is then removed", () => {
    const harness = new AdapterHarness({ incoming: new Incoming(diskFS()) });
    ready(harness);
    expect(harness.sent("hello")[0]?.capabilities).toContain("files");
    harness.adapter.onMain({ type: "request", requestId: "q5", method: "session_export", params: {} });
    const [frame] = harness.sent("request");
    mkdirSync(onDisk("/tmp/outgoing"), { recursive: true });
    const value = { text: "long ".repeat(1000) };
    writeFileSync(onDisk("/tmp/outgoing/h1.json"), JSON.stringify(value));
    harness.fromRuntime({ type: "reply", id: frame?.id, ok: true, result_file: "/tmp/outgoing/h1.json" });
    expect(harness.toMain.at(-1)).toEqual({ type: "reply", requestId: "q5", result: { ok: true, value } });
    expect(existsSync(onDisk("/tmp/outgoing/h1.json"))).toBe(false);
  });

  it("that the runtime could not send fails its request with the reason at once", () => {
    const harness = new AdapterHarness({ incoming: new Incoming(diskFS()) });
    ready(harness);
    harness.adapter.onMain({ type: "request", requestId: "q6", method: "session_export", params: {} });
    const [frame] = harness.sent("request");
    harness.fromRuntime({
      type: "error",
      id: frame?.id,
      code: "frame_too_large",
      message: "frame of 20000000 bytes is over the limit of 16777216",
    });
    expect(harness.toMain.at(-1)).toMatchObject({
      type: "reply",
      requestId: "q6",
      result: { ok: false, code: "frame_too_large" },
    });
  });
});
