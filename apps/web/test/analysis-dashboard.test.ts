import { readFileSync } from 'node:fs';
import {
  RESULT_TAGS,
  analysisResultTag,
  type AnalysisDashboard,
  type AnalysisFunction,
  type AnalysisResult,
  type Session,
  type Trial,
} from '@kinetrace/contracts';
import { readStorage } from '@kinetrace/mocap/formats/mot';
import { KinematicModel } from '@kinetrace/mocap/model/kinematic-model';
import { coordinatesFromMotion } from '@kinetrace/mocap/model/motion';
import { readOsim } from '@kinetrace/mocap/model/read-osim';
import { ikJson } from '@kinetrace/mocap/session/ik-json';
import { formatVisualizerJson, visualizerTransforms } from '@kinetrace/mocap/model/visualizer-json';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import {
  callApi,
  eventually,
  expectPath,
  makeUser,
  newContext,
  screenshot,
  startSignedIn,
  stopSignedIn,
  type SeedableServer,
} from './browser-harness.ts';

/** OpenCap's walking trial: its joint angles and the scaled model they were solved with. */
const walk = 'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8';
const fixture = {
  motion: `${walk}/OpenSimData/Kinematics/walk.mot`,
  model: `${walk}/OpenSimData/Model/LaiArnoldModified2017_poly_withArms_weldHand_scaled.osim`,
};
/** The subject of that session (its sessionMetadata.yaml). */
const SUBJECT = { height: 1.86, weight: 83 };
const PUBLIC_ALERT = 'To make your analysis public, you need to make your session public';

/** The visualizer JSON processing writes for a trial: forward kinematics of the model over the motion. */
function visualizerJsonOf(modelXml: string, motText: string): Buffer {
  const model = new KinematicModel(readOsim(modelXml));
  return Buffer.from(
    formatVisualizerJson(visualizerTransforms(model, coordinatesFromMotion(model, readStorage(motText)))),
  );
}

/** The figures a card or a bar label shows: "1.23 ± 0.04 m/s" gives [1.23, 0.04]. */
const figuresIn = (text: string) => [...text.matchAll(/-?\d+(?:\.\d+)?/g)].map((match) => Number(match[0]));

/** The card prints 2 decimals below 10, 1 below 100, none above: `shown` is `exact` rounded so. */
function expectShown(shown: number, exact: number, what: string) {
  const decimals = Math.abs(exact) >= 100 ? 0 : Math.abs(exact) >= 10 ? 1 : 2;
  expect(Math.abs(shown - exact), `${what}: ${shown} shown for ${exact}`).toBeLessThanOrEqual(
    0.5 * 10 ** -decimals + 1e-9,
  );
}

const section = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const scene = (page: Page) => page.getByTestId('viewer-scene');
const viewerTime = async (page: Page) => Number(await page.getByTestId('viewer-time').getAttribute('data-time'));

/** The dashboard shows the result: every metric as value ± SD, and a tick in the zone its value falls in. */
async function expectMetricsOf(page: Page, result: AnalysisResult): Promise<void> {
  const cards = section(page, 'Metrics');
  await cards.locator('[data-metric]').first().waitFor();
  for (const [key, metric] of Object.entries(result.metrics)) {
    const [value, std] = figuresIn(
      (await cards.locator(`[data-metric="${key}"]`).getByTestId('metric-value').textContent())!,
    );
    expectShown(value, metric.value, `${key} value`);
    expectShown(std, metric.std, `${key} SD`);
  }
}

