import type { BuildOptions } from 'esbuild';

/** How the bench bundles code to run it as the published package runs: one CommonJS file for node, packages left as they are. */
export const AS_PUBLISHED: BuildOptions = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', packages: 'external' };
