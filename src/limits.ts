import type { BashOptions } from "just-bash/browser";

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
  /**
   * Longest directory or path the guard follows as known (a `cd` deeper than this makes the working directory
   * unknown): keeps the cost of a check linear in its size (`cd a && cd a && …` would otherwise grow the path
   * with every step). Linux's PATH_MAX.
   */
  maxKnownPathChars: 1024,
  /**
   * Longest variable value the guard follows as known; a longer one is unknown (`x=$x$x` doubles it with
   * every step, so a 100-character command could otherwise need more memory than there is).
   */
  maxKnownValueChars: 4096,
  /**
   * Brace expansion the guard follows (`touch {a,b}/{1..3}`): at most so many words, and so many characters in
   * all, from one word of at most `maxBraceWordChars` characters; past any of them the word is unknown (a write
   * to it asks), since `{1..99999999}` or `{a,b}{a,b}…` would otherwise cost more than the check may.
   */
  maxBraceWords: 1024,
  maxBraceChars: 256 * 1024,
  maxBraceWordChars: 4096,
  /**
   * What one parse of a command (or of code inside it) may take: tree-sitter-bash needs time and memory far
   * beyond linear for a few shapes (a long pipeline with a quoted word or an assignment in one stage takes 2 GB
   * at 64 KB and kills the parser), so a parse that passes this budget stops and the command is refused as too
   * complex. Memory: the base plus so many bytes per character (a 1 MB pipeline of plain commands needs
   * ~400 MB); time: the base plus so many ms per 1,024 characters (normal: under 5). Texts shorter than
   * `parseBudgetFromChars` are parsed unwatched (they cannot get far).
   */
  parseMemoryBaseBytes: 128 * 1024 * 1024,
  parseMemoryBytesPerChar: 512,
  parseTimeBaseMs: 500,
  parseTimeMsPerKiB: 10,
  parseBudgetFromChars: 2048,
  /** Deepest syntax tree the guard reads (NL2Bash's deepest is 13; each `$( )`, `if`, `${ }` adds one or two). */
  maxSyntaxDepth: 200,
  /** Longest pipeline the guard parses (tree-sitter-bash's cost grows with the square of it: src/guard/pipelines.ts). */
  maxPipelineStages: 256,
  /**
   * Code inside a command is parsed again (`bash -c '…'`, `eval`, a variable's value run as code), and arithmetic
   * reads a variable's value as an expression each time it meets the name: all the text parsed for one check, and
   * all arithmetic read, is each at most this many times the command's length plus the base.
   */
  parsedCharsPerChar: 3,
  parsedCharsBase: 64 * 1024,
  /** Characters of resolved paths (each word against the working directory) the rules make per character checked, past the base above. */
  resolvedCharsPerChar: 64,
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
  /** Where spilled output goes: `${spillDir}/out-K.log` (a runtime may give its own private directory instead). */
  spillDir: "/tmp/sandshell",
  /** A spill file keeps at most this many characters of one output: its head, and the last `spillTailChars`. */
  spillMaxChars: 16_000_000,
  /** Of `spillMaxChars`, how many are the output's last characters (held in memory until the output ends). */
  spillTailChars: 1_000_000,
  /** Size of the agent's terminal: wide, so that long lines are not wrapped. */
  agentCols: 250,
  agentRows: 50,
  /** A fresh shell must show its first prompt within this long. */
  startupTimeoutMs: 15_000,
  /** Commands longer than this are written to a file and sourced: a line editor reads typed input slowly. */
  largeCommandChars: 64 * 1024,
  /** After clearing a person's half-typed line, the shell must be quiet this long before an agent's command goes in. */
  personSettleMs: 100,
  /** A person's keystrokes kept while an agent's command runs; more are dropped. */
  maxPersonQueueChars: 64 * 1024,
  /** Ended background jobs remembered (for job_output after the end). */
  maxEndedJobs: 64,
  /** After a job's end marker, how long its last output may still arrive. */
  jobSettleMs: 100,
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
  /** Before an agent's command is typed, how long to wait for the prompt; after that it is typed anyway, as a person would. */
  promptWaitMs: 5_000,
  /**
   * Before an agent's command is typed (node): how long another process group may hold the shell's terminal while the
   * shell waits at its prompt before the shell (and that group) is replaced; nothing is typed into a held terminal.
   */
  terminalHeldMs: 500,
  /** The most of a shell's state (node: `export -p`, or `declare -p`/`-f`, `alias -p`) a respawn restores. */
  stateMaxBytes: 8 * 1024 * 1024,
  /** The most names removed from the prompt hook's folder at one prompt the host takes (the hook makes two a prompt). */
  stateSweepMax: 64,
  /** After a fresh shell's first prompt, how long to wait for its line editor to switch bracketed paste on. */
  pasteProbeMs: 150,
  /** A line editor that had bracketed paste and dropped it (after a person's line) gets this long to take it up again. */
  pasteReturnMs: 500,
  /** Without bracketed paste, a command holding a tab waits this long for it (a typed tab would be completion). */
  pasteTabWaitMs: 100,
  /** After killing a shell, how long to wait for it to exit before going on (a new one starts either way). */
  killWaitMs: 3_000,
  /** Disposing the node runtime: how long each of its processes gets to exit after kill(). */
  disposeWaitMs: 1_000,
} as const;

