import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { messages, type FieldErrors } from '@kinetrace/contracts';
import { isOutOfSpace, OUT_OF_SPACE_STATUS } from '../storage/out-of-space.ts';
import { HttpError } from './http-errors.ts';

/** What the multipart parser (@fastify/busboy) throws for a body cut short or not in its declared format: the client's fault. */
const BROKEN_MULTIPART = /unexpected end of multipart data|Boundary not found/i;

/**
 * One place turns failures into answers: 404 for a path that names nothing, field-keyed 400s for
 * invalid input (a body that cannot be read at all under `non_field_errors`), the service's own
 * status for rule violations, the framework's other 4xx as `{ detail }`, 507 for a full disk, and a bare
 * 500 (logged) otherwise.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).headers(error.headers).send(error.body);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      // A path naming something that cannot exist (an id out of range, not a uuid) names nothing.
      if (error.validationContext === 'params') return reply.code(404).send({ detail: messages.notFound });
      const fields: FieldErrors = {};
      // A value of the wrong type gets that message alone (zod also runs length checks on a list sent for a text).
      const wrongType = new Set(
        error.validation.filter((issue) => issue.keyword === 'invalid_type').map((issue) => issue.instancePath),
      );
      for (const issue of error.validation) {
        if (wrongType.has(issue.instancePath) && issue.keyword !== 'invalid_type') continue;
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        (fields[path || 'non_field_errors'] ??= []).push(issue.message ?? 'Invalid value.');
      }
      return reply.code(400).send(fields);
    }
    // Routes outside the API's scope (the tus uploads) have no multipart parser, hence no isMultipart.
    const multipart = typeof request.isMultipart === 'function' && request.isMultipart();
    if (multipart && error.statusCode === undefined && BROKEN_MULTIPART.test(error.message)) {
      return reply
        .code(400)
        .send({ non_field_errors: ['The upload is incomplete or malformed. Please send the files again.'] });
    }
    const status = error.statusCode ?? 500;
    if (status === 400) {
      const unreadable = error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY';
      return reply
        .code(400)
        .send({ non_field_errors: [unreadable ? 'The request body is not valid JSON.' : error.message] });
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ detail: error.message });
    }
    request.log.error({ err: error }, 'request failed');
    // A full disk is the server's state, said as such (507), not a failure of the request.
    if (isOutOfSpace(error)) return reply.code(OUT_OF_SPACE_STATUS).send({ detail: messages.serverOutOfSpace });
    return reply.code(500).send({ detail: 'Something went wrong on the server. Please try again.' });
  });
}

/**
 * What the router answers before any route runs (Fastify's `frameworkErrors` option): a path that
 * cannot be decoded or has a segment longer than any id names nothing, so 404 like any such path,
 * without Fastify's error code or the path echoed back.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(404).send({ detail: messages.notFound });
    return;
  }
  request.log.error({ err: error }, 'request failed');
  void reply.code(500).send({ detail: 'Something went wrong on the server. Please try again.' });
}
