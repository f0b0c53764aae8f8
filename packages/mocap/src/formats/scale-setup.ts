import type { MarkerDescription, Vec3 } from '../model/osim-model.ts';
import type { IkCoordinateTask, IkMarkerTask } from './ik-setup.ts';
import {
  childBoolean,
  childNamed,
  childNumbers,
  childrenNamed,
  childText,
  descendants,
  parseXmlTree,
  type XmlNode,
} from '../model/xml-tree.ts';

/**
 * OpenSim ScaleTool setup files (Setup_Scale.xml, OpenSim 3.x and 4.x): the model scaler's
 * measurements (marker pairs → body scale axes), manual scales, scaling order and time range, and
 * the marker placer's IK tasks and time range; plus the marker set files a GenericModelMaker
 * points to (OpenSim 2.x/3.x `<body>` or 4.x `<socket_parent_frame>`).
 */

export type ScaleAxis = 0 | 1 | 2;

export interface BodyScaleAxes {
  body: string;
  /** Which of the body's X, Y, Z axes the measurement scales. */
  axes: ScaleAxis[];
}

export interface Measurement {
  name: string;
  apply: boolean;
  markerPairs: Array<[string, string]>;
  bodyScales: BodyScaleAxes[];
}

export interface ManualScale {
  body: string;
  factors: Vec3;
  apply: boolean;
}

export type ScalingStep = 'measurements' | 'manualScale';

export interface ScaleSetup {
  name: string;
  massKg?: number;
  /** As written in the file; OpenSim does not use it and its unit varies between examples (mm, m). */
  height?: number;
  modelFile?: string;
  markerSetFile?: string;
  scaler: {
    apply: boolean;
    scalingOrder: ScalingStep[];
    measurements: Measurement[];
    manualScales: ManualScale[];
    markerFile?: string;
    timeRangeS?: [number, number];
    preserveMassDistribution: boolean;
    outputModelFile?: string;
    outputScaleFile?: string;
  };
  /** The marker placer's IK tasks use the IK setup's task types (from_file values are not supported). */
  placer: {
    apply: boolean;
    markerTasks: IkMarkerTask[];
    coordinateTasks: IkCoordinateTask[];
    markerFile?: string;
    timeRangeS?: [number, number];
    outputModelFile?: string;
    outputMotionFile?: string;
    /** Maximum marker movement in the averaged frames, m; negative: no limit. */
    maxMarkerMovementM: number;
  };
}

export class ScaleSetupFormatError extends Error {
  override name = 'ScaleSetupFormatError';
}

const AXIS_INDEX: Record<string, ScaleAxis> = { X: 0, Y: 1, Z: 2 };

/** A set's members, whether written as <Set><objects>…</objects></Set> or directly. */
function setMembers(set: XmlNode | undefined, memberName: string): XmlNode[] {
  if (!set) return [];
  const objects = childNamed(set, 'objects');
  return childrenNamed(objects ?? set, memberName);
}

function optionalText(node: XmlNode | undefined, name: string): string | undefined {
  if (!node) return undefined;
  const text = childText(node, name)?.trim();
  return text && text !== 'Unassigned' ? text : undefined;
}

function timeRange(node: XmlNode | undefined): [number, number] | undefined {
  const values = node ? childNumbers(node, 'time_range') : undefined;
  return values && values.length >= 2 ? [values[0], values[1]] : undefined;
}

function parseMeasurement(node: XmlNode): Measurement {
  const markerPairs = setMembers(childNamed(node, 'MarkerPairSet'), 'MarkerPair').map((pair): [string, string] => {
    const names = (childText(pair, 'markers') ?? '').split(/\s+/).filter(Boolean);
    if (names.length !== 2)
      throw new ScaleSetupFormatError(
        `Measurement "${node.attributes.name}" has a marker pair with ${names.length} markers; each pair needs two.`,
      );
    return [names[0], names[1]];
  });
  const bodyScales = setMembers(childNamed(node, 'BodyScaleSet'), 'BodyScale').map((bodyScale) => ({
    body: bodyScale.attributes.name ?? '',
    axes: (childText(bodyScale, 'axes') ?? 'X Y Z')
      .split(/\s+/)
      .filter(Boolean)
      .map((axis) => {
        const index = AXIS_INDEX[axis.toUpperCase()];
        if (index === undefined)
          throw new ScaleSetupFormatError(
            `BodyScale "${bodyScale.attributes.name}" has axis "${axis}"; use X, Y and/or Z.`,
          );
        return index;
      }),
  }));
  return { name: node.attributes.name ?? '', apply: childBoolean(node, 'apply') ?? true, markerPairs, bodyScales };
}

