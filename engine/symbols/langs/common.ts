import type { CaptureView } from '../../languages/plugin.ts';

/** The first capture of that name in an `@import` match, or undefined. */
export function cap(captures: readonly CaptureView[], name: string): CaptureView | undefined {
  return captures.find((c) => c.name === name);
}

/** All captures of that name. */
export function caps(captures: readonly CaptureView[], name: string): CaptureView[] {
  return captures.filter((c) => c.name === name);
}
