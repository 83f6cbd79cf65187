/**
 * The settings as the page lives with them: loaded and saved (store.ts), the provider key in its
 * key ring, the settings panel's save / forget / model choice, the permission select and the advanced
 * fields, each change told to the agent worker (`configure`) in the order it was made (ordering.ts),
 * and the connection check that fetches the provider's model list. main.ts only wires it.
 */

import type { ModelRecord } from "../protocol/requests";
import type { RuntimeClient } from "../runtime-client";
import { explainFailure, type HttpFailureInfo } from "../ui/settings/connection";
import { DoctorView } from "../ui/settings/doctor-view";
import { defaultModel } from "../ui/settings/model-picker";
import { SettingsPanel, type SettingsForm } from "../ui/settings/settings-panel";
import { byTestId } from "../ui/common/dom";
import { normalizeBaseUrl } from "./base-url";
import { wireAdvanced } from "./advanced";
import { runChecks, type CheckResult } from "./doctor";
import { checkAllServers } from "../mcp/doctor";
import { agentSettings, isPermissionMode, providerInfo, providerName, type AppSettings } from "./model";
import { finishOAuth, startOAuth, trimBase, type OAuthReturn } from "./oauth";
import { SettingsOrder } from "./ordering";
import { KeyRing, loadSettings, saveSettings } from "./store";
import type { TestConfig } from "./test-config";

export interface SettingsHost {
  client: Pick<RuntimeClient, "post" | "listModels">;
  whenReady(): Promise<void>;
  /** A problem the person should see in the chat (settings that could not be saved). */
  showError(text: string): void;
  /** The model (and so its context window) may have changed. */
  modelChanged(): void;
}

export class SettingsController {
  /** Messages go after the settings changes made before them. */
  readonly order = new SettingsOrder();
  readonly panel: SettingsPanel;
  private readonly keys = new KeyRing();
  private settings!: AppSettings; // set by load(), before the worker's messages are handled
  private models: ModelRecord[] = []; // the provider's list, as last checked (what each model can do)
  /** Package indexes for run_python's micropip from a test server's config (never the URL); empty: PyPI. */
  private packageIndexUrls: string[] = [];
  private lastFailure: HttpFailureInfo | null = null;
  private checkGeneration = 0;

  constructor(private readonly host: SettingsHost) {
    this.panel = new SettingsPanel({
      save: (form) => void this.order.change(() => this.save(form)),
      connectOpenRouter: (authBase) => void startOAuth(authBase || this.settings.authBase),
      forgetKey: (provider) => void this.order.change(() => this.forgetKey(provider)),
      chooseModel: (model) => void this.order.change(() => this.chooseModel(model)),
    });
    new DoctorView(
      () => this.runDoctor(),
      (state, text) => this.panel.setConnection(state, text),
    );
  }

  get current(): AppSettings {
    return this.settings;
  }

  /** Whether the chosen model takes images (null: not known). */
  vision(): boolean | null {
    return this.models.find((m) => m.id === this.settings.model)?.vision ?? null;
  }

  /** Read the stored settings (and a sign-in that just came back) and wire the controls; returns the sign-in's outcome. */
  async load(testConfig: TestConfig): Promise<OAuthReturn> {
    this.settings = await loadSettings();
    this.packageIndexUrls = testConfig.packageIndexUrls ?? [];
    if (testConfig.authBase) this.settings.authBase = trimBase(testConfig.authBase);
    const oauth = await finishOAuth(this.settings.authBase);
    if (oauth.kind === "key") {
      if (this.settings.provider !== "openrouter") {
        this.settings.provider = "openrouter";
        this.settings.baseUrl = providerInfo("openrouter").defaultBaseUrl;
        this.settings.model = null;
      }
      await this.keys.set("openrouter", this.settings.keyStorage, oauth.key);
    }
    await this.persist();
    this.wirePermission();
    wireAdvanced(() => this.settings, {
      changed: () => this.persist().then(() => this.pushConfig()),
      windowChanged: () => this.checkConnection(),
    });
    return oauth;
  }

  /** Show what was loaded in the panel; returns whether a key is stored for the provider. */
  async fill(): Promise<boolean> {
    const has = await this.hasKey();
    this.panel.fill(this.settings, has);
    return has;
  }

  /** Open the panel when the sign-in needs attention or a required key is missing. */
  openIfNeeded(oauth: OAuthReturn, hasKey: boolean): void {
    if (oauth.kind === "error") {
      this.panel.open();
      this.panel.setConnection("error", oauth.message);
    } else if (oauth.kind === "key" || (!hasKey && providerInfo(this.settings.provider).keyRequired)) {
      this.panel.open();
    }
  }

