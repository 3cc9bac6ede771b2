// The compose file and the Kubernetes manifests that ship in deploy/ (docs/image.md) hold what the docs promise of
// them, and agree with the image (scripts/image-spec.js) and with each other. The Kubernetes manifests are valid
// against the Kubernetes API's schemas (kubernetes-models, which ships them); the one npm package with the Compose
// specification's schema ships a snapshot older than the specification's top-level `name`, so the compose file is
// parsed as Compose parses it (YAML, `<<` merged) and checked field by field. test/image/image.smoke.mjs runs both
// files' emulators under runc.
import {readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Deployment} from 'kubernetes-models/apps/v1/Deployment';
import {Secret} from 'kubernetes-models/v1/Secret';
import {Service} from 'kubernetes-models/v1/Service';
import {describe, expect, it} from 'vitest';
import {parseAllDocuments} from 'yaml';
import {
  IMAGE_ENTRYPOINT,
  IMAGE_NAME,
  IMAGE_TMP,
  IMAGE_USER,
  IMAGE_VOLUME,
  imageCommand,
} from '../../scripts/image-spec.js';
import {EMULATOR_DEFAULT_PORT} from '../../src/definitions.js';
import {READY_PATH} from '../../src/emulator/control/openapi-route.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const IMAGE = `${IMAGE_NAME}:${VERSION}`;

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, checked field by field below
type Doc = any;

function documents(path: string): Doc[] {
  const parsed = parseAllDocuments(readFileSync(join(ROOT, path), 'utf8'), {merge: true});
  for (const doc of parsed) expect(doc.errors, path).toEqual([]);
  return parsed.map((doc) => doc.toJS());
}

/** The value after `flag` in a command. */
function flagValue(command: string[], flag: string): string | undefined {
  const at = command.indexOf(flag);
  return at >= 0 ? command[at + 1] : undefined;
}

/** The image's command on the port a command names: what both files must start the emulator with. */
function startsAsTheImage(command: string[]) {
  const port = Number(flagValue(command, '--port'));
  expect(command.slice(0, imageCommand(port).length)).toEqual(imageCommand(port));
  return port;
}

