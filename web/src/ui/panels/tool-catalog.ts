/**
 * What the UI knows about the agent's tools comes from the runtime's catalog (`ready.tools`, the
 * registry's entries), never from a list of names kept here: a tool added in Python is known at once.
 */

import type { ToolEffect, ToolInfo } from "../../protocol/messages";

/** The names of the catalog's tools with this effect (e.g. `memory`: the tools that change memories). */
export function toolsWithEffect(tools: readonly ToolInfo[], effect: ToolEffect): ReadonlySet<string> {
  return new Set(tools.filter((t) => t.effect === effect).map((t) => t.name));
}
