import { describe, expect, it } from "vitest";
import { Fifo } from "../../src/lib/fifo.ts";

describe("Fifo", () => {
  it("gives items back oldest first, across the compactions of a long run", () => {
    const q = new Fifo<number>();
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 300; i++) q.push(next++);
      for (let i = 0; i < 250; i++) expect(q.shift()).toBe(expected++);
      expect(q.length).toBe(next - expected);
      expect(q.peek()).toBe(expected);
    }
    expect([...q]).toEqual(q.toArray());
    expect(q.toArray()).toEqual(Array.from({ length: next - expected }, (_, i) => expected + i));
    while (q.length > 0) q.shift();
    expect(q.shift()).toBeUndefined();
    expect(q.peek()).toBeUndefined();
  });
});