describe('deploy/compose.yaml: the team emulator', () => {
  const [compose] = documents('deploy/compose.yaml');
  const emulators = Object.entries<Doc>(compose.services).filter(([name]) => name.startsWith('emulator-'));

  it('runs two emulators from the image, each on its own volume and port, read-only with a tmpfs', () => {
    expect(emulators.map(([name]) => name)).toEqual(['emulator-1', 'emulator-2']);
    const ports = new Set<number>();
    const volumes = new Set<string>();
    for (const [name, service] of emulators) {
      expect(service.image, name).toBe(IMAGE);
      expect(service.read_only, name).toBe(true);
      expect(service.tmpfs, name).toEqual([IMAGE_TMP]);
      const port = startsAsTheImage(service.command);
      // Published as the same number: the account page's own name carries the port the emulator listens on.
      expect(service.ports, name).toEqual([`127.0.0.1:${port}:${port}`]);
      // Reached by its service name from the other containers.
      expect(flagValue(service.command, '--allowed-host'), name).toBe(name);
      const [volume] = service.volumes;
      expect(volume.split(':')[1], name).toBe(IMAGE_VOLUME);
      expect(compose.volumes).toHaveProperty(volume.split(':')[0]);
      ports.add(port);
      volumes.add(volume);
    }
    expect(ports.size).toBe(2);
    expect(volumes.size).toBe(2);
  });

  it('gives both the same vault key and database as secrets, read into svc’s environment before svc replaces the shell', () => {
    for (const [name, service] of emulators) {
      expect(service.secrets, name).toEqual(['svc_vault_key', 'svc_database_url']);
      const [shell, dashC, script, zero] = service.entrypoint;
      expect([shell, dashC, zero]).toEqual(['sh', '-c', IMAGE_ENTRYPOINT]);
      // "$$" is Compose's literal "$".
      expect(script).toContain('SVC_EMULATOR_VAULT_KEY="$$(cat /run/secrets/svc_vault_key)"');
      expect(script).toContain('SVC_EMULATOR_DATABASE_URL="$$(cat /run/secrets/svc_database_url)"');
      expect(script).toMatch(/&& exec svc "\$\$@"$/);
      expect(service.environment, `${name}: no secret in its environment list`).toBeUndefined();
      expect(service.depends_on, name).toEqual({postgres: {condition: 'service_healthy'}});
    }
    for (const secret of ['svc_vault_key', 'svc_database_url', 'postgres_password'])
      expect(compose.secrets[secret].file).toBe(`./secrets/${secret}`);
  });

  it('runs PostgreSQL with its password as a secret and a health check the emulators wait for', () => {
    const {postgres} = compose.services;
    expect(postgres.environment.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
    expect(postgres.secrets).toEqual(['postgres_password']);
    expect(postgres.healthcheck.test).toContain('pg_isready');
  });
});

describe('deploy/kubernetes/svc-emulator.yaml', () => {
  const docs = documents('deploy/kubernetes/svc-emulator.yaml');
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
  const [secret] = byKind('Secret');
  const [deployment] = byKind('Deployment');
  const services = byKind('Service');
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;

  it('is valid against the Kubernetes API’s schemas, which refuse a field of the wrong type', () => {
    const models = {Deployment, Secret, Service} as const;
    for (const doc of docs) {
      const Model = models[doc.kind as keyof typeof models];
      expect(Model, doc.kind).toBeDefined();
      expect(() => new Model(doc).validate(), `${doc.kind} ${doc.metadata.name}`).not.toThrow();
    }
    const wrong = structuredClone(deployment);
    wrong.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = 'yes';
    expect(() => new Deployment(wrong).validate()).toThrow(/readOnlyRootFilesystem must be boolean/);
  });

  it('holds a Secret, a Service for the emulators, PostgreSQL as an external service, and a Deployment of 2', () => {
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual([
      'v1 Secret',
      'v1 Service',
      'v1 Service',
      'apps/v1 Deployment',
    ]);
    expect(deployment.spec.replicas).toBe(2);
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    const emulators = services.find((s) => s.spec.selector);
    expect(emulators.spec.selector).toEqual(labels);
    expect(emulators.spec.ports).toEqual([{name: 'http', port: EMULATOR_DEFAULT_PORT, targetPort: 'http'}]);
    const postgres = services.find((s) => s.spec.type === 'ExternalName');
    expect(postgres.spec.externalName).toBeTruthy();
    // The database's address in the Secret names that service.
    expect(new URL(secret.stringData['database-url']).hostname).toBe(postgres.metadata.name);
  });

  it('runs the image as its user, read-only, on an emptyDir volume and a tmpfs, answering its probes', () => {
    expect(container.image).toBe(IMAGE);
    expect(startsAsTheImage(container.args)).toBe(EMULATOR_DEFAULT_PORT);
    expect(flagValue(container.args, '--allowed-host')).toBe(
      services.find((s) => s.spec.selector).metadata.name,
    );
    expect(container.ports).toEqual([{name: 'http', containerPort: EMULATOR_DEFAULT_PORT}]);
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: IMAGE_USER.uid,
      runAsGroup: IMAGE_USER.gid,
    });
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    const mounts = Object.fromEntries(container.volumeMounts.map((m: Doc) => [m.mountPath, m.name]));
    expect(Object.keys(mounts).sort()).toEqual([IMAGE_TMP, IMAGE_VOLUME].sort());
    const volumes = Object.fromEntries(pod.volumes.map((v: Doc) => [v.name, v]));
    expect(volumes[mounts[IMAGE_VOLUME]].emptyDir).toEqual({});
    expect(volumes[mounts[IMAGE_TMP]].emptyDir).toEqual({medium: 'Memory'});
    for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe'])
      expect(container[probe].httpGet, probe).toEqual({path: READY_PATH, port: 'http'});
    // Time for svc to stop on SIGTERM (it takes at most 5 s) before the kubelet kills it.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(5);
  });

  it('gives every replica the same vault key and database from the Secret, never in the manifest’s args', () => {
    const env = Object.fromEntries(container.env.map((e: Doc) => [e.name, e.valueFrom.secretKeyRef]));
    expect(env).toEqual({
      SVC_EMULATOR_VAULT_KEY: {name: secret.metadata.name, key: 'vault-key'},
      SVC_EMULATOR_DATABASE_URL: {name: secret.metadata.name, key: 'database-url'},
    });
    expect(Object.keys(secret.stringData).sort()).toEqual(['database-url', 'vault-key']);
    expect(container.args.join(' ')).not.toMatch(/postgres:|vault/i);
  });
});

describe('docs/image.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/image.md'), 'utf8');

  it('names the files and the commands that use them', () => {
    for (const text of [
      'npm run build:image',
      'docker load -i dist/image/svc-image.tar',
      'podman load -i dist/image/svc-image.tar',
      'docker compose -f deploy/compose.yaml up -d',
      'kubectl apply -f deploy/kubernetes/',
      `${IMAGE}`,
      IMAGE_VOLUME,
      READY_PATH,
    ])
      expect(doc, text).toContain(text);
  });
});
