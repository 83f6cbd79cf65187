/**
 * The agent profile form of the Agents panel: name, description, tools (picked from the runtime's
 * catalog, or every tool), model, skills, permission mode, max rounds and the prompt. It gives
 * `agent_save`'s params; the runtime checks them and writes `.agents/agents/<name>.md`.
 */

import { PERMISSION_MODES } from "../../protocol/constants.gen";
import type { AgentSaveParams, ListedAgent } from "../../protocol/requests";
import { el } from "../common/dom";

export interface FormHandlers {
  save(params: AgentSaveParams): void;
  cancel(): void;
}

function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  control.setAttribute("aria-label", label); // its name is the label, not the hint beside it
  return el(
    "label",
    { class: "field agent-field" },
    el("span", { class: "label-text" }, label),
    control,
    hint ? el("span", { class: "hint" }, hint) : null,
  );
}

function names(text: string): string[] {
  return [...new Set(text.split(/[,\s]+/).filter((n) => n !== ""))];
}

function toolPicker(tools: readonly string[], chosen: readonly string[] | null) {
  const every = el("input", { type: "checkbox", class: "agent-every-tool", checked: chosen === null });
  const boxes = tools.map((name) =>
    el("input", { type: "checkbox", value: name, checked: chosen?.includes(name) ?? false, "aria-label": name }),
  );
  const list = el(
    "div",
    { class: "agent-tools" },
    ...boxes.map((box) => el("label", { class: "agent-tool" }, box, el("code", {}, box.value))),
  );
  const sync = (): void => {
    for (const box of boxes) box.disabled = every.checked;
    list.classList.toggle("agent-tools-off", every.checked);
  };
  every.addEventListener("change", sync);
  sync();
  const node = el(
    "fieldset",
    { class: "agent-tools-field" },
    el("legend", { class: "label-text" }, "Tools"),
    el("label", { class: "agent-tool" }, every, "Every tool the chat has"),
    list,
  );
  const value = (): string[] | null => (every.checked ? null : boxes.filter((b) => b.checked).map((b) => b.value));
  return { node, value };
}

/** The form for a new profile (`agent` null) or for editing one of the person's own. */
export function agentForm(tools: readonly string[], agent: ListedAgent | null, on: FormHandlers): HTMLFormElement {
  const name = el("input", { type: "text", required: true, spellcheck: "false", autocomplete: "off" });
  name.value = agent?.name ?? "";
  const description = el("input", { type: "text", required: true });
  description.value = agent?.description ?? "";
  const picker = toolPicker(tools, agent ? agent.tools : null);
  const model = el("input", { type: "text", spellcheck: "false", autocomplete: "off", placeholder: "the chat's" });
  model.value = agent?.model ?? "";
  const skills = el("input", { type: "text", spellcheck: "false", placeholder: "every enabled skill" });
  skills.value = agent?.skills?.join(", ") ?? "";
  const mode = el("select", {}, el("option", { value: "" }, "The chat's"));
  for (const m of PERMISSION_MODES) mode.append(el("option", { value: m }, m));
  mode.value = agent?.permission_mode ?? "";
  const rounds = el("input", { type: "number", min: "1", max: "200", step: "1", placeholder: "default" });
  rounds.value = agent?.max_rounds?.toString() ?? "";
  const prompt = el("textarea", { rows: "6", class: "agent-prompt-input" });
  prompt.value = agent?.prompt ?? "";
  const save = el("button", { type: "submit", class: "btn btn-primary btn-small" }, "Save profile");
  const cancel = el("button", { type: "button", class: "btn btn-small" }, "Cancel");
  const form = el(
    "form",
    { class: "agent-form", "aria-label": agent ? `Edit ${agent.name}` : "New agent profile" },
    field("Name", name, "lowercase letters, digits and hyphens"),
    field("Description", description, "when to use this agent"),
    picker.node,
    field("Model", model, "a model id of the chat's provider; empty: the chat's model"),
    field("Skills", skills, "names, comma-separated; empty: every enabled skill"),
    field("Permission mode", mode, "never wider than the chat's"),
    field("Max rounds", rounds),
    field("Prompt", prompt, "what this agent is told, added to the system prompt"),
    el("div", { class: "agent-form-actions" }, save, cancel),
  );
  cancel.addEventListener("click", () => on.cancel());
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const skillNames = names(skills.value);
    const params: AgentSaveParams = {
      name: name.value.trim(),
      description: description.value.trim(),
      prompt: prompt.value,
      tools: picker.value(),
      model: model.value.trim() || null,
      skills: skillNames.length > 0 ? skillNames : null,
      permission_mode: PERMISSION_MODES.find((m) => m === mode.value) ?? null,
      max_rounds: rounds.value === "" ? null : Number(rounds.value),
    };
    if (agent?.source) params.previous = agent.source;
    on.save(params);
  });
  return form;
}
