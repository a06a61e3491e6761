// POSIX path arithmetic for the guard. No node:path: the guard runs unchanged in browsers and workers.

/** Collapses `//`, `.` and `..` of an absolute path; `..` above `/` stays at `/`, as the kernel does. */
export function normalizePath(absolute: string): string {
  const out: string[] = [];
  for (const seg of absolute.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

/** Absolute form of `path` seen from `cwd`; null when it depends on a cwd nobody knows. */
export function resolvePath(path: string, cwd: string | null): string | null {
  if (path.startsWith("/")) return normalizePath(path);
  if (cwd === null) return null;
  return normalizePath(cwd + "/" + path);
}

export function isInside(path: string, dir: string): boolean {
  if (dir === "/") return true;
  return path === dir || path.startsWith(dir + "/");
}

/** The directory part before the first glob character: `/etc/*.conf` → `/etc`, `*` → `.`. */
export function globBase(path: string): string {
  const i = path.search(/[*?[]/);
  if (i < 0) return path;
  const cut = path.lastIndexOf("/", i);
  if (cut < 0) return ".";
  return cut === 0 ? "/" : path.slice(0, cut);
}
