// PLACEHOLDER until service accounts land (issue 3).
import type { FastifyInstance } from 'fastify';
import type { CredentialStore } from '../store/types.js';

export function registerServiceAccountRoutes(_app: FastifyInstance, _store: CredentialStore): void {}
