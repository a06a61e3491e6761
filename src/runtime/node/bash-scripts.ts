// The bash the node runtime writes: the interactive shell's setup file (the prompt hook, its markers and state files)
// and the wrapper a job runs in. The shell prints the OSC 654 markers from PROMPT_COMMAND and PS0 (generated from
// src/runtime/markers.ts); an end is bound to its command and verified out of band (pty-process.ts: probe).
//
// Markers this shell prints (N = markerNonce, S = the command's number, T = a fresh token per end):
//   interactive                  once, when the setup file has run
//   envfile=N:PATH               once: where `export -p` is written before every prompt (used to restore a respawn)
//   start=S                      from PS0: the command line was read and is about to run (everything before is echo)
//   discarded=N.S.T:COUNT        from PROMPT_COMMAND, when typed-ahead input the command did not read was dropped
//   exit=N.S.T:CODE  cwd=N.S.T:PATH  prompt     from PROMPT_COMMAND, before every prompt

import { singleQuote } from "../../lib/text.ts";
import { bashPrintMarkers, formatMarker } from "../markers.ts";

/**
 * The setup file the agent's bash reads instead of ~/.bashrc (written where the shell cannot write: the command folder,
 * and removed once the shell has read it). Each command's markers carry its sequence number and the end's token
 * (`exit=NONCE.SEQ.TOKEN:CODE`, `start=SEQ`), and an end is verified out of band before the session trusts it
 * (PtyProcess.probe). The nonce is no secret: the prompt hook's text holds it, and `declare -f` writes that to the
 * state file a command can read. What a forger cannot have in time is the token (see the hook below).
 */
export function rcFile(nonce: string, envFile: string, restorePath: string | undefined): string {
  const env = singleQuote(envFile);
  const state = singleQuote(stateFile(envFile));
  const tag = `'${nonce}.'"$__ss_seq.$__ss_tok"`;
  return [
    "# Sandshell: setup of the agent's shell (node runtime). Markers: OSC 654, see src/runtime/markers.ts.",
    // No key bindings from a file a command can write (HOME is the workspace): a macro bound to Enter in ~/.inputrc
    // would add text to every command after the guard checked it. Set before the first `bind` reads the file.
    "export INPUTRC=/dev/null",
    "set +H",
    "unset HISTFILE",
    // Bracketed paste lets a multi-line command with tabs arrive as typed text without completion or PS2 echo,
    // and its on/off switches tell the session when readline reads (on) and when the echo is over (off).
    "bind 'set enable-bracketed-paste on' 2>/dev/null",
    "bind 'set enable-active-region off' 2>/dev/null",
    "bind 'set bell-style none' 2>/dev/null",
    "bind 'set input-meta on' 2>/dev/null",
    "bind 'set output-meta on' 2>/dev/null",
    "bind 'set convert-meta off' 2>/dev/null",
    // A respawn: the previous shell's variables, functions and aliases as the host took them at a verified prompt,
    // from a file in the command folder (no command can write it). Its own hook's are set again below.
    ...(restorePath !== undefined ? [`{ builtin . ${singleQuote(restorePath)}; } >/dev/null 2>&1`] : []),
    "PS1='\\w\\$ '",
    "PS2='> '",
    "__ss_seq=0",
    `PS0=${singleQuote(formatMarker({ kind: "start", tag: "${__ss_seq}" }))}`,
    "__sandshell_prompt() {",
    "  local __ss_ec=$? __ss_n=0 __ss_k",
    // Typeahead the command did not read is discarded before the prompt, so it can never run as a command: read -N
    // puts the terminal in non-canonical mode and takes whatever is queued, without waiting.
    // A read that times out keeps what it got: go on until one gets nothing.
    "  while IFS= builtin read -r -s -N 4096 -t 0.0001 __ss_k; [ -n \"$__ss_k\" ]; do __ss_n=$((__ss_n + ${#__ss_k})); done",
    // The state goes to files the hook creates now, under a fresh random name (noclobber: O_EXCL), kept open on fixed
    // descriptors; the host reads them through /proc/PID/fd and removes their names. A file a command made or linked
    // beforehand (and holds open to write later) is never the one written or read.
    // (`command exec`: `builtin exec`'s redirections would be its own, undone at once.)
    `  command exec ${STATE_FDS.env}>&- ${STATE_FDS.state}>&-`,
    "  local __ss_c=$- __ss_r",
    `  ${randomHex("__ss_r", 16)}`,
    "  builtin set -C",
    `  command exec ${STATE_FDS.env}>${env}."$__ss_r" || :`,
    `  command exec ${STATE_FDS.state}>${state}."$__ss_r" || :`,
    '  [[ $__ss_c == *C* ]] || builtin set +C',
    `  builtin export -p >&${STATE_FDS.env} 2>/dev/null || :`,
    `  { builtin declare -p; builtin declare -f; builtin alias -p; } >&${STATE_FDS.state} 2>/dev/null || :`,
    // The end's token: drawn after the state is written (a local shows in `declare -p`), printed in the end, and only
    // then published as the shell's own name (/proc/self/comm: no other process can set it). A process that copies
    // it can print its end only after the real one; the session takes the first end that carries it (single use).
    "  local __ss_tok",
    `  ${randomHex("__ss_tok", 10)}`,
    `  __ss_tok=${TOKEN_PREFIX}$__ss_tok`,
    `  ((__ss_n > 0)) && ${bashPrintMarkers([{ kind: "discarded", tag, count: '"$__ss_n"' }])}`,
    `  ${bashPrintMarkers([
      { kind: "exit", tag, code: '"$__ss_ec"' },
      { kind: "cwd", tag, path: '"$PWD"' },
      { kind: "prompt" },
    ])}`,
    "  builtin printf '%s' \"$__ss_tok\" >| /proc/self/comm 2>/dev/null || :",
    "  __ss_seq=$((__ss_seq + 1))",
    "}",
    // The group's redirection also silences `set -x` traces of the hook, which would otherwise end up in the output.
    "PROMPT_COMMAND='{ __sandshell_prompt; } 2>/dev/null'",
    bashPrintMarkers([{ kind: "envfile", tag: singleQuote(nonce), path: env }, { kind: "interactive" }]),
    "",
  ].join("\n");
}

