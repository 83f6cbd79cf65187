/**
 * One `exec_request` run in the sandbox: its output streamed back as `exec_output` while it runs
 * (live-output.ts batches it), then one `exec_result` that fits in a frame (exec-fit.ts). A sandbox
 * that is missing or fails still answers, with an error the model sees.
 */

import type { HostMessage, RuntimeMessage } from "../protocol/messages";
import type { ExecOutcome } from "../protocol/sandbox-messages";
import { fitExecOutcome } from "./exec-fit";
import { LiveOutput } from "./live-output";

export type ExecRequestMessage = Extract<RuntimeMessage, { type: "exec_request" }>;
export type Exec = (
  request: ExecRequestMessage,
  onOutput?: (stream: "stdout" | "stderr", text: string) => void,
) => Promise<ExecOutcome>;

export async function runExec(
  exec: Exec | undefined,
  request: ExecRequestMessage,
  send: (message: HostMessage) => void,
): Promise<void> {
  let outcome: ExecOutcome;
  if (!exec) {
    outcome = execFailure("code execution is not available in this build");
  } else {
    const live = new LiveOutput((stream, text) => send({ type: "exec_output", id: request.id, stream, text }));
    try {
      outcome = await exec(request, (stream, text) => live.add(stream, text));
    } catch (err) {
      outcome = execFailure(`the sandbox failed: ${String(err)}`);
    }
    live.flush(); // what came last goes before the result
  }
  send({ type: "exec_result", id: request.id, ...fitExecOutcome(outcome) });
}

function execFailure(message: string): ExecOutcome {
  return { ok: false, stdout: "", stderr: "", files: {}, error: { kind: "sandbox", message } };
}
