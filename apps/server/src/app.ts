import type { Writable } from 'node:stream';
import fastifyMultipart from '@fastify/multipart';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { API_PREFIX, PROFILE_PICTURE_MAX_BYTES, WORKER_API_PREFIX } from '@kinetrace/contracts';
import { settingChoices } from '@kinetrace/processing/processing-settings';
import { createAnalysisJob } from './analyses/analysis-job.ts';
import { createAnalysisRepository } from './analyses/analysis-repository.ts';
import { registerAnalysisRoutes } from './analyses/analysis-routes.ts';
import { createAnalysisService } from './analyses/analysis-service.ts';
import type { Backends } from './backends.ts';
import type { JobAttempt } from './jobs/job-kinds.ts';
import { fastifyTrustProxy, type ServerConfig } from './config.ts';
import { registerAuthentication } from './http/authentication.ts';
import { answerFrameworkError, registerErrorHandler } from './http/error-handler.ts';
import { registerTusUploads } from './http/tus-uploads.ts';
import { docsContentSecurityPolicy, registerSecurityHeaders } from './http/security-headers.ts';
import { serializeRequest } from './http/request-log.ts';
import { createProcessingRepository } from './processing/processing-repository.ts';
import { registerProcessingRoutes } from './processing/processing-routes.ts';
import { createProcessingService } from './processing/processing-service.ts';
import { registerWorkerRoutes } from './processing/worker-routes.ts';
import { createWorkerService } from './processing/worker-service.ts';
import { createWorkerTokensRepository } from './processing/worker-tokens-repository.ts';
import { createAuthRepository } from './repositories/auth-repository.ts';
import { createDevicesRepository } from './repositories/devices-repository.ts';
import { createLensCalibrationsRepository } from './repositories/lens-calibrations-repository.ts';
import { createRateEventsRepository } from './repositories/rate-events-repository.ts';
import { createSecretsRepository } from './repositories/secrets-repository.ts';
import { changeCacheFor, SESSION_LIST_CHANGES, SIGN_IN_CHANGES } from './repositories/change-cache.ts';
import { createSessionsRepository } from './repositories/sessions-repository.ts';
import { createSubjectsRepository } from './repositories/subjects-repository.ts';
import { createTasksRepository } from './repositories/tasks-repository.ts';
import { createTrialsRepository } from './repositories/trials-repository.ts';
import { createUsersRepository } from './repositories/users-repository.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerPersonalTokenRoutes } from './routes/personal-token-routes.ts';
import { registerInstanceRoutes } from './routes/instance-routes.ts';
import { registerCaptureRoutes } from './routes/capture-routes.ts';
import { registerMediaRoutes } from './routes/media-routes.ts';
import { registerProcessingImportRoutes } from './routes/processing-import-routes.ts';
import { registerRecordingRoutes } from './routes/recording-routes.ts';
import { registerSessionRoutes } from './routes/session-routes.ts';
import { registerSubjectRoutes } from './routes/subject-routes.ts';
import { registerTagListRoutes } from './routes/tag-list-routes.ts';
import { registerTrialRoutes } from './routes/trial-routes.ts';
import { registerPoseModelFiles } from './routes/pose-model-files.ts';
import { registerWebApp } from './routes/web-app.ts';
import { createAccountService } from './services/account-service.ts';
import { createArchiveService } from './services/archive-service.ts';
import { createAuthService } from './services/auth-service.ts';
import { createPersonalTokenService } from './services/personal-token-service.ts';
import { createCalibrationImportService } from './services/calibration-import-service.ts';
import { createCaptureService } from './services/capture-service.ts';
import { createDownloadService } from './services/download-service.ts';
import { createLensCalibrationService } from './services/lens-calibration-service.ts';
import { createMediaUrlSigner } from './services/media-urls.ts';
import { createRecordingService } from './services/recording-service.ts';
import { createRemoval } from './services/removal.ts';
import { createRetentionService } from './services/retention-service.ts';
import { createOpenCapSessions } from './services/opencap-session.ts';
import { createSessionService } from './services/session-service.ts';
import { createImportStaging, createMemoryConcurrencySlots } from './services/import-staging.ts';
import { createStagedUploads } from './services/staged-uploads.ts';
import { createSubjectService } from './services/subject-service.ts';
import { createTrialService } from './services/trial-service.ts';
import { createVideoIntake } from './services/video-intake.ts';
import { createRateLimiter } from './services/rate-limiter.ts';
import { createUploadParserThreads } from './upload-parsing/upload-parser-thread.ts';

