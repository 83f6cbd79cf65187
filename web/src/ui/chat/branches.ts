/**
 * The versions of a message and forks: a message with other versions (an edit or a regenerate kept the
 * turns it replaced) shows `branch-prev` · `k/n` · `branch-next` (`data-branch="k/n"` on the message),
 * and every stored message a `message-fork` (a new chat with the history up to it). What a message's
 * versions are comes from the runtime's session view (`branch`, persist/branch_view.py); a message
 * knows its stored `seq` (`data-seq`) once a view has named it: drawn from history, or matched after
 * its turn ended (`markStored`).
 */

import type { SessionView, ViewBranch, ViewMessage } from "../../protocol/requests";
import { el } from "../common/dom";

export interface BranchHost {
  /** A turn runs or the runtime is not there: versions cannot be switched, nothing can be forked. */
  busy(): boolean;
  /** Bring version `seq` into view (with its later turns); `node`'s `testid` button was pressed. */
  showBranch(seq: number, node: HTMLElement, testid: string): void;
  /** Start a new chat from message `seq`. */
  fork(seq: number): void;
}

/** A drawn message is the view's `message`: its seq, and its versions when it has others. */
export function markMessage(node: HTMLElement, message: ViewMessage, host: BranchHost): void {
  node.dataset.seq = String(message.seq);
  node.querySelector(".message-branch")?.remove();
  delete node.dataset.branch;
  if (message.branch) placeControl(node, message.branch, host);
}

/** Name the drawn messages of the turns `view` holds by their stored messages (a turn just ended). */
export function markStored(list: HTMLElement, view: SessionView, host: BranchHost): void {
  const stored = new Map<string, ViewMessage[]>();
  for (const message of view.messages) {
    if ((message.role !== "user" && message.role !== "assistant") || !message.turn_id) continue;
    if (!message.text && message.images.length === 0) continue; // not drawn (history.ts)
    const key = `${message.turn_id}/${message.role}`;
    stored.set(key, [...(stored.get(key) ?? []), message]);
  }
  const seen = new Map<string, number>();
  for (const node of list.querySelectorAll<HTMLElement>('[data-testid="message"][data-turn-id]')) {
    const key = `${node.dataset.turnId}/${node.dataset.role}`;
    const at = seen.get(key) ?? 0;
    seen.set(key, at + 1);
    const message = stored.get(key)?.[at];
    if (message) markMessage(node, message, host);
  }
}

/** The fork button of a message (it works once the message has a `data-seq`). */
export function forkButton(node: HTMLElement, host: BranchHost): HTMLButtonElement {
  const fork = el("button", {
    type: "button",
    class: "btn btn-ghost btn-icon message-fork",
    "data-testid": "message-fork",
    "data-label": "Fork",
    title: "Start a new chat from here",
    "aria-label": "Start a new chat with the history up to this message",
  });
  fork.addEventListener("click", () => {
    const seq = Number(node.dataset.seq);
    if (seq > 0 && !host.busy()) host.fork(seq);
  });
  return fork;
}

function placeControl(node: HTMLElement, branch: ViewBranch, host: BranchHost): void {
  const label = `${branch.index}/${branch.count}`;
  node.dataset.branch = label;
  // The glyphs and the label are drawn by CSS (`data-label`), as the other actions' are: a message's text is
  // what it says, never its controls.
  const step = (testid: string, glyph: string, title: string, seq: number | null): HTMLButtonElement => {
    const button = el("button", {
      type: "button",
      class: "btn btn-ghost btn-icon",
      "data-testid": testid,
      "data-label": glyph,
      title,
      "aria-label": title,
    });
    button.disabled = seq === null;
    button.addEventListener("click", () => {
      if (seq !== null && !host.busy()) host.showBranch(seq, node, testid);
    });
    return button;
  };
  const control = el(
    "span",
    { class: "message-branch", role: "group", "aria-label": `Version ${branch.index} of ${branch.count}` },
    step("branch-prev", "‹", "Show the previous version", branch.prev),
    el("span", { class: "message-branch-label", "aria-hidden": "true", "data-label": label }),
    step("branch-next", "›", "Show the next version", branch.next),
  );
  const bar = node.querySelector(".message-actions");
  if (bar) bar.prepend(control);
  else node.append(control);
}

/** Another version of a message: `redraw` shows the view from it (false: it did not), then the pressed arrow
 * (or its twin, when the pressed one is now disabled) of the message at the same place is focused again. */
export function switchBranch(
  list: HTMLElement,
  node: HTMLElement,
  testid: string,
  redraw: () => Promise<boolean>,
): void {
  const messages = (): HTMLElement[] => [...list.querySelectorAll<HTMLElement>('[data-testid="message"]')];
  const at = messages().indexOf(node);
  void redraw().then((shown) => {
    if (!shown) return;
    const again = messages()[at];
    const buttons = ["branch-prev", "branch-next"].map((id) =>
      again?.querySelector<HTMLButtonElement>(`[data-testid="${id}"]`),
    );
    const pressed = buttons[testid === "branch-prev" ? 0 : 1];
    (pressed && !pressed.disabled ? pressed : buttons.find((b) => b && !b.disabled))?.focus();
  });
}
