import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IkSetupFormatError, readIkSetup } from '../../src/formats/ik-setup.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const gaitSetup = 'opensim_gait/Pipelines/Gait2354_Simbody/subject01_Setup_IK.xml';
const hamnerSetup = 'opensim_gait/Pipelines/Hamner/Setup_IK.xml';
const hamnerTasks = 'opensim_gait/Pipelines/Hamner/Tasks_IK.xml';

describeWithData('readIkSetup on OpenSim example setups', [gaitSetup, hamnerSetup, hamnerTasks], () => {
  it('reads the gait2354 setup: files, time range, marker weights and coordinate tasks', () => {
    const setup = readIkSetup(readFileSync(referencePath(gaitSetup), 'utf8'));
    expect(setup.modelFile).toBe('subject01_simbody.osim');
    expect(setup.markerFile).toBe('subject01_walk1.trc');
    expect(setup.outputMotionFile).toBe('subject01_walk1_ik.mot');
    expect(setup.timeRangeS).toEqual([0.4, 1.6]);
    expect(setup.accuracy).toBe(1e-5);
    expect(setup.constraintWeight).toBe(20);
    expect(setup.markerTasks.find((t) => t.name === 'R.ASIS')).toEqual({ name: 'R.ASIS', apply: true, weight: 10 });
    expect(setup.coordinateTasks.map((t) => t.name)).toEqual([
      'subtalar_angle_r',
      'mtp_angle_r',
      'subtalar_angle_l',
      'mtp_angle_l',
    ]);
    expect(setup.coordinateTasks[0]).toMatchObject({ weight: 1000, valueType: 'default_value', value: 0 });
  });

  it('reads the Hamner setup (padded values, Inf constraint weight, a marker switched off) and its task file alike', () => {
    const setup = readIkSetup(readFileSync(referencePath(hamnerSetup), 'utf8'));
    expect(setup.constraintWeight).toBe(Number.POSITIVE_INFINITY);
    expect(setup.markerFile).toBe('subject02_running.trc');
    expect(setup.timeRangeS).toEqual([0, 9.983]);
    expect(setup.markerTasks.find((t) => t.name === 'L.Bicep')).toEqual({ name: 'L.Bicep', apply: false, weight: 0 });
    const tasks = readIkSetup(readFileSync(referencePath(hamnerTasks), 'utf8'));
    expect(tasks.markerTasks).toEqual(setup.markerTasks);
  });
});

describe('readIkSetup edge cases', () => {
  it('reads manual coordinate values and refuses other documents', () => {
    const setup = readIkSetup(
      '<OpenSimDocument><InverseKinematicsTool name="t"><IKTaskSet><objects><IKCoordinateTask name="knee"><apply>true</apply><weight>5</weight><value_type>manual_value</value_type><value>0.5</value></IKCoordinateTask></objects></IKTaskSet></InverseKinematicsTool></OpenSimDocument>',
    );
    expect(setup.coordinateTasks).toEqual([
      { name: 'knee', apply: true, weight: 5, valueType: 'manual_value', value: 0.5 },
    ]);
    expect(setup.timeRangeS).toBeUndefined();
    expect(() => readIkSetup('<OpenSimDocument><ScaleTool/></OpenSimDocument>')).toThrow(IkSetupFormatError);
  });
});
