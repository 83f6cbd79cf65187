/**
 * The sandbox's messages about the network: `exec_request.network` is a plain boolean (off unless true),
 * and the install-time `fetch` / `installed` and the bootstrap's `crashed` are checked like every other
 * message from the sandbox, which is untrusted.
 */

import { describe, expect, it } from "vitest";
import { parseRuntimeMessage } from "../src/protocol/messages";
import { parseFromSandbox, runOf } from "../src/protocol/sandbox-messages";
import { installHosts } from "../src/sandbox/sandbox";

const BASE = { type: "exec_request", id: "x1", code: "print(1)", files: {}, timeout_s: 5 };

describe("exec_request network", () => {
  it.each([
    { name: "left out", fields: BASE, network: false },
    { name: "false", fields: { ...BASE, network: false }, network: false },
    { name: "true", fields: { ...BASE, network: true }, network: true },
  ])("is $network when $name", ({ fields, network }) => {
    const parsed = parseRuntimeMessage(fields);
    if (!parsed.ok || parsed.message.type !== "exec_request") throw new Error(JSON.stringify(parsed));
    expect(runOf(parsed.message)).toMatchObject({ network });
  });

  it.each([{ network: "true" }, { network: 1 }, { network: {} }, { network: null }])(
    "refuses network=$network",
    (extra) => {
      expect(parseRuntimeMessage({ ...BASE, ...extra })).toMatchObject({ ok: false, reason: "bad_fields" });
    },
  );
});

describe("messages from the sandbox about fetching", () => {
  it("reads a fetch request and the end of the install", () => {
    const url = "https://pypi.org/simple/tabulate/";
    expect(parseFromSandbox({ type: "fetch", id: "r1", seq: 3, url, accept: null })).toEqual({
      type: "fetch",
      id: "r1",
      seq: 3,
      url,
      accept: null,
    });
    expect(parseFromSandbox({ type: "installed", id: "r1" })).toEqual({ type: "installed", id: "r1" });
    expect(parseFromSandbox({ type: "crashed", message: "boom" })).toEqual({ type: "crashed", message: "boom" });
  });

  it.each([
    { name: "no url", data: { type: "fetch", id: "r1", seq: 1, accept: null } },
    { name: "a fractional seq", data: { type: "fetch", id: "r1", seq: 1.5, url: "https://x", accept: null } },
    { name: "an accept that is not text", data: { type: "fetch", id: "r1", seq: 1, url: "https://x", accept: 3 } },
    { name: "installed without id", data: { type: "installed" } },
    { name: "crashed without message", data: { type: "crashed" } },
  ])("drops $name", ({ data }) => {
    expect(parseFromSandbox(data)).toBeNull();
  });
});

describe("where a run's install may fetch from", () => {
  it("is PyPI's hosts by default", () => {
    expect([...installHosts(null)]).toEqual(["pypi.org", "files.pythonhosted.org"]);
    expect([...installHosts([])]).toEqual(["pypi.org", "files.pythonhosted.org"]);
  });

  it("is the configured indexes' hosts, placeholders and all, and nothing that is not a URL", () => {
    const hosts = installHosts(["http://127.0.0.1:9/simple", "https://mirror.test/{package_name}/json", "nope"]);
    expect([...hosts]).toEqual(["127.0.0.1:9", "mirror.test"]);
  });
});
