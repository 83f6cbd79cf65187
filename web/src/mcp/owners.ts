/**
 * Which tool server each tool name the model sees comes from (main thread), as the worker's statuses
 * say: a tool-call card names its server (`data-server`) from here.
 */

const owners = new Map<string, string>();

export function setServerTools(server: string, tools: readonly string[]): void {
  for (const [tool, owner] of owners) if (owner === server) owners.delete(tool);
  for (const tool of tools) owners.set(tool, server);
}

export function toolServer(tool: string): string | null {
  return owners.get(tool) ?? null;
}
