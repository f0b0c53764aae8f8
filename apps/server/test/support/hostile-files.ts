import type { MultipartPart } from './multipart.ts';
import { pngFile } from './png.ts';

/**
 * Issue 20: a corpus of hostile uploads, made here rather than committed as blobs, for every route
 * that reads a file a user sends (the upload parsers' tests, the API fuzz, the authorization matrix
 * and `npm run bench -- upload-parsers`). Each file is one attack on one reader: a name that would
 * reach Object.prototype, a bomb, nesting or sizes far past any real file, numbers past a double, or
 * a construct that never ends. None is a file the app could accept.
 */

export type HostileKind =
  | 'calibration .json'
  | 'calibration .toml'
  | 'calibration .qca.txt'
  | 'calibration .pickle'
  | 'lens .json'
  | 'profile picture';
export type Threat = 'prototype key' | 'bomb' | 'deep nesting' | 'huge array' | 'huge number' | 'unterminated';

export interface HostileFile {
  kind: HostileKind;
  threat: Threat;
  /** What the file does, for failure messages and the benchmark's table. */
  label: string;
  fileName: string;
  bytes: Buffer;
}

/** What a polluted Object.prototype would lend every object of the server (the probe's payload). */
export const POLLUTION = { data_sharing: 'Share processed data and identified videos', polluted: true } as const;
export const POLLUTED_KEYS = Object.keys(POLLUTION);
/** Every name that reaches a prototype when a reader assigns it, and what each must be written as in a file. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype'] as const;

// ---------------------------------------------------------------- camera JSON (Kinetrace's format)

const camera = (name: string) => ({
  name,
  imageSize: { width: 1080, height: 1920 },
  intrinsics: [
    [1500, 0, 540],
    [0, 1500, 960],
    [0, 0, 1],
  ],
  distortion: [0, 0, 0, 0, 0],
  rotationCameraFromWorld: [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ],
  translationCameraFromWorldM: [0, 0, 3],
});

/** A valid camera file's text with `inject` (raw JSON text) added as the first member of the object at `at`. */
function cameraJson(cameras: number, at: 'file' | 'camera' | 'imageSize' | 'calibration', inject: string): string {
  const file = {
    format: 'kinetrace.cameras',
    version: 1,
    cameras: Array.from({ length: cameras }, (_, index) => camera(`cam${index + 1}`)),
    calibration: { rmsPx: 0.4 },
  };
  const text = JSON.stringify(file);
  const marker = {
    file: '{"format"',
    camera: '{"name":"cam1"',
    imageSize: '"imageSize":{',
    calibration: '"calibration":{',
  }[at];
  const where = text.indexOf(marker) + (at === 'file' || at === 'camera' ? 1 : marker.length);
  return `${text.slice(0, where)}${inject},${text.slice(where)}`;
}

/** A member naming `name` whose value carries the pollution (`constructor` also one level down, as `constructor.prototype`). */
const pollutingMember = (name: (typeof PROTOTYPE_NAMES)[number]) =>
  name === 'constructor'
    ? `"constructor":{"prototype":${JSON.stringify(POLLUTION)}}`
    : `"${name}":${JSON.stringify(POLLUTION)}`;

function cameraJsonFiles(kind: 'calibration .json' | 'lens .json', cameras: number): HostileFile[] {
  const file = (threat: Threat, label: string, text: string): HostileFile => ({
    kind,
    threat,
    label,
    fileName: kind === 'lens .json' ? 'lens.json' : 'cams.json',
    bytes: Buffer.from(text),
  });
  const valid = cameraJson(cameras, 'file', '"comment":"x"');
  return [
    ...PROTOTYPE_NAMES.flatMap((name) =>
      (['file', 'camera', 'imageSize', 'calibration'] as const).map((at) =>
        file('prototype key', `${name} in the ${at}`, cameraJson(cameras, at, pollutingMember(name))),
      ),
    ),
    file('deep nesting', '100,000 nested arrays', `{"cameras":${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
    file('deep nesting', '10,000 nested objects', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`),
    file('huge array', 'a million numbers for cameras', `{"cameras":[${'0,'.repeat(999_999)}0]}`),
    file('huge number', 'an image width of 1e400', valid.replace('"width":1080', '"width":1e400')),
    file('huge number', 'a focal length of 1e308', valid.replaceAll('1500', '1e308')),
    file('huge number', 'a 400-digit translation', valid.replace('[0,0,3]', `[0,0,${'9'.repeat(400)}]`)),
    file('unterminated', 'a string never closed', valid.slice(0, valid.indexOf('"cam1"') + 4)),
    file('unterminated', 'an object never closed', valid.slice(0, -1)),
    file('unterminated', 'a comment never closed', `/* ${valid}`),
  ];
}