async function expectTicksInTheirZones(page: Page, result: AnalysisResult): Promise<void> {
  for (const [key, metric] of Object.entries(result.metrics)) {
    const bar = section(page, 'Normal ranges').locator(`[data-metric-bar="${key}"]`);
    const zone =
      metric.min_limit !== null && metric.value < metric.min_limit
        ? 0
        : metric.max_limit !== null && metric.value > metric.max_limit
          ? 2
          : 1;
    const tick = (await bar.getByTestId('metric-tick').boundingBox())!;
    const band = (await bar.locator(`[title="${metric.classes[zone]}"]`).boundingBox())!;
    const tickX = tick.x + tick.width / 2;
    expect(tickX, `${key}'s tick in the "${metric.classes[zone]}" zone`).toBeGreaterThanOrEqual(band.x - 1);
    expect(tickX, `${key}'s tick in the "${metric.classes[zone]}" zone`).toBeLessThanOrEqual(band.x + band.width + 1);
  }
}

/**
 * The viewer's time and the chart's cursor follow each other: seeking the viewer to `targetS` puts
 * the marker there, and a click 40 px to the right of the marker moves the viewer later and the
 * marker to the click.
 */
async function expectLinkedBothWays(page: Page, chart: Locator, targetS: number): Promise<void> {
  const field = page.getByRole('textbox', { name: 'Time (s)' });
  await field.fill(targetS.toFixed(2));
  await field.press('Enter');
  const seekedS = await viewerTime(page);
  expect(Math.abs(seekedS - targetS)).toBeLessThan(0.01);
  await eventually(async () => Number(await chart.getAttribute('data-cursor-time'))).toBeCloseTo(seekedS, 4);

  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.boundingBox())!;
  const markerX = Number(await chart.getAttribute('data-cursor-x'));
  await page.mouse.click(box.x + markerX + 40, box.y + box.height / 2);
  await eventually(() => viewerTime(page)).toBeGreaterThan(seekedS);
  await eventually(async () => Number(await chart.getAttribute('data-cursor-x'))).toBeCloseTo(markerX + 40, 0);
}

async function openAnalysisDialog(page: Page, trialName: string): Promise<void> {
  await page.getByRole('button', { name: `Actions for trial ${trialName}` }).click();
  await page.getByRole('menuitem', { name: 'Analysis' }).click();
}

let session: Session;

