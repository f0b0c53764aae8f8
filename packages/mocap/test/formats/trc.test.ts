import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTrc, TrcFormatError, writeTrc } from '../../src/formats/trc.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const gaitWalk = 'opensim_gait/Pipelines/Gait2354_Simbody/subject01_walk1.trc';
const hamnerRunning = 'opensim_gait/Pipelines/Hamner/subject02_running.trc';
const openCapWalk =
  'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8/MarkerData/walk.trc';
const enhancerSquats = 'marker_enhancer/test_data/squats.trc';
const pose2simBalancing =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-3d/S00_P00_T01_BalancingTrial_0-100.trc';

function read(path: string) {
  return readTrc(readFileSync(referencePath(path), 'utf8'));
}

describeWithData(
  'readTrc on OpenSim, OpenCap, marker-enhancer and Pose2Sim files',
  [gaitWalk, hamnerRunning, openCapWalk, enhancerSquats, pose2simBalancing],
  () => {
    it('converts OpenSim gait markers from mm to m and keeps every frame and marker', () => {
      const trc = read(gaitWalk);
      expect(trc.markerNames).toHaveLength(41);
      expect(trc.markerNames[0]).toBe('R.ASIS');
      expect(trc.timesS).toHaveLength(151);
      expect(trc.frameRateHz).toBe(60);
      // First row of the file: 617.247620 1055.275020 170.781980 (mm).
      expect(trc.positionsM[0]).toBeCloseTo(0.61724762, 9);
      expect(trc.positionsM[1]).toBeCloseTo(1.05527502, 9);
      expect(trc.positionsM[2]).toBeCloseTo(0.17078198, 9);
      expect(trc.positionsM.length).toBe(151 * 41 * 3);
    });

    it('reads the Hamner running file whose header lines end in tabs', () => {
      const trc = read(hamnerRunning);
      expect(trc.markerNames).toHaveLength(41);
      expect(trc.timesS).toHaveLength(600);
      expect(trc.positionsM[0]).toBeCloseTo(0.8090094, 9);
      expect(Number.isFinite(trc.positionsM[trc.positionsM.length - 1])).toBe(true);
    });

    it('reads OpenCap and marker-enhancer files in metres', () => {
      const walk = read(openCapWalk);
      expect(walk.markerNames).toHaveLength(63);
      expect(walk.markerNames).toContain('r.ASIS_study');
      expect(walk.timesS).toHaveLength(222);
      expect(walk.positionsM[0]).toBeCloseTo(-4.12985, 9);
      const squats = read(enhancerSquats);
      expect(squats.markerNames).toHaveLength(20);
      expect(squats.timesS).toHaveLength(581);
      expect(squats.timesS[1]).toBeCloseTo(1 / 60, 6);
    });

    it('reads Pose2Sim files that have no blank line before the data', () => {
      const trc = read(pose2simBalancing);
      expect(trc.markerNames).toHaveLength(21);
      expect(trc.timesS).toHaveLength(100);
      expect(trc.timesS[0]).toBeCloseTo(1 / 60, 12);
      expect(trc.positionsM[0]).toBeCloseTo(-0.06497214796810755, 12);
    });

    it('writes what it reads back to within 0.1 µm', () => {
      const trc = read(gaitWalk);
      const again = readTrc(writeTrc(trc));
      expect(again.markerNames).toEqual(trc.markerNames);
      expect(again.frameRateHz).toBe(trc.frameRateHz);
      let worst = 0;
      for (let i = 0; i < trc.positionsM.length; i++)
        worst = Math.max(worst, Math.abs(again.positionsM[i] - trc.positionsM[i]));
      expect(worst).toBeLessThan(1e-7);
    });
  },
);

describe('readTrc edge cases', () => {
  it('reads empty cells as missing (NaN) and keeps them missing on write', () => {
    const text = [
      'PathFileType\t4\t(X/Y/Z)\tgap.trc',
      'DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames',
      '100\t100\t2\t2\tmm\t100\t1\t2',
      'Frame#\tTime\tA\t\t\tB\t\t',
      '\t\tX1\tY1\tZ1\tX2\tY2\tZ2',
      '',
      '1\t0\t1000\t2000\t3000\t\t\t',
      '2\t0.01\t1\t2\t3\t4\t5\t6',
    ].join('\n');
    const trc = readTrc(text);
    expect(trc.markerNames).toEqual(['A', 'B']);
    expect(Array.from(trc.positionsM.subarray(0, 3))).toEqual([1, 2, 3]);
    expect(trc.positionsM.subarray(3, 6).every(Number.isNaN)).toBe(true);
    expect(trc.positionsM[11]).toBeCloseTo(0.006, 12);
    const again = readTrc(writeTrc(trc));
    expect(again.positionsM.subarray(3, 6).every(Number.isNaN)).toBe(true);
    expect(again.positionsM[11]).toBeCloseTo(0.006, 12);
  });

  it('refuses a file that is not a .trc with a message saying so', () => {
    expect(() => readTrc('time\tx\n0\t1\n')).toThrow(TrcFormatError);
  });
});
