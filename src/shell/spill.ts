// Spill files in the runtime's file system: long output (and long commands) written where the agent can read them.

import { SHELL } from "../limits.ts";
import type { RuntimeFs } from "../runtime/types.ts";
import type { SpillTarget } from "./jobs.ts";

/**
 * One spill file, written in order as output arrives. Beyond `maxChars` it keeps the head on disk and the last
 * `tailChars` in memory, and at the end writes a line that says how much was left out, then that tail.
 */
class SpillWriter implements SpillTarget {
  private queue: string[] = [];
  private queuedChars = 0;
  private written = 0;
  private tail: string[] = [];
  private tailLength = 0;
  private dropped = 0;
  private draining: Promise<void> | null = null;
  private failed = false;

  constructor(
    private readonly fs: RuntimeFs,
    private readonly path: Promise<string>,
    private readonly onBacklog: (chars: number) => void,
  ) {
    path.catch(() => {
      this.failed = true;
    });
  }

  write(text: string): void {
    if (this.failed || text === "") return;
    const headRoom = SHELL.spillMaxChars - SHELL.spillTailChars - this.written;
    if (headRoom < text.length) {
      if (headRoom > 0) {
        this.write(text.slice(0, headRoom));
        text = text.slice(headRoom);
      }
      this.keepTail(text);
      return;
    }
    this.written += text.length;
    this.queue.push(text);
    this.queuedChars += text.length;
    this.onBacklog(this.queuedChars);
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      const path = await this.path;
      while (this.queue.length > 0) {
        const chunk = this.queue.length === 1 ? this.queue[0]! : this.queue.join("");
        this.queue = [];
        this.queuedChars = 0;
        await this.fs.appendFile(path, chunk);
      }
    } catch {
      this.failed = true;
      this.queue = [];
      this.queuedChars = 0;
    } finally {
      this.draining = null;
    }
  }

  private keepTail(text: string): void {
    this.tail.push(text);
    this.tailLength += text.length;
    while (this.tailLength - this.tail[0]!.length >= SHELL.spillTailChars) {
      const gone = this.tail.shift()!;
      this.tailLength -= gone.length;
      this.dropped += gone.length;
    }
  }

  async flush(): Promise<string | undefined> {
    if (this.tail.length > 0) {
      let tail = this.tail.join("");
      if (tail.length > SHELL.spillTailChars) {
        this.dropped += tail.length - SHELL.spillTailChars;
        tail = tail.slice(-SHELL.spillTailChars);
      }
      this.tail = [];
      this.tailLength = 0;
      const note = this.dropped > 0 ? `\n[… ${this.dropped} characters of output left out here: the file keeps the first and the last part …]\n` : "";
      this.dropped = 0;
      this.queue.push(note + tail);
      this.draining ??= this.drain();
    }
    while (this.draining !== null) await this.draining;
    if (this.failed) return undefined;
    return this.path.catch(() => undefined);
  }
}

export class SpillFiles {
  private next = 1;
  private readonly created = new Set<string>();
  private dirReady: Promise<void> | null = null;

  constructor(
    private readonly fs: RuntimeFs,
    private readonly dir: string,
    private readonly onBacklog: (chars: number) => void,
    /** Where long commands go: a folder the shell cannot write (node's commandDir), else `dir`. */
    private readonly commandDir: string = dir,
  ) {}

  open(prefix: string): SpillTarget {
    return new SpillWriter(this.fs, this.allocate(prefix), this.onBacklog);
  }

  /** Writes a long command to `${commandDir}/cmd-K.sh`; resolves with its path. */
  async saveCommand(text: string): Promise<string> {
    const path = await this.allocate("cmd", "sh", this.commandDir);
    await this.fs.writeFile(path, text.endsWith("\n") ? text : `${text}\n`, { mode: 0o600 });
    return path;
  }

  /** Removes every file this session created (at close). */
  async removeAll(): Promise<void> {
    const paths = [...this.created];
    this.created.clear();
    await Promise.all(paths.map((p) => this.fs.rm(p, { force: true }).catch(() => undefined)));
  }

  /** The first `${dir}/${prefix}-K.${ext}` that does not exist yet, created empty. */
  private async allocate(prefix: string, ext = "log", dir = this.dir): Promise<string> {
    if (dir === this.dir) {
      this.dirReady ??= this.fs.mkdir(this.dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
      await this.dirReady;
    }
    for (let tries = 0; tries < 10_000; tries++) {
      const path = `${dir.replace(/\/+$/, "")}/${prefix}-${this.next++}.${ext}`;
      if ((await this.fs.stat(path).catch(() => null)) === null) {
        await this.fs.writeFile(path, "", { mode: 0o600 });
        this.created.add(path);
        return path;
      }
    }
    throw new Error(`no free spill file name in ${this.dir}`);
  }
}

