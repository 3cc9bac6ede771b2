// `svc emulator openapi`: the OpenAPI 3.1 document of /v1 and the webhooks, as the emulator serves it.
import {usageError} from '../../lib/errors.js';
import {buildOpenApiDocument, type OpenApiDocument} from '../../schemas/openapi.js';

export interface OpenApiOptions {
  /** The address the document names for /v1 (its `servers`). */
  serverUrl?: string;
}

export function emulatorOpenApi(options: OpenApiOptions): OpenApiDocument {
  if (options.serverUrl !== undefined && !isHttpUrl(options.serverUrl)) {
    throw usageError(`--server-url must be an http:// or https:// address, like https://api.svc.invalid`);
  }
  return buildOpenApiDocument({serverUrl: options.serverUrl?.replace(/\/+$/, '')});
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    return false;
  }
}
