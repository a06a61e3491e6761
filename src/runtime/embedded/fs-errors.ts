// Errors of the embedded runtime's file system: errno-coded, as node's are (the Runtime's fs contract), and the words
// of its ENOSPC, which name the bound and say what to do instead (EMBEDDED.limits.maxFileSystemBytes, EMBEDDED.maxFiles).

import { EMBEDDED } from "../../limits.ts";
import type { FsBounds } from "./protocol.ts";

export class FsError extends Error {
  readonly code: string;
  readonly syscall: string;
  readonly path: string;
  constructor(code: string, syscall: string, path: string, detail?: string) {
    const text: Record<string, string> = {
      ENOENT: "no such file or directory",
      EEXIST: "file already exists",
      ENOTDIR: "not a directory",
      EISDIR: "illegal operation on a directory",
      ENOTEMPTY: "directory not empty",
      ELOOP: "too many levels of symbolic links",
      EINVAL: "invalid argument",
      ENOSPC: "no space left on device",
      ENAMETOOLONG: "file name too long",
    };
    super(`${code}: ${detail ?? text[code] ?? "error"}, ${syscall} '${shortPath(path)}'`);
    this.name = "FsError";
    this.code = code;
    this.syscall = syscall;
    this.path = path;
  }
}

/** A path as an error shows it: a long one cut in the middle (a 60,000-character path is not echoed whole). */
export function shortPath(path: string): string {
  return path.length <= 200 ? path : `${path.slice(0, 100)}…(${path.length.toLocaleString("en-US")} characters)…${path.slice(-60)}`;
}

/** What an entry costs beyond its content: its path (the key it is kept under) and a link's target. */
export function nameBytes(path: string, target?: string): number {
  return path.length + (target?.length ?? 0);
}

/**
 * Why a file, folder or link at `path` (normalized), or a link's `target`, cannot be made: longer than Linux's
 * PATH_MAX or NAME_MAX (EMBEDDED.maxPathChars, maxNameChars). null when it can.
 */
export function nameTooLong(path: string, target?: string): string | null {
  const { maxPathChars, maxNameChars } = EMBEDDED;
  if (path.length > maxPathChars) return `file name too long: a path may have at most ${maxPathChars.toLocaleString("en-US")} characters, this one has ${path.length.toLocaleString("en-US")}`;
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path.charCodeAt(i) === 0x2f) {
      if (i - start > maxNameChars) return `file name too long: one name in a path may have at most ${maxNameChars} characters, this one has ${(i - start).toLocaleString("en-US")}`;
      start = i + 1;
    }
  }
  if (target !== undefined && target.length > maxPathChars) return `file name too long: a link's target may have at most ${maxPathChars.toLocaleString("en-US")} characters, this one has ${target.length.toLocaleString("en-US")}`;
  return null;
}

/** Bytes as people read them: "128 MiB", "3.5 MiB", "812 KiB". */
export function sizeText(bytes: number): string {
  const units: Array<[number, string]> = [[1024 * 1024 * 1024, "GiB"], [1024 * 1024, "MiB"], [1024, "KiB"]];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1)).toLocaleString("en-US")} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The bounds of EMBEDDED in src/limits.ts. */
export const DEFAULT_BOUNDS: FsBounds = { bytes: EMBEDDED.limits.maxFileSystemBytes, files: EMBEDDED.maxFiles };

/** What a bound's ENOSPC error says: the bound, and what to do instead. */
export function spaceDetail(kind: "bytes" | "files", used: number, bounds: FsBounds): string {
  if (kind === "bytes") {
    return (
      `no space left: the embedded shell's files (workspace and /tmp together, with their names and links' targets) may hold ` +
      `${sizeText(bounds.bytes)} and ${sizeText(used)} are in use; delete files you no longer need (rm), or write less`
    );
  }
  return (
    `no space left: the embedded shell's file system may hold ${bounds.files.toLocaleString("en-US")} files, folders and links` +
    ` and ${used.toLocaleString("en-US")} exist; delete some (rm -r), or keep many small pieces in one file`
  );
}
