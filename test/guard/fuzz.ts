// A differential fuzzer for the places where tree-sitter-bash and bash read the same text differently.
// It wraps a payload the guard refuses whenever it sees it (`touch F; chmod 4755 F`: a setuid bit) in
// random shell punctuation, in four shapes (an argument's substitution, lines of their own, an unquoted
// heredoc body, assignments around it), asks the guard under permissive, and for every spelling the guard
// does not refuse runs real bash in a fresh directory: if F appears, bash ran a command the guard did not see.
//
//   npx tsx test/guard/fuzz.ts [iterations] [seed]      (test/guard/fuzz.test.ts runs a short seeded round)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGuard } from "../../src/guard/index.ts";
import { mulberry32 } from "../lib/random.ts";

const TOKENS = [
  "'", '"', "`", "\\", "\\'", '\\"', "\\`", "$", "${x", "${x#", "${x:-", "${x/", "}", "{", "(", ")", "#", "x", " ", "[", "]", "=", ";", "&&", "\n", "$'", '$"',
  "$((", "))", "[[", "]]", "<<<", "$[", "a=", "!", "*", "?", "~", ":", "%", "^", ",", "@(", "+(", "$(", "\\\n", "case x in", "esac", "{a,b}", "<(", "2>&1", "\t",
  ">&", "<&", "${x%", "${x^", "[[ x =~", '$"', "#", "\n#", "=~", "$ ", "(( ", "let ", "a[", "declare ", "<<EOF\n", "\nEOF\n", "<<'E'\n", "\nE\n",
];

const PAYLOAD = "touch F; chmod 4755 F";

export interface FuzzResult {
  tried: number;
  /** Spellings the guard did not refuse, run in real bash. */
  ran: number;
  /** Spellings where bash ran the payload the guard did not see. */
  bypasses: { command: string; decision: string; rule: string }[];
}

export async function fuzz(iterations: number, seed: number): Promise<FuzzResult> {
  const guard = await createGuard({ policy: "permissive" });
  const next = mulberry32(seed);
  const seq = (n: number) => Array.from({ length: 1 + Math.floor(next() * n) }, () => TOKENS[Math.floor(next() * TOKENS.length)]!).join("");
  const result: FuzzResult = { tried: 0, ran: 0, bypasses: [] };
  for (let k = 0; k < iterations; k++) {
    const [p, s] = [seq(4), seq(4)];
    const shape = k % 4;
    const command =
      shape === 0 ? `echo ${p} $(${PAYLOAD}) ${s}` : shape === 1 ? `echo ${p}\n${PAYLOAD}\necho ${s}` : shape === 2 ? `cat <<EOF\n${p} $(${PAYLOAD}) ${s}\nEOF` : `x=${p}; ${PAYLOAD}; y=${s}`;
    result.tried++;
    const v = guard.check(command);
    if (v.decision === "deny") continue;
    result.ran++;
    const dir = mkdtempSync(join(tmpdir(), "guard-fuzz-"));
    try {
      spawnSync("bash", ["--norc", "--noprofile", "-c", command], { cwd: dir, stdio: "ignore", timeout: 5000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir } });
      if (existsSync(join(dir, "F"))) result.bypasses.push({ command, decision: v.decision, rule: v.rule });
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const iterations = Number(process.argv[2] ?? 20_000);
  const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);
  const r = await fuzz(iterations, seed);
  for (const b of r.bypasses) console.log(`BYPASS ${b.decision} ${JSON.stringify(b.command)}`);
  console.log(JSON.stringify({ seed, tried: r.tried, ran: r.ran, bypasses: r.bypasses.length }));
}
