import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createdPersonalTokenSchema,
  createPersonalTokenRequestSchema,
  messageResponseSchema,
  messages,
  personalTokenPaths,
  personalTokenSchema,
  serialIdParams,
} from '@kinetrace/contracts';
import { requireBrowserLogin } from '../http/authentication.ts';
import type { PersonalTokenService } from '../services/personal-token-service.ts';

const tags = ['Account'];

/** Personal API tokens, managed from the Profile page by a browser login (issue 22). */
export function registerPersonalTokenRoutes(app: FastifyInstance, tokens: PersonalTokenService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(personalTokenPaths.list, { schema: { tags, response: { 200: z.array(personalTokenSchema) } } }, (request) =>
    tokens.list(requireBrowserLogin(request)),
  );

  api.post(
    personalTokenPaths.list,
    { schema: { tags, body: createPersonalTokenRequestSchema, response: { 201: createdPersonalTokenSchema } } },
    async (request, reply) => reply.code(201).send(await tokens.create(requireBrowserLogin(request), request.body)),
  );

  api.post(
    personalTokenPaths.revoke(':id'),
    { schema: { tags, params: serialIdParams, response: { 200: messageResponseSchema } } },
    async (request) => {
      await tokens.revoke(requireBrowserLogin(request), request.params.id);
      return { message: messages.personalTokenRevoked };
    },
  );
}
