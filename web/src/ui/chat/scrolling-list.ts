/**
 * The conversation's list as it grows: a new node goes at the end, and the view follows the end only when
 * the person was already there (reading further up, they stay where they are). Where the view is is kept
 * from its scroll events, so appending and streaming read no layout.
 */

const NEAR_BOTTOM_PX = 120;

export class ScrollingList {
  private staging: HTMLElement | null = null;
  /** Whether the view is at its end: measured after each scroll (the person's or ours), not per change. */
  private atEnd = true;
  private watching = false;
  private frame = 0;
  /** Where `toEnd` last put the view (its own scroll, or one further down, leaves it at the end). */
  private placed = 0;

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

  /**
   * Run `change`; if the view was at the end before, it is at the end after. Nothing is measured here (a
   * streamed piece or an appended message forces no layout): the view goes to the end at the next frame.
   */
  following(change: () => void): void {
    this.watch();
    change();
    if (this.atEnd && this.frame === 0)
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        if (this.atEnd) this.toEnd(); // unless the person scrolled away since (scroll events come first)
      });
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
    this.placed = scroller.scrollTop;
    this.atEnd = true;
  }

  /** Whether the view is at (or near) its end, or about to be put there. */
  nearBottom(): boolean {
    if (this.frame !== 0) return true;
    this.atEnd = this.measured();
    return this.atEnd;
  }

  scroller(): HTMLElement {
    return this.list.parentElement ?? this.list;
  }

  private measured(): boolean {
    const scroller = this.scroller();
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM_PX;
  }

  private watch(): void {
    if (this.watching || !this.list.parentElement) return;
    this.watching = true;
    const scroller = this.scroller();
    scroller.addEventListener(
      "scroll",
      () => {
        // Our own move to the end: the pieces that came since make it look short of the end, and it is not.
        if (this.atEnd && scroller.scrollTop >= this.placed - 1) return;
        this.atEnd = this.measured();
      },
      { passive: true },
    );
  }
}
