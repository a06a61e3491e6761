// A small real ServedSandbox for what must be timed exactly: a tool that streams chunks on a schedule and
// honours its AbortSignal. (The real sandbox is used everywhere else.)
import type { ApiCallOptions, ServedSandbox } from "../../src/api/index.ts";

export function tickHost(): ServedSandbox & { aborted: number } {
  const host = {
    aborted: 0,
    listTools: () => [{ name: "tick", description: "Emits `count` chunks, `everyMs` apart.", inputSchema: { type: "object" as const, properties: { count: { type: "number" }, everyMs: { type: "number" } } } }],
    async callTool(_name: string, args: Record<string, unknown> | string, options: ApiCallOptions = {}) {
      const a = typeof args === "string" ? (JSON.parse(args) as Record<string, unknown>) : args;
      const count = Number(a.count ?? 3);
      const every = Number(a.everyMs ?? 100);
      for (let i = 1; i <= count; i++) {
        await new Promise((r) => setTimeout(r, every));
        if (options.signal?.aborted) {
          host.aborted++;
          return { content: [{ type: "text", text: "interrupted" }], isError: true, structuredContent: { status: "interrupted" } };
        }
        options.onOutput?.(`tick${i}\n`);
      }
      return { content: [{ type: "text", text: "done" }], structuredContent: { status: "completed" } };
    },
  };
  return host;
}
