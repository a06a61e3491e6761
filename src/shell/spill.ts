// Spill files in the runtime's file system: long output (and long commands) written where the agent can read them.

import type { RuntimeFs } from "../runtime/types.ts";
import type { SpillTarget } from "./jobs.ts";

class SpillWriter implements SpillTarget {
  private queue: string[] = [];
  private queuedChars = 0;
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

  async flush(): Promise<string | undefined> {
    while (this.draining !== null) await this.draining;
    if (this.failed) return undefined;
    return this.path.catch(() => undefined);
  }
}

export class SpillFiles {
  private next = 1;
  private dirReady: Promise<void> | null = null;

  constructor(
    private readonly fs: RuntimeFs,
    private readonly dir: string,
    private readonly onBacklog: (chars: number) => void,
  ) {}

  open(prefix: string): SpillTarget {
    return new SpillWriter(this.fs, this.allocate(prefix), this.onBacklog);
  }

  /** Writes a long command to `${dir}/cmd-K.sh`; resolves with its path. */
  async saveCommand(text: string): Promise<string> {
    const path = await this.allocate("cmd", "sh");
    await this.fs.writeFile(path, text.endsWith("\n") ? text : `${text}\n`);
    return path;
  }

  /** The first `${dir}/${prefix}-K.${ext}` that does not exist yet, created empty. */
  private async allocate(prefix: string, ext = "log"): Promise<string> {
    this.dirReady ??= this.fs.mkdir(this.dir, { recursive: true }).catch(() => undefined);
    await this.dirReady;
    for (let tries = 0; tries < 10_000; tries++) {
      const path = `${this.dir.replace(/\/+$/, "")}/${prefix}-${this.next++}.${ext}`;
      if ((await this.fs.stat(path).catch(() => null)) === null) {
        await this.fs.writeFile(path, "");
        return path;
      }
    }
    throw new Error(`no free spill file name in ${this.dir}`);
  }
}

