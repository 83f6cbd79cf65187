/**
 * The hostile tool server (scripts/mcp/hostile_server.py, one misbehaviour per path) for a test file:
 * `startHostileServer()` in `beforeAll` resolves with its base URL once it listens; `stop()` in `afterAll`.
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";

export interface HostileServer {
  base: string;
  stop(): void;
}

export async function startHostileServer(timeoutMs = 20_000): Promise<HostileServer> {
  const python = existsSync(".venv/bin/python") ? ".venv/bin/python" : "python3";
  const server = spawn(python, ["scripts/mcp/hostile_server.py", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: server.stdout });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      server.kill();
      reject(new Error("the hostile server did not start"));
    }, timeoutMs);
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(line.replace("tool server at ", "").trim());
    });
  });
  return { base, stop: () => server.kill() };
}
