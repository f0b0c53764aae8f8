import { describe, expect, it } from 'vitest';
import { activationFunction, type LstmLayer, predictSequence } from '../../src/augmenter/keras-sequential.ts';

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** A one-unit LSTM whose four gates have different input weights, so a wrong gate order changes the answer. */
function oneUnitLstm(recurrentActivation: 'sigmoid' | 'hard_sigmoid'): LstmLayer {
  return {
    kind: 'lstm',
    name: 'lstm',
    inputSize: 1,
    units: 1,
    kernel: Float64Array.from([0.5, -1.0, 2.0, 1.5]), // i, f, c, o
    recurrentKernel: Float64Array.from([0.3, 0.2, -0.4, 0.1]),
    bias: Float64Array.from([0.1, 1.0, 0.0, -0.2]),
    activation: 'tanh',
    recurrentActivation,
    returnSequences: true,
    goBackwards: false,
  };
}

describe('Keras LSTM evaluation', () => {
  it('follows Keras gate order i, f, c, o and carries cell and hidden state between frames', () => {
    const layer = oneUnitLstm('sigmoid');
    const xs = [1.0, -0.5];
    const outputs = predictSequence({ inputSize: 1, outputSize: 1, layers: [layer] }, Float64Array.from(xs), 2);

    // Written out by hand from the Keras LSTM equations.
    let h = 0;
    let c = 0;
    const expected: number[] = [];
    for (const x of xs) {
      const i = sigmoid(0.5 * x + 0.3 * h + 0.1);
      const f = sigmoid(-1.0 * x + 0.2 * h + 1.0);
      const candidate = Math.tanh(2.0 * x - 0.4 * h);
      const o = sigmoid(1.5 * x + 0.1 * h - 0.2);
      c = f * c + i * candidate;
      h = o * Math.tanh(c);
      expected.push(h);
    }
    expect(outputs[0]).toBeCloseTo(expected[0], 12);
    expect(outputs[1]).toBeCloseTo(expected[1], 12);
  });

  it('uses Keras 2 hard_sigmoid (0.2·x + 0.5, clipped) when the config asks for it', () => {
    const hardSigmoid = activationFunction('hard_sigmoid');
    expect(hardSigmoid(-3)).toBe(0);
    expect(hardSigmoid(1)).toBeCloseTo(0.7, 12);
    expect(hardSigmoid(3)).toBe(1);

    const outputs = predictSequence(
      { inputSize: 1, outputSize: 1, layers: [oneUnitLstm('hard_sigmoid')] },
      Float64Array.from([1.0]),
      1,
    );
    const i = hardSigmoid(0.6);
    const o = hardSigmoid(1.3);
    expect(outputs[0]).toBeCloseTo(o * Math.tanh(i * Math.tanh(2.0)), 12);
  });

  it('applies a TimeDistributed Dense to every frame', () => {
    const outputs = predictSequence(
      {
        inputSize: 2,
        outputSize: 1,
        layers: [
          {
            kind: 'dense',
            name: 'dense',
            inputSize: 2,
            units: 1,
            kernel: Float64Array.from([2, -1]),
            bias: Float64Array.from([0.5]),
            activation: 'linear',
          },
        ],
      },
      Float64Array.from([1, 1, 3, 2]),
      2,
    );
    expect(Array.from(outputs)).toEqual([1.5, 4.5]);
  });

  it('refuses an activation it cannot evaluate', () => {
    expect(() => activationFunction('gelu')).toThrow(/not supported/);
  });
});
