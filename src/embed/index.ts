// `sandshell/embed`: put a Sandshell terminal in a page in one call, as StackBlitz's SDK embedProject does for
// projects: it creates the iframe (with the `allow` attributes the sandbox needs), connects, writes the files
// you preload and runs a first command.
//
//   import { embedSandbox } from "sandshell/embed";
//   const shell = await embedSandbox("#demo", {
//     src: "https://sandbox.example/",
//     files: { "hello.sh": "echo hi", src: { "a.txt": "A" } },
//     run: "bash hello.sh",
//   });
//   shell.firstRun;                                     // the first command's result
//   await shell.callTool("bash", { command: "ls" });    // the client SDK's connection, for the rest

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectSandbox, type ApprovalReply, type HostApproval, type SandboxConnection } from "../client/index.ts";

/** Files to write before the first command: path → text, folders as nested trees. Relative paths are in the workspace. */
export interface FileTree {
  [path: string]: string | FileTree;
}

export interface EmbedOptions {
  /** Where the sandbox page is served (its address; `npx sandshell serve` serves one locally). */
  src: string;
  /** Files written (with write_file) before `run`. */
  files?: FileTree;
  /** A first command, run once the files are written; its result is `firstRun`. */
  run?: string;
  /** The guard's preset in the sandbox. Default "balanced". */
  policy?: "strict" | "balanced" | "permissive";
  /** Who answers approvals: the sandbox's own dialog ("ui", default), this page ("host": give onApproval), or nobody ("deny"). */
  approver?: "ui" | "host" | "deny";
  /** Where the shell runs. Default "auto" (WebContainer when it can boot, else the embedded shell). */
  runtime?: "auto" | "webcontainer" | "embedded";
  /** Light, dark, or the reader's preference ("auto", default). */
  theme?: "auto" | "light" | "dark";
  /** The iframe's height: pixels, or any CSS length. Default 360. */
  height?: number | string;
  /** The iframe's accessible name. Default "Sandshell terminal". */
  title?: string;
  /** Answers approvals when approver is "host". */
  onApproval?: (approval: HostApproval, signal: AbortSignal) => ApprovalReply | Promise<ApprovalReply>;
  /** Output of `run` as it comes. */
  onOutput?: (chunk: string) => void;
  /** Give up connecting after this long (ms). */
  timeoutMs?: number;
  /** How this page introduces itself (shown in the sandbox's activity log). */
  clientInfo?: { name: string; version: string };
}

export interface EmbeddedSandbox extends SandboxConnection {
  readonly iframe: HTMLIFrameElement;
  /** The result of `run`, when given. */
  readonly firstRun: CallToolResult | null;
  /** Closes the connection and removes the iframe. */
  destroy(): Promise<void>;
}

/** A preloaded file could not be written, or the element was not found. */
export class EmbedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbedError";
  }
}

/** Features the sandbox page may use inside the iframe (WebContainer needs cross-origin isolation). */
export const IFRAME_ALLOW = "cross-origin-isolated; clipboard-read; clipboard-write";

/** The tree as [path, text] pairs, folders joined with "/". */
export function flattenFiles(tree: FileTree, prefix = ""): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(tree)) {
    const path = prefix === "" ? name : `${prefix.replace(/\/+$/, "")}/${name.replace(/^\/+/, "")}`;
    if (typeof value === "string") out.push([path, value]);
    else out.push(...flattenFiles(value, path));
  }
  return out;
}

/** The sandbox page's address with the embed's parameters (embed=1, origins=this page unless set, policy …). */
export function embedUrl(options: Pick<EmbedOptions, "src" | "policy" | "approver" | "runtime" | "theme">, hostOrigin: string, base?: string): URL {
  const url = new URL(options.src, base ?? hostOrigin);
  url.searchParams.set("embed", "1");
  if (url.origin !== hostOrigin && !url.searchParams.has("origins")) url.searchParams.set("origins", hostOrigin);
  for (const name of ["policy", "approver", "runtime", "theme"] as const) {
    const value = options[name];
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url;
}

function resolveElement(target: Element | string): Element {
  if (typeof target !== "string") return target;
  const found = document.querySelector(target);
  if (found === null) throw new EmbedError(`embedSandbox: no element matches ${JSON.stringify(target)}`);
  return found;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/**
 * Creates the iframe in `target` (replacing an iframe or appending to any other element), connects, writes
 * `files`, runs `run`. Rejects with the client SDK's errors (a refused page: SandshellRejectedError with the
 * sandbox's reason) or an EmbedError naming the file that could not be written.
 */
export async function embedSandbox(target: Element | string, options: EmbedOptions): Promise<EmbeddedSandbox> {
  const element = resolveElement(target);
  const url = embedUrl(options, window.location.origin, window.location.href);
  const iframe = document.createElement("iframe");
  iframe.title = options.title ?? "Sandshell terminal";
  iframe.setAttribute("allow", IFRAME_ALLOW);
  const height = options.height ?? 360;
  iframe.style.cssText = `width: 100%; height: ${typeof height === "number" ? `${height}px` : height}; border: 0; display: block`;
  iframe.src = url.href;
  if (element instanceof HTMLIFrameElement) element.replaceWith(iframe);
  else element.append(iframe);

  let connection: SandboxConnection;
  try {
    connection = await connectSandbox(iframe, {
      origin: url.origin,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.clientInfo !== undefined ? { clientInfo: options.clientInfo } : {}),
      ...(options.onApproval !== undefined ? { onApproval: options.onApproval } : {}),
    });
  } catch (err) {
    iframe.remove();
    throw err;
  }
  const fail = async (message: string): Promise<never> => {
    await connection.close();
    iframe.remove();
    throw new EmbedError(message);
  };
  for (const [path, content] of flattenFiles(options.files ?? {})) {
    const written = await connection.callTool("write_file", { path, content });
    if (written.isError === true) await fail(`embedSandbox: could not write ${path}: ${textOf(written)}`);
  }
  let firstRun: CallToolResult | null = null;
  if (options.run !== undefined) {
    firstRun = await connection.callTool("bash", { command: options.run }, options.onOutput !== undefined ? { onOutput: options.onOutput } : {});
  }
  return {
    ...connection,
    iframe,
    firstRun,
    destroy: async () => {
      await connection.close();
      iframe.remove();
    },
  };
}
