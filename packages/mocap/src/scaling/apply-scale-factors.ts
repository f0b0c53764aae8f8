import { ConstantFunction, MultiplierFunction } from '../model/functions.ts';
import type { JointDescription, OsimModel, TransformAxisDescription, Vec3 } from '../model/osim-model.ts';

/**
 * Scales a model's geometry as OpenSim's Model::scale does: each joint's parent frame translation by
 * the parent body's factors and child frame translation by the child body's factors; the
 * translational functions of a CustomJoint's spatial transform by (axis · parent body factors),
 * as a MultiplierFunction; each marker's location by its body's factors; each body's geometry
 * scale factors multiplied by its factors. Returns a new model; the input is not changed.
 */
export function applyScaleFactors(model: OsimModel, factors: ReadonlyMap<string, Vec3>): OsimModel {
  const of = (body: string): Vec3 | undefined => factors.get(body);
  const scaled = (v: Vec3, s: Vec3 | undefined): Vec3 => (s ? [v[0] * s[0], v[1] * s[1], v[2] * s[2]] : [...v]);

  const scaleTranslationAxis = (
    axis: TransformAxisDescription,
    parentFactors: Vec3 | undefined,
  ): TransformAxisDescription => {
    if (!parentFactors) return axis;
    const factor = axis.axis[0] * parentFactors[0] + axis.axis[1] * parentFactors[1] + axis.axis[2] * parentFactors[2];
    if (axis.fn instanceof ConstantFunction) return { ...axis, fn: new ConstantFunction(axis.fn.constant * factor) };
    if (axis.fn instanceof MultiplierFunction)
      return { ...axis, fn: new MultiplierFunction(axis.fn.inner, axis.fn.scale * factor) };
    return { ...axis, fn: new MultiplierFunction(axis.fn, factor) };
  };

  const joints = model.joints.map((joint): JointDescription => {
    const parentFactors = joint.parentBody === 'ground' ? undefined : of(joint.parentBody);
    return {
      ...joint,
      parentOffset: { ...joint.parentOffset, translationM: scaled(joint.parentOffset.translationM, parentFactors) },
      childOffset: { ...joint.childOffset, translationM: scaled(joint.childOffset.translationM, of(joint.childBody)) },
      translations: joint.translations.map((axis) =>
        scaleTranslationAxis(axis, parentFactors),
      ) as JointDescription['translations'],
    };
  });

  return {
    ...model,
    bodies: model.bodies.map((body) => ({
      ...body,
      geometryScaleFactors: scaled(body.geometryScaleFactors, of(body.name)),
    })),
    joints,
    coordinates: model.coordinates.map((coordinate) => ({ ...coordinate })),
    markers: model.markers.map((marker) => ({ ...marker, locationM: scaled(marker.locationM, of(marker.body)) })),
    couplers: [...model.couplers],
  };
}
