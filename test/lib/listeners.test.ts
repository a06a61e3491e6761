// Every runtime and process fans its output and events out through Listeners.
import { describe, expect, it, vi } from "vitest";
import { Listeners } from "../../src/lib/listeners.ts";

describe("Listeners", () => {
  it("a listener that throws is logged and the others still hear the event", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const l = new Listeners<string>("terminal");
      const heard: string[] = [];
      l.add(() => {
        throw new Error("broken subscriber");
      });
      l.add((v) => heard.push(v));
      l.emit("a");
      expect(heard).toEqual(["a"]);
      expect(error).toHaveBeenCalledWith("sandshell: a terminal listener threw:", expect.any(Error));
    } finally {
      error.mockRestore();
    }
  });

  it("unsubscribe and clear stop delivery", () => {
    const l = new Listeners<number>("runtime");
    const a: number[] = [];
    const b: number[] = [];
    const off = l.add((v) => a.push(v));
    l.add((v) => b.push(v));
    l.emit(1);
    off();
    l.emit(2);
    l.clear();
    l.emit(3);
    expect(a).toEqual([1]);
    expect(b).toEqual([1, 2]);
  });
});
