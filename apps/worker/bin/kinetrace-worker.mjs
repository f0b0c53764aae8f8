#!/usr/bin/env node
// `npx kinetrace-worker --server URL --token T`: the TypeScript worker through tsx, in this process, so that
// the signals an operator (or a service manager) sends reach the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
