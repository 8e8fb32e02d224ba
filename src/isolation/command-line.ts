/** A command line, possibly rewritten to run inside a sandbox. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** Rewrites a stdio server's command line, e.g. to run it without network. */
export type CommandWrapper = (line: CommandLine) => CommandLine;
