/**
 * An `exec_result` must fit in one frame (MAX_FRAME_BYTES). The sandbox hands back every file the
 * code wrote, base64 in the result; when they would not fit, the largest are left out (the runtime
 * takes none over 10 MiB anyway) and stderr says which, so the model and the person know what did
 * not come back and can write smaller files instead. The output itself is kept.
 */

import { DEFAULT_MAX_FRAME } from "../protocol/codec";
import type { ExecOutcome } from "../protocol/sandbox-messages";

/** Room left for the frame's other fields and JSON escaping of the output. */
const ROOM = 64 * 1024;

export function fitExecOutcome(outcome: ExecOutcome, limit = DEFAULT_MAX_FRAME): ExecOutcome {
  const outputBytes = 2 * (outcome.stdout.length + outcome.stderr.length); // JSON escaping at worst doubles most text
  let budget = limit - ROOM - outputBytes;
  const entries = Object.entries(outcome.files).map(([path, data]) => ({
    path,
    data,
    size: data.length + path.length + 8,
  }));
  const total = entries.reduce((sum, e) => sum + e.size, 0);
  if (total <= budget) return outcome;
  const files: Record<string, string> = {};
  const left: string[] = [];
  for (const entry of [...entries].sort((a, b) => a.size - b.size)) {
    if (entry.size <= budget) {
      files[entry.path] = entry.data;
      budget -= entry.size;
    } else {
      left.push(`${entry.path} (${mib(Math.floor((entry.data.length * 3) / 4))})`);
    }
  }
  const note =
    `\n[not handed back: ${left.sort().join(", ")}; a run's files come back in one result of at most ` +
    `${mib(limit)}; write fewer or smaller files per run]\n`;
  return { ...outcome, files, stderr: outcome.stderr + note };
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
