// Throughput of the output path a command's output takes: MarkerScanner → TerminalTextCleaner → OutputCollector.
// Run: npx tsx bench/output.ts   → {"bytes":…,"ms":…,"MBps":…} (median of 5 runs). Goal: ≥ 50 MB/s.

import { SHELL } from "../src/limits.ts";
import { MarkerScanner, formatMarker } from "../src/runtime/markers.ts";
import { OutputCollector } from "../src/shell/output-collector.ts";
import { TerminalTextCleaner } from "../src/shell/terminal-text.ts";

const TARGET_BYTES = 10 * 1024 * 1024;
const CHUNK_CHARS = 64 * 1024;
const RUNS = 5;

/** A mix of what agents run: plain build/test logs, coloured test results, progress bars redrawn with \r. */
function realisticOutput(): string {
  const parts: string[] = [];
  let size = 0;
  let k = 0;
  while (size < TARGET_BYTES) {
    let piece: string;
    switch (k % 10) {
      case 0: {
        const bar: string[] = [];
        for (let p = 0; p <= 100; p += 5) bar.push(`\r\x1b[2Kdownloading [${"#".repeat(p / 5).padEnd(20)}] ${p}%`);
        piece = bar.join("") + "\r\n";
        break;
      }
      case 1:
        piece = ` \x1b[32m✓\x1b[39m test/unit/case-${k}.test.ts \x1b[2m(12 tests)\x1b[22m \x1b[33m${k % 97}ms\x1b[39m\r\n`;
        break;
      case 2:
        piece = `npm \x1b[33mWARN\x1b[39m deprecated package-${k}@1.0.${k % 13}: use something else ⚠\r\n`;
        break;
      default:
        piece = `[${String(k).padStart(7, "0")}] INFO  compiled src/module/${k % 300}/index.ts in ${k % 50} ms — ok\r\n`;
    }
    parts.push(piece);
    size += piece.length;
    k++;
  }
  parts.push(formatMarker("exit=-1:0"), formatMarker("prompt"));
  return parts.join("");
}

function runOnce(input: string): number {
  const start = performance.now();
  const scanner = new MarkerScanner();
  const cleaner = new TerminalTextCleaner();
  const collector = new OutputCollector({ maxChars: SHELL.maxOutputChars, onSpill: () => {} });
  let exits = 0;
  for (let i = 0; i < input.length; i += CHUNK_CHARS) {
    for (const event of scanner.push(input.slice(i, i + CHUNK_CHARS))) {
      if (event.type === "text") collector.push(cleaner.push(event.text));
      else if (event.marker.kind === "exit") {
        collector.push(cleaner.end());
        exits++;
      }
    }
  }
  for (const event of scanner.flush()) if (event.type === "text") collector.push(cleaner.push(event.text));
  collector.push(cleaner.end());
  const rendered = collector.render(`${SHELL.spillDir}/out-1.log`);
  const ms = performance.now() - start;
  if (exits !== 1 || !collector.truncated || rendered.length < SHELL.maxOutputChars) throw new Error("bench pipeline broke");
  return ms;
}

const input = realisticOutput();
const bytes = new TextEncoder().encode(input).length;
runOnce(input); // warm-up: let the JIT settle before measuring
const times = Array.from({ length: RUNS }, () => runOnce(input)).sort((a, b) => a - b);
const ms = times[Math.floor(RUNS / 2)] ?? Number.NaN;
console.log(JSON.stringify({ bytes, ms: Math.round(ms * 10) / 10, MBps: Math.round((bytes / 1e6 / (ms / 1e3)) * 10) / 10 }));
