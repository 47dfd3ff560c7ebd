/**
 * Options for Temporal's workflow bundler. Our sources are ESM TypeScript whose relative imports name `.ts` files;
 * webpack must resolve them (and `.js` specifiers) to the TypeScript source.
 */
import type { WorkerOptions } from '@temporalio/worker';

export const bundlerOptions: NonNullable<WorkerOptions['bundlerOptions']> = {
  webpackConfigHook: (config) => {
    config.resolve = { ...config.resolve, extensionAlias: { '.js': ['.ts', '.js'], '.ts': ['.ts'] } };
    return config;
  },
};
