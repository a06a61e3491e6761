// The guard on the command line: commands on stdin (one a line, or one JSON string a line with --jsonl),
// one JSON Verdict a line on stdout. A malformed line gets a verdict with rule "invalid-input", never a crash.
//   sandshell-guard (the package's bin) or, in this repository, npm run --silent guard -- [--policy strict|balanced|permissive] [--jsonl] [--workspace DIR] [--cwd DIR]
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createGuard, POLICIES, type Policy, type Verdict } from "../guard/index.ts";

const USAGE = `usage: sandshell-guard [--policy ${POLICIES.join("|")}] [--jsonl] [--workspace DIR] [--cwd DIR]
Reads commands from stdin, one a line (with --jsonl: one JSON string a line, for multi-line commands),
and prints one JSON verdict a line.`;

function parseCli() {
  try {
    return parseArgs({
      options: {
        policy: { type: "string", default: "balanced" },
        jsonl: { type: "boolean", default: false },
        workspace: { type: "string" },
        cwd: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const options = parseCli();
if (options.help) {
  process.stdout.write(USAGE + "\n");
  process.exit(0);
}
if (!POLICIES.includes(options.policy as Policy)) {
  process.stderr.write(`--policy must be one of ${POLICIES.join(", ")}, not ${JSON.stringify(options.policy)}\n`);
  process.exit(2);
}

const guard = await createGuard({ policy: options.policy as Policy, ...(options.workspace ? { workspace: options.workspace } : {}) });
const context = options.cwd ? { cwd: options.cwd } : {};

function invalid(detail: string): Verdict {
  return { decision: "deny", layer: 0, rule: "invalid-input", reason: `The line is not valid input: ${detail}.`, hint: "With --jsonl, send one JSON string a line." };
}

function judge(line: string): Verdict {
  if (!options.jsonl) return guard.check(line, context);
  if (line.trim() === "") return guard.check("", context);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return invalid(`not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "string") return invalid(`expected a JSON string, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`);
  return guard.check(value, context);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) process.stdout.write(JSON.stringify(judge(line)) + "\n");