export const WEBCONTAINER = {
  /**
   * WebContainer.boot() can hang forever: stop waiting (and fall back) after this long. A cold boot can take well
   * over 30 s (bolt.new's tracker has many such reports); the attempt goes on, and a late boot is offered as a switch.
   */
  bootTimeoutMs: 60_000,
  /** When StackBlitz cannot be reached at all, fall back to the embedded runtime within this long. */
  unreachableFallbackMs: 3_000,
  /** Columns of the agent's jsh terminal: wide, so that echo and output are not wrapped. */
  agentCols: 1_000,
  agentRows: 50,
  /** Diagnosing a page that is not cross-origin isolated (a HEAD request for its own headers) gives up after this long. */
  isolationCheckMs: 1_000,
  /** A `prompt` marker is held back this long for the prompt's text (cwd, `❯`) that may follow it. */
  promptHoldMs: 100,
  /** A first jsh prompt drawn without any `prompt`/`interactive` marker counts as ready after this long. */
  startupPromptMs: 2_000,
  /** After a command's `exit` marker, a drawn `❯` prompt counts as the prompt when no `prompt` marker comes within this long. */
  promptAfterExitMs: 300,
  /**
   * After a process reports its exit, it ends once its output has been quiet this long (output and exit travel as
   * separate messages, in no set order): output arriving meanwhile still belongs to it.
   */
  exitDrainMs: 100,
  /** ... but at most this long after the exit, however much output still comes. */
  exitDrainMaxMs: 2_000,
  /** After kill(), `exited` resolves by this time even when WebContainer never reports the exit. */
  killExitMs: 1_000,
  /** Each capability probe (`jsh -c …`) gets this long (a time-out is tried once more) before it counts as unsupported. */
  probeTimeoutMs: 4_000,
  /** A probe whose answer is not complete at its exit waits for its output to be quiet this long (complete: no wait). */
  probeQuietMs: 500,
  /** Capability probes running at once (after one warm-up spawn). */
  probeConcurrency: 4,
  /** A file operation outside the workdir (done by a `node -e` helper process) gives up after this long. */
  fsHelperTimeoutMs: 15_000,
  /** After the helper's exit, how long its answer (on its output, a separate message) may still take to arrive. */
  fsHelperAnswerMs: 5_000,
  /**
   * Bytes a `node -e` helper process writes per call: passed base64 in ONE environment variable (4/3 larger, plus the
   * JSON around it), which Linux caps at 128 KiB; 48 KiB stays well under that.
   */
  fsHelperChunkBytes: 48 * 1024,
  /** Startup canary (known commands through the session before the runtime is handed over): each gets this long. */
  canaryCommandMs: 10_000,
  /** Startup canary: the check's own shell must show its first prompt within this long. */
  canaryStartMs: 20_000,
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
  /** read_file: characters of numbered text one call returns at most; the rest is read on with offset. */
  readMaxChars: 30_000,
  /** read_file / edit_file: larger files are refused (read them in parts with bash: sed -n, head, tail). */
  readMaxFileBytes: 10 * 1024 * 1024,
  /** read_file: bytes looked at to tell a binary file from text. */
  binarySniffBytes: 8_192,
  /** list_dir: deepest depth a caller may ask for. */
  listMaxDepth: 8,
  /** list_dir: entries shown at most; a folder is read no further than one entry past them. */
  listMaxEntries: 500,
  /** "No such file": names of the nearest folder looked at for similar ones (a huge folder is not read whole). */
  hintMaxEntries: 2_000,
} as const;

