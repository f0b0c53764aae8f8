import { spawn } from 'node:child_process';

export interface ProcessOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion and collects its text output (for ffprobe's small JSON answers). */
export function runProcess(command: string, args: string[]): Promise<ProcessOutput> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolvePromise({
        exitCode: code ?? -1,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}
