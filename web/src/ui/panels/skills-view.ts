/**
 * The skills panel's markup: the import report, one entry per installed skill, a skill's details.
 * Pure rendering (elements built with `el`, no HTML strings except sanitized markdown); the panel
 * (skills.ts) wires the actions.
 */

import type { AgentImportOutcome } from "../../protocol/requests";
import { el } from "../common/dom";
import { renderInto } from "../markdown/markdown";
import {
  describeCompatibility,
  describeStatus,
  formatSize,
  reportHeadline,
  type ListedSkill,
  type SkillDetail,
  type SkillImportReport,
  type SkillOutcome,
  type SkillWarning,
  type SkippedSkill,
} from "./skills-model";

/** What does not follow the spec, one `skill-warning` per item (`data-code` = the warning's code). */
function warningList(warnings: SkillWarning[]): HTMLElement {
  return el(
    "ul",
    { class: "skill-warnings" },
    ...warnings.map((w) => el("li", { "data-testid": "skill-warning", "data-code": w.code }, `⚠ ${w.message}`)),
  );
}

/**
 * The skill's `allowed-tools`: each name, those that are not tools here flagged (`skill-unknown-tool`).
 * Only shown, never enforced: names of other agents' tools (`Bash(git:*)`, `Read`) are common.
 */
function allowedTools(skill: ListedSkill): HTMLElement | null {
  if (skill.allowed_tools.length === 0) return null;
  const unknown = new Set(skill.unknown_tools);
  const names = skill.allowed_tools.map((name) =>
    unknown.has(name)
      ? el(
          "code",
          {
            class: "skill-tool skill-tool-unknown",
            "data-testid": "skill-unknown-tool",
            "data-tool": name,
            title: "Not a tool of this agent: the skill was written for another one",
          },
          `${name} ?`,
        )
      : el("code", { class: "skill-tool", "data-tool": name }, name),
  );
  const note =
    unknown.size > 0
      ? el("span", { class: "hint" }, ` (${unknown.size} not ${unknown.size === 1 ? "a tool" : "tools"} here)`)
      : null;
  return el(
    "p",
    { class: "skill-allowed-tools", "data-testid": "skill-allowed-tools", "data-unknown": String(unknown.size) },
    el("span", { class: "skill-allowed-label" }, "Allowed tools:"),
    ...names,
    note,
  );
}

export interface EntryActions {
  toggle(name: string, enabled: boolean): void;
  show(name: string): void;
  remove(name: string): void;
}

/**
 * The entries' controls answer through one listener per kind on the list (`data-action` on each control,
 * the skill's name on its entry): 200 skills are 200 rows to build, not 600 listeners too.
 */
export function wireEntries(list: HTMLElement, actions: EntryActions): void {
  const target = (event: Event): { control: HTMLElement; name: string } | null => {
    const control = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>("[data-action]") : null;
    const name = control?.closest<HTMLElement>(".skill-entry")?.dataset.name;
    return control && name !== undefined && list.contains(control) ? { control, name } : null;
  };
  list.addEventListener("change", (event) => {
    const hit = target(event);
    if (hit?.control.dataset.action === "toggle" && hit.control instanceof HTMLInputElement)
      actions.toggle(hit.name, hit.control.checked);
  });
  list.addEventListener("click", (event) => {
    const hit = target(event);
    if (hit?.control.dataset.action === "show") actions.show(hit.name);
    else if (hit?.control.dataset.action === "remove") actions.remove(hit.name);
  });
}

function outcomeItem(outcome: SkillOutcome): HTMLElement {
  const done = outcome.status === "installed" || outcome.status === "replaced";
  const item = el(
    "li",
    {
      class: `skill-outcome skill-outcome-${outcome.status}`,
      "data-name": outcome.name,
      "data-status": outcome.status,
    },
    el(
      "div",
      { class: "skill-outcome-head" },
      el("strong", {}, outcome.name || outcome.folder || "(archive root)"),
      el("span", { class: `skill-badge skill-badge-${done ? "ok" : "warn"}` }, describeStatus(outcome.status)),
    ),
  );
  if (!done && (outcome.message || outcome.reason)) {
    item.append(
      el(
        "p",
        { class: "skill-outcome-reason" },
        outcome.message || outcome.reason,
        outcome.reason && outcome.message ? el("span", { class: "hint" }, ` (${outcome.reason})`) : null,
      ),
    );
  }
  if (outcome.folder && outcome.folder !== outcome.name) {
    item.append(el("p", { class: "hint" }, `From ${outcome.folder}/`));
  }
  if (outcome.scan || done) {
    item.append(
      el(
        "p",
        { class: "skill-compat", "data-verdict": outcome.scan?.verdict ?? "unknown" },
        describeCompatibility(outcome.scan),
      ),
    );
  }
  if (outcome.warnings.length > 0) item.append(warningList(outcome.warnings));
  return item;
}

/** One archive's part of the report: its headline, then each skill folder's outcome. */
export function reportSection(source: string, report: SkillImportReport): HTMLElement {
  const section = el(
    "section",
    { class: "skill-report-item", "data-state": report.state },
    el(
      "div",
      { class: "skill-report-head" },
      el("strong", { class: "skill-report-headline" }, reportHeadline(report)),
      el("span", { class: "hint" }, source),
    ),
  );
  if (report.skills.length > 0)
    section.append(el("ul", { class: "skill-outcomes" }, ...report.skills.map(outcomeItem)));
  if (report.agents.length > 0)
    section.append(el("ul", { class: "skill-outcomes" }, ...report.agents.map(agentOutcomeItem)));
  return section;
}