/** How much of a text a message quotes back before cutting it with "…". */
/** The node runtime's OS sandbox (src/runtime/node/sandbox.ts, docs/sandbox.md). */
export const NODE_SANDBOX = {
  /** How long the one-time check that bubblewrap can create namespaces here may take. */
  probeTimeoutMs: 5_000,
  /**
   * How deep in the workspace nested repositories and protected files are looked for when a shell or job starts
   * (folders below the workspace; the library's own default for its working directory).
   */
  protectScanDepth: 3,
  /** How long that look may take; what it found by then is protected. */
  protectScanTimeoutMs: 10_000,
  /**
   * Mounts the protected names may take in one shell's or job's sandbox: each name is one, and so is each folder above
   * it in the workspace (the library pins them). bubblewrap takes at most 9,000 arguments (three a mount), but its start
   * grows faster than the mounts: ~0.1 s at 200, ~0.9 s at 500, ~4 s at 1,500 (docs/sandbox.md). Past this bound the
   * deepest nested names stay writable (and are said); the workspace's own names and repositories come first.
   */
  maxProtectMounts: 600,
  /** Config files followed through `include.path` / `includeIf.*.path` from one repository's config. */
  maxConfigFiles: 32,
  /**
   * Folder entries the look for git folders reads at a shell's or job's start and at close (node/protect-repos.ts):
   * every folder git would take for a repository, at any depth, node_modules last. Past it, the folders not looked in
   * are named in a notice.
   */
  maxSweepEntries: 200_000,
  /** The same bound for the last look, at close (once: the person's git runs after it). */
  maxSweepEntriesAtClose: 1_000_000,
} as const;

export const MESSAGES = {
  /** A command: a verdict's `part`, a started background job. */
  commandChars: 200,
  /** A command sharing its line with other text: a user rule's subject, a stopped job, the activity panel's headlines. */
  shortCommandChars: 120,
  /** A command in the text of the host's approval dialog. */
  approvalCommandChars: 2_000,
  /** A name the caller sent that nobody knows: a tool, a method, a notification, a handshake message type. */
  nameChars: 100,
  /** A value described back in an argument error; an object key in a bad-input error. */
  valueChars: 40,
  /** An internal error's message in the activity log. */
  errorChars: 300,
} as const;

/** What one call may bring and keep. Past a bound the call gets a structured error saying what to do instead. */
export const INPUT = {
  /** Longest command bash runs (characters); a longer one is refused before the guard: write it to a file and run that. */
  maxCommandChars: 1024 * 1024,
  /** Longest raw JSON argument string, and longest string value in parsed arguments (write_file content). */
  maxArgumentChars: 5 * 1024 * 1024,
  /**
   * Longest broken JSON argument string that is repaired (jsonrepair's time grows faster than the text: about 0.1 s at
   * 32 KB, seconds past 64 KB, minutes at 5 MB); a longer broken one is refused with "send valid JSON".
   */
  maxRepairChars: 32 * 1024,
  /**
   * In a repaired (not valid) JSON string, the characters other than white space and comments that may stand between
   * the end of one string and something shaped like a key (`"echo hi"، "note": "x`, `"echo hi"| note: "x`) for the
   * two to count as a field boundary, which the repair must not swallow (src/tools/boundaries.ts).
   */
  fieldGapChars: 8,
} as const;

