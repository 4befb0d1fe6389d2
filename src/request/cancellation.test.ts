import { describe, expect, it } from 'vitest';
import { errors } from '../errors/errors.js';
import { Cancellation } from './cancellation.js';

describe('Cancellation', () => {
  it('tells each listener once, in order, with the first reason, and keeps that reason', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    cancellation.onCancel((reason) => heard.push(`a:${reason.code}`));
    cancellation.onCancel((reason) => heard.push(`b:${reason.code}`));
    expect(cancellation.cancelled).toBe(false);
    expect(cancellation.reason).toBeUndefined();
    const first = errors.requestAbandoned('$');
    cancellation.cancel(first);
    cancellation.cancel(errors.timeLimitExceeded('$'));
    expect(heard).toEqual([`a:${first.code}`, `b:${first.code}`]);
    expect(cancellation.cancelled).toBe(true);
    expect(cancellation.reason).toBe(first);
  });

  it('does not call a listener that stopped listening, nor one that came after the cancel', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    const stop = cancellation.onCancel(() => heard.push('stopped'));
    cancellation.onCancel(() => heard.push('kept'));
    stop();
    stop();
    cancellation.cancel(errors.requestAbandoned('$'));
    cancellation.onCancel(() => heard.push('late'))();
    expect(heard).toEqual(['kept']);
  });
});
