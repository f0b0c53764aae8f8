import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { calibrateCameraFromVideo } from '../../src/calibration/camera-calibration.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import {
  DEMO_FLOOR_BOARD,
  demoCamerasInBoardWorld,
  poseError,
  renderBoardView,
  writeStillY4m,
} from './board-in-world.ts';
import { POSE2SIM_QCA } from './pose2sim-reference.ts';

/**
 * The truth behind the browser test's calibration: a board lying on the floor of the Pose2Sim demo lab,
 * rendered into each of the four demo cameras' views at phone size and written as the still .y4m video a
 * fake camera plays, gives back each camera's pose in the board's world (the lab world moved to the
 * board's corner 0) through the calibration step, with the lens known as a lens calibration gives it.
 */
describeWithData('extrinsics from boards rendered into the Pose2Sim demo cameras', [POSE2SIM_QCA], () => {
  const workDir = mkdtempSync(join(tmpdir(), 'kinetrace-rendered-board-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('recovers every camera within 1 cm and 0.5° of the pose the board was rendered from', async () => {
    const { board } = DEMO_FLOOR_BOARD;
    const lines: string[] = [];
    for (const truth of await demoCamerasInBoardWorld(referencePath(POSE2SIM_QCA))) {
      const video = join(workDir, `${truth.name}.y4m`);
      writeStillY4m(renderBoardView(truth, board), truth.imageSize, video);
      const result = await calibrateCameraFromVideo(video, board, {
        cameraName: truth.name,
        intrinsics: { intrinsics: truth.intrinsics, distortion: truth.distortion, imageSize: truth.imageSize },
      });
      // The planar ambiguity's other pose explains the board worse: the best one is the truth.
      const [best, other] = result.solutions;
      const { centreErrorM, rotationErrorDeg } = poseError(best.camera, truth);
      lines.push(
        `${truth.name}: centre ${(centreErrorM * 1000).toFixed(1)} mm, rotation ${rotationErrorDeg.toFixed(3)}°, ` +
          `board rms ${best.boardRmsPx.toFixed(3)} px (other solution ${other ? `${other.boardRmsPx.toFixed(2)} px, ${poseError(other.camera, truth).rotationErrorDeg.toFixed(1)}°` : 'none'})`,
      );
      expect(centreErrorM).toBeLessThan(0.01);
      expect(rotationErrorDeg).toBeLessThan(0.5);
    }
    console.log(
      `Rendered floor board (${board.rows} x ${board.cols}, ${board.squareSizeMm} mm) vs the demo's cameras:\n  ${lines.join('\n  ')}`,
    );
  });
});