// ---------------------------------------------------------------- Pose2Sim .toml

const tomlCamera = `[cam_1]
name = "cam_1"
size = [ 1080.0, 1920.0,]
matrix = [ [ 1500.0, 0.0, 540.0,], [ 0.0, 1500.0, 960.0,], [ 0.0, 0.0, 1.0,],]
distortions = [ 0.0, 0.0, 0.0, 0.0,]
rotation = [ 0.0, 0.0, 0.0,]
translation = [ 0.0, 0.0, 3.0,]
fisheye = false
`;

function tomlFiles(): HostileFile[] {
  const file = (threat: Threat, label: string, text: string): HostileFile => ({
    kind: 'calibration .toml',
    threat,
    label,
    fileName: 'Calib.toml',
    bytes: Buffer.from(text),
  });
  const pollution = `data_sharing = "${POLLUTION.data_sharing}"\npolluted = true\n`;
  return [
    ...PROTOTYPE_NAMES.flatMap((name) => [
      file('prototype key', `[${name}] table`, `${tomlCamera}[${name}]\n${pollution}`),
      file('prototype key', `["${name}"] quoted table`, `${tomlCamera}["${name}"]\n${pollution}`),
      file('prototype key', `[cam_1.${name}] table in a camera`, `${tomlCamera}[cam_1.${name}]\n${pollution}`),
      file('prototype key', `[[${name}]] array of tables`, `${tomlCamera}[[${name}]]\n${pollution}`),
      file('prototype key', `dotted key ${name}.polluted`, `${tomlCamera}${name}.polluted = true\n`),
      file(
        'prototype key',
        `inline table { ${name} = ... }`,
        `${tomlCamera}extra = { ${name} = { polluted = true } }\n`,
      ),
    ]),
    file('prototype key', '[constructor.prototype] table', `${tomlCamera}[constructor.prototype]\n${pollution}`),
    file('deep nesting', '100,000 nested arrays', `a = ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`),
    file('deep nesting', '10,000 nested inline tables', `a = ${'{ b = '.repeat(10_000)}1${' }'.repeat(10_000)}\n`),
    file('deep nesting', 'a table 10,000 names deep', `[${Array.from({ length: 10_000 }, () => 'a').join('.')}]\n`),
    file('huge array', 'a million numbers', `${tomlCamera}extra = [${'0,'.repeat(999_999)}0]\n`),
    file('huge number', 'a matrix of 1e400', tomlCamera.replaceAll('1500.0', '1e400')),
    file('huge number', 'a matrix of 1e308', tomlCamera.replaceAll('1500.0', '1e308')),
    file('huge number', 'a 400-digit integer size', tomlCamera.replace('1080.0', '9'.repeat(400))),
    file('unterminated', 'a string never closed', `${tomlCamera}extra = "never closed\n`),
    file(
      'unterminated',
      'a multi-line string never closed',
      `${tomlCamera}extra = """never closed\n${'x\n'.repeat(1000)}`,
    ),
    file('unterminated', 'a table header never closed', `${tomlCamera}[cam_2\nname = "cam_2"\n`),
    file('unterminated', 'an array never closed', `${tomlCamera}extra = [1, 2,\n`),
    file('unterminated', 'an inline table never closed', `${tomlCamera}extra = { b = 1,\n`),
  ];
}

// ---------------------------------------------------------------- Qualisys .qca.txt (XML)

const qcaCamera = (attributes = '', serial = '1') =>
  `<camera active="1" serial="${serial}" model="Miqus Video"${attributes}>` +
  '<fov_video left="0" top="0" right="1919" bottom="1087"/>' +
  '<transform x="0" y="-3000" z="1000" r11="1" r12="0" r13="0" r21="0" r22="0" r23="1" r31="0" r32="-1" r33="0"/>' +
  '<intrinsic focallength="4" sensorMinU="0" sensorMaxU="122848" sensorMinV="0" sensorMaxV="69568" ' +
  'focalLengthU="96000" focalLengthV="96000" centerPointU="61440" centerPointV="34816" skew="0" ' +
  'radialDistortion1="0" radialDistortion2="0" radialDistortion3="0" tangentalDistortion1="0" tangentalDistortion2="0"/>' +
  '</camera>';
