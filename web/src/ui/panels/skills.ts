/**
 * The skills panel: import skill archives (file input, drag and drop onto the panel, or a URL fetched
 * through the app's /api/proxy), see what each import did, and list / show / enable / disable /
 * remove the installed skills. Everything goes through the runtime's skill requests
 * (docs/protocol.md); the runtime updates the agent's skill catalog itself.
 */

import type { RequestParams, SkillImportReport, UploadRequester } from "../../protocol/requests";
import type { Attachment } from "../../protocol/main-worker-messages";
import { el } from "../common/dom";
import { registerPanel, type PanelHandle } from "./registry";
import { ACCEPT, sizeProblem, type ImportState, type ListedSkill, type SkippedSkill } from "./skills-model";
import {
  failureSection,
  renderDetail,
  renderEntry,
  renderSkipped,
  reportSection,
  unansweredSection,
  wireEntries,
} from "./skills-view";
import { download, watchDrops, type Archive } from "./skills-input";
import "./skills.css";

const IMPORT_TIMEOUT_MS = 120_000;

export interface SkillsDeps {
  /** `file` reaches the runtime as a file (its path is added to `params`), not inside the frame. */
  request: UploadRequester;
  whenReady(): Promise<void>;
}

/** `unknown`: the runtime did not answer in time, so what the import did is not known (never "Rejected"). */
type Outcome = { state: ImportState | "unknown"; section: HTMLElement };

class SkillsPanel {
  private readonly fileInput = el("input", {
    type: "file",
    accept: ACCEPT,
    multiple: true,
    "data-testid": "skill-import-input",
    "aria-label": "Skill archive",
  });
  private readonly urlInput = el("input", {
    type: "url",
    "data-testid": "skill-import-url",
    placeholder: "https://…/skill.zip",
    spellcheck: "false",
    autocomplete: "off",
    "aria-label": "Archive URL",
  });
  private readonly urlButton = el(
    "button",
    { type: "submit", class: "btn", "data-testid": "skill-import-url-submit" },
    "Import",
  );
  private readonly progress = el("p", { class: "skill-progress hint", role: "status", "aria-live": "polite" });
  private readonly report = el("div", { class: "skill-report", "data-testid": "skill-import-report", role: "status" });
  private readonly error = el("p", { class: "skill-error", role: "alert" });
  private readonly list = el("ul", { class: "skill-list" });
  private readonly empty = el("p", { class: "hint skill-empty" }, "No skills installed yet.");
  private readonly skipped = el("ul", { class: "skill-skipped-list" });
  private readonly shown = new Set<string>();
  private busy = false;

  constructor(private readonly deps: SkillsDeps) {
    this.report.hidden = true;
    this.error.hidden = true;
    this.progress.hidden = true;
    wireEntries(this.list, {
      toggle: (name, enabled) => void this.setEnabled(name, enabled),
      show: (name) => void this.toggleDetail(name),
      remove: (name) => void this.remove(name),
    });
  }

