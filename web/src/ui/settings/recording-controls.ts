/**
 * Record and replay in the page: `recording-export` downloads the open session's model traffic as a
 * recording; with provider `replay`, `replay-file-input` loads the recording that answers the model
 * requests (the worker does both: worker/recording.ts).
 */

import type { RequestResult } from "../../protocol/main-worker-messages";
import { byTestId } from "../common/dom";
import { saveFile } from "../common/save-file";

export interface RecordingActions {
  exportRecording(): Promise<RequestResult>;
  loadReplay(text: string): Promise<RequestResult>;
  /** The recording was loaded (its provider's name), or why not. */
  loaded(ok: boolean, text: string): void;
  error(text: string): void;
}

export function mountRecordingControls(actions: RecordingActions): { showReplayInput(shown: boolean): void } {
  const input = byTestId<HTMLInputElement>("replay-file-input");
  const field = input.closest<HTMLElement>(".replay-field") ?? input;
  byTestId("recording-export").addEventListener("click", () => {
    void actions.exportRecording().then((reply) => {
      if (!reply.ok || typeof reply.value !== "string") {
        actions.error(`The recording could not be exported: ${reply.ok ? "no recording" : reply.message}`);
        return;
      }
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      saveFile(`tidepool-recording-${stamp}.json`, reply.value);
    });
  });
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    if (!file) return;
    void file.text().then(async (text) => {
      const reply = await actions.loadReplay(text);
      actions.loaded(
        reply.ok,
        reply.ok
          ? `Replaying ${file.name} (recorded with ${String(reply.value)}): the model's answers come from the file, and no network is used unless you allow a call that asks for it.`
          : reply.message,
      );
    });
  });
  return { showReplayInput: (shown) => (field.hidden = !shown) };
}
