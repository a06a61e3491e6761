// The file tools: read_file, write_file, edit_file, list_dir. They work on the runtime's file system directly (no
// shell, no quoting), so code gets into the sandbox byte for byte (no heredoc inside JSON). Every path goes through
// confine.ts first (real path inside the workspace or the temp folder); binary.ts tells text from binary.

import { TOOLS } from "../limits.ts";
import { baseName, joinPath, parentOf } from "../lib/paths.ts";
import { formatBytes, plural } from "../lib/text.ts";
import type { DirEntry } from "../runtime/types.ts";
import { binaryKind } from "./binary.ts";
import { displayPath, errnoOf, errText, readBytes, resolveToolPath, shellPath, writeGate } from "./confine.ts";
import { errorOutcome, type CallInfo, type ToolContext, type ToolOutcome } from "./context.ts";
import type { ToolArgs } from "./specs.ts";

// ------------------------------------------------------------------------------------------------ read_file

function numbered(n: number, line: string): string {
  return `${String(n).padStart(6)}\t${line}`;
}

function levenshtein(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** "No such file", with similar names from the nearest existing folder. */
async function notFound(host: ToolContext, real: string, given: string, what = "file"): Promise<ToolOutcome> {
  // The nearest existing folder, and the name below it that does not exist (the one to find near matches for).
  let dir = parentOf(real);
  let missing = baseName(real);
  let entries: DirEntry[] | null = null;
  for (;;) {
    entries = await host.runtime.fs.readdir(dir, { maxEntries: TOOLS.hintMaxEntries }).catch(() => null);
    if (entries !== null || dir === "/") break;
    missing = baseName(dir);
    dir = parentOf(dir);
  }
  let hint = "";
  if (entries !== null) {
    const want = missing.toLowerCase();
    const close = entries
      .slice(0, TOOLS.hintMaxEntries)
      .map((e) => ({ e, d: levenshtein(e.name.toLowerCase(), want) }))
      .filter((x) => x.d <= 2 || (want.length >= 3 && x.e.name.toLowerCase().includes(want)))
      .sort((x, y) => x.d - y.d)
      .slice(0, 5)
      .map((x) => displayPath(host, joinPath(dir, x.e.name)) + (x.e.type === "dir" ? "/" : ""));
    if (dir !== parentOf(real)) hint += ` (${displayPath(host, joinPath(dir, missing))} does not exist.)`;
    if (close.length > 0) hint += ` Did you mean: ${close.join(", ")}?`;
  }
  return errorOutcome(`No such ${what}: ${given}.${hint} Use list_dir to see what is there.`, { path: real });
}

export async function readFileTool(host: ToolContext, args: ToolArgs<"read_file">): Promise<ToolOutcome> {
  const r = await resolveToolPath(host, args.path, "read");
  if (!r.ok) return errorOutcome(r.message);
  if (r.stat === null) return notFound(host, r.path, args.path);
  if (r.stat.type === "dir") return errorOutcome(`${r.display} is a folder, not a file; use list_dir to see what it holds.`, { path: r.path });
  if (r.stat.type !== "file") return errorOutcome(`${r.display} is not a regular file.`, { path: r.path });
  const tooLarge = (size: number): ToolOutcome =>
    errorOutcome(
      `${r.display} is ${formatBytes(size)}, more than the ${formatBytes(TOOLS.readMaxFileBytes)} read_file reads. ` +
        `Read parts of it with bash: sed -n '1,200p' ${r.display}, or grep -n PATTERN ${r.display}.`,
      { path: r.path, sizeBytes: size },
    );
  if (r.stat.size > TOOLS.readMaxFileBytes) return tooLarge(r.stat.size);
  const bytes = await readBytes(host, r, TOOLS.readMaxFileBytes, tooLarge);
  if (!(bytes instanceof Uint8Array)) return bytes;
  const kind = binaryKind(bytes);
  if (kind !== null) {
    return errorOutcome(
      `${r.display} is a binary file (${kind}, ${formatBytes(bytes.length)}); read_file shows text only. ` +
        `Inspect it with bash instead (file ${r.display}; xxd ${r.display} | head).`,
      { path: r.path, sizeBytes: bytes.length, binary: true, fileType: kind },
    );
  }
  const text = new TextDecoder("utf-8").decode(bytes);
  const notes: string[] = [];
  const structured: ToolOutcome["structured"] = { status: "completed", path: r.path, sizeBytes: bytes.length };
  if (text === "") {
    return { text: `(${r.display} is empty: 0 bytes)`, structured: { ...structured, totalLines: 0, truncated: false } };
  }
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const total = lines.length;
  let offset = args.offset ?? 1;
  if (!Number.isInteger(offset)) offset = Math.floor(offset);
  if (offset < 1) {
    if (offset < 0) {
      // A negative offset counts from the end, as in Python.
      offset = Math.max(1, total + offset + 1);
      notes.push(`Note: a negative offset counts from the end: started at line ${offset}.`);
    } else offset = 1;
  }
  if (offset > total) {
    return errorOutcome(`offset ${offset} is past the end: ${r.display} has ${plural(total, "line")}.`, { ...structured, totalLines: total });
  }
  let limit = args.limit ?? TOOLS.readDefaultLines;
  if (!(limit >= 1)) {
    notes.push(`Note: limit ${limit} is not a number of lines ≥ 1; ${TOOLS.readDefaultLines} applies.`);
    limit = TOOLS.readDefaultLines;
  }
  limit = Math.floor(limit);
  const out: string[] = [];
  let chars = 0;
  let cutLines = 0;
  let crlf = false;
  let last = offset - 1;
  for (let n = offset; n <= total && n < offset + limit; n++) {
    let line = lines[n - 1]!;
    if (line.endsWith("\r")) {
      line = line.slice(0, -1);
      crlf = true;
    }
    if (line.length > TOOLS.readMaxLineChars) {
      line = `${line.slice(0, TOOLS.readMaxLineChars)}… [line cut: ${line.length.toLocaleString("en-US")} characters]`;
      cutLines++;
    }
    const row = numbered(n, line);
    if (chars + row.length + 1 > TOOLS.readMaxChars && out.length > 0) break;
    out.push(row);
    chars += row.length + 1;
    last = n;
  }
  const partial = offset > 1 || last < total;
  const parts = [out.join("\n")];
  if (last < total) {
    const why = last < offset + limit - 1 ? ` (the ${TOOLS.readMaxChars.toLocaleString("en-US")}-character limit of one read)` : "";
    parts.push(`[lines ${offset}–${last} of ${total}${why}; read on with offset=${last + 1}]`);
  } else if (partial) {
    parts.push(`[lines ${offset}–${last} of ${total}; end of file]`);
  }
  if (cutLines > 0) {
    parts.push(
      `Note: ${plural(cutLines, "line was", "lines were")} longer than ${TOOLS.readMaxLineChars.toLocaleString("en-US")} ` +
        `characters and cut; see one whole with bash: sed -n 'Np' ${r.display} | fold -w 2000.`,
    );
  }
  if (crlf) notes.push("Note: the file has CRLF (\\r\\n) line endings; the \\r is not shown.");
  parts.push(...notes);
  Object.assign(structured, { totalLines: total, startLine: offset, endLine: last, truncated: last < total || cutLines > 0 });
  return { text: parts.join("\n"), structured };
}

// ------------------------------------------------------------------------------------------------ write_file

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

function countLines(s: string): number {
  if (s === "") return 0;
  const n = s.split("\n").length;
  return s.endsWith("\n") ? n - 1 : n;
}

export async function writeFileTool(host: ToolContext, call: CallInfo, args: ToolArgs<"write_file">): Promise<ToolOutcome> {
  const r = await resolveToolPath(host, args.path, "write");
  if (!r.ok) return errorOutcome(r.message);
  if (r.stat !== null && r.stat.type === "dir") {
    return errorOutcome(`${r.display} is a folder; give the path of a file inside it.`, { path: r.path });
  }
  const gated = await writeGate(host, call, r, "write_file");
  if ("outcome" in gated) return gated.outcome;
  const parent = parentOf(r.path);
  try {
    const pst = await host.runtime.fs.stat(parent);
    if (pst === null) await host.runtime.fs.mkdir(parent, { recursive: true });
    else if (pst.type !== "dir") return errorOutcome(`${displayPath(host, parent)} is a file, so no file can be created inside it.`, { path: r.path });
  } catch (err) {
    return errorOutcome(`The folder ${displayPath(host, parent)} could not be created: ${errText(err)}`, { path: r.path });
  }
  try {
    await host.runtime.fs.writeFile(r.path, args.content);
  } catch (err) {
    return errorOutcome(`${r.display} could not be written: ${errText(err)}`, { path: r.path });
  }
  const bytes = utf8Length(args.content);
  const lines = countLines(args.content);
  const parts = [
    ...(gated.approvalLine !== null ? [gated.approvalLine] : []),
    `Wrote ${plural(bytes, "byte")} (${plural(lines, "line")}) to ${r.display}${r.stat === null ? " (new file)" : " (replaced its content)"}.`,
  ];
  if (!args.content.includes("\n") && (args.content.match(/\\n/g) ?? []).length >= 2) {
    parts.push(
      "Note: the content has no line breaks but contains the two characters \\n several times; it was written as given. " +
        "If you meant line breaks, send real newlines (JSON \\n, not \\\\n).",
    );
  }
  return { text: parts.join("\n"), structured: { status: "completed", path: r.path, bytes, lines, created: r.stat === null } };
}

// ------------------------------------------------------------------------------------------------ edit_file

/** 1-based line numbers where each of the (non-overlapping) matches of `needle` starts. */
function matchLines(text: string, needle: string): number[] {
  const out: number[] = [];
  let line = 1;
  let scanned = 0;
  let i = text.indexOf(needle);
  while (i !== -1) {
    for (let k = text.indexOf("\n", scanned); k !== -1 && k < i; k = text.indexOf("\n", k + 1)) line++;
    scanned = i;
    out.push(line);
    i = text.indexOf(needle, i + needle.length);
  }
  return out;
}

function listLines(lines: number[], max = 20): string {
  const shown = lines.slice(0, max).join(", ");
  return lines.length > max ? `${shown} and ${lines.length - max} more` : shown;
}

/** Why old_str was not found: indentation or whitespace differences, CRLF, another line that holds its first line. */
function notFoundHelp(text: string, old: string): string {
  const fileLines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const squash = (s: string): string => s.replace(/\s+/g, " ").trim();
  const firstOld = old.split("\n").find((l) => l.trim() !== "");
  const help: string[] = [];
  if (squash(old) !== "" && squash(text).includes(squash(old))) {
    help.push("It matches when whitespace is ignored: indentation, tabs or trailing spaces differ. Copy the text exactly from read_file (without the line-number prefix).");
  }
  if (firstOld !== undefined) {
    const want = firstOld.trim();
    const at = fileLines.map((l, i) => (l.trim() === want ? i + 1 : 0)).filter((n) => n > 0);
    if (at.length > 0) help.push(`Its first line occurs at line ${listLines(at, 10)}; read_file around there and copy the text exactly.`);
  }
  if (/^\s*\d+\t/.test(old)) help.push("old_str seems to start with a line number from read_file; leave the number and tab out.");
  if (help.length === 0) help.push("Read the file with read_file and copy the text to replace exactly.");
  return help.join(" ");
}

interface EditPlan {
  updated: string;
  lines: number[];
  replacement: string;
  notes: string[];
}

/** The file as it is after the edit, or why the edit cannot be made (nothing written either way). */
async function planEdit(
  host: ToolContext,
  r: { path: string; display: string },
  args: ToolArgs<"edit_file">,
  tooLarge: (size: number) => ToolOutcome,
): Promise<EditPlan | { outcome: ToolOutcome }> {
  let old = args.old_str;
  let replacement = args.new_str;
  const bytes = await readBytes(host, r, TOOLS.readMaxFileBytes, tooLarge);
  if (!(bytes instanceof Uint8Array)) return { outcome: bytes };
  const kind = binaryKind(bytes);
  if (kind !== null) return { outcome: errorOutcome(`${r.display} is a binary file (${kind}, ${formatBytes(bytes.length)}); edit_file edits text only.`, { path: r.path }) };
  const text = new TextDecoder("utf-8").decode(bytes);
  const notes: string[] = [];
  let lines = matchLines(text, old);
  if (lines.length === 0 && text.includes("\r\n") && old.includes("\n") && !old.includes("\r\n")) {
    const crlfOld = old.replace(/\n/g, "\r\n");
    const crlfLines = matchLines(text, crlfOld);
    if (crlfLines.length > 0) {
      old = crlfOld;
      replacement = replacement.replace(/\r?\n/g, "\r\n");
      lines = crlfLines;
      notes.push("Note: the file has CRLF line endings; old_str and new_str were matched and written with CRLF.");
    }
  }
  if (lines.length === 0) {
    return { outcome: errorOutcome(`old_str was not found in ${r.display}; nothing was changed. ${notFoundHelp(text, old)}`, { path: r.path, replacements: 0 }) };
  }
  if (lines.length > 1 && args.replace_all !== true) {
    return {
      outcome: errorOutcome(
        `old_str occurs ${lines.length} times in ${r.display}, at lines ${listLines(lines)}; nothing was changed. ` +
          "Include more surrounding lines in old_str so that it matches exactly once, or set replace_all=true to replace every one.",
        { path: r.path, replacements: 0, matchLines: lines },
      ),
    };
  }
  const first = text.indexOf(old);
  const updated = args.replace_all === true ? text.split(old).join(replacement) : text.slice(0, first) + replacement + text.slice(first + old.length);
  return { updated, lines, replacement, notes };
}

export async function editFileTool(
  host: ToolContext,
  call: CallInfo,
  args: ToolArgs<"edit_file">,
): Promise<ToolOutcome> {
  const r = await resolveToolPath(host, args.path, "write");
  if (!r.ok) return errorOutcome(r.message);
  if (r.stat === null) {
    const nf = await notFound(host, r.path, args.path);
    nf.text += " To create a new file, use write_file.";
    return nf;
  }
  if (r.stat.type !== "file") return errorOutcome(`${r.display} is not a regular file.`, { path: r.path });
  const tooLarge = (size: number): ToolOutcome =>
    errorOutcome(`${r.display} is ${formatBytes(size)}, more than the ${formatBytes(TOOLS.readMaxFileBytes)} edit_file handles; edit it with sed in bash.`, { path: r.path });
  if (r.stat.size > TOOLS.readMaxFileBytes) return tooLarge(r.stat.size);
  if (args.old_str === "") {
    return errorOutcome(
      'Parameter "old_str" is empty. To write a whole file use write_file; to insert text, put a nearby line in old_str ' +
        "and that line plus the new text in new_str.",
      { path: r.path },
    );
  }
  if (args.old_str === args.new_str) return errorOutcome("old_str and new_str are the same, so there is nothing to change.", { path: r.path });
  let plan = await planEdit(host, r, args, tooLarge);
  if ("outcome" in plan) return plan.outcome;
  const gated = await writeGate(host, call, r, "edit_file");
  if ("outcome" in gated) return gated.outcome;
  if (gated.approvalLine !== null) {
    // A person was asked, which takes a while: the edit is made on the file as it is now.
    plan = await planEdit(host, r, args, tooLarge);
    if ("outcome" in plan) return plan.outcome;
  }
  const { updated, lines, replacement, notes } = plan;
  try {
    await host.runtime.fs.writeFile(r.path, updated);
  } catch (err) {
    return errorOutcome(`${r.display} could not be written: ${errText(err)}`, { path: r.path });
  }
  // A few numbered lines around the first edit, as they are now.
  const newLines = updated.split("\n");
  if (newLines.length > 1 && newLines[newLines.length - 1] === "") newLines.pop();
  const startLine = lines[0]!;
  const endLine = startLine + Math.max(0, replacement.split("\n").length - 1);
  const from = Math.max(1, startLine - TOOLS.editSnippetLines);
  const to = Math.min(newLines.length, endLine + TOOLS.editSnippetLines);
  const snippet: string[] = [];
  for (let n = from; n <= to; n++) snippet.push(numbered(n, (newLines[n - 1] ?? "").replace(/\r$/, "")));
  const count = lines.length;
  const head =
    count === 1
      ? `Edited ${r.display}: replaced 1 occurrence at line ${startLine}.`
      : `Edited ${r.display}: replaced ${count} occurrences (old lines ${listLines(lines)}); the first is shown.`;
  return {
    text: [...(gated.approvalLine !== null ? [gated.approvalLine] : []), head, snippet.join("\n"), ...notes].join("\n"),
    structured: { status: "completed", path: r.path, replacements: count, firstLine: startLine },
  };
}

// ------------------------------------------------------------------------------------------------ list_dir

const NAME_ONLY = new Set(["node_modules", ".git"]);

export async function listDirTool(host: ToolContext, args: ToolArgs<"list_dir">): Promise<ToolOutcome> {
  const given = args.path ?? ".";
  const r = await resolveToolPath(host, given.trim() === "" ? "." : given, "read");
  if (!r.ok) return errorOutcome(r.message);
  if (r.stat === null) return notFound(host, r.path, given, "folder");
  if (r.stat.type !== "dir") {
    return errorOutcome(`${r.display} is a file (${formatBytes(r.stat.size)}), not a folder; use read_file to read it.`, { path: r.path });
  }
  const notes: string[] = [];
  let depth = args.depth ?? TOOLS.listDefaultDepth;
  if (!(depth >= 1)) {
    notes.push(`Note: depth ${depth} is less than 1; 1 applies.`);
    depth = 1;
  } else if (depth > TOOLS.listMaxDepth) {
    notes.push(`Note: depth ${depth} is more than the ${TOOLS.listMaxDepth} allowed; ${TOOLS.listMaxDepth} applies.`);
    depth = TOOLS.listMaxDepth;
  }
  depth = Math.floor(depth);

  const out: string[] = [`${shellPath(host, r.path).replace(/\/$/, "")}/`];
  let files = 0;
  let dirs = 0;
  let shown = 0;
  let more = false;
  const order = (a: DirEntry, b: DirEntry): number =>
    (a.type === "dir" ? 0 : 1) - (b.type === "dir" ? 0 : 1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

  async function walk(dir: string, level: number, indent: string): Promise<void> {
    // A folder is read no further than the entries there is room for, plus one that says there are more.
    const room = TOOLS.listMaxEntries - shown;
    let entries: DirEntry[];
    try {
      entries = await host.runtime.fs.readdir(dir, { maxEntries: room });
    } catch (err) {
      out.push(`${indent}(cannot be read: ${errnoOf(err) || errText(err)})`);
      return;
    }
    if (entries.length > room) {
      more = true;
      entries = entries.slice(0, room);
    }
    entries.sort(order);
    for (const e of entries) {
      if (shown >= TOOLS.listMaxEntries) {
        more = true; // a subfolder listed before took the room that was left
        return;
      }
      shown++;
      const path = joinPath(dir, e.name);
      if (e.type === "dir") {
        dirs++;
        if (NAME_ONLY.has(e.name)) {
          out.push(`${indent}${e.name}/ (not listed)`);
        } else if (level < depth) {
          out.push(`${indent}${e.name}/`);
          await walk(path, level + 1, indent + "  ");
        } else {
          const max = TOOLS.listMaxEntries;
          const n = await host.runtime.fs.readdir(path, { maxEntries: max }).then((xs) => xs.length, () => null);
          const count = n === null ? "" : n === 0 ? " (empty)" : n > max ? ` (more than ${max.toLocaleString("en-US")} entries)` : ` (${plural(n, "entry", "entries")})`;
          out.push(`${indent}${e.name}/${count}`);
        }
      } else if (e.type === "file") {
        files++;
        out.push(`${indent}${e.name} (${formatBytes(e.size)})`);
      } else if (e.type === "symlink") {
        files++;
        out.push(`${indent}${e.name} (symlink)`);
      } else {
        files++;
        out.push(`${indent}${e.name} (special file)`);
      }
    }
  }

  await walk(r.path, 1, "  ");
  if (out.length === 1) out.push("  (empty folder)");
  let summary = `${plural(dirs, "folder")}, ${plural(files, "file")} shown`;
  if (more) {
    summary +=
      `; more entries not shown (at most ${TOOLS.listMaxEntries} are, from the first ones a folder gives; a folder is ` +
      "not read past them): list a subfolder, use a smaller depth, or count with bash (ls -f DIR | wc -l)";
  }
  out.push(`[${summary}]`, ...notes);
  return {
    text: out.join("\n"),
    structured: { status: "completed", path: r.path, depth, entries: shown, truncated: more },
  };
}
