/**
 * The reference server-everything (a pinned devDependency) for a test file, on a free port of 127.0.0.1
 * (scripts/mcp/loopback.cjs makes its host-less listen bind there): `startEverything()` in `beforeAll`
 * resolves with its /mcp URL once it listens; `stop()` in `afterAll`.
 */

import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";

export interface EverythingServer {
  url: string;
  stop(): void;
}

const ENTRY = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

export async function startEverything(timeoutMs = 30_000): Promise<EverythingServer> {
  const port = await freePort();
  const server = spawn("node", ["--require", "./scripts/mcp/loopback.cjs", ENTRY, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + timeoutMs;
  while (!(await listening(port))) {
    if (server.exitCode !== null || Date.now() > deadline) {
      server.kill();
      throw new Error("server-everything did not start");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => server.kill() };
}
