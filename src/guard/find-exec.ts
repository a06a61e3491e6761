// find's starting points, the tests that narrow what it finds, and the commands its -exec, -execdir, -ok and
// -okdir run.

import type { Word } from "./facts.ts";
import { literalWord } from "./argv.ts";
import type { Effective } from "./wrappers.ts";

/** Tests that narrow what find matches: with one, `{}` is never simply the starting point. */
export const FIND_FILTER = /^-(?:i?name|i?path|i?wholename|i?regex|type|newer\w*|[acm]min|[acm]time|size|user|group|empty|perm|links|inum|samefile|mindepth)$/;

/** Where find's starting points begin: after its global options `-H -L -P -D opts -O3`. */
function findStart(args: readonly Word[]): number {
  let i = 0;
  while (i < args.length) {
    const v = args[i]!.value;
    if (v === "-H" || v === "-L" || v === "-P" || /^-O\d*$/.test(v)) i++;
    else if (v === "-D") i += 2;
    else break;
  }
  return i;
}

/** Commands that find -exec / -execdir / -ok / -okdir run, with `{}` standing for each found path. */
export function findExecs(eff: Effective): { argv: Word[]; roots: Word[]; filtered: boolean }[] {
  const args = eff.argv.slice(1);
  const roots: Word[] = [];
  let i = findStart(args);
  while (i < args.length && !/^[-(!)]/.test(args[i]!.value)) roots.push(args[i++]!);
  const out: { argv: Word[]; roots: Word[]; filtered: boolean }[] = [];
  const filtered = args.some((w) => FIND_FILTER.test(w.value));
  for (; i < args.length; i++) {
    if (/^-(?:exec|execdir|ok|okdir)$/.test(args[i]!.value)) {
      const start = i + 1;
      let end = start;
      while (end < args.length && args[end]!.value !== ";" && args[end]!.value !== "+") end++;
      out.push({ argv: args.slice(start, end), roots: roots.length ? roots : [literalWord(".")], filtered });
      i = end;
    }
  }
  return out;
}

export function findRoots(eff: Effective): Word[] {
  const roots: Word[] = [];
  const args = eff.argv.slice(1);
  for (const w of args.slice(findStart(args))) {
    if (/^[-(!)]/.test(w.value)) break;
    roots.push(w);
  }
  return roots.length ? roots : [literalWord(".")];
}
