/** Chromium's User-Agent Client Hints (not in TypeScript's DOM types yet). */
interface UserAgentData {
  getHighEntropyValues(hints: string[]): Promise<{ model?: string }>;
}

const MAX_MODEL_LENGTH = 100;

/**
 * The phone's model from a user-agent string: Android browsers name it ("Linux; Android 14; Pixel 8"),
 * except in reduced user agents ("K") and Firefox. iPhones and iPads only say "iPhone"/"iPad", the same
 * for every model, so they give none (a lens calibration of one iPhone would not fit another).
 */
export function modelFromUserAgent(userAgent: string): string | null {
  const android = /Android [^;)]*;\s*([^;)]+?)(?:\s+Build\/[^;)]*)?\s*[;)]/.exec(userAgent);
  const model = android?.[1].trim();
  // "K": reduced user agent; Mobile/Tablet: Firefox, which never names the model; xx-yy: a locale.
  if (!model || ['K', 'Mobile', 'Tablet'].includes(model) || /^[a-z]{2}[-_][a-z]{2}$/i.test(model)) return null;
  return model.slice(0, MAX_MODEL_LENGTH);
}

/**
 * The phone's model where the browser tells it: Chromium's client hints (Android), else the user
 * agent; null when neither does. Lens calibrations are looked up by it.
 */
export async function deviceModel(): Promise<string | null> {
  const hints = (navigator as Navigator & { userAgentData?: UserAgentData }).userAgentData;
  if (hints) {
    const model = await hints
      .getHighEntropyValues(['model'])
      .then((values) => values.model?.trim())
      .catch(() => undefined);
    if (model) return model.slice(0, MAX_MODEL_LENGTH);
  }
  return modelFromUserAgent(navigator.userAgent);
}
