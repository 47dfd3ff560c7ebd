/**
 * Options for Temporal's workflow bundler. Our sources are ESM TypeScript whose relative imports name `.ts` files;
 * webpack must resolve them (and `.js` specifiers) to the TypeScript source.
 *
 * A worker bundles workflows/ when it starts (~2.5 CPU-s here). A prebuilt bundle (`buildWorkflowBundle`, written by
 * scripts/bundle-workflows.ts; the worker's TEMPORAL_WORKFLOW_BUNDLE) skips that, as Temporal recommends for
 * production; the test runner builds one per run and its workers share it.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export const bundlerOptions: NonNullable<WorkerOptions['bundlerOptions']> = {
  webpackConfigHook: (config) => {
    config.resolve = { ...config.resolve, extensionAlias: { '.js': ['.ts', '.js'], '.ts': ['.ts'] } };
    return config;
  },
};

/** The workflow code of workflows/index.ts as one bundle (JavaScript source). */
export async function buildWorkflowBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, ...bundlerOptions });
  return code;
}

/** Worker options for the workflows: the prebuilt bundle at `bundlePath` when given, else bundled at start. */
export function workflowSource(
  bundlePath: string | undefined,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'> {
  return bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: WORKFLOWS_PATH, bundlerOptions };
}
