/**
 * Settings → Advanced: reasoning effort, the context window to ask for and the most tokens one answer
 * may take. Each change is stored and pushed to the runtime by `changed`; a new context window also
 * asks for the model list again (it reports the window in use).
 */

import { byTestId } from "../ui/common/dom";
import { isReasoningEffort, parseContextLength, parseMaxOutput, type AppSettings } from "./model";

export interface AdvancedHooks {
  /** Store the settings and tell the runtime. */
  changed(): Promise<void>;
  /** The window changed: list the models again. */
  windowChanged(): Promise<unknown>;
}

export function wireAdvanced(settings: () => AppSettings, hooks: AdvancedHooks): void {
  const effort = byTestId<HTMLSelectElement>("reasoning-effort");
  effort.value = settings().reasoning;
  effort.addEventListener("change", () => {
    if (!isReasoningEffort(effort.value)) return;
    settings().reasoning = effort.value;
    void hooks.changed();
  });
  const contextInput = byTestId<HTMLInputElement>("context-window-input");
  contextInput.value = shown(settings().contextLength);
  contextInput.addEventListener("change", () => {
    settings().contextLength = parseContextLength(contextInput.value);
    contextInput.value = shown(settings().contextLength);
    void hooks.changed().then(() => hooks.windowChanged());
  });
  const outputInput = byTestId<HTMLInputElement>("max-output-input");
  outputInput.value = shown(settings().maxOutput);
  outputInput.addEventListener("change", () => {
    settings().maxOutput = parseMaxOutput(outputInput.value);
    outputInput.value = shown(settings().maxOutput);
    void hooks.changed();
  });
}

const shown = (n: number | null): string => (n === null ? "" : String(n));
