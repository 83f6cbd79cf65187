/**
 * The conversation's list as it grows: a new node goes at the end, and the view follows the end only when
 * the person was already there (reading further up, they stay where they are).
 */

const NEAR_BOTTOM_PX = 120;

export class ScrollingList {
  private staging: HTMLElement | null = null;

  constructor(
    private readonly list: HTMLElement,
    private readonly empty: HTMLElement,
  ) {}

  /** Append `node` (the empty state goes away); while `into` runs, to its target instead. */
  push(node: HTMLElement): void {
    if (this.staging) {
      this.staging.append(node);
      return;
    }
    this.following(() => {
      this.empty.hidden = true;
      this.list.append(node);
    });
  }

  /** Run `change`; if the view was at the end before, it is at the end after. */
  following(change: () => void): void {
    const stick = this.nearBottom();
    change();
    if (stick) this.toEnd();
  }

  /** Run `draw` with what it pushes going to `target` (a slice drawn off the page, put in place after). */
  into(target: HTMLElement, draw: () => void): void {
    const outer = this.staging;
    this.staging = target;
    try {
      draw();
    } finally {
      this.staging = outer;
    }
  }

  toEnd(): void {
    const scroller = this.scroller();
    scroller.scrollTop = scroller.scrollHeight;
  }

  nearBottom(): boolean {
    const scroller = this.scroller();
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM_PX;
  }

  scroller(): HTMLElement {
    return this.list.parentElement ?? this.list;
  }
}