  mount(body: HTMLElement): void {
    const drop = el(
      "div",
      { class: "skill-drop" },
      el(
        "p",
        { class: "skill-drop-text" },
        "Drop a .zip, .tar.gz or .skill file here (one skill or a whole repository of skills), or choose a file:",
      ),
      this.fileInput,
    );
    const urlForm = el("form", { class: "skill-url" }, this.urlInput, this.urlButton);
    urlForm.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.importUrl(this.urlInput.value.trim());
    });
    this.fileInput.addEventListener("change", () => {
      const files = [...(this.fileInput.files ?? [])];
      this.fileInput.value = "";
      void this.importFiles(files);
    });
    body.append(
      el(
        "section",
        { class: "skill-import" },
        el("div", { class: "label-text" }, "Add skills"),
        drop,
        el("div", { class: "label-text" }, "Or import from a URL"),
        urlForm,
        this.progress,
        this.report,
      ),
      this.error,
      el(
        "section",
        { class: "skill-installed" },
        el("div", { class: "label-text" }, "Installed"),
        this.empty,
        this.list,
        this.skipped,
      ),
    );
    watchDrops(body.parentElement ?? body, drop, (files) => void this.importFiles(files));
  }

  async refresh(): Promise<void> {
    await this.deps.whenReady();
    const result = await this.deps.request("skills_list", {});
    if (!result.ok) return this.showError(`Could not list the skills: ${result.message}`);
    this.renderList(result.value.skills, result.value.skipped);
  }

  private renderList(skills: ListedSkill[], skipped: SkippedSkill[]): void {
    this.skipped.replaceChildren(...skipped.map(renderSkipped));
    const names = new Set(skills.map((s) => s.name));
    for (const name of [...this.shown]) if (!names.has(name)) this.shown.delete(name);
    this.list.replaceChildren(...skills.map(renderEntry));
    this.empty.hidden = skills.length > 0;
    for (const name of this.shown) void this.loadDetail(name);
  }

  private async importFiles(files: File[]): Promise<void> {
    if (files.length === 0) return;
    await this.runImports(
      files.map((file) => ({
        source: file.name,
        load: async () => {
          const problem = sizeProblem(file.size);
          if (problem) throw new Error(problem); // before reading a huge file into memory
          return { filename: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
        },
      })),
    );
  }

  private async importUrl(url: string): Promise<void> {
    if (!url) return;
    if (!/^https?:\/\//i.test(url)) return this.showError("The URL must start with http:// or https://.");
    await this.runImports([{ source: url, load: () => download(url) }]);
    this.urlInput.value = "";
  }

  /** Import one archive after another; the report shows each one's outcome (a tool server's skill comes here too). */
  async runImports(jobs: { source: string; load: () => Promise<Archive> }[]): Promise<void> {
    if (this.busy) return this.showError("An import is already under way.");
    this.setBusy(true);
    this.clearError();
    this.report.hidden = true;
    const outcomes: Outcome[] = [];
    try {
      await this.deps.whenReady();
      for (const job of jobs) {
        this.progress.textContent = `Importing ${job.source}…`;
        outcomes.push(await this.importOne(job.source, job.load));
      }
    } finally {
      this.setBusy(false);
    }
    this.showOutcomes(outcomes);
    await this.refresh();
  }

  private async importOne(source: string, load: () => Promise<Archive>): Promise<Outcome> {
    let archive: Archive;
    try {
      archive = await load();
    } catch (err) {
      return failed(source, err instanceof Error ? err.message : String(err));
    }
    const tooBig = sizeProblem(archive.bytes.length);
    if (tooBig) return failed(source, tooBig);
    const params = { filename: archive.filename, ...(archive.origin ? { origin: archive.origin } : {}) };
    const file = { name: archive.filename, data: archive.bytes };
    let report = await this.requestImport(params, file);
    if (!isReport(report)) return notImported(source, report);
    if (report.needs_confirmation && confirm(replaceQuestion(report))) {
      const again = await this.requestImport({ ...params, replace: true }, file);
      if (!isReport(again)) return notImported(source, again);
      report = again;
    }
    return { state: report.state, section: reportSection(source, report) };
  }

  /** The import report, or why there is none (`unknown`: no answer in time, or the runtime restarted meanwhile,
   *  so the import may have finished or may still finish). */
  private async requestImport(
    params: RequestParams<"skill_import">,
    file: Attachment,
  ): Promise<SkillImportReport | NoReport> {
    const result = await this.deps.request("skill_import", params, IMPORT_TIMEOUT_MS, file);
    if (!result.ok) return { message: result.message || result.code, unknown: UNANSWERED.has(result.code) };
    return result.value;
  }

  private showOutcomes(outcomes: Outcome[]): void {
    if (outcomes.length === 0) return;
    const states = new Set(outcomes.map((o) => o.state));
    const state = states.size === 1 ? (outcomes[0]?.state ?? "rejected") : "partial";
    this.report.dataset.state = state;
    const dismiss = el(
      "button",
      { type: "button", class: "btn btn-ghost btn-small skill-report-close", "aria-label": "Dismiss the report" },
      "✕",
    );
    dismiss.addEventListener("click", () => (this.report.hidden = true));
    this.report.replaceChildren(dismiss, ...outcomes.map((o) => o.section));
    this.report.hidden = false;
  }

  private async setEnabled(name: string, enabled: boolean): Promise<void> {
    this.clearError();
    const result = await this.deps.request("skill_set_enabled", { name, enabled });
    if (!result.ok) {
      this.showError(`Could not ${enabled ? "enable" : "disable"} ${name}: ${result.message}`);
      return this.refresh();
    }
    this.renderList(result.value.skills, result.value.skipped);
  }

  private async remove(name: string): Promise<void> {
    if (!confirm(`Remove the skill "${name}"? Its files are deleted from the workspace.`)) return;
    this.clearError();
    const result = await this.deps.request("skill_remove", { name });
    if (!result.ok) this.showError(`Could not remove ${name}: ${result.message}`);
    this.shown.delete(name);
    await this.refresh();
  }

  private async toggleDetail(name: string): Promise<void> {
    if (this.shown.has(name)) {
      this.shown.delete(name);
      const slot = this.detailSlot(name);
      slot?.replaceChildren();
      this.showButton(name)?.replaceChildren("Show");
      return;
    }
    this.shown.add(name);
    await this.loadDetail(name);
  }

  private async loadDetail(name: string): Promise<void> {
    const result = await this.deps.request("skill_show", { name });
    const slot = this.detailSlot(name);
    if (!slot || !this.shown.has(name)) return;
    if (!result.ok) {
      slot.replaceChildren(el("p", { class: "skill-error" }, `Could not show ${name}: ${result.message}`));
      return;
    }
    slot.replaceChildren(renderDetail(result.value));
    this.showButton(name)?.replaceChildren("Hide");
  }

  private entry(name: string): HTMLElement | null {
    return [...this.list.querySelectorAll<HTMLElement>(".skill-entry")].find((e) => e.dataset.name === name) ?? null;
  }

  private detailSlot(name: string): HTMLElement | null {
    return this.entry(name)?.querySelector<HTMLElement>(".skill-detail") ?? null;
  }

  private showButton(name: string): HTMLElement | null {
    return this.entry(name)?.querySelector<HTMLElement>(".skill-show") ?? null;
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.fileInput.disabled = busy;
    this.urlButton.disabled = busy;
    this.progress.hidden = !busy;
  }

  private showError(message: string): void {
    this.error.textContent = message;
    this.error.hidden = false;
  }

  private clearError(): void {
    this.error.hidden = true;
    this.error.textContent = "";
  }
}

function failed(source: string, message: string): Outcome {
  return { state: "rejected", section: failureSection(source, message) };
}

interface NoReport {
  message: string;
  unknown: boolean;
}

/** Failures after which what the runtime did is not known (runtime-client.ts's own codes). */
const UNANSWERED = new Set(["timeout", "restarted"]);

function isReport(value: SkillImportReport | NoReport): value is SkillImportReport {
  return "state" in value;
}

/** The runtime refused the request (nothing was imported), or gave no answer (what it did is unknown). */
function notImported(source: string, why: NoReport): Outcome {
  if (!why.unknown) return failed(source, why.message);
  return { state: "unknown", section: unansweredSection(source, why.message) };
}

function replaceQuestion(report: SkillImportReport): string {
  const names = report.skills.filter((s) => s.status === "exists").map((s) => s.name);
  const which =
    names.length === 1 ? `The skill "${names[0]}" is` : `The skills ${names.map((n) => `"${n}"`).join(", ")} are`;
  return `${which} already installed. Replace ${names.length === 1 ? "it" : "them"} with the imported version?`;
}

export interface SkillsHandle extends PanelHandle {
  /** Open the panel and import a skill from a tool server; its report shows there (`skill-import-report`). */
  importFromServer(source: string, load: () => Promise<Archive>): Promise<void>;
}

/** Create the skills panel (its top-bar button is `skills-open`). */
export function mountSkillsPanel(deps: SkillsDeps): SkillsHandle {
  const panel = new SkillsPanel(deps);
  const handle = registerPanel({
    id: "skills",
    buttonTestId: "skills-open",
    title: "Skills",
    mount: (body) => panel.mount(body),
    onOpen: () => void panel.refresh(),
  });
  return Object.assign(handle, {
    importFromServer: (source: string, load: () => Promise<Archive>) => {
      if (!handle.isOpen()) handle.open();
      return panel.runImports([{ source, load }]);
    },
  });
}
