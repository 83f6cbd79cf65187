/**
 * The Python tool server (scripts/mcp/python_server.py, the official `mcp` SDK) for a test file:
 * `startPythonServer(args)` in `beforeAll` resolves with its endpoint URL once it listens (`args` as
 * the script takes them: `--legacy-only`, `--cors-origin`, `--cors-allow-headers`); `stop()` in `afterAll`.
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { createInterface } from "node:readline";

export interface PythonServer {
  url: string;
  stop(): void;
}

export async function startPythonServer(args: string[] = [], timeoutMs = 30_000): Promise<PythonServer> {
  const python = existsSync(".venv/bin/python") ? ".venv/bin/python" : "python3";
  const server = spawn(python, ["scripts/mcp/python_server.py", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PYTHONPATH: process.cwd() }, // it imports scripts.mcp.skills_extension
  });
  const lines = createInterface({ input: server.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      server.kill();
      reject(new Error("the Python tool server did not start"));
    }, timeoutMs);
    lines.once("line", (line) => {
      clearTimeout(timer);
      if (!line.startsWith("tool server at ")) {
        server.kill();
        reject(new Error(`the Python tool server did not start: ${line}`));
      }
      resolve(line.replace("tool server at ", "").trim());
    });
  });
  await listening(new URL(url), Date.now() + timeoutMs);
  return { url, stop: () => server.kill() };
}

/** The script prints its URL once the socket is bound; the server accepts a little later. */
async function listening(url: URL, deadline: number): Promise<void> {
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`nothing listens at ${url.href}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
