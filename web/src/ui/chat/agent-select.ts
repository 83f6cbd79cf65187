/**
 * The chat's agent profile picker (`agent-select`, in the composer): the profile the open session runs
 * under. Its value comes from the session view (`agent`); choosing another asks the runtime
 * (`session_agent_set`), which keeps it with the session, so a reload shows it again. The options are
 * the profiles `agents_list` gives (kept current by the Agents panel, and listed again on focus).
 */

import type { AgentList, Requester } from "../../protocol/requests";
import { el } from "../common/dom";

export interface AgentSelect {
  readonly select: HTMLSelectElement;
  /** The profiles changed: new options (the value stays). */
  setAgents(list: AgentList): void;
  /** A session was shown: it runs under `agent`. */
  showSession(agent: string): void;
  /** List the profiles again. */
  refresh(): Promise<void>;
}

export function mountAgentSelect(request: Requester, showError: (text: string) => void): AgentSelect {
  const select = el("select", {
    class: "agent-select",
    "data-testid": "agent-select",
    "aria-label": "Agent profile",
    title: "The agent profile this chat runs under (Agents panel)",
  });
  let current = "general";
  const option = (name: string, title = ""): HTMLOptionElement => el("option", { value: name, title }, name);
  const render = (names: { name: string; description: string }[]): void => {
    const known = names.some((n) => n.name === current) ? names : [...names, { name: current, description: "" }];
    select.replaceChildren(...known.map((n) => option(n.name, n.description)));
    select.value = current;
  };
  render([{ name: "general", description: "" }]);
  const refresh = async (): Promise<void> => {
    const answer = await request("agents_list", {});
    if (answer.ok) render(answer.value.agents);
  };
  select.addEventListener("focus", () => void refresh());
  select.addEventListener("change", () => {
    const wanted = select.value;
    void request("session_agent_set", { agent: wanted }).then((answer) => {
      if (answer.ok) current = answer.value.agent;
      else showError(`The chat's agent profile did not change: ${answer.message}`);
      select.value = current;
    });
  });
  document.querySelector(".composer-actions")?.prepend(select);
  return {
    select,
    setAgents: (list) => render(list.agents),
    showSession: (agent) => {
      current = agent;
      if (![...select.options].some((o) => o.value === agent)) select.append(option(agent));
      select.value = agent;
    },
    refresh,
  };
}
