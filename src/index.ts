// Library entry: the receiver library and the API client, without the CLI.
export * from './webhooks/index.js';
export * from './schemas/index.js';
export * from './client/index.js';
