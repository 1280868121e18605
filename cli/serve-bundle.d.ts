/**
 * serve-bundle.js, made by `npm run build` from serve-program.js (scripts/bundle-serve.mjs):
 * the same module, bundled, so it has the same face.
 */
export * from './serve-program.js';
