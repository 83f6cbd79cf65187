/**
 * Keyboard shortcuts of the page, in one place:
 *
 * - Esc closes the open panel (settings, a side panel, the chats drawer). While a turn runs it stops
 *   the turn instead (the chat's own listener), unless the cursor is inside the panel.
 * - `/` (outside a text field) puts the cursor in the message box.
 * - Ctrl+Shift+O (⌘+Shift+O) starts a new chat.
 * - ↑ in the empty message box edits the last message sent.
 *
 * Installed before the chat's own listeners, so a handled key is `defaultPrevented` for them.
 */

export interface KeyboardActions {
  /** Close the panel that is open; false when none was. */
  closePanel(): boolean;
  newChat(): void;
  focusInput(): void;
  /** Open the last user message for editing; false when there is none (or a turn runs). */
  editLast(): boolean;
  /** The message box, for ↑. */
  input: HTMLTextAreaElement;
  /** A turn runs (Esc outside a panel then stops it). */
  running(): boolean;
}

/** Where a panel's contents are (focus inside one means Esc is about that panel). */
const PANELS = ".settings, .side-panel, .sessions";

export function installKeyboard(actions: KeyboardActions): void {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.isComposing) return;
    if (e.key === "Escape") {
      const inPanel = e.target instanceof Element && e.target.closest(PANELS) !== null;
      if ((inPanel || !actions.running()) && actions.closePanel()) e.preventDefault();
      return;
    }
    if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === "o") {
      e.preventDefault();
      actions.newChat();
      return;
    }
    if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target)) {
      e.preventDefault();
      actions.focusInput();
      return;
    }
    if (e.key === "ArrowUp" && e.target === actions.input && actions.input.value === "" && !e.shiftKey) {
      if (actions.editLast()) e.preventDefault();
    }
  });
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest("input, textarea, select") !== null;
}
