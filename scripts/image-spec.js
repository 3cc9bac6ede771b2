// What the container image of svc is (docs/image.md), written once: scripts/build-image.js builds it from these,
// scripts/image-smoke.js runs it by them, and test/docs/deploy.test.ts holds the compose file and the Kubernetes
// manifests in deploy/ to them. The emulator's port is EMULATOR_DEFAULT_PORT (src/definitions.ts) and its ready
// route READY_PATH (src/emulator/control/openapi-route.ts).

/** The image's name; its tag is the package's version. */
export const IMAGE_NAME = 'svc';

/** The user svc runs as: not root, and no user of a usual host, so the volume's files are the container's. */
export const IMAGE_USER = {name: 'svc', uid: 10001, gid: 10001};

/** The volume: the emulator's data dir and the executable's cache live here, and nothing else is written. */
export const IMAGE_VOLUME = '/var/lib/svc';
export const IMAGE_DATA_DIR = `${IMAGE_VOLUME}/data`;
/**
 * Where the executable's launcher keeps its program and files (docs/binary.md): on the volume, so that they are
 * written once per build and volume, and every later start only checks them, instead of writing some 170 MB anew.
 */
export const IMAGE_CACHE_DIR = `${IMAGE_VOLUME}/cache`;

/** The executable in the image, found on the PATH as `svc`. */
export const IMAGE_BIN_DIR = '/usr/local/bin';
export const IMAGE_ENTRYPOINT = 'svc';

/** The one folder besides the volume that is written: a tmpfs the runtime mounts. */
export const IMAGE_TMP = '/tmp';

/** The image's environment (SVC_EMULATOR_DATABASE_URL and SVC_EMULATOR_VAULT_KEY are the runner's to give). */
export const IMAGE_ENV = {
  PATH: `${IMAGE_BIN_DIR}:/usr/bin`,
  HOME: IMAGE_VOLUME,
  SVC_CACHE_DIR: IMAGE_CACHE_DIR,
  SVC_EMULATOR_DATA_DIR: IMAGE_DATA_DIR,
  // oclif asks the user database for the login shell when SHELL is unset, and a user the runtime picks
  // (`docker run --user 1234`, OpenShift's random ids) is in none: said here, nothing is looked up.
  SHELL: '/usr/bin/sh',
};

/** The default command: the emulator on every interface of the container, on `port`. */
export function imageCommand(port) {
  return ['emulator', 'start', '--host', '0.0.0.0', '--port', String(port)];
}

/**
 * The health check: busybox's wget asks the emulator's ready route (READY_PATH, which answers {"ready": true}
 * without a token) on loopback, starting no Node for it.
 */
export function imageHealthcheck(port, readyPath) {
  return ['CMD', 'wget', '-q', '-O', '-', `http://127.0.0.1:${port}${readyPath}`];
}

/** Where the build writes the image: an OCI image layout (tag svc:<version>) and a docker-archive. */
export const IMAGE_OUT = 'dist/image';
export const IMAGE_LAYOUT = `${IMAGE_OUT}/svc-oci`;
export const IMAGE_ARCHIVE = `${IMAGE_OUT}/svc-image.tar`;

/** The goals (issue 45; `npm run bench` and the image smoke print them). */
export const IMAGE_GOALS = {compressedMb: 60, unpackedMb: 180, readyRatio: 1.2, stopSeconds: 5};
