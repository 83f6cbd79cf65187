/** What a run_python approval card says about the network: plainly on or off, from the call's `network`. */

import { el } from "../common/dom";

/** The notice for a `run_python` call (null for other tools): `network: true` is stated as a warning. */
export function networkNotice(name: string, args: unknown): HTMLElement | null {
  if (name !== "run_python") return null;
  const on = typeof args === "object" && args !== null && (args as { network?: unknown }).network === true;
  const text = on
    ? "Network ON: this code can fetch from the web (through the app's proxy) and send data out."
    : "Network off: this code cannot reach the network.";
  const attrs = { class: `approval-network${on ? " approval-network-on" : ""}`, "data-network": on ? "on" : "off" };
  return el("p", { ...attrs, "data-testid": "approval-network" }, text);
}
