/** A contracts option map (value → label) as the options of a Select. */
export const optionsOf = (options: Record<string, string>) =>
  Object.entries(options).map(([value, label]) => ({ value, label }));
