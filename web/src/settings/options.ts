/**
 * The settings' enumerations as the `<option>`s of their selects (provider, permission mode, reasoning
 * effort), written from the runtime's lists (runtime/host/constants.py, generated into constants.gen.ts)
 * with the words the page shows for each; index.html holds the empty selects only.
 */

import { REASONING_EFFORTS } from "../protocol/messages";
import { byTestId } from "../ui/common/dom";
import { PERMISSION_MODES, PROVIDERS, REASONING_LABELS } from "./model";

function fill(select: HTMLSelectElement, options: readonly { value: string; label: string }[]): void {
  select.replaceChildren(...options.map(({ value, label }) => new Option(label, value)));
}

/** Run once before anything reads or sets those selects. */
export function fillSettingsOptions(): void {
  fill(
    byTestId<HTMLSelectElement>("provider-select"),
    PROVIDERS.map((p) => ({ value: p.kind, label: p.label })),
  );
  fill(
    byTestId<HTMLSelectElement>("permission-mode"),
    PERMISSION_MODES.map((m) => ({ value: m.mode, label: m.label })),
  );
  fill(
    byTestId<HTMLSelectElement>("reasoning-effort"),
    REASONING_EFFORTS.map((e) => ({ value: e, label: REASONING_LABELS[e] })),
  );
}
