import { describe, expect, it } from "vitest";
import { MAX_MARKER_CHARS, MarkerScanner, formatMarker, parseMarker } from "../../src/runtime/markers.ts";
import type { Marker, ScanEvent } from "../../src/runtime/markers.ts";

const m = formatMarker;
const text = (t: string): ScanEvent => ({ type: "text", text: t });
const marker = (mk: Marker): ScanEvent => ({ type: "marker", marker: mk });

/** Adjacent text events merged: how text is cut between chunks is not part of the contract, its order is. */
function normalize(events: ScanEvent[]): ScanEvent[] {
  const out: ScanEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (e.type === "text" && last?.type === "text") out[out.length - 1] = text(last.text + e.text);
    else out.push(e);
  }
  return out;
}

function scanAll(chunks: (string | Uint8Array)[]): ScanEvent[] {
  const s = new MarkerScanner();
  const events = chunks.flatMap((c) => s.push(c));
  return [...events, ...s.flush()];
}

describe("formatMarker / parseMarker", () => {
  it("frames a payload as ESC ] 654 ; payload BEL", () => {
    expect(formatMarker("prompt")).toBe("\x1b]654;prompt\x07");
  });

  it("parses the jsh payloads", () => {
    expect(parseMarker("interactive")).toEqual({ kind: "interactive" });
    expect(parseMarker("prompt")).toEqual({ kind: "prompt" });
    expect(parseMarker("exit=-1:0")).toEqual({ kind: "exit", tag: "-1", code: 0 });
    expect(parseMarker("exit=4242:127")).toEqual({ kind: "exit", tag: "4242", code: 127 });
  });

  it("reads a negative exit code", () => {
    expect(parseMarker("exit=n0nce:-2")).toEqual({ kind: "exit", tag: "n0nce", code: -2 });
  });

  it("keeps colons of a cwd path and splits the tag at the first colon", () => {
    expect(parseMarker("cwd=abc:/home/project/a:b")).toEqual({ kind: "cwd", tag: "abc", path: "/home/project/a:b" });
  });

  it("does not interpret the tag: an empty tag is still a tag", () => {
    expect(parseMarker("exit=:3")).toEqual({ kind: "exit", tag: "", code: 3 });
  });

  it("turns unknown or malformed payloads into `other` instead of guessing", () => {
    expect(parseMarker("pid=17")).toEqual({ kind: "other", payload: "pid=17" });
    expect(parseMarker("exit=1:x")).toEqual({ kind: "other", payload: "exit=1:x" });
    expect(parseMarker("exit=1")).toEqual({ kind: "other", payload: "exit=1" });
    expect(parseMarker("exit=1:")).toEqual({ kind: "other", payload: "exit=1:" });
    expect(parseMarker("cwd=/no/tag")).toEqual({ kind: "other", payload: "cwd=/no/tag" });
    expect(parseMarker("Prompt")).toEqual({ kind: "other", payload: "Prompt" });
  });
});

