import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cameraCentreWorld, projectPoint } from '../../src/camera/camera.ts';
import { readCameraFile, readQualisysCalibration } from '../../src/camera/formats/index.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { BALANCING_TRIAL, BODY_25B, POSE2SIM_QCA, median, readOpenPoseFolder, readTrc } from './pose2sim-reference.ts';

const TRC = `${BALANCING_TRIAL}/pose-3d/S00_P00_T01_BalancingTrial_0-100.trc`;

describeWithData('Qualisys .qca.txt reader (Pose2Sim demo, 4 cameras)', [POSE2SIM_QCA, TRC], () => {
  const text = () => readFileSync(referencePath(POSE2SIM_QCA), 'utf8');

  it('reads intrinsics in pixels, sizes, and orthonormal rotations', async () => {
    const cameras = await readCameraFile(referencePath(POSE2SIM_QCA));
    expect(cameras.map((c) => c.name)).toEqual(['cam01', 'cam02', 'cam03', 'cam04']);
    const cam1 = cameras[0];
    expect(cam1.imageSize).toEqual({ width: 1088, height: 1920 });
    expect(cam1.intrinsics[0]).toBeCloseTo(107599.671875 / 64, 6);
    expect(cam1.intrinsics[4]).toBeCloseTo(107588.828125 / 64, 6);
    expect(cam1.intrinsics[2]).toBeCloseTo(34110.316406 / 64, 6);
    expect(cam1.intrinsics[5]).toBeCloseTo(60680.792969 / 64, 6);
    expect(cam1.distortion[0]).toBeCloseTo(-0.046183 / 64, 9);
    expect(cam1.distortion[3]).toBeCloseTo(0.00069 / 64, 9);
    const raw = readQualisysCalibration(readFileSync(referencePath(POSE2SIM_QCA), 'utf8'), { distortion: 'raw' });
    expect(Array.from(raw[0].distortion)).toEqual([-0.046183, 0.139983, 0.000608, 0.00069, 0]);
    for (const camera of cameras) {
      const R = camera.rotationCameraFromWorld;
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) {
          const dot = R[i * 3] * R[j * 3] + R[i * 3 + 1] * R[j * 3 + 1] + R[i * 3 + 2] * R[j * 3 + 2];
          expect(dot).toBeCloseTo(i === j ? 1 : 0, 9);
        }
      }
      const det =
        R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
      expect(det).toBeCloseTo(1, 9);
    }
  });

  it('puts the camera centres at the lab positions, re-expressed y up (Pose2Sim zup2yup), at head height', () => {
    const yUp = readQualisysCalibration(text());
    const zUp = readQualisysCalibration(text(), { worldUp: 'z' });
    // cam01 transform: x=1460.23 y=-1909.16 z=1896.51 (mm, lab z up).
    const [x, y, z] = cameraCentreWorld(zUp[0]);
    expect([x, y, z].map((v) => v * 1000)).toEqual([
      expect.closeTo(1460.2323709, 4),
      expect.closeTo(-1909.1590482, 4),
      expect.closeTo(1896.5058524, 4),
    ]);
    for (let c = 0; c < 4; c++) {
      const [xz, yz, zz] = cameraCentreWorld(zUp[c]);
      const centre = cameraCentreWorld(yUp[c]);
      expect(centre[0]).toBeCloseTo(yz, 9);
      expect(centre[1]).toBeCloseTo(zz, 9);
      expect(centre[2]).toBeCloseTo(xz, 9);
      expect(centre[1]).toBeGreaterThan(1.5); // tripods about 1.7-2.1 m high
      expect(centre[1]).toBeLessThan(2.5);
    }
  });

  it("reprojects Pose2Sim's triangulated .trc onto its 2D keypoints", () => {
    const cameras = readQualisysCalibration(text());
    const trc = readTrc(referencePath(TRC));
    const lines: string[] = [];
    const perCameraMedians: number[] = [];
    for (const camera of cameras) {
      const keypoints = readOpenPoseFolder(referencePath(`${BALANCING_TRIAL}/pose-associated/${camera.name}_json`));
      expect(keypoints.length).toBe(trc.frames.length);
      const errors: number[] = [];
      const signed: [number, number][] = [];
      trc.frames.forEach((frame, f) => {
        const kp = keypoints[f];
        if (!kp) return;
        trc.markers.forEach((marker, m) => {
          const j = BODY_25B.indexOf(marker);
          if (j < 0 || kp[3 * j + 2] < 0.5) return;
          const p = projectPoint(camera, frame[m]);
          expect(p).not.toBeNull();
          const dx = kp[3 * j] - p![0];
          const dy = kp[3 * j + 1] - p![1];
          errors.push(Math.hypot(dx, dy));
          signed.push([dx, dy]);
        });
      });
      const med = median(errors);
      perCameraMedians.push(med);
      const inliers = errors.filter((e) => e < 20).length / errors.length;
      lines.push(
        `${camera.name}: ${errors.length} keypoints, median ${med.toFixed(1)} px, ` +
          `${(inliers * 100).toFixed(0)}% within 20 px, median offset (${median(signed.map((s) => s[0])).toFixed(1)}, ` +
          `${median(signed.map((s) => s[1])).toFixed(1)}) px`,
      );
    }
    console.log(`Pose2Sim .trc reprojected with the .qca.txt cameras vs OpenPose 2D:\n  ${lines.join('\n  ')}`);
    // Wrong conventions (axes, units, transposes) give hundreds of pixels; OpenPose's own noise and
    // left/right swaps in occluded views give the ~10 px that remain.
    for (const m of perCameraMedians) expect(m).toBeLessThan(20);
    expect(median(perCameraMedians)).toBeLessThan(12);
  });

  it('rejects text that is not a Qualisys calibration, with a clear message', () => {
    expect(() => readQualisysCalibration('{"cameras": []}')).toThrow(/no <calibration> element/);
    expect(() =>
      readQualisysCalibration(
        '<calibration><cameras><camera serial="a" model="none"><fov_video left="0" top="0" right="9" bottom="9"/></camera></cameras></calibration>',
      ),
    ).toThrow(/camera "a" intrinsic has no "focalLengthU"/);
  });
});

describe('Qualisys .qca.txt comments', () => {
  const camera = (serial: string) =>
    `<camera serial="${serial}" model="none"><fov_video left="0" top="0" right="1919" bottom="1079"/>` +
    '<transform x="0" y="0" z="3000" r11="1" r12="0" r13="0" r21="0" r22="1" r23="0" r31="0" r32="0" r33="1"/>' +
    '<intrinsic focalLengthU="96000" focalLengthV="96000" centerPointU="61440" centerPointV="34560"/></camera>';

  it('skips what a comment holds, and refuses a comment that is never closed, however many more open after it', () => {
    const file = `<calibration><cameras>${camera('1')}<!-- ${camera('2')} -->${camera('3')}</cameras></calibration>`;
    expect(readQualisysCalibration(file).map((c) => c.name)).toEqual(['1', '3']);
    // Issue 20: unclosed comments were rescanned to the end of the file from each "<!--" (3.6 s for 160 KB).
    const unclosed = `<calibration><cameras>${camera('1')}${'<!-- x'.repeat(2000)}</cameras></calibration>`;
    expect(() => readQualisysCalibration(unclosed)).toThrow(/comment at character \d+ is never closed/);
  });
});
