/**
 * The adapter's `exec` and `cancelExec` hooks backed by a SandboxRunner: an `exec_request` frame (checked
 * by the adapter) is run in the opaque-origin sandbox, and its result handed back as the `exec_result` fields.
 */

import { runOf, type ExecOutcome, type ExecResult } from "../protocol/sandbox-messages";
import type { SandboxRunner } from "../sandbox/runner";
import type { OutputListener } from "../sandbox/sandbox";
import type { ExecRequestMessage } from "./adapter";

export interface SandboxHooks {
  exec(request: ExecRequestMessage, onOutput?: OutputListener): Promise<ExecOutcome>;
  cancelExec(id: string): void;
}

export function sandboxHooks(runner: SandboxRunner): SandboxHooks {
  return {
    async exec(message, onOutput) {
      return toOutcome(await runner.run(runOf(message), onOutput));
    },
    cancelExec(id) {
      runner.cancel(id);
    },
  };
}

/** The result less its frame's type and id (the adapter puts back the request's id). */
export function toOutcome(result: ExecResult): ExecOutcome {
  const { type: _type, id: _id, ...outcome } = result;
  return outcome;
}
