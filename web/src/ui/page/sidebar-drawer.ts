/**
 * On narrow screens the chats list is a drawer: `sidebar-toggle` (first in the top bar, shown only
 * there) opens and closes it; choosing a chat, starting one, the backdrop or Esc closes it. The
 * rest of the phone layout (one-row top bar, full-screen panels, `100dvh`) is in phone.css.
 */

import { el } from "../common/dom";
import "./phone.css";

export interface Drawer {
  /** Close the drawer; false when it was not open. */
  close(): boolean;
}

export function mountSidebarDrawer(): Drawer {
  const toggle = el(
    "button",
    {
      type: "button",
      class: "btn btn-ghost sidebar-toggle",
      "data-testid": "sidebar-toggle",
      "aria-label": "Chats",
      "aria-expanded": "false",
      title: "Chats",
    },
    "☰",
  );
  const backdrop = el("div", { class: "sidebar-backdrop", "aria-hidden": "true" });
  const topbar = document.querySelector(".topbar");
  topbar?.insertBefore(toggle, topbar.firstChild);
  document.querySelector(".layout")?.append(backdrop);
  const isOpen = (): boolean => document.body.classList.contains("sidebar-open");
  const set = (open: boolean): void => {
    document.body.classList.toggle("sidebar-open", open);
    toggle.setAttribute("aria-expanded", String(open));
  };
  toggle.addEventListener("click", () => set(!isOpen()));
  backdrop.addEventListener("click", () => set(false));
  document.addEventListener("click", (e) => {
    const target = e.target instanceof Element ? e.target : null;
    // a chat chosen (as the entry's own click: anywhere on it but its buttons and fields), or a new one
    const chosen =
      target?.closest('[data-testid="session-entry"]') && !target.closest("button, input, .session-confirm");
    if (isOpen() && (chosen || target?.closest('[data-testid="session-new"]'))) set(false);
  });
  return {
    close: () => {
      const open = isOpen();
      set(false);
      return open;
    },
  };
}
