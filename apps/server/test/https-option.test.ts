import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { openBackends } from '../src/backends.ts';
import { loadConfig } from '../src/config.ts';
import { lanAddress, selfSignedCertificate } from '../src/tls.ts';

describe('HTTPS for phones on the LAN', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kinetrace-https-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('--https puts the LAN address in the public URL (the QR codes) and serves a self-signed certificate made once', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' }, ['--https']);
    expect(config.https).toBe(true);
    expect(config.publicUrl).toBe(`https://${lanAddress() ?? 'localhost'}:0`);
    expect(loadConfig({ DATA_DIR: dataDir }).publicUrl).toBe('http://localhost:8080');

    const host = new URL(config.publicUrl).hostname;
    const tls = await selfSignedCertificate(join(dataDir, 'tls'), host);
    expect(await selfSignedCertificate(join(dataDir, 'tls'), host)).toEqual(tls); // kept, not remade
    const certificate = new X509Certificate(tls.cert);
    expect(certificate.subjectAltName).toContain(/^\d/.test(host) ? `IP Address:${host}` : `DNS:${host}`);
    expect(certificate.subjectAltName).toContain('IP Address:127.0.0.1');

    const backends = await openBackends(config, () => undefined);
    const app = await buildApp(config, backends, { tls, runJobs: false });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as { port: number };
      const answer = await new Promise<{ status: number; certificate: string }>((resolve, reject) => {
        const call = request(
          { host: '127.0.0.1', port, path: '/api/instance/', rejectUnauthorized: false },
          (response) => {
            const peer = (response.socket as import('node:tls').TLSSocket).getPeerX509Certificate();
            response.resume();
            resolve({ status: response.statusCode ?? 0, certificate: peer?.fingerprint256 ?? '' });
          },
        );
        call.on('error', reject);
        call.end();
      });
      expect(answer).toEqual({ status: 200, certificate: certificate.fingerprint256 });
    } finally {
      await app.close();
      await backends.close();
    }
  });
});
