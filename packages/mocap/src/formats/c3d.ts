/**
 * 3D point trajectories as a C3D file (the binary format of Vicon, Qualisys, Visual3D and Mokka),
 * written and read by us because no C3D library installs from the npm registry. The layout follows
 * the C3D User Guide (c3d.org, "The C3D File Format"); the sections cited below are its pages.
 *
 * What we write: one 512-byte header block, a parameter section (groups POINT, ANALOG, TRIAL,
 * MANUFACTURER) and the 3D data as 32-bit IEEE floats in Intel (little-endian) byte order, with a
 * negative POINT:SCALE flagging the floating-point format. No analog channels, no header events.
 * The points are in OpenSim's frame (x forward, y up, z to the right), which POINT:X_SCREEN and
 * POINT:Y_SCREEN tell viewers, so Mokka and Visual3D show the subject upright.
 */
import { METRES_PER_UNIT, type MarkerTrajectories } from './trc.ts';

export class C3dFormatError extends Error {
  override name = 'C3dFormatError';
}

/** Units the points are written in. The guide (POINT:UNITS) makes "mm" the default readers expect. */
export type C3dUnits = 'mm' | 'm';

/** C3D files are built from 512-byte blocks (User Guide, "C3D file description"). */
const BLOCK_BYTES = 512;
/** Header byte 2 and parameter header byte 2: 0x50, ASCII "P", 3D points with analog samples (User Guide, "Header Section"). */
const C3D_KEY = 0x50;
/** The parameter section starts at block 2, right after the header (User Guide, "Parameter Section"). */
const PARAMETER_BLOCK = 2;
/** Parameter header byte 4 is 83 + processor type; type 1 is Intel, so 84 marks little-endian data (User Guide, "Parameter header"). */
const PROCESSOR_INTEL = 84;
/** Header word 150: 12345 (0x3039) when the file supports 4-character event labels (User Guide, header record, Figure 3). */
const FOUR_CHAR_EVENT_LABELS_KEY = 0x3039;
/** POINT:SCALE magnitude is the largest coordinate divided by 32000 (User Guide, "Notes for programmers - Integer 3D Data"). */
const SCALE_DIVISOR = 32000;
/** Parameter dimensions are single bytes, so a LABELS array holds at most 255 entries (User Guide, "POINT:USED"). */
const MAX_POINTS = 255;
/** Header frame numbers are unsigned 16-bit words (User Guide, "POINT:FRAMES"). */
const MAX_FRAME_NUMBER = 65535;
/**
 * The screen axes of Y-up data: +X to the right, +Y up (User Guide, "POINT:X_SCREEN" and
 * "POINT:Y_SCREEN"; a lab's Z-up data would say +X and +Z).
 */
const SCREEN_AXES = { x: '+X', y: '+Y' } as const;

/** Parameter data element size codes (User Guide, "Parameter Format", Figure 14). */
const ParameterType = { Char: -1, Byte: 1, Int16: 2, Float32: 4 } as const;
type ParameterType = (typeof ParameterType)[keyof typeof ParameterType];

export interface C3dParameter {
  type: ParameterType;
  dimensions: number[];
  /** Numbers for Byte/Int16/Float32 (column-major, as stored); for Char the strings of the first dimension's length, trimmed. */
  values: number[] | string[];
}

/** The parsed file: header words, every parameter by "GROUP:NAME", and the points in metres. */
export interface C3dFile {
  header: {
    parameterBlock: number;
    pointCount: number;
    analogPerFrame: number;
    firstFrame: number;
    lastFrame: number;
    maxInterpolationGap: number;
    scale: number;
    dataStartBlock: number;
    analogSamplesPerFrame: number;
    frameRateHz: number;
    fourCharEventLabelsKey: number;
    eventCount: number;
  };
  processorType: number;
  parameterBlockCount: number;
  parameters: Map<string, C3dParameter>;
  units: string;
  trajectories: MarkerTrajectories;
}

interface ParameterSpec {
  name: string;
  description: string;
  type: ParameterType;
  dimensions: number[];
  /** Little-endian bytes of the data. */
  data: Uint8Array;
}

interface GroupSpec {
  name: string;
  description: string;
  parameters: ParameterSpec[];
}

