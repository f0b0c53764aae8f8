import type { TestApp } from './test-app.ts';

/** The OpenAPI document the server serves (GET /api/docs/json): its route list, for tests that must cover every route. */
export interface OpenApiParameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: { type?: string; format?: string };
}
export interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}
export interface Operation {
  method: string;
  path: string;
  operation: OpenApiOperation;
}

/**
 * Operations that remove data or end the caller's login, in the order they run after all others:
 * the smaller things first, so that each still finds what it acts on.
 */
const DESTRUCTIVE = [
  /^\/api\/trials\/\{id\}\/trash\//,
  /^\/api\/trials\/\{id\}\/permanent_remove\//,
  /^\/api\/subjects\/\{id\}\/trash\//,
  /^\/api\/subjects\/\{id\}\/permanent_remove\//,
  /^\/api\/sessions\/empty_trash\//,
  /^\/api\/sessions\/\{id\}\/trash\//,
  /^\/api\/sessions\/\{id\}\/permanent_remove\//,
  /^\/api\/delete-account\//,
  /^\/api\/logout\//,
];
const destructiveRank = ({ path }: Operation) => DESTRUCTIVE.findIndex((pattern) => pattern.test(path)) + 1;

/** Every API operation of the served document (not the docs' own), the destructive ones last (stable sort: document order otherwise). */
export async function apiOperations(test: TestApp): Promise<Operation[]> {
  const document = (await test.call({ method: 'GET', url: '/api/docs/json' })).json() as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  return Object.entries(document.paths)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method, path, operation })))
    .filter(({ path }) => path.startsWith('/api/') && !path.startsWith('/api/docs'))
    .sort((a, b) => destructiveRank(a) - destructiveRank(b));
}

/** The owner's rows a path's parameters name. */
export interface OwnedIds {
  session: string;
  trial: string;
  subject: string;
  user: string;
  pairingToken: string;
  /** A background task of the owner's (an async download). */
  task: string;
}

/** A value for a path parameter that names the owner's data, so that only what a test changes is wrong. */
export function pathValue(path: string, name: string, ids: OwnedIds): string {
  if (name === 'id') {
    if (/^\/api\/(trials|trial-tags)\//.test(path)) return ids.trial;
    if (/^\/api\/(subjects|subject-tags)\//.test(path)) return ids.subject;
    if (/^\/api\/sessions\//.test(path)) return ids.session;
    return '1';
  }
  const known: Record<string, string> = {
    trialId: ids.trial,
    taskId: ids.task,
    task_id: ids.task,
    pairingToken: ids.pairingToken,
    userId: ids.user,
    fileName: '0123456789abcdef.png',
    // A worker's lease of the owner's trial (the worker API: its job and attempt are the queue's).
    lease: `${ids.trial}.00000000-0000-4000-8000-000000000000.0`,
    '*': `sessions/${ids.session}/trials/${ids.trial}/results/walk.mot`,
  };
  return known[name] ?? '1';
}

/** The URL of an operation with its path parameters filled in (a wildcard keeps its slashes). */
export const urlOf = (path: string, values: Record<string, string>, query = '') =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === '*' ? values[name] : encodeURIComponent(values[name]))) +
  (query ? `?${query}` : '');

export const pathValuesOf = ({ path, operation }: Operation, ids: OwnedIds) =>
  Object.fromEntries(
    (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, pathValue(path, p.name, ids)]),
  );
