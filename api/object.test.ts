import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition, setCondition, type Condition } from './object.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const T1 = new Date('2030-01-01T00:05:00.000Z');

const READY: Condition = {
  type: 'Ready',
  status: 'True',
  reason: 'Connected',
  message: '2 tools',
  observedGeneration: 1,
  lastTransitionTime: T0.toISOString(),
};
const ADMITTED: Condition = {
  type: 'Admitted',
  status: 'True',
  reason: 'Approved',
  message: '',
  observedGeneration: 1,
  lastTransitionTime: T0.toISOString(),
};

describe('setCondition', { timeout: 10_000 }, () => {
  it('adds a new condition stamped now and reports a change', () => {
    const { conditions, changed } = setCondition(
      [ADMITTED],
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'Connecting',
        message: '',
        observedGeneration: 1,
      },
      T1,
    );
    assert.equal(changed, true);
    assert.deepEqual(
      conditions.map((c) => c.type),
      ['Admitted', 'Ready'],
    );
    assert.equal(conditions[1]?.lastTransitionTime, T1.toISOString());
  });

  it('keeps lastTransitionTime when the status stays, while updating reason and message', () => {
    const { conditions, changed } = setCondition(
      [READY],
      { ...READY, reason: 'Connected', message: '3 tools' },
      T1,
    );
    assert.equal(changed, true);
    assert.equal(conditions[0]?.message, '3 tools');
    assert.equal(conditions[0]?.lastTransitionTime, T0.toISOString());
  });

  it('moves lastTransitionTime when the status changes', () => {
    const { conditions, changed } = setCondition(
      [ADMITTED, READY],
      {
        type: 'Ready',
        status: 'False',
        reason: 'ConnectFailed',
        message: 'boom',
        observedGeneration: 1,
      },
      T1,
    );
    assert.equal(changed, true);
    assert.deepEqual(findCondition(conditions, 'Ready'), {
      type: 'Ready',
      status: 'False',
      reason: 'ConnectFailed',
      message: 'boom',
      observedGeneration: 1,
      lastTransitionTime: T1.toISOString(),
    });
    assert.deepEqual(conditions[0], ADMITTED, 'other conditions untouched, order kept');
  });

  it('reports no change when nothing but the clock differs', () => {
    const input = [ADMITTED, READY];
    const { conditions, changed } = setCondition(input, { ...READY }, T1);
    assert.equal(changed, false);
    assert.deepEqual(conditions, input);
  });

  it('reports a change of observedGeneration alone without moving the time', () => {
    const { conditions, changed } = setCondition([READY], { ...READY, observedGeneration: 2 }, T1);
    assert.equal(changed, true);
    assert.equal(conditions[0]?.observedGeneration, 2);
    assert.equal(conditions[0]?.lastTransitionTime, T0.toISOString());
  });

  it('never mutates the array it was given', () => {
    const input = [READY];
    const { conditions } = setCondition(
      input,
      { ...READY, status: 'False', reason: 'ConnectFailed' },
      T1,
    );
    assert.notEqual(conditions, input);
    assert.deepEqual(input, [READY]);
  });
});

describe('findCondition', { timeout: 10_000 }, () => {
  it('finds by type or returns undefined', () => {
    assert.equal(findCondition([ADMITTED, READY], 'Ready'), READY);
    assert.equal(findCondition([ADMITTED], 'UpToDate'), undefined);
  });
});
