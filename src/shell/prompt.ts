// Reading the terminal's last lines: does a program wait for an answer, and which leading lines are the echo of the
// command (for a runtime that marks neither the echo's end nor the command's start).

// Prompt-like last lines: after SHELL.promptQuietMs of quiet these return `running` early.
const PROMPT_PATTERNS: RegExp[] = [
  /(?:password|passphrase|passcode|\bpin)\b[^\n]*[:>]\s*$/i,
  /[[(](?:y\/n|yes\/no)[^\])\n]*[\])]\s*[:?]?\s*$/i,
  /(?:^|\s)(?:>>>|\.\.\.) $/,
  /> $/,
  /\? $/,
  /: $/,
  /[$#%] $/,
];

export function looksLikePrompt(lastLine: string): boolean {
  if (lastLine.trim() === "") return false;
  return PROMPT_PATTERNS.some((re) => re.test(lastLine));
}

/** Drops the leading lines of `clean` that repeat the command's lines (the echo of a runtime with no start marker). */
export function stripEcho(clean: string, command: string): string {
  const lines = clean.split("\n");
  const cmdLines = command.split("\n");
  let k = 0;
  for (const cmdLine of cmdLines) {
    const line = lines[k];
    if (line === undefined) break;
    const want = cmdLine.trimEnd();
    if (want === "" ? line.trim() === "" || /^[>$#%] ?$/.test(line.trim()) : line.trimEnd().endsWith(want)) k++;
    else break;
  }
  return k === 0 ? clean : lines.slice(k).join("\n");
}

