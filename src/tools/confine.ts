// Path confinement for the file tools: a path the agent gives (relative to the workspace, absolute, or `~/…`) is
// resolved to its real path first (`..` and symlinks: runtime.fs.realpath, or the nearest existing parent for a path
// that does not exist yet), and a real path outside the workspace and the temp folder is refused. The temp folder is
// what the shell calls /tmp (in the browser runtimes, and on node inside the OS sandbox, where /tmp is the sandbox's
// private folder: a `/tmp/…` path is read there), or on node without that sandbox its private $TMPDIR (the host's
// shared /tmp is refused). On node the runtime's file system then opens exactly that real path, refusing a symlink
// swapped in meanwhile (src/runtime/node/fs.ts).

import { isInside, joinPath, normalizePath, parentOf } from "../lib/paths.ts";
import type { FileStat } from "../runtime/types.ts";
import { shellQuote } from "./args.ts";
import { gate } from "./command-gate.ts";
import { errorOutcome, type CallInfo, type ToolContext, type ToolOutcome } from "./context.ts";

export function errnoOf(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" ? code : "";
}

export function errText(err: unknown): string {
  const code = errnoOf(err);
  const msg = err instanceof Error ? err.message : String(err);
  return code && !msg.includes(code) ? `${code}: ${msg}` : msg;
}

export type PathMode = "read" | "write";

export type ResolvedPath =
  | {
      ok: true;
      /** The real absolute path (symlinks and `..` resolved). */
      path: string;
      /** How to show it to the agent: relative to the workspace when inside it. */
      display: string;
      /** lstat of the real path; null when nothing is there yet. */
      stat: FileStat | null;
    }
  | { ok: false; message: string };

/** Resolves symlinks one component at a time, for a path whose end does not exist yet. */
async function walkRealpath(host: ToolContext, abs: string): Promise<{ path: string } | { dangling: string }> {
  let cur = "/";
  for (const part of abs.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      cur = parentOf(cur); // cur is already real, so its parent is too
      continue;
    }
    const next = joinPath(cur, part);
    const st = await host.runtime.fs.stat(next).catch(() => null);
    if (st?.type === "symlink") {
      try {
        cur = await host.runtime.fs.realpath(next);
      } catch {
        return { dangling: next };
      }
    } else {
      cur = next;
    }
  }
  return { path: cur };
}

/** A real path as the shell names it: the temp folder by the shell's name for it (/tmp). */
export function shellPath(host: ToolContext, real: string): string {
  if (host.tmpName !== host.tmp && isInside(real, host.tmp)) return host.tmpName + real.slice(host.tmp.length);
  return real;
}

export function displayPath(host: ToolContext, real: string): string {
  if (real === host.workspace) return ".";
  if (isInside(real, host.workspace)) return real.slice(host.workspace.length + (host.workspace.endsWith("/") ? 0 : 1));
  return shellPath(host, real);
}

/**
 * The host's spelling of a path the shell spells with its /tmp, when that is the sandbox's private folder: the first
 * component `tmp` becomes that folder (what follows, `..` included, is resolved there, as the shell's kernel would).
 * The workspace and the folder itself keep their host paths inside the sandbox too (a default workspace lives under
 * the host's /tmp), so a path inside either is left as it is.
 */
function hostSpelling(host: ToolContext, abs: string): string {
  if (host.tmpName === host.tmp) return abs;
  const norm = normalizePath(abs);
  if (isInside(norm, host.workspace) || isInside(norm, host.tmp)) return abs;
  const parts = abs.split("/");
  let i = 0;
  while (i < parts.length && (parts[i] === "" || parts[i] === "." || parts[i] === "..")) i++;
  if (`/${parts[i] ?? ""}` !== host.tmpName) return abs;
  return [host.tmp, ...parts.slice(i + 1)].join("/");
}

