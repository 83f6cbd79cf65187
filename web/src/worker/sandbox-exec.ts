/**
 * The adapter's `exec` and `cancelExec` hooks backed by a SandboxRunner: an `exec_request` frame (checked
 * by the adapter) is run in the opaque-origin sandbox, and its result handed back as the `exec_result` fields.
 */

import { runOf, type ExecResult, type SandboxRunner } from "../sandbox/runner";
import type { ExecOutcome, ExecRequestMessage } from "./adapter";

export interface SandboxHooks {
  exec(request: ExecRequestMessage): Promise<ExecOutcome>;
  cancelExec(id: string): void;
}

export function sandboxHooks(runner: SandboxRunner): SandboxHooks {
  return {
    async exec(message) {
      return toOutcome(await runner.run(runOf(message)));
    },
    cancelExec(id) {
      runner.cancel(id);
    },
  };
}

export function toOutcome(result: ExecResult): ExecOutcome {
  return {
    ok: result.ok,
    stdout: result.stdout,
    stderr: result.stderr,
    files: result.files,
    deleted: result.deleted,
    error: result.error,
  };
}
