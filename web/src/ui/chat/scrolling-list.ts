/**
 * The conversation's list as it grows: a new node goes at the end, and the view follows the end only when
 * the person was already there (reading further up, they stay where they are). Where the view is is kept
 * from its scroll events, so appending and streaming read no layout. Once put at the end, the view stays there
 * while what is at the end takes its size (a long reply's blocks drawn, code highlighted, an image loaded).
 */

const NEAR_BOTTOM_PX = 120;
/** How long after the view is put at the end a change of size below it brings it back there. */
const SETTLE_MS = 1500;

export class ScrollingList {
  private staging: HTMLElement | null = null;
  /** Whether the view is at its end: measured after each scroll (the person's or ours), not per change. */
  private atEnd = true;
  private watching = false;
  private frame = 0;
  /** Where `toEnd` last put the view (its own scroll, or one further down, leaves it at the end). */
  private placed = 0;
  /** Until when a change of the list's size puts the view back at the end (if it is still there). */
  private settling = 0;
  private sizes: ResizeObserver | null = null;

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

  /**
   * Put the view at the end, and keep it there a moment: what is drawn below the view only as it comes near
   * it (a long stored reply's blocks, stored-reply.ts; any off-screen message's box) has its size only then.
   */
  toEnd(): void {
    this.place();
    this.settling = performance.now() + SETTLE_MS;
    if (!this.sizes) {
      this.sizes = new ResizeObserver(() => {
        if (this.atEnd && performance.now() < this.settling) this.place();
      });
      this.sizes.observe(this.list);
    }
  }

  /** The view was put somewhere on purpose (a search's hit, messages drawn below what is read): it stays there. */
  hold(): void {
    this.settling = 0;
    this.atEnd = this.measured();
  }

  private place(): void {
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
