/**
 * A tool server's prompts (deliverable: `/server:prompt` commands in the composer). The worker lists
 * them (`prompts/list`, every page, at most MAX_PROMPTS, each field cut to a bounded length) for the
 * page's status, and turns a `prompts/get` answer into one user turn: the messages' text in order (an
 * assistant-role message is kept as text, labelled, never put in the model's mouth), embedded text
 * resources inlined, other resources and audio named, images as the message's attachments. The runtime
 * wraps the text as outside text (runtime/tools/mcp_prompts.py).
 */

import type { GetPromptResult, Prompt, PromptMessage } from "@modelcontextprotocol/client";
import type { RequestResult } from "../protocol/main-worker-messages";
import type { ImageAttachment } from "../protocol/messages";
import { describe } from "./faults";
import { missingArguments } from "./prompt-args";
import type { McpPromptInfo, McpPromptTurn } from "../protocol/tool-servers";

export const MAX_PROMPTS = 500;
/** The most a prompt's text may be (the page and the model see it as one message). */
export const MAX_PROMPT_TEXT = 1_000_000;
const NAME_CHARS = 200;
const DESCRIPTION_CHARS = 2_000;
const MAX_ARGUMENTS = 50;
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** What the page needs of each prompt (name, title, description, arguments with required flags). */
export function promptInfos(prompts: Prompt[]): McpPromptInfo[] {
  if (prompts.length > MAX_PROMPTS)
    throw new Error(
      `the server lists ${prompts.length} prompts, over the ${MAX_PROMPTS} this app takes from one server`,
    );
  return prompts.map((p) => ({
    name: p.name.slice(0, NAME_CHARS),
    ...(p.title ? { title: p.title.slice(0, NAME_CHARS) } : {}),
    description: (p.description ?? "").slice(0, DESCRIPTION_CHARS),
    arguments: (p.arguments ?? []).slice(0, MAX_ARGUMENTS).map((a) => ({
      name: a.name.slice(0, NAME_CHARS),
      description: (a.description ?? "").slice(0, DESCRIPTION_CHARS),
      required: a.required === true,
    })),
  }));
}

/** A `prompts/get` answer as one user turn, or an error saying why it cannot be one. */
export function promptTurn(result: GetPromptResult, prompt: string): McpPromptTurn {
  if (!Array.isArray(result.messages) || result.messages.length === 0)
    throw new Error(`the prompt '${prompt}' came back without messages; tell the server's owner`);
  const parts: string[] = [];
  const images: ImageAttachment[] = [];
  for (const message of result.messages) {
    const text = contentText(message, images);
    parts.push(message.role === "assistant" ? `(The prompt gives this as the assistant's answer:)\n${text}` : text);
  }
  const text = parts.join("\n\n");
  if (text.length > MAX_PROMPT_TEXT)
    throw new Error(
      `the prompt's text is ${(text.length / 1e6).toFixed(1)} MB, over the ${MAX_PROMPT_TEXT / 1e6} MB a message may be`,
    );
  return { text, images };
}

function contentText(message: PromptMessage, images: ImageAttachment[]): string {
  const block = message.content;
  switch (block.type) {
    case "text":
      return block.text;
    case "image": {
      if (!IMAGE_TYPES.has(block.mimeType)) return `[an image of type ${block.mimeType} left out]`;
      const name = `prompt-image-${images.length + 1}.${block.mimeType.slice("image/".length)}`;
      images.push({ media_type: block.mimeType as ImageAttachment["media_type"], name, data: block.data });
      return `[image: ${name}, attached]`;
    }
    case "resource": {
      const r = block.resource;
      return "text" in r
        ? `[resource ${r.uri}]\n${r.text}`
        : `[resource ${r.uri} (${r.mimeType ?? "binary"}), not inlined]`;
    }
    case "resource_link":
      return `[resource link: ${block.name} ${block.uri}]`;
    default:
      return `[a ${String((block as { type: unknown }).type)} block left out]`;
  }
}

const GET_TIMEOUT_MS = 30_000;
/** How a status message begins that says the prompts could not be listed. */
export const PROMPTS_NOTE = "its prompts could not be listed";

/** The connection's side of prompts (connection.ts). */
export interface PromptSource {
  listPrompts(): Promise<Prompt[]>;
  getPrompt(name: string, args: Record<string, string>, timeoutMs: number): Promise<GetPromptResult>;
}

/** The server's prompts for its status, or none with what went wrong (its tools are not affected). */
export async function listPrompts(source: PromptSource): Promise<{ prompts: McpPromptInfo[]; note: string }> {
  try {
    return { prompts: promptInfos(await source.listPrompts()), note: "" };
  } catch (error) {
    return { prompts: [], note: `${PROMPTS_NOTE}: ${describe(error)}` };
  }
}

/** `prompts/get` as a request's result: the user turn, or a clear refusal (nothing is sent then). */
export async function getPrompt(
  source: PromptSource,
  known: McpPromptInfo[],
  name: string,
  args: Record<string, string>,
): Promise<RequestResult> {
  const prompt = known.find((p) => p.name === name);
  if (!prompt) return { ok: false, code: "prompt_gone", message: `the server no longer lists the prompt '${name}'` };
  const missing = missingArguments(prompt, args);
  if (missing.length)
    return { ok: false, code: "bad_arguments", message: `give ${missing.map((m) => `'${m}'`).join(", ")} first` };
  try {
    return { ok: true, value: promptTurn(await source.getPrompt(name, args, GET_TIMEOUT_MS), name) };
  } catch (error) {
    return { ok: false, code: "prompt_failed", message: `the prompt '${name}' failed: ${describe(error)}` };
  }
}
