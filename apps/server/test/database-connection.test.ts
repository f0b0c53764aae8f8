import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authHeader,
  postgresAdminUrl,
  startTestApp,
  testBackends,
  verifiedUser,
  type TestApp,
} from './support/test-app.ts';

const onPostgres = (await testBackends()).includes('postgres');

/** A PostgreSQL restart or an administrator ending connections must not bring the server down. */
describe.skipIf(!onPostgres)('lost PostgreSQL connections', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp('postgres');
  });
  afterAll(async () => {
    await test?.close();
  });

  it('logs the loss and answers again on new connections', async () => {
    const user = await verifiedUser(test);
    const { rows } = await test.backends.database.executeSql('SELECT current_database() AS name');

    const admin = new pg.Client({ connectionString: postgresAdminUrl });
    await admin.connect();
    const ended = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [rows[0]?.name],
    );
    await admin.end();
    expect(ended.rowCount).toBeGreaterThan(0);

    await expect.poll(() => test.logs.some((line) => line.startsWith('Database connection lost'))).toBe(true);
    // A request may still meet a dropped connection before the pool has noticed it; the next ones get new ones.
    await expect
      .poll(
        async () => (await test.call({ method: 'GET', url: '/api/me/', headers: authHeader(user.token) })).statusCode,
      )
      .toBe(200);
  });
});
