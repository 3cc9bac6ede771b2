// Where svc keeps its files: the rules live in src/user-dirs.ts, shared with the emulator.
export {cacheDir, configDir, dataDir, emulatorDataDir, templateCacheDir} from '../user-dirs.js';
