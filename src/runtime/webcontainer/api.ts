// The part of @webcontainer/api (1.6.4) the adapter uses, as structural types: the adapter takes the API as an
// injectable dependency, so that protocol tests can drive it with a scripted fake in Node. The assignments at the end
// make the compiler check that the real package still fits these shapes.

import type {
  BootOptions,
  WebContainer,
  WebContainerProcess,
} from "@webcontainer/api";

export interface WcDirEnt {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** `wc.fs`: scoped to the workdir (paths resolve against it); no stat, exists, appendFile, realpath, symlinks. */
export interface WcFileSystem {
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  readdir(path: string, options: { withFileTypes: true }): Promise<WcDirEnt[]>;
  mkdir(path: string, options?: { recursive?: false }): Promise<void>;
  mkdir(path: string, options: { recursive: true }): Promise<string>;
  rm(path: string, options?: { force?: boolean; recursive?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

export interface WcSpawnOptions {
  /** Relative to the workdir. */
  cwd?: string;
  env?: Record<string, string | number | boolean>;
  output?: boolean;
  terminal?: { cols: number; rows: number };
}

export interface WcProcess {
  exit: Promise<number>;
  input: WritableStream<string>;
  /** Push-only: never reaches `done`; a chunk is one `TextDecoder.decode(bytes)` without `stream: true`. */
  output: ReadableStream<string>;
  kill(): void;
  resize(dimensions: { cols: number; rows: number }): void;
}

export type WcUnsubscribe = () => void;

export interface WcInstance {
  readonly fs: WcFileSystem;
  /** Absolute path of the working directory, e.g. /home/project. */
  readonly workdir: string;
  /** The default PATH of spawned processes. */
  readonly path: string;
  spawn(command: string, args: string[], options?: WcSpawnOptions): Promise<WcProcess>;
  on(event: "server-ready", listener: (port: number, url: string) => void): WcUnsubscribe;
  on(event: "error", listener: (error: { message: string }) => void): WcUnsubscribe;
  teardown(): void;
}

export interface WcBootOptions {
  coep?: "require-corp" | "credentialless" | "none";
  workdirName?: string;
  forwardPreviewErrors?: boolean | "exceptions-only";
}

/** What the adapter needs of the package: `WebContainer.boot`. */
export interface WebContainerApi {
  boot(options?: WcBootOptions): Promise<WcInstance>;
}

// Compile-time checks: the real package satisfies the shapes above.
type Assert<T extends true> = T;
export type RealFitsApi = Assert<typeof WebContainer extends WebContainerApi ? true : false>;
export type RealFitsInstance = Assert<WebContainer extends WcInstance ? true : false>;
export type RealFitsProcess = Assert<WebContainerProcess extends WcProcess ? true : false>;
export type RealFitsBootOptions = Assert<WcBootOptions extends BootOptions ? true : false>;

/** The real API, loaded only when first needed (the browser bundle gets it as its own chunk). */
export async function loadWebContainerApi(): Promise<WebContainerApi> {
  const mod = await import("@webcontainer/api");
  return mod.WebContainer;
}
