/**
 * OpenCV.js (`@techstark/opencv-js`, WASM) loaded once, lazily. The package's CommonJS export is
 * a "thenable" Emscripten module: `await import()` of it never settles under some loaders (vitest:
 * the promise keeps adopting the thenable, which resolves to itself), so it is loaded with
 * require() and its `then` is called by hand, then dropped. Loading takes about a second.
 */
import { createRequire } from 'node:module';
import type * as OpenCv from '@techstark/opencv-js';

export type Cv = typeof OpenCv;

let loading: Promise<Cv> | null = null;

export function loadOpenCv(): Promise<Cv> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const module = require('@techstark/opencv-js') as Record<string, unknown> & { then?: unknown };
    if (typeof module.Mat === 'function') {
      delete module.then;
      return module as unknown as Cv;
    }
    if (typeof module.then === 'function') {
      return await new Promise<Cv>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('OpenCV.js did not initialise within 60 s')), 60_000);
        (module.then as (cb: (m: Record<string, unknown>) => void) => void)((ready) => {
          clearTimeout(timer);
          delete ready.then; // otherwise awaiting the module would recurse forever
          resolve(ready as unknown as Cv);
        });
      });
    }
    return await new Promise<Cv>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('OpenCV.js did not initialise within 60 s')), 60_000);
      module.onRuntimeInitialized = () => {
        clearTimeout(timer);
        resolve(module as unknown as Cv);
      };
    });
  })();
  return loading;
}
