/**
 * A long session opens with its last messages (the runtime's `session_current` shows 200 by
 * default); this button, first in the list, asks for more of its past, EARLIER_STEP at a time.
 */

export const EARLIER_STEP = 200;

/** `messages-earlier` (`data-earlier`: how many are not shown). */
export function earlierButton(earlier: number, shown: number, more: (count: number) => void): HTMLElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn btn-small messages-earlier";
  button.dataset.testid = "messages-earlier";
  button.dataset.earlier = String(earlier);
  const step = Math.min(earlier, EARLIER_STEP);
  button.textContent = `Show ${step === earlier ? "the" : step} earlier message${step === 1 ? "" : "s"} (${earlier} in all)`;
  button.addEventListener("click", () => {
    button.disabled = true;
    more(shown + step);
  });
  return button;
}
