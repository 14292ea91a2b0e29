/**
 * deploy/ checked without a cluster or a container engine: the Kubernetes manifests parse and agree with each other
 * and with the server (settings, routes, the grace period), the Dockerfile copies only what exists and the context
 * lets in, and haproxy accepts its config.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { readServerConfig } from "../src/cli/commands/serve-config.js";
import { loadSpec } from "../src/spec/load.js";
import { ROOT, tmp } from "./helpers.js";
import { HAS_HAPROXY } from "./scale-helpers.js";

/** Every document of a manifest, as plain objects. */
function manifests(file: string) {
  const docs = parseAllDocuments(readFileSync(join(ROOT, "deploy/k8s", file), "utf8"));
  for (const d of docs) expect(d.errors.map((e) => e.message)).toEqual([]);
  return docs.map((d) => d.toJS());
}

/** A manifest document: what the assertions read of it (parsed YAML, untyped). */
type Doc = ReturnType<typeof manifests>[number];

const byKind = (docs: Doc[], kind: string, name?: string): Doc =>
  docs.find((d) => d.kind === kind && (name === undefined || d.metadata.name === name));

describe("deploy/k8s", () => {
  const redis = manifests("redis.yaml");
  const rk = manifests("rewardkit.yaml");
  const hpa = manifests("hpa.yaml");

  it("every document has a kind, an apiVersion and a name", () => {
    for (const d of [...redis, ...rk, ...hpa]) {
      expect(typeof d.apiVersion).toBe("string");
      expect(typeof d.kind).toBe("string");
      expect(d.metadata.name).toMatch(/^[a-z0-9-]+$/);
    }
    expect(rk.map((d) => d.kind).sort()).toEqual([
      "ConfigMap",
      "Deployment",
      "PodDisruptionBudget",
      "Service",
      "Service",
    ]);
  });

  it("the ConfigMap's server.yaml is a valid serve --config, on the Redis Service, serving a spec that compiles", () => {
    const cm = byKind(rk, "ConfigMap");
    const dir = tmp();
    writeFileSync(join(dir, "server.yaml"), cm.data["server.yaml"]);
    writeFileSync(join(dir, "spec.yaml"), cm.data["spec.yaml"]);
    const cfg = readServerConfig(join(dir, "server.yaml"));
    const svc = byKind(redis, "Service", "rewardkit-redis");
    expect(cfg.store).toBe(`redis://${svc.metadata.name}:${svc.spec.ports[0].port}/0`);
    expect(cfg.host).toBe("0.0.0.0");
    expect(cfg.tokenFile).toBeDefined(); // a non-loopback bind needs a token
    // the spec is examples/math.yaml (same hash: same reward)
    expect(loadSpec(join(dir, "spec.yaml")).hash).toBe(loadSpec(join(ROOT, "examples/math.yaml")).hash);

    const dep = byKind(rk, "Deployment", "rewardkit");
    const pod = dep.spec.template.spec;
    const c = pod.containers[0];
    expect(dep.spec.replicas).toBe(3);
    expect(c.readinessProbe.httpGet.path).toBe("/readyz");
    expect(c.livenessProbe.httpGet.path).toBe("/healthz");
    expect(c.ports[0].containerPort).toBe(cfg.port);
    // SIGTERM → shutdownDelayMs → drain (drainTimeoutMs) → exit, all within the grace period
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(cfg.shutdownDelayMs! + cfg.drainTimeoutMs!);
    // the readiness probe sees the SIGTERM well within the shutdown delay
    expect(c.readinessProbe.periodSeconds * c.readinessProbe.failureThreshold * 1000).toBeLessThan(
      cfg.shutdownDelayMs!,
    );
    expect(cfg.concurrency).toBeLessThanOrEqual(Number(c.resources.limits.cpu));
    expect(c.resources.requests.cpu).toBeDefined();
    expect(c.resources.limits.memory).toBeDefined();
    // every mount has its volume; the config is mounted where the image's CMD reads it
    const volumes = new Set(pod.volumes.map((v: { name: string }) => v.name));
    for (const m of c.volumeMounts) expect(volumes.has(m.name)).toBe(true);
    expect(c.volumeMounts.find((m: { name: string }) => m.name === "config").mountPath).toBe("/etc/rewardkit");
    expect(
      cfg.tokenFile!.startsWith(c.volumeMounts.find((m: { name: string }) => m.name === "token").mountPath + "/"),
    ).toBe(true);
    for (const d of [...rk.filter((x) => x.kind === "Service"), byKind(rk, "PodDisruptionBudget")])
      expect(d.spec.selector.matchLabels ?? d.spec.selector).toEqual(dep.spec.selector.matchLabels);
  });

  it("Redis: no persistence, maxmemory with volatile-lru (schedule state has no TTL and is never evicted)", () => {
    const args: string[] = byKind(redis, "Deployment").spec.template.spec.containers[0].args;
    const flag = (f: string): string | undefined => args[args.indexOf(f) + 1];
    expect(flag("--maxmemory-policy")).toBe("volatile-lru");
    expect(flag("--maxmemory")).toMatch(/^\d+(mb|gb)$/);
    expect(flag("--save")).toBe("");
    expect(flag("--appendonly")).toBe("no");
  });

  it("the HPA scales the Deployment on the Pods metric rewardkit_queue_depth, which /metrics exports", () => {
    const h = byKind(hpa, "HorizontalPodAutoscaler");
    expect(h.apiVersion).toBe("autoscaling/v2");
    expect(h.spec.scaleTargetRef).toMatchObject({ kind: "Deployment", name: "rewardkit" });
    expect(h.spec.metrics[0]).toMatchObject({ type: "Pods", pods: { metric: { name: "rewardkit_queue_depth" } } });
    expect(h.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(readFileSync(join(ROOT, "src/server/context.ts"), "utf8")).toContain('"rewardkit_queue_depth"');
  });
});

describe("deploy/Dockerfile", () => {
  const text = readFileSync(join(ROOT, "deploy/Dockerfile"), "utf8");
  const lines = text.split("\n").filter((l) => !l.trimStart().startsWith("#"));

  it("node 20 bookworm-slim, production dependencies after the build, a non-root user, port 8787, /healthz", () => {
    const froms = lines.filter((l) => l.startsWith("FROM "));
    expect(froms.length).toBe(2);
    for (const f of froms) expect(f).toMatch(/^FROM node:20-bookworm-slim\b/);
    expect(text).toMatch(/apt-get install[^\n]*\bbubblewrap\b[^\n]*\bpython3\b/);
    expect(text).toMatch(/npm ci --omit=dev/);
    const user = lines.filter((l) => l.startsWith("USER ")).pop();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/\b(root|0)\s*$/);
    expect(lines).toContain("EXPOSE 8787");
    expect(text).toMatch(/HEALTHCHECK[\s\S]*127\.0\.0\.1:8787\/healthz/);
    expect(text).toContain('CMD ["rewardkit", "serve", "--config", "/etc/rewardkit/server.yaml"]');
  });

  it("installs the code environment of scripts/setup-code.sh (the modules code tasks import)", () => {
    const wanted = spawnSync(join(ROOT, "scripts/setup-code.sh"), ["--print"], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean);
    expect(wanted).toContain("python3-sortedcontainers");
    const install = /apt-get install((?:[^\n]*\\\n)*[^\n]*)/.exec(text)?.[1] ?? "";
    for (const p of wanted) expect(install.split(/[\s\\]+/), p).toContain(p);
  });

  it("every COPY from the context names files that exist and that the .dockerignore lets in", () => {
    // the context is the repository root; deploy/Dockerfile.dockerignore: ignore all, then re-include (! lines)
    const allow = readFileSync(join(ROOT, "deploy/Dockerfile.dockerignore"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("!"))
      .map((l) => l.slice(1));
    const glob = (p: string): RegExp =>
      new RegExp(
        "^" +
          p
            .replace(/[.+^${}()|[\]\\]/g, "\\$&")
            .replace(/\*\*/g, "§")
            .replace(/\*/g, "[^/]*")
            .replace(/§/g, ".*") +
          "$",
      );
    const allowed = (path: string): boolean => allow.some((a) => glob(a).test(path) || glob(a).test(`${path}/x`));
    const copies = lines.filter((l) => /^COPY (?!--from)/.test(l));
    expect(copies.length).toBeGreaterThan(3);
    for (const c of copies) {
      const srcs = c.split(/\s+/).slice(1, -1);
      for (const s of srcs) {
        const files = s.includes("*")
          ? spawnSync("sh", ["-c", `ls -d ${s}`], { cwd: ROOT, encoding: "utf8" })
              .stdout.split("\n")
              .filter(Boolean)
          : [s];
        expect(files.length, s).toBeGreaterThan(0);
        for (const f of files) {
          expect(existsSync(join(ROOT, f)), f).toBe(true);
          expect(allowed(f), `${f} is excluded by deploy/Dockerfile.dockerignore`).toBe(true);
        }
      }
    }
    // what the runtime reads from the source tree is copied (src/verifiers/language/langdetect.ts)
    expect(text).toContain("COPY src/verifiers/language/data");
  });
});

describe.skipIf(!HAS_HAPROXY)("deploy/haproxy/haproxy.cfg", () => {
  it("haproxy -c accepts it, with the defaults and with addresses from the environment", () => {
    const cfg = join(ROOT, "deploy/haproxy/haproxy.cfg");
    for (const env of [{}, { REWARDKIT_1: "10.0.0.1:8787", REWARDKIT_BIND: "0.0.0.0:9000" }]) {
      const r = spawnSync("haproxy", ["-c", "-f", cfg], { encoding: "utf8", env: { ...process.env, ...env } });
      expect(r.status, r.stderr).toBe(0);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/WARNING|ALERT/);
    }
    const text = readFileSync(cfg, "utf8");
    expect(text).toMatch(/^\s*balance hdr\(X-Rewardkit-Group\)$/m);
    expect(text).toMatch(/^\s*hash-type consistent$/m);
    expect(text).toMatch(/^\s*retry-on conn-failure empty-response response-timeout 503$/m);
    expect(text).toMatch(/^\s*timeout server (\d+)s$/m);
    expect(Number(/^\s*timeout server (\d+)s$/m.exec(text)![1])).toBeGreaterThanOrEqual(180);
  });
});
