import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The console builds into the engine's own build output, which the edge serves under /console/. */
export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  // No inlined `data:` scripts or workers: the content security policy allows the engine's own files only.
  build: {
    outDir: `${here}../../dist/console`,
    emptyOutDir: true,
    assetsInlineLimit: 0,
    // Monaco (GraphiQL's editor) is one large chunk by design.
    chunkSizeWarningLimit: 8000,
    rollupOptions: {
      // GraphiQL's modules start with React-compiler directives that bundling drops harmlessly.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  worker: { format: 'es' },
  logLevel: 'warn',
});
