// The shape of a rule row, and what every rule may ask about a command. Rules are data: an id, a layer,
// a reason, a hint, commands that must match and near misses that must not. Tests and README are
// generated from the rows.

import type { Command, FunctionDef, Script, Word } from "../facts.ts";
import { DYN } from "../facts.ts";
import { fileOperands, type FileOperands } from "../file-operands.ts";
import { unwrap, type Effective } from "../wrappers.ts";
import { globBase, isInside, resolvePath } from "../paths.ts";
import type { Decision, Layer, Policy } from "../types.ts";
import { GUARD } from "../../limits.ts";

export interface RuleEnv {
  workspace: string;
  /** The writable scratch folder (GuardOptions.scratch; /tmp unless the sandbox's /tmp is read-only). */
  scratch: string;
  home: string;
  policy: Policy;
  script: Script;
  /** Effective command (wrappers peeled) of each command, by id. */
  effective(cmd: Command): Effective;
  /** What the effective command writes, reads and deletes (memoized). */
  files(cmd: Command): FileOperands;
  /** Every file the command writes: its redirects and its program's operands (memoized). */
  writes(cmd: Command): Word[];
  /** Commands running inside $(…)/<(…) of `cmd`, at any depth. */
  owned(cmd: Command): Command[];
  /** Earlier stages of the pipeline `cmd` is in. */
  upstream(cmd: Command): Command[];
  /** The script's definitions of the function `name`, in order. */
  functions(name: string): FunctionDef[];
  /** Answers a rule works out once per script (layer 2's symlinks out of the workspace), by name. */
  readonly once: Record<string, unknown>;
}

export interface Match {
  /** Fills the row's reason: what exactly was found. */
  detail: string;
  /** Overrides the row's decision (a rule that asks, but denies when it meets something worse). */
  decision?: Decision;
}

export interface RuleRow {
  id: string;
  layer: Layer;
  decision: Decision;
  /** Short name for the README table. */
  title: string;
  /** One sentence for a person; `{detail}` is replaced by the match's detail. */
  reason: string;
  hint: string;
  /** Commands whose verdict must carry this rule. */
  examples: string[];
  /** Commands that look alike and must not. */
  nearMisses: string[];
  /** The decision under a preset, where it is not what presetDecision() makes of `decision` (project code: allow, but ask under strict). */
  decisions?: Partial<Record<Policy, Decision>>;
  /** Examples that hold only under one policy (default: balanced). */
  policy?: Policy;
  match(cmd: Command, eff: Effective, env: RuleEnv): Match | null;
}

/** Devices a write to changes no file: it is discarded or shown. */
const HARMLESS_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"]);

/** `path` is a device a write to changes no file (`> /dev/null`, `>&2` spelled as a path). */
export function harmlessDevice(path: string): boolean {
  return HARMLESS_DEVICES.has(path);
}

/** Places an agent may write: the workspace, the scratch folder (/tmp), and the harmless devices. */
export function writable(path: string, env: { workspace: string; scratch?: string }): boolean {
  return isInside(path, env.workspace) || isInside(path, env.scratch ?? "/tmp") || harmlessDevice(path);
}

export type Resolved =
  /** `climbs`: reached through `..` after a glob, so a match that is a symlink may put it elsewhere. */
  | { kind: "path"; path: string; glob: boolean; climbs?: true }
  /** Depends on a variable, substitution or a cwd nobody knows. `prefix` is the static directory it starts in, if any. */
  | { kind: "unknown"; prefix: string | null };

/** A word with the last answer of resolveWord kept on it (a field, not a WeakMap: a weak table keyed by objects that live one check is work for every GC). */
type Memoized = Word & { resolved?: { cwd: string | null; value: string; raw: string; glob: boolean; result: Resolved } };

/** Where a word points, as far as the guard can tell. `/etc/$X` is still known to be under /etc. */
// Several rules resolve the same word: the last answer is kept on the word. A copy made with `{ ...w, value }`
// carries the field along, so the answer is reused only when everything it was worked out from is the same.
export function resolveWord(word: Word, cwd: string | null): Resolved {
  const w = word as Memoized;
  const hit = w.resolved;
  if (hit && hit.cwd === cwd && hit.value === word.value && hit.raw === word.raw && hit.glob === word.glob) return hit.result;
  const result = resolveUncached(word, cwd);
  w.resolved = { cwd, value: word.value, raw: word.raw, glob: word.glob, result };
  return result;
}

/**
 * Characters of resolved paths the rules may still make in this check (reset by makeEnv): each word resolved
 * against the working directory costs that directory's length, so `cd <deep dir>; rm a b c …` would cost the
 * command's size times the directory's. Past it the check stops, and the command is refused as too complex.
 */
const pathBudget = { left: Infinity };

function spend(path: string | null): void {
  if (path !== null && (pathBudget.left -= path.length) < 0) {
    throw new Error(`it names more paths than the guard resolves for a command of its size (${GUARD.resolvedCharsPerChar} characters of path per character): split it into shorter commands`);
  }
}