  /** The runtime is ready: check the connection when a key is there (or none is needed). */
  onReady(): void {
    void this.hasKey().then((has) => {
      if (has || !providerInfo(this.settings.provider).keyRequired)
        void this.order.change(async () => void (await this.checkConnection()));
    });
  }

  /** The worker's report of a failed HTTP request (the connection check explains the last one). */
  httpFailure(failure: HttpFailureInfo): void {
    this.lastFailure = failure;
  }

  /** Tell the agent worker the settings and the key. */
  async pushConfig(): Promise<void> {
    const key = await this.keys.get(this.settings.provider, this.settings.keyStorage);
    this.host.client.post({
      type: "configure",
      settings: agentSettings(this.settings),
      key,
      packageIndexUrls: this.packageIndexUrls,
    });
  }

  /** Ask for the model list; true when the provider answered (a model is then chosen). */
  async checkConnection(): Promise<boolean> {
    const generation = ++this.checkGeneration;
    this.panel.setConnection("checking", "Checking the connection…");
    await this.host.whenReady();
    this.lastFailure = null;
    const result = await this.host.client.listModels();
    if (generation !== this.checkGeneration) return false; // a newer check (after another save) is under way
    const s = this.settings;
    if (!result.ok) {
      this.panel.setConnection(
        "error",
        explainFailure(s.provider, s.baseUrl, location.origin, this.lastFailure, result.message),
      );
      return false;
    }
    this.models = result.models;
    if (this.models.length > 0 && !this.models.some((m) => m.id === s.model)) {
      s.model = defaultModel(this.models);
      await this.persist();
      await this.pushConfig();
    }
    this.panel.setModels(this.models, s.model);
    const count = this.models.length;
    this.panel.setConnection(
      "ok",
      `Connected to ${providerName(s.provider, s.baseUrl)}: ${count} model${count === 1 ? "" : "s"} available`,
    );
    this.host.modelChanged();
    return true;
  }

  private async save(form: SettingsForm): Promise<void> {
    const baseUrl = form.provider === "replay" ? "" : normalizeBaseUrl(form.baseUrl);
    if (baseUrl === null) {
      this.panel.setConnection("error", "The base URL must be an http:// or https:// URL without a query");
      return;
    }
    const previous = this.settings;
    const changed = form.provider !== previous.provider || baseUrl !== previous.baseUrl || form.newKey !== "";
    this.settings = {
      ...previous,
      provider: form.provider,
      baseUrl,
      keyStorage: form.keyStorage,
      authBase: trimBase(form.authBase) || previous.authBase,
      model: form.provider === previous.provider ? previous.model : null,
    };
    try {
      if (form.newKey) await this.keys.set(form.provider, form.keyStorage, form.newKey);
      else await this.keys.move(form.provider, previous.keyStorage, form.keyStorage);
    } catch (err) {
      this.panel.setConnection("error", `The key could not be stored: ${String(err)}`);
      return;
    }
    await this.persist();
    this.panel.fill(this.settings, await this.hasKey());
    await this.pushConfig();
    // A new connection that works: back to the chat (the model can still be changed in Settings).
    if ((await this.checkConnection()) && changed) this.panel.close();
  }

  private async chooseModel(model: string): Promise<void> {
    this.settings.model = model;
    await this.persist();
    await this.pushConfig();
    this.host.modelChanged();
  }

  private async forgetKey(provider: AppSettings["provider"]): Promise<void> {
    await this.keys.forget(provider);
    if (provider === this.settings.provider) {
      this.panel.showKeyState(false);
      await this.pushConfig();
    }
  }

  private wirePermission(): void {
    const permission = byTestId<HTMLSelectElement>("permission-mode");
    permission.value = this.settings.permissionMode;
    permission.addEventListener("change", () => {
      if (!isPermissionMode(permission.value)) return;
      const mode = permission.value;
      void this.order.change(async () => {
        this.settings.permissionMode = mode;
        await this.persist();
        await this.pushConfig();
      });
    });
  }

  private async runDoctor(): Promise<CheckResult[]> {
    const servers = checkAllServers(location.origin, (url, init) => fetch(url, init));
    await this.host.whenReady();
    const listed = await this.host.client.listModels();
    const s = this.settings;
    const provider = await runChecks({
      provider: s.provider,
      baseUrl: s.baseUrl,
      pageOrigin: location.origin,
      key: await this.keys.get(s.provider, s.keyStorage),
      model: s.model,
      models: listed.ok ? listed.models : null,
      fetch: (url, init) => fetch(url, init),
    });
    return [...provider, ...(await servers)];
  }

  private async hasKey(): Promise<boolean> {
    return (await this.keys.get(this.settings.provider, this.settings.keyStorage)) !== null;
  }

  private async persist(): Promise<void> {
    try {
      await saveSettings(this.settings);
    } catch (err) {
      this.host.showError(`Settings could not be saved in this browser: ${String(err)}`);
    }
  }
}
