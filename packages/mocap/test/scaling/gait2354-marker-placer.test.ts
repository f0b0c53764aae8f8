import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readStorage, storageColumn } from '../../src/formats/mot.ts';
import { readMarkerSet, readScaleSetup } from '../../src/formats/scale-setup.ts';
import { readTrc } from '../../src/formats/trc.ts';
import type { OsimModel } from '../../src/model/osim-model.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { applyScaleFactors } from '../../src/scaling/apply-scale-factors.ts';
import { placeMarkers } from '../../src/scaling/marker-placer.ts';
import { measureScaleFactors } from '../../src/scaling/scale-factors.ts';
import { averageMarkerFrames, framesInTimeRange } from '../../src/scaling/static-pose.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const MODEL = 'opensim_gait/Models/Gait2354_Simbody/gait2354_simbody.osim';
const PIPELINE = 'opensim_gait/Pipelines/Gait2354_Simbody';

describeWithData(
  'Marker placement on gait2354 / subject01 as OpenSim MarkerPlacer does',
  [
    MODEL,
    `${PIPELINE}/OutputReference/subject01_simbody.osim`,
    `${PIPELINE}/OutputReference/subject01_static_output.mot`,
  ],
  () => {
    const setup = readScaleSetup(readFileSync(referencePath(PIPELINE, 'subject01_Setup_Scale.xml'), 'utf8'));
    const markerSet = readMarkerSet(readFileSync(referencePath(PIPELINE, 'gait2354_Scale_MarkerSet.xml'), 'utf8'));
    const generic: OsimModel = {
      ...readOsim(readFileSync(referencePath(MODEL), 'utf8')),
      markers: markerSet.map(({ name, body, locationM }) => ({ name, body, locationM })),
    };
    const trial = readTrc(readFileSync(referencePath(PIPELINE, 'subject01_static.trc'), 'utf8'));
    const scaled = applyScaleFactors(
      generic,
      measureScaleFactors(
        generic,
        averageMarkerFrames(trial, ...framesInTimeRange(trial.timesS, ...setup.scaler.timeRangeS!)),
        setup.scaler,
      ).factors,
    );
    const pose = averageMarkerFrames(trial, ...framesInTimeRange(trial.timesS, ...setup.placer.timeRangeS!));
    const markerWeights = new Map(
      setup.placer.markerTasks.filter((task) => task.apply).map((task) => [task.name, task.weight]),
    );
    const fixedMarkers = new Set(markerSet.filter((marker) => marker.fixed).map((marker) => marker.name));

    it('solves the static pose and moves the markers where OpenSim put them (pelvis and legs within 1 mm)', () => {
      // The OpenSim run that made the reference left subtalar at 5°/15° and lumbar extension at −2.9° although the setup
      // asks for 0 with weight 1000: it did not apply those coordinate tasks, so neither does this comparison.
      const placed = placeMarkers(scaled, pose, { markerWeights, fixedMarkers });
      const reference = readOsim(
        readFileSync(referencePath(PIPELINE, 'OutputReference/subject01_simbody.osim'), 'utf8'),
      );
      const staticMotion = readStorage(
        readFileSync(referencePath(PIPELINE, 'OutputReference/subject01_static_output.mot'), 'utf8'),
      );

      let worstLegM = 0;
      for (const marker of placed.model.markers) {
        const theirs = reference.markers.find((m) => m.name === marker.name);
        if (!theirs || ['torso', 'head'].includes(marker.body)) continue;
        worstLegM = Math.max(
          worstLegM,
          Math.hypot(...(marker.locationM.map((v, i) => v - theirs.locationM[i]) as [number, number, number])),
        );
      }
      let worstLegDeg = 0;
      scaled.coordinates.forEach((coordinate, i) => {
        if (coordinate.motionType !== 'rotational' || coordinate.name.startsWith('lumbar')) return;
        const column = storageColumn(staticMotion, coordinate.name)!;
        const theirsDeg = staticMotion.inDegrees ? column[0] : (column[0] * 180) / Math.PI;
        worstLegDeg = Math.max(worstLegDeg, Math.abs((placed.staticCoordinates[i] * 180) / Math.PI - theirsDeg));
      });
      console.log(
        `marker placer vs OpenSim: static-pose IK RMS ${(placed.rmsErrorM * 1000).toFixed(1)} mm (max ${(placed.maxErrorM * 1000).toFixed(1)} mm); ` +
          `pelvis/leg marker locations within ${(worstLegM * 1000).toFixed(2)} mm, pelvis/leg angles within ${worstLegDeg.toFixed(2)} deg of OpenSim`,
      );
      expect(worstLegM).toBeLessThan(0.001);
      expect(worstLegDeg).toBeLessThan(1);
      expect(placed.movedMarkers.length).toBe(
        markerSet.filter((m) => !m.fixed && pose.markerNames.includes(m.name)).length,
      );
    });

    it('honours the placer coordinate tasks when applied (subtalar and lumbar held at 0 with weight 1000)', () => {
      const coordinateTasks = setup.placer.coordinateTasks.map((task) => ({
        coordinate: task.name,
        weight: task.weight,
        value: task.valueType === 'manual_value' ? task.value : 0,
      }));
      const placed = placeMarkers(scaled, pose, { markerWeights, fixedMarkers, coordinateTasks });
      for (const name of ['subtalar_angle_l', 'lumbar_extension']) {
        const i = scaled.coordinates.findIndex((c) => c.name === name);
        expect(Math.abs((placed.staticCoordinates[i] * 180) / Math.PI)).toBeLessThan(0.5);
      }
    });
  },
);
