/**
 * The conversation's list as it grows: a new node goes at the end, and the view follows the end only when
 * the person was already there (reading further up, they stay where they are).
 */

const NEAR_BOTTOM_PX = 120;

export class ScrollingList {
  constructor(
    private readonly list: HTMLElement,
    private readonly empty: HTMLElement,
  ) {}

  /** Append `node` (the empty state goes away). */
  push(node: HTMLElement): void {
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

  toEnd(): void {
    const scroller = this.scroller();
    scroller.scrollTop = scroller.scrollHeight;
  }

  private nearBottom(): boolean {
    const scroller = this.scroller();
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM_PX;
  }

  private scroller(): HTMLElement {
    return this.list.parentElement ?? this.list;
  }
}
