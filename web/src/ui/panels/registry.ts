/**
 * Side panels opened from a button in the top bar (memory, files, skills, …): one list of them, and
 * one open at a time on the right (opening one closes the others and the settings panel). A panel
 * module calls `registerPanel` once; main.ts does not need to know its markup.
 */

import { el } from "../common/dom";
import "./registry.css";

export interface PanelSpec {
  /** Stable id, also the panel's CSS hook (`.side-panel-<id>`). */
  id: string;
  /** data-testid of the top-bar button that opens (and closes) it. */
  buttonTestId: string;
  /** Button label and panel heading. */
  title: string;
  /** A shorter button label for narrow screens (the button's title still says `title`). */
  short?: string;
  /** Fill the panel's body; called once when registered. */
  mount(body: HTMLElement): void;
  /** Called each time the panel is shown. */
  onOpen?(): void;
}

export interface PanelHandle {
  readonly root: HTMLElement;
  readonly body: HTMLElement;
  open(): void;
  close(): void;
  isOpen(): boolean;
}

const panels: { spec: PanelSpec; handle: PanelHandle }[] = [];

export function registeredPanels(): readonly PanelSpec[] {
  return panels.map((p) => p.spec);
}

/** Close every registered panel except `keep`. */
export function closeOtherPanels(keep: string | null): void {
  for (const { spec, handle } of panels) if (spec.id !== keep) handle.close();
}

/** Close the side panel that is open (Esc); false when none was. */
export function closeOpenPanel(): boolean {
  const open = panels.find((p) => p.handle.isOpen());
  open?.handle.close();
  return open !== undefined;
}

function closeSettings(): void {
  if (document.body.classList.contains("settings-visible")) {
    document.querySelector<HTMLElement>('[data-testid="settings-close"]')?.click();
  }
}

/** Create the panel (an `<aside>` after the chat) and its top-bar button (before Settings). */
export function registerPanel(spec: PanelSpec): PanelHandle {
  const body = el("div", { class: "side-panel-body" });
  const close = el(
    "button",
    { type: "button", class: "btn btn-ghost", "aria-label": `Close ${spec.title.toLowerCase()}` },
    "✕",
  );
  const root = el(
    "aside",
    { class: `side-panel side-panel-${spec.id}`, "aria-label": spec.title },
    el("div", { class: "settings-head" }, el("h2", {}, spec.title), close),
    body,
  );
  root.hidden = true;
  document.querySelector(".layout")?.append(root);
  const button = el(
    "button",
    {
      type: "button",
      class: `btn panel-button-${spec.id}`,
      "data-testid": spec.buttonTestId,
      "aria-expanded": "false",
      title: spec.title,
      ...(spec.short ? { "aria-label": spec.title } : {}),
    },
    ...(spec.short
      ? [el("span", { class: "wide-only" }, spec.title), el("span", { class: "narrow-only" }, spec.short)]
      : [spec.title]),
  );
  const settings = document.querySelector('[data-testid="settings-open"]');
  if (settings?.parentElement) settings.parentElement.insertBefore(button, settings);
  else document.querySelector(".topbar")?.append(button);

  const handle: PanelHandle = {
    root,
    body,
    open() {
      closeOtherPanels(spec.id);
      closeSettings();
      root.hidden = false;
      button.setAttribute("aria-expanded", "true");
      spec.onOpen?.();
    },
    close() {
      root.hidden = true;
      button.setAttribute("aria-expanded", "false");
    },
    isOpen: () => !root.hidden,
  };
  button.addEventListener("click", () => (handle.isOpen() ? handle.close() : handle.open()));
  close.addEventListener("click", () => handle.close());
  // Opening settings closes the side panels (one panel on the right at a time).
  document.querySelector('[data-testid="settings-open"]')?.addEventListener("click", () => closeOtherPanels(null));
  panels.push({ spec, handle });
  spec.mount(body);
  return handle;
}
