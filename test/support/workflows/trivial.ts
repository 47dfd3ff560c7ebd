// A trivial workflow proving the real Temporal server and the bundler work: it calls one activity and
// waits for a signal.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type * as activities from '../trivial-activities.ts';

const { shout } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });

export const finish = defineSignal<[string]>('finish');

export async function trivialWorkflow(name: string): Promise<string> {
  let suffix = '';
  setHandler(finish, (s) => {
    suffix = s;
  });
  const loud = await shout(name);
  await condition(() => suffix !== '');
  return `${loud}${suffix}`;
}
