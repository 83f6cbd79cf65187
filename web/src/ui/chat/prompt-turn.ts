/**
 * A tool server's prompt sent as the person's turn (the / menu, prompt-form.ts): `prompts/get` answered, its
 * text and images made a turn, and the user messages that were such a prompt remembered with their text, so an
 * edit that leaves the text as it was sends it again as the server's prompt, not as typed text.
 */

import type { McpPromptOrigin } from "../../protocol/messages";
import type { RequestResult } from "../../protocol/main-worker-messages";
import type { SlashCommand } from "../../mcp/prompt-list";
import type { McpPromptTurn } from "../../protocol/tool-servers";
import type { SentImage } from "../images/composer-attachments";

export const PROMPT_BUSY = "Wait until the current turn ends (or stop it), then run the prompt.";

/** What a prompt sends: its text, its images and where it came from. */
export interface PromptSend {
  text: string;
  images: SentImage[];
  origin: McpPromptOrigin;
}

/** The server's answer to `command` as a turn to send, or why it cannot be sent. */
export async function promptTurn(
  command: SlashCommand,
  args: Record<string, string>,
  get: (server: string, name: string, args: Record<string, string>) => Promise<RequestResult>,
): Promise<PromptSend | string> {
  const result = await get(command.server, command.prompt.name, args);
  if (!result.ok) return sentence(result.message);
  const turn = promptTurnOf(result.value);
  if (!turn) return `The server's answer to ${command.command} is not a prompt this app can send.`;
  const images = turn.images.map((attachment) => ({
    attachment,
    src: `data:${attachment.media_type};base64,${attachment.data}`,
  }));
  return { text: turn.text, images, origin: { server: command.server, name: command.prompt.name } };
}

/** The user messages that are a tool server's prompt, with the text it sent. */
export class SentPrompts {
  private readonly sent = new WeakMap<HTMLElement, { origin: McpPromptOrigin; text: string }>();

  remember(node: HTMLElement, origin: McpPromptOrigin, text: string): void {
    this.sent.set(node, { origin, text });
  }

  /** The prompt `node` sent, when `text` is still what it sent (a changed text is the person's own). */
  again(node: HTMLElement, text: string): McpPromptOrigin | undefined {
    const prompt = this.sent.get(node);
    return prompt?.text === text ? prompt.origin : undefined;
  }
}

function promptTurnOf(value: unknown): McpPromptTurn | null {
  const turn = value as Partial<McpPromptTurn> | null;
  return turn && typeof turn.text === "string" && Array.isArray(turn.images) ? (turn as McpPromptTurn) : null;
}

function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(capital) ? capital : `${capital}.`;
}
