/** Starts the stack once for every e2e file; the tests read its URLs with `inject`. */
import type { TestProject } from 'vitest/node';

import { startStack } from './stack';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    ollamaUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await startStack();
  project.provide('baseUrl', stack.baseUrl);
  project.provide('ollamaUrl', stack.ollamaUrl);
  return stack.stop;
}
