/**
 * The skills a tool server publishes (the MCP skills extension), in its entry of the Tool servers
 * panel: "Skills (n)", each with its description, what is wrong with it when the server's entry already
 * shows a problem, and an Import button. Importing goes through the skills panel (its report, its
 * questions), which opens to show it.
 */

import type { FetchedSkill } from "../../mcp/skills";
import type { RequestResult } from "../../protocol/main-worker-messages";
import type { ServerSkill } from "../../protocol/tool-servers";
import { el } from "../common/dom";
import type { Archive } from "./skills-input";

/** Import `skill` of the tool server `server`. */
export type ImportServerSkill = (server: string, skill: ServerSkill) => void;

export function renderServerSkills(server: string, skills: ServerSkill[], importSkill: ImportServerSkill): HTMLElement {
  return el(
    "section",
    { class: "tool-server-skills", "data-testid": "tool-server-skills", "data-count": String(skills.length) },
    el("div", { class: "label-text" }, `Skills (${skills.length})`),
    el("ul", { class: "tool-server-skill-list" }, ...skills.map((skill) => item(server, skill, importSkill))),
  );
}

function item(server: string, skill: ServerSkill, importSkill: ImportServerSkill): HTMLElement {
  const button = el(
    "button",
    {
      type: "button",
      class: "btn btn-small",
      "data-testid": "tool-server-skill-import",
      "aria-label": `Import the skill ${skill.name} from ${server}`,
    },
    "Import",
  );
  button.addEventListener("click", () => importSkill(server, skill));
  const files = `${skill.files} file${skill.files === 1 ? "" : "s"}`;
  return el(
    "li",
    { class: "tool-server-skill", "data-testid": "tool-server-skill", "data-name": skill.name, "data-uri": skill.uri },
    el(
      "div",
      { class: "tool-server-skill-head" },
      el("strong", {}, skill.name),
      el("span", { class: "hint" }, skill.problem ? "cannot be imported" : files),
      button,
    ),
    el("p", { class: "hint tool-server-skill-description" }, skill.description),
    skill.problem ? el("p", { class: "tool-server-message" }, skill.problem) : null,
  );
}

/** The archive the worker packed from a server's skill (`mcp_skill_fetch`), or an error saying why it was refused. */
export async function loadServerSkill(answer: Promise<RequestResult>): Promise<Archive> {
  const result = await answer;
  if (!result.ok) throw new Error(`The skill could not be fetched: ${result.message}`);
  const fetched = result.value as FetchedSkill; // the worker's answer to mcp_skill_fetch
  if (!fetched.ok) throw new Error(fetched.message);
  return { filename: fetched.filename, bytes: fetched.bytes, origin: fetched.origin };
}
