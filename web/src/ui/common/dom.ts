/** Small DOM helpers: build elements without HTML strings, find the contract's test ids. */

type Attrs = Record<string, string | boolean | undefined>;
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === "class") node.className = String(value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

/** The element with this data-testid (or the first matching `selector` inside it). Throws if missing. */
export function byTestId<T extends HTMLElement = HTMLElement>(testid: string, root: ParentNode = document): T {
  const node = root.querySelector<T>(`[data-testid="${testid}"]`);
  if (!node) throw new Error(`index.html is missing data-testid=${testid}`);
  return node;
}

export function setHidden(node: HTMLElement, hidden: boolean): void {
  node.hidden = hidden;
}
