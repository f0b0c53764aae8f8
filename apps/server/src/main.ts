import { join } from 'node:path';
import { buildApp } from './app.ts';
import { openBackends } from './backends.ts';
import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.ts';
import { ObjectStoreUnreachableError } from './storage/s3-file-store.ts';
import { selfSignedCertificate } from './tls.ts';

/** A start refused for a reason the person starting it can fix: said plainly, without a stack. */
function refuseToStart(message: string): never {
  console.error(message);
  process.exit(1);
}

/** Whether an error is one of the reasons `refuseToStart` says plainly. */
const isPlainRefusal = (error: unknown) =>
  error instanceof ConfigError || error instanceof ObjectStoreUnreachableError || error instanceof DataDirInUseError;

/** `npm start`: the whole app on its embedded defaults, or on what the environment configures. */
const config = await Promise.resolve()
  .then(() => loadConfig(process.env, process.argv.slice(2)))
  .catch((error: unknown) => {
    if (isPlainRefusal(error)) refuseToStart((error as Error).message);
    throw error;
  });

// On the embedded database the data folder is this process's before anything in it is opened. (Servers
// sharing PostgreSQL may share a DATA_DIR: nothing in it is then owned by one process.)
const releaseDataDir = config.databaseUrl
  ? async () => undefined
  : await lockDataDir(config.dataDir, (error) => {
      console.error(
        `The lock on ${config.dataDir} was lost (${error.message}): stopping, so that two servers never share its database.`,
      );
      process.exit(1);
    }).catch((error: unknown) => refuseToStart(isPlainRefusal(error) ? (error as Error).message : String(error)));

const tls = config.https
  ? await selfSignedCertificate(join(config.dataDir, 'tls'), new URL(config.publicUrl).hostname)
  : undefined;
const backends = await openBackends(config, (line) => console.log(line)).catch(async (error: unknown) => {
  if (!isPlainRefusal(error)) throw error;
  await releaseDataDir();
  return refuseToStart((error as Error).message);
});
const app = await buildApp(config, backends, { tls, runJobs: 'after-listen' });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => backends.close())
      .then(() => releaseDataDir())
      .then(() => process.exit(0));
  });
}

// The port is bound before any job is taken or recovered: a server that cannot serve touches no one's work.
await app.listen({ port: config.port, host: config.host }).catch(async (error: unknown) => {
  await backends.close();
  refuseToStart(
    (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
      ? `Port ${config.port} is in use by another program: stop it, or start Kinetrace with another PORT.`
      : String(error),
  );
});
await app.startJobs();
app.log.info(
  `Kinetrace is running at ${config.publicUrl} (database: ${backends.database.kind}, data: ${config.dataDir}` +
    `${config.objectStore ? `, files: bucket ${config.objectStore.bucket}` : ''}` +
    `${config.smtpUrl ? '' : ', e-mails to the outbox folder and this log'})`,
);
if (tls) {
  app.log.info(
    `HTTPS with a self-signed certificate: on each phone, open ${config.publicUrl} once and accept the certificate warning, then scan the session's QR code.`,
  );
}