export async function resolveToolPath(host: ToolContext, input: string, mode: PathMode): Promise<ResolvedPath> {
  const given = input.trim();
  if (given === "") return { ok: false, message: "The path is empty." };
  if (given.includes("\u0000")) return { ok: false, message: "The path contains a NUL byte." };
  let abs: string;
  if (given === "~" || given.startsWith("~/")) abs = host.workspace + given.slice(1);
  else if (given.startsWith("/")) abs = hostSpelling(host, given);
  else abs = joinPath(host.workspace, given);

  let real: string;
  try {
    real = await host.runtime.fs.realpath(abs);
  } catch {
    const walked = await walkRealpath(host, abs);
    if ("dangling" in walked) {
      return { ok: false, message: `"${given}" goes through the symlink ${walked.dangling}, whose target does not exist.` };
    }
    real = walked.path;
  }
  const lexical = normalizePath(abs);
  if (!isInside(real, host.workspace) && !isInside(real, host.tmp)) {
    // Without the OS sandbox, the node runtime's temp folder is its private $TMPDIR, not the host's shared /tmp.
    const tmpName = host.tmpName === "/tmp" ? "/tmp" : `the sandbox's temp folder ${host.tmpName} ($TMPDIR)`;
    const where = `the workspace (${host.workspace}) and ${tmpName}`;
    const how =
      real !== lexical
        ? `resolves through a symlink to ${real}, which is outside ${where}`
        : given !== real
          ? `resolves to ${real}, which is outside ${where}`
          : `is outside ${where}`;
    return {
      ok: false,
      message: `"${given}" ${how}, so it was refused. The file tools ${mode} only inside the workspace and ${tmpName}.`,
    };
  }
  const refusal = host.pathRefusal?.(real) ?? null; // another caller's spill file (src/sandbox/callers.ts)
  if (refusal !== null) return { ok: false, message: refusal };
  const stat = await host.runtime.fs.stat(real).catch(() => null);
  return { ok: true, path: real, display: displayPath(host, real), stat };
}

/**
 * The file's bytes, or the error a tool returns when they cannot be read. More than `maxBytes` is `tooLarge(size)`:
 * judged by the file that was opened (a file swapped or grown after a stat is never read whole), and on a file
 * system that ignores the limit, by what it returned.
 */
export async function readBytes(
  host: ToolContext,
  r: { path: string; display: string },
  maxBytes: number,
  tooLarge: (size: number) => ToolOutcome,
): Promise<Uint8Array | ToolOutcome> {
  let bytes: Uint8Array;
  try {
    bytes = await host.runtime.fs.readFile(r.path, { maxBytes });
  } catch (err) {
    const size = (err as { size?: unknown }).size;
    if (errnoOf(err) === "EFBIG") return tooLarge(typeof size === "number" ? size : maxBytes + 1);
    return errorOutcome(`${r.display} could not be read: ${errText(err)}`, { path: r.path });
  }
  return bytes.length > maxBytes ? tooLarge(bytes.length) : bytes;
}

/**
 * Before write_file or edit_file writes `r.path` from the host, outside any OS sandbox: refused where the sandbox keeps
 * the shell from writing it (node: git hooks and config, shell startup files, editor and agent settings; see
 * src/runtime/node/protect.ts), then judged by the guard as the same write from bash would be (`tee PATH`: the
 * `config-write` rule asks under balanced for .git/, package.json, .npmrc, rc files; under strict, which is read-only,
 * every write asks: rule `strict-write`), and asked for when it asks.
 * An "Always allow" adds the exact rule `tee PATH`, never `tee:*`. Returns the line saying who approved (or null).
 */
export async function writeGate(
  host: ToolContext,
  call: CallInfo,
  r: { path: string; display: string },
  tool: "write_file" | "edit_file",
): Promise<{ outcome: ToolOutcome } | { approvalLine: string | null }> {
  const t0 = performance.now();
  const why = host.runtime.protectedWrite?.(r.path) ?? null;
  if (why !== null) {
    call.record("verdict", { path: r.path, verdict: { decision: "deny", layer: 2, rule: "sandbox-protected", reason: why } });
    return { outcome: errorOutcome(`${r.display} was not written: ${why}`, { path: r.path, refused: "protected" }) };
  }
  const arg = r.display.startsWith("-") ? `./${r.display}` : r.display;
  const command = `tee ${shellQuote(arg)}`;
  const g = await gate(host, call, command, host.workspace, false, t0, tool, command);
  if ("outcome" in g) {
    const out = g.outcome;
    out.text = `${r.display} was not written: ${tool} is judged as the same write from bash (\`${command}\`).\n${out.text}`;
    out.structured.path = r.path;
    return { outcome: out };
  }
  return { approvalLine: g.approvalLine };
}
