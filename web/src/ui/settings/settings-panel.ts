/**
 * The settings panel: provider, base URL, key (and where it is kept), OpenRouter sign-in, the
 * model list and the connection status. It reads and shows values; settings/controller.ts decides what they do.
 */

import type { ProviderKind } from "../../protocol/messages";
import type { ModelRecord } from "../../protocol/requests";
import {
  KEY_STORAGE_HELP,
  isProviderKind,
  providerInfo,
  type AppSettings,
  type KeyStorage,
} from "../../settings/model";
import { byTestId } from "../common/dom";
import { ModelPicker } from "./model-picker";

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
  private readonly picker: ModelPicker;
  private readonly connection = byTestId("connection-status");
  private readonly oauth = byTestId<HTMLButtonElement>("oauth-connect");

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
    this.picker = new ModelPicker((model) => this.actions.chooseModel(model));
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
        : `${info.kind === "ollama" ? "Ollama" : "A local server"} needs no key unless your server asks for one.`;
  }

  setModels(models: ModelRecord[], selected: string | null): void {
    this.picker.setModels(models, selected);
  }

  get selectedModel(): string | null {
    return this.picker.selected;
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
}
