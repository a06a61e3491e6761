// What the embedded runtime's processes (shell-process.ts, job-process.ts) get from the runtime, and the output
// fan-out they share.

import { Listeners } from "../../lib/listeners.ts";
import type { RuntimeEvent } from "../types.ts";
import { EMBEDDED } from "./config.ts";
import type { FsOp, InitMessage } from "./protocol.ts";
import type { WorkerConnection } from "./worker-connection.ts";

export interface ProcessHost {
  readonly workspace: string;
  readonly markerNonce: string;
  /** A booted worker (the standby when there is one). */
  takeWorker(): Promise<WorkerConnection>;
  /** Boots the standby now (a C-c may need it in a moment). */
  prepareStandby(): void;
  /** Registers a worker for file system changes; the file system part of its init message. */
  attach(conn: WorkerConnection): Pick<InitMessage, "fs" | "seq" | "bounds">;
  /** Ends a worker. */
  detach(conn: WorkerConnection): void;
  /** File system changes a worker made. */
  fromWorker(conn: WorkerConnection, seen: number, ops: FsOp[]): void;
  /** A worker asks for the bytes of a file it has as a stub. */
  readForWorker(conn: WorkerConnection, id: number, path: string): void;
  /** A status or error for the runtime's listeners. */
  emit(event: RuntimeEvent): void;
  /** A new shell's id, for its private files. */
  nextShellId(): string;
}

/** Splits text for listeners without cutting a surrogate pair. */
function chunks(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/** Output fan-out shared by shells and jobs, in pieces of at most EMBEDDED.dataChunkChars. */
export class ProcessOutput extends Listeners<string> {
  constructor() {
    super("terminal");
  }

  override emit(text: string): void {
    for (const piece of chunks(text, EMBEDDED.dataChunkChars)) super.emit(piece);
  }
}
