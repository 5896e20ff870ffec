import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseEnv } from '@voice/kit';
import { tracingVariables, tracingWanted } from '@voice/kit/tracing';
import { parse, parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { envSchemas } from './support/env-schemas.js';

// No cluster and no kubectl are assumed: the manifests are checked by reading them. `kubectl kustomize
// infra/k8s/base` renders them where kubectl exists (see infra/k8s/README.md).
const root = new URL('../../', import.meta.url);
const k8s = new URL('infra/k8s/', root);
const baseDir = new URL('base/', k8s);

// --- minimal shapes of the objects read ----------------------------------------------------------------------
interface Meta {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  volumes?: { name: string; emptyDir?: object }[];
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}
interface LabelSelector {
  matchLabels?: Record<string, string>;
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: object;
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: LabelSelector;
    template?: PodTemplate;
    type?: string;
    ports?: { name?: string; port: number; targetPort?: string | number }[];
    minAvailable?: number;
    minReplicas?: number;
    maxReplicas?: number;
    scaleTargetRef?: { kind: string; name: string };
    podSelector?: LabelSelector;
    policyTypes?: string[];
    ingress?: { from?: Peer[]; ports?: { port: number }[] }[];
    rules?: { http?: { paths: { path: string; backend: { service: { name: string; port: { name?: string; number?: number } } } }[] } }[];
  };
}
interface Kustomization {
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path?: string; target?: { kind: string; name: string }; patch?: string }[];
  replicas?: unknown[];
}

function readYaml(url: URL): Manifest[] {
  const documents = parseAllDocuments(readFileSync(url, 'utf8'));
  const list = Array.isArray(documents) ? documents : [documents];
  return list.map((document) => {
    assert.deepEqual(document.errors, [], `${url.pathname} parses`);
    return document.toJS() as Manifest;
  });
}

const kustomization = readYaml(new URL('kustomization.yaml', baseDir))[0] as unknown as Kustomization;
const baseFiles = readdirSync(baseDir).filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml');
const manifests = baseFiles.flatMap((file) => readYaml(new URL(file, baseDir)));

function find(kind: string, name: string): Manifest {
  const found = manifests.filter((manifest) => manifest.kind === kind && manifest.metadata?.name === name);
  assert.equal(found.length, 1, `exactly one ${kind} ${name} in infra/k8s/base`);
  return found[0] as Manifest;
}

function podSpec(manifest: Manifest): PodSpec {
  const spec = manifest.spec?.template?.spec;
  assert.ok(spec, `${manifest.kind} ${manifest.metadata.name} has a pod template`);
  return spec;
}

function onlyContainer(manifest: Manifest): Container {
  const containers = podSpec(manifest).containers;
  assert.equal(containers.length, 1, `${manifest.metadata.name} runs one container`);
  return containers[0] as Container;
}

