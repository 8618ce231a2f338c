/** Scalar's standalone API reference bundle, copied to assets/docs/ by scripts/docs-renderer.mjs. */
export declare const RENDERER_VERSION: string;
/** The first 16 hex digits of the bundle's SHA-256: part of its URL, so a new bundle is a new URL. */
export declare const RENDERER_HASH: string;
