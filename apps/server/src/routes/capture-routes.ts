import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  captureStateSchema,
  connectDeviceRequestSchema,
  connectDeviceResponseSchema,
  deviceIdField,
  serverTimeSchema,
} from '@kinetrace/contracts';
import type { CaptureService } from '../services/capture-service.ts';

const tags = ['Capture (phones)'];
const tokenParams = z.object({ pairingToken: z.string().min(10).max(200) });

/** The phone's calls: no login, the pairing token of the session's QR code is the credential. */
export function registerCaptureRoutes(app: FastifyInstance, capture: CaptureService, now: () => Date): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/capture/time/', { schema: { tags, response: { 200: serverTimeSchema } } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { server_time_ms: now().getTime() };
  });

  api.post(
    '/capture/:pairingToken/connect/',
    {
      schema: {
        tags,
        params: tokenParams,
        body: connectDeviceRequestSchema,
        response: {
          200: connectDeviceResponseSchema,
        },
      },
    },
    (request) => capture.connect(request.params.pairingToken, request.body),
  );

  api.get(
    '/capture/:pairingToken/state/',
    {
      schema: {
        tags,
        params: tokenParams,
        querystring: z.object({ device_id: deviceIdField }),
        response: { 200: captureStateSchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return capture.state(request.params.pairingToken, request.query.device_id);
    },
  );
}
