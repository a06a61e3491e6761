// The shell layer: one persistent shell per sandbox (session.ts) on any runtime, plus background jobs (jobs.ts).
export {
  createShellSession,
  looksLikePrompt,
  parseExportP,
  stripEcho,
  type InputOptions,
  type RunOptions,
  type SessionStats,
  type ShellResult,
  type ShellSession,
  type ShellSessionOptions,
  type ShellState,
  type ShellStatus,
} from "./session.ts";
export { JobError, JobManager, type JobErrorCode, type JobInfo, type JobOutput, type JobStatus } from "./jobs.ts";
export { keyToBytes, KEY_NAMES } from "./keys.ts";
export { formatMarker, MarkerScanner, parseMarker, type Marker, type ScanEvent } from "../runtime/markers.ts";
export { OutputCollector } from "./output-collector.ts";
export { cleanTerminalOutput, TerminalTextCleaner } from "./terminal-text.ts";
export { commandText, type CommandText } from "./wire.ts";
