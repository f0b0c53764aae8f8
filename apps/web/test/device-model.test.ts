import { describe, expect, it } from 'vitest';
import { modelFromUserAgent } from '../src/capture/device-model.ts';

describe('the phone model the capture page reports for lens calibrations', () => {
  it('reads the model from Android user agents, with or without a build id', () => {
    expect(
      modelFromUserAgent(
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
      ),
    ).toBe('Pixel 8');
    expect(
      modelFromUserAgent(
        'Mozilla/5.0 (Linux; Android 9; SM-G960F Build/PPR1.180610.011; wv) AppleWebKit/537.36 Chrome/74.0 Mobile Safari/537.36',
      ),
    ).toBe('SM-G960F');
  });

  it('gives none where the user agent hides the model or names only the family', () => {
    expect(
      modelFromUserAgent('Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36'),
    ).toBeNull();
    expect(modelFromUserAgent('Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0')).toBeNull();
    expect(
      modelFromUserAgent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Version/17.4 Mobile/15E148 Safari/604.1',
      ),
    ).toBeNull();
    expect(
      modelFromUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36'),
    ).toBeNull();
  });
});