export interface AppOptions {
  /** The clock the rules run on (tests move it to check expiries). */
  now?: () => Date;
  /** Where the log goes (standard output by default). */
  logStream?: Writable;
  /** TLS key and certificate when serving HTTPS. */
  tls?: { key: string; cert: string };
  /**
   * Run background jobs in this process (the embedded default); false for a server whose workers run
   * elsewhere; 'after-listen' when the caller starts them with `startJobs` once the port is bound, so that
   * a server that cannot serve never recovers (takes over) anyone's jobs.
   */
  runJobs?: boolean | 'after-listen';
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Starts the app's background jobs, when `runJobs: 'after-listen'` left them to the caller (once). */
    startJobs(): Promise<void>;
  }
}

/** Wires repositories, services and routes over the given backends into one Fastify app. */
export async function buildApp(
  config: ServerConfig,
  backends: Backends,
  options: AppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.tls ? { https: options.tls } : {}),
    logger: {
      level: config.logLevel,
      serializers: { req: serializeRequest },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 1024 * 1024,
    frameworkErrors: answerFrameworkError,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);

  const { db } = backends.database;
  const { files, staging, queue } = backends;
  const users = createUsersRepository(db);
  // On the embedded database, sign-ins and session lists are kept in memory until the database notifies a change.
  const auth = createAuthRepository(db, await changeCacheFor(backends.database, SIGN_IN_CHANGES));
  const sessions = createSessionsRepository(db, await changeCacheFor(backends.database, SESSION_LIST_CHANGES));
  const subjects = createSubjectsRepository(db);
  const trials = createTrialsRepository(db);
  const tasks = createTasksRepository(db);
  const devices = createDevicesRepository(db);
  const lensCalibrations = createLensCalibrationsRepository(db);
  const now = options.now ?? (() => new Date());
  const media = createMediaUrlSigner(
    await createSecretsRepository(db).getOrCreate('media-url-signing'),
    config.publicUrl,
    now,
    {
      sessions,
      subjects,
      trials,
    },
  );
  const rateLimiter = createRateLimiter(createRateEventsRepository(db), () => now().getTime());
  const stagedUploads = createStagedUploads({ staging, trials, now });
  const removal = createRemoval({ users, sessions, trials, subjects, tasks, files, stagedUploads });
  const common = {
    users,
    auth,
    mailer: backends.mailer,
    rateLimiter,
    providerName: config.instance.provider_name,
    now,
  };
  const authService = createAuthService({ ...common, publicUrl: config.publicUrl });
  const accountService = createAccountService({ ...common, files, removal, publicUrl: config.publicUrl });
  const openCap = createOpenCapSessions({ sessions, subjects, trials, files });
  const sessionService = createSessionService({
    openCap,
    sessions,
    subjects,
    trials,
    devices,
    files,
    removal,
    media,
    captureUrl: (pairingToken) => `${config.publicUrl}/capture/${pairingToken}`,
    settingChoices: () => settingChoices(config.dataDir),
    phoneKeypoints: config.phoneKeypoints,
    now,
  });
  const trialService = createTrialService({ trials, sessionService, removal, media, now });
  const subjectService = createSubjectService({ subjects, sessions, now });
  const archives = createArchiveService({ sessions, trials, files, openCap });
  const downloadService = createDownloadService({
    tasks,
    files,
    queue,
    archives,
    sessionService,
    sessions,
    subjects,
    media,
    rateLimiter,
    now,
  });
  const retention = createRetentionService({ trials, sessions, subjects, tasks, files, removal, now });
  const processingRepository = createProcessingRepository(db);
  const remoteWorkers = config.workers === 'remote';
  const processing = createProcessingService({
    trials,
    sessions,
    subjects,
    files,
    queue,
    repository: processingRepository,
    lensFor: lensCalibrations.lensFor,
    // Remote workers detect a trial's videos when they lease it: the server runs no pose model (issue 24).
    detectOnArrival: !remoteWorkers,
    sessionService,
    dataDir: config.dataDir,
    // Remote workers' leases outlive a restart of the server.
    singleProcess: backends.database.kind === 'pglite' && !remoteWorkers,
    staleAfterMs: config.leaseTimeoutS * 1000,
    log: app.log,
    now,
  });
  const workerService = createWorkerService({
    processing,
    repository: processingRepository,
    queue,
    trials,
    files,
    tokens: createWorkerTokensRepository(db),
    linkSecret: await createSecretsRepository(db).getOrCreate('worker-input-links'),
    leasesJobs: remoteWorkers,
    leaseTimeoutS: config.leaseTimeoutS,
    log: app.log,
    now,
  });
  const intake = createVideoIntake({ trials, files, processing, log: app.log, now });
  const recordingService = createRecordingService({
    trials,
    devices,
    subjects,
    sessionService,
    intake,
    media,
    removal,
    stagedUploads,
    startedAt: now(),
    now,
  });
  const importStaging = createImportStaging({ staging, slots: createMemoryConcurrencySlots(), sessionService });
  const uploadParsers = createUploadParserThreads();
  app.addHook('onClose', () => uploadParsers.close());
  const calibrationImport = createCalibrationImportService({
    trials,
    files,
    removal,
    sessionService,
    parsers: uploadParsers,
    now,
  });
  const lensCalibrationService = createLensCalibrationService({ lenses: lensCalibrations, parsers: uploadParsers });
  const captureService = createCaptureService({
    sessions,
    trials,
    devices,
    files,
    recording: recordingService,
    intake,
    phoneKeypoints: config.phoneKeypoints,
    now,
  });
  const analysisRepository = createAnalysisRepository(db);
  const analysisService = createAnalysisService({
    analyses: analysisRepository,
    trials,
    subjects,
    sessionService,
    trialService,
    queue,
    media,
  });

  const analysisJob = createAnalysisJob({
    analyses: analysisRepository,
    trials,
    subjects,
    files,
    queue,
    singleProcess: backends.database.kind === 'pglite',
    log: app.log,
  });
  let jobsStarted = false;
  /** Takes jobs from the queue, recovers those a stopped process left, and schedules the clean-ups. */
  async function startJobs(): Promise<void> {
    if (jobsStarted || options.runJobs === false) return;
    jobsStarted = true;
    await queue.work(
      {
        'analyse-trial': (payload, attempt) => analysisJob.run(payload, attempt),
        'archive-download': (payload) => downloadService.runArchiveJob(payload),
        'clean-uploads': async () => {
          const report = await stagedUploads.cleanUp();
          app.log.info({ report }, 'staged uploads cleaned');
        },
        'purge-trash': async () => {
          const report = await retention.purge();
          app.log.info({ report }, 'recycle bin purged');
        },
        // WORKERS=remote: remote workers lease them over the worker API (worker-service.ts).
        ...(!remoteWorkers && {
          'process-trial': (payload: { trialId: string }, attempt: JobAttempt) => processing.runJob(payload, attempt),
        }),
      },
      remoteWorkers ? ['process-trial'] : [],
    );
    await processing.startRecovery();
    await analysisJob.startRecovery();
    await queue.schedule('purge-trash', '17 * * * *', {});
    // This process's staging folder is cleaned as it starts, and on the shared schedule every 15 minutes.
    await stagedUploads.cleanUp();
    await queue.schedule('clean-uploads', '*/15 * * * *', {});
  }
  app.addHook('onClose', async () => {
    await analysisJob.stop();
    await processing.stop();
  });

  await registerSecurityHeaders(app, config.publicUrl);
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Kinetrace API', version: '0.1.0', description: 'Markerless motion capture from phone videos.' },
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'Authorization' },
          // The worker API's (`Authorization: Token <worker token>`): a user's token is refused there, and a worker's everywhere else.
          workerToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
        },
      },
      security: [{ token: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: `${API_PREFIX}/docs`,
    staticCSP: docsContentSecurityPolicy(config.publicUrl),
  });

  await app.register(
    async (api) => {
      await api.register(fastifyMultipart, { limits: { fileSize: PROFILE_PICTURE_MAX_BYTES, files: 1, fields: 10 } });
      registerAuthentication(api, authService);
      registerInstanceRoutes(api, config.instance);
      registerAccountRoutes(api, authService, accountService);
      registerPersonalTokenRoutes(api, createPersonalTokenService(auth, now));
      registerSessionRoutes(api, sessionService, downloadService);
      registerTrialRoutes(api, trialService);
      registerSubjectRoutes(api, subjectService, downloadService);
      registerMediaRoutes(api, files, media, downloadService, openCap);
      registerRecordingRoutes(api, recordingService, trialService, importStaging);
      registerCaptureRoutes(api, captureService, now);
      registerProcessingRoutes(api, processing);
      registerAnalysisRoutes(api, analysisService);
      registerProcessingImportRoutes(api, {
        calibrationImport,
        sessions: sessionService,
        lenses: lensCalibrationService,
        staging: importStaging,
      });
    },
    { prefix: API_PREFIX },
  );
  await app.register(async (workerApi) => registerWorkerRoutes(workerApi, workerService), {
    prefix: WORKER_API_PREFIX,
  });
  registerTusUploads(app, captureService, staging, backends.uploadLocker, config.trustProxy !== false);
  registerTagListRoutes(app);
  await registerPoseModelFiles(app);
  await registerWebApp(app);
  app.decorate('startJobs', startJobs);
  if (options.runJobs !== 'after-listen') await startJobs();
  return app;
}
