// The terminal as stdin: which commands read it when given no file or redirection (`cat`, `grep PATTERN`, `head`…),
// and `read`'s rewrite to a terminal device (config.ts DEVICES) that waits for what is typed: a line, N characters
// (`read -n N`), not echoed (`read -s`), its `-p` prompt shown first.

import { group, INPUT_OPERATORS, literal, literalText, redirect, simple, statementOf, type CommandNode, type RedirectionNode, type SimpleCommandNode, type WordNode } from "./ast.ts";
import { COMMANDS, DEVICES } from "./config.ts";

interface Reader {
  /** Leading operands that are not files (a pattern, a script). */
  script?: number;
  /** Options that give the script, so that no operand is one. */
  scriptOpts?: string[];
  /** Options followed by a value (a separate word). */
  valueOpts?: string[];
  /** Reads stdin whatever the operands are. */
  always?: boolean;
}

/** Commands that read stdin when given no file operand, as far as the shell can tell from the words. */
const READERS: Record<string, Reader> = {
  cat: {},
  tac: {},
  rev: {},
  nl: { valueOpts: ["-w", "-s", "-v", "-i", "-b"] },
  wc: {},
  sort: { valueOpts: ["-k", "-t", "-o", "-S"] },
  uniq: { valueOpts: ["-f", "-s", "-w"] },
  head: { valueOpts: ["-n", "-c"] },
  tail: { valueOpts: ["-n", "-c"] },
  base64: { valueOpts: ["-w"] },
  md5sum: {},
  sha1sum: {},
  sha256sum: {},
  od: { valueOpts: ["-t", "-A", "-N", "-j", "-w"] },
  fold: { valueOpts: ["-w"] },
  expand: { valueOpts: ["-t"] },
  unexpand: { valueOpts: ["-t"] },
  strings: { valueOpts: ["-n"] },
  cut: { valueOpts: ["-d", "-f", "-c", "-b"] },
  tee: { always: true },
  tr: { always: true },
  xargs: { always: true },
  grep: { script: 1, scriptOpts: ["-e", "-f"], valueOpts: ["-e", "-f", "-m", "-A", "-B", "-C"] },
  egrep: { script: 1, scriptOpts: ["-e", "-f"], valueOpts: ["-e", "-f", "-m", "-A", "-B", "-C"] },
  fgrep: { script: 1, scriptOpts: ["-e", "-f"], valueOpts: ["-e", "-f", "-m", "-A", "-B", "-C"] },
  sed: { script: 1, scriptOpts: ["-e", "-f", "--expression", "--file"], valueOpts: ["-e", "-f"] },
  awk: { script: 1, scriptOpts: ["-f"], valueOpts: ["-F", "-v", "-f"] },
  jq: { script: 1, valueOpts: ["--indent", "--arg", "--argjson"] },
};

/** Does this command, run with the terminal as stdin, read it? */
export function readsTerminal(name: string, args: WordNode[]): boolean {
  const reader = READERS[name];
  if (reader === undefined) return false;
  if (reader.always) return true;
  let operands = 0;
  let script = reader.script ?? 0;
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const text = literalText(args[i]);
    if (text === null) {
      operands++;
      continue;
    }
    if (options && text === "--") {
      options = false;
      continue;
    }
    if (options && text.startsWith("-") && text.length > 1) {
      const flag = text.includes("=") ? text.slice(0, text.indexOf("=")) : text;
      if (reader.scriptOpts?.includes(flag)) script = 0;
      if (!text.includes("=") && reader.valueOpts?.includes(text)) i += text === "--arg" || text === "--argjson" ? 2 : 1;
      continue;
    }
    if (text === "-") continue; // stdin, named
    operands++;
  }
  return operands <= script;
}

export function hasInputRedirect(redirections: RedirectionNode[] | undefined): boolean {
  return (redirections ?? []).some((r) => (r.fd === null || r.fd === 0) && INPUT_OPERATORS.has(r.operator));
}

function readDevice(silent: boolean, count: number): string {
  if (count > 0) return `${DEVICES.ttyCounted}${silent ? "chars-silent" : "chars"}-${count}`;
  return silent ? DEVICES.ttyLineSilent : DEVICES.ttyLine;
}

/** `head` reads only its first lines from the terminal (10, or `-n N`, `-nN`, `-N`); null when it reads to the end. */
export function headLines(args: WordNode[]): number | null {
  let n = 10;
  for (let i = 0; i < args.length; i++) {
    const text = literalText(args[i]);
    if (text === null) return null;
    let value: string | null = null;
    if (text === "-n" || text === "--lines") value = literalText(args[++i]);
    else if (text.startsWith("--lines=")) value = text.slice("--lines=".length);
    else if (/^-n./.test(text)) value = text.slice(2);
    else if (/^-[0-9]+$/.test(text)) value = text.slice(1);
    else if (text.startsWith("-") && text !== "-") return null; // -c, -q, …: read as today
    else continue;
    if (value === null || !/^[1-9][0-9]{0,8}$/.test(value)) return null;
    n = Number(value);
  }
  return n;
}

/** `read …` with the terminal as stdin: a line from the terminal, its `-p` prompt shown first. */
export function rewriteRead(cmd: SimpleCommandNode): CommandNode | SimpleCommandNode {
  let prompt: WordNode | null = null;
  let silent = false;
  /** `-n N`/`-N N`: N characters end the read without Enter. */
  let count = 0;
  const args: WordNode[] = [];
  for (let i = 0; i < cmd.args.length; i++) {
    const word = cmd.args[i] as WordNode;
    const text = literalText(word);
    if (text === null || !text.startsWith("-") || text === "-") {
      args.push(word);
      continue;
    }
    if (text === "--") {
      args.push(...cmd.args.slice(i));
      break;
    }
    const flags = text.slice(1);
    if (flags.includes("u")) return cmd; // reads another descriptor
    if (flags.includes("s")) silent = true;
    const p = flags.indexOf("p");
    if (p === -1) {
      args.push(word);
      // options that take a value: -a NAME, -d DELIM, -n N, -N N, -t T, -i TEXT (attached: -n1)
      const valued = /[adnNti]/.exec(flags);
      if (valued === null) continue;
      const attached = flags.slice(valued.index + 1);
      const value = attached !== "" ? attached : i + 1 < cmd.args.length ? literalText(cmd.args[i + 1]) : null;
      if ((valued[0] === "n" || valued[0] === "N") && value !== null && /^[1-9][0-9]{0,8}$/.test(value)) count = Number(value);
      if (attached === "" && i + 1 < cmd.args.length) args.push(cmd.args[++i] as WordNode);
      continue;
    }
    const rest = flags.slice(p + 1);
    const before = flags.slice(0, p);
    if (before !== "") args.push(literal(`-${before}`));
    if (rest !== "") prompt = literal(rest);
    else if (i + 1 < cmd.args.length) prompt = cmd.args[++i] as WordNode;
  }
  const read: SimpleCommandNode = {
    ...cmd,
    args,
    redirections: [...cmd.redirections, redirect(0, "<", readDevice(silent, count))],
  };
  if (prompt === null) return read;
  return group([statementOf(simple(COMMANDS.prompt, [prompt])), statementOf(read)]);
}