export const AUDIT = {
  /**
   * Security entries kept (verdicts, approvals, added rules, input sent to a command, file writes), all callers
   * together; past it the origins with the most are summarised first, down to a common level (and within one origin,
   * its connections with the most).
   */
  maxEntries: 10_000,
  /** Security entries kept whole per caller (its first, then its latest); older ones become one summary with count and SHA-256. */
  maxEntriesPerCaller: 2_000,
  /**
   * Origins (all connections of one page are one principal; so is the owner, and each caller with no origin) whose
   * security entries are kept apart and levelled against each other; past it the newest are summarised whole.
   */
  maxOrigins: 100,
  /** Connections of one origin whose security entries are kept per connection; past it its newest are summarised whole. */
  maxCallersPerOrigin: 500,
  /** Characters of security entries kept, all callers together (commands are kept whole up to maxCommandChars). */
  maxSecurityChars: 64 * 1024 * 1024,
  /** Characters of security entries kept per caller. */
  maxCallerChars: 16 * 1024 * 1024,
  /** Activity entries kept (calls, results, connections); a flood of calls evicts only these. */
  maxActivityEntries: 10_000,
  /** Characters of activity entries kept. */
  maxActivityChars: 64 * 1024 * 1024,
  /** Entries of ignored or refused messages kept: per origin class its first and latest at least (the rest summarised). */
  maxNoiseEntries: 1_000,
  /** Ignored or refused messages from one origin within this long become one entry with a count. */
  floodWindowMs: 1_000,
  /** Characters of a result's text, and of each string argument that is not a command, kept in an audit entry. */
  maxTextChars: 2_000,
  /** A command (or is_input text) is kept whole up to this long; a longer one as length + SHA-256 + head. */
  maxCommandChars: INPUT.maxCommandChars,
} as const;

export const APPROVALS = {
  /** A pending approval nobody answers is denied after this long. */
  expiryMs: 5 * 60 * 1_000,
} as const;

export const API = {
  /** Messages larger than this are refused (measured as the length of their JSON text). */
  maxMessageBytes: 5 * 1024 * 1024,
  /** Objects and arrays nested deeper than this in one message are refused. */
  maxMessageDepth: 64,
  /** MCP connections one sandbox serves at once; more are refused with `sandshell:rejected`. */
  maxConnections: 32,
  /** Each connection is pinged this often (MCP ping); a port that is gone never answers. */
  pingIntervalMs: 15_000,
  /** A connection that does not answer a ping within this long is closed: its slot, pending calls and approvals freed. */
  pingTimeoutMs: 10_000,
  /** The client SDK repeats `sandshell:hello` this often until the sandbox answers `sandshell:ready`. */
  helloIntervalMs: 100,
  /** connectSandbox gives up when the sandbox has not answered and initialized within this long. */
  connectTimeoutMs: 15_000,
  /** The client SDK's limit for one tools/call: the longest command plus a full approval wait, and a minute. */
  callTimeoutMs: SHELL.maxTimeoutSec * 1_000 + APPROVALS.expiryMs + 60_000,
} as const;

export const UI = {
  /** The files panel lists the workspace this many folder levels deep. */
  filesMaxDepth: 6,
  /** …and shows at most this many entries (the rest is counted). */
  filesMaxEntries: 500,
  /** The file viewer shows at most this many bytes of a file. */
  viewerMaxBytes: 256 * 1024,
  /** Output in the activity panel longer than this many lines is folded. */
  activityFoldLines: 8,
  /** …or longer than this many characters. */
  activityFoldChars: 600,
  /** Tool calls the activity panel keeps on screen (the audit log keeps more; export it). */
  activityMaxCalls: 300,
  /** The demo agent pauses this long between steps, so that a person can follow. */
  demoStepPauseMs: 700,
  /** Lines of scrollback the terminal keeps. */
  terminalScrollback: 5_000,
  /** Terminal font size in pixels (playground, embed). */
  terminalFontPx: 14,
  embedTerminalFontPx: 13,
  /** Smallest embed iframe the layout is made for, in CSS pixels. */
  embedMinWidth: 320,
  embedMinHeight: 240,
  /**
   * The views draw what happened once per animation frame, never on a tool call's path; where frames stop (a hidden
   * tab) they draw at least this often.
   */
  frameFallbackMs: 250,
  /** The activity panel and the files panel redraw at most this often while calls come back to back. */
  panelRedrawMs: 100,
} as const;

