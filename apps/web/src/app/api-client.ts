import { API_PREFIX, errorText, messages } from '@kinetrace/contracts';
import type { z } from 'zod';
import { authStore } from './auth-store.ts';

/** A call the server answered with an error status; `body` is its JSON (field-keyed lists or `{detail}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(errorText(body, `Request failed with status ${status}.`));
    this.name = 'ApiError';
  }
}

/** The server could not be reached at all (§8). */
export class NetworkError extends Error {
  constructor() {
    super(messages.networkFailure);
    this.name = 'NetworkError';
  }
}

/** A query string (with its `?`) of the defined values, or '' when there are none. */
export const queryString = (params: Record<string, unknown>) => {
  const entries = Object.entries(params).filter(([, value]) => value !== undefined && value !== null);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)]))}`;
};

interface RequestOptions<Schema extends z.ZodType> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** A JSON body, or a FormData for multipart uploads. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The answer's schema from the contracts; the answer is parsed with it. */
  schema: Schema;
}

/**
 * Calls `/api<path>` with the stored token. A 401 on a call that carried a token means the login is over
 * (expired or revoked): the auth state is cleared, and the navigation guard takes the user to Login.
 */
export async function apiRequest<Schema extends z.ZodType>(
  path: string,
  options: RequestOptions<Schema>,
): Promise<z.output<Schema>> {
  const { token } = authStore.get();
  const headers: Record<string, string> = { ...options.headers };
  if (token) headers.Authorization = `Token ${token}`;
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}${path}`, {
      method: options.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
    });
  } catch {
    throw new NetworkError();
  }
  const text = await response.text();
  let json: unknown = text;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page, for instance): keep the text for the error toast.
  }
  if (!response.ok) {
    if (response.status === 401 && token) authStore.loggedOut();
    throw new ApiError(response.status, json);
  }
  return options.schema.parse(json);
}
