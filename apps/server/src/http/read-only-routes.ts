import { API_PREFIX } from '@kinetrace/contracts';

/**
 * The routes a read-only personal token may call, as Fastify names them (method and path with `:params`).
 * Every other route refuses it: a route is left out unless it is listed, so a new route is closed to
 * read-only tokens until someone decides it only reads. The method does not decide: several GETs write
 * (the spec's GET /sessions/new/, set_subject/, record/, stop/; status/ and the images advance a recording)
 * and two POSTs only read (get_user_info/, the web's session list on sessions/valid/). An archive download
 * makes a file and a task row, and changes nothing of its owner's data: it reads.
 * The authorization matrix (apps/server/test/authorization-matrix.test.ts) checks each route against it.
 */
const READ_ROUTES = [
  'GET /instance/',
  'GET /me/',
  'POST /get_user_info/',
  'GET /sessions/',
  'GET /sessions/valid/',
  'POST /sessions/valid/',
  'GET /sessions/search_sessions/',
  'GET /sessions/recycle_bin/',
  'GET /sessions/:id/',
  'GET /sessions/:id/get_session_settings/',
  'GET /sessions/:id/download/',
  'GET /sessions/:id/async-download/',
  'GET /logs/:taskId/on-ready/',
  'GET /trials/:id/',
  'GET /trial-tags/:id/get_tags_trial/',
  'GET /subjects/',
  'GET /subjects/:id/',
  'GET /subject-tags/:id/get_tags_subject/',
  'GET /subjects/:id/download/',
  'GET /subjects/:id/async-download/',
  'GET /media/profile-pictures/:userId/:fileName',
  'GET /media/files/*',
  'GET /capture/time/',
  'GET /lens-calibrations/',
  'GET /analysis-functions/',
  'GET /analysis-results/states/',
  'GET /analysis-results/pending/',
  'GET /analysis-functions/:id/task-for-trial/:trialId/',
  'GET /analysis-result/:task_id/',
  'GET /analysis-dashboards/',
  'GET /analysis-dashboards/:id/',
  'GET /analysis-dashboards/:id/data/',
];
const readRoutes = new Set(READ_ROUTES.map((route) => route.replace(' ', ` ${API_PREFIX}`)));

/** Whether a read-only token may call the route (`url` as Fastify matched it, undefined when none did). */
export function readOnlyMayCall(method: string, url: string | undefined): boolean {
  // Fastify answers HEAD with its GET route.
  return url !== undefined && readRoutes.has(`${method === 'HEAD' ? 'GET' : method} ${url}`);
}
