import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CameraModel, cameraCentreWorld, projectPoint } from '../../src/camera/camera.ts';
import {
  readCameraFile,
  readKinetraceCameras,
  readOpenCapCameraPickle,
  readPickle,
  readPose2SimToml,
  readQualisysCalibration,
  writeCameraFile,
  writeKinetraceCameras,
} from '../../src/camera/formats/index.ts';
import { matrixToRodrigues } from '../../src/calibration/linalg.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { POSE2SIM_QCA } from './pose2sim-reference.ts';

function expectSameCamera(a: CameraModel, b: CameraModel, tolerance = 1e-9): void {
  expect(a.name).toBe(b.name);
  expect(a.imageSize).toEqual(b.imageSize);
  for (const key of ['intrinsics', 'distortion', 'rotationCameraFromWorld', 'translationCameraFromWorldM'] as const) {
    expect(a[key].length).toBe(b[key].length);
    a[key].forEach((v, i) => expect(Math.abs(v - b[key][i]), `${key}[${i}]`).toBeLessThanOrEqual(tolerance));
  }
}

const sample: CameraModel = {
  name: 'phone-left',
  imageSize: { width: 1080, height: 1920 },
  intrinsics: Float64Array.from([1500.5, 0, 539.2, 0, 1501.25, 960.7, 0, 0, 1]),
  distortion: Float64Array.from([0.11, -0.2, 0.001, -0.0005, 0.05]),
  rotationCameraFromWorld: Float64Array.from([0, 0, -1, 0, -1, 0, -1, 0, 0]),
  translationCameraFromWorldM: Float64Array.from([0.1, 1.2, 3.4]),
};

describe("Kinetrace's JSON camera file", () => {
  it('round-trips cameras exactly, with metadata', async () => {
    const text = writeKinetraceCameras([sample], { rmsPx: 0.21, board: { rows: 4, cols: 7, squareSizeMm: 60 } });
    const json = JSON.parse(text);
    expect(json.format).toBe('kinetrace.cameras');
    expect(json.cameras[0].intrinsics).toEqual([
      [1500.5, 0, 539.2],
      [0, 1501.25, 960.7],
      [0, 0, 1],
    ]);
    expect(json.calibration.rmsPx).toBe(0.21);
    expectSameCamera(readKinetraceCameras(text)[0], sample, 0);
    const dir = mkdtempSync(join(tmpdir(), 'kinetrace-cam-'));
    await writeCameraFile(join(dir, 'camera.json'), [sample]);
    expectSameCamera((await readCameraFile(join(dir, 'camera.json')))[0], sample, 0);
  });

  it('rejects files that are not camera files, saying why', () => {
    expect(() => readKinetraceCameras('{"cameras": []}')).toThrow(/format/);
    expect(() => readKinetraceCameras('not json')).toThrow(/not valid JSON/);
    const bad = JSON.parse(writeKinetraceCameras([sample]));
    bad.cameras[0].intrinsics = [
      [1, 2],
      [3, 4],
    ];
    expect(() => readKinetraceCameras(JSON.stringify(bad))).toThrow(/intrinsics must be a 3 x 3 matrix/);
  });
});

describeWithData("Pose2Sim's Calib.toml", [POSE2SIM_QCA], () => {
  it('reads the toml Pose2Sim writes from the demo .qca.txt into the same cameras as the Qualisys reader', () => {
    const qca = readFileSync(referencePath(POSE2SIM_QCA), 'utf8');
    const zUp = readQualisysCalibration(qca, { worldUp: 'z' });
    // The toml Pose2Sim's calib_qca_fun + toml_write produce: Rodrigues rotation, metres, 4 distortions.
    const toml = zUp
      .map((c, i) => {
        const K = c.intrinsics;
        const r = matrixToRodrigues(c.rotationCameraFromWorld);
        const t = c.translationCameraFromWorldM;
        const d = c.distortion;
        return [
          `[cam_${i + 1}]`,
          `name = "${c.name}"`,
          `size = [ ${c.imageSize.width}.0, ${c.imageSize.height}.0,]`,
          `matrix = [ [ ${K[0]}, 0.0, ${K[2]},], [ 0.0, ${K[4]}, ${K[5]},], [ 0.0, 0.0, 1.0,],]`,
          `distortions = [ ${d[0]}, ${d[1]}, ${d[2]}, ${d[3]},]`,
          `rotation = [ ${r[0]}, ${r[1]}, ${r[2]},]`,
          `translation = [ ${t[0]}, ${t[1]}, ${t[2]},]`,
          'fisheye = false',
          '',
        ].join('\n');
      })
      .concat(['[metadata]', 'adjusted = false', 'error = 0.0', ''])
      .join('\n');
    const fromToml = readPose2SimToml(toml);
    const fromQca = readQualisysCalibration(qca);
    expect(fromToml).toHaveLength(4);
    fromToml.forEach((c, i) => expectSameCamera(c, fromQca[i], 1e-9));
    readPose2SimToml(toml, { worldUp: 'z' }).forEach((c, i) => expectSameCamera(c, zUp[i], 1e-9));
  });
});