/** The embedded runtime: just-bash in a Web Worker. */
export const EMBEDDED = {
  /**
   * just-bash execution limits for every command (agent shell and jobs). Raised from just-bash's `normal` profile so
   * that ordinary work passes (`seq 1 1000000 | wc -l`, a loop over 100k lines), while runaway scripts still stop with
   * an error: `while true; do :; done` ends after about 4 s (maxCommandCount), infinite recursion and the fork bomb at
   * once (maxCallDepth), `awk 'BEGIN{while(1){}}'` after about 4 s (maxAwkIterations). A person or the session stops
   * anything else with C-c (the worker is replaced when the interpreter does not yield).
   */
  limits: {
    /** Simple commands one command line may run (just-bash default 100k). */
    maxCommandCount: 1_000_000,
    /** Iterations of one bash loop, and `seq`'s output lines (default 100k). */
    maxLoopIterations: 4_000_000,
    /** Elements of one array; `seq` is also capped by it (default 1M). */
    maxArrayElements: 4_000_000,
    maxAwkIterations: 10_000_000,
    maxSedIterations: 10_000_000,
    maxJqIterations: 10_000_000,
    /** Function recursion depth (just-bash default; stops `f(){ f; }; f` and `:(){ :|:& };:` in ~10 ms). */
    maxCallDepth: 100,
    /**
     * Output of one command line, pipe stages and output written to files included (default 256 MiB): past it the
     * command stops with an error. A statement's output is held in its worker until the statement ends.
     */
    maxOutputSize: 64 * 1024 * 1024,
    /**
     * Bytes of all files together (workspace, /tmp, spill files), with every entry's path and every link's target
     * (a folder's name costs memory as a file's bytes do): the page's copy refuses a write past it with ENOSPC, and so
     * does each worker's (default 1 GiB). A worker holds only the files it wrote or read (larger files come from the
     * page on first read: inlineFileBytes), so one file costs its size about twice, not once per job.
     */
    maxFileSystemBytes: 128 * 1024 * 1024,
    /** Wall time of one command line (default 1 h, kept): a backstop behind C-c and the session's hard timeout. */
    maxExecutionTimeMs: 60 * 60 * 1_000,
  } satisfies NonNullable<BashOptions["executionLimits"]>,
  /** After C-c (or the session's interrupt): how long the interpreter may take to stop by itself before its worker is
   *  ended and a fresh one takes over from the mirror. Well inside SHELL.embeddedInterruptMs. */
  interruptKillMs: 250,
  /** Output of a running command is posted to the page at least this often (it is buffered in between). */
  outputFlushMs: 16,
  /** …or as soon as this many characters are buffered. */
  outputFlushChars: 64 * 1024,
  /** Largest piece of output handed to one onData listener call. */
  dataChunkChars: 16 * 1024,
  /** Commands kept in the line editor's history. */
  historySize: 500,
  /** A longer command line is not kept in the history (a pasted 5 MB line would be kept 500 times over). */
  historyMaxEntryChars: 64 * 1024,
  /** Keys typed ahead that no command has read yet are kept up to this many characters; more are dropped. */
  maxTypeaheadChars: 1024 * 1024,
  /** Files, folders and links the file system may hold (workspace and /tmp); past it, creating one fails with ENOSPC. */
  maxFiles: 20_000,
  /**
   * Longest path (characters) a file, folder or link may have, and longest link target: Linux's PATH_MAX. Past it,
   * ENAMETOOLONG. With maxFiles, this keeps the names alone to at most 80 MiB, counted in maxFileSystemBytes.
   */
  maxPathChars: 4_096,
  /** Longest name of one file, folder or link (characters): Linux's NAME_MAX. */
  maxNameChars: 255,
  /**
   * The environment a background job's worker gets (exported variables, names and values, in characters): every job
   * gets its own copy, so 16 jobs and one 64 MiB exported variable took 4.7 GB. Like Linux's ARG_MAX (2 MiB for a
   * program's arguments and environment), past it the job does not start and says which variable is large.
   */
  maxJobEnvChars: 2 * 1024 * 1024,
  /**
   * A file larger than this reaches a worker (a job's, the shell's after a C-c) as its size only; its bytes are sent
   * when a command there first reads it. Smaller files are sent whole, up to `inlineSnapshotBytes` per new worker.
   */
  inlineFileBytes: 64 * 1024,
  /** Bytes of small files sent whole to a new worker; the rest come on first read, as larger files do. */
  inlineSnapshotBytes: 8 * 1024 * 1024,
  /** File system changes from the page are sent to workers in batches at most this late. */
  fsBatchMs: 4,
  /** A worker is kept booted ahead (so that a C-c that must end a worker is over quickly); a new one is started this
   *  long after the last was taken, not at once, so that its loading does not slow the command just started. */
  standbyDelayMs: 1_000,
  /** Exit code reported for a command stopped with C-c (as bash does). */
  interruptExitCode: 130,
  /** Exit code of a shell or job ended with kill(). */
  killExitCode: 137,
} as const;
