// The shell state the analyzer follows through a script: working directory and plain variables. What it
// cannot follow exactly it marks unknown (DYN), never "the last value assigned": a branch, a loop, the
// right side of && or ||, a function, `source` or an unknown `eval` may or may not have changed it.
// A `cd` may fail (no such directory) and leave the old directory: the old one stays a possibility,
// so the working directory is a small set of candidates, each of which the rules check.

import { GUARD } from "../limits.ts";
import { DYN } from "./facts.ts";
import { PMap } from "./pmap.ts";
import { resolvePath } from "./paths.ts";

/** An integer whose value the guard does not know (the result of arithmetic). Contains DYN. */
export const DYN_NUM = DYN + "#";

/** More candidate directories than this and the working directory is simply unknown. */
const MAX_CWDS = 4;

export interface ScopeState {
  cwd: string | null;
  alts: readonly string[];
  vars: PMap | null;
  opaque: boolean;
}

/** A scope's whole state, as `mark` takes it. */
export interface ScopeMark extends ScopeState {
  lastCd: { cwd: string | null; alts: readonly string[] } | null;
}

/**
 * A fork is a snapshot: the variables are a persistent map (pmap.ts), so forking and snapshotting cost
 * nothing and an assignment after a fork copies one path of it, not every variable.
 */
export class Scope {
  /** Other directories the script may be in (an earlier `cd` may have failed). Only when cwd is known. */
  alts: readonly string[] = [];
  /** Everything is unknown (after `source`, an unknown `eval`, a nameref): variables read as DYN. */
  opaque = false;
  /** The state a `cd` just reached if it succeeded: what `cd X && …` runs in. */
  lastCd: { cwd: string | null; alts: readonly string[] } | null = null;

  constructor(
    public cwd: string | null,
    private vars: PMap | null,
  ) {}

  /** The value, DYN when unknown; undefined when never set (the environment's, unknown too, or a default). */
  get(name: string): string | undefined {
    const v = this.vars?.get(name);
    if (v !== undefined) return v;
    return this.opaque ? DYN : undefined;
  }

  /** Assigned in this script (known or not). */
  has(name: string): boolean {
    return this.opaque || (this.vars?.has(name) ?? false);
  }

  set(name: string, value: string): void {
    // Longer than the guard follows (`x=$x$x` doubles it each time): unknown.
    this.vars = (this.vars ?? PMap.EMPTY).set(name, value.length > GUARD.maxKnownValueChars ? DYN : value);
  }

  /** The variable's value is no longer known. */
  forget(name: string, numeric = false): void {
    this.set(name, numeric ? DYN_NUM : DYN);
  }

  /** Everything unknown from here on. */
  forgetAll(): void {
    this.vars = null;
    this.opaque = true;
    this.cwd = null;
    this.alts = [];
  }

  /** The directory is no longer known. */
  lostCwd(): void {
    this.cwd = null;
    this.alts = [];
  }

  /** Every directory the script may be in; [] when unknown. */
  cwds(): string[] {
    return this.cwd === null ? [] : [this.cwd, ...this.alts];
  }

  /** After `cd target` (already resolved per candidate, null = unknown): the new one if it worked, else the old. */
  changeDir(target: (from: string) => string | null): void {
    const before = this.cwds();
    if (this.cwd === null) {
      this.lastCd = { cwd: null, alts: [] };
      return;
    }
    const after = before.map(target);
    if (after.some((d) => d === null)) {
      this.lastCd = { cwd: null, alts: [] };
      this.lostCwd();
      return;
    }
    const success = unique(after as string[]);
    this.lastCd = success.length > MAX_CWDS ? { cwd: null, alts: [] } : { cwd: success[0]!, alts: success.slice(1) };
    this.setCwds(unique([...success, ...before]));
  }

  /**
   * After `a && b` or `a || b` that may have run any of `others`: merged, and for `&&` still remembering
   * where everything having worked leads (`mkdir B && cd B && find .` finds in B).
   */
  mergeList(op: string, others: readonly ScopeState[]): void {
    const ok = op === "&&" ? (this.lastCd ?? { cwd: this.cwd, alts: this.alts }) : null;
    this.merge(others);
    this.lastCd = ok;
  }

