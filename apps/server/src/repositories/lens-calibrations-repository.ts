import { and, asc, eq, sql } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

export type LensCalibrationRow = typeof schema.lensCalibrations.$inferSelect;
const { lensCalibrations } = schema;

/** A lens calibration as the engine takes it (packages/mocap/src/session/types.ts LensIntrinsics). */
export interface DeviceLens {
  /** Row-major 3 x 3 camera matrix, pixels. */
  intrinsics: Float64Array;
  /** OpenCV's k1, k2, p1, p2, k3. */
  distortion: Float64Array;
  imageSize: { width: number; height: number };
}

export interface NewLensCalibration {
  deviceModel: string;
  imageSize: { width: number; height: number };
  intrinsics: ArrayLike<number>;
  distortion: ArrayLike<number>;
  rmsErrorPx: number | null;
}

const sameModel = (deviceModel: string) => sql`lower(${lensCalibrations.deviceModel}) = lower(${deviceModel})`;

export function createLensCalibrationsRepository(db: Database) {
  return {
    async ofUser(userId: number): Promise<LensCalibrationRow[]> {
      return db
        .select()
        .from(lensCalibrations)
        .where(eq(lensCalibrations.userId, userId))
        .orderBy(asc(lensCalibrations.deviceModel));
    },

    /** Stores the user's calibration of a device model, replacing an earlier one of that model. */
    async save(userId: number, lens: NewLensCalibration): Promise<LensCalibrationRow> {
      const values = {
        deviceModel: lens.deviceModel,
        imageWidth: lens.imageSize.width,
        imageHeight: lens.imageSize.height,
        intrinsics: Array.from(lens.intrinsics),
        distortion: Array.from(lens.distortion),
        rmsErrorPx: lens.rmsErrorPx,
      };
      const [existing] = await db
        .select({ id: lensCalibrations.id })
        .from(lensCalibrations)
        .where(and(eq(lensCalibrations.userId, userId), sameModel(lens.deviceModel)));
      const [row] = existing
        ? await db
            .update(lensCalibrations)
            .set({ ...values, updatedAt: new Date() })
            .where(eq(lensCalibrations.id, existing.id))
            .returning()
        : await db
            .insert(lensCalibrations)
            .values({ userId, ...values })
            .returning();
      return row;
    },

    /** The user's lens calibration of that device model (case-insensitive), for the processing runner. */
    async lensFor(userId: number, deviceModel: string): Promise<DeviceLens | undefined> {
      const [row] = await db
        .select()
        .from(lensCalibrations)
        .where(and(eq(lensCalibrations.userId, userId), sameModel(deviceModel)));
      if (!row) return undefined;
      return {
        intrinsics: Float64Array.from(row.intrinsics),
        distortion: Float64Array.from(row.distortion),
        imageSize: { width: row.imageWidth, height: row.imageHeight },
      };
    },
  };
}

export type LensCalibrationsRepository = ReturnType<typeof createLensCalibrationsRepository>;
