/**
 * The Agents panel (`agents-open`): every agent profile (`agent-entry`, `data-name`, `data-builtin`),
 * the built-ins read-only and the person's own with Edit and Delete, the files under
 * `.agents/agents/` that cannot be used with why, and a form to create or edit a profile. Everything
 * goes through the runtime's agent requests (`agents_list`, `agent_save`, `agent_delete`), which write
 * the profile files; the chat's profile picker (`agent-select`) hears of every change.
 */

import type { AgentList, AgentSaveParams, ListedAgent, Requester } from "../../protocol/requests";
import { el } from "../common/dom";
import { agentForm } from "./agents-form";
import { registerPanel, type PanelHandle } from "./registry";
import "./agents.css";

export interface AgentsDeps {
  request: Requester;
  whenReady(): Promise<void>;
  /** The profiles changed (listed, saved, deleted). */
  changed(list: AgentList): void;
}

function toolsText(agent: ListedAgent): string {
  if (agent.tools === null) return "every tool";
  return agent.tools.length > 0 ? agent.tools.join(", ") : "no tools";
}

function details(agent: ListedAgent): string {
  const parts = [`Tools: ${toolsText(agent)}`];
  if (agent.model) parts.push(`model ${agent.model}`);
  if (agent.skills) parts.push(`skills ${agent.skills.join(", ")}`);
  if (agent.permission_mode) parts.push(`mode ${agent.permission_mode}`);
  if (agent.max_rounds !== null) parts.push(`at most ${agent.max_rounds} rounds`);
  return parts.join(" · ");
}

class AgentsPanel {
  private readonly list = el("ul", { class: "agent-list" });
  private readonly problems = el("ul", { class: "agent-problems" });
  private readonly error = el("p", { class: "agent-error", role: "alert" });
  private readonly formSlot = el("div", { class: "agent-form-slot" });
  private readonly add = el("button", { type: "button", class: "btn btn-small" }, "New profile");
  private tools: string[] = [];

  constructor(private readonly deps: AgentsDeps) {
    this.error.hidden = true;
    this.add.addEventListener("click", () => this.edit(null));
  }

  mount(body: HTMLElement): void {
    body.append(
      el(
        "p",
        { class: "hint" },
        "An agent profile is who the agent is in a chat: its prompt, the tools it may use, its model and " +
          "permissions. Your own are files in .agents/agents/ (Claude Code's subagent format works).",
      ),
      this.error,
      this.add,
      this.formSlot,
      this.list,
      this.problems,
    );
  }

  async refresh(): Promise<void> {
    await this.deps.whenReady();
    const answer = await this.deps.request("agents_list", {});
    if (!answer.ok) return this.showError(`Could not list the agent profiles: ${answer.message}`);
    this.show(answer.value);
  }

  private show(list: AgentList): void {
    this.tools = list.tools;
    this.list.replaceChildren(...list.agents.map((agent) => this.entry(agent)));
    this.problems.replaceChildren(
      ...list.problems.map((p) => {
        const file = p.path.split("/").pop() ?? p.path;
        const remove = el("button", { type: "button", class: "btn btn-small btn-ghost" }, "Delete file");
        remove.addEventListener("click", () => void this.remove(file.replace(/\.md$/, "")));
        return el(
          "li",
          { class: "agent-problem" },
          el("code", {}, p.path),
          el("span", {}, ` cannot be used: ${p.message}`),
          remove,
        );
      }),
    );
    this.deps.changed(list);
  }

  private entry(agent: ListedAgent): HTMLElement {
    const actions = el("div", { class: "agent-entry-actions" });
    if (agent.builtin) actions.append(el("span", { class: "agent-badge" }, "built-in"));
    else {
      const edit = el("button", { type: "button", class: "btn btn-small" }, "Edit");
      const remove = el("button", { type: "button", class: "btn btn-small btn-ghost" }, "Delete");
      edit.addEventListener("click", () => this.edit(agent));
      remove.addEventListener("click", () => void this.remove(agent.name));
      actions.append(edit, remove);
    }
    return el(
      "li",
      {
        class: "agent-entry",
        "data-testid": "agent-entry",
        "data-name": agent.name,
        "data-builtin": String(agent.builtin),
      },
      el("div", { class: "agent-entry-head" }, el("strong", { class: "agent-name" }, agent.name), actions),
      el("p", { class: "agent-description" }, agent.description),
      el("p", { class: "hint agent-details" }, details(agent)),
      agent.source ? el("p", { class: "hint" }, el("code", {}, agent.source)) : null,
      agent.warnings.length > 0
        ? el("ul", { class: "agent-warnings" }, ...agent.warnings.map((w) => el("li", {}, w)))
        : null,
    );
  }

  private edit(agent: ListedAgent | null): void {
    this.clearError();
    this.add.hidden = true;
    this.formSlot.replaceChildren(
      agentForm(this.tools, agent, {
        save: (params) => void this.save(params),
        cancel: () => this.closeForm(),
      }),
    );
  }

  private closeForm(): void {
    this.formSlot.replaceChildren();
    this.add.hidden = false;
  }

  private async save(params: AgentSaveParams): Promise<void> {
    const answer = await this.deps.request("agent_save", params);
    if (!answer.ok) return this.showError(`The profile was not saved: ${answer.message}`);
    this.clearError();
    this.closeForm();
    this.show(answer.value);
  }

  private async remove(name: string): Promise<void> {
    if (!confirm(`Delete the agent profile ${name}? Its file goes.`)) return;
    const answer = await this.deps.request("agent_delete", { name });
    if (!answer.ok) return this.showError(`The profile was not deleted: ${answer.message}`);
    this.clearError();
    this.show(answer.value);
  }

  private showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = false;
  }

  private clearError(): void {
    this.error.hidden = true;
  }
}

export interface AgentsHandle extends PanelHandle {
  /** List the profiles again (the picker's options follow through `changed`). */
  refresh(): Promise<void>;
}

/** Create the Agents panel (its top-bar button is `agents-open`). */
export function mountAgentsPanel(deps: AgentsDeps): AgentsHandle {
  const panel = new AgentsPanel(deps);
  const handle = registerPanel({
    id: "agents",
    buttonTestId: "agents-open",
    title: "Agents",
    mount: (body) => panel.mount(body),
    onOpen: () => void panel.refresh(),
  });
  return Object.assign(handle, { refresh: () => panel.refresh() });
}
