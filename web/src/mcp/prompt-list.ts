/**
 * The connected tool servers' prompts on the page (main thread), as the worker's statuses say: the
 * composer's `/` menu offers each as `/server:prompt` (ui/chat/slash-menu.ts).
 */

import type { McpPromptInfo } from "../protocol/tool-servers";

export interface SlashCommand {
  /** What the person types and sees: `/server:prompt`. */
  command: string;
  server: string;
  prompt: McpPromptInfo;
}

const byServer = new Map<string, McpPromptInfo[]>();
const watchers = new Set<() => void>();

export function setServerPrompts(server: string, prompts: readonly McpPromptInfo[]): void {
  const before = JSON.stringify(byServer.get(server) ?? []);
  if (prompts.length) byServer.set(server, [...prompts]);
  else byServer.delete(server);
  // Every status carries the prompts: tell the menu only of a real change (an Esc-closed menu stays closed).
  if (JSON.stringify(prompts) !== before) for (const watcher of watchers) watcher();
}

/** Call `watcher` whenever a server's prompts change (a `/` typed before they were listed then finds them). */
export function watchSlashCommands(watcher: () => void): void {
  watchers.add(watcher);
}

export function slashCommands(): SlashCommand[] {
  const commands: SlashCommand[] = [];
  for (const [server, prompts] of byServer)
    for (const prompt of prompts) commands.push({ command: `/${server}:${prompt.name}`, server, prompt });
  return commands.sort((a, b) => a.command.localeCompare(b.command));
}
