/**
 * A Keras Sequential network (the layers OpenCap's marker augmenters use: LSTM, Dense and
 * TimeDistributed(Dense)) evaluated in TypeScript, so augmenter weights exported from Keras run
 * without TensorFlow. The arithmetic follows Keras 2's definitions exactly: weights are the float32
 * values Keras stored; sums are accumulated in float64.
 */

export type ActivationName = 'linear' | 'tanh' | 'sigmoid' | 'hard_sigmoid' | 'relu';

export interface LstmLayer {
  kind: 'lstm';
  name: string;
  inputSize: number;
  units: number;
  /** inputSize x 4·units, row-major; gate blocks in Keras order i, f, c, o. */
  kernel: Float64Array;
  /** units x 4·units, row-major; same gate order. */
  recurrentKernel: Float64Array;
  /** 4·units (zeros when the layer has use_bias false). */
  bias: Float64Array;
  activation: ActivationName;
  recurrentActivation: ActivationName;
  returnSequences: boolean;
  goBackwards: boolean;
}

export interface DenseLayer {
  kind: 'dense';
  name: string;
  inputSize: number;
  units: number;
  /** inputSize x units, row-major. */
  kernel: Float64Array;
  bias: Float64Array;
  activation: ActivationName;
}

export type KerasLayer = LstmLayer | DenseLayer;

export interface KerasSequentialModel {
  inputSize: number;
  outputSize: number;
  layers: KerasLayer[];
}

export class UnsupportedKerasModelError extends Error {
  override name = 'UnsupportedKerasModelError';
}

/** Keras 2 activations by name; hard_sigmoid is Keras 2's piecewise-linear 0.2·x + 0.5 clipped to [0, 1]. */
export function activationFunction(name: string): (x: number) => number {
  switch (name) {
    case 'linear':
      return (x) => x;
    case 'tanh':
      return Math.tanh;
    case 'sigmoid':
      return (x) => 1 / (1 + Math.exp(-x));
    case 'hard_sigmoid':
      return (x) => (x <= -2.5 ? 0 : x >= 2.5 ? 1 : 0.2 * x + 0.5);
    case 'relu':
      return (x) => (x > 0 ? x : 0);
    default:
      throw new UnsupportedKerasModelError(
        `Keras activation "${name}" is not supported; supported: linear, tanh, sigmoid, hard_sigmoid, relu.`,
      );
  }
}

/**
 * Runs one LSTM layer over a sequence (frames x inputSize) and returns frames x units (or 1 x units
 * when return_sequences is false). State starts at zero, as Keras does for a stateless layer.
 * Per frame, each gate pre-activation is z = [x, h] · [kernel; recurrent_kernel] + bias; then
 * i = σr(z_i), f = σr(z_f), c = f·c + i·σ(z_c), o = σr(z_o), h = o·σ(c) (σ = activation,
 * σr = recurrent_activation).
 */
function runLstm(layer: LstmLayer, inputs: Float64Array, frameCount: number): Float64Array {
  const { inputSize, units } = layer;
  const gateCount = 4 * units;
  const stackedSize = inputSize + units;
  // Gate-major copy of [kernel; recurrent_kernel] so each gate is one contiguous dot product.
  const stacked = new Float64Array(gateCount * stackedSize);
  for (let g = 0; g < gateCount; g++) {
    for (let k = 0; k < inputSize; k++) stacked[g * stackedSize + k] = layer.kernel[k * gateCount + g];
    for (let k = 0; k < units; k++) stacked[g * stackedSize + inputSize + k] = layer.recurrentKernel[k * gateCount + g];
  }
  const activation = activationFunction(layer.activation);
  const recurrentActivation = activationFunction(layer.recurrentActivation);
  const outputs = new Float64Array((layer.returnSequences ? frameCount : 1) * units);
  const state = new Float64Array(stackedSize); // [x_t, h_{t-1}]
  const cell = new Float64Array(units);
  const z = new Float64Array(gateCount);

  for (let step = 0; step < frameCount; step++) {
    const frame = layer.goBackwards ? frameCount - 1 - step : step;
    state.set(inputs.subarray(frame * inputSize, (frame + 1) * inputSize));
    for (let g = 0; g < gateCount; g++) {
      let sum = layer.bias[g];
      const row = g * stackedSize;
      for (let k = 0; k < stackedSize; k++) sum += state[k] * stacked[row + k];
      z[g] = sum;
    }
    for (let u = 0; u < units; u++) {
      const inputGate = recurrentActivation(z[u]);
      const forgetGate = recurrentActivation(z[units + u]);
      const candidate = activation(z[2 * units + u]);
      const outputGate = recurrentActivation(z[3 * units + u]);
      cell[u] = forgetGate * cell[u] + inputGate * candidate;
      state[inputSize + u] = outputGate * activation(cell[u]);
    }
    if (layer.returnSequences) outputs.set(state.subarray(inputSize), step * units);
  }
  if (!layer.returnSequences) outputs.set(state.subarray(inputSize));
  return outputs;
}

/** Dense applied to every frame (a plain Dense on 2-D input and TimeDistributed(Dense) are the same here). */
function runDense(layer: DenseLayer, inputs: Float64Array, frameCount: number): Float64Array {
  const { inputSize, units, kernel, bias } = layer;
  const activation = activationFunction(layer.activation);
  const outputs = new Float64Array(frameCount * units);
  for (let frame = 0; frame < frameCount; frame++) {
    const inputBase = frame * inputSize;
    const outputBase = frame * units;
    for (let u = 0; u < units; u++) outputs[outputBase + u] = bias[u];
    for (let k = 0; k < inputSize; k++) {
      const x = inputs[inputBase + k];
      const row = k * units;
      for (let u = 0; u < units; u++) outputs[outputBase + u] += x * kernel[row + u];
    }
    for (let u = 0; u < units; u++) outputs[outputBase + u] = activation(outputs[outputBase + u]);
  }
  return outputs;
}

/**
 * Predicts a whole sequence at once (Keras `model.predict` on a batch of one sequence):
 * inputs frames x inputSize → outputs frames x outputSize.
 */
export function predictSequence(model: KerasSequentialModel, inputs: Float64Array, frameCount: number): Float64Array {
  if (inputs.length !== frameCount * model.inputSize) {
    throw new RangeError(`Expected ${frameCount} x ${model.inputSize} inputs, got ${inputs.length} values.`);
  }
  let activations = inputs;
  let rows = frameCount;
  for (const layer of model.layers) {
    if (layer.kind === 'lstm') {
      activations = runLstm(layer, activations, rows);
      if (!layer.returnSequences) rows = 1;
    } else {
      activations = runDense(layer, activations, rows);
    }
  }
  return activations;
}
