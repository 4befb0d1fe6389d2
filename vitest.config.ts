import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 ships CJS (`main`) and ESM (`module`) builds. Node, which loads
  // @graphql-tools, takes the CJS one; Vite would hand our code the ESM one, and two
  // copies of graphql refuse each other's types. One build for both.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'actors/**/*.test.ts'],
    globalSetup: ['test/harness/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file owns a database and a subject prefix, so files may run side by side;
    // two workers keep the 2-core CI machine responsive for the servers under test.
    maxWorkers: 2,
    pool: 'forks',
    // Files share their worker's process, one after another: each file importing the
    // engine afresh cost about a second, a third of the suite's time on two cores. So a
    // file injects what it scripts (no vi.mock of modules others import) and stops what
    // it starts.
    isolate: false,
  },
});
