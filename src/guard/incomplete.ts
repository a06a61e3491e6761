// Whether a command's text is incomplete: bash would read more lines before running any of it (an open heredoc, or a
// last line that ends in a backslash). The bash tool holds such text, unsent, until the rest arrives via is_input, and
// then checks the whole text. Pure; errs towards "complete" (the guard then judges the text as it is).

const HEREDOC = /(?<!<)<<(?!<)(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z0-9_.+:@%-]+))/g;

export function needsMoreInput(text: string): boolean {
  const lines = text.split("\n");
  const pending: Array<{ delim: string; stripTabs: boolean }> = [];
  for (const line of lines) {
    if (pending.length > 0) {
      const open = pending[0]!;
      const body = open.stripTabs ? line.replace(/^\t+/, "") : line;
      if (body === open.delim) pending.shift();
      continue;
    }
    // Outside quotes only: drop quoted strings and comments before looking for `<<`.
    const bare = line.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''").replace(/(^|\s)#.*$/, "$1");
    HEREDOC.lastIndex = 0;
    for (let m = HEREDOC.exec(bare); m !== null; m = HEREDOC.exec(bare)) {
      // The delimiter as written in the original line (quoted delimiters were blanked in `bare`).
      const delim = m[4] ?? m[2] ?? m[3];
      if (delim !== undefined && delim !== "") pending.push({ delim, stripTabs: m[1] === "-" });
    }
    if (bare.includes("<<'") || bare.includes('<<"') || /<<-[ \t]*''/.test(bare) || /<<[ \t]*''/.test(bare)) {
      const q = /<<(-?)[ \t]*(['"])([^'"\n]+)\2/.exec(line);
      if (q !== null) pending.push({ delim: q[3]!, stripTabs: q[1] === "-" });
    }
  }
  if (pending.length > 0) return true;
  const last = lines[lines.length - 1] ?? "";
  return /(^|[^\\])(\\\\)*\\$/.test(last);
}
