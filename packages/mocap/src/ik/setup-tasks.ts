import type { IkTaskSet } from '../formats/ik-setup.ts';
import type { KinematicModel } from '../model/kinematic-model.ts';
import { IkSetupError, type IkTaskWeights } from './ik-problem.ts';

/**
 * The weights OpenSim's InverseKinematicsTool derives from a task set: applied marker tasks give
 * the only tracked markers and their weights (markers without an applied task are ignored), and
 * applied coordinate tasks hold a coordinate at its default value or at a manual value.
 */
export function ikTasksFromSetup(model: KinematicModel, tasks: IkTaskSet): IkTaskWeights {
  const markerWeights = new Map(tasks.markerTasks.filter((task) => task.apply).map((task) => [task.name, task.weight]));
  const coordinateTasks = tasks.coordinateTasks
    .filter((task) => task.apply)
    .map((task) => {
      const coordinate = model.coordinates.find((c) => c.name === task.name);
      if (!coordinate)
        throw new IkSetupError(
          `The IK setup has a coordinate task for "${task.name}", which model "${model.description.name}" does not have.`,
        );
      if (task.valueType === 'from_file') {
        throw new IkSetupError(
          `Coordinate task "${task.name}" takes its values from a coordinate file, which is not supported; use value_type default_value or manual_value.`,
        );
      }
      return {
        coordinate: task.name,
        weight: task.weight,
        value: task.valueType === 'manual_value' ? task.value : coordinate.defaultValue,
      };
    });
  return { markerWeights: markerWeights.size > 0 ? markerWeights : undefined, coordinateTasks };
}
