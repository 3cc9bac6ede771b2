// The type of the emulator's Hono app, apart from the context: the error answers (http-error.ts) need the app's
// type, and the context needs what the errors are answered with; neither has to import the other for it.
import type {Hono} from 'hono';

export type AppEnv = {Variables: {key: {id: string; orgId: string}}};
export type EmulatorApp = Hono<AppEnv>;