function resolveUncached(word: Word, cwd: string | null): Resolved {
  const v = word.value;
  const dyn = v.indexOf(DYN);
  if (dyn === 0 && word.glob && !v.includes(DYN, 1) && !/[$`]/.test(word.raw) && /(?:^|\/)\.\.(?:\/|$)/.test(v)) {
    // `*/../../etc`: marked unknown because a match may be a symlink; but where it climbs to as written (no symlinks)
    // still tells when it leaves the working directory: then the rules judge that place (`*/../../..` is /).
    const full = resolvePath(v.slice(1), cwd);
    const base = full === null ? null : globBase(full);
    const climbsOut = base !== null && cwd !== null && base !== cwd && !base.startsWith(`${cwd}/`);
    return climbsOut ? { kind: "path", path: base, glob: true, climbs: true } : { kind: "unknown", prefix: null };
  }
  if (dyn >= 0) {
    const cut = v.lastIndexOf("/", dyn);
    const prefix = cut >= 0 ? resolvePath(v.slice(0, cut) || "/", cwd) : null;
    return { kind: "unknown", prefix };
  }
  // `*/../..` climbs out of whatever the glob matched: resolve `..` first, then cut at the glob.
  const full = resolvePath(v, cwd);
  spend(full);
  const path = full !== null && word.glob ? globBase(full) : full;
  if (path === null) return { kind: "unknown", prefix: null };
  return { kind: "path", path, glob: word.glob };
}

/** `word` as seen from `dir` (a relative path is under it). */
export function inDirectory(word: Word, dir: Word): Word {
  if (word.value.startsWith("/")) return word;
  return { ...word, value: `${dir.value}/${word.value}`, dynamic: word.dynamic || dir.dynamic };
}

/** Every file a command writes: its redirects and the operands its program writes. */
export function redirectWrites(cmd: Command): Word[] {
  const out: Word[] = [];
  for (const r of cmd.redirects) {
    if (!r.target) continue;
    if (r.op === ">&" || r.op === "<&") {
      // `2>&1`, `>&-` duplicate descriptors; `>& file` writes a file.
      if (/^(?:\d+-?|-)$/.test(r.target.value)) continue;
      out.push(r.target);
    } else if (r.op !== "<" && r.op !== "<<" && r.op !== "<<-" && r.op !== "<<<") out.push(r.target);
  }
  return out;
}

export function redirectReads(cmd: Command): Word[] {
  return cmd.redirects.filter((r) => r.target && (r.op === "<" || r.op === "<>")).map((r) => r.target!);
}

/**
 * What the rules may ask about one script, memoized per command. A class, not an object of closures:
 * the guard makes one per check. Command ids run from 0 within a script, so arrays hold the memos.
 */
class ScriptEnv implements RuleEnv {
  private readonly eff: Effective[] = [];
  private readonly fileMemo: FileOperands[] = [];
  private readonly writeMemo: Word[][] = [];
  private ownedBy: Map<number, Command[]> | null = null;
  private stages: Map<number, Command[]> | null = null;
  private defs: Map<string, FunctionDef[]> | null = null;
  readonly once: Record<string, unknown> = {};

  constructor(
    readonly script: Script,
    readonly workspace: string,
    readonly home: string,
    readonly policy: Policy,
    readonly scratch: string,
  ) {}

  effective(cmd: Command): Effective {
    return cmd.effective ?? (this.eff[cmd.id] ??= unwrap(cmd.argv));
  }

  files(cmd: Command): FileOperands {
    return (this.fileMemo[cmd.id] ??= fileOperands(this.effective(cmd)));
  }

  writes(cmd: Command): Word[] {
    if (this.writeMemo[cmd.id]) return this.writeMemo[cmd.id]!;
    const eff = this.effective(cmd);
    // The shell opens the redirects where it is; the program's own files are where a wrapper moved it (`env -C DIR`).
    const own = eff.chdir ? this.files(cmd).writes.map((w) => inDirectory(w, eff.chdir!)) : this.files(cmd).writes;
    return (this.writeMemo[cmd.id] = [...redirectWrites(cmd), ...own, ...(eff.wrapperWrites ?? [])]);
  }

  owned(cmd: Command): Command[] {
    if (!this.ownedBy) {
      const by = new Map<number, Command[]>();
      for (const c of this.script.commands) {
        for (let o = c.owner; o; o = o.owner) {
          const list = by.get(o.id);
          if (list) list.push(c);
          else by.set(o.id, [c]);
        }
      }
      this.ownedBy = by;
    }
    return this.ownedBy.get(cmd.id) ?? [];
  }

  upstream(cmd: Command): Command[] {
    const p = cmd.pipeline;
    if (!p) return [];
    if (!this.stages) {
      this.stages = new Map();
      for (const c of this.script.commands) {
        if (!c.pipeline) continue;
        const list = this.stages.get(c.pipeline.id);
        if (list) list.push(c);
        else this.stages.set(c.pipeline.id, [c]);
      }
    }
    return (this.stages.get(p.id) ?? []).filter((c) => c.pipeline!.index < p.index);
  }

  functions(name: string): FunctionDef[] {
    if (!this.defs) {
      this.defs = new Map();
      for (const f of this.script.functions) {
        const list = this.defs.get(f.name);
        if (list) list.push(f);
        else this.defs.set(f.name, [f]);
      }
    }
    return this.defs.get(name) ?? [];
  }
}

/** For the tests and the README: build an env from a script (the guard does the same). */
/** The rules' view of one checked script; `size`: the command's length, which bounds the paths they resolve. */
export function makeEnv(script: Script, workspace: string, home: string, policy: Policy, scratch = "/tmp", size = Infinity): RuleEnv {
  pathBudget.left = GUARD.resolvedCharsPerChar * size + GUARD.parsedCharsBase;
  return new ScriptEnv(script, workspace, home, policy, scratch);
}
