import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { instanceInfoSchema, instancePaths, type InstanceInfo } from '@kinetrace/contracts';

export function registerInstanceRoutes(app: FastifyInstance, info: InstanceInfo): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(instancePaths.info, { schema: { tags: ['Instance'], response: { 200: instanceInfoSchema } } }, () => info);
}
