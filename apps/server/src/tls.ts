import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';

/** The machine's first LAN IPv4 address: phones on the same network reach the server there. */
export function lanAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return address.address;
    }
  }
  return undefined;
}

/**
 * Phones allow the camera only on https (or localhost): a self-signed certificate for the LAN
 * address, made on first run and kept under `tlsDir`, lets a phone on the lab's Wi-Fi record
 * after accepting the certificate once.
 */
export async function selfSignedCertificate(tlsDir: string, host: string): Promise<{ key: string; cert: string }> {
  const name = host.replace(/[^A-Za-z0-9.-]/g, '_');
  const keyPath = join(tlsDir, `${name}.key.pem`);
  const certPath = join(tlsDir, `${name}.cert.pem`);
  if (existsSync(keyPath) && existsSync(certPath))
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
  const isIp = /^\d+\.\d+\.\d+\.\d+$/.test(host);
  // Loaded only when a certificate is made: a server without HTTPS never holds it.
  const { default: selfsigned } = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * 86_400_000), // the longest validity Apple devices accept
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          isIp ? { type: 7, ip: host } : { type: 2, value: host },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  mkdirSync(tlsDir, { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { key: pems.private, cert: pems.cert };
}