/** One agent profile file of the archive (runtime/agents/imports.py): installed beside the skills. */
function agentOutcomeItem(outcome: AgentImportOutcome): HTMLElement {
  const done = outcome.status === "installed" || outcome.status === "replaced";
  return el(
    "li",
    { class: `skill-outcome skill-outcome-${outcome.status}`, "data-status": outcome.status },
    el(
      "div",
      { class: "skill-outcome-head" },
      el("strong", {}, outcome.name ? `Agent profile ${outcome.name}` : outcome.path),
      el("span", { class: `skill-badge skill-badge-${done ? "ok" : "warn"}` }, describeStatus(outcome.status)),
    ),
    !done && outcome.message ? el("p", { class: "skill-outcome-reason" }, outcome.message) : null,
    outcome.warnings.length > 0
      ? el("ul", { class: "skill-warnings" }, ...outcome.warnings.map((w) => el("li", {}, w)))
      : null,
  );
}

/** One archive's part of the report when the import itself failed (the download or the runtime said no). */
export function failureSection(source: string, message: string): HTMLElement {
  return el(
    "section",
    { class: "skill-report-item", "data-state": "rejected" },
    el(
      "div",
      { class: "skill-report-head" },
      el("strong", { class: "skill-report-headline" }, `Rejected: ${message}`),
      el("span", { class: "hint" }, source),
    ),
  );
}

/** An import the runtime gave no answer to (`why`): it may have installed skills, so it is not called rejected. */
export function unansweredSection(source: string, why: string): HTMLElement {
  return el(
    "section",
    { class: "skill-report-item", "data-state": "unknown" },
    el(
      "div",
      { class: "skill-report-head" },
      el(
        "strong",
        { class: "skill-report-headline" },
        `No answer (${why}): the import may have installed skills or may still; the Installed list shows what is installed.`,
      ),
      el("span", { class: "hint" }, source),
    ),
  );
}

/** A folder under .agents/skills/ that is not a skill: its name and why (text, never markup). */
export function renderSkipped(skipped: SkippedSkill): HTMLElement {
  return el(
    "li",
    { class: "skill-skipped", "data-testid": "skill-skipped", "data-folder": skipped.folder },
    el("strong", {}, `${skipped.folder}: skipped`),
    " ",
    el("span", { class: "hint" }, skipped.message),
  );
}

/** One installed skill: name, description, enable toggle, Show and Remove (wired by `wireEntries`). */
export function renderEntry(skill: ListedSkill): HTMLElement {
  const toggle = el("input", {
    type: "checkbox",
    class: "skill-toggle",
    "data-testid": "skill-toggle",
    "data-action": "toggle",
    "aria-label": `Enable ${skill.name}`,
  });
  toggle.checked = skill.enabled;
  const show = el(
    "button",
    { type: "button", class: "btn btn-small skill-show", "data-testid": "skill-show", "data-action": "show" },
    "Show",
  );
  const remove = el(
    "button",
    {
      type: "button",
      class: "btn btn-small btn-danger skill-remove",
      "data-testid": "skill-remove",
      "data-action": "remove",
    },
    "Remove",
  );
  return el(
    "li",
    {
      class: "skill-entry",
      "data-testid": "skill-entry",
      "data-name": skill.name,
      "data-enabled": String(skill.enabled),
    },
    el(
      "div",
      { class: "skill-entry-head" },
      el("span", { class: "skill-name", title: skill.name }, skill.name),
      el(
        "span",
        { class: "skill-entry-actions" },
        el(
          "label",
          {
            class: "skill-switch",
            title: skill.enabled ? "The agent knows this skill" : "The agent does not see this skill",
          },
          toggle,
          skill.enabled ? "Enabled" : "Disabled",
        ),
        show,
        remove,
      ),
    ),
    el("p", { class: "skill-description" }, skill.description),
    skill.origin
      ? el(
          "p",
          { class: "hint skill-origin", "data-origin-server": skill.origin.server },
          `From the tool server ${skill.origin.server}: ${skill.origin.uri}`,
        )
      : null,
    allowedTools(skill),
    skill.warnings.length > 0 ? warningList(skill.warnings) : null,
    el("div", { class: "skill-detail", "data-testid": "skill-detail" }),
  );
}

/** A skill's SKILL.md body (as sanitized markdown) and its files. */
export function renderDetail(detail: SkillDetail): HTMLElement {
  const body = el("div", { class: "skill-body markdown" });
  renderInto(body, detail.body);
  const meta = [
    detail.license ? `License: ${detail.license}` : "",
    detail.compatibility ? `Compatibility: ${detail.compatibility}` : "",
    detail.location,
  ].filter(Boolean);
  const files =
    detail.files.length === 0
      ? el("p", { class: "hint" }, "No other files.")
      : el(
          "ul",
          { class: "skill-files" },
          ...detail.files.map((f) =>
            el("li", {}, el("code", {}, f.path), el("span", { class: "hint" }, ` ${formatSize(f.size)}`)),
          ),
        );
  return el(
    "div",
    { class: "skill-detail-inner" },
    el("p", { class: "hint" }, meta.join(" · ")),
    body,
    el("div", { class: "label-text" }, `Files (${detail.files.length})`),
    files,
  );
}
