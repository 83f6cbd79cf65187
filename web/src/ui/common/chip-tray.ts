/**
 * The row of removable chips above the message box (images pasted in, resources attached): what it
 * holds, a chip's ✕ that takes it out (and gives the box the focus back), and emptying it on send.
 */

export class ChipTray<T> {
  private items: { value: T; node: HTMLElement }[] = [];

  constructor(
    readonly root: HTMLElement,
    private readonly input: HTMLElement,
  ) {
    root.hidden = true;
  }

  get values(): T[] {
    return this.items.map((i) => i.value);
  }

  get size(): number {
    return this.items.length;
  }

  /** Show `node` for `value`; `remove` (inside `node`) takes it out. */
  add(value: T, node: HTMLElement, remove: HTMLElement): void {
    const item = { value, node };
    remove.addEventListener("click", () => {
      node.remove();
      this.items = this.items.filter((i) => i !== item);
      this.root.hidden = this.items.length === 0;
      this.input.focus();
    });
    this.items.push(item);
    this.root.append(node);
    this.root.hidden = false;
  }

  /** Everything it held, in order; the tray is empty after. */
  take(): T[] {
    const values = this.values;
    for (const item of this.items) item.node.remove();
    this.items = [];
    this.root.hidden = true;
    return values;
  }
}
