/**
 * The model picker: the provider's models in a `<select>` (`model-select`, option value = model id),
 * a filter box above it (`model-filter`: type to narrow the list by id or name), and under it the
 * chosen model's context window, price and what it can do (tools / reasoning / vision badges).
 */

import type { ModelRecord } from "../../protocol/requests";
import { byTestId, el } from "../common/dom";

/** The model a fresh connection should use: the first that can call tools (an agent needs them). */
export function defaultModel(models: readonly ModelRecord[]): string | null {
  return (models.find((m) => m.tools === true) ?? models[0])?.id ?? null;
}

export function matches(m: ModelRecord, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = `${m.id} ${m.name} ${badges(m).join(" ")}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function badges(m: ModelRecord): string[] {
  const out: string[] = [];
  if (m.tools === true) out.push("tools");
  if (m.reasoning === true) out.push("reasoning");
  if (m.vision === true) out.push("vision");
  return out;
}

export class ModelPicker {
  private readonly select = byTestId<HTMLSelectElement>("model-select");
  private readonly filter = byTestId<HTMLInputElement>("model-filter");
  private readonly info = document.querySelector<HTMLElement>(".model-info") as HTMLElement;
  private models: ModelRecord[] = [];

  constructor(private readonly choose: (modelId: string) => void) {
    this.select.addEventListener("change", () => {
      this.showInfo();
      if (this.select.value) this.choose(this.select.value);
    });
    this.filter.addEventListener("input", () => this.render(this.select.value));
  }

  setModels(models: ModelRecord[], selected: string | null): void {
    this.models = models;
    this.render(selected);
  }

  get selected(): string | null {
    return this.select.value || null;
  }

  /** The options that match the filter; the chosen model stays listed (and chosen) whatever is typed. */
  private render(selected: string | null): void {
    const filter = this.filter.value.trim();
    const shown = this.models.filter((m) => m.id === selected || matches(m, filter));
    const options = shown.map((m) => el("option", { value: m.id }, describeModel(m)));
    if (this.models.length === 0) options.push(el("option", { value: "" }, "No models"));
    else if (shown.length === 0)
      options.push(el("option", { value: "", disabled: true }, `No model matches “${filter}”`));
    this.select.replaceChildren(...options);
    if (selected && shown.some((m) => m.id === selected)) this.select.value = selected;
    this.filter.placeholder = `Filter ${this.models.length} models`;
    this.showInfo();
  }

  private showInfo(): void {
    const model = this.models.find((m) => m.id === this.select.value);
    if (!model) {
      this.info.replaceChildren();
      return;
    }
    const tags = badges(model).map((b) => el("span", { class: "badge", "data-badge": b }, b));
    const missing =
      model.tools === false ? [el("span", { class: "badge badge-warn", "data-badge": "no-tools" }, "no tools")] : [];
    this.info.replaceChildren(el("span", {}, modelDetails(model)), ...tags, ...missing);
  }
}

export function describeModel(m: ModelRecord): string {
  const parts = [m.name === m.id ? m.id : `${m.name} (${m.id})`];
  if (m.context_length) parts.push(`${formatTokens(m.context_length)} ctx`);
  if (m.prompt_price !== null && m.completion_price !== null) parts.push(formatPrice(m));
  parts.push(...badges(m));
  return parts.join(" · ");
}

function modelDetails(m: ModelRecord): string {
  const context = m.context_length ? `context ${m.context_length.toLocaleString("en-US")} tokens` : "context unknown";
  // No price is shown where the provider gives none (a server of one's own): nothing to be unsure about.
  return m.prompt_price !== null && m.completion_price !== null ? `${context} · ${formatPrice(m)}` : context;
}

function formatTokens(n: number): string {
  return n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

function formatPrice(m: ModelRecord): string {
  if (m.prompt_price === 0 && m.completion_price === 0) return "free";
  const perMillion = (p: number | null): string => `$${+((p ?? 0) * 1_000_000).toFixed(2)}`;
  return `${perMillion(m.prompt_price)}/${perMillion(m.completion_price)} per 1M`;
}
