import { CHECKERBOARD_RANGES } from '@kinetrace/contracts';
import type { Control, FieldValues, Path } from 'react-hook-form';
import { NumberField } from './NumberField.tsx';

type BoardNumber = 'cb_rows' | 'cb_cols' | 'cb_square';

/** Inner corners per row or column; a square size of at least 1 mm (the contracts take any positive size). */
const RANGES: Record<BoardNumber, { min: number; max: number }> = {
  cb_rows: CHECKERBOARD_RANGES.corners,
  cb_cols: CHECKERBOARD_RANGES.corners,
  cb_square: { min: 1, max: CHECKERBOARD_RANGES.squareSizeMm.max },
};

/** One of a form's checkerboard numbers (the calibration step's settings, a lens calibration's photos). */
export function BoardNumberField<Form extends FieldValues, Context, Submitted extends FieldValues>({
  name,
  ...props
}: {
  control: Control<Form, Context, Submitted>;
  name: BoardNumber & Path<Form>;
  label: string;
  description?: string;
  disabled?: boolean;
}) {
  return <NumberField {...props} name={name} min={RANGES[name].min} max={RANGES[name].max} />;
}
