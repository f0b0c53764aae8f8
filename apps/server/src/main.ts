import { join } from 'node:path';
import { buildApp } from './app.ts';
import { openBackends } from './backends.ts';
import { loadConfig } from './config.ts';
import { selfSignedCertificate } from './tls.ts';

/** `npm start`: the whole app on its embedded defaults, or on what the environment configures. */
const config = loadConfig(process.env, process.argv.slice(2));
const tls = config.https
  ? await selfSignedCertificate(join(config.dataDir, 'tls'), new URL(config.publicUrl).hostname)
  : undefined;
const backends = await openBackends(config, (line) => console.log(line));
const app = await buildApp(config, backends, { tls });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => backends.close())
      .then(() => process.exit(0));
  });
}

await app.listen({ port: config.port, host: config.host });
app.log.info(
  `Kinetrace is running at ${config.publicUrl} (database: ${backends.database.kind}, data: ${config.dataDir}` +
    `${config.smtpUrl ? '' : ', e-mails to the outbox folder and this log'})`,
);
if (tls) {
  app.log.info(
    `HTTPS with a self-signed certificate: on each phone, open ${config.publicUrl} once and accept the certificate warning, then scan the session's QR code.`,
  );
}