const qca = (cameras: string, prolog = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>${prolog}\n<calibration source="hostile" type="regular">` +
  `<results std-dev="0.1"/><cameras>${cameras}</cameras></calibration>\n`;

function qcaFiles(): HostileFile[] {
  const file = (threat: Threat, label: string, text: string): HostileFile => ({
    kind: 'calibration .qca.txt',
    threat,
    label,
    fileName: 'Calib.qca.txt',
    bytes: Buffer.from(text),
  });
  const two = (first: string) => `${first}${qcaCamera('', '2')}`;
  // Each entity ten of the one before: &lol9; would be 10^9 "lol"s for a reader that expands entities.
  const laughs = `<!DOCTYPE calibration [<!ENTITY lol "lol">${Array.from(
    { length: 9 },
    (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level || ''};`.repeat(10)}">`,
  ).join('')}]>`;
  return [
    ...PROTOTYPE_NAMES.map((name) =>
      file('prototype key', `a ${name} attribute`, qca(two(qcaCamera(` ${name}="${POLLUTION.data_sharing}"`)))),
    ),
    file('bomb', 'billion laughs (entities 10^9 deep)', qca(two(qcaCamera('', '&lol9;')), laughs)),
    file(
      'bomb',
      'an external entity naming a server file',
      qca(two(qcaCamera('', '&xxe;')), '<!DOCTYPE calibration [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'),
    ),
    file('deep nesting', '100,000 nested elements', qca(two(`${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`))),
    file('huge array', '300,000 elements', qca(two(qcaCamera() + '<x/>'.repeat(300_000)))),
    file(
      'huge number',
      'a focal length of 1e400',
      qca(two(qcaCamera().replace('focalLengthU="96000"', 'focalLengthU="1e400"'))),
    ),
    file('huge number', 'a camera position of 1e308', qca(two(qcaCamera().replace('x="0"', 'x="1e308"')))),
    file('unterminated', '40,000 comments never closed', qca(two(qcaCamera())) + '<!--'.repeat(40_000)),
    file('unterminated', 'an attribute value never closed', qca(qcaCamera().replace('serial="1"', 'serial="1'))),
    file('unterminated', 'a tag never closed', qca('<camera serial="1"'.repeat(20_000))),
  ];
}

// ---------------------------------------------------------------- OpenCap .pickle

const PROTO2 = [0x80, 2];
const STOP = 0x2e;
const shortString = (text: string) => [0x8c, Buffer.byteLength(text), ...Buffer.from(text)];
/** BINFLOAT: a double, big-endian. */
const binFloat = (value: number) => {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(value);
  return [0x47, ...bytes];
};
const EMPTY_DICT = 0x7d;
const SETITEM = 0x73;

function pickleFiles(): HostileFile[] {
  const file = (threat: Threat, label: string, bytes: number[] | Buffer): HostileFile => ({
    kind: 'calibration .pickle',
    threat,
    label,
    fileName: 'cameraIntrinsicsExtrinsics.pickle',
    bytes: Buffer.from(bytes),
  });
  /** {name: pollution}, and {"intrinsicMat": {name: pollution}} one level down. */
  const pollutionDict = [
    EMPTY_DICT,
    ...Object.entries(POLLUTION).flatMap(([key, value]) => [
      ...shortString(key),
      ...(typeof value === 'string' ? shortString(value) : [0x88]),
      SETITEM,
    ]),
  ];
  const dup = (times: number) => Array.from({ length: times }, () => [0x32, 0x86]).flat();
  return [
    ...PROTOTYPE_NAMES.flatMap((name) => [
      file('prototype key', `a dict key ${name}`, [
        ...PROTO2,
        EMPTY_DICT,
        ...shortString(name),
        ...pollutionDict,
        SETITEM,
        STOP,
      ]),
      file('prototype key', `a dict key ${name} one level down`, [
        ...PROTO2,
        EMPTY_DICT,
        ...shortString('intrinsicMat'),
        EMPTY_DICT,
        ...shortString(name),
        ...pollutionDict,
        SETITEM,
        SETITEM,
        STOP,
      ]),
    ]),
    file('bomb', 'DUP + TUPLE2 x 24 (2^24 leaves, 52 bytes)', [...PROTO2, 0x4e, ...dup(24), STOP]),
    file('bomb', 'DUP + TUPLE2 x 60 (2^60 leaves)', [...PROTO2, 0x4e, ...dup(60), STOP]),
    // EMPTY_LIST then DUP + APPEND: a list that contains itself.
    file('bomb', 'a list that contains itself', [...PROTO2, 0x5d, 0x32, 0x61, STOP]),
    // 100,000 EMPTY_LISTs, each APPENDed into the one before.
    file('deep nesting', '100,000 nested lists', [
      ...PROTO2,
      ...Array(100_000).fill(0x5d),
      ...Array(99_999).fill(0x61),
      STOP,
    ]),
    // MARK, a million NONEs, LIST.
    file('huge array', 'a list of a million values', [...PROTO2, 0x28, ...Array(1_000_000).fill(0x4e), 0x6c, STOP]),
    file('huge number', 'a float of 1e308', [...PROTO2, ...binFloat(1e308), STOP]),
    file('huge number', 'an infinite float', [
      ...PROTO2,
      EMPTY_DICT,
      ...shortString('imageSize'),
      ...binFloat(Infinity),
      SETITEM,
      STOP,
    ]),
    // LONG1 with 255 bytes: a 2040-bit integer.
    file('huge number', 'a 2040-bit integer', [...PROTO2, 0x8a, 255, ...Array(255).fill(0xff), STOP]),
    file('unterminated', 'no STOP', [...PROTO2, EMPTY_DICT, ...shortString('intrinsicMat'), 0x4e, SETITEM]),
    // BINUNICODE announcing 4 GB of text that is not there.
    file('unterminated', 'a string announced as 4 GB', [...PROTO2, 0x58, 0xff, 0xff, 0xff, 0xff, 0x61, STOP]),
  ];
}

// ---------------------------------------------------------------- profile pictures

/** A PNG whose header says `width` x `height`, with one tiny compressed row: what a decompression bomb's header looks like. */
const pngHeader = (width: number, height: number) =>
  pngFile(width, height, Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]));

/** A GIF header (logical screen `width` x `height`, the format's largest is 65535 a side). */
const gifHeader = (width: number, height: number) => {
  const bytes = Buffer.from('GIF89a\0\0\0\0\0\0\0;', 'latin1');
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes;
};

/** A baseline JPEG's start and frame header saying `width` x `height`, then its end. */
const jpegHeader = (width: number, height: number) => {
  const sof = Buffer.from([0xff, 0xc0, 0, 11, 8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  const jfif = Buffer.from([0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), jfif, sof, Buffer.from([0xff, 0xd9])]);
};

function pictureFiles(): HostileFile[] {
  const file = (threat: Threat, label: string, fileName: string, bytes: Buffer): HostileFile => ({
    kind: 'profile picture',
    threat,
    label,
    fileName,
    bytes,
  });
  return [
    file('bomb', 'a PNG of 60,000 x 60,000 pixels', 'me.png', pngHeader(60_000, 60_000)),
    file('huge number', 'a PNG of 2^31 - 1 pixels a side', 'me.png', pngHeader(2 ** 31 - 1, 2 ** 31 - 1)),
    file('bomb', 'a GIF of 65,535 x 65,535 pixels', 'me.gif', gifHeader(65_535, 65_535)),
    file('bomb', 'a JPEG of 65,500 x 65,500 pixels', 'me.jpg', jpegHeader(65_500, 65_500)),
    file('unterminated', 'a PNG signature and nothing else', 'me.png', pngHeader(1, 1).subarray(0, 12)),
  ];
}

/**
 * Every route that takes a file, as the OpenAPI document names it: its file field, the other fields it
 * needs, and the kinds of the corpus it reads. A route missing here fails the API fuzz.
 */
export const UPLOAD_ROUTES: Record<string, { field: string; fields: MultipartPart[]; kinds: HostileKind[] }> = {
  'POST /api/sessions/{id}/import-calibration/': {
    field: 'file',
    fields: [],
    kinds: ['calibration .json', 'calibration .toml', 'calibration .qca.txt', 'calibration .pickle'],
  },
  'POST /api/lens-calibrations/': {
    field: 'file',
    fields: [{ field: 'device_model', value: 'Pixel 8' }],
    kinds: ['lens .json'],
  },
  'POST /api/update_profile_picture/': { field: 'profile_picture', fields: [], kinds: ['profile picture'] },
  // Videos: any file of the corpus under a video's name is not a video (two, as an import needs two cameras).
  'POST /api/sessions/{id}/import/': { field: 'video', fields: [{ field: 'name', value: 'hostile' }], kinds: [] },
};

/** The request that uploads `file` on its own route (`sessionId` for the routes of a session). */
export function hostileUpload(
  file: HostileFile,
  sessionId: string,
): { url: string; field: string; parts: MultipartPart[] } {
  const [key, route] = Object.entries(UPLOAD_ROUTES).find(([, entry]) => entry.kinds.includes(file.kind))!;
  return {
    url: key.slice('POST '.length).replace('{id}', sessionId),
    field: route.field,
    parts: [...route.fields, { field: route.field, fileName: file.fileName, bytes: file.bytes }],
  };
}

/** Every hostile file, by kind. */
export function hostileFiles(): HostileFile[] {
  return [
    ...cameraJsonFiles('calibration .json', 2),
    ...tomlFiles(),
    ...qcaFiles(),
    ...pickleFiles(),
    ...cameraJsonFiles('lens .json', 1),
    ...pictureFiles(),
  ];
}