const ascii = (text: string): Uint8Array =>
  Uint8Array.from(text, (char) => {
    const code = char.charCodeAt(0);
    return code < 128 ? code : 0x3f; // names and labels are 7-bit ASCII (User Guide, "Notes for programmers - Parameters and Groups")
  });

function int16Parameter(name: string, description: string, value: number): ParameterSpec {
  const data = new Uint8Array(2);
  new DataView(data.buffer).setUint16(0, value, true);
  return { name, description, type: ParameterType.Int16, dimensions: [], data };
}

/**
 * A frame number as TRIAL:ACTUAL_START_FIELD and ACTUAL_END_FIELD hold it: two unsigned 16-bit words,
 * low word first, so a trial may be numbered past 65535 (User Guide, "TRIAL group").
 */
function frameNumberParameter(name: string, description: string, frame: number): ParameterSpec {
  const data = new Uint8Array(4);
  const view = new DataView(data.buffer);
  view.setUint16(0, frame & 0xffff, true);
  view.setUint16(2, Math.floor(frame / 0x10000), true);
  return { name, description, type: ParameterType.Int16, dimensions: [2], data };
}

function floatParameter(name: string, description: string, value: number): ParameterSpec {
  const data = new Uint8Array(4);
  new DataView(data.buffer).setFloat32(0, value, true);
  return { name, description, type: ParameterType.Float32, dimensions: [], data };
}

/** Strings padded with spaces to one length: a [length, count] character array, or [length] for one string. */
function charParameter(name: string, description: string, strings: string[], asArray: boolean): ParameterSpec {
  const length = Math.max(1, ...strings.map((text) => text.length));
  const data = new Uint8Array(length * strings.length).fill(0x20);
  strings.forEach((text, i) => data.set(ascii(text), i * length));
  return {
    name,
    description,
    type: ParameterType.Char,
    dimensions: asArray ? [length, strings.length] : [length],
    data,
  };
}

/**
 * The parameter records after the 4-byte parameter header: each group (negative id) then its
 * parameters (positive id); each record's 2-byte offset counts from that offset field to the next
 * record, and 0 ends the section (User Guide, "Group Format", "Parameter Format", notes 6).
 */
function encodeParameterRecords(groups: GroupSpec[]): Uint8Array {
  const records: Uint8Array[] = [];
  const push = (nameLength: number, id: number, name: Uint8Array, body: Uint8Array) => {
    const record = new Uint8Array(2 + nameLength + 2 + body.length);
    record.set([nameLength, id & 0xff], 0);
    record.set(name, 2);
    // Offset to the next record, counted from this field; the last record keeps 0.
    new DataView(record.buffer).setInt16(2 + nameLength, 2 + body.length, true);
    record.set(body, 2 + nameLength + 2);
    records.push(record);
  };
  groups.forEach((group, index) => {
    const id = index + 1;
    const groupName = ascii(group.name);
    const groupDescription = ascii(group.description);
    push(groupName.length, -id, groupName, Uint8Array.from([groupDescription.length, ...groupDescription]));
    for (const parameter of group.parameters) {
      const name = ascii(parameter.name);
      const description = ascii(parameter.description);
      const dimensionCount = parameter.dimensions.length;
      const body = new Uint8Array(2 + dimensionCount + parameter.data.length + 1 + description.length);
      body.set([parameter.type & 0xff, dimensionCount, ...parameter.dimensions], 0);
      body.set(parameter.data, 2 + dimensionCount);
      body[2 + dimensionCount + parameter.data.length] = description.length;
      body.set(description, 3 + dimensionCount + parameter.data.length);
      push(name.length, id, name, body);
    }
  });
  const last = records[records.length - 1];
  new DataView(last.buffer).setInt16(2 + last[0], 0, true);
  const out = new Uint8Array(records.reduce((sum, record) => sum + record.length, 0));
  records.reduce((position, record) => (out.set(record, position), position + record.length), 0);
  return out;
}

/**
 * Writes the trajectories (metres, NaN where missing) as a C3D file in `units`. A missing point is
 * stored with a residual of -1, which marks it invalid; a present one with 0, the residual of a
 * point that was filtered or otherwise processed (User Guide, "3D Data - Floating-point Format").
 */
