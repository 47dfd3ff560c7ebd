/**
 * Loggers for the components a test starts in-process. Quiet tests: their lines (errors a test provokes on purpose
 * included) stay out of the suite's output; `TEST_LOGS=1 npm test -- <filter>` prints them for debugging.
 */
import { createLogger, type Logger } from '../../lib/log.ts';

const shown = process.env.TEST_LOGS === '1';

export function testLogger(component: string): Logger {
  return createLogger(component, shown ? { level: 'debug' } : { level: 'error', write: () => undefined });
}
