import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import { lanAddress } from './tls.ts';

/** proxy-addr's names for address ranges, which Fastify's trustProxy takes beside addresses and subnets. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * Which proxies' X-Forwarded-For entries to believe, as Fastify's trustProxy takes it: none (`false`),
 * how many proxies stand in front of the server (`true` is one: the client address is the entry the
 * nearest proxy added, whatever a client wrote before it), or which addresses they have (a list of
 * addresses, subnets and proxy-addr's named ranges). Never every entry: then any client picks its address.
 */
export type TrustProxy = false | number | string[];

/** The setting as Fastify takes it (its types leave out the hop count its runtime also accepts). */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

function parseTrustProxy(value: string, context: z.RefinementCtx): TrustProxy {
  const text = value.trim().toLowerCase();
  if (text === 'false' || text === '0') return false;
  if (text === 'true') return 1;
  if (/^\d+$/.test(text)) return Number(text);
  const proxies = text.split(',').map((entry) => entry.trim());
  const invalid = proxies.filter((entry) => !NAMED_RANGES.includes(entry) && !isAddressOrSubnet(entry));
  if (invalid.length === 0) return proxies;
  context.addIssue({
    code: 'custom',
    message: `TRUST_PROXY takes false, the number of proxies in front of the server (1 for one reverse proxy), or their addresses separated by commas (such as 10.0.0.5, 10.0.0.0/8, loopback); not ${invalid.join(', ')}`,
  });
  return z.NEVER;
}

function isAddressOrSubnet(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

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
  TRUST_PROXY: z.string().default('false').transform(parseTrustProxy),
  WORKERS: z.enum(['embedded', 'remote']).default('embedded'),
  WORKER_LEASE_TIMEOUT_S: z.coerce.number().min(1).max(3600).default(60),
  PHONE_KEYPOINTS: z
    .enum(['on', 'off'], 'PHONE_KEYPOINTS takes on (phones send their 2D keypoints, checked before use) or off')
    .default('on')
    .transform((value) => value === 'on'),
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
  S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'S3_BUCKET takes a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens',
    )
    .optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'], 'S3_FORCE_PATH_STYLE takes true (the bucket in the path, as MinIO wants) or false')
    .default('false')
    .transform((value) => value === 'true'),
  AWS_ENDPOINT_URL_S3: z
    .url({ protocol: /^https?$/, error: "AWS_ENDPOINT_URL_S3 takes the store's URL, such as http://minio:9000" })
    .optional(),
  AWS_ENDPOINT_URL: z
    .url({ protocol: /^https?$/, error: "AWS_ENDPOINT_URL takes the store's URL, such as http://minio:9000" })
    .optional(),
  AWS_REGION: z.string().optional(),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
});

/** A configuration the server cannot start with: each wrong variable named, with what it takes. */
export class ConfigError extends Error {}

/**
 * The S3-compatible store that S3_BUCKET selects, with the AWS SDK's own variables for the rest: the
 * endpoint (none: AWS itself), the region (us-east-1, the name most other stores answer to, when an
 * endpoint is given) and the key pair (none: the SDK's usual chain, such as an instance role).
 */
export interface ObjectStoreConfig {
  bucket: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

function objectStoreOf(env: z.infer<typeof environmentSchema>): ObjectStoreConfig | undefined {
  if (!env.S3_BUCKET) return undefined;
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const region = env.AWS_REGION ?? (endpoint ? 'us-east-1' : undefined);
  if (!region)
    throw new ConfigError(
      "S3_BUCKET needs AWS_REGION (the bucket's region, such as eu-west-1), or AWS_ENDPOINT_URL_S3 for a store other than AWS",
    );
  if (!env.AWS_ACCESS_KEY_ID !== !env.AWS_SECRET_ACCESS_KEY)
    throw new ConfigError(
      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together: set both, or neither to use the instance's role",
    );
  return {
    bucket: env.S3_BUCKET,
    endpoint,
    region,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    ...(env.AWS_ACCESS_KEY_ID && {
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
    }),
  };
}

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
  /** Whose X-Forwarded-For to believe for the client's address (rate limits): see TrustProxy. */
  trustProxy: TrustProxy;
  logLevel: string;
  /** Where files and uploads go when not on local disk (S3_BUCKET). */
  objectStore?: ObjectStoreConfig;
  /**
   * Who runs the processing pipeline: this process ('embedded', the default) or remote workers that lease
   * jobs over the worker API ('remote': this process runs no pipeline).
   */
  workers: 'embedded' | 'remote';
  /** A job whose attempt (a remote worker's lease) is silent this long goes back to the queue. */
  leaseTimeoutS: number;
  /**
   * Whether phones find their 2D keypoints in their browser and send them with their videos (PHONE_KEYPOINTS,
   * issue 24); a session's Advanced Settings may turn them off, never on where this is off.
   */
  phoneKeypoints: boolean;
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
  const parsed = environmentSchema.safeParse(
    Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== '')),
  );
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues
        .map(({ path, message }) => (message.startsWith(String(path[0])) ? message : `${path.join('.')}: ${message}`))
        .join('\n'),
    );
  const env = parsed.data;
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
    objectStore: objectStoreOf(env),
    workers: env.WORKERS,
    leaseTimeoutS: env.WORKER_LEASE_TIMEOUT_S,
    phoneKeypoints: env.PHONE_KEYPOINTS,
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
