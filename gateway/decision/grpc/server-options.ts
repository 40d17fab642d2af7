// The gRPC decision listener's channel options: bounded messages, and connections that last as long
// as Envoy keeps them. Envoy pools one or a few HTTP/2 connections per gateway and sends every
// decision over them, so the server neither closes an idle one nor polices Envoy's pings (grpc-js
// enforces no ping rate); it pings a silent connection itself, to drop one whose peer vanished, and
// ends each after a while with a graceful GOAWAY, so that Envoy spreads its connections again over
// the instances and workers that exist now.
import type { ChannelOptions } from '@grpc/grpc-js';

/**
 * Room for what a CheckRequest carries besides the body: the headers (Envoy's default limit is
 * 60 KiB; the gateway's own listeners take 16 KiB) and the message's envelope.
 */
export const HEADER_ALLOWANCE_BYTES = 128 * 1024;

/** Most calls at once on one connection: Envoy opens another connection past it. */
const MAX_CONCURRENT_STREAMS = 1000;
/** A connection silent this long is pinged; one whose ping goes unanswered this long is closed. */
const KEEPALIVE_TIME_MS = 60_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;
/** Each connection ends (GOAWAY, its calls finished) after about this long (grpc-js adds ±10% jitter). */
const MAX_CONNECTION_AGE_MS = 10 * 60_000;

/**
 * A caller outside GATEWAY_TRUSTED_PROXIES is refused whatever it sends, so before it is known to be
 * a trusted proxy it may send no more than a Check without a body needs, on a few calls at once: it
 * cannot make the gateway hold a body-sized message on each of a thousand streams.
 */
const STRANGER_CONCURRENT_STREAMS = 4;

export function decisionServerOptions(settings: { maxBodyBytes: number; decisionGrpcDeadlineMs: number }): ChannelOptions {
  // A Check carries the body (with_request_body) up to the gateway's body limit: a larger one is
  // refused with RESOURCE_EXHAUSTED before it is decoded. An answer is never larger than what it describes.
  const maxMessage = settings.maxBodyBytes + HEADER_ALLOWANCE_BYTES;
  return {
    'grpc.max_receive_message_length': maxMessage,
    'grpc.max_send_message_length': maxMessage,
    'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
    'grpc.keepalive_time_ms': KEEPALIVE_TIME_MS,
    'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
    'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
    // The calls in flight at a GOAWAY finish within their deadline.
    'grpc.max_connection_age_grace_ms': settings.decisionGrpcDeadlineMs + 1000,
    // channelz (grpc-js's introspection service, not served here) would trace every call.
    'grpc.enable_channelz': 0,
  };
}

/** The options of the connections from callers that are not trusted proxies: the same, with a message of headers only and a few calls at once. */
export function strangerServerOptions(settings: { maxBodyBytes: number; decisionGrpcDeadlineMs: number }): ChannelOptions {
  return {
    ...decisionServerOptions(settings),
    'grpc.max_receive_message_length': HEADER_ALLOWANCE_BYTES,
    'grpc.max_concurrent_streams': STRANGER_CONCURRENT_STREAMS,
  };
}
