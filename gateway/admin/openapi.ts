// PLACEHOLDER: the OpenAPI document is filled in with the admin API.
import type { Settings } from '../config/settings.js';

export function openApiDocument(settings: Settings) {
  return { openapi: '3.1.0', info: { title: 'Access gateway', version: '0.1.0' }, servers: [{ url: settings.issuer }], paths: {} };
}
