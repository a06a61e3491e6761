// A first-in first-out list whose shift is O(1): the audit log's bounded rooms drop their oldest entry on every call in
// steady state, and Array.prototype.splice(0, 1) / shift() on thousands of entries moves all the others each time.

export class Fifo<T> implements Iterable<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, or undefined when empty. */
  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head] = undefined as T; // no longer held
    this.head++;
    // the dropped front is let go in one move once it is half the list: O(1) per shift, amortized
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]!;
  }

  /** The items, oldest first, as a new array. */
  toArray(): T[] {
    return this.items.slice(this.head);
  }
}
