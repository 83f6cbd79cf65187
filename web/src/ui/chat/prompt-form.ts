/**
 * The form a chosen `/server:prompt` opens above the composer (`prompt-form`): one field per argument
 * (`prompt-arg`, `data-name`; required ones marked), `prompt-run` and Cancel. Run is refused with a
 * message until every required argument is given; a failure of the server (down, prompt gone, bad
 * arguments, a malformed answer) is said in the form, and what was typed stays.
 */

import type { SlashCommand } from "../../mcp/prompt-list";
import { missingArguments } from "../../mcp/prompt-args";
import { el } from "../common/dom";

export interface PromptFormHost {
  /** Run the prompt; resolves with why it failed, or null once its turn went out. */
  run(command: SlashCommand, args: Record<string, string>): Promise<string | null>;
  /** The form closed (sent or cancelled): the box gets the focus back. */
  closed(sent: boolean): void;
}

export class PromptForm {
  private readonly form = el("div", { class: "prompt-form", "data-testid": "prompt-form", role: "group" });
  private command: SlashCommand | null = null;
  private fields = new Map<string, HTMLInputElement>();
  private readonly problem = el("p", { class: "prompt-problem", role: "alert", "data-testid": "prompt-error" });
  private readonly runButton = el(
    "button",
    { type: "button", class: "btn btn-primary btn-small", "data-testid": "prompt-run" },
    "Run",
  );

  constructor(
    composer: HTMLElement,
    private readonly host: PromptFormHost,
  ) {
    this.form.hidden = true;
    composer.append(this.form);
    this.runButton.addEventListener("click", () => void this.submit());
    this.form.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        this.close(false);
      } else if (e.key === "Enter" && e.target instanceof HTMLInputElement) {
        e.preventDefault();
        void this.submit();
      }
    });
  }

  get open(): boolean {
    return !this.form.hidden;
  }

  show(command: SlashCommand): void {
    this.command = command;
    this.fields = new Map();
    const cancel = el(
      "button",
      { type: "button", class: "btn btn-ghost btn-small", "data-testid": "prompt-cancel" },
      "Cancel",
    );
    cancel.addEventListener("click", () => this.close(false));
    const { prompt } = command;
    const rows = prompt.arguments.map((arg) => {
      const input = el("input", {
        type: "text",
        "data-testid": "prompt-arg",
        "data-name": arg.name,
        autocomplete: "off",
        "aria-required": String(arg.required),
        placeholder: arg.required ? "required" : "optional",
      });
      this.fields.set(arg.name, input);
      return el(
        "label",
        { class: "prompt-arg" },
        el(
          "span",
          { class: "prompt-arg-name" },
          arg.name,
          arg.required ? el("abbr", { title: "required" }, " *") : null,
        ),
        input,
        arg.description ? el("span", { class: "prompt-arg-about" }, arg.description) : null,
      );
    });
    this.problem.textContent = "";
    this.runButton.disabled = false;
    this.form.replaceChildren(
      el("div", { class: "prompt-head" }, el("strong", {}, command.command), prompt.title ? ` ${prompt.title}` : ""),
      el("p", { class: "prompt-about", hidden: !prompt.description }, prompt.description),
      ...rows,
      this.problem,
      el("div", { class: "prompt-actions" }, cancel, this.runButton),
    );
    this.form.hidden = false;
    (this.fields.values().next().value ?? this.runButton).focus();
  }

  close(sent: boolean): void {
    if (this.form.hidden) return;
    this.form.hidden = true;
    this.command = null;
    this.host.closed(sent);
  }

  /** Run the prompt (Run, Enter in a field, or Enter/Send in the box while the form is open). */
  async submit(): Promise<void> {
    const command = this.command;
    if (!command || this.runButton.disabled) return;
    const args: Record<string, string> = {};
    for (const [name, input] of this.fields) if (input.value.trim()) args[name] = input.value;
    const missing = missingArguments(command.prompt, args);
    const [first] = missing;
    if (first !== undefined) {
      this.problem.textContent = `Give ${missing.join(", ")} first (required).`;
      this.fields.get(first)?.focus();
      return;
    }
    this.problem.textContent = "";
    this.runButton.disabled = true;
    const failed = await this.host.run(command, args);
    if (this.command !== command) return; // closed meanwhile
    this.runButton.disabled = false;
    if (failed === null) this.close(true);
    else this.problem.textContent = failed;
  }
}
