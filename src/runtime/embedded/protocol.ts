// Messages between the page (host: index.ts) and a worker running the shell core. Plain structured-clone data only.

/** One file system entry, as the mirror and the workers' in-memory file systems hold it (paths normalised, literal). */
export type FsEntry =
  | { path: string; kind: "dir"; mode: number; mtime: number }
  | { path: string; kind: "file"; mode: number; mtime: number; data: Uint8Array }
  | { path: string; kind: "symlink"; mode: number; mtime: number; target: string }
  /**
   * A file whose bytes stay on the page until a command reads it (larger than EMBEDDED.inlineFileBytes, or past a new
   * worker's EMBEDDED.inlineSnapshotBytes). From a worker, `from` names the page's file that holds its bytes: a copy
   * or move of a file the worker had not read.
   */
  | { path: string; kind: "stub"; mode: number; mtime: number; size: number; from?: string };

/**
 * A change to the file system, described by its result (not by the call that made it), so that applying it to the
 * mirror and to another worker's file system gives the same entries. Parents missing for a `put` are created as
 * folders (as just-bash's InMemoryFs does).
 */
export type FsOp =
  | { op: "put"; entries: FsEntry[] }
  | { op: "append"; path: string; data: Uint8Array; mode: number; mtime: number }
  | { op: "delete"; path: string }
  | { op: "mkdirs"; path: string; mtime: number }
  | { op: "chmod"; path: string; mode: number }
  | { op: "utimes"; path: string; mtime: number }
  /** Replace the subtree at `path` with `entries` (a correction after concurrent writes). */
  | { op: "sync"; path: string; entries: FsEntry[] };

/** What carries a shell's state from one command to the next, and into a fresh worker after a kill. */
export interface CarryState {
  /** Every shell variable that is not an array (exported or not), `?`, PWD, OLDPWD, SHELLOPTS, BASHOPTS, aliases. */
  env: Record<string, string>;
  cwd: string;
  exported: string[];
  readonly: string[];
  /** Function definitions as source text, by name. */
  functions: Array<{ name: string; text: string }>;
  /** `declare -a …` / `declare -A …` statements that recreate the arrays. */
  arrays: string;
  lastExitCode: number;
}

/** How much the file system may hold (EMBEDDED.limits.maxFileSystemBytes, EMBEDDED.maxFiles by default). */
export interface FsBounds {
  /** Bytes of all files together. */
  bytes: number;
  /** Files, folders and links (the interpreter's own /bin, /dev, /proc not counted). */
  files: number;
}

export interface InitMessage {
  t: "init";
  bounds: FsBounds;
  mode: "shell" | "job";
  nonce: string;
  workspace: string;
  /** The file system to start from, and the host's change counter it reflects. */
  fs: FsEntry[];
  seq: number;
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
  /** Shell mode: state of the shell this one replaces (after a C-c that had to end the worker), and its history. */
  state?: CarryState;
  history?: string[];
  /** Shell mode: this worker replaces one ended by C-c: print ^C and the markers of an interrupted command. */
  interrupted?: boolean;
  /** Job mode: the command line. */
  command?: string;
  /** Shell mode: where the exported variables are kept (`export -p` format) for a fresh shell after `exit`. */
  envFile?: string;
}

export type HostToWorker =
  | InitMessage
  | { t: "input"; data: string }
  | { t: "interrupt" }
  | { t: "resize"; cols: number; rows: number }
  | { t: "fs"; seq: number; ops: FsOp[] }
  /** The bytes of a file the worker asked for (`read`), as the page holds them now; null when it is gone. */
  | { t: "file"; id: number; data: Uint8Array | null }
  /** How much memory the worker uses (for benchmarks and memory tests). */
  | { t: "memory"; id: number };

export type WorkerToHost =
  /** The worker has loaded just-bash and waits for `init`. */
  | { t: "booted"; programs: string[] }
  /**
   * Terminal output, and news that goes with it (one message per change, so a command line costs two: its start and
   * its end): the shell is running a line (`busy`) or at its prompt again, its state after a line, a line it added to
   * its history.
   */
  | { t: "data"; text: string; busy?: boolean; state?: CarryState; historyAdd?: string }
  /** File system changes made by the worker; `seen` = the last host change it had applied when it made them. */
  | { t: "fs"; seen: number; ops: FsOp[] }
  /** The bytes of the file at `path` (a stub) are needed: a command reads it. */
  | { t: "read"; id: number; path: string }
  /** The answer to `memory`. */
  | { t: "memory"; id: number; usage: WorkerMemory | null }
  /** The shell or job ended with this code; the worker can be ended. */
  | { t: "exit"; code: number }
  | { t: "error"; message: string };

/** A worker's memory, as its platform tells (Node: after a full GC); bytes. */
export interface WorkerMemory {
  /** The worker's JavaScript heap in use. */
  heapUsed: number;
  /** Memory outside the heap that the worker's objects hold (ArrayBuffers: file contents). */
  external: number;
}

/** How the worker's code sends a message to the page; the buffers in `transfer` move with it (not copied). */
export type Post = (message: WorkerToHost, transfer?: ArrayBuffer[]) => void;

/** The buffers of the file entries in `ops`, to move with the message that carries them. */
export function transferables(ops: readonly FsOp[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const add = (data: Uint8Array): void => {
    if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer) out.add(data.buffer);
  };
  for (const op of ops) {
    if (op.op === "append") add(op.data);
    else if (op.op === "put" || op.op === "sync") for (const e of op.entries) if (e.kind === "file") add(e.data);
  }
  return [...out];
}
