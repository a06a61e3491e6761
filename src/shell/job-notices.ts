// bash's job notices ("[1]+  Done    sleep 1") are printed whenever bash next waits for a foreground program or shows
// a prompt: in the output of whatever command runs then. A notice belongs to the command that started the job (bash
// printed "[1] 4242" in that command's output), so in the output of any other command it is dropped. A job bash never
// said it started (the command printed such a line itself, or it came from `jobs`) is left alone, and so are notices
// of a job that still runs (Running, Stopped).

/** bash's line when `&` starts a job in an interactive shell: job number, pid. */
const START = /^\[(\d{1,6})\] \d{1,10}$/;
/** A change of a job's state to ended: "[N]" with the current/previous mark, two spaces and a capitalised status. */
const NOTICE = /^\[(\d{1,6})\][+\- ]  (?!Running\b|Stopped\b)[A-Z]/;
/** What bash prints after a notice: the other parts of a pipeline whose parts ended differently, the directory. */
const CONTINUED = /^ {4,}\S.* \| |^\(wd now: .*\)$/;
/** A line that is still open is held back while it could become a notice, up to this length. */
const MAX_HELD_CHARS = 65_536;

/** The filter's state for one command's output. */
export interface NoticeState {
  /** An unfinished last line that could be a notice. */
  carry: string;
  /** The last line was a dropped notice: its continuation lines go too. */
  dropping: boolean;
}

export function newNoticeState(): NoticeState {
  return { carry: "", dropping: false };
}

/** Which command started each job of the current shell, by job number. */
export class JobNotices {
  private readonly owners = new Map<number, unknown>();

  /** A new shell: its jobs are numbered afresh. */
  reset(): void {
    this.owners.clear();
  }

  /**
   * The final clean text of `owner`'s output, without notices of jobs others started. An unfinished last line that
   * could be one is held in `state` until its end comes (or `ended`: the text is final now).
   */
  filter(state: NoticeState, owner: unknown, text: string, ended: boolean): string {
    const data = state.carry === "" ? text : state.carry + text;
    state.carry = "";
    if (!state.dropping && data.charCodeAt(0) !== 0x5b && data.indexOf("\n[") === -1) return data;
    const nl = data.lastIndexOf("\n");
    let tail = data.slice(nl + 1);
    if (!ended && tail !== "" && tail.length < MAX_HELD_CHARS && /^[[ (]/.test(tail)) {
      state.carry = tail;
      tail = "";
    }
    let out = "";
    if (nl !== -1) {
      for (const line of data.slice(0, nl).split("\n")) {
        if (state.dropping && CONTINUED.test(line)) continue;
        state.dropping = this.take(owner, line);
        if (!state.dropping) out += `${line}\n`;
      }
    }
    if (tail !== "") {
      state.dropping = false;
      out += tail;
    }
    return out;
  }

  /** Whether a complete line of `owner`'s would be dropped (for output streamed before it is final; changes nothing). */
  drops(owner: unknown, line: string): boolean {
    const m = NOTICE.exec(line);
    if (m === null) return false;
    const o = this.owners.get(Number(m[1]));
    return o !== undefined && o !== owner;
  }

  /** Output while no agent command runs (the person's commands): jobs they start are theirs. */
  idle(text: string, person: unknown): void {
    if (text.indexOf("[") === -1) return;
    for (const line of text.split(/\r?\n/)) {
      const m = START.exec(line.replace(/^.*\r/, ""));
      if (m !== null) this.owners.set(Number(m[1]), person);
    }
  }

  /** Notes a job start; true when `line` is a notice of a job another command started (it is dropped then). */
  private take(owner: unknown, line: string): boolean {
    if (line.charCodeAt(0) !== 0x5b) return false;
    const start = START.exec(line);
    if (start !== null) {
      this.owners.set(Number(start[1]), owner);
      return false;
    }
    const m = NOTICE.exec(line);
    if (m === null) return false;
    const job = Number(m[1]);
    const o = this.owners.get(job);
    if (o === undefined) return false;
    this.owners.delete(job);
    return o !== owner;
  }
}