describeWithData(
  'analyses in the web app: the analysis dialog, the dashboard and its sharing',
  [fixture.motion, fixture.model],
  () => {
    let server: SeedableServer;
    let browser: Browser;
    let page: Page;
    let token: string;
    let walkId: string;
    let functions: AnalysisFunction[];
    let gait: AnalysisFunction;
    let dashboard: AnalysisDashboard;
    let result: AnalysisResult;
    let dashboardUrl: string;

    beforeAll(async () => {
      ({ server, browser, page, token } = await startSignedIn(makeUser('analyst'), { webgl: true }));
      [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
      const subject = await callApi<{ id: number }>(server.baseUrl, token, '/subjects/', {
        name: 'Walker',
        ...SUBJECT,
        birth_year: 1990,
        subject_tags: ['unimpaired'],
        terms: true,
      });
      await callApi(server.baseUrl, token, `/sessions/${session.id}/set_subject/?subject_id=${subject.id}`);
      const motText = readFileSync(referencePath(fixture.motion), 'utf8');
      const modelXml = readFileSync(referencePath(fixture.model), 'utf8');
      // The trial as processing leaves it (this test is about analyses, not processing).
      walkId = await server.seedTrial(session.id, {
        name: 'walk',
        results: [
          { tag: RESULT_TAGS.ikResults, fileName: 'walk.mot', bytes: Buffer.from(motText) },
          { tag: RESULT_TAGS.opensimModel, fileName: 'model.osim', bytes: Buffer.from(modelXml) },
          { tag: RESULT_TAGS.visualizerTransforms, fileName: 'walk.json', bytes: visualizerJsonOf(modelXml, motText) },
          {
            tag: RESULT_TAGS.ikJson,
            fileName: 'walk_ik.json',
            bytes: Buffer.from(JSON.stringify(ikJson(readStorage(motText), readOsim(modelXml)))),
          },
        ],
      });
      await server.seedTrial(session.id, 'neutral');
      functions = await callApi<AnalysisFunction[]>(server.baseUrl, token, '/analysis-functions/');
      gait = functions.find((one) => one.kind === 'gait')!;
      dashboard = (await callApi<AnalysisDashboard[]>(server.baseUrl, token, '/analysis-dashboards/')).find(
        (one) => one.kind === 'gait',
      )!;
    });
    afterAll(() => stopSignedIn({ server, browser }));

    it("runs gait from the walk trial's menu: Calculating... then successfull (squat: failed in red, with what to do); no Analysis item on the neutral trial; an empty function list says so", async () => {
      await page.goto(`/session/${session.id}`);
      await page.getByRole('button', { name: 'Actions for trial neutral' }).click();
      await page.getByRole('menuitem', { name: 'Tags' }).waitFor();
      await expect(page.getByRole('menuitem', { name: 'Analysis' }).count()).resolves.toBe(0);
      await page.keyboard.press('Escape');

      await openAnalysisDialog(page, 'walk');
      const row = section(page, gait.title);
      await row.getByRole('button', { name: 'Run' }).click();
      await row.getByText('Calculating...').waitFor();
      await eventually(() => row.getByTestId('analysis-status').textContent()).toBe('successfull');
      await screenshot(page, 'analysis-dialog');
      await row.getByRole('button', { name: 'Re-run' }).waitFor();

      // A squat analysis of a walk fails with what to do about it, in red.
      const squat = section(page, functions.find((one) => one.kind === 'squat')!.title);
      await squat.getByRole('button', { name: 'Run' }).click();
      await eventually(() => squat.getByTestId('analysis-status').textContent()).toBe('failed');
      await squat.getByText(/^No squat found/).waitFor();
      const [red, green, blue] = (
        await squat.getByTestId('analysis-status').evaluate((element) => getComputedStyle(element).color)
      )
        .match(/\d+/g)!
        .map(Number);
      expect(red, 'failed is shown in red').toBeGreaterThan(2 * Math.max(green, blue));
      await squat.getByRole('button', { name: 'Re-run' }).waitFor();

      const trial = await callApi<Trial>(server.baseUrl, token, `/trials/${walkId}/`);
      const media = trial.results.find((one) => one.tag === analysisResultTag('gait'))!.media!;
      result = (await (await fetch(new URL(media, server.baseUrl))).json()) as AnalysisResult;
      expect(Object.keys(result.metrics)).toEqual(
        expect.arrayContaining(['gait_speed', 'stride_length', 'cadence', 'double_support']),
      );

      // With no function to offer, the dialog says so.
      const functionList = (url: URL) => url.pathname === '/api/analysis-functions/';
      await page.keyboard.press('Escape');
      await page.route(functionList, (route) => route.fulfill({ json: [] }));
      await openAnalysisDialog(page, 'walk');
      await page.getByText('Sorry, there are no available functions.', { exact: true }).waitFor();
      await page.unroute(functionList);
      await page.keyboard.press('Escape');
      await openAnalysisDialog(page, 'walk');
    });

    it("opens the dashboard: the viewer looping over the analysed window, the result's metrics, zones and curves", async () => {
      await section(page, gait.title).getByRole('link', { name: 'Open dashboard' }).click();
      await expectPath(page, `/analysis-dashboard/${dashboard.id}/`);
      dashboardUrl = page.url();

      // Autoplay after 1 s; over longer than the window lasts, every frame drawn is within it, and it starts over.
      await page.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 20_000 });
      const frames: number[] = [];
      const windowS =
        result.datasets[result.x_axis][result.indices.end] - result.datasets[result.x_axis][result.indices.start];
      for (const end = Date.now() + 1000 * windowS + 1000; Date.now() < end;) {
        frames.push(Number(await scene(page).getAttribute('data-frame')));
        await page.waitForTimeout(200);
      }
      await page.getByRole('button', { name: 'Pause' }).click();
      for (const frame of frames) {
        expect(frame).toBeGreaterThanOrEqual(result.indices.start);
        expect(frame).toBeLessThanOrEqual(result.indices.end);
      }
      expect(
        frames.some((frame, i) => i > 0 && frame < frames[i - 1]),
        `the viewer loops: ${frames.join(' ')}`,
      ).toBe(true);
      await screenshot(page, 'analysis-dashboard');

      await expectMetricsOf(page, result);
      await expectTicksInTheirZones(page, result);
      // One chart per joint, with its left and right curves (ECharts describes its series for screen readers).
      const curvesTitle = dashboard.layout.columns
        .flatMap((column) => column.widgets)
        .flatMap((widget) => (widget.type === 'cycle-curves' ? [widget.title] : []))[0];
      const curveCharts = section(page, curvesTitle).getByTestId('chart');
      const joints = [...new Set(result.curves.map((curve) => curve.quantity.replace(/_[rl]$/, '')))];
      expect(joints.length).toBeGreaterThan(0);
      await expect(curveCharts.count()).resolves.toBe(joints.length);
      await eventually(() => curveCharts.first().getAttribute('aria-label')).toMatch(/left/);
      expect(await curveCharts.first().getAttribute('aria-label')).toMatch(/right/);
    });

    it("links the chart's cursor and the viewer's time both ways", async () => {
      const times = result.datasets[result.x_axis];
      await expectLinkedBothWays(
        page,
        section(page, 'Over time').getByTestId('chart'),
        times[Math.round((result.indices.start + result.indices.end) / 2)],
      );
    });

    it("links the Chart page's cursor with the viewer of the charted trial below it", async () => {
      await page.goto(`/dashboard/${session.id}`);
      for (const [field, option] of [
        ['Trials', 'walk'],
        ['Y quantities', 'knee_angle_r'],
      ]) {
        await page.getByRole('combobox', { name: field }).click();
        await page.getByRole('option', { name: option, exact: true }).click();
        await page.keyboard.press('Escape');
      }
      await page.getByRole('button', { name: 'Pause' }).click({ timeout: 20_000 });
      await expectLinkedBothWays(page, page.getByTestId('chart'), 1.5);
      await page.goBack();
    });

    it('shares: a share-token link and, once the session is public, a public link, both read-only for a visitor without an account', async () => {
      await page.getByRole('button', { name: 'Share' }).click();
      const shareLink = await page.getByRole('textbox', { name: /share token/ }).inputValue();
      expect(shareLink).toContain('shareToken=');
      await page.getByRole('switch', { name: 'Make this analysis public' }).check({ force: true });
      await page.getByText(PUBLIC_ALERT, { exact: true }).waitFor();
      await screenshot(page, 'analysis-share-private-session');

      const visitor = await (await newContext(browser, server.baseUrl)).newPage();
      // The private session's analysis opens with the subject's share token...
      await visitor.goto(shareLink);
      await expectMetricsOf(visitor, result);
      await expect(visitor.getByRole('button', { name: 'Share' }).count()).resolves.toBe(0);
      // ...but not from its plain link.
      await visitor.goto(new URL(dashboardUrl).pathname + `?trialId=${walkId}`);
      await visitor.getByText(/not shared with you/).waitFor();

      await page.getByRole('button', { name: 'Make session public' }).click();
      const publicLink = await page.getByRole('textbox', { name: 'Public link' }).inputValue();
      expect(publicLink).not.toContain('shareToken');
      await visitor.goto(publicLink);
      await expectMetricsOf(visitor, result);
      await expect(visitor.getByRole('button', { name: 'Share' }).count()).resolves.toBe(0);
      await visitor.context().close();
    });

    it("lists the gait dashboard in the session list's Dashboards menu", async () => {
      await page.keyboard.press('Escape');
      await page.goto('/sessions');
      await page.getByRole('button', { name: 'Dashboards' }).click();
      await page.getByRole('menuitem', { name: 'Kinematics' }).waitFor();
      await page.getByRole('menuitem', { name: dashboard.title, exact: true }).click();
      await expectPath(page, `/analysis-dashboard/${dashboard.id}/`);
      await expectMetricsOf(page, result);
    });
  },
);