/** Kubernetes quantities as numbers: memory in MiB, cpu in cores. */
function mebibytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Mi|Gi)$/.exec(quantity);
  assert.ok(match, `memory quantity ${quantity} in Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}
function cores(quantity: string): number {
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);
}

function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  const wanted = Object.entries(selector?.matchLabels ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels[key] === value);
}

// --- what the deployables are, read by hand from the Dockerfiles and each src/env.ts ---------------------------
type EnvSchema = z.ZodObject;

interface Expected {
  dir: string;
  port: number;
  /** Where Prometheus scrapes, when not the http port (the gateway's http port is public). */
  metricsPort?: number;
  schema: EnvSchema;
  /**
   * Variables the env schema requires with no default at all: parsing an empty environment names them.
   * None today (every variable has a default or is optional); the test below keeps this list honest.
   */
  requiredWithoutDefault: string[];
  /**
   * Variables whose default is for development only (localhost addresses, a published signing secret or
   * encryption key): production must provide them, from the Secret, never optionally.
   */
  productionSecrets: string[];
  /** Secrets needed together (the schema's superRefine): when one is wired, so is the other. */
  pairs?: [string, string][];
}

const backing = ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'INTERNAL_SIGNING_SECRET'];
const deployables: Record<string, Expected> = {
  gateway: {
    dir: 'gateway',
    port: 8080,
    metricsPort: 9464,
    schema: envSchemas.gateway,
    requiredWithoutDefault: [],
    productionSecrets: backing,
  },
  telephony: {
    dir: 'services/telephony',
    port: 8081,
    schema: envSchemas.telephony,
    requiredWithoutDefault: [],
    productionSecrets: backing,
    pairs: [['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN']],
  },
  leads: { dir: 'services/leads', port: 8082, schema: envSchemas.leads, requiredWithoutDefault: [], productionSecrets: backing },
  recall: { dir: 'services/recall', port: 8083, schema: envSchemas.recall, requiredWithoutDefault: [], productionSecrets: backing },
  mcp: {
    dir: 'services/mcp',
    port: 8084,
    schema: envSchemas.mcp,
    requiredWithoutDefault: [],
    // The MCP service uses no Redis (services/mcp/src/deps.ts connects Postgres and NATS only). Approval
    // requests go out by e-mail: production has an SMTP server or does not start.
    productionSecrets: ['DATABASE_URL', 'NATS_URL', 'INTERNAL_SIGNING_SECRET', 'SMTP_URL'],
    pairs: [
      ['TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET'],
      ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET'],
    ],
  },
  webhooks: {
    dir: 'services/webhooks',
    port: 8085,
    schema: envSchemas.webhooks,
    requiredWithoutDefault: [],
    productionSecrets: [...backing, 'WEBHOOK_SECRET_ENCRYPTION_KEY'],
  },
  console: {
    dir: 'services/console',
    port: 8086,
    schema: envSchemas.console,
    requiredWithoutDefault: [],
    // Password reset links and invitations go out by e-mail: production has an SMTP server or does not start.
    productionSecrets: [...backing, 'SMTP_URL'],
  },
};

/** Realistic values for the Secret's keys, to parse each deployable's environment with its real schema. */
const secretValues: Record<string, string> = {
  DATABASE_URL: 'postgresql://voice:password@postgres.internal:5432/voice?sslmode=require',
  REDIS_URL: 'redis://default:password@redis.internal:6379',
  NATS_URL: 'nats://voice:password@nats.internal:4222',
  INTERNAL_SIGNING_SECRET: 'a'.repeat(64),
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  SMTP_URL: 'smtp://voice:password@smtp.internal:587',
  // Recall in production needs at least one model provider (services/recall/src/env.ts).
  OPENAI_API_KEY: 'sk-example',
};

/** Variables a pod gets that are for Node itself or for kit's tracing (the standard OTEL_* ones), not the process's schema. */
const runtimeVariables = new Set(['NODE_OPTIONS', ...tracingVariables]);

/**
 * The environment a deployable's pod would see: its ConfigMaps (as base has them, or as `configMaps` gives
 * them), its literal values and the Secret's keys.
 */
function podEnvironment(
  container: Container,
  secrets: Record<string, string>,
  configMaps: (name: string) => Record<string, string> = (name) => find('ConfigMap', name).data ?? {},
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(environment, configMaps(source.configMapRef.name));
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) environment[variable.name] = variable.value;
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref && secrets[ref.key] !== undefined) environment[variable.name] = secrets[ref.key] as string;
  }
  return environment;
}

function secretRefs(container: Container): Map<string, { key: string; optional: boolean }> {
  const refs = new Map<string, { key: string; optional: boolean }>();
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (!ref) continue;
    assert.equal(ref.name, 'voice-secrets', `${variable.name} comes from the Secret voice-secrets`);
    refs.set(variable.name, { key: ref.key, optional: ref.optional === true });
  }
  return refs;
}

function preStopSeconds(container: Container): number {
  const command = container.lifecycle?.preStop?.exec?.command ?? [];
  assert.equal(command[0], 'sleep', `${container.name} sleeps in preStop so its endpoint is removed before SIGTERM`);
  const seconds = Number(command[1]);
  assert.ok(seconds >= 3, `${container.name} preStop sleeps at least 3 s`);
  return seconds;
}

describe('infra/k8s/base', () => {
  test('kustomization.yaml lists every manifest file in base, and every file it lists exists', () => {
    assert.deepEqual([...(kustomization.resources ?? [])].sort(), [...baseFiles].sort());
    for (const file of baseFiles) assert.ok(!file.startsWith('secret'), `${file}: the Secret is not part of the kustomization`);
    assert.ok(
      manifests.every((manifest) => manifest.kind !== 'Secret'),
      'no Secret in base',
    );
    for (const deployable of Object.keys(deployables)) assert.ok(baseFiles.includes(`${deployable}.yaml`), `one file per deployable`);
  });

  test('every object has a kind, an apiVersion and a name, and no two share kind and name', () => {
    const seen = new Set<string>();
    for (const manifest of manifests) {
      assert.ok(manifest.apiVersion && manifest.kind && manifest.metadata?.name, JSON.stringify(manifest).slice(0, 120));
      const id = `${manifest.kind}/${manifest.metadata.name}`;
      assert.ok(!seen.has(id), `${id} defined once`);
      seen.add(id);
    }
  });

  test('tracing: the standard OTEL_* variables in voice-common, off until the commented endpoint is given', () => {
    const common = find('ConfigMap', 'voice-common').data ?? {};
    const otel = Object.keys(common).filter((name) => name.startsWith('OTEL_'));
    assert.deepEqual(otel.sort(), [
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_RESOURCE_ATTRIBUTES',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
    ]);
    for (const name of otel) assert.ok((tracingVariables as readonly string[]).includes(name), `${name} is one kit's tracing reads`);
    assert.equal(tracingWanted(common), false, 'no endpoint, no exporter: tracing stays off');
    const file = readFileSync(new URL('common.yaml', baseDir), 'utf8');
    const commented = /^ {2}# (OTEL_EXPORTER_OTLP_ENDPOINT): (\S+)$/m.exec(file);
    assert.ok(commented, 'the endpoint is there to uncomment');
    assert.equal(tracingWanted({ ...common, [commented[1] as string]: commented[2] }), true, 'uncommented, it turns tracing on');
    // Every deployable reads voice-common (the workers too): one place turns tracing on for all of them.
    for (const manifest of manifests.filter((one) => one.kind === 'Deployment')) {
      assert.ok(
        onlyContainer(manifest).envFrom?.some((source) => source.configMapRef?.name === 'voice-common'),
        `${manifest.metadata.name} reads voice-common`,
      );
    }
  });

  test('ingress is denied by default in the namespace', () => {
    const deny = find('NetworkPolicy', 'default-deny-ingress');
    assert.deepEqual(deny.spec?.podSelector, {});
    assert.deepEqual(deny.spec?.policyTypes, ['Ingress']);
    assert.equal(deny.spec?.ingress, undefined);
  });

  for (const [name, expected] of Object.entries(deployables)) {
    describe(name, () => {
      const deployment = () => find('Deployment', name);
      const container = () => onlyContainer(deployment());

      test(`Deployment runs image voice/${name}, the one the Dockerfile builds for it, on port ${expected.port}`, () => {
        const image = container().image;
        assert.equal(image.split(':')[0], `voice/${name}`);
        const manifest = readFileSync(new URL(`infra/k8s/base/${name}.yaml`, root), 'utf8');
        const build = `docker build --build-arg SERVICE=${name} --build-arg PORT=${expected.port} -t voice/${name} .`;
        assert.ok(manifest.includes(`# Image built with: ${build}`), `the manifest names its build: ${build}`);
        assert.ok(existsSync(new URL(`${expected.dir}/src/main.ts`, root)), `SERVICE=${name} builds ${expected.dir}`);
        const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
        assert.match(dockerfile, /dir="services\/\$SERVICE"/);
        assert.match(dockerfile, /^EXPOSE \$\{PORT\}$/m);
        assert.deepEqual(
          container().ports?.map((port) => [port.name, port.containerPort]),
          [['http', expected.port], ...(expected.metricsPort ? [['metrics', expected.metricsPort]] : [])],
        );
        assert.ok(selects(deployment().spec?.selector, deployment().spec?.template?.metadata.labels ?? {}), 'selector matches the pods');
      });

      test('scaled by its HorizontalPodAutoscaler, two replicas at least, and no replicas field', () => {
        // A fixed count would be reset by every apply, undoing the autoscaler.
        assert.equal(deployment().spec?.replicas, undefined);
        const hpa = find('HorizontalPodAutoscaler', name);
        assert.deepEqual(hpa.spec?.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name });
        assert.ok((hpa.spec?.minReplicas ?? 0) >= 2);
        assert.ok((hpa.spec?.maxReplicas ?? 0) > (hpa.spec?.minReplicas ?? 0));
      });

      test('probes: startup and liveness on /healthz, readiness on /readyz, on the http port', () => {
        const probes = container();
        assert.deepEqual(probes.startupProbe?.httpGet, { path: '/healthz', port: 'http' });
        assert.deepEqual(probes.livenessProbe?.httpGet, { path: '/healthz', port: 'http' });
        assert.deepEqual(probes.readinessProbe?.httpGet, { path: '/readyz', port: 'http' });
      });

      test('runs as a non-root user, read-only root filesystem, no capabilities, a writable /tmp', () => {
        const pod = podSpec(deployment());
        assert.equal(pod.securityContext?.runAsNonRoot, true);
        assert.ok((pod.securityContext?.runAsUser ?? 0) > 0, 'numeric non-root uid (the image user is a name)');
        assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault');
        const security = container().securityContext;
        assert.equal(security?.allowPrivilegeEscalation, false);
        assert.equal(security?.readOnlyRootFilesystem, true);
        assert.deepEqual(security?.capabilities?.drop, ['ALL']);
        const tmp = container().volumeMounts?.find((mount) => mount.mountPath === '/tmp');
        assert.ok(tmp, '/tmp mounted');
        assert.ok(pod.volumes?.find((volume) => volume.name === tmp.name)?.emptyDir, '/tmp is an emptyDir');
      });

      test('resources: requests and limits, and a V8 heap that fits under the memory limit', () => {
        const { requests, limits } = container().resources ?? {};
        assert.ok(requests?.cpu && requests.memory && limits?.cpu && limits.memory, 'cpu and memory requests and limits');
        assert.ok(mebibytes(requests.memory) <= mebibytes(limits.memory));
        assert.ok(cores(requests.cpu) <= cores(limits.cpu));
        assert.ok(mebibytes(limits.memory) >= 256, 'enough memory for a Node process');
        const heap = container().env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '';
        const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(heap)?.[1]);
        assert.ok(heapMiB > 0 && heapMiB < mebibytes(limits.memory), 'old space below the memory limit');
      });

      test('graceful stop: preStop sleep, then SIGTERM, within terminationGracePeriodSeconds', () => {
        const sleep = preStopSeconds(container());
        // What the ConfigMap sets, or else the process's own default (10 s).
        const configured = find('ConfigMap', 'voice-common').data?.SHUTDOWN_GRACE_MS;
        const graceMs = Number(configured ?? parseEnv(expected.schema, {}).SHUTDOWN_GRACE_MS);
        assert.ok(graceMs >= 10_000, 'SHUTDOWN_GRACE_MS not below the default of 10 s');
        const terminationGrace = podSpec(deployment()).terminationGracePeriodSeconds ?? 30;
        assert.ok(terminationGrace > sleep + graceMs / 1000, `${terminationGrace} s > ${sleep} s + ${graceMs / 1000} s`);
      });

      test('Prometheus scrapes /metrics on the container port (the gateway: its metrics port, as METRICS_PORT says)', () => {
        const annotations = deployment().spec?.template?.metadata.annotations;
        assert.equal(annotations?.['prometheus.io/scrape'], 'true');
        assert.equal(annotations?.['prometheus.io/port'], String(expected.metricsPort ?? expected.port));
        if (expected.metricsPort) assert.equal(find('ConfigMap', `${name}-config`).data?.METRICS_PORT, String(expected.metricsPort));
        assert.equal(annotations?.['prometheus.io/path'], '/metrics');
      });

      test('env: the shared and own ConfigMaps, secrets from voice-secrets by key', () => {
        const sources = container().envFrom ?? [];
        assert.deepEqual(
          sources.map((source) => source.configMapRef?.name),
          ['voice-common', `${name}-config`],
        );
        assert.ok(
          sources.every((source) => !source.secretRef),
          'secrets by key (each deployable sees only its own), not the whole Secret',
        );
        assert.equal(find('ConfigMap', `${name}-config`).data?.PORT, String(expected.port));
        const refs = secretRefs(container());
        for (const variable of expected.productionSecrets) {
          assert.deepEqual(refs.get(variable), { key: variable, optional: false }, `${variable} from the Secret, not optional`);
        }
        for (const [one, other] of expected.pairs ?? []) {
          assert.ok(refs.has(one) && refs.has(other), `${one} and ${other} are wired together`);
        }
        // Nothing secret in a ConfigMap.
        const configured = podEnvironment(container(), {});
        for (const variable of [...expected.productionSecrets, ...(expected.pairs?.flat() ?? [])]) {
          assert.equal(configured[variable], undefined, `${variable} is not in a ConfigMap`);
        }
      });

      test('env schema: nothing is required without a default beyond the listed ones, and all of it is provided', () => {
        const missing = expected.schema.safeParse({}).error?.issues.map((issue) => issue.path.join('.')) ?? [];
        assert.deepEqual(missing.sort(), [...expected.requiredWithoutDefault].sort(), `${expected.dir}/src/env.ts requires these`);
        const provided = podEnvironment(container(), secretValues);
        for (const variable of expected.requiredWithoutDefault) assert.ok(provided[variable], `${variable} is provided`);
      });

      test('env schema: every variable set is one the process reads, and the whole environment parses', () => {
        const known = new Set(Object.keys(expected.schema.shape));
        const environment = podEnvironment(container(), secretValues);
        for (const variable of [...Object.keys(environment), ...secretRefs(container()).keys()]) {
          if (!runtimeVariables.has(variable)) assert.ok(known.has(variable), `${variable} is read by ${expected.dir}/src/env.ts`);
        }
        const parsed = parseEnv(expected.schema, environment) as Record<string, unknown>;
        assert.equal(parsed.PORT, expected.port);
        assert.equal(parsed.NODE_ENV, 'production');
        for (const variable of expected.productionSecrets) assert.equal(parsed[variable], secretValues[variable]);
        if (name === 'gateway') {
          for (const [service, other] of Object.entries(deployables)) {
            if (service === 'gateway') continue;
            assert.equal(parsed[`${service.toUpperCase()}_URL`], `http://${service}:${other.port}`, `the gateway reaches ${service}`);
          }
        }
      });

      test(`Service: ClusterIP on port ${expected.port}, to the pods' http port`, () => {
        const service = find('Service', name);
        assert.equal(service.spec?.type, 'ClusterIP');
        assert.deepEqual(
          service.spec?.ports?.map((port) => [port.port, port.targetPort]),
          [[expected.port, 'http']],
        );
        // A Service's selector is a plain map, not a LabelSelector.
        const selector = service.spec?.selector as Record<string, string> | undefined;
        assert.ok(selects({ matchLabels: selector ?? {} }, deployment().spec?.template?.metadata.labels ?? {}), 'selects the pods');
      });

      test('PodDisruptionBudget keeps one pod available', () => {
        const budget = find('PodDisruptionBudget', name);
        assert.equal(budget.spec?.minAvailable, 1);
        assert.ok(selects(budget.spec?.selector, deployment().spec?.template?.metadata.labels ?? {}), 'selects the pods');
      });

      test(
        name === 'gateway' ? 'NetworkPolicy: traffic from the ingress controller' : 'NetworkPolicy: traffic only from the gateway',
        () => {
          const policy = find('NetworkPolicy', name);
          assert.ok(selects(policy.spec?.podSelector, deployment().spec?.template?.metadata.labels ?? {}), 'applies to the pods');
          assert.deepEqual(policy.spec?.policyTypes, ['Ingress']);
          const rules = policy.spec?.ingress ?? [];
          for (const rule of rules) {
            const scraper = rule.from?.some(
              (peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring',
            );
            assert.deepEqual(
              rule.ports?.map((port) => port.port),
              [scraper ? (expected.metricsPort ?? expected.port) : expected.port],
              'only the http port (the scraper: the metrics port)',
            );
            for (const peer of rule.from ?? []) assert.equal(peer.ipBlock, undefined, 'no address ranges');
          }
          const peers = rules.flatMap((rule) => rule.from ?? []);
          assert.ok(peers.length > 0, 'every rule names its peers (an empty from would admit everyone)');
          // Pods of this namespace that may connect: the gateway for a service, none for the gateway.
          const podPeers = peers.filter((peer) => peer.podSelector && !peer.namespaceSelector);
          const namespaces = peers.filter((peer) => peer.namespaceSelector).map((peer) => peer.namespaceSelector?.matchLabels);
          if (name === 'gateway') {
            assert.deepEqual(podPeers, []);
            assert.ok(namespaces.some((labels) => labels?.['kubernetes.io/metadata.name'] === 'ingress-nginx'));
          } else {
            assert.deepEqual(podPeers, [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } }]);
          }
          // Other namespaces: only the metrics scraper (and, for the gateway, the ingress controller).
          const allowed = name === 'gateway' ? ['ingress-nginx', 'monitoring'] : ['monitoring'];
          assert.deepEqual(namespaces.map((labels) => labels?.['kubernetes.io/metadata.name']).sort(), allowed);
        },
      );
    });
  }

  test('every Deployment, API or worker, has one autoscaler, and every autoscaler scales a Deployment', () => {
    const autoscalers = manifests.filter((manifest) => manifest.kind === 'HorizontalPodAutoscaler');
    const deployments = manifests.filter((manifest) => manifest.kind === 'Deployment').map((manifest) => manifest.metadata.name);
    assert.deepEqual(autoscalers.map((hpa) => hpa.spec?.scaleTargetRef?.name).sort(), [...deployments].sort());
    for (const hpa of autoscalers) {
      assert.equal(hpa.spec?.scaleTargetRef?.kind, 'Deployment');
      assert.ok((hpa.spec?.minReplicas ?? 0) >= 1 && (hpa.spec?.maxReplicas ?? 0) > (hpa.spec?.minReplicas ?? 0), hpa.metadata.name);
      assert.equal(find('Deployment', hpa.spec?.scaleTargetRef?.name ?? '').spec?.replicas, undefined, 'the autoscaler owns the count');
    }
  });

  test('migration Job: the gateway image, the migrate command, DATABASE_URL from the Secret', () => {
    const job = find('Job', 'voice-migrate');
    const migrate = onlyContainer(job);
    assert.equal(migrate.image, onlyContainer(find('Deployment', 'gateway')).image);
    assert.deepEqual(migrate.command, ['node', 'packages/migrator/bin/voice-db.mjs', 'migrate']);
    assert.ok(existsSync(new URL('packages/migrator/bin/voice-db.mjs', root)));
    assert.match(readFileSync(new URL('Dockerfile', root), 'utf8'), /SERVICE" = gateway[\s\S]*cp -r --parents packages\/migrator\/bin /);
    assert.deepEqual(secretRefs(migrate).get('DATABASE_URL'), { key: 'DATABASE_URL', optional: false });
    const pod = podSpec(job);
    assert.equal(pod.restartPolicy, 'Never');
    assert.equal(pod.securityContext?.runAsNonRoot, true);
    assert.ok((pod.securityContext?.runAsUser ?? 0) > 0);
    assert.deepEqual(migrate.securityContext?.capabilities?.drop, ['ALL']);
    assert.ok(migrate.resources?.limits?.memory && migrate.resources.requests?.memory);
    // The README's apply order selects the Job by this label; Argo CD runs it before the rest.
    assert.equal(job.metadata.labels?.['app.kubernetes.io/component'], 'migration');
    assert.equal(job.spec?.template?.metadata.labels['app.kubernetes.io/component'], 'migration');
    assert.equal(job.metadata.annotations?.['argocd.argoproj.io/hook'], 'PreSync');
    const others = manifests.filter((manifest) => manifest.kind !== 'Job');
    assert.ok(others.every((manifest) => manifest.metadata.labels?.['app.kubernetes.io/component'] !== 'migration'));
  });
});

