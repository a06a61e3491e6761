// The playground's URL parameters (fixed in ARCHITECTURE.md), parsed with zod one by one: a bad value is reported
// with the parameter's name, the value it got and the values accepted, and that parameter falls back to its default
// while the others keep theirs.

import { z } from "zod";

export const RUNTIMES = ["auto", "webcontainer", "embedded"] as const;
export const POLICIES = ["strict", "balanced", "permissive"] as const;
export const APPROVERS = ["ui", "host", "deny"] as const;

export interface Params {
  runtime: (typeof RUNTIMES)[number];
  embed: boolean;
  /** Exact origins a host page may connect from (besides this page's own); ["*"] allows any. */
  origins: string[];
  policy: (typeof POLICIES)[number];
  approver: (typeof APPROVERS)[number];
}

export const DEFAULTS: Params = { runtime: "auto", embed: false, origins: [], policy: "balanced", approver: "ui" };

export interface ParamProblem {
  name: keyof Params;
  got: string;
  accepted: string;
  /** What the page uses instead. */
  using: string;
}

function isOrigin(text: string): boolean {
  if (text === "*") return true;
  try {
    const url = new URL(text);
    return url.origin !== "null" && url.origin === text.replace(/\/$/, "");
  } catch {
    return false;
  }
}

const originList = z
  .string()
  .transform((s) => s.split(",").map((p) => p.trim()).filter((p) => p !== ""))
  .pipe(z.array(z.string().refine(isOrigin)));

const schemas = {
  runtime: z.enum(RUNTIMES),
  embed: z.enum(["1", "0", "true", "false"]).transform((v) => v === "1" || v === "true"),
  origins: originList,
  policy: z.enum(POLICIES),
  approver: z.enum(APPROVERS),
} satisfies Record<keyof Params, z.ZodType>;

const ACCEPTED: Record<keyof Params, string> = {
  runtime: RUNTIMES.join(", "),
  embed: "1, 0",
  origins: "comma-separated exact origins such as https://app.example.com, or * for any",
  policy: POLICIES.join(", "),
  approver: APPROVERS.join(", "),
};

function shown(value: Params[keyof Params]): string {
  if (Array.isArray(value)) return value.length === 0 ? "none (only this page's own origin)" : value.join(",");
  if (typeof value === "boolean") return value ? "1" : "0";
  return value;
}

export function parseParams(search: string): { params: Params; problems: ParamProblem[] } {
  const query = new URLSearchParams(search);
  const params: Params = { ...DEFAULTS, origins: [] };
  const problems: ParamProblem[] = [];
  for (const name of Object.keys(schemas) as Array<keyof Params>) {
    const raw = query.get(name);
    if (raw === null) continue;
    const result = schemas[name].safeParse(raw.trim());
    if (result.success) {
      (params as unknown as Record<string, unknown>)[name] = result.data;
      continue;
    }
    if (name === "origins") {
      // Keep the good origins, report the bad ones.
      const parts = raw.split(",").map((p) => p.trim()).filter((p) => p !== "");
      const good = parts.filter(isOrigin);
      params.origins = good;
      problems.push({ name, got: parts.filter((p) => !isOrigin(p)).join(","), accepted: ACCEPTED.origins, using: shown(good) });
      continue;
    }
    problems.push({ name, got: raw, accepted: ACCEPTED[name], using: shown(DEFAULTS[name]) });
  }
  return { params, problems };
}
