// job_output and job_kill: background jobs that bash with run_in_background started.

import { MESSAGES, TOOLS } from "../limits.ts";
import { JobError, type JobInfo } from "../shell/jobs.ts";
import { errorOutcome, type ToolContext, type ToolOutcome } from "./context.ts";
import type { ToolArgs } from "./specs.ts";
import { clip, formatDuration } from "../lib/text.ts";

/** `3` or `"3"` means job-3 when there is no job called "3". */
function jobId(host: ToolContext, id: string): string {
  const known = host.session.listJobs();
  const t = id.trim();
  if (known.some((j) => j.id === t)) return t;
  if (/^\d+$/.test(t) && known.some((j) => j.id === `job-${t}`)) return `job-${t}`;
  const lower = t.toLowerCase().replace(/^job[_ ]?/, "job-");
  if (known.some((j) => j.id === lower)) return lower;
  return t;
}

function stateText(j: JobInfo): string {
  if (j.status === "running") return `${j.id} running (${formatDuration(j.durationMs)})`;
  if (j.killed) return `${j.id} stopped by job_kill${j.exitCode !== null ? ` (exit code ${j.exitCode})` : ""}`;
  return `${j.id} exited with code ${j.exitCode ?? "unknown"} after ${formatDuration(j.durationMs)}`;
}

function jobStructured(j: JobInfo): ToolOutcome["structured"] {
  return {
    status: j.status === "running" ? "running" : j.killed ? "interrupted" : "completed",
    jobId: j.id,
    exitCode: j.exitCode,
    cwd: j.cwd,
    durationMs: j.durationMs,
    killed: j.killed,
  };
}

/** An error outcome when the job exists and belongs to another caller. */
function refused(host: ToolContext, id: string): ToolOutcome | null {
  if (!host.session.listJobs().some((j) => j.id === id)) return null;
  const why = host.jobRefusal(id);
  return why === null ? null : errorOutcome(why, { jobId: id, reason: "not-owner" });
}

export async function jobOutputTool(host: ToolContext, args: ToolArgs<"job_output">): Promise<ToolOutcome> {
  const denied = refused(host, jobId(host, args.id));
  if (denied !== null) return denied;
  const notes: string[] = [];
  let wait = args.wait ?? 0;
  if (!(wait >= 0)) {
    notes.push(`Note: wait ${wait} is not a number of seconds ≥ 0; 0 applies.`);
    wait = 0;
  } else if (wait > TOOLS.jobMaxWaitSec) {
    notes.push(`Note: wait ${wait} s is more than the ${TOOLS.jobMaxWaitSec} s allowed; ${TOOLS.jobMaxWaitSec} s applies.`);
    wait = TOOLS.jobMaxWaitSec;
  }
  try {
    const out = await host.session.jobOutput(jobId(host, args.id), { waitSec: wait });
    const parts: string[] = [];
    parts.push(out.output === "" ? "(no new output)" : out.output.endsWith("\n") ? out.output.slice(0, -1) : out.output);
    parts.push(`[${stateText(out)} · cwd ${out.cwd}]`);
    if (out.truncated) {
      parts.push(
        out.fullOutputPath !== undefined
          ? `Output truncated: the whole output since the last read is in ${out.fullOutputPath}.`
          : "Output truncated.",
      );
    }
    parts.push(...notes);
    const structured = { ...jobStructured(out), truncated: out.truncated };
    if (out.fullOutputPath !== undefined) Object.assign(structured, { fullOutputPath: out.fullOutputPath });
    return { text: parts.join("\n"), structured };
  } catch (err) {
    return errorOutcome(err instanceof JobError ? err.message : `job_output failed: ${(err as Error).message}`);
  }
}

export async function jobKillTool(host: ToolContext, args: ToolArgs<"job_kill">): Promise<ToolOutcome> {
  const id = jobId(host, args.id);
  const denied = refused(host, id);
  if (denied !== null) return denied;
  const before = host.session.listJobs().find((j) => j.id === id);
  try {
    const info = await host.session.killJob(id);
    const text =
      before !== undefined && before.status !== "running"
        ? `${info.id} had already ended: ${stateText(info)}. Nothing was stopped.`
        : info.status === "running"
          ? `${info.id} was sent a kill but has not ended yet; check with job_output.`
          : `Stopped ${info.id} (${clip(info.command, MESSAGES.shortCommandChars)})${info.exitCode !== null ? `, exit code ${info.exitCode}` : ""}.`;
    return { text, structured: jobStructured(info) };
  } catch (err) {
    return errorOutcome(err instanceof JobError ? err.message : `job_kill failed: ${(err as Error).message}`);
  }
}
