/**
 * "Check connection" in Settings: runs the connection doctor (settings/doctor.ts) and lists each check
 * (`connection-check`, `data-check`, `data-state` ok / warn / fail) with what to do; the first
 * problem's advice goes to `connection-status`. A tool server's checks carry `data-server`.
 */

import { summary, type CheckResult } from "../../settings/doctor";
import { byTestId, el } from "../common/dom";

const MARKS: Record<CheckResult["state"], string> = { ok: "✓", warn: "!", fail: "✕" };

export class DoctorView {
  private readonly button = byTestId<HTMLButtonElement>("connection-check-run");
  private readonly list = document.querySelector<HTMLElement>(".connection-checks") as HTMLElement;

  constructor(
    private readonly run: () => Promise<CheckResult[]>,
    private readonly status: (state: "ok" | "error" | "checking", text: string) => void,
  ) {
    this.button.addEventListener("click", () => void this.check());
  }

  async check(): Promise<void> {
    this.button.disabled = true;
    this.list.replaceChildren();
    this.status("checking", "Checking the connection…");
    try {
      const results = await this.run();
      this.list.replaceChildren(...results.map(item));
      const said = summary(results);
      this.status(said.state, said.text);
    } catch (err) {
      this.status("error", `The connection could not be checked: ${String(err)}`);
    } finally {
      this.button.disabled = false;
    }
  }
}

function item(result: CheckResult): HTMLElement {
  return el(
    "li",
    {
      class: "connection-check",
      "data-testid": "connection-check",
      "data-check": result.check,
      "data-state": result.state,
      ...(result.server ? { "data-server": result.server } : {}),
    },
    el("span", { class: "check-mark", "aria-hidden": "true" }, MARKS[result.state]),
    el("span", {}, result.text),
  );
}
