import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from '../../scripts/precompress-plugin.ts';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * `npm run build:web` (vite build apps/web) writes the app to apps/web/dist, which the server serves at `/`
 * with a history-mode fallback to index.html. In development (`npx vite apps/web`) the dev server proxies
 * `/api` to the server on http://localhost:8080, so the browser sees one origin as in production.
 */
export default defineConfig({
  root: webRoot,
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // .vite/manifest.json: which chunks the page loads at once (apps/server/test/security-headers.test.ts).
    manifest: true,
    // Modules run in the order they are imported, whichever chunk holds them: zod must be told not to use eval
    // (src/app/zod-without-eval.ts, the first import) before any schema is made.
    rolldownOptions: { output: { strictExecutionOrder: true } },
  },
  // The capture page's pose worker (src/capture/phone-pose-worker.ts) is a module worker, as it is created.
  worker: { format: 'es' },
  server: {
    proxy: { '/api': 'http://localhost:8080' },
  },
});