/** The worker kinds a container's environment selects (its WORKERS parsed by the deployable's own schema). */
function workerKinds(expected: Expected, container: Container): string[] {
  const parsed = parseEnv(expected.schema, podEnvironment(container, secretValues)) as { WORKERS: ReadonlySet<string> };
  return [...parsed.WORKERS].sort();
}

describe('infra/k8s/base: API replicas and worker replicas', () => {
  for (const [name, expected] of Object.entries(deployables)) {
    test(`${name}: every worker kind runs in exactly one of the API and worker Deployments; the outbox relay stays with the API`, () => {
      const all = [...(parseEnv(expected.schema, { WORKERS: 'all' }) as { WORKERS: ReadonlySet<string> }).WORKERS].sort();
      const api = workerKinds(expected, onlyContainer(find('Deployment', name)));
      const workerDeployment = manifests.find((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === `${name}-worker`);
      const worker = workerDeployment ? workerKinds(expected, onlyContainer(workerDeployment)) : [];
      assert.deepEqual([...api, ...worker].sort(), all, 'each kind once, none missing');
      if (all.includes('outbox')) assert.ok(api.includes('outbox'), 'events of API writes go out at once, not at the next poll');
      if (workerDeployment) assert.ok(worker.length > 0, `${name}-worker runs some work`);
      else assert.deepEqual(api, all, 'without a worker Deployment the API replicas run everything');
    });
  }

  const workerDeployments = manifests.filter((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name.endsWith('-worker'));

  test('worker Deployments exist for every deployable with work beyond the outbox relay', () => {
    assert.deepEqual(
      workerDeployments.map((manifest) => manifest.metadata.name).sort(),
      ['console', 'gateway', 'leads', 'mcp', 'telephony', 'webhooks'].map((name) => `${name}-worker`),
    );
  });

  for (const worker of workerDeployments) {
    const name = worker.metadata.name.replace(/-worker$/, '');
    test(`${worker.metadata.name} is the ${name} Deployment but for its name, labels and WORKERS`, () => {
      const api = find('Deployment', name);
      const copy = structuredClone(api) as Manifest & { spec: { template: { spec: Record<string, unknown> } } };
      const relabel = (labels: Record<string, string> | undefined) => {
        if (labels?.['app.kubernetes.io/name']) labels['app.kubernetes.io/name'] = worker.metadata.name;
        if (labels?.['app.kubernetes.io/component']) labels['app.kubernetes.io/component'] = 'worker';
      };
      copy.metadata.name = worker.metadata.name;
      relabel(copy.metadata.labels);
      relabel(copy.spec.selector?.matchLabels);
      relabel(copy.spec.template.metadata.labels);
      const spread = copy.spec.template.spec.topologySpreadConstraints as { labelSelector: LabelSelector }[] | undefined;
      for (const constraint of spread ?? []) relabel(constraint.labelSelector.matchLabels);
      const container = copy.spec.template.spec.containers as Container[];
      const workers = onlyContainer(worker).env?.find((variable) => variable.name === 'WORKERS');
      assert.ok(workers?.value, 'WORKERS set on the container, after envFrom, so it wins over the API value');
      (container[0] as Container).env = [{ name: 'WORKERS', value: workers.value }, ...((container[0] as Container).env ?? [])];
      assert.deepEqual(worker, copy);
    });

    test(`${worker.metadata.name} takes no traffic: no Service, budget or gateway rule selects it; Prometheus may scrape it`, () => {
      const labels = worker.spec?.template?.metadata.labels ?? {};
      for (const kind of ['Service', 'PodDisruptionBudget']) {
        for (const other of manifests.filter((manifest) => manifest.kind === kind)) {
          const selector = kind === 'Service' ? { matchLabels: other.spec?.selector as Record<string, string> } : other.spec?.selector;
          assert.ok(!selects(selector, labels), `${kind} ${other.metadata.name} does not select ${worker.metadata.name}`);
        }
      }
      const policies = manifests.filter((manifest) => manifest.kind === 'NetworkPolicy' && selects(manifest.spec?.podSelector, labels));
      assert.deepEqual(
        policies.map((policy) => policy.metadata.name),
        ['workers'],
      );
      const peers = policies[0]?.spec?.ingress?.flatMap((rule) => rule.from ?? []) ?? [];
      assert.deepEqual(
        peers.map((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']),
        ['monitoring'],
      );
    });
  }
});

describe('infra/k8s: the example Secret, the overlays, the README', () => {
  const example = readYaml(new URL('secret.example.yaml', k8s));

  test('the example Secret holds every key the manifests reference, and lives outside any kustomization', () => {
    assert.equal(example.length, 1);
    const secret = example[0] as Manifest;
    assert.equal(secret.kind, 'Secret');
    assert.equal(secret.metadata.name, 'voice-secrets');
    const keys = new Set(Object.keys(secret.stringData ?? {}));
    for (const manifest of manifests.filter((item) => item.spec?.template)) {
      for (const ref of secretRefs(onlyContainer(manifest)).values()) assert.ok(keys.has(ref.key), `${ref.key} in the example`);
    }
    assert.ok(!existsSync(new URL('secret.example.yaml', baseDir)));
  });

  test('an unedited example cannot run: its signing secret and encryption key are refused by the processes', () => {
    const placeholders = (example[0] as Manifest).stringData ?? {};
    assert.throws(
      () => parseEnv(envSchemas.gateway, { INTERNAL_SIGNING_SECRET: placeholders.INTERNAL_SIGNING_SECRET }),
      /INTERNAL_SIGNING_SECRET/,
    );
    assert.throws(
      () => parseEnv(envSchemas.webhooks, { WEBHOOK_SECRET_ENCRYPTION_KEY: placeholders.WEBHOOK_SECRET_ENCRYPTION_KEY }),
      /WEBHOOK_SECRET_ENCRYPTION_KEY/,
    );
    // The URLs are well-formed, so only the credentials need replacing.
    const urls = { DATABASE_URL: placeholders.DATABASE_URL, REDIS_URL: placeholders.REDIS_URL, NATS_URL: placeholders.NATS_URL };
    assert.doesNotThrow(() => parseEnv(envSchemas.gateway, urls));
  });

  test('the production overlay: base, namespace, one image per deployable, the Ingress to the gateway', () => {
    const overlay = new URL('overlays/production/', k8s);
    const production = readYaml(new URL('kustomization.yaml', overlay))[0] as unknown as Kustomization;
    assert.ok(production.resources?.includes('../../base'));
    for (const file of [...(production.resources ?? []), ...(production.patches ?? []).map((patch) => patch.path)]) {
      if (file && file !== '../../base') assert.ok(existsSync(new URL(file, overlay)), `${file} exists`);
    }
    assert.deepEqual(
      production.images?.map((image) => image.name).sort(),
      Object.keys(deployables)
        .map((name) => `voice/${name}`)
        .sort(),
    );
    for (const image of production.images ?? []) assert.ok(image.newTag, `${image.name} has a release tag`);
    assert.equal(production.replicas, undefined, 'the autoscalers own the replica counts: the overlay sets their bounds');
    const ingress = readYaml(new URL('ingress.yaml', overlay)).find((manifest) => manifest.kind === 'Ingress');
    const paths = ingress?.spec?.rules?.flatMap((rule) => rule.http?.paths ?? []) ?? [];
    assert.ok(paths.length > 0);
    for (const path of paths) {
      assert.equal(path.backend.service.name, 'gateway', 'the Ingress reaches only the gateway');
      assert.ok(
        path.path.startsWith('/api') || path.path === '/dashboard',
        'only /api and the console are public: probes and /metrics stay inside',
      );
    }
  });

  test('the clustered overlay: production, with REDIS_MODE=cluster and JETSTREAM_REPLICAS=3, and every process parses it', () => {
    const overlay = new URL('overlays/clustered/', k8s);
    const clustered = readYaml(new URL('kustomization.yaml', overlay))[0] as unknown as Kustomization;
    assert.deepEqual(clustered.resources, ['../production']);
    // Its patches are JSON patches of ConfigMaps' data: applied here to base's ConfigMaps.
    const data = new Map<string, Record<string, string>>();
    for (const patch of clustered.patches ?? []) {
      assert.equal(patch.target?.kind, 'ConfigMap', 'configuration only: the backing servers are not deployed here');
      const name = patch.target?.name ?? '';
      const patched = { ...(data.get(name) ?? find('ConfigMap', name).data) };
      const ops = parse(patch.patch ?? '[]') as { op: string; path: string; value: string }[];
      for (const op of ops) {
        assert.ok(['add', 'replace'].includes(op.op) && op.path.startsWith('/data/'), JSON.stringify(op));
        patched[op.path.slice('/data/'.length)] = op.value;
      }
      data.set(name, patched);
    }
    const configMaps = (name: string) => data.get(name) ?? find('ConfigMap', name).data ?? {};
    // The Secret's URLs list the nodes, as the overlay's header and the README show.
    const nodes = (scheme: string, host: string, port: number) =>
      [0, 1, 2].map((index) => `${scheme}://voice:password@${host}-${index}.${host}-headless.voice-data.svc:${port}`).join(',');
    const secrets = {
      ...secretValues,
      REDIS_URL: nodes('redis', 'voice-redis-redis-cluster', 6379),
      NATS_URL: nodes('nats', 'voice-nats', 4222),
    };
    const overlayText = readFileSync(new URL('kustomization.yaml', overlay), 'utf8');
    for (const url of [
      'voice-redis-redis-cluster-2.voice-redis-redis-cluster-headless.voice-data.svc:6379',
      'voice-nats-2.voice-nats-headless.voice-data.svc:4222',
    ]) {
      assert.ok(overlayText.includes(url), `the overlay's header lists ${url}`);
    }
    const containers = manifests.filter((manifest) => manifest.kind === 'Deployment');
    assert.ok(containers.length > Object.keys(deployables).length, 'API and worker Deployments');
    for (const deployment of containers) {
      const name = deployment.metadata.name.replace(/-worker$/, '');
      const expected = deployables[name] as Expected;
      const environment = podEnvironment(onlyContainer(deployment), secrets, configMaps);
      const parsed = parseEnv(expected.schema, environment) as Record<string, unknown>;
      assert.equal(parsed.REDIS_MODE, 'cluster', deployment.metadata.name);
      assert.equal(parsed.JETSTREAM_REPLICAS, 3, deployment.metadata.name);
      assert.equal(parsed.NATS_URL, secrets.NATS_URL);
    }
    const readme = readFileSync(new URL('README.md', k8s), 'utf8');
    for (const phrase of [
      'REDIS_MODE',
      'JETSTREAM_REPLICAS',
      'REDIS_SENTINEL_NAME',
      'helm install voice-redis',
      'helm install voice-nats',
    ]) {
      assert.ok(readme.includes(phrase), `README mentions ${phrase}`);
    }
  });

  test('the README covers deploying, the Secret, the migration order, scaling and the operator CLI', () => {
    const readme = readFileSync(new URL('README.md', k8s), 'utf8');
    for (const phrase of [
      'kubectl apply -k',
      'secret.example.yaml',
      'voice-migrate',
      'wait --for=condition=complete job/voice-migrate',
      'voice-db.mjs migrate',
      'gateway/dist/cli/admin.js',
      'queue group',
      'Lua',
    ]) {
      assert.ok(readme.includes(phrase), `README mentions ${phrase}`);
    }
  });
});
