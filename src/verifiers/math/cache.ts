/**
 * The math verdict cache: keys are `normalized gold + "\u0000" + normalized prediction` (plus an options
 * fingerprint). Bounded, O(1) approximately-LRU eviction: see {@link BoundedCache}.
 */
export { BoundedCache } from "../../core/cache.js";
