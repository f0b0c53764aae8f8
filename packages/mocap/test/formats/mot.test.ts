import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readStorage, StorageFormatError, storageColumn, writeStorage } from '../../src/formats/mot.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const viewerMotion = 'opencap_viewer_fixture/DJ1_videoAndMocap.mot';
const hamnerMarkers = 'opensim_gait/Pipelines/Hamner/outputReference/ResultsIK/ik_model_marker_locations.sto';
const gaitForces = 'opensim_gait/Pipelines/Gait2354_Simbody/subject01_walk1_grf.mot';

function read(path: string) {
  return readStorage(readFileSync(referencePath(path), 'utf8'));
}

describeWithData('readStorage on OpenCap and OpenSim files', [viewerMotion, hamnerMarkers, gaitForces], () => {
  it('reads an OpenCap IK motion in degrees with its coordinate labels', () => {
    const mot = read(viewerMotion);
    expect(mot.name).toBe('Coordinates');
    expect(mot.inDegrees).toBe(true);
    expect(mot.columnLabels).toHaveLength(35);
    expect(mot.columnLabels.slice(0, 3)).toEqual(['pelvis_tilt', 'pelvis_list', 'pelvis_rotation']);
    expect(mot.timesS).toHaveLength(86);
    expect(mot.timesS[0]).toBeCloseTo(1.14, 10);
    expect(storageColumn(mot, 'pelvis_list')?.[0]).toBeCloseTo(5.20416308, 10);
    expect(storageColumn(mot, 'no_such_coordinate')).toBeUndefined();
  });

  it('reads a .sto table in radians with no blank header lines', () => {
    const sto = read(hamnerMarkers);
    expect(sto.inDegrees).toBe(false);
    expect(sto.columnLabels).toHaveLength(111);
    expect(sto.columnLabels[0]).toBe('R.ASIS_tx');
    expect(sto.timesS).toHaveLength(599);
  });

  it('reads a tab-separated ground-reaction file whose header lines end in tabs', () => {
    const grf = read(gaitForces);
    expect(grf.name).toBe('subject01_walk1_grf.mot');
    expect(grf.columnLabels).toHaveLength(18);
    expect(grf.timesS).toHaveLength(1501);
    expect(grf.values[0]).toBeCloseTo(101.5119767, 10);
  });

  it('writes what it reads back to 1e-8', () => {
    const mot = read(viewerMotion);
    const again = readStorage(writeStorage(mot));
    expect(again.columnLabels).toEqual(mot.columnLabels);
    expect(again.inDegrees).toBe(true);
    let worst = 0;
    for (let i = 0; i < mot.values.length; i++) worst = Math.max(worst, Math.abs(again.values[i] - mot.values[i]));
    expect(worst).toBeLessThan(1e-8);
  });
});

describeWithData(
  'readStorage on a SIMM-format motion',
  ['opensim_gait/Pipelines/Gait2392_Simbody/OutputReference/subject01_walk1_ik.mot'],
  () => {
    it('takes a SIMM motion without an inDegrees line as degrees', () => {
      const mot = read('opensim_gait/Pipelines/Gait2392_Simbody/OutputReference/subject01_walk1_ik.mot');
      expect(mot.inDegrees).toBe(true);
      expect(mot.timesS).toHaveLength(211);
      expect(storageColumn(mot, 'hip_flexion_r')?.[0]).toBeCloseTo(19.252966588662975, 10);
    });
  },
);

describe('readStorage edge cases', () => {
  it('reads space-separated labels and refuses a file with no endheader', () => {
    const table = readStorage('motion\ninDegrees=no\nendheader\ntime a b\n0 1 2\n0.5 3 4\n');
    expect(table.columnLabels).toEqual(['a', 'b']);
    expect(Array.from(table.values)).toEqual([1, 2, 3, 4]);
    expect(table.inDegrees).toBe(false);
    expect(() => readStorage('time\ta\n0\t1\n')).toThrow(StorageFormatError);
  });
});
