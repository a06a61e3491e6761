// Text helpers every layer uses (src/lib/text.ts): clipping, shell quoting, bash's $'…' decoding.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { clip, clipLine, decodeAnsiC, hex, readAnsiC, shellQuote } from "../../src/lib/text.ts";

describe("lib/text", () => {
  it("hex gives each byte as two lowercase digits, over the range asked for", () => {
    const bytes = Uint8Array.from([0, 1, 15, 16, 171, 255]);
    expect(hex(bytes)).toBe("00010f10abff");
    expect(hex(bytes, 2, 5)).toBe("0f10ab");
    expect(hex(new Uint8Array(0))).toBe("");
  });

  it("clip keeps short text and cuts long text to max characters ending in …", () => {
    expect(clip("hello", 5)).toBe("hello");
    expect(clip("hello!", 5)).toBe("hell…");
    expect(clipLine("  a \n  b\tc ", 10)).toBe("a b c");
  });

  it("shellQuote: what bash reads back is exactly the word", () => {
    const words = ["plain.txt", "", "it's", "a b", "$HOME", "`id`", "x;y", "-n", "a=b", "\\", "é", "\n"];
    for (const w of words) {
      const out = execFileSync("bash", ["-c", `printf '%s' ${shellQuote(w)}`], { encoding: "utf8" });
      expect(out).toBe(w);
    }
    expect(shellQuote("src/a.ts")).toBe("src/a.ts");
  });

  it("$'…' decoding matches bash: escapes, octal and hex bytes as UTF-8, \\u code points, \\c controls", () => {
    const bodies = ["a\\tb\\n", "\\303\\251", "\\xc3\\xa9", "\\u00e9\\U0001F600", "\\cA", "it\\'s", "\\q", "\\x"];
    for (const body of bodies) {
      const want = execFileSync("bash", ["-c", `printf '%s' $'${body}'`], { encoding: "utf8" });
      expect(decodeAnsiC(body), body).toBe(want);
    }
    expect(readAnsiC("X=$'a\\'b' rest", 4)).toEqual({ value: "a'b", end: 9 });
  });
});
