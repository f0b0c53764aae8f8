import { resolve } from 'node:path';
import { z } from 'zod';
import { lanAddress } from './tls.ts';

/** Everything configurable, read once from the environment (documented in the README). */
const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Kinetrace <no-reply@kinetrace.local>'),
  PUBLIC_URL: z.string().optional(),
  HTTPS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PROVIDER_NAME: z.string().default('Kinetrace'),
  PROVIDER_CONTACT_EMAIL: z.string().default('contact@kinetrace.local'),
  LINK_FORUM: z.string().default('https://github.com/kinetrace/kinetrace/discussions'),
  LINK_SOURCE_CODE: z.string().default('https://github.com/kinetrace/kinetrace'),
  LINK_PROCESSING_CODE: z.string().default('https://github.com/kinetrace/kinetrace/tree/main/packages/mocap'),
  LINK_BEST_PRACTICES: z.string().default('https://github.com/kinetrace/kinetrace/blob/main/docs/best-practices.md'),
  LINK_FAQ: z.string().default('https://github.com/kinetrace/kinetrace/blob/main/docs/faq.md'),
  LINK_TERMS: z.string().default('https://github.com/kinetrace/kinetrace/blob/main/docs/terms.md'),
  LINK_PRIVACY: z.string().default('https://github.com/kinetrace/kinetrace/blob/main/docs/privacy.md'),
  LINK_BUG_REPORT: z.string().default('https://github.com/kinetrace/kinetrace/issues'),
  LINK_GET_STARTED: z.string().default('https://github.com/kinetrace/kinetrace#quick-start'),
});

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  smtpUrl?: string;
  mailFrom: string;
  /** The address users reach the app at; e-mailed links and the phones' QR codes start with it. */
  publicUrl: string;
  /** Serve HTTPS with a self-signed certificate for the LAN address (phones need https for the camera). */
  https: boolean;
  trustProxy: boolean;
  logLevel: string;
  instance: {
    provider_name: string;
    public_url: string;
    contact_email: string;
    links: {
      forum: string;
      source_code: string;
      processing_code: string;
      best_practices: string;
      faq: string;
      terms: string;
      privacy: string;
      bug_report: string;
      get_started: string;
    };
  };
}

/** Reads the environment; `--https` on the command line is the same as HTTPS=true. */
export function loadConfig(
  environment: Record<string, string | undefined>,
  argv: readonly string[] = [],
): ServerConfig {
  const env = environmentSchema.parse(
    Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== '')),
  );
  const https = env.HTTPS || argv.includes('--https');
  const defaultPublicUrl = https
    ? `https://${lanAddress() ?? 'localhost'}:${env.PORT}`
    : `http://localhost:${env.PORT}`;
  const publicUrl = (env.PUBLIC_URL ?? defaultPublicUrl).replace(/\/+$/, '');
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir: resolve(env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    publicUrl,
    https,
    trustProxy: env.TRUST_PROXY,
    logLevel: env.LOG_LEVEL,
    instance: {
      provider_name: env.PROVIDER_NAME,
      public_url: publicUrl,
      contact_email: env.PROVIDER_CONTACT_EMAIL,
      links: {
        forum: env.LINK_FORUM,
        source_code: env.LINK_SOURCE_CODE,
        processing_code: env.LINK_PROCESSING_CODE,
        best_practices: env.LINK_BEST_PRACTICES,
        faq: env.LINK_FAQ,
        terms: env.LINK_TERMS,
        privacy: env.LINK_PRIVACY,
        bug_report: env.LINK_BUG_REPORT,
        get_started: env.LINK_GET_STARTED,
      },
    },
  };
}