const OPENCAP = 'opencap_outputs';
const INTRINSICS_PICKLE = `${OPENCAP}/opencap-core@d5a5258954/CameraIntrinsics/iPhone13,3/Deployed/cameraIntrinsics.pickle`;
const EXTRINSICS_PICKLE = `${OPENCAP}/opencap-core@71f8b9a181/sandbox/camIntExt_frontalExample.pickle`;

describeWithData("OpenCap's camera pickles", [INTRINSICS_PICKLE, EXTRINSICS_PICKLE], () => {
  it('reads the iPhone 13 intrinsics (numpy arrays, imageSize as [height, width])', async () => {
    const [camera] = await readCameraFile(referencePath(INTRINSICS_PICKLE));
    expect(camera.name).toBe('Deployed');
    expect(camera.imageSize).toEqual({ width: 720, height: 1280 });
    expect(camera.intrinsics[0]).toBeCloseTo(913.2224667355067, 10);
    expect(camera.intrinsics[2]).toBeCloseTo(366.4860069349607, 10);
    expect(camera.intrinsics[5]).toBeCloseTo(638.5015642655075, 10);
    expect(Array.from(camera.distortion)).toEqual([
      0.12779473136076258, -0.2842464663623719, -0.00034093014349563094, 0.00006697008445048804, 0.21344094018533205,
    ]);
  });

  it('reads an intrinsics+extrinsics pickle, mm to m, and puts a back-wall board into the y-up world', () => {
    const bytes = new Uint8Array(readFileSync(referencePath(EXTRINSICS_PICKLE)));
    const boardFrame = readOpenCapCameraPickle(bytes, { name: 'frontal' });
    expect(boardFrame.translationCameraFromWorldM[2]).toBeCloseTo(3.105844708984973, 12);
    const world = readOpenCapCameraPickle(bytes, { name: 'frontal', placement: 'Perpendicular' });
    const [x, y, z] = cameraCentreWorld(world);
    console.log(
      `OpenCap frontal example camera centre in the world: (${x.toFixed(3)}, ${y.toFixed(3)}, ${z.toFixed(3)}) m`,
    );
    expect(x).toBeGreaterThan(2.5); // in front of the board, x towards the cameras
    expect(y).toBeGreaterThan(0.5); // above the board's corner, y up
    expect(Math.abs(z)).toBeLessThan(0.5);
    // Board corner 0 projects to the same pixel in both frames.
    const p0 = projectPoint(boardFrame, [0, 0, 0])!;
    const p1 = projectPoint(world, [0, 0, 0])!;
    expect(Math.hypot(p0[0] - p1[0], p0[1] - p1[1])).toBeLessThan(1e-9);
  });
});

describe('safe pickle reader', () => {
  it('refuses globals other than numpy arrays, without running anything', () => {
    const enc = new TextEncoder();
    // PROTO 2; GLOBAL 'os system'; SHORT_BINUNICODE 'echo'; TUPLE1; REDUCE; STOP
    const evil = new Uint8Array([
      0x80,
      2,
      0x63,
      ...enc.encode('os\nsystem\n'),
      0x8c,
      4,
      ...enc.encode('echo'),
      0x85,
      0x52,
      0x2e,
    ]);
    expect(() => readPickle(evil)).toThrow(/refusing to load global os.system/);
    expect(() => readPickle(new Uint8Array([0x80, 2, 0x7d]))).toThrow(/truncated|underflow/);
  });

  it('reads plain containers', () => {
    // {'a': [1, 2.5, 'x'], 'b': (True, None)} pickled with protocol 2 by hand.
    const enc = new TextEncoder();
    const float = new Uint8Array(8);
    new DataView(float.buffer).setFloat64(0, 2.5, false);
    const bytes = new Uint8Array([
      0x80,
      2,
      0x7d,
      0x28,
      0x8c,
      1,
      ...enc.encode('a'),
      0x5d,
      0x28,
      0x4b,
      1,
      0x47,
      ...float,
      0x8c,
      1,
      ...enc.encode('x'),
      0x65,
      0x8c,
      1,
      ...enc.encode('b'),
      0x88,
      0x4e,
      0x86,
      0x75,
      0x2e,
    ]);
    expect(readPickle(bytes)).toEqual({ a: [1, 2.5, 'x'], b: [true, null] });
  });
});

describe('readCameraFile', () => {
  it('names the supported formats for an unknown extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kinetrace-cam-'));
    writeFileSync(join(dir, 'cams.xyz'), '');
    await expect(readCameraFile(join(dir, 'cams.xyz'))).rejects.toThrow(/\.json, \.qca\.txt, \.toml, \.pickle, \.pkl/);
  });
});
