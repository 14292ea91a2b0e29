/**
 * Who may talk to the server at all, checked before authentication and before any body is read:
 * - `Origin`: browsers send it on cross-origin requests; no trainer does. A request that carries one is refused
 *   (403) unless it is allowed (`--allow-origin`). This stops cross-site request forgery: any web page the user
 *   opens can POST to `http://127.0.0.1:8787`, and without a token nothing else would stop it.
 * - `Host`: a DNS-rebinding page reaches a loopback server under its own domain name, which shows in `Host`. Only
 *   the bound address, `localhost` / loopback addresses for a loopback bind, IP literals for a wildcard bind
 *   (`0.0.0.0`, `::`) and the names allowed by `--allow-host` pass; anything else is refused (403).
 * - `Content-Type`: bodies must be `application/json` (415 otherwise). A browser sends `text/plain`, form and
 *   multipart bodies cross-origin without a preflight; a JSON content type needs one, which this server never
 *   grants.
 */
import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { errorResponse } from "./http.js";

/** Is `host` (a `--host` value) a loopback interface? */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith("127.");
}

/** Is `host` a wildcard bind (every interface)? */
export function isWildcardHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "0.0.0.0" || h === "::" || h === "";
}

/** The host name of a `Host` header, without its port, brackets or trailing dot, lower-cased. */
export function hostName(header: string): string {
  let h = header.trim().toLowerCase();
  if (h.startsWith("[")) h = h.slice(1, h.indexOf("]") < 0 ? undefined : h.indexOf("]"));
  else if (h.split(":").length === 2) h = h.slice(0, h.indexOf(":"));
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

/** An origin as browsers serialize it (`scheme://host[:port]`), lower-cased and without a trailing slash. */
function normalizeOrigin(o: string): string {
  return o.trim().toLowerCase().replace(/\/+$/, "");
}

/** What {@link hostOriginGuard} lets in. */
export interface GuardOptions {
  /** The bound `--host`. */
  host: string;
  /** Extra `Host` names (`--allow-host`); `*` allows any. */
  allowHosts: readonly string[];
  /** Allowed `Origin` values (`--allow-origin`), e.g. `https://notebook.example:8888`; `*` allows any. */
  allowOrigins: readonly string[];
}

/**
 * Decides whether a `Host` header is acceptable for a server bound to `o.host`.
 * @returns undefined when allowed, else the reason.
 */
export function hostProblem(header: string | undefined, o: GuardOptions): string | undefined {
  return hostCheck(o)(header);
}

/** {@link hostProblem} with the options' sets built once (the guard runs on every request). */
function hostCheck(o: GuardOptions): (header: string | undefined) => string | undefined {
  const allow = new Set(o.allowHosts.map((h) => hostName(h)));
  const bound = hostName(o.host);
  const loopback = isLoopbackHost(o.host);
  const wildcard = isWildcardHost(o.host);
  const seen = new Map<string, string | undefined>(); // verdicts of recent Host values (a handful per server)
  return (header) => {
    if (header === undefined || allow.has("*")) return undefined; // HTTP/1.0 clients; no browser omits Host
    const known = seen.get(header);
    if (known !== undefined || seen.has(header)) return known;
    const name = hostName(header);
    let why: string | undefined;
    if (name === bound || allow.has(name)) why = undefined;
    else if (loopback && isLoopbackHost(name)) why = undefined;
    else if (wildcard && (isIP(name) !== 0 || name === "localhost")) why = undefined;
    else why = `Host "${header}" is not this server's address; a proxy or a name you trust: --allow-host ${name}`;
    if (seen.size >= 64) seen.clear(); // bounded: a client cycling Host values gets no memory
    seen.set(header, why);
    return why;
  };
}

/** Decides whether an `Origin` header is acceptable. @returns undefined when allowed (or absent), else the reason. */
export function originProblem(header: string | undefined, o: GuardOptions): string | undefined {
  return originCheck(o)(header);
}

/** {@link originProblem} with the allowed set built once. */
function originCheck(o: GuardOptions): (header: string | undefined) => string | undefined {
  const allow = new Set(o.allowOrigins.map(normalizeOrigin));
  return (header) => {
    if (header === undefined) return undefined;
    if (allow.has("*") || allow.has(normalizeOrigin(header))) return undefined;
    return `requests from web pages are refused (Origin "${header}"); allow one with --allow-origin ${header}`;
  };
}

/** 403 for a `Host` or `Origin` that is not allowed (see the module comment). */
export function hostOriginGuard(o: GuardOptions): MiddlewareHandler {
  const host = hostCheck(o);
  const origin = originCheck(o);
  return async (c, next) => {
    const why = host(c.req.header("host")) ?? origin(c.req.header("origin"));
    if (why) return errorResponse(c, 403, "forbidden", why);
    return next();
  };
}

/** Is this a JSON media type (`application/json`, with or without parameters such as `charset`)? */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(";")[0]!.trim().toLowerCase() === "application/json";
}

/** 415 for a POST whose body is not declared `application/json`. */
export function jsonBodyOnly(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "POST" || isJsonContentType(c.req.header("content-type"))) return next();
    const got = c.req.header("content-type");
    return errorResponse(
      c,
      415,
      "unsupported_media_type",
      `request body must be sent as Content-Type: application/json${got === undefined ? " (none given)" : ` (got "${got}")`}`,
    );
  };
}