export function writeC3d(trajectories: MarkerTrajectories, units: C3dUnits = 'mm'): Uint8Array {
  const { markerNames, frameRateHz, timesS, positionsM } = trajectories;
  const pointCount = markerNames.length;
  const frameCount = timesS.length;
  if (pointCount > MAX_POINTS)
    throw new C3dFormatError(`A C3D file holds at most ${MAX_POINTS} labelled points; this trial has ${pointCount}.`);
  if (!(frameRateHz > 0)) throw new C3dFormatError('A C3D file needs a positive frame rate.');
  // Header words 4 and 5 keep the original frame numbers, so a trial that starts at 1.2 s keeps its time base.
  const firstFrame = frameCount === 0 ? 1 : Math.max(1, Math.round(timesS[0] * frameRateHz) + 1);
  const lastFrame = firstFrame + Math.max(frameCount, 1) - 1;
  if (lastFrame > MAX_FRAME_NUMBER)
    throw new C3dFormatError(
      `A C3D file numbers frames up to ${MAX_FRAME_NUMBER}; this trial ends at frame ${lastFrame}.`,
    );

  const unitsPerMetre = 1 / METRES_PER_UNIT[units];
  let largest = 0;
  for (const value of positionsM)
    if (Number.isFinite(value)) largest = Math.max(largest, Math.abs(value * unitsPerMetre));
  const scale = -(largest > 0 ? largest / SCALE_DIVISOR : 1);

  const groups = (dataStartBlock: number): GroupSpec[] => [
    {
      name: 'POINT',
      description: '3D point parameters',
      parameters: [
        int16Parameter('USED', 'Number of 3D points', pointCount),
        floatParameter('SCALE', 'Negative: floating-point data; magnitude: largest coordinate / 32000', scale),
        floatParameter('RATE', '3D frame rate in Hz', frameRateHz),
        int16Parameter('DATA_START', 'First block of the 3D data', dataStartBlock),
        int16Parameter('FRAMES', 'Number of 3D frames', frameCount),
        charParameter('LABELS', 'Point labels', markerNames, true),
        charParameter(
          'DESCRIPTIONS',
          'Point descriptions',
          markerNames.map(() => ''),
          true,
        ),
        charParameter('UNITS', 'Units of the 3D points', [units.padEnd(4)], false),
        charParameter('X_SCREEN', 'Axis drawn to the right', [SCREEN_AXES.x], false),
        charParameter('Y_SCREEN', 'Axis drawn upwards', [SCREEN_AXES.y], false),
      ],
    },
    {
      name: 'ANALOG',
      description: 'Analog data parameters',
      // No analog channels, so no analog rate: a rate with zero samples per frame in the header is a contradiction strict readers refuse.
      parameters: [
        int16Parameter('USED', 'Number of analog channels', 0),
        floatParameter('RATE', 'Analog sample rate in Hz', 0),
      ],
    },
    {
      name: 'TRIAL',
      description: 'Trial parameters',
      parameters: [
        frameNumberParameter('ACTUAL_START_FIELD', 'First frame of the trial', firstFrame),
        frameNumberParameter('ACTUAL_END_FIELD', 'Last frame of the trial', lastFrame),
        floatParameter('CAMERA_RATE', 'Frame rate of the cameras in Hz', frameRateHz),
      ],
    },
    {
      name: 'MANUFACTURER',
      description: 'Software that wrote the file',
      parameters: [
        charParameter('COMPANY', 'Company', ['Kinetrace'], false),
        charParameter('SOFTWARE', 'Software', ['Kinetrace markerless motion capture'], false),
      ],
    },
  ];
  // DATA_START is itself a parameter, but its 2-byte value never changes the section's size.
  const parameterBlockCount = Math.ceil((4 + encodeParameterRecords(groups(0)).length) / BLOCK_BYTES);
  const dataStartBlock = PARAMETER_BLOCK + parameterBlockCount;
  const records = encodeParameterRecords(groups(dataStartBlock));

  const dataBytes = frameCount * pointCount * 16;
  const bytes = new Uint8Array((dataStartBlock - 1) * BLOCK_BYTES + Math.ceil(dataBytes / BLOCK_BYTES) * BLOCK_BYTES);
  const view = new DataView(bytes.buffer);
  const word = (n: number) => (n - 1) * 2; // byte offset of 1-based 16-bit word n

  // Header record (User Guide, "The Header Section", Figure 3).
  bytes[0] = PARAMETER_BLOCK;
  bytes[1] = C3D_KEY;
  view.setUint16(word(2), pointCount, true);
  view.setUint16(word(3), 0, true); // analog measurements per 3D frame
  view.setUint16(word(4), firstFrame, true);
  view.setUint16(word(5), lastFrame, true);
  view.setUint16(word(6), 0, true); // maximum interpolation gap: gaps are filled before export
  view.setFloat32(word(7), scale, true);
  view.setUint16(word(9), dataStartBlock, true);
  view.setUint16(word(10), 0, true); // analog samples per 3D frame
  view.setFloat32(word(11), frameRateHz, true);
  view.setUint16(word(150), FOUR_CHAR_EVENT_LABELS_KEY, true);

  // Parameter section header: bytes 1-2 reserved (0), block count, processor type.
  const parameterStart = (PARAMETER_BLOCK - 1) * BLOCK_BYTES;
  bytes[parameterStart + 2] = parameterBlockCount;
  bytes[parameterStart + 3] = PROCESSOR_INTEL;
  bytes.set(records, parameterStart + 4);

  // 3D data: per frame, per point X, Y, Z and the residual/camera-mask word, all float32.
  let position = (dataStartBlock - 1) * BLOCK_BYTES;
  for (let frame = 0; frame < frameCount; frame++) {
    for (let point = 0; point < pointCount; point++) {
      const base = (frame * pointCount + point) * 3;
      const present = [0, 1, 2].every((axis) => Number.isFinite(positionsM[base + axis]));
      for (let axis = 0; axis < 3; axis++)
        view.setFloat32(position + axis * 4, present ? positionsM[base + axis] * unitsPerMetre : 0, true);
      view.setFloat32(position + 12, present ? 0 : -1, true);
      position += 16;
    }
  }
  return bytes;
}

