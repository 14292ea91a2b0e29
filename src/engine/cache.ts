/** The engine's verdict and instance caches: see {@link BoundedCache}. */
export { BoundedCache as LruCache } from "../core/cache.js";
