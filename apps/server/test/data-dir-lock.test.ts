import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt, freePort, spawnServer, type ServerProcess } from './support/npm-start.ts';
import { seedEmbeddedDatabase } from './support/pglite-template.ts';
import { newUserPayload, PASSWORD } from './support/test-app.ts';

/** Issue 20 (3): a second `npm start` on one DATA_DIR destroyed the embedded database of the first. */
describe('one server per data folder', () => {
  const servers: ServerProcess[] = [];
  const folders: string[] = [];
  const start = async (dataDir: string, port?: number) => {
    const server = spawnServer({ dataDir, port: port ?? (await freePort()) });
    servers.push(server);
    return server;
  };
  const newDataDir = async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kinetrace-lock-test-'));
    folders.push(dataDir);
    await seedEmbeddedDatabase(dataDir);
    return dataDir;
  };
  /** How a server that was started ends up: serving, or exited with its code. */
  const outcome = (server: ServerProcess) =>
    Promise.race([
      server.exited.then((code) => ({ exitCode: code })),
      server.ready().then(
        () => 'serving' as const,
        () => new Promise<never>(() => undefined), // its exit answers instead
      ),
    ]);

  afterAll(async () => {
    for (const server of servers) await server.kill();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('refuses a second server on the same DATA_DIR, naming the first; after a kill -9 the next start takes over at once', async () => {
    ensureBuilt();
    const dataDir = await newDataDir();
    const first = await start(dataDir);
    await first.ready();
    const user = newUserPayload();
    const registered = await fetch(`${first.baseUrl}/api/register/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(user),
    });
    expect(registered.status).toBe(201);

    const second = await start(dataDir);
    expect(await outcome(second)).toEqual({ exitCode: 1 });
    expect(second.output()).toContain(`process ${first.pid} on ${hostname()}`);
    expect(second.output()).toContain(dataDir);
    expect(second.output()).not.toMatch(/\n\s+at /); // a message, not a stack
    expect((await fetch(`${first.baseUrl}/api/instance/`)).status).toBe(200);

    // A lock left by a process that is gone does not stop the next start.
    await first.kill();
    const third = await start(dataDir);
    await third.ready();
    const login = await fetch(`${third.baseUrl}/api/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: user.username, password: PASSWORD }),
    });
    expect(login.status).toBe(200);

    // A port already taken is refused before the server takes or recovers any job, and said plainly.
    const portTaken = await start(await newDataDir(), Number(new URL(third.baseUrl).port));
    expect(await portTaken.exited).toBe(1);
    expect(portTaken.output()).toContain(`Port ${new URL(third.baseUrl).port} is in use`);
  });
});