function readParameters(bytes: Uint8Array, start: number, end: number): Map<string, C3dParameter> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = (from: number, length: number) => String.fromCharCode(...bytes.subarray(from, from + length));
  const groupNames = new Map<number, string>();
  const pending: { groupId: number; name: string; parameter: C3dParameter }[] = [];
  let position = start;
  while (position + 2 <= end) {
    const nameLength = Math.abs(view.getInt8(position));
    if (nameLength === 0) break;
    const id = view.getInt8(position + 1);
    const name = text(position + 2, nameLength).toUpperCase();
    const offsetField = position + 2 + nameLength;
    const next = view.getInt16(offsetField, true);
    if (id < 0) {
      groupNames.set(-id, name);
    } else {
      const type = view.getInt8(offsetField + 2) as ParameterType;
      const dimensionCount = bytes[offsetField + 3];
      const dimensions = Array.from(bytes.subarray(offsetField + 4, offsetField + 4 + dimensionCount));
      const dataStart = offsetField + 4 + dimensionCount;
      const count = dimensions.reduce((product, size) => product * size, 1);
      let values: number[] | string[];
      if (type === ParameterType.Char) {
        const length = dimensions[0] ?? 1;
        values = Array.from({ length: count / length }, (_, i) => text(dataStart + i * length, length).trim());
      } else {
        values = Array.from({ length: count }, (_, i) => {
          const at = dataStart + i * Math.abs(type);
          return type === ParameterType.Float32
            ? view.getFloat32(at, true)
            : type === ParameterType.Int16
              ? view.getInt16(at, true)
              : bytes[at];
        });
      }
      pending.push({ groupId: id, name, parameter: { type, dimensions, values } });
    }
    if (next === 0) break;
    position = offsetField + next;
  }
  return new Map(
    pending.map(({ groupId, name, parameter }) => [`${groupNames.get(groupId) ?? groupId}:${name}`, parameter]),
  );
}

function numberParameter(parameters: Map<string, C3dParameter>, key: string): number {
  const value = parameters.get(key)?.values[0];
  if (typeof value !== 'number')
    throw new C3dFormatError(`Malformed C3D file: the required parameter ${key} is missing.`);
  return value;
}

