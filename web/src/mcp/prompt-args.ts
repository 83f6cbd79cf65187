/** A prompt's arguments: which required ones are not given (the form and the worker both check). */

import type { McpPromptInfo } from "../protocol/tool-servers";

export function missingArguments(prompt: McpPromptInfo, args: Record<string, string>): string[] {
  return prompt.arguments.filter((a) => a.required && !(args[a.name] ?? "").trim()).map((a) => a.name);
}
