import { describe, expect, it } from "vitest";
import { atServerOrigin, McpEgressError, serverFetch, type FetchFn } from "../src/mcp/egress";
import { serverNameProblem, serverUrlProblem } from "../src/protocol/tool-servers";

const SERVER = "http://127.0.0.1:3001/mcp";

/** A network stand-in: records what was asked and answers `respond`. */
function network(respond: () => Response): { fetch: FetchFn; seen: { url: string; init?: RequestInit }[] } {
  const seen: { url: string; init?: RequestInit }[] = [];
  return {
    seen,
    fetch: async (url, init) => {
      seen.push({ url: String(url), init });
      return respond();
    },
  };
}

describe("the MCP kind of the egress rule", () => {
  it("reaches the server's origin only, and sends its token there", async () => {
    const net = network(() => new Response("{}", { status: 200 }));
    const fetchFor = serverFetch(SERVER, "s3cret", 1024, net.fetch);
    await fetchFor("http://127.0.0.1:3001/mcp", { method: "POST" });
    expect(new Headers(net.seen[0]?.init?.headers).get("authorization")).toBe("Bearer s3cret");
    expect(net.seen[0]?.init?.credentials).toBe("omit");
    await expect(fetchFor("http://127.0.0.1:3002/mcp")).rejects.toBeInstanceOf(McpEgressError);
    await expect(fetchFor("https://evil.example/.well-known/oauth-authorization-server")).rejects.toThrow(
      /not at the tool server's origin/,
    );
    expect(net.seen).toHaveLength(1); // the refused ones never reached the network
  });

  it("reaches a signed-in server's authorization server too, never with a token", async () => {
    const net = network(() => new Response("{}", { status: 200 }));
    const fetchFor = serverFetch(SERVER, undefined, 1024, net.fetch, () => Promise.resolve(["http://127.0.0.1:9200"]));
    await fetchFor("http://127.0.0.1:9200/token", { method: "POST", headers: { Authorization: "Bearer at-1" } });
    expect(new Headers(net.seen[0]?.init?.headers).get("authorization")).toBeNull();
    expect(net.seen[0]?.init?.redirect).toBe("manual");
    await fetchFor(SERVER, { headers: { Authorization: "Bearer at-1" } }); // the SDK's own token, to the server
    expect(new Headers(net.seen[1]?.init?.headers).get("authorization")).toBe("Bearer at-1");
    await expect(fetchFor("http://127.0.0.1:9300/token")).rejects.toBeInstanceOf(McpEgressError);
    expect(net.seen).toHaveLength(2);
  });

  it("refuses a redirect, wherever it points", async () => {
    const net = network(
      () => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/mcp" } }),
    );
    await expect(serverFetch(SERVER, undefined, 1024, net.fetch)(SERVER)).rejects.toThrow(/redirect/);
    expect(net.seen[0]?.init?.redirect).toBe("manual");
  });

  it("cuts a body past the limit", async () => {
    const net = network(() => new Response("x".repeat(5000), { status: 200 }));
    const response = await serverFetch(SERVER, undefined, 1024, net.fetch)(SERVER);
    await expect(response.text()).rejects.toThrow(/more than/);
    const small = await serverFetch(SERVER, undefined, 1024, network(() => new Response("ok")).fetch)(SERVER);
    expect(await small.text()).toBe("ok");
  });

  it("compares origins, not prefixes", () => {
    expect(atServerOrigin("http://127.0.0.1:3001/other", SERVER)).toBe(true);
    expect(atServerOrigin("http://127.0.0.1:30011/mcp", SERVER)).toBe(false);
    expect(atServerOrigin("not a url", SERVER)).toBe(false);
  });
});

describe("a server's definition", () => {
  it("takes a name that can prefix tool names", () => {
    expect(serverNameProblem("everything")).toBeNull();
    expect(serverNameProblem("Bad Name")).toMatch(/lower-case/);
    expect(serverNameProblem("a".repeat(33))).not.toBeNull();
  });

  it("takes an http(s) URL without credentials", () => {
    expect(serverUrlProblem(SERVER)).toBeNull();
    expect(serverUrlProblem("ftp://x/mcp")).toMatch(/https/);
    expect(serverUrlProblem("https://user:pw@x/mcp")).toMatch(/token/);
    expect(serverUrlProblem("nope")).toMatch(/not a URL/);
  });
});
