// The terminal: xterm.js (DOM renderer, screen-reader mode on, so its text reaches assistive technology and tests)
// attached to the sandbox's one persistent shell. Output is shown raw, as one write per animation frame (frame.ts: the
// terminal watches, it is never on a tool call's path); keystrokes go to session.writeFromPerson, which holds them
// back while an agent's command runs; the terminal fits its panel on every resize and tells the shell its size.

import { FitAddon } from "@xterm/addon-fit";
import { Terminal, type ITheme } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { UI } from "../limits.ts";
import type { ShellSession } from "../sandbox.ts";
import { perFrame } from "./frame.ts";
import { onSchemeChange, scheme, type Scheme } from "./theme.ts";

const DARK: ITheme = {
  background: "#0f1419",
  foreground: "#e6edf3",
  cursor: "#e6edf3",
  cursorAccent: "#0f1419",
  selectionBackground: "#2f4a6d",
  black: "#484f58",
  red: "#ff7b72",
  green: "#3fb950",
  yellow: "#d29922",
  blue: "#58a6ff",
  magenta: "#bc8cff",
  cyan: "#39c5cf",
  white: "#b1bac4",
  brightBlack: "#8b949e",
  brightRed: "#ffa198",
  brightGreen: "#56d364",
  brightYellow: "#e3b341",
  brightBlue: "#79c0ff",
  brightMagenta: "#d2a8ff",
  brightCyan: "#56d4dd",
  brightWhite: "#ffffff",
};

const LIGHT: ITheme = {
  background: "#ffffff",
  foreground: "#1f2328",
  cursor: "#1f2328",
  cursorAccent: "#ffffff",
  selectionBackground: "#b6d6fd",
  black: "#24292f",
  red: "#cf222e",
  green: "#116329",
  yellow: "#7d4e00",
  blue: "#0550ae",
  magenta: "#8250df",
  cyan: "#1b7c83",
  white: "#6e7781",
  brightBlack: "#57606a",
  brightRed: "#a40e26",
  brightGreen: "#1a7f37",
  brightYellow: "#633c01",
  brightBlue: "#0969da",
  brightMagenta: "#8250df",
  brightCyan: "#1b7c83",
  brightWhite: "#8c959f",
};

export function terminalTheme(s: Scheme): ITheme {
  return s === "dark" ? DARK : LIGHT;
}

/** Word-wraps the page's own lines (the shell's output is never touched). */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split("\n")) {
    let line = "";
    for (const word of para.split(" ")) {
      if (line !== "" && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
      while (line.length > width) {
        out.push(line.slice(0, width));
        line = line.slice(width);
      }
    }
    out.push(line);
  }
  return out;
}

export interface TerminalView {
  readonly term: Terminal;
  /** Shows a line of the page's own (dim), not the shell's; `newline` false leaves the cursor after it. */
  note(text: string, newline?: boolean): void;
  /** Connects to a shell session, first showing what it printed before (`early`); returns the function that disconnects. */
  attach(session: ShellSession, early?: string): () => void;
  focus(): void;
  fit(): void;
}

export function createTerminal(host: HTMLElement, options: { fontSize: number }): TerminalView {
  const term = new Terminal({
    fontFamily: 'ui-monospace, "Cascadia Mono", "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
    fontSize: options.fontSize,
    lineHeight: 1.15,
    cursorBlink: true,
    scrollback: UI.terminalScrollback,
    screenReaderMode: true,
    theme: terminalTheme(scheme()),
    allowTransparency: false,
  });
  const fitAddon = new FitAddon();
  term.loadAddon(fitAddon);
  term.open(host);
  // Tab goes to the shell; Shift+Tab leaves the terminal, so a keyboard never gets stuck in it.
  term.attachCustomKeyEventHandler((e) => !(e.key === "Tab" && e.shiftKey));
  onSchemeChange((s) => {
    term.options.theme = terminalTheme(s);
  });

  let session: ShellSession | null = null;
  let last = "";
  const output = perFrame<string>((chunks) => term.write(chunks.join("")));
  const fit = (): void => {
    if (host.offsetWidth === 0 || host.offsetHeight === 0) return;
    try {
      fitAddon.fit();
    } catch {
      return; // not laid out yet
    }
    const size = `${term.cols}x${term.rows}`;
    if (session !== null && size !== last) {
      last = size;
      session.resize(term.cols, term.rows);
    }
  };
  let frame = 0;
  new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(fit);
  }).observe(host);
  fit();

  return {
    term,
    note(text: string, newline = true) {
      output.flush(); // after the output that came before it
      term.write(`\x1b[2m${wrap(text, Math.max(20, term.cols - 1)).join("\r\n")}\x1b[0m${newline ? "\r\n" : ""}`);
    },
    attach(s: ShellSession, early = "") {
      session = s;
      last = "";
      if (early !== "") term.write(early);
      const offOutput = s.onRawOutput((chunk) => output.push(chunk));
      const input = term.onData((data) => s.writeFromPerson(data));
      fit();
      s.resize(term.cols, term.rows);
      last = `${term.cols}x${term.rows}`;
      return () => {
        offOutput();
        output.flush();
        input.dispose();
        if (session === s) session = null;
      };
    },
    focus() {
      term.focus();
    },
    fit,
  };
}
