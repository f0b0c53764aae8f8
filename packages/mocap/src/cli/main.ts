import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliCommand } from './command.ts';

const commandsDir = fileURLToPath(new URL('./commands/', import.meta.url));

function availableCommands(): string[] {
  return readdirSync(commandsDir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
    .sort();
}

async function loadCommand(name: string): Promise<CliCommand> {
  const module = (await import(`./commands/${name}.ts`)) as { command: CliCommand };
  return module.command;
}

async function printUsage(): Promise<void> {
  const lines = ['Usage: kinetrace <command> [options]', '', 'Commands:'];
  for (const name of availableCommands()) {
    const command = await loadCommand(name);
    lines.push(`  ${name.padEnd(12)}${command.summary}`);
  }
  lines.push('', 'Run `kinetrace <command> --help` for the options of a command.');
  console.log(lines.join('\n'));
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    await printUsage();
    return name ? 0 : 1;
  }
  if (!availableCommands().includes(name)) {
    console.error(`Unknown command "${name}".`);
    await printUsage();
    return 1;
  }
  const command = await loadCommand(name);
  try {
    return await command.run(args);
  } catch (error) {
    console.error(`kinetrace ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
