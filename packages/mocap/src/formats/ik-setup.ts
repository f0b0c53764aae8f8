import { childNamed, childText, type XmlNode, parseOpenSimNumber, parseXmlTree } from '../model/xml-tree.ts';

/**
 * OpenSim inverse-kinematics setup files: an <InverseKinematicsTool> (Setup_IK.xml) or a bare
 * <IKTaskSet> (Tasks_IK.xml). Marker tasks give marker weights; coordinate tasks pull a
 * coordinate towards a value (its default, a manual value, or a coordinate file).
 */
export interface IkMarkerTask {
  name: string;
  apply: boolean;
  weight: number;
}

export type IkCoordinateValueType = 'default_value' | 'manual_value' | 'from_file';

export interface IkCoordinateTask {
  name: string;
  apply: boolean;
  weight: number;
  valueType: IkCoordinateValueType;
  /** Manual value, in the model's units (rad or m), as OpenSim uses it. */
  value: number;
}

export interface IkTaskSet {
  markerTasks: IkMarkerTask[];
  coordinateTasks: IkCoordinateTask[];
}

export interface IkSetup extends IkTaskSet {
  name: string;
  modelFile?: string;
  markerFile?: string;
  coordinateFile?: string;
  outputMotionFile?: string;
  timeRangeS?: [number, number];
  accuracy?: number;
  constraintWeight?: number;
}

export class IkSetupFormatError extends Error {
  override name = 'IkSetupFormatError';
}

function text(node: XmlNode, name: string): string | undefined {
  const value = childText(node, name)?.trim();
  return value === undefined || value === '' || value === 'Unassigned' ? undefined : value;
}

function readTasks(taskSet: XmlNode | undefined): IkTaskSet {
  const objects = taskSet ? (childNamed(taskSet, 'objects') ?? taskSet) : undefined;
  const markerTasks: IkMarkerTask[] = [];
  const coordinateTasks: IkCoordinateTask[] = [];
  for (const task of objects?.children ?? []) {
    const apply = (text(task, 'apply') ?? 'true').toLowerCase() === 'true';
    const weight = parseOpenSimNumber(text(task, 'weight') ?? '1');
    if (task.name === 'IKMarkerTask') {
      markerTasks.push({ name: task.attributes.name, apply, weight });
    } else if (task.name === 'IKCoordinateTask') {
      const valueType = (text(task, 'value_type') ?? 'default_value') as IkCoordinateValueType;
      if (!['default_value', 'manual_value', 'from_file'].includes(valueType)) {
        throw new IkSetupFormatError(
          `IKCoordinateTask "${task.attributes.name}" has unknown value_type "${valueType}" (expected default_value, manual_value or from_file).`,
        );
      }
      coordinateTasks.push({
        name: task.attributes.name,
        apply,
        weight,
        valueType,
        value: parseOpenSimNumber(text(task, 'value') ?? '0'),
      });
    }
  }
  return { markerTasks, coordinateTasks };
}

/** Reads a Setup_IK.xml (<InverseKinematicsTool>) or a task file (<IKTaskSet>). */
export function readIkSetup(xml: string): IkSetup {
  const root = parseXmlTree(xml);
  const tool = root.name === 'InverseKinematicsTool' ? root : childNamed(root, 'InverseKinematicsTool');
  const taskSetOnly = root.name === 'IKTaskSet' ? root : childNamed(root, 'IKTaskSet');
  if (!tool) {
    if (taskSetOnly) return { name: taskSetOnly.attributes.name ?? 'tasks', ...readTasks(taskSetOnly) };
    throw new IkSetupFormatError(
      'Not an OpenSim IK setup: expected an <InverseKinematicsTool> or an <IKTaskSet> element.',
    );
  }
  const range = text(tool, 'time_range')?.split(/\s+/).map(parseOpenSimNumber);
  const accuracy = text(tool, 'accuracy');
  const constraintWeight = text(tool, 'constraint_weight');
  return {
    name: tool.attributes.name ?? 'ik',
    modelFile: text(tool, 'model_file'),
    markerFile: text(tool, 'marker_file'),
    coordinateFile: text(tool, 'coordinate_file'),
    outputMotionFile: text(tool, 'output_motion_file'),
    timeRangeS: range && range.length >= 2 ? [range[0], range[1]] : undefined,
    accuracy: accuracy === undefined ? undefined : parseOpenSimNumber(accuracy),
    constraintWeight: constraintWeight === undefined ? undefined : parseOpenSimNumber(constraintWeight),
    ...readTasks(childNamed(tool, 'IKTaskSet')),
  };
}
