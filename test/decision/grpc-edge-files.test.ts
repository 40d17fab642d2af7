// The shipped Istio, Envoy Gateway and Contour examples of the gRPC decision listener say what a
// platform team must set, and say it consistently with the gateway: fail closed, a deadline, the
// whole body (at least the gateway's body limit, no partial message), and the Service and port of
// the shipped Kubernetes manifest. (envoy-grpc.yaml is read by edge-header-rules.test.ts.)
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { parseAllDocuments } from 'yaml';
import { settingsFrom } from '../../gateway/config/settings.js';
import { REPO_ROOT } from '../helpers/gateway.js';

const MAX_BODY = settingsFrom({}).maxBodyBytes;
const PORT = 8083;

function documents(file: string): Record<string, any>[] {
  return parseAllDocuments(readFileSync(`${REPO_ROOT}deploy/edge/${file}`, 'utf8')).map((d) => d.toJS() as Record<string, any>);
}

function ofKind(docs: Record<string, any>[], kind: string): Record<string, any> {
  const found = docs.find((d) => d.kind === kind);
  if (!found) throw new Error(`no ${kind}`);
  return found;
}

/** The Service the examples name is the shipped manifest's, with the gRPC port the Deployment opens. */
function checkService(t: Test, name: string, port: number): void {
  const manifest = parseAllDocuments(readFileSync(`${REPO_ROOT}deploy/kubernetes/gateway.yaml`, 'utf8')).map((d) => d.toJS() as Record<string, any>);
  const service = manifest.find((d) => d.kind === 'Service' && d.metadata.name === name);
  t.ok(service, `deploy/kubernetes/gateway.yaml has the Service ${name}`);
  const servicePort = service?.spec.ports.find((p: { port: number }) => p.port === port);
  t.ok(servicePort, `with port ${port}`);
  const container = ofKind(manifest, 'Deployment').spec.template.spec.containers[0];
  const containerPort = container.ports.find((p: { name: string }) => p.name === servicePort?.targetPort);
  const env = Object.fromEntries((container.env as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
  t.equal(String(containerPort?.containerPort), env.GATEWAY_DECISION_GRPC_PORT, 'to the port the gateway opens with GATEWAY_DECISION_GRPC_PORT');
}

t.test('istio-ext-authz.yaml: a CUSTOM policy at the ingress gateway with a provider that fails closed and sends the body', async (t) => {
  const docs = documents('istio-ext-authz.yaml');
  const provider = ofKind(docs, 'IstioOperator').spec.meshConfig.extensionProviders[0];
  t.equal(provider.envoyExtAuthzGrpc.port, PORT);
  t.equal(provider.envoyExtAuthzGrpc.failOpen, false);
  t.match(provider.envoyExtAuthzGrpc.timeout, /^\d+s$/);
  t.ok(provider.envoyExtAuthzGrpc.includeRequestBodyInCheck.maxRequestBytes >= MAX_BODY);
  t.equal(provider.envoyExtAuthzGrpc.includeRequestBodyInCheck.allowPartialMessage, false);
  t.equal(provider.envoyExtAuthzGrpc.includeRequestBodyInCheck.packAsBytes, true);
  const policy = ofKind(docs, 'AuthorizationPolicy');
  t.equal(policy.spec.action, 'CUSTOM');
  t.equal(policy.spec.provider.name, provider.name);
  t.same(policy.spec.selector.matchLabels, { istio: 'ingressgateway' }, 'at the edge, where the peer is the client');
  checkService(t, provider.envoyExtAuthzGrpc.service.split('.')[0], provider.envoyExtAuthzGrpc.port);
});

t.test('envoy-gateway-security-policy.yaml: a gRPC extAuth that fails closed, with a deadline and the body', async (t) => {
  const docs = documents('envoy-gateway-security-policy.yaml');
  const extAuth = ofKind(docs, 'SecurityPolicy').spec.extAuth;
  t.equal(extAuth.failOpen, false);
  t.match(extAuth.timeout, /^\d+s$/);
  t.ok(extAuth.bodyToExtAuth.maxRequestBytes >= MAX_BODY);
  t.equal(extAuth.headersToExtAuth, undefined, 'every header is described');
  t.equal(extAuth.grpc.backendRefs[0].port, PORT);
  t.equal(extAuth.http, undefined);
  t.equal(ofKind(docs, 'ReferenceGrant').spec.to[0].name, extAuth.grpc.backendRefs[0].name);
  checkService(t, extAuth.grpc.backendRefs[0].name, extAuth.grpc.backendRefs[0].port);
});

t.test('contour-extension-service.yaml: an h2c ExtensionService and a TLS virtual host that fails closed with the body', async (t) => {
  const docs = documents('contour-extension-service.yaml');
  const extension = ofKind(docs, 'ExtensionService');
  t.equal(extension.spec.protocol, 'h2c');
  t.equal(extension.spec.services[0].port, PORT);
  t.match(extension.spec.timeoutPolicy.response, /^\d+s$/);
  const host = ofKind(docs, 'HTTPProxy').spec.virtualhost;
  t.ok(host.tls, 'Contour authorizes TLS virtual hosts only');
  t.equal(host.authorization.extensionRef.name, extension.metadata.name);
  t.equal(host.authorization.failOpen, false);
  t.ok(host.authorization.withRequestBody.maxRequestBytes >= MAX_BODY);
  t.equal(host.authorization.withRequestBody.allowPartialMessage, false);
  t.equal(host.authorization.withRequestBody.packAsBytes, true);
  checkService(t, extension.spec.services[0].name, extension.spec.services[0].port);
});
