/** One `kinetrace <name>` command; each lives in `commands/<name>.ts` and exports `command`. */
export interface CliCommand {
  /** One line shown in `kinetrace --help`. */
  summary: string;
  /** Runs with the arguments after the command name; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}
