/**
 * Progress of a stage on stderr: a bar redrawn in place with \r on a terminal, otherwise (logs, CI)
 * a plain line at every tenth, so logs stay short.
 */
export function stageProgress(stage: string): (done: number, total: number) => void {
  const tty = process.stderr.isTTY === true;
  const label = stage.padEnd(20);
  let lastTenth = -1;
  return (done, total) => {
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const percent = Math.floor(fraction * 100);
    if (tty) {
      const width = 30;
      const filled = Math.round(fraction * width);
      process.stderr.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% (${done}/${total})${fraction >= 1 ? '\n' : ''}`,
      );
    } else if (Math.floor(fraction * 10) !== lastTenth) {
      lastTenth = Math.floor(fraction * 10);
      process.stderr.write(`${label} ${percent}% (${done}/${total})\n`);
    }
  };
}
