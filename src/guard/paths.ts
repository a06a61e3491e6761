// POSIX path arithmetic for the guard: the leaf module's (src/lib/paths.ts), plus the guard's own glob base.

export { isInside, normalizePath, resolvePath } from "../lib/paths.ts";

/** The directory part before the first glob character: `/etc/*.conf` → `/etc`, `*` → `.`. */
export function globBase(path: string): string {
  const i = path.search(/[*?[]/);
  if (i < 0) return path;
  const cut = path.lastIndexOf("/", i);
  if (cut < 0) return ".";
  return cut === 0 ? "/" : path.slice(0, cut);
}
