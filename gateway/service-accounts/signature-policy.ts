// The signing contract's clock skew, under the name gateway/store/failover-fence.ts and its test
// import it by; it lives in gateway/signing/signature-window.ts (the request checks are in
// gateway/pipeline/authenticate/signature/). Remove once those two import it from there.
export { CLOCK_SKEW_SECONDS } from '../signing/signature-window.js';