  /** `cd X && …`: what follows runs only if the cd worked. */
  assumeCdWorked(): void {
    if (!this.lastCd) return;
    this.cwd = this.lastCd.cwd;
    this.alts = this.lastCd.alts;
    this.lastCd = null;
  }

  private setCwds(all: string[]): void {
    if (all.length === 0 || all.length > MAX_CWDS) this.lostCwd();
    else {
      this.cwd = all[0]!;
      this.alts = all.slice(1);
    }
  }

  fork(): Scope {
    const child = new Scope(this.cwd, this.vars);
    child.alts = this.alts;
    child.opaque = this.opaque;
    return child;
  }

  snapshot(): ScopeState {
    return { cwd: this.cwd, alts: this.alts, vars: this.vars, opaque: this.opaque };
  }

  /** The whole state, `lastCd` included: all that a walk from here reads of this scope. */
  mark(): ScopeMark {
    return { cwd: this.cwd, alts: this.alts, vars: this.vars, opaque: this.opaque, lastCd: this.lastCd };
  }

  /** Whether this scope is in the state `m`: the same variables with the same values, directories and flags. */
  sameAs(m: ScopeMark): boolean {
    if (this.cwd !== m.cwd || this.opaque !== m.opaque || !sameList(this.alts, m.alts)) return false;
    const l = this.lastCd;
    if (l !== m.lastCd && (l === null || m.lastCd === null || l.cwd !== m.lastCd.cwd || !sameList(l.alts, m.lastCd.alts))) return false;
    return this.vars === m.vars || PMap.changed(this.vars ?? PMap.EMPTY, m.vars ?? PMap.EMPTY).size === 0;
  }

  /** Back to the state `m`, `lastCd` included. */
  restoreMark(m: ScopeMark): void {
    this.restore(m);
    this.lastCd = m.lastCd;
  }

  restore(s: ScopeState): void {
    this.cwd = s.cwd;
    this.alts = s.alts;
    this.vars = s.vars;
    this.opaque = s.opaque;
    this.lastCd = null;
  }

  /**
   * The state after something that may have run any of the states given (this one included): a variable
   * that differs between them is unknown, and the directory is any of theirs. Only the names that differ
   * are looked at (the maps share the rest).
   */
  merge(others: readonly ScopeState[]): void {
    const states = [this.snapshot(), ...others];
    const opaque = states.some((s) => s.opaque);
    const base = states[0]!.vars ?? PMap.EMPTY;
    const names = new Set<string>();
    for (const s of states.slice(1)) PMap.changed(base, s.vars ?? PMap.EMPTY, names);
    // A name no state set stays unset: in a merge with an opaque state it reads as DYN, as it should.
    const read = (s: ScopeState, k: string) => s.vars?.get(k) ?? (s.opaque ? DYN : undefined);
    let vars = base;
    for (const k of names) {
      const values = new Set(states.map((s) => read(s, k)));
      const [only] = values;
      if (values.size === 1 && only !== undefined) vars = vars.set(k, only);
      else vars = vars.set(k, [...values].every((v) => v !== undefined && (v === DYN_NUM || /^-?\d+$/.test(v))) ? DYN_NUM : DYN);
    }
    this.vars = vars.size ? vars : null;
    this.opaque = opaque;
    this.lastCd = null;
    if (states.some((s) => s.cwd === null)) this.lostCwd();
    else this.setCwds(unique(states.flatMap((s) => [s.cwd!, ...s.alts])));
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

/** Where `cd` goes from `from`: null when it depends on something unknown. */
export function cdTarget(target: string, from: string, cdpath: string | undefined): string | null {
  // With CDPATH set, `cd name` may go to any $CDPATH/name; only /, ./ and ../ forms skip it.
  if (cdpath !== undefined && cdpath !== "" && !/^(?:\/|\.\.?(?:\/|$))/.test(target)) return null;
  const to = resolvePath(target, from);
  // Deeper than PATH_MAX: unknown, so that a chain of `cd a` costs each step the same, not the path so far.
  return to !== null && to.length > GUARD.maxKnownPathChars ? null : to;
}
