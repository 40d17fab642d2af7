// Which traces are recorded, as OTEL_TRACES_SAMPLER names it. The parent-based samplers follow the
// caller's decision (the sampled flag of its traceparent) and apply their root sampler only to
// traces that start at the gateway.
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';
import type { TracingSettings } from './tracing-settings.js';

export function samplerOf(settings: Pick<TracingSettings, 'sampler' | 'ratio'>): Sampler {
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(settings.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.ratio) });
  }
}
