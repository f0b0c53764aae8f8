import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import {
  deriveSkeleton,
  frameAtTime,
  parseTrialMotion,
  skeletonGeometry,
} from '../src/screens/Session/viewer/body-motion.ts';

const fixture = 'opencap_viewer_fixture/visualizerTransforms.json';

describeWithData('the skeleton the viewer derives from a visualizer JSON', [fixture], () => {
  const motion = parseTrialMotion(JSON.parse(readFileSync(referencePath(fixture), 'utf8')));
  const skeleton = deriveSkeleton(motion);
  const parentOf = (name: string) => {
    const body = skeleton.find((candidate) => candidate.name === name)!;
    return body.parent < 0 ? null : skeleton[body.parent].name;
  };

  it("keeps each body's meshes and their scale factors, which the viewer draws the bones from", () => {
    const femur = motion.bodies.find((body) => body.name === 'femur_r')!;
    expect(femur.geometryFiles).toEqual(['femur_r.vtp']);
    expect(femur.geometryScale[0]).toBeCloseTo(1.0529, 4);
    expect(motion.bodies.find((body) => body.name === 'hand_l')!.geometryFiles).toHaveLength(27);
  });

  it("finds the OpenSim model's tree from the motion alone: each joint centre stays fixed in its parent", () => {
    expect(motion.bodies).toHaveLength(22);
    expect(motion.frameRateHz).toBeCloseTo(100, 6);
    const expected: Record<string, string | null> = {
      pelvis: null,
      femur_r: 'pelvis',
      tibia_r: 'femur_r',
      talus_r: 'tibia_r',
      calcn_r: 'talus_r',
      toes_r: 'calcn_r',
      femur_l: 'pelvis',
      calcn_l: 'talus_l',
      torso: 'pelvis',
      humerus_r: 'torso',
      ulna_r: 'humerus_r',
      hand_l: 'radius_l',
    };
    for (const [body, parent] of Object.entries(expected)) expect(parentOf(body), body).toBe(parent);
    // The knee sits about a thigh's length (0.4-0.45 m) below the hip, in the femur's frame.
    const knee = skeleton.find((body) => body.name === 'tibia_r')!.jointInParentM;
    expect(knee[1]).toBeGreaterThan(-0.47);
    expect(knee[1]).toBeLessThan(-0.38);
  });

  it('draws bones to every child, the hip and shoulder girdles, limb ends and a head above the shoulders', () => {
    const { bones, head } = skeletonGeometry(motion, skeleton);
    const index = (name: string) => skeleton.findIndex((body) => body.name === name);
    // 21 bones to children, 2 girdles, 6 ends (patellae, toes, hands).
    expect(bones).toHaveLength(29);
    const pelvisBones = bones.filter((bone) => bone.body === index('pelvis'));
    expect(pelvisBones.some((bone) => bone.fromM[2] * bone.toM[2] < 0)).toBe(true);
    expect(head?.body).toBe(index('torso'));
    expect(head!.radiusM).toBeGreaterThan(0.05);
    expect(head!.radiusM).toBeLessThan(0.12);
  });

  it('shows the frame nearest the time, clamped to the trial', () => {
    expect(frameAtTime(motion, motion.timesS[0] - 1)).toBe(0);
    expect(frameAtTime(motion, 1.3)).toBe(16);
    expect(frameAtTime(motion, 1.304)).toBe(16);
    expect(frameAtTime(motion, 99)).toBe(motion.timesS.length - 1);
  });
});
