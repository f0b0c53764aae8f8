import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readModelPaths } from '../../src/model/geometry-paths.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import type { Vec3 } from '../../src/model/osim-model.ts';
import { geometryPathLengthM } from '../../src/model/path-length.ts';
import { modelElement, modelFrames, readOsimTree } from '../../src/model/read-osim.ts';
import { wrapCylinder } from '../../src/model/wrapping/wrap-cylinder.ts';
import { WrapAction } from '../../src/model/wrapping/wrap-result.ts';
import { wrapSphere } from '../../src/model/wrapping/wrap-sphere.ts';
import { childText, descendants, parseXmlTree } from '../../src/model/xml-tree.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const ALL = { axis: 0, sign: 0 } as const;
const length = (p1: Vec3, p2: Vec3, result: { r1: Vec3; r2: Vec3; lengthM: number }) =>
  Math.hypot(p1[0] - result.r1[0], p1[1] - result.r1[1], p1[2] - result.r1[2]) +
  result.lengthM +
  Math.hypot(p2[0] - result.r2[0], p2[1] - result.r2[1], p2[2] - result.r2[2]);

/**
 * A segment from (-0.2, -0.01, z1) to (0.2, -0.01, z2) passes 1 cm from the axis of a 5 cm
 * cylinder (or the centre of a 5 cm sphere), so it wraps over the -y side. Over the cylinder the
 * shortest path unrolls to a straight line: √((2 √(d² − r²) + r θ)² + Δz²), θ the angle between the
 * tangent points; over the sphere (z = 0) the same without Δz.
 */
describe('wrapping a segment over a cylinder and a sphere, against the geodesic', () => {
  const r = 0.05;
  const d = Math.hypot(0.2, 0.01);
  const thetaRad = Math.PI - 2 * Math.atan2(0.01, 0.2) - 2 * Math.acos(r / d);
  const planar = 2 * Math.sqrt(d * d - r * r) + r * thetaRad;

  it('wraps over the cylinder along its helix', () => {
    for (const dz of [0, 0.04, 0.1]) {
      const p1: Vec3 = [-0.2, -0.01, -dz / 2];
      const p2: Vec3 = [0.2, -0.01, dz / 2];
      const result = wrapCylinder({ radiusM: r, lengthM: 1 }, ALL, p1, p2);
      expect(result.action).toBe(WrapAction.mandatoryWrap);
      expect(result.r1[1]).toBeLessThan(0);
      // OpenSim slides the tangent points until the path meets the surface within 0.1°.
      expect(length(p1, p2, result)).toBeCloseTo(Math.hypot(planar, dz), 5);
    }
  });

  it('does not wrap a segment that misses the cylinder, or passes beyond its ends', () => {
    expect(wrapCylinder({ radiusM: r, lengthM: 1 }, ALL, [-0.2, -0.06, 0], [0.2, -0.06, 0]).action).toBe(
      WrapAction.noWrap,
    );
    expect(wrapCylinder({ radiusM: r, lengthM: 0.2 }, ALL, [-0.2, -0.01, 0.5], [0.2, -0.01, 0.5]).action).toBe(
      WrapAction.noWrap,
    );
  });

  it('wraps over the allowed side only when the cylinder has a quadrant', () => {
    // Constrained to +y, a segment on the -y side goes round the far (+y) side.
    const result = wrapCylinder({ radiusM: r, lengthM: 1 }, { axis: 1, sign: 1 }, [-0.2, -0.01, 0], [0.2, -0.01, 0]);
    expect(result.action).toBe(WrapAction.wrapped);
    expect(result.r1[1]).toBeGreaterThan(0);
    const farThetaRad = Math.PI + 2 * Math.atan2(0.01, 0.2) - 2 * Math.acos(r / d);
    expect(length([-0.2, -0.01, 0], [0.2, -0.01, 0], result)).toBeCloseTo(
      2 * Math.sqrt(d * d - r * r) + r * farThetaRad,
      5,
    );
  });

  it('wraps over the sphere along a great circle', () => {
    const p1: Vec3 = [-0.2, -0.01, 0];
    const p2: Vec3 = [0.2, -0.01, 0];
    const result = wrapSphere({ radiusM: r }, ALL, p1, p2);
    expect(result.action).toBe(WrapAction.wrapped);
    expect(length(p1, p2, result)).toBeCloseTo(planar, 9);
    expect(wrapSphere({ radiusM: r }, ALL, [-0.2, -0.06, 0], [0.2, -0.06, 0]).action).toBe(WrapAction.noWrap);
  });
});

const LAI = 'opencap_outputs/opencap-core@d5a5258954/opensimPipeline/Models/LaiUhlrich2022.osim';
const LAI_SCALED = 'opencap_outputs/opencap-processing@eb5fa1d90a/Examples/ExampleData/LaiUhlrich2022_scaled.osim';

/** Every muscle's path length in the default pose, and its optimal fibre length as the file gives it. */
function muscleLengths(path: string) {
  const root = parseXmlTree(readFileSync(referencePath(path), 'utf8'));
  const model = modelElement(root);
  const kinematics = new KinematicModel(readOsimTree(root));
  const q = kinematics.defaultCoordinates();
  kinematics.setCoordinates(q);
  const { paths, wrapObjects } = readModelPaths(model, modelFrames(model));
  const fibre = new Map(
    descendants(model, (node) => childText(node, 'optimal_fiber_length') !== undefined).map((node) => [
      node.attributes.name,
      Number(childText(node, 'optimal_fiber_length')),
    ]),
  );
  return {
    wrapCount: wrapObjects.size,
    muscles: paths.map((p) => ({
      name: p.owner,
      wraps: p.wraps.length,
      lengthM: geometryPathLengthM(p, wrapObjects, { kinematics, q }),
      fibreM: fibre.get(p.owner)!,
    })),
  };
}

describeWithData('muscle path lengths of LaiUhlrich2022 over its wrap cylinders', [LAI, LAI_SCALED], () => {
  it("change between the generic model and OpenCap's OpenSim-scaled one as the fibre lengths OpenSim scaled", () => {
    const generic = muscleLengths(LAI);
    const scaled = muscleLengths(LAI_SCALED);
    expect(generic.wrapCount).toBe(44);
    expect(generic.muscles).toHaveLength(80);
    let worstPercent = 0;
    for (const muscle of generic.muscles) {
      const other = scaled.muscles.find((m) => m.name === muscle.name)!;
      const percent = Math.abs(other.lengthM / muscle.lengthM / (other.fibreM / muscle.fibreM) - 1) * 100;
      worstPercent = Math.max(worstPercent, percent);
    }
    const wrapping = generic.muscles.filter((m) => m.wraps > 0).length;
    console.log(
      `LaiUhlrich2022 → OpenCap's scaled example: ${wrapping} of 80 muscles wrap; path length ratio within ${worstPercent.toFixed(3)} % of OpenSim's fibre length ratio`,
    );
    expect(wrapping).toBeGreaterThan(30);
    expect(worstPercent).toBeLessThan(0.1);
  });
});