/**
 * What a job runs: the command in a subshell (its `exit` ends only that), then the end handshake (pty-process.ts): the
 * `jobend` marker, and a wait for the host's reply before exiting.
 */
export function jobScript(command: string, nonce: string): string {
  return (
    `(\n${command}\n)\n__ss_ec=$?\n` +
    `${bashPrintMarkers([{ kind: "jobend", tag: singleQuote(nonce) }])}\n` +
    "IFS= builtin read -r -t 10 __ss_reply\n" +
    "exit $__ss_ec\n"
  );
}

/**
 * The shell's name while it waits at a prompt: this prefix and ten hex digits of the end's token (40 bits; 15
 * characters, the most a process name holds). `ps` still shows a bash.
 */
const TOKEN_PREFIX = "bash-";
export const TOKEN_NAME = /^bash-[0-9a-f]{10}$/;

/**
 * The descriptors on which the agent's shell keeps the files its prompt hook last created (`export -p`; the state):
 * high numbers no script picks by chance, below the 255 bash keeps for its terminal.
 */
export const STATE_FDS = { env: 250, state: 251 } as const;

/**
 * Bash that sets the variable `name` (declared local by the caller) to `digits` hex digits (at most 16). They come
 * from the kernel (/proc/sys/kernel/random/uuid, a fresh UUID on every read; its first 12 hex digits are all random,
 * the 13th is its version), never from the shell's own RANDOM or SRANDOM, which a command can seed or unset
 * (`RANDOM=7; unset SRANDOM` made every later token the same in every run). Builtins only, no process. Only where that
 * file does not exist (not Linux) does it fall back to SRANDOM, else RANDOM; where it exists but cannot be read
 * (`enable -n read`), the value is short, and an end with a short token is never taken (TOKEN_NAME): the command
 * times out instead.
 */
function randomHex(name: string, digits: number): string {
  if (digits > 16) throw new Error("randomHex: at most 16 digits");
  const fallback = "${SRANDOM:-$(((RANDOM << 17 ^ RANDOM << 2 ^ RANDOM) & 0xffffffff))}";
  return (
    `${name}=; if [[ -e /proc/sys/kernel/random/uuid ]]; then ` +
    `{ IFS= builtin read -r ${name} </proc/sys/kernel/random/uuid; } 2>/dev/null; ${name}=\${${name}//-/}; ` +
    `else builtin printf -v ${name} '%08x%08x' "${fallback}" "${fallback}"; fi; ${name}=\${${name}:0:${digits}}`
  );
}

/** Where the prompt hook writes `declare -p`, `declare -f` and `alias -p` (beside the shell's `export -p` file). */
export function stateFile(envFile: string): string {
  return `${envFile}.state`;
}