describe("MarkerScanner", () => {
  it("passes a chunk without ESC through as one text event", () => {
    expect(scanAll(["hello\nworld"])).toEqual([text("hello\nworld")]);
  });

  it("finds several markers in one chunk (bolt.diy missed the second)", () => {
    expect(scanAll([`out\r\n${m("exit=-1:0")}${m("prompt")}`])).toEqual([
      text("out\r\n"),
      marker({ kind: "exit", tag: "-1", code: 0 }),
      marker({ kind: "prompt" }),
    ]);
  });

  it("keeps text on both sides of a marker in order", () => {
    expect(scanAll([`before${m("interactive")}after`])).toEqual([
      text("before"),
      marker({ kind: "interactive" }),
      text("after"),
    ]);
  });

  it("finds a marker split inside its payload", () => {
    expect(scanAll(["\x1b]654;pro", "mpt\x07"])).toEqual([marker({ kind: "prompt" })]);
  });

  it("finds a marker split right after its ESC", () => {
    expect(scanAll(["abc\x1b", "]654;prompt\x07def"])).toEqual([text("abc"), marker({ kind: "prompt" }), text("def")]);
  });

  it("finds a marker terminated by ESC \\ even when split between ESC and backslash", () => {
    expect(scanAll(["\x1b]654;exit=9:1\x1b", "\\x"])).toEqual([marker({ kind: "exit", tag: "9", code: 1 }), text("x")]);
  });

  it("emits text before a held-back prefix at once, holding back only the prefix", () => {
    const s = new MarkerScanner();
    expect(s.push("line\n\x1b]65")).toEqual([text("line\n")]);
    expect(s.push("4;prompt\x07")).toEqual([marker({ kind: "prompt" })]);
  });

  it("does not hold back an ESC that is followed by something other than a marker prefix", () => {
    const s = new MarkerScanner();
    expect(s.push("\x1b[32mok\x1b[0m")).toEqual([text("\x1b[32mok\x1b[0m")]);
    expect(s.push("\x1b]0;title\x07")).toEqual([text("\x1b]0;title\x07")]);
  });

  it("passes other OSC codes and CSI through untouched, also when split", () => {
    const raw = "\x1b]8;;https://x.test\x07link\x1b]8;;\x07 \x1b]6543;no\x07 \x1b]65;x\x07 \x1b[?2004h$ ";
    for (let k = 0; k <= raw.length; k++) {
      expect(normalize(scanAll([raw.slice(0, k), raw.slice(k)]))).toEqual([text(raw)]);
    }
  });

  it("reads no marker across an ESC that aborts the OSC", () => {
    expect(normalize(scanAll(["\x1b]654;pro\x1b[0mmpt\x07"]))).toEqual([text("\x1b]654;pro\x1b[0mmpt\x07")]);
  });

  it("yields identical events for a 3-marker stream split at every position, in two and in three chunks", () => {
    const stream = `$ ls\r\nä.txt 🙂\r\n${m("exit=-1:0")}${m("cwd=-1:/home/project/ü")}\x1b[1m~\x1b[0m ${m("prompt")}tail`;
    const expected = [
      text("$ ls\r\nä.txt 🙂\r\n"),
      marker({ kind: "exit", tag: "-1", code: 0 }),
      marker({ kind: "cwd", tag: "-1", path: "/home/project/ü" }),
      text("\x1b[1m~\x1b[0m "),
      marker({ kind: "prompt" }),
      text("tail"),
    ];
    expect(scanAll([stream])).toEqual(expected);
    const bytes = new TextEncoder().encode(stream);
    for (let a = 0; a <= stream.length; a++) {
      expect(normalize(scanAll([stream.slice(0, a), stream.slice(a)]))).toEqual(expected);
      for (let b = a; b <= stream.length; b++) {
        expect(normalize(scanAll([stream.slice(0, a), stream.slice(a, b), stream.slice(b)]))).toEqual(expected);
      }
    }
    // As bytes, every split point includes the middle of each multi-byte character.
    for (let a = 0; a <= bytes.length; a++) {
      expect(normalize(scanAll([bytes.subarray(0, a), bytes.subarray(a)]))).toEqual(expected);
    }
  });

  it("yields identical events when the stream arrives one character or one byte at a time", () => {
    const stream = `a${m("exit=x:-1")}b${m("prompt")}${m("interactive")}`;
    const expected = normalize(scanAll([stream]));
    expect(normalize(scanAll([...stream]))).toEqual(expected);
    expect(normalize(scanAll([...new TextEncoder().encode(stream)].map((b) => Uint8Array.of(b))))).toEqual(expected);
  });

  it("decodes a UTF-8 character split across byte chunks without replacement characters", () => {
    const bytes = new TextEncoder().encode("€"); // 3 bytes
    const s = new MarkerScanner();
    expect(s.push(bytes.subarray(0, 1))).toEqual([]);
    expect(s.push(bytes.subarray(1, 2))).toEqual([]);
    expect(s.push(bytes.subarray(2))).toEqual([text("€")]);
  });

  it("decodes a marker payload whose UTF-8 character is split between chunks", () => {
    const bytes = new TextEncoder().encode(m("cwd=t:/tmp/日本"));
    const at = bytes.length - 3; // inside 本
    expect(scanAll([bytes.subarray(0, at), bytes.subarray(at)])).toEqual([
      marker({ kind: "cwd", tag: "t", path: "/tmp/日本" }),
    ]);
  });

  it("keeps order when a string follows bytes that ended mid-character", () => {
    const bytes = new TextEncoder().encode("é");
    expect(scanAll([bytes.subarray(0, 1), "x"])).toEqual([text("\uFFFDx")]);
  });

  it("keeps a byte order mark, as a terminal would show it", () => {
    expect(scanAll([Uint8Array.of(0xef, 0xbb, 0xbf, 0x41)])).toEqual([text("\uFEFFA")]);
  });

  it("flush releases a held-back unfinished marker as text", () => {
    const s = new MarkerScanner();
    expect(s.push("x\x1b]654;promp")).toEqual([text("x")]);
    expect(s.flush()).toEqual([text("\x1b]654;promp")]);
    expect(s.flush()).toEqual([]);
  });

  it("releases a would-be marker as text once it grows past the limit without a terminator", () => {
    const s = new MarkerScanner();
    const start = "\x1b]654;" + "a".repeat(100);
    expect(s.push(start)).toEqual([]);
    const more = "b".repeat(MAX_MARKER_CHARS);
    const events = s.push(more);
    expect(normalize(events)).toEqual([text(start + more)]);
    expect(s.flush()).toEqual([]);
  });

  it("holds back at most MAX_MARKER_CHARS characters however slowly the would-be marker arrives", () => {
    const s = new MarkerScanner();
    let pushed = "\x1b]654;";
    let released = "";
    s.push(pushed);
    for (let k = 0; k < 3 * MAX_MARKER_CHARS; k++) {
      pushed += "z";
      for (const e of s.push("z")) if (e.type === "text") released += e.text;
      expect(pushed.length - released.length).toBeLessThan(MAX_MARKER_CHARS);
    }
    for (const e of s.flush()) if (e.type === "text") released += e.text;
    expect(released).toBe(pushed);
  });

  it("still finds a marker that follows a released over-long one", () => {
    const junk = "\x1b]654;" + "j".repeat(MAX_MARKER_CHARS + 10);
    expect(normalize(scanAll([junk, m("prompt")]))).toEqual([text(junk), marker({ kind: "prompt" })]);
  });

  it("finds a marker of exactly the largest accepted length", () => {
    const payload = "cwd=t:/" + "p".repeat(MAX_MARKER_CHARS - 6 - 7 - 1);
    const framed = m(payload);
    expect(framed.length).toBe(MAX_MARKER_CHARS);
    expect(scanAll([framed.slice(0, 10), framed.slice(10)])).toEqual([
      marker({ kind: "cwd", tag: "t", path: payload.slice(6) }),
    ]);
  });

  it("treats one character past the largest accepted length as text, split or not", () => {
    const framed = m("cwd=t:/" + "p".repeat(MAX_MARKER_CHARS - 6 - 7));
    expect(framed.length).toBe(MAX_MARKER_CHARS + 1);
    expect(scanAll([framed])).toEqual([text(framed)]);
    expect(normalize(scanAll([framed.slice(0, 10), framed.slice(10)]))).toEqual([text(framed)]);
  });

  it("survives many unterminated prefixes in one chunk", () => {
    const raw = "\x1b]654;x".repeat(20_000) + m("prompt");
    const events = normalize(scanAll([raw]));
    expect(events).toEqual([text("\x1b]654;x".repeat(20_000)), marker({ kind: "prompt" })]);
  });
});

describe("the full Marker union round-trips through formatMarker and parseMarker", () => {
  const all: Marker[] = [
    { kind: "interactive" },
    { kind: "prompt" },
    { kind: "start", tag: "n.7" },
    { kind: "exit", tag: "n.7", code: 130 },
    { kind: "cwd", tag: "n.7", path: "/a:b/ü" },
    { kind: "envfile", tag: "n", path: "/tmp/x:y" },
    { kind: "jobend", tag: "n" },
  ];
  for (const mk of all) {
    it(`${mk.kind} survives format → scan in one-byte chunks`, () => {
      const bytes = new TextEncoder().encode(formatMarker(mk as Exclude<Marker, { kind: "other" }>));
      const chunks = [...bytes].map((b) => new Uint8Array([b]));
      expect(scanAll(chunks)).toEqual([marker(mk)]);
    });
  }
});