export function readScaleSetup(text: string): ScaleSetup {
  const root = parseXmlTree(text);
  const tool = root.name === 'ScaleTool' ? root : descendants(root, (node) => node.name === 'ScaleTool')[0];
  if (!tool)
    throw new ScaleSetupFormatError(
      'Not an OpenSim scale setup: no <ScaleTool> element. Pass the Setup_Scale.xml written by OpenSim.',
    );

  const modelMaker = childNamed(tool, 'GenericModelMaker');
  const scaler = childNamed(tool, 'ModelScaler');
  const placer = childNamed(tool, 'MarkerPlacer');
  const massKg = childNumbers(tool, 'mass')?.[0];
  const height = childNumbers(tool, 'height')?.[0];

  const measurements = scaler
    ? setMembers(childNamed(scaler, 'MeasurementSet'), 'Measurement').map(parseMeasurement)
    : [];
  const manualScales = scaler
    ? setMembers(childNamed(scaler, 'ScaleSet'), 'Scale').map((scale) => {
        const factors = childNumbers(scale, 'scales') ?? [1, 1, 1];
        return {
          body: childText(scale, 'segment')?.trim() ?? '',
          factors: [factors[0], factors[1], factors[2]] as Vec3,
          apply: childBoolean(scale, 'apply') ?? true,
        };
      })
    : [];
  const scalingOrder = (optionalText(scaler, 'scaling_order') ?? 'measurements')
    .split(/\s+/)
    .filter((step): step is ScalingStep => step === 'measurements' || step === 'manualScale');

  const taskSet = placer ? childNamed(placer, 'IKTaskSet') : undefined;
  const taskNodes = taskSet ? (childNamed(taskSet, 'objects')?.children ?? taskSet.children) : [];
  const markerTasks: IkMarkerTask[] = [];
  const coordinateTasks: IkCoordinateTask[] = [];
  for (const task of taskNodes) {
    const common = {
      name: task.attributes.name ?? '',
      apply: childBoolean(task, 'apply') ?? true,
      weight: childNumbers(task, 'weight')?.[0] ?? 1,
    };
    if (task.name === 'IKMarkerTask') markerTasks.push(common);
    else if (task.name === 'IKCoordinateTask') {
      const valueType = (childText(task, 'value_type')?.trim() ?? 'default_value') as IkCoordinateTask['valueType'];
      coordinateTasks.push({ ...common, valueType, value: childNumbers(task, 'value')?.[0] ?? 0 });
    }
  }

  return {
    name: tool.attributes.name ?? '',
    massKg,
    height,
    modelFile: optionalText(modelMaker, 'model_file'),
    markerSetFile: optionalText(modelMaker, 'marker_set_file'),
    scaler: {
      apply: (scaler && childBoolean(scaler, 'apply')) ?? scaler !== undefined,
      scalingOrder,
      measurements,
      manualScales,
      markerFile: optionalText(scaler, 'marker_file'),
      timeRangeS: timeRange(scaler),
      preserveMassDistribution: (scaler && childBoolean(scaler, 'preserve_mass_distribution')) ?? false,
      outputModelFile: optionalText(scaler, 'output_model_file'),
      outputScaleFile: optionalText(scaler, 'output_scale_file'),
    },
    placer: {
      apply: (placer && childBoolean(placer, 'apply')) ?? placer !== undefined,
      markerTasks,
      coordinateTasks,
      markerFile: optionalText(placer, 'marker_file'),
      timeRangeS: timeRange(placer),
      outputModelFile: optionalText(placer, 'output_model_file'),
      outputMotionFile: optionalText(placer, 'output_motion_file'),
      maxMarkerMovementM: (placer ? childNumbers(placer, 'max_marker_movement')?.[0] : undefined) ?? -1,
    },
  };
}

/**
 * A marker set file (<MarkerSet> of OpenSim 2.x–4.x). Markers name their body with <body> (old
 * format) or <socket_parent_frame>/bodyset/NAME (OpenSim 4).
 */
export function readMarkerSet(text: string): Array<MarkerDescription & { fixed: boolean }> {
  const root = parseXmlTree(text);
  const set = root.name === 'MarkerSet' ? root : descendants(root, (node) => node.name === 'MarkerSet')[0];
  if (!set) throw new ScaleSetupFormatError('Not an OpenSim marker set file: no <MarkerSet> element.');
  return setMembers(set, 'Marker').map((marker) => {
    const frame = childText(marker, 'body') ?? childText(marker, 'socket_parent_frame') ?? '';
    const body = frame.trim().split('/').filter(Boolean).pop() ?? '';
    const location = childNumbers(marker, 'location') ?? [0, 0, 0];
    return {
      name: marker.attributes.name ?? '',
      body,
      locationM: [location[0], location[1], location[2]] as Vec3,
      fixed: childBoolean(marker, 'fixed') ?? false,
    };
  });
}
