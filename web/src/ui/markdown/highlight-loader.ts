/**
 * The highlighter, loaded on first need. `highlightCode` is markdown-it's `highlight` hook: until the
 * highlighter has arrived it returns "" (markdown-it escapes the block itself) and starts loading it;
 * once it is there, `onHighlighterReady` listeners redraw what was shown plain.
 */

type Highlight = (code: string, lang: string, guess: boolean) => string;

let highlighter: Highlight | null = null;
let guessing = true;
let loading: Promise<void> | null = null;
const listeners: (() => void)[] = [];

export function highlightCode(code: string, lang: string): string {
  if (highlighter) return highlighter(code, lang, guessing);
  void loadHighlighter();
  return "";
}

export function loadHighlighter(): Promise<void> {
  loading ??= import("./highlighter")
    .then((module) => {
      highlighter = module.highlight;
      module.warmUp();
      for (const listener of listeners.splice(0)) listener();
    })
    .catch((err: unknown) => console.warn("[highlight] the highlighter could not be loaded; code stays plain:", err));
  return loading;
}

/** Run `listener` once the highlighter is loaded (at once when it already is). */
export function onHighlighterReady(listener: () => void): void {
  if (highlighter) listener();
  else listeners.push(listener);
}

export function highlighterLoaded(): boolean {
  return highlighter !== null;
}

/** Run `render` with no guessing of unlabelled code blocks' languages (a streaming reply's tail). */
export function withoutGuessing<T>(render: () => T): T {
  guessing = false;
  try {
    return render();
  } finally {
    guessing = true;
  }
}
