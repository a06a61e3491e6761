// Every limit and default in Sandshell lives here. Tool descriptions, README tables and UI labels read
// these values; nothing else writes a number twice. Pure data: any layer may import it.

/** Where the agent works. Writable together with /tmp; everything else is read-only to the guard. */
export const WORKSPACE = "/home/project";

export const GUARD = {
  /** How deep `bash -c '…'` / `eval '…'` strings are unpacked before the guard gives up (and denies). */
  maxNestedShellDepth: 8,
  /** Characters of an offending command shown back in a reason ("It starts with: …"). */
  headChars: 80,
  /** Largest command the guard parses; larger input is refused as invalid. Matches the API message cap. */
  maxCommandChars: 5 * 1024 * 1024,
} as const;

export const SHELL = {
  /** Default hard timeout of a bash call, in seconds. */
  defaultTimeoutSec: 120,
  /** Largest hard timeout a caller may ask for, in seconds. */
  maxTimeoutSec: 600,
  /** No new output for this long and the call returns `running` with the output so far. */
  softTimeoutSec: 10,
  /** When the last line looks like a prompt for input, return after this much quiet instead. */
  promptQuietMs: 1_000,
  /** After a hard timeout's C-c, how long to wait for the prompt before killing and respawning. */
  interruptGraceMs: 2_000,
  /** Output past this many characters keeps head and tail and spills the whole to a file. */
  maxOutputChars: 30_000,
  /** Where spilled output goes: `${spillDir}/out-K.log`. */
  spillDir: "/tmp/sandshell",
  /** Size of the agent's terminal: wide, so that long lines are not wrapped. */
  agentCols: 250,
  agentRows: 50,
  /** A fresh shell must show its first prompt within this long. */
  startupTimeoutMs: 15_000,
  /** Commands longer than this are written to a file and sourced: a line editor reads typed input slowly. */
  largeCommandChars: 64 * 1024,
  /** Background jobs one sandbox may run at once. */
  maxJobs: 16,
  /** Lines of output a cursor-up can still edit (the agent terminal's rows); older lines are final. */
  cleanerEditableLines: 50,
  /** A line being redrawn longer than this keeps only its last half editable, as if wrapped. */
  cleanerMaxLineChars: 8_192,
  /** A would-be OSC 654 marker longer than this without its terminator is released as text. */
  markerMaxChars: 4_096,
  /** The embedded runtime must stop any command within this much of a C-c. */
  embeddedInterruptMs: 1_000,
} as const;

export const WEBCONTAINER = {
  /** WebContainer.boot() can hang forever: give up after this long. */
  bootTimeoutMs: 30_000,
  /** When StackBlitz cannot be reached at all, fall back to the embedded runtime within this long. */
  unreachableFallbackMs: 3_000,
  /** Columns of the agent's jsh terminal: wide, so that echo and output are not wrapped. */
  agentCols: 1_000,
  agentRows: 50,
} as const;

export const TOOLS = {
  /** read_file: lines returned when no limit is given. */
  readDefaultLines: 2_000,
  /** read_file: a longer line is cut at this many characters. */
  readMaxLineChars: 2_000,
  /** edit_file: lines of context shown around an edit. */
  editSnippetLines: 4,
  /** list_dir: default depth. */
  listDefaultDepth: 2,
  /** job_output: longest wait a caller may ask for, in seconds. */
  jobMaxWaitSec: 60,
} as const;

export const APPROVALS = {
  /** A pending approval nobody answers is denied after this long. */
  expiryMs: 5 * 60 * 1_000,
} as const;

export const API = {
  /** Messages larger than this are refused. */
  maxMessageBytes: 5 * 1024 * 1024,
} as const;
