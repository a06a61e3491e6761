import { describe, expect, it } from "vitest";
import { KEY_NAMES, keyToBytes } from "../../src/shell/keys.ts";

describe("keyToBytes", () => {
  it("sends C-a … C-z as control codes 1 … 26", () => {
    expect(keyToBytes("C-a")).toBe("\x01");
    expect(keyToBytes("C-c")).toBe("\x03");
    expect(keyToBytes("C-d")).toBe("\x04");
    expect(keyToBytes("C-z")).toBe("\x1a");
    for (let k = 0; k < 26; k++) {
      expect(keyToBytes(`C-${String.fromCharCode(97 + k)}`)).toBe(String.fromCharCode(k + 1));
    }
  });

  it("accepts the other spellings of Ctrl in any case", () => {
    for (const name of ["Ctrl-c", "ctrl+c", "CTRL+C", "^C", "^c", "c-c", "C-C", "Control-c", "ctrl-C"]) {
      expect(keyToBytes(name), name).toBe("\x03");
    }
  });

  it("sends what xterm sends in normal cursor mode for the named keys", () => {
    expect(keyToBytes("Up")).toBe("\x1b[A");
    expect(keyToBytes("Down")).toBe("\x1b[B");
    expect(keyToBytes("Right")).toBe("\x1b[C");
    expect(keyToBytes("Left")).toBe("\x1b[D");
    expect(keyToBytes("Home")).toBe("\x1b[H");
    expect(keyToBytes("End")).toBe("\x1b[F");
    expect(keyToBytes("PageUp")).toBe("\x1b[5~");
    expect(keyToBytes("PageDown")).toBe("\x1b[6~");
    expect(keyToBytes("Tab")).toBe("\t");
    expect(keyToBytes("Escape")).toBe("\x1b");
    expect(keyToBytes("Enter")).toBe("\r");
    expect(keyToBytes("Backspace")).toBe("\x7f");
  });

  it("accepts the short aliases and any case", () => {
    expect(keyToBytes("PgUp")).toBe("\x1b[5~");
    expect(keyToBytes("PgDn")).toBe("\x1b[6~");
    expect(keyToBytes("Esc")).toBe("\x1b");
    expect(keyToBytes("BS")).toBe("\x7f");
    expect(keyToBytes("enter")).toBe("\r");
    expect(keyToBytes("UP")).toBe("\x1b[A");
    expect(keyToBytes("pageup")).toBe("\x1b[5~");
  });

  it("ignores whitespace around a key name", () => {
    expect(keyToBytes(" C-c\n")).toBe("\x03");
    expect(keyToBytes("Enter\n")).toBe("\r");
  });

  it("returns null for ordinary text, including text that merely contains a key name", () => {
    for (const text of ["y", "yes\n", "Up the hill", "C-c C-c", "C-", "C-1", "^", "^[", "Ctrl", "ctrl-cc", "", "\n", "Enterprise"]) {
      expect(keyToBytes(text), JSON.stringify(text)).toBeNull();
    }
  });

  it("lists every canonical name, each of which maps to bytes", () => {
    expect(KEY_NAMES).toContain("C-a");
    expect(KEY_NAMES).toContain("C-z");
    expect(KEY_NAMES).toHaveLength(26 + 12);
    for (const name of KEY_NAMES) expect(keyToBytes(name), name).not.toBeNull();
    expect(new Set(KEY_NAMES).size).toBe(KEY_NAMES.length);
  });
});
