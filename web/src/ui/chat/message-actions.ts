/**
 * The actions on each message: copy its markdown source (`message-copy`), ask again for the last
 * reply (`message-regenerate`, one at a time, on the last assistant reply), send it again after an
 * error (`message-retry`, on the last turn's error), and edit a message the
 * person sent and send it again (`message-edit` → `message-edit-input`, `message-edit-save`); the
 * versions and the fork are branches.ts's.
 *
 * Messages and tool cards carry `data-turn-id`; regenerating or editing removes the turns from
 * there on from the view, and the chat sends the text again as a new turn that replaces them (the
 * runtime keeps the old ones in the store as an earlier branch).
 */

import { copyText } from "../common/clipboard";
import "./message-actions.css";
import { el } from "../common/dom";
import { forkButton, type BranchHost } from "./branches";

export interface MessageActionHost extends BranchHost {
  /** A turn runs: nothing can be regenerated or edited now. */
  busy(): boolean;
  /** Send `text` again as a new turn replacing the turn `replaces` and every later one. */
  resend(userNode: HTMLElement, text: string, replaces: string): void;
}

const sources = new WeakMap<HTMLElement, () => string>();

/** Give a message node its action bar; `source` is its text as written (markdown for replies). */
export function attachActions(node: HTMLElement, source: () => string, host: MessageActionHost): void {
  sources.set(node, source);
  const copy = button("message-copy", "Copy", "Copy this message (markdown)");
  copy.addEventListener(
    "click",
    () => void copyText(sourceOf(node)).then((ok) => flash(copy, ok ? "Copied" : "Copy failed")),
  );
  const bar = el("div", { class: "message-actions" }, copy);
  if (node.dataset.role === "user") {
    const edit = button("message-edit", "Edit", "Edit and send again");
    edit.addEventListener("click", () => startEdit(node, host));
    bar.append(edit);
  }
  if (node.dataset.role === "user" || node.dataset.role === "assistant") bar.append(forkButton(node, host));
  node.append(bar);
}

/** A message's text changed (an edit sent again). */
export function setSource(node: HTMLElement, source: () => string): void {
  sources.set(node, source);
}

export function sourceOf(node: HTMLElement): string {
  return sources.get(node)?.() ?? "";
}

/**
 * Put the one `message-regenerate` on the last reply of the last turn, and the one `message-retry` on
 * that turn's error (none while a turn runs). Retry sends the turn's message again, as regenerate does.
 */
export function placeRegenerate(list: HTMLElement, host: MessageActionHost): void {
  for (const old of list.querySelectorAll('[data-testid="message-regenerate"], [data-testid="message-retry"]'))
    old.remove();
  if (host.busy()) return;
  const users = list.querySelectorAll<HTMLElement>('[data-testid="message"][data-role="user"]');
  const lastUser = users[users.length - 1];
  const turn = lastUser?.dataset.turnId;
  if (!lastUser || !turn) return;
  const resend = (): void => {
    if (!host.busy()) host.resend(lastUser, sourceOf(lastUser), turn);
  };
  const errors = list.querySelectorAll<HTMLElement>('[data-testid="message"][data-role="error"]');
  const lastError = errors[errors.length - 1];
  if (lastError && lastError.dataset.turnId === turn && !lastError.classList.contains("kept")) {
    const retry = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "message-retry", title: "Send this message again" },
      "Retry",
    );
    retry.addEventListener("click", resend);
    lastError.querySelector(".message-actions")?.append(retry);
  }
  const replies = list.querySelectorAll<HTMLElement>('[data-testid="message"][data-role="assistant"]');
  const lastReply = replies[replies.length - 1];
  if (!lastReply || lastReply.dataset.turnId !== turn) return;
  const regenerate = button("message-regenerate", "Regenerate", "Ask again for this reply");
  regenerate.addEventListener("click", resend);
  lastReply.querySelector(".message-actions")?.append(regenerate);
}

/** The last message the person sent, opened for editing (↑ in the empty box); false when none. */
export function editLast(list: HTMLElement, host: MessageActionHost): boolean {
  const users = list.querySelectorAll<HTMLElement>('[data-testid="message"][data-role="user"]');
  const last = users[users.length - 1];
  if (!last || host.busy() || !last.dataset.turnId) return false;
  startEdit(last, host);
  return true;
}

/** Remove everything shown after `node` (the turns an edit or a regenerate replaces). */
export function removeAfter(node: HTMLElement): HTMLElement[] {
  const removed: HTMLElement[] = [];
  while (node.nextElementSibling instanceof HTMLElement) {
    const next = node.nextElementSibling;
    removed.push(next);
    next.remove();
  }
  return removed;
}

function startEdit(node: HTMLElement, host: MessageActionHost): void {
  const turn = node.dataset.turnId;
  if (host.busy() || !turn || node.querySelector(".message-editor")) return;
  const body = node.querySelector<HTMLElement>(".message-body");
  const input = el("textarea", {
    class: "message-edit-input",
    "data-testid": "message-edit-input",
    "aria-label": "Edit the message",
    rows: "3",
  });
  input.value = sourceOf(node);
  const save = el(
    "button",
    { type: "button", class: "btn btn-primary btn-small", "data-testid": "message-edit-save" },
    "Send",
  );
  const cancel = el(
    "button",
    { type: "button", class: "btn btn-small", "data-testid": "message-edit-cancel" },
    "Cancel",
  );
  const editor = el(
    "div",
    { class: "message-editor" },
    input,
    el("div", { class: "message-editor-actions" }, cancel, save),
  );
  const close = (): void => {
    editor.remove();
    if (body) body.hidden = false;
    node.classList.remove("editing");
  };
  const submit = (): void => {
    const text = input.value.trim();
    if (!text || host.busy()) return;
    close();
    host.resend(node, text, turn);
  };
  save.addEventListener("click", submit);
  cancel.addEventListener("click", close);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation(); // Esc leaves the edit, nothing else
      close();
    }
  });
  if (body) body.hidden = true;
  node.classList.add("editing");
  node.insertBefore(editor, node.querySelector(".message-actions"));
  input.focus();
  input.setSelectionRange(input.value.length, input.value.length);
}

/** The label is drawn by CSS (`data-label`), so a message's text stays exactly what was said. */
function button(testid: string, label: string, title: string): HTMLButtonElement {
  return el("button", {
    type: "button",
    class: "btn btn-ghost btn-icon",
    "data-testid": testid,
    "data-label": label,
    title,
    "aria-label": title,
  });
}

function flash(target: HTMLButtonElement, text: string): void {
  const label = target.dataset.label ?? "";
  target.dataset.label = text;
  setTimeout(() => (target.dataset.label = label), 1500);
}
