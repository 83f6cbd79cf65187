/**
 * The settings panel: provider, base URL, key (and where it is kept), OpenRouter sign-in, the
 * model list and the connection status. It reads and shows values; main.ts decides what they do.
 */

import type { ModelInfo, ProviderKind } from "../protocol/messages";
import { KEY_STORAGE_HELP, isProviderKind, providerInfo, type AppSettings, type KeyStorage } from "../settings/model";
import { byTestId, el } from "./dom";

export interface SettingsForm {
  provider: ProviderKind;
  baseUrl: string;
  /** What was typed in the key field; empty keeps the stored key. */
  newKey: string;
  keyStorage: KeyStorage;
  authBase: string;
}

export interface SettingsActions {
  save(form: SettingsForm): void;
  connectOpenRouter(authBase: string): void;
  forgetKey(provider: ProviderKind): void;
  chooseModel(modelId: string): void;
}

export type ConnectionState = "ok" | "error" | "checking";

export class SettingsPanel {
  private readonly panel = document.querySelector<HTMLFormElement>("form.settings") as HTMLFormElement;
  private readonly provider = byTestId<HTMLSelectElement>("provider-select");
  private readonly baseUrl = byTestId<HTMLInputElement>("base-url-input");
  private readonly key = byTestId<HTMLInputElement>("api-key-input");
  private readonly keyHint = document.querySelector<HTMLElement>(".key-hint") as HTMLElement;
  private readonly storageHelp = document.querySelector<HTMLElement>(".key-storage-help") as HTMLElement;
  private readonly authBase = byTestId<HTMLInputElement>("auth-base-input");
  private readonly model = byTestId<HTMLSelectElement>("model-select");
  private readonly modelInfo = document.querySelector<HTMLElement>(".model-info") as HTMLElement;
  private readonly connection = byTestId("connection-status");
  private readonly oauth = byTestId<HTMLButtonElement>("oauth-connect");
  private models: ModelInfo[] = [];

  constructor(private readonly actions: SettingsActions) {
    byTestId("settings-open").addEventListener("click", () => this.open());
    byTestId("settings-close").addEventListener("click", () => this.close());
    this.provider.addEventListener("change", () => this.providerChanged());
    for (const radio of this.storageRadios()) radio.addEventListener("change", () => this.showStorageHelp());
    this.panel.addEventListener("submit", (event) => {
      event.preventDefault();
      this.actions.save(this.read());
    });
    this.oauth.addEventListener("click", () => this.actions.connectOpenRouter(this.authBase.value.trim()));
    byTestId("key-forget").addEventListener("click", () => this.actions.forgetKey(this.selectedProvider()));
    this.model.addEventListener("change", () => {
      this.showModelInfo();
      if (this.model.value) this.actions.chooseModel(this.model.value);
    });
  }

  open(): void {
    this.panel.hidden = false;
    document.body.classList.add("settings-visible");
  }

  close(): void {
    this.panel.hidden = true;
    document.body.classList.remove("settings-visible");
  }

  isOpen(): boolean {
    return !this.panel.hidden;
  }

  fill(settings: AppSettings, hasKey: boolean): void {
    this.provider.value = settings.provider;
    this.baseUrl.value = settings.baseUrl;
    this.authBase.value = settings.authBase;
    for (const radio of this.storageRadios()) radio.checked = radio.value === settings.keyStorage;
    this.key.value = "";
    this.showKeyState(hasKey);
    this.showStorageHelp();
    this.oauth.hidden = settings.provider !== "openrouter";
  }

  showKeyState(hasKey: boolean): void {
    const info = providerInfo(this.selectedProvider());
    this.key.placeholder = hasKey ? "•••••••• saved — type to replace" : info.keyRequired ? "sk-or-…" : "optional";
    this.keyHint.textContent = hasKey
      ? "A key is saved for this provider."
      : info.keyRequired
        ? "No key yet: paste one or connect with OpenRouter."
        : "Ollama needs no key unless your server asks for one.";
  }

  setModels(models: ModelInfo[], selected: string | null): void {
    this.models = models;
    const options = models.map((m) => el("option", { value: m.id }, describeModel(m)));
    if (models.length === 0) options.push(el("option", { value: "" }, "No models"));
    this.model.replaceChildren(...options);
    if (selected && models.some((m) => m.id === selected)) this.model.value = selected;
    this.showModelInfo();
  }

  get selectedModel(): string | null {
    return this.model.value || null;
  }

  setConnection(state: ConnectionState, text: string): void {
    this.connection.dataset.state = state;
    this.connection.textContent = text;
  }

  private read(): SettingsForm {
    const checked = this.storageRadios().find((r) => r.checked);
    return {
      provider: this.selectedProvider(),
      baseUrl: this.baseUrl.value.trim(),
      newKey: this.key.value.trim(),
      keyStorage: checked?.value === "session" ? "session" : "encrypted",
      authBase: this.authBase.value.trim(),
    };
  }

  private selectedProvider(): ProviderKind {
    const value = this.provider.value;
    return isProviderKind(value) ? value : "openrouter";
  }

  private providerChanged(): void {
    const provider = this.selectedProvider();
    this.baseUrl.value = providerInfo(provider).defaultBaseUrl;
    this.oauth.hidden = provider !== "openrouter";
    this.key.value = "";
    this.showKeyState(false);
  }

  private storageRadios(): HTMLInputElement[] {
    return [...document.querySelectorAll<HTMLInputElement>('input[name="key-storage"]')];
  }

  private showStorageHelp(): void {
    const checked = this.storageRadios().find((r) => r.checked);
    this.storageHelp.textContent = KEY_STORAGE_HELP[checked?.value === "session" ? "session" : "encrypted"];
  }

  private showModelInfo(): void {
    const model = this.models.find((m) => m.id === this.model.value);
    this.modelInfo.textContent = model ? modelDetails(model) : "";
  }
}

function describeModel(m: ModelInfo): string {
  const parts = [m.name === m.id ? m.id : `${m.name} (${m.id})`];
  if (m.context_length) parts.push(`${formatTokens(m.context_length)} ctx`);
  if (m.prompt_price !== null && m.completion_price !== null) parts.push(formatPrice(m));
  if (m.tools === true) parts.push("tools");
  return parts.join(" · ");
}

function modelDetails(m: ModelInfo): string {
  const context = m.context_length ? `context ${m.context_length.toLocaleString("en-US")} tokens` : "context unknown";
  const price = m.prompt_price !== null && m.completion_price !== null ? formatPrice(m) : "price unknown";
  const tools = m.tools === true ? "supports tools" : m.tools === false ? "no tool calling" : "tool support unknown";
  return `${context} · ${price} · ${tools}`;
}

function formatTokens(n: number): string {
  return n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

function formatPrice(m: ModelInfo): string {
  if (m.prompt_price === 0 && m.completion_price === 0) return "free";
  const perMillion = (p: number | null): string => `$${+((p ?? 0) * 1_000_000).toFixed(2)}`;
  return `${perMillion(m.prompt_price)}/${perMillion(m.completion_price)} per 1M`;
}
