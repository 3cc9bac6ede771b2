// The seed file: a hand-written starting state for the emulator (orgs, people, keys with known secrets,
// endpoints with known signing secrets, sandboxes), loaded by `svc emulator start --seed FILE` or
// `svc emulator import FILE` without firing any event. This is its shape; the emulator checks the rules
// (id shapes, secrets, limits, URLs) against src/definitions.ts when it loads one.
import {z} from 'zod';
import {KEY_EXPIRY_CHOICES, ORG_ROLES, SANDBOX_STATUSES} from '../definitions.js';

/** The seed format this version of svc writes and reads; a file of a newer format is refused. */
export const SEED_FORMAT_VERSION = 1;
/** The key that marks a JSON document as a seed file, holding its format version. */
export const SEED_FORMAT_KEY = 'svc_emulator_seed';

/** Sandbox statuses a seed may give: every status but `deleting`, which only an expiry reaches. */
export const SEEDABLE_SANDBOX_STATUSES = SANDBOX_STATUSES.filter((s) => s !== 'deleting');

const expiryDays = KEY_EXPIRY_CHOICES.filter((c) => c !== 'never').map(Number);

export const SeedKeySchema = z.strictObject({
  name: z.string(),
  /** `svc_` and 40 base62 characters, so a CI job can hold a key it knows; absent: a fresh one, printed once. */
  secret: z.string().optional(),
  /** 30, 90 or 365 days from the load, or never (the default). */
  expires: z
    .union([z.enum(KEY_EXPIRY_CHOICES), z.number()])
    .optional()
    .meta({description: `${expiryDays.join(', ')} (days) or "never"`}),
  created_by: z.string().optional(),
});

export const SeedWebhookSchema = z.strictObject({
  url: z.string(),
  events: z.array(z.string()),
  /** `whsec_` and the base64 of 32 bytes; absent: a fresh one, printed once. */
  secret: z.string().optional(),
  description: z.string().optional(),
});

export const SeedSandboxSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  status: z.string().meta({description: SEEDABLE_SANDBOX_STATUSES.join(', ')}),
  last_error: z.string().optional(),
});

export const SeedPersonSchema = z.strictObject({
  email: z.string(),
  role: z.enum(ORG_ROLES),
});

export const SeedOrgSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  keys: z.array(SeedKeySchema).optional(),
  webhooks: z.array(SeedWebhookSchema).optional(),
  sandboxes: z.array(SeedSandboxSchema).optional(),
  people: z.array(SeedPersonSchema).optional(),
});

export const SeedSchema = z.strictObject({
  [SEED_FORMAT_KEY]: z.literal(SEED_FORMAT_VERSION),
  orgs: z.array(SeedOrgSchema),
});
export type Seed = z.infer<typeof SeedSchema>;
export type SeedOrg = z.infer<typeof SeedOrgSchema>;
