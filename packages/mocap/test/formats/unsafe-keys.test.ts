import { afterEach, describe, expect, it } from 'vitest';
import { readKinetraceCameras, writeKinetraceCameras } from '../../src/camera/formats/kinetrace-json.ts';
import { readPickle } from '../../src/camera/formats/pickle.ts';
import { readPose2SimToml } from '../../src/camera/formats/pose2sim-toml.ts';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { readTrc, TrcFormatError } from '../../src/formats/trc.ts';
import { UnsafeKeyError } from '../../src/formats/unsafe-keys.ts';
import { parseXmlTree } from '../../src/model/xml-tree.ts';

/**
 * Issue 20: a calibration .toml with `[__proto__]` wrote into Object.prototype, and every setting
 * missing from a row was then read from it. Every reader of files refuses __proto__, constructor
 * and prototype as names, saying so, and nothing reaches Object.prototype.
 */
const POLLUTED = ['data_sharing', 'polluted', 'kind', 'matrix'];

function expectNothingPolluted() {
  const plain = {} as Record<string, unknown>;
  for (const key of POLLUTED) expect(plain[key], `Object.prototype.${key}`).toBeUndefined();
}

function expectRefused(read: () => unknown, key: string) {
  let error: unknown;
  try {
    read();
  } catch (caught) {
    error = caught;
  }
  expect(error, 'the reader accepted the file').toBeInstanceOf(UnsafeKeyError);
  expect((error as Error).message).toContain(`"${key}" cannot be used as a name`);
  expectNothingPolluted();
}

const enc = new TextEncoder();
const shortString = (text: string) => [0x8c, text.length, ...enc.encode(text)];
/** {key: {'data_sharing': 'x'}} pickled with protocol 2 by hand. */
const pickledDictUnder = (key: string) =>
  new Uint8Array([
    0x80,
    2,
    0x7d, // EMPTY_DICT
    ...shortString(key),
    0x7d, // EMPTY_DICT
    ...shortString('data_sharing'),
    ...shortString('x'),
    0x73, // SETITEM
    0x73, // SETITEM
    0x2e, // STOP
  ]);

const camera = {
  name: 'cam1',
  imageSize: { width: 1920, height: 1080 },
  intrinsics: Float64Array.from([1500, 0, 960, 0, 1500, 540, 0, 0, 1]),
  distortion: new Float64Array(5),
  rotationCameraFromWorld: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]),
  translationCameraFromWorldM: Float64Array.from([0, 0, 3]),
};

describe('readers of uploaded and operator files refuse prototype keys', () => {
  afterEach(() => {
    // Should a reader regress, the pollution must not leak into the next test.
    for (const key of POLLUTED) delete (Object.prototype as Record<string, unknown>)[key];
  });

  it("Pose2Sim's .toml: [__proto__], constructor and prototype tables and keys", () => {
    const cases: [string, string][] = [
      ['[__proto__]\ndata_sharing = "Share processed data and identified videos"\n', '__proto__'],
      ['[cam_1.__proto__]\npolluted = true\n', '__proto__'],
      ['["__proto__"]\nmatrix = 1\n', '__proto__'],
      ['__proto__ = { polluted = 1 }\n', '__proto__'],
      ['[cam_1]\nconstructor = 1\n', 'constructor'],
      ['[cam_1.prototype]\npolluted = 1\n', 'prototype'],
    ];
    for (const [text, key] of cases) expectRefused(() => readPose2SimToml(text), key);
  });

  it('OpenCap pickles: a dict key __proto__ or constructor', () => {
    expectRefused(() => readPickle(pickledDictUnder('__proto__')), '__proto__');
    expectRefused(() => readPickle(pickledDictUnder('constructor')), 'constructor');
    // An ordinary key still reads, into a dict with no inherited keys.
    const dict = readPickle(pickledDictUnder('settings')) as Record<string, Record<string, unknown>>;
    expect(dict.settings.data_sharing).toBe('x');
    expect(dict.toString).toBeUndefined();
  });

  it("Qualisys' .qca.txt and OpenSim's XML: attributes named __proto__, constructor or prototype", () => {
    expectRefused(
      () => readQualisysCalibration('<calibration><camera __proto__="x" serial="1"/></calibration>'),
      '__proto__',
    );
    expectRefused(() => parseXmlTree('<OpenSimDocument><Model constructor="x"/></OpenSimDocument>'), 'constructor');
    expectRefused(() => parseXmlTree('<OpenSimDocument prototype="x"/>'), 'prototype');
    // Element names are refused by fast-xml-parser itself.
    expect(() =>
      parseXmlTree('<OpenSimDocument><__proto__><polluted>1</polluted></__proto__></OpenSimDocument>'),
    ).toThrow(/__proto__/);
    expectNothingPolluted();
    // Attributes hold only the file's own: nothing inherited.
    const tree = parseXmlTree('<Body name="pelvis"/>');
    expect(tree.attributes.name).toBe('pelvis');
    expect(tree.attributes.toString).toBeUndefined();
  });

  it("Kinetrace's camera .json: a __proto__ key at any depth", () => {
    const file = JSON.parse(writeKinetraceCameras([camera])) as { cameras: Record<string, unknown>[] };
    const nested = writeKinetraceCameras([camera]).replace(
      '"name": "cam1"',
      '"__proto__": { "polluted": 1 }, "name": "cam1"',
    );
    expectRefused(() => readKinetraceCameras(nested), '__proto__');
    const withConstructor = { ...file, cameras: [{ ...file.cameras[0], constructor: 1 }] };
    expectRefused(() => readKinetraceCameras(JSON.stringify(withConstructor)), 'constructor');
  });

  it('.trc files: Units named after what every object inherits are unknown units, not NaN positions', () => {
    const trc = (units: string) =>
      [
        'PathFileType\t4\t(X/Y/Z)\twalk.trc',
        'DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits',
        `60\t60\t1\t1\t${units}`,
        'Frame#\tTime\tHip',
        '\t\tX1\tY1\tZ1',
        '1\t0\t1\t2\t3',
      ].join('\n');
    expect(readTrc(trc('mm')).positionsM[0]).toBeCloseTo(0.001, 12);
    for (const units of ['constructor', '__proto__']) expect(() => readTrc(trc(units)), units).toThrow(TrcFormatError);
  });
});
