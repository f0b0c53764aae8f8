#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so that `npx kinetrace` works straight from the repository.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const tsxCli = require.resolve('tsx/cli');
const entry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const result = spawnSync(process.execPath, [tsxCli, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
