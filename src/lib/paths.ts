// POSIX path arithmetic, one home for every layer (the guard, the tools, the runtimes). Pure string work, no node:path:
// it runs unchanged in browsers and workers. Paths are POSIX to the letter: a backslash is a character of a name, not a
// separator (which is why not `pathe`, whose normalize turns `\` into `/` and keeps a leading `//`).

/** Collapses empty, `.` and `..` parts: `/a/./b/../c` → `/a/c`. `..` above `/` stays at `/`, as the kernel does; any
 * path is taken as absolute (`a/b` → `/a/b`); no trailing slash (but `/` itself). */
export function normalizePath(path: string): string {
  if (path === "/" || path === "") return "/";
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}

/** Absolute form of `path` seen from `cwd`; null when it depends on a cwd nobody knows. */
export function resolvePath(path: string, cwd: string | null): string | null {
  if (path.startsWith("/")) return normalizePath(path);
  if (cwd === null) return null;
  return normalizePath(cwd + "/" + path);
}

/** Whether `path` is `dir` or below it (both normalized absolute paths; `dir` may end in `/`). */
export function isInside(path: string, dir: string): boolean {
  if (dir === "/") return true;
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : dir + "/");
}

/** `name` in the folder `dir` (a normalized absolute path). */
export function joinPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** The folder that holds `path`; `/` for `/` itself. */
export function parentOf(path: string): string {
  const p = normalizePath(path);
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

/** The last part of `path` (`""` for `/`). */
export function baseName(path: string): string {
  const p = normalizePath(path);
  return p.slice(p.lastIndexOf("/") + 1);
}
