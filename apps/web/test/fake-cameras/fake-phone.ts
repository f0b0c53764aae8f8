import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../browser-harness.ts';

/**
 * A phone: its own chromium process whose camera plays a video file. Chromium plays one file for the
 * life of the process, so filming something else means starting the phone again; its profile folder
 * keeps the page's local storage (the capture page's device id), so the restarted phone is the same
 * camera to the server and stays paired. Each phone names its own model in its (Android) user agent, so
 * a lens calibration can be kept for it.
 */
export class FakePhone {
  private context: BrowserContext | null = null;

  constructor(
    readonly name: string,
    private readonly profileDir: string,
  ) {}

  /** The phone's model, as the capture page reads it from the Android user agent. */
  get deviceModel(): string {
    return `Kinetrace test phone ${this.name}`;
  }

  private get userAgent(): string {
    return `Mozilla/5.0 (Linux; Android 14; ${this.deviceModel}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36`;
  }

  /** Starts the phone (again) with `video` as its camera and opens `url`. */
  async open(video: string, url: string): Promise<Page> {
    await this.close();
    this.context = await chromium.launchPersistentContext(this.profileDir, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        ...CHROMIUM_ARGS,
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-video-capture=${video}`,
      ],
      userAgent: this.userAgent,
      viewport: { width: 390, height: 844 },
    });
    this.context.setDefaultTimeout(20_000);
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    await page.goto(url);
    return page;
  }

  /** Another page of the running phone (same profile), e.g. to open a link the phone was given. */
  async newPage(url: string): Promise<Page> {
    if (!this.context) throw new Error(`Phone ${this.name} is not running`);
    const page = await this.context.newPage();
    await page.goto(url);
    return page;
  }

  /** Switches the phone off (the server loses it after its polling stops). */
  async close(): Promise<void> {
    const context = this.context;
    this.context = null;
    await context?.close();
  }
}
