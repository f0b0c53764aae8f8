import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CameraModel, cameraCentreWorld, projectPoint } from '../../src/camera/camera.ts';
import { cameraMessages } from '@kinetrace/contracts';
import {
  CameraParametersError,
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
  it('refuses a camera named with 100 KB of HTML, naming it by its place in the file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kinetrace-cam-')), 'cam.pickle');
    writeFileSync(path, readFileSync(referencePath(INTRINSICS_PICKLE)));
    const html = `<img src=x onerror=alert(1)>${'x'.repeat(100_000)}`;
    await expect(readCameraFile(path, { opencap: { name: html } })).rejects.toThrow(`camera 1: ${cameraMessages.name}`);
  });

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

  it('refuses a bomb of shared references at once, and keeps a shared reference one value', () => {
    // PROTO 2, None, then n times DUP + TUPLE2: 2^n leaves for a reader that copies shared references.
    const bomb = (n: number) =>
      new Uint8Array([0x80, 2, 0x4e, ...Array.from({ length: n }, () => [0x32, 0x86]).flat(), 0x2e]);
    expect(() => readPickle(bomb(20))).toThrow(/more than 250000 values/);
    expect(() => readPickle(bomb(24))).toThrow(/more than 250000 values/);
    const shared = readPickle(bomb(3)) as unknown[][];
    expect(shared[0]).toBe(shared[1]);
    // Nesting deeper than any data file (TUPLE1 chains), and a list that contains itself.
    expect(() => readPickle(new Uint8Array([0x80, 2, 0x4e, ...Array(100).fill(0x85), 0x2e]))).toThrow(/nested/);
    expect(() => readPickle(new Uint8Array([0x80, 2, 0x5d, 0x71, 0, 0x68, 0, 0x61, 0x2e]))).toThrow(/contains itself/);
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

describe("every format's cameras go through the one camera schema (issue 20, item 14)", () => {
  const write = (name: string, contents: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'kinetrace-cam-')), name);
    writeFileSync(path, contents);
    return path;
  };
  const refusal = async (read: Promise<unknown>) => {
    const error = await read.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error, 'the file was accepted').toBeInstanceOf(CameraParametersError);
    return (error as Error).message;
  };

  it('refuses a width given as a string and a height as an array, naming the camera', async () => {
    const file = JSON.parse(writeKinetraceCameras([{ ...sample, name: 'cam1' }]));
    file.cameras[0].imageSize = { width: '1e400', height: [7] };
    expect(await refusal(readCameraFile(write('cams.json', JSON.stringify(file))))).toBe(
      `camera "cam1": ${cameraMessages.imageSide('width')} ${cameraMessages.imageSide('height')}`,
    );
  });

  it('refuses matrices of 1e308 (.toml) and a rotation that is not one (.qca.txt)', async () => {
    const toml = [
      '[cam_1]',
      'name = "cam_1"',
      'size = [ 1088.0, 1920.0,]',
      'matrix = [ [ 1e308, 0.0, 544.0,], [ 0.0, 1e308, 960.0,], [ 0.0, 0.0, 1.0,],]',
      'distortions = [ 0.0, 0.0, 0.0, 0.0,]',
      'rotation = [ 0.0, 0.0, 0.0,]',
      'translation = [ 0.0, 0.0, 1e308,]',
    ].join('\n');
    expect(await refusal(readCameraFile(write('Calib.toml', toml)))).toBe(
      `camera "cam_1": ${cameraMessages.translation} ${cameraMessages.focalLength}`,
    );
    const qca =
      '<calibration><cameras><camera serial="7" model="none"><fov_video left="0" top="0" right="1919" bottom="1079"/>' +
      '<transform x="0" y="0" z="3000" r11="2" r12="0" r13="0" r21="0" r22="1" r23="0" r31="0" r32="0" r33="1"/>' +
      '<intrinsic focalLengthU="96000" focalLengthV="96000" centerPointU="61440" centerPointV="34560"/></camera></cameras></calibration>';
    expect(await refusal(readCameraFile(write('lab.qca.txt', qca)))).toBe(`camera "7": ${cameraMessages.rotation}`);
  });
});

describe('readCameraFile', () => {
  it('names the supported formats for an unknown extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kinetrace-cam-'));
    writeFileSync(join(dir, 'cams.xyz'), '');
    await expect(readCameraFile(join(dir, 'cams.xyz'))).rejects.toThrow(/\.json, \.qca\.txt, \.toml, \.pickle, \.pkl/);
  });
});