/** Reads a C3D file written in Intel byte order (ours, and most lab systems' on PCs); points come back in metres. */
export function readC3d(bytes: Uint8Array): C3dFile {
  if (bytes.length < BLOCK_BYTES * 2 || bytes[1] !== C3D_KEY)
    throw new C3dFormatError('Not a C3D file: the second byte must be 0x50.');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (n: number) => (n - 1) * 2;
  const header = {
    parameterBlock: bytes[0],
    pointCount: view.getUint16(word(2), true),
    analogPerFrame: view.getUint16(word(3), true),
    firstFrame: view.getUint16(word(4), true),
    lastFrame: view.getUint16(word(5), true),
    maxInterpolationGap: view.getUint16(word(6), true),
    scale: view.getFloat32(word(7), true),
    dataStartBlock: view.getUint16(word(9), true),
    analogSamplesPerFrame: view.getUint16(word(10), true),
    frameRateHz: view.getFloat32(word(11), true),
    fourCharEventLabelsKey: view.getUint16(word(150), true),
    eventCount: view.getUint16(word(151), true),
  };
  const parameterStart = (header.parameterBlock - 1) * BLOCK_BYTES;
  const processorType = bytes[parameterStart + 3];
  if (processorType !== PROCESSOR_INTEL) {
    throw new C3dFormatError(
      'Only C3D files in Intel (PC) byte order can be read; convert the file with Mokka or your lab software.',
    );
  }
  const parameterBlockCount = bytes[parameterStart + 2];
  const parameters = readParameters(bytes, parameterStart + 4, parameterStart + parameterBlockCount * BLOCK_BYTES);

  const pointCount = numberParameter(parameters, 'POINT:USED');
  const frameCount = numberParameter(parameters, 'POINT:FRAMES') & 0xffff; // read as unsigned (User Guide, "POINT:FRAMES")
  const scale = numberParameter(parameters, 'POINT:SCALE');
  const frameRateHz = numberParameter(parameters, 'POINT:RATE');
  const dataStartBlock = numberParameter(parameters, 'POINT:DATA_START') & 0xffff;
  const labels = (parameters.get('POINT:LABELS')?.values ?? []) as string[];
  const units = String(parameters.get('POINT:UNITS')?.values[0] ?? 'mm').toLowerCase();
  const metresPerUnit = Object.hasOwn(METRES_PER_UNIT, units) ? METRES_PER_UNIT[units] : undefined;
  if (metresPerUnit === undefined)
    throw new C3dFormatError(
      `Unknown C3D POINT:UNITS "${units}": expected one of ${Object.keys(METRES_PER_UNIT).join(', ')}.`,
    );

  const isFloat = scale < 0;
  const valueBytes = isFloat ? 4 : 2;
  const frameBytes = (pointCount * 4 + header.analogPerFrame) * valueBytes;
  const dataStart = (dataStartBlock - 1) * BLOCK_BYTES;
  if (dataStart + frameCount * frameBytes > bytes.length)
    throw new C3dFormatError('Truncated C3D file: the data section is shorter than POINT:FRAMES says.');
  const positionsM = new Float64Array(frameCount * pointCount * 3);
  const timesS = new Float64Array(frameCount);
  for (let frame = 0; frame < frameCount; frame++) {
    timesS[frame] = (header.firstFrame - 1 + frame) / frameRateHz;
    for (let point = 0; point < pointCount; point++) {
      const at = dataStart + frame * frameBytes + point * 4 * valueBytes;
      const read = (k: number) =>
        isFloat ? view.getFloat32(at + k * 4, true) : view.getInt16(at + k * 2, true) * scale;
      const residualWord = isFloat ? Math.trunc(view.getFloat32(at + 12, true)) : view.getInt16(at + 6, true);
      for (let axis = 0; axis < 3; axis++) {
        positionsM[(frame * pointCount + point) * 3 + axis] =
          residualWord < 0 ? Number.NaN : read(axis) * metresPerUnit;
      }
    }
  }
  const markerNames = Array.from({ length: pointCount }, (_, i) => labels[i] ?? `Point${i + 1}`);
  return {
    header,
    processorType,
    parameterBlockCount,
    parameters,
    units,
    trajectories: { markerNames, frameRateHz, timesS, positionsM },
  };
}
