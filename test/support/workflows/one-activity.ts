// One activity (`touch`) with a short retry policy: the workflow of test/reliability/db-outage.test.ts.
import { proxyActivities } from '@temporalio/workflow';

interface TouchActivities {
  touch(): Promise<number>;
}

export async function oneActivityWorkflow(attempts: number): Promise<number> {
  const { touch } = proxyActivities<TouchActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '100 milliseconds', backoffCoefficient: 1, maximumAttempts: attempts },
  });
  return touch();
}
