/**
 * The composer's `/` menu (`slash-menu`): typing `/` at the start of the box lists the tool servers'
 * prompts as `/server:prompt` (`slash-item`, `data-command`), filtered as the person types. ↑/↓ move,
 * Enter or Tab chooses, Esc closes; a click chooses too. The box keeps what was typed.
 */

import type { SlashCommand } from "../../mcp/prompt-list";
import { el } from "../common/dom";
import "./slash-menu.css";

const MAX_SHOWN = 50;

/** The commands that match what is typed (`/` first, no space yet), best first; null: no menu. */
export function matchCommands(commands: readonly SlashCommand[], typed: string): SlashCommand[] | null {
  if (!typed.startsWith("/") || /\s/.test(typed)) return null;
  const query = typed.slice(1).toLowerCase();
  const scored: { command: SlashCommand; rank: number }[] = [];
  for (const command of commands) {
    const name = command.command.slice(1).toLowerCase();
    const title = (command.prompt.title ?? "").toLowerCase();
    const rank =
      name.startsWith(query) || command.prompt.name.toLowerCase().startsWith(query)
        ? 0
        : name.includes(query)
          ? 1
          : title.includes(query)
            ? 2
            : -1;
    if (rank >= 0) scored.push({ command, rank });
  }
  scored.sort((a, b) => a.rank - b.rank || a.command.command.localeCompare(b.command.command));
  return scored.slice(0, MAX_SHOWN).map((s) => s.command);
}

/** The next highlighted index after `key` (ArrowUp/ArrowDown wrap around), or null for another key. */
export function moveIndex(index: number, count: number, key: string): number | null {
  if (count === 0) return null;
  if (key === "ArrowDown") return (index + 1) % count;
  if (key === "ArrowUp") return (index - 1 + count) % count;
  return null;
}

export interface SlashMenuHost {
  commands(): SlashCommand[];
  choose(command: SlashCommand): void;
  /** Call `changed` when the commands change. */
  watch?(changed: () => void): void;
}

export class SlashMenu {
  private readonly menu = el("ul", {
    class: "slash-menu",
    role: "listbox",
    "data-testid": "slash-menu",
    id: "slash-menu",
  });
  private shown: SlashCommand[] = [];
  private active = 0;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly host: SlashMenuHost,
  ) {
    this.menu.hidden = true;
    input.setAttribute("aria-controls", "slash-menu");
    (input.closest(".composer") ?? input.parentElement)?.append(this.menu);
    input.addEventListener("input", () => this.update());
    input.addEventListener("blur", () => this.close());
    host.watch?.(() => {
      if (document.activeElement === input) this.update(); // what is typed may match the new list
    });
  }

  get open(): boolean {
    return !this.menu.hidden;
  }

  /** A key in the box; true when the menu took it (the composer then does nothing with it). */
  key(e: KeyboardEvent): boolean {
    if (!this.open || e.isComposing) return false;
    const moved = moveIndex(this.active, this.shown.length, e.key);
    if (moved !== null) {
      this.active = moved;
      this.render();
    } else if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
      this.pick(this.shown[this.active]);
    } else if (e.key === "Escape") {
      this.close();
    } else return false;
    e.preventDefault();
    return true;
  }

  close(): void {
    this.menu.hidden = true;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  private update(): void {
    const matched = matchCommands(this.host.commands(), this.input.value);
    if (!matched || matched.length === 0) return this.close();
    this.shown = matched;
    this.active = Math.min(this.active, matched.length - 1);
    this.menu.hidden = false;
    this.input.setAttribute("aria-expanded", "true");
    this.render();
  }

  private pick(command: SlashCommand | undefined): void {
    this.close();
    if (command) this.host.choose(command);
  }

  private render(): void {
    this.menu.replaceChildren(...this.shown.map((c, i) => this.item(c, i)));
    this.input.setAttribute("aria-activedescendant", `slash-item-${this.active}`);
    this.menu.children[this.active]?.scrollIntoView({ block: "nearest" });
  }

  private item(command: SlashCommand, index: number): HTMLElement {
    const { prompt } = command;
    const item = el(
      "li",
      {
        class: index === this.active ? "slash-item active" : "slash-item",
        role: "option",
        id: `slash-item-${index}`,
        "aria-selected": String(index === this.active),
        "data-testid": "slash-item",
        "data-command": command.command,
      },
      el("span", { class: "slash-command" }, command.command),
      prompt.title || prompt.description
        ? el("span", { class: "slash-about" }, prompt.title || prompt.description)
        : null,
    );
    item.addEventListener("mousedown", (e) => e.preventDefault()); // the box keeps the focus
    item.addEventListener("click", () => this.pick(command));
    return item;
  }
}
