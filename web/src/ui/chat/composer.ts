/**
 * The composer: the message box (`chat-input`: Enter sends, Shift+Enter is a new line, it grows to
 * eight rows), `chat-send`, and `chat-stop` (also Esc while a turn runs). It says when the person
 * sends or stops; the chat decides whether that can happen now. `/` at the start opens the menu of the
 * tool servers' prompts (slash-menu.ts); a chosen one asks for its arguments (prompt-form.ts).
 */

import type { SlashCommand } from "../../mcp/prompt-list";
import { byTestId } from "../common/dom";
import { PromptForm } from "./prompt-form";
import { SlashMenu } from "./slash-menu";

export interface ComposerHost {
  submit(): void;
  stop(): void;
  /** A turn runs (Esc stops it). */
  running(): boolean;
  /** The `/` commands offered now. */
  commands(): SlashCommand[];
  /** Call `changed` when the commands change. */
  watchCommands?(changed: () => void): void;
  /** Run a chosen prompt with its arguments; resolves with why it failed, or null once its turn went out. */
  runPrompt(command: SlashCommand, args: Record<string, string>): Promise<string | null>;
}

export class Composer {
  private readonly input = byTestId<HTMLTextAreaElement>("chat-input");
  private readonly sendButton = byTestId<HTMLButtonElement>("chat-send");
  private readonly stopButton = byTestId<HTMLButtonElement>("chat-stop");

  private readonly menu: SlashMenu;
  private readonly form: PromptForm;

  constructor(host: ComposerHost) {
    const composer = this.input.closest<HTMLElement>(".composer") ?? document.body;
    this.form = new PromptForm(composer, {
      run: (command, args) => host.runPrompt(command, args),
      closed: (sent) => {
        if (sent && this.input.value.trim().startsWith("/")) this.clear(); // the command went; a message typed stays
        this.input.focus();
      },
    });
    this.menu = new SlashMenu(this.input, {
      commands: () => host.commands(),
      choose: (c) => this.choose(c),
      watch: (changed) => host.watchCommands?.(changed),
    });
    this.input.addEventListener("keydown", (e) => {
      if (this.menu.key(e)) return;
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit(host);
      }
    });
    this.input.addEventListener("input", () => this.autosize());
    this.sendButton.addEventListener("click", () => this.submit(host));
    this.stopButton.addEventListener("click", () => host.stop());
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && host.running() && !e.defaultPrevented) {
        e.preventDefault();
        host.stop();
      }
    });
  }

  /** The text typed (trimmed), left in the box. */
  get text(): string {
    return this.input.value.trim();
  }

  /** The message went: the box empties. */
  clear(): void {
    this.input.value = "";
    this.autosize();
  }

  focus(): void {
    this.input.focus();
  }

  /** Send only when the runtime can take a message and no turn runs; Stop only while one runs. */
  sync(canSend: boolean, running: boolean): void {
    this.stopButton.hidden = !running;
    this.stopButton.disabled = !running;
    this.sendButton.disabled = !canSend || running;
  }

  /** Send; while a prompt's form is open the box holds its command, so the form runs instead. */
  private submit(host: ComposerHost): void {
    if (this.form.open) void this.form.submit();
    else host.submit();
  }

  /** A command chosen: the box shows it, its form asks for the arguments. */
  private choose(command: SlashCommand): void {
    this.input.value = command.command;
    this.autosize();
    this.form.show(command);
  }

  private autosize(): void {
    this.input.rows = Math.min(8, Math.max(1, this.input.value.split("\n").length));
  }
}
