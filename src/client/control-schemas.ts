// The schemas the emulator's control client parses its answers with, in one module it loads with its first
// call (src/client/emulator-control.ts): importing the client constructs none of them.
export * from '../schemas/emulator.js';
export {SnapshotSchema} from '../schemas/snapshot.js';
export {CreatedSandboxLinkSchema, listOf, OrgSchema, SandboxLinkSchema} from '../schemas/index.js';
export {CheckpointDeletedSchema, CheckpointSchema, RewoundCheckpointSchema} from '../schemas/checkpoints.js';
